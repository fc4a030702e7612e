//! The JNI bridge: the `Java_io_sparkbloom_*` exports behind the `static native` methods of
//! `io.sparkbloom.BloomFilterNative`. The core never sees a JNIEnv.
//!
//! * [`bloom_filter_native`]: one thin export per native method of
//!   `io.sparkbloom.BloomFilterNative` (the Java class that declares the natives of
//!   `BloomFilter`).
//! * [`errors`]: the one helper every export goes through; it catches panics and turns every
//!   error into the right Java exception, so a Rust panic never crosses into the JVM.
//! * [`arrays`]: Java arrays of any size: small ones pinned, large ones copied in bounded
//!   chunks, results built with fallible allocations and size checks.
//! * [`long_slices`]: the batch exports over a slice `keys[from..to]` of a Java `long[]`.
//! * [`utf16_keys`]: `String[]` batches as UTF-16 chars, encoded to UTF-8 as Java encodes them
//!   (the exports behind `nPutAllUtf16` / `nMightContainAllUtf16`).
//! * [`native_library`]: the probe the Java loader calls to tell this bridge from a library
//!   built without it.
//! * [`critical`]: no-copy access to Java primitive arrays that makes no JNI call inside the
//!   critical section (jni 0.22.4's own guard calls `ExceptionCheck` there, which
//!   `-Xcheck:jni` reports).

mod arrays;
mod bloom_filter_formats;
mod bloom_filter_native;
mod counting_bloom_filter_native;
mod critical;
mod errors;
mod handle_ops;
mod long_slices;
mod native_library;
mod packed_keys;
mod utf16_keys;
