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
 *   <li>Otherwise {@code /native/<os>-<arch>/libsparkbloom.so} is copied from the jar to a
 *       uniquely named temporary file (so several class loaders or JVMs never share or
 *       overwrite one file) and loaded with {@link System#load}; the file is deleted at once
 *       on Linux (the mapping stays valid) and otherwise on exit.
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
      if (override != null && !override.isEmpty()) {
        System.load(new File(override).getAbsolutePath());
      } else {
        extractAndLoad(platform(System.getProperty("os.name"), System.getProperty("os.arch")));
      }
      return null;
    } catch (Throwable t) {
      return t;
    }
  }

  /**
   * The {@code <os>-<arch>} directory of the native library inside the jar for this platform.
   *
   * @throws UnsatisfiedLinkError naming the platform and the override property if the jar
   *     carries no library for it
   */
  static String platform(String osName, String osArch) {
    String os = osName == null ? "" : osName.toLowerCase(Locale.ROOT);
    String arch = osArch == null ? "" : osArch.toLowerCase(Locale.ROOT);
    if (os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64"))) {
      return "linux-x86_64";
    }
    throw new UnsatisfiedLinkError(
        "sparkbloom has no native library for os.name="
            + osName
            + ", os.arch="
            + osArch
            + " (this jar carries linux-x86_64 only). Build the Rust library for this platform"
            + " (cargo build --release --features jni) and pass its path with -D"
            + PATH_PROPERTY
            + "=/path/to/libsparkbloom.so");
  }

  private static void extractAndLoad(String platform) throws IOException {
    String resource = "/native/" + platform + "/libsparkbloom.so";
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new UnsatisfiedLinkError(
            "sparkbloom native library "
                + resource
                + " is missing from the classpath (platform "
                + platform
                + "); set -D"
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
