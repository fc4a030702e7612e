//! What the exports share, generic over the core type behind the handle: the handle itself (a
//! fallible heap allocation one way, a borrow or a free the other), argument checks, keys as
//! `byte[]`, the encode/decode/length trio of each stream format, and batches of byte-string
//! keys ([`KeyBatch`]: packed `byte[]` or UTF-16 `char[]`). Each `Java_*` export is one call to
//! [`run`](super::errors::run) around one of these, naming the core function it applies.
//!
//! Handles follow the rules of Java's `NativeHandle`: a non-zero handle is a live
//! `Box<T>` made by `into_handle`, freed exactly once and never while a call holding it can still
//! run (`reachabilityFence`); 0 means "closed" and becomes `IllegalStateException`.

use jni::Env;
use jni::objects::JByteArray;
use jni::sys::{jdouble, jint, jlong};

use super::arrays::{PIN_MAX_BYTES, new_array, read_all, try_buffer};
use super::critical::{Critical, Mode, as_u8, as_u8_mut, length};
use super::errors::{JniError, JniResult, decoding};
use crate::error::Error;
use crate::sizing::Shape;
use crate::{PackedBytes, Result, Strategy, sizing};

/// The object behind a handle; 0 is [`JniError::Closed`].
pub(crate) fn object<'a, T>(handle: jlong) -> JniResult<&'a T> {
    if handle == 0 {
        return Err(JniError::Closed);
    }
    // SAFETY: a non-zero handle comes from `into_handle::<T>` (each export names its `T`: its
    // file's one, or the one of the kind Java passes beside the handle), and the Java side
    // frees it only once, never while a call holding it can still run (NativeHandle.java).
    Ok(unsafe { &*(handle as *const T) })
}

/// Moves `object` to the heap; Java owns it from now on, as a handle. The allocation is
/// fallible (`Box::new` would abort the JVM on failure): no room is an error.
pub(crate) fn into_handle<T>(object: T) -> Result<jlong> {
    const {
        assert!(
            std::mem::size_of::<T>() != 0,
            "a handle's object has a size"
        )
    };
    let layout = std::alloc::Layout::new::<T>();
    // SAFETY: the layout has non-zero size (asserted); a null return is handled; a valid T is
    // written before the pointer is used, and `free` releases it as the `Box<T>` whose layout
    // this is.
    unsafe {
        let ptr = std::alloc::alloc(layout).cast::<T>();
        if ptr.is_null() {
            return Err(Error::allocation("the filter object", layout.size() as u64));
        }
        ptr.write(object);
        Ok(ptr as jlong)
    }
}

/// Frees a handle made by [`into_handle`]; 0 does nothing.
pub(crate) fn free<T>(handle: jlong) -> JniResult<()> {
    if handle != 0 {
        // SAFETY: the handle came from `into_handle::<T>`; Java's `NativeHandle` runs this once.
        drop(unsafe { Box::from_raw(handle as *mut T) });
    }
    Ok(())
}

/// The strategy with this ordinal (`Strategy.ordinal()` in Java).
pub(crate) fn strategy(ordinal: jint) -> JniResult<Strategy> {
    u8::try_from(ordinal)
        .ok()
        .and_then(Strategy::from_ordinal)
        .ok_or_else(|| {
            Error::invalid("strategy", format!("ordinal {ordinal} is not in 0..=4")).into()
        })
}

/// `value` as a `u64`; a negative one is an `IllegalArgumentException` naming `name`.
pub(crate) fn non_negative(name: &'static str, value: jlong) -> JniResult<u64> {
    u64::try_from(value).map_err(|_| Error::invalid(name, format!("{value} is negative")).into())
}

/// The number of hash functions; negative is an `IllegalArgumentException`.
pub(crate) fn checked_num_hashes(num_hashes: jint) -> JniResult<u32> {
    u32::try_from(num_hashes)
        .map_err(|_| Error::invalid("numHashFunctions", format!("{num_hashes} is negative")).into())
}

/// A shape given bit for bit (`withShape`, Redis bitmaps).
pub(crate) fn shape(num_bits: jlong, hashes: jint) -> JniResult<Shape> {
    Ok(Shape {
        num_bits: non_negative("numBits", num_bits)?,
        num_hashes: checked_num_hashes(hashes)?,
    })
}

/// The same 64 bits, as Java `long`s.
pub(crate) fn as_i64(words: &[u64]) -> &[i64] {
    // SAFETY: u64 and i64 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const i64, words.len()) }
}

/// The same 64 bits, as Java `long`s.
pub(crate) fn as_i64_mut(words: &mut [u64]) -> &mut [i64] {
    // SAFETY: u64 and i64 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut i64, words.len()) }
}

/// Bytes as Java `byte`s.
pub(crate) fn as_i8(bytes: &[u8]) -> &[i8] {
    // SAFETY: u8 and i8 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const i8, bytes.len()) }
}

/// A new filter sized for `expected_insertions` keys at false-positive rate `fpp`.
pub(crate) fn create<T>(
    expected_insertions: jlong,
    fpp: jdouble,
    strategy_ordinal: jint,
    build: impl FnOnce(Shape, Strategy) -> Result<T>,
) -> JniResult<jlong> {
    let n = non_negative("expectedInsertions", expected_insertions)?;
    let strategy = strategy(strategy_ordinal)?;
    let shape = sizing::shape_for_strategy(n, fpp, strategy)?;
    Ok(into_handle(build(shape, strategy)?)?)
}

/// A new empty filter of exactly this shape.
pub(crate) fn with_shape<T>(
    num_bits: jlong,
    num_hashes: jint,
    strategy_ordinal: jint,
    build: impl FnOnce(Shape, Strategy) -> Result<T>,
) -> JniResult<jlong> {
    let shape = shape(num_bits, num_hashes)?;
    Ok(into_handle(build(shape, strategy(strategy_ordinal)?)?)?)
}

