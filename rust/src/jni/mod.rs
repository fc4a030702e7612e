//! The JNI bridge: the `Java_io_sparkbloom_*` exports behind the `static native` methods of
//! `io.sparkbloom`'s `*Native` classes. The core never sees a JNIEnv.
//!
//! * [`native_filter`]: one export per operation both filter classes have (`NativeFilter`),
//!   batches of `long` keys as slices `keys[from..to]`; [`bloom_filter_native`] and
//!   [`counting_bloom_filter_native`] what only one class has, [`bloom_filter_formats`] the
//!   plain filter's byte formats, [`redis_layout`] the Redis helper's shape and `GETBIT`
//!   offsets.
//! * [`errors`]: the one helper every export goes through; it catches panics and turns every
//!   error into the right Java exception, so a Rust panic never crosses into the JVM.
//! * [`arrays`]: Java arrays (and slices of them) of any size: small ones pinned, large ones
//!   copied in bounded chunks, results built with fallible allocations and size checks.
//! * [`packed_keys`], [`utf16_keys`]: byte-string batches as Java packs them, `byte[][]` as one
//!   `byte[]`, `String[]` as UTF-16 chars encoded to UTF-8 as Java encodes them.
//! * [`native_library`]: the probe the Java loader calls to tell this bridge from a library
//!   built without it.
//! * [`critical`]: no-copy access to Java primitive arrays that makes no JNI call inside the
//!   critical section (jni 0.22.4's own guard calls `ExceptionCheck` there, which
//!   `-Xcheck:jni` reports).

/// Defines the exports behind `static native` methods: each item `Class.nMethod(env, args...) ->
/// ret { body }` becomes `pub extern "system" fn Java_io_sparkbloom_Class_nMethod<'l>(env:
/// EnvUnowned<'l>, _class: JClass<'l>, args...) -> ret`, so an export reads as its Java
/// declaration and the JNI signature is written once. The body names `env` (its first
/// argument) and builds on [`errors::run`] or [`errors::run_primitive`], which catch panics and
/// map errors to Java exceptions.
macro_rules! exports {
    ($(
        $(#[$attr:meta])*
        $class:ident . $name:ident($env:ident $(, $arg:ident: $ty:ty)* $(,)?) $(-> $ret:ty)?
        $body:block
    )*) => {$(
        $(#[$attr])*
        #[allow(non_snake_case)]
        #[unsafe(export_name = concat!(
            "Java_io_sparkbloom_", stringify!($class), "_", stringify!($name)
        ))]
        pub extern "system" fn $name<'l>(
            $env: jni::EnvUnowned<'l>,
            _class: jni::objects::JClass<'l>,
            $($arg: $ty),*
        ) $(-> $ret)? $body
    )*};
}

mod arrays;
mod bloom_filter_formats;
mod bloom_filter_native;
mod counting_bloom_filter_native;
mod critical;
mod errors;
mod handle_ops;
mod native_filter;
mod native_library;
mod packed_keys;
mod redis_layout;
mod utf16_keys;
