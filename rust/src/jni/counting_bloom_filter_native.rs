//! Exports behind the `static native` methods of `io.sparkbloom.CountingBloomFilterNative`.
//!
//! Built as `bloom_filter_native.rs` is: a filter crosses JNI as a handle
//! (`Box::into_raw(Box::new(CountingBloomFilter))`), freed once by `nFree` under the rules of
//! Java's `NativeHandle`; a handle of 0 is "closed". Every export is one call to [`run`] (or
//! [`run_primitive`] for the hot single-key calls), arrays go through `arrays.rs` (large ones in
//! chunks), allocations are fallible, and decoders report through [`decoding`].

use jni::EnvUnowned;
use jni::objects::{JBooleanArray, JByteArray, JClass, JLongArray};
use jni::sys::{jboolean, jdouble, jint, jlong};

use super::arrays::{for_each_chunk, map_chunks, new_array, read_all, try_buffer};
use super::critical::{as_u8, as_u64, length};
use super::errors::{JniError, JniResult, decoding, run, run_primitive};
use crate::counting::CountingBloomFilter;
use crate::error::Error;
use crate::format::counting as format;
use crate::sizing::Shape;
use crate::{Strategy, sizing};

/// The filter behind a handle.
fn filter<'a>(handle: jlong) -> JniResult<&'a CountingBloomFilter> {
    if handle == 0 {
        return Err(JniError::Closed);
    }
    // SAFETY: a non-zero handle comes from `into_handle`, and the Java side frees it only once,
    // never while a call holding it can still run (NativeHandle.java).
    Ok(unsafe { &*(handle as *const CountingBloomFilter) })
}

fn into_handle(filter: CountingBloomFilter) -> jlong {
    Box::into_raw(Box::new(filter)) as jlong
}

fn strategy(ordinal: jint) -> JniResult<Strategy> {
    u8::try_from(ordinal)
        .ok()
        .and_then(Strategy::from_ordinal)
        .ok_or_else(|| {
            Error::invalid("strategy", format!("ordinal {ordinal} is not 0 or 1")).into()
        })
}

fn non_negative(name: &'static str, value: jlong) -> JniResult<u64> {
    u64::try_from(value).map_err(|_| Error::invalid(name, format!("{value} is negative")).into())
}

/// Java `long`s as the same 64 bits.
fn as_i64(words: &[u64]) -> &[i64] {
    // SAFETY: u64 and i64 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const i64, words.len()) }
}

