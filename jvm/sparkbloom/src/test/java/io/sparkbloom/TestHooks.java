package io.sparkbloom;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The test-only natives of a library built with the cargo feature {@code jni-test-hooks}
 * ({@code rust/src/jni/errors.rs}): the pom builds one for the tests beside the jar's library,
 * which never has them. Only a JVM that loads that library ({@link #library()}, through {@code
 * -Dsparkbloom.native.path}) may call them.
 */
final class TestHooks {
  static {
    NativeLibrary.ensureLoaded();
  }

  private TestHooks() {}

  /** The test library the pom built (system property {@code sparkbloom.test.hooks.library}). */
  static Path library() {
    Path lib = Path.of(System.getProperty("sparkbloom.test.hooks.library", ""));
    if (!Files.isRegularFile(lib)) {
      throw new AssertionError("no test library at '" + lib + "': build it with the pom (cargo-build-test-hooks)");
    }
    return lib;
  }

  /** Panics in Rust with a runtime-formatted message: must arrive as a RuntimeException. */
  static native long nPanicForTest(long value);
}
