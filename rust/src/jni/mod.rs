//! The JNI bridge: the `Java_io_sparkbloom_*` exports behind the `static native` methods of
//! `io.sparkbloom`'s `*Native` classes (ARCHITECTURE.md lists the files). The core never sees a
//! JNIEnv; an export that can fail goes through [`errors::run`], so no Rust panic crosses into
//! the JVM.

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
