//! No-copy access to Java primitive arrays through `GetPrimitiveArrayCritical`.
//!
//! jni 0.22.4's `AutoElementsCritical` calls `ExceptionCheck` right after
//! `GetPrimitiveArrayCritical`, i.e. inside the critical section, which HotSpot's
//! `-Xcheck:jni` reports ("JNI call made within critical region"; fixed upstream after 0.22.4).
//! This guard makes the two raw calls and nothing in between, so its sections are clean.
//!
//! Rules for callers (the JNI critical-section contract): while a guard lives, make no other
//! JNI call on this thread except opening or closing further critical sections, and do not
//! block on other Java threads. The guards here only ever wrap pure Rust filter work.

use std::marker::PhantomData;

use jni::Env;
use jni::objects::{JPrimitiveArray, TypeArray};
use jni::sys::{self, jarray, jint};

use super::errors::{JniError, JniResult};

/// What to do with the elements when the section closes.
#[derive(Clone, Copy)]
pub(crate) enum Mode {
    /// Read only: never copy back (`JNI_ABORT`).
    Read,
    /// Written: copy back if the JVM handed out a copy (`0`).
    Write,
}

/// An open critical section over one Java primitive array.
pub(crate) struct Critical<'a, T> {
    env: *mut sys::JNIEnv,
    array: jarray,
    ptr: *mut T,
    len: usize,
    mode: Mode,
    _array: PhantomData<&'a ()>,
}

impl<'a, T: TypeArray> Critical<'a, T> {
    /// Opens a critical section on a non-null `array` whose [`length`] is `len`, making no JNI
    /// call but `GetPrimitiveArrayCritical`: legal while other sections are open.
    pub(crate) fn open_with_len(
        env: &Env<'_>,
        array: &'a JPrimitiveArray<'_, T>,
        len: usize,
        mode: Mode,
    ) -> JniResult<Critical<'a, T>> {
        let raw_env = env.get_raw();
        let raw_array = array.as_raw() as jarray;
        let mut is_copy = false;
        // SAFETY: `raw_env` is the valid JNIEnv of this thread, `raw_array` a live, non-null
        // local reference to a primitive array of `len` elements (checked by `length`).
        let ptr = unsafe {
            ((**raw_env).v1_2.GetPrimitiveArrayCritical)(raw_env, raw_array, &mut is_copy)
        };
        if ptr.is_null() {
            // The JVM made an OutOfMemoryError pending; `run` lets it propagate.
            return Err(JniError::Jni(jni::errors::Error::JavaException));
        }
        Ok(Critical {
            env: raw_env,
            array: raw_array,
            ptr: ptr as *mut T,
            len,
            mode,
            _array: PhantomData,
        })
    }

    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: the JVM guarantees `len` valid elements at `ptr` until release; the pointer
        // is non-null and aligned for T.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`; `&mut self` makes this the only slice of the section.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<T> Drop for Critical<'_, T> {
    fn drop(&mut self) {
        let mode: jint = match self.mode {
            Mode::Read => sys::JNI_ABORT,
            Mode::Write => 0,
        };
        // SAFETY: releases exactly the section opened in `open`, on the same thread (the guard
        // is neither Send nor Sync: it holds raw pointers). Legal with an exception pending.
        unsafe {
            ((**self.env).v1_2.ReleasePrimitiveArrayCritical)(
                self.env,
                self.array,
                self.ptr as *mut std::ffi::c_void,
                mode,
            )
        }
    }
}

/// The length of a Java array; a null `array` is [`JniError::Null`] naming `what`.
pub(crate) fn length<T: TypeArray>(
    env: &Env<'_>,
    array: &JPrimitiveArray<'_, T>,
    what: &'static str,
) -> JniResult<usize> {
    if array.is_null() {
        return Err(JniError::Null(what));
    }
    Ok(array.len(env)?)
}

/// The same 64 bits, read as an unsigned key: Java's `long` keys hash exactly as Guava's
/// `Funnels.longFunnel()` hashes them.
pub(crate) fn as_u64(keys: &[i64]) -> &[u64] {
    // SAFETY: i64 and u64 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts(keys.as_ptr() as *const u64, keys.len()) }
}

/// Java `byte[]` elements as bytes.
pub(crate) fn as_u8(bytes: &[i8]) -> &[u8] {
    // SAFETY: i8 and u8 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const u8, bytes.len()) }
}

/// Java `byte[]` elements as bytes, writable.
pub(crate) fn as_u8_mut(bytes: &mut [i8]) -> &mut [u8] {
    // SAFETY: i8 and u8 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr() as *mut u8, bytes.len()) }
}