/// Bytes as Java `byte`s.
fn as_i8(bytes: &[u8]) -> &[i8] {
    // SAFETY: u8 and i8 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const i8, bytes.len()) }
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nCreate<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    expected_insertions: jlong,
    fpp: jdouble,
    strategy_ordinal: jint,
) -> jlong {
    run(env, |_| {
        let n = non_negative("expectedInsertions", expected_insertions)?;
        let strategy = strategy(strategy_ordinal)?;
        let shape = sizing::shape_for_strategy(n, fpp, strategy)?;
        Ok(into_handle(CountingBloomFilter::with_shape(
            shape, strategy,
        )?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nWithShape<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    num_bits: jlong,
    num_hashes: jint,
    strategy_ordinal: jint,
) -> jlong {
    run(env, |_| {
        let shape = Shape {
            num_bits: non_negative("numBits", num_bits)?,
            num_hashes: u32::try_from(num_hashes).map_err(|_| {
                Error::invalid("numHashFunctions", format!("{num_hashes} is negative"))
            })?,
        };
        Ok(into_handle(CountingBloomFilter::with_shape(
            shape,
            strategy(strategy_ordinal)?,
        )?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nFree<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(env, |_| {
        if handle != 0 {
            // SAFETY: the handle came from `into_handle`; the Java side runs this once.
            drop(unsafe { Box::from_raw(handle as *mut CountingBloomFilter) });
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nCopy<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| Ok(into_handle(filter(handle)?.try_clone()?)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nAdd<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: jlong,
) -> jboolean {
    run_primitive(env, || Ok(filter(handle)?.add(key as u64)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nRemove<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: jlong,
) -> jboolean {
    run_primitive(env, || Ok(filter(handle)?.remove(key as u64)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nMightContain<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: jlong,
) -> jboolean {
    run_primitive(env, || Ok(filter(handle)?.might_contain(key as u64)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nCount<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: jlong,
) -> jint {
    run_primitive(env, || Ok(filter(handle)?.count(key as u64) as jint))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nAddBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(env, |env| {
        let f = filter(handle)?;
        let key = read_all(env, &key, "key")?;
        Ok(f.add_bytes(as_u8(key.as_slice())))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nRemoveBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(env, |env| {
        let f = filter(handle)?;
        let key = read_all(env, &key, "key")?;
        Ok(f.remove_bytes(as_u8(key.as_slice())))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nMightContainBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(env, |env| {
        let f = filter(handle)?;
        let key = read_all(env, &key, "key")?;
        Ok(f.might_contain_bytes(as_u8(key.as_slice())))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nCountBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
) -> jint {
    run(env, |env| {
        let f = filter(handle)?;
        let key = read_all(env, &key, "key")?;
        Ok(f.count_bytes(as_u8(key.as_slice())) as jint)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nAddAll<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
) -> jboolean {
    run(env, |env| {
        let f = filter(handle)?;
        let mut changed = false;
        for_each_chunk(env, &keys, "keys", |_, chunk| {
            changed |= f.add_all(as_u64(chunk));
            Ok(())
        })?;
        Ok(changed)
    })
}

/// Returns how many keys were possibly present, hence removed.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nRemoveAll<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
) -> jlong {
    run(env, |env| {
        let f = filter(handle)?;
        let mut removed = 0u64;
        for_each_chunk(env, &keys, "keys", |_, chunk| {
            removed += f.remove_all(as_u64(chunk));
            Ok(())
        })?;
        Ok(removed as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nMightContainAll<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
    out: JBooleanArray<'l>,
) {
    run(env, |env| {
        let f = filter(handle)?;
        map_chunks(env, &keys, "keys", &out, "out", |keys, answers| {
            Ok(f.might_contain_all_into(as_u64(keys), answers)?)
        })
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nRetainAbsent<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
) -> JLongArray<'l> {
    run(env, |env| {
        let f = filter(handle)?;
        // Room for every key up front (no growth that could abort): as large as the input.
        let mut absent = try_buffer::<u64>(0, "the absent keys")?;
        let len = length(env, &keys, "keys")?;
        absent
            .try_reserve_exact(len)
            .map_err(|_| Error::allocation("the absent keys", (len as u64).saturating_mul(8)))?;
        for_each_chunk(env, &keys, "keys", |_, chunk| {
            f.retain_absent_into(as_u64(chunk), &mut absent);
            Ok(())
        })?;
        new_array(env, as_i64(&absent), "the absent keys")
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nMerge<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) {
    run(env, |_| Ok(filter(handle)?.merge(filter(other)?)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nSubtract<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) {
    run(env, |_| Ok(filter(handle)?.subtract(filter(other)?)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nIsCompatible<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) -> jboolean {
    run(env, |_| {
        Ok(filter(handle)?.check_compatible(filter(other)?).is_ok())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nEquals<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) -> jboolean {
    run(env, |_| Ok(filter(handle)? == filter(other)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nHashCode<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    run(env, |_| {
        let f = filter(handle)?;
        // Arrays.hashCode(long[]) over the counter words, seeded with the shape.
        let seed = 31i32
            .wrapping_mul(f.num_hashes() as i32)
            .wrapping_add(f.strategy().ordinal() as i32);
        Ok(f.words().fold(seed, |h, w| {
            h.wrapping_mul(31).wrapping_add((w ^ (w >> 32)) as i32)
        }))
    })
}

/// The plain filter of the nonzero counters, as a `BloomFilterNative` handle.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nToBloomFilter<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| {
        let plain = filter(handle)?.to_bloom_filter()?;
        Ok(Box::into_raw(Box::new(plain)) as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nBitSize<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run_primitive(env, || Ok(filter(handle)?.num_bits() as jlong))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nNumHashes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    run_primitive(env, || Ok(filter(handle)?.num_hashes() as jint))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nStrategy<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    run_primitive(env, || Ok(filter(handle)?.strategy().ordinal() as jint))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nSaturatedCounters<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| Ok(filter(handle)?.saturated_counters() as jlong))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nNonzeroCounters<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| Ok(filter(handle)?.nonzero_counters() as jlong))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nToBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(env, |env| {
        let bytes = format::try_encode(filter(handle)?)?;
        new_array(env, as_i8(&bytes), "the serialized filter")
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nFromBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    bytes: JByteArray<'l>,
    max_num_bits: jlong,
) -> jlong {
    run(env, |env| {
        let limit = non_negative("maxNumBits", max_num_bits)?;
        let bytes = read_all(env, &bytes, "bytes")?;
        let filter = decoding(format::decode_with_limit(as_u8(bytes.as_slice()), limit))?;
        Ok(into_handle(filter))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nTotalLength<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    header: JByteArray<'l>,
    max_num_bits: jlong,
) -> jlong {
    run(env, |env| {
        let limit = non_negative("maxNumBits", max_num_bits)?;
        let header = read_all(env, &header, "header")?;
        let total = decoding(format::total_len_with_limit(
            as_u8(header.as_slice()),
            limit,
        ))?;
        Ok(total.min(i64::MAX as u64) as jlong)
    })
}