/// A copy of the filter behind `handle`, as a new handle.
pub(crate) fn copy<T>(handle: jlong, try_clone: impl FnOnce(&T) -> Result<T>) -> JniResult<jlong> {
    Ok(into_handle(try_clone(object(handle)?)?)?)
}

/// `op(filter, key)` with a `byte[]` key (a `String` key arrives as its UTF-8 bytes).
pub(crate) fn with_bytes_key<T, R>(
    env: &Env<'_>,
    handle: jlong,
    key: &JByteArray<'_>,
    op: impl FnOnce(&T, &[u8]) -> R,
) -> JniResult<R> {
    let filter = object(handle)?;
    let key = read_all(env, key, "key")?;
    Ok(op(filter, as_u8(key.as_slice())))
}

/// The filter's bytes in one stream format, as a new `byte[]`; `what` names them in errors.
pub(crate) fn encode<'l, T>(
    env: &mut Env<'l>,
    handle: jlong,
    encode: impl FnOnce(&T) -> Result<Vec<u8>>,
    what: &'static str,
) -> JniResult<JByteArray<'l>> {
    let bytes = encode(object(handle)?)?;
    new_array(env, as_i8(&bytes), what)
}

/// The filter's bytes in one stream format, written to the front of `out` by `encode_into`
/// (which needs `max_len` bytes, else it is not called): their count, or `-max_len` when `out`
/// is shorter, so the caller can retry with a larger array. One crossing, no Java allocation,
/// and an `out` small enough to pin is written in place (no Rust buffer).
pub(crate) fn encode_into<T>(
    env: &Env<'_>,
    handle: jlong,
    out: &JByteArray<'_>,
    max_len: impl FnOnce(&T) -> u64,
    encode_into: impl FnOnce(&T, &mut [u8]) -> Result<usize>,
) -> JniResult<jlong> {
    let filter = object(handle)?;
    let max_len = max_len(filter);
    let len = length(env, out, "out")?;
    if (len as u64) < max_len {
        return Ok(-(max_len.min(i64::MAX as u64) as jlong));
    }
    if len > PIN_MAX_BYTES {
        let mut buffer = try_buffer::<u8>(max_len as usize, "the serialized filter")?;
        let written = encode_into(filter, &mut buffer)?;
        out.set_region(env, 0, as_i8(&buffer[..written]))?;
        return Ok(written as jlong);
    }
    let mut pinned = Critical::open_with_len(env, out, len, Mode::Write)?;
    Ok(encode_into(filter, as_u8_mut(pinned.as_mut_slice()))? as jlong)
}

/// A filter decoded from the first `len` bytes of `bytes` (a reused buffer), refusing more than
/// `max_num_bits` bits, as a handle; `len` beyond the array is an `IllegalArgumentException`.
pub(crate) fn decode_prefix<T>(
    env: &Env<'_>,
    bytes: &JByteArray<'_>,
    len: jint,
    max_num_bits: jlong,
    decode_with_limit: impl FnOnce(&[u8], u64) -> Result<T>,
) -> JniResult<jlong> {
    let available = length(env, bytes, "bytes")?;
    let len = usize::try_from(len)
        .ok()
        .filter(|&len| len <= available)
        .ok_or_else(|| {
            Error::invalid(
                "length",
                format!("{len} is not in 0..={available} (the array's length)"),
            )
        })?;
    let filter = read_limited(env, bytes, "bytes", max_num_bits, |bytes, limit| {
        decode_with_limit(&bytes[..len], limit)
    })?;
    Ok(into_handle(filter)?)
}

/// A filter decoded from a whole stream, refusing more than `max_num_bits` bits, as a handle.
pub(crate) fn decode<T>(
    env: &Env<'_>,
    bytes: &JByteArray<'_>,
    max_num_bits: jlong,
    decode_with_limit: impl FnOnce(&[u8], u64) -> Result<T>,
) -> JniResult<jlong> {
    let filter = read_limited(env, bytes, "bytes", max_num_bits, decode_with_limit)?;
    Ok(into_handle(filter)?)
}

/// A stream's whole length from its header, refusing more than `max_num_bits` bits.
pub(crate) fn total_length(
    env: &Env<'_>,
    header: &JByteArray<'_>,
    max_num_bits: jlong,
    total_len_with_limit: impl FnOnce(&[u8], u64) -> Result<u64>,
) -> JniResult<jlong> {
    let total = read_limited(env, header, "header", max_num_bits, total_len_with_limit)?;
    Ok(total.min(i64::MAX as u64) as jlong)
}

/// `read(bytes, limit)` over a Java `byte[]` named `what`, its errors reported as a decoder's
/// ([`decoding`]).
fn read_limited<R>(
    env: &Env<'_>,
    bytes: &JByteArray<'_>,
    what: &'static str,
    max_num_bits: jlong,
    read: impl FnOnce(&[u8], u64) -> Result<R>,
) -> JniResult<R> {
    let limit = non_negative("maxNumBits", max_num_bits)?;
    let bytes = read_all(env, bytes, what)?;
    decoding(read(as_u8(bytes.as_slice()), limit))
}

/// A batch of byte-string keys read from Java in one crossing: [`PackedKeys`](super::packed_keys::PackedKeys)
/// (`byte[]` data) or [`Utf16Keys`](super::utf16_keys::Utf16Keys) (`char[]`, made UTF-8 here).
pub(crate) trait KeyBatch {
    /// The keys, packed for the core's byte-key batches.
    fn packed(&self) -> JniResult<PackedBytes<'_>>;
}
