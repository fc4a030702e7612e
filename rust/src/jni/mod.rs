//! The JNI bridge: the `Java_io_sparkbloom_*` exports behind `io.sparkbloom.BloomFilter`'s
//! `private static native` methods. The core never sees a JNIEnv.
//!
//! * [`bloom_filter`]: one thin export per native method of `io.sparkbloom.BloomFilter`.
//! * [`redis`]: the exports for Redis bitmaps and explicit shapes (`sparkbloom-redis`).
//! * [`errors`]: the one helper every export goes through; it catches panics and turns every
//!   error into the right Java exception, so a Rust panic never crosses into the JVM.
//! * [`critical`]: no-copy access to Java primitive arrays that makes no JNI call inside the
//!   critical section (jni 0.22.4's own guard calls `ExceptionCheck` there, which
//!   `-Xcheck:jni` reports).

mod bloom_filter;
mod critical;
mod errors;
mod redis;
