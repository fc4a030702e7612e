package io.sparkbloom;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads the sparkbloom native library once per class loader, thread-safely (the holder idiom:
 * the JVM runs {@link Holder}'s static initializer exactly once).
 *
 * <ol>
 *   <li>If the system property {@value #PATH_PROPERTY} is set, that file is loaded and nothing
 *       else is tried.
 *   <li>Otherwise {@code /native/<os>-<arch>/libsparkbloom.so} ({@link #platform}) is copied
 *       from the jar to a uniquely named temporary file (so several class loaders or JVMs
 *       never share or overwrite one file) and loaded with {@link System#load}; the file is
 *       deleted at once on Linux (the mapping stays valid) and otherwise on exit.
 * </ol>
 *
 * A failure is kept and rethrown, with its cause, from every later use, instead of the bare
 * {@code NoClassDefFoundError} a failed static initializer would leave behind.
 */
final class NativeLibrary {
  /** System property naming a {@code libsparkbloom} file to load instead of the bundled one. */
  static final String PATH_PROPERTY = "sparkbloom.native.path";

  /** System property naming the directory for the extracted library (default java.io.tmpdir). */
  static final String TEMP_DIR_PROPERTY = "sparkbloom.native.tmpdir";

  private NativeLibrary() {}

  private static final class Holder {
    static final Throwable FAILURE = loadOnce();
  }

  /** Ensures the library is loaded; throws {@link UnsatisfiedLinkError} if it cannot be. */
  static void ensureLoaded() {
    Throwable failure = Holder.FAILURE;
    if (failure != null) {
      UnsatisfiedLinkError error = new UnsatisfiedLinkError(failure.getMessage());
      error.initCause(failure);
      throw error;
    }
  }

  private static Throwable loadOnce() {
    try {
      String override = System.getProperty(PATH_PROPERTY);
      String loaded;
      if (override != null && !override.isEmpty()) {
        loaded = new File(override).getAbsolutePath();
        System.load(loaded);
      } else {
        loaded = extractAndLoad(platform(System.getProperty("os.name"), System.getProperty("os.arch")));
      }
      checkBridge(loaded);
      return null;
    } catch (Throwable t) {
      return t;
    }
  }

  /** The JNI bridge's contract version this Java code expects ({@code rust/src/jni}). */
  static final int BRIDGE_VERSION = 1;

  /** The version the loaded library's JNI bridge answers. */
  private static native int nBridgeVersion();

  /**
   * Throws unless the library just loaded from {@code path} carries sparkbloom's JNI bridge: a
   * {@code libsparkbloom.so} built without {@code --features jni} loads fine but exports no
   * native method, which would otherwise surface as a bare {@link UnsatisfiedLinkError} naming
   * the first native method called.
   */
  private static void checkBridge(String path) {
    int version;
    try {
      version = nBridgeVersion();
    } catch (UnsatisfiedLinkError e) {
      UnsatisfiedLinkError clear =
          new UnsatisfiedLinkError(
              "sparkbloom: "
                  + path
                  + " loaded but exports no sparkbloom JNI method: it was most likely built"
                  + " without the JNI bridge. Build it with `cargo build --release --features"
                  + " jni` (or use the library bundled in the jar by not setting -D"
                  + PATH_PROPERTY
                  + ")");
      clear.initCause(e);
      throw clear;
    }
    if (version != BRIDGE_VERSION) {
      throw new UnsatisfiedLinkError(
          "sparkbloom: "
              + path
              + " has JNI bridge version "
              + version
              + ", this jar expects "
              + BRIDGE_VERSION
              + ": load the library built from the same sources as the jar");
    }
  }

  /** The platforms whose library the jar carries, as {@code <os>-<arch>} directories. */
  static final String[] PLATFORMS = {"linux-x86_64", "linux-aarch64"};

  /**
   * The {@code <os>-<arch>} directory of the native library inside the jar for this platform:
   * {@code os.arch} {@code amd64} or {@code x86_64} is {@code linux-x86_64}, {@code aarch64} (or
   * {@code arm64}, as some JVMs report it) {@code linux-aarch64}.
   *
   * @throws UnsatisfiedLinkError naming the platform and the override property if the jar
   *     carries no library for it
   */
  static String platform(String osName, String osArch) {
    String os = osName == null ? "" : osName.toLowerCase(Locale.ROOT);
    String arch = osArch == null ? "" : osArch.toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      if (arch.equals("amd64") || arch.equals("x86_64")) {
        return PLATFORMS[0];
      }
      if (arch.equals("aarch64") || arch.equals("arm64")) {
        return PLATFORMS[1];
      }
    }
    throw new UnsatisfiedLinkError(
        "sparkbloom has no native library for os.name="
            + osName
            + ", os.arch="
            + osArch
            + " (this jar carries "
            + String.join(" and ", PLATFORMS)
            + "). Build the Rust library for this platform"
            + " (cargo build --release --features jni) and pass its path with -D"
            + PATH_PROPERTY
            + "=/path/to/libsparkbloom.so");
  }

  /** Loads the library bundled for {@code platform}; returns the file it was loaded from. */
  private static String extractAndLoad(String platform) throws IOException {
    String resource = "/native/" + platform + "/libsparkbloom.so";
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new UnsatisfiedLinkError(
            "sparkbloom native library "
                + resource
                + " is missing from the classpath (platform "
                + platform
                + ": the jar was built without its toolchain, see scripts/build-native.sh); set -D"
                + PATH_PROPERTY
                + "=/path/to/libsparkbloom.so");
      }
      String dir = System.getProperty(TEMP_DIR_PROPERTY);
      Path file =
          dir == null || dir.isEmpty()
              ? Files.createTempFile("libsparkbloom-", ".so")
              : Files.createTempFile(Path.of(dir), "libsparkbloom-", ".so");
      try {
        Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        System.load(file.toAbsolutePath().toString());
        return resource;
      } finally {
        // On Linux the loaded mapping outlives the directory entry; elsewhere this may fail
        // and the file goes at exit.
        try {
          Files.deleteIfExists(file);
        } catch (IOException e) {
          file.toFile().deleteOnExit();
        }
      }
    }
  }
}
