//! Exports behind `io.sparkbloom.BloomFilter`'s `private static native` methods.
//!
//! A filter crosses JNI as a handle: `Box::into_raw(Box::new(BloomFilter)) as jlong`, freed by
//! `nFree` exactly once (the Java side guarantees it through `Cleaner.Cleanable::clean`). The
//! Java side never passes a handle of 0 for a live filter; 0 here means "closed" and becomes
//! `IllegalStateException`. Java `long` keys are the same 64 bits as Rust `u64` keys.
//!
//! Each export is one line around [`run`], which catches panics and maps errors.

use jni::EnvUnowned;
use jni::objects::{JBooleanArray, JByteArray, JClass, JLongArray};
use jni::sys::{jboolean, jdouble, jint, jlong};

use super::critical::{Critical, Mode, as_u8, as_u64, length};
use super::errors::{JniError, JniResult, run, run_primitive};
use crate::error::Error;
use crate::format::{self, guava};
use crate::{BloomFilter, Strategy, sizing};

/// The filter behind a handle.
pub(super) fn filter<'a>(handle: jlong) -> JniResult<&'a BloomFilter> {
    if handle == 0 {
        return Err(JniError::Closed);
    }
    // SAFETY: a non-zero handle comes from `into_handle` and the Java side frees it only once,
    // after its last use (close() must not race other calls; see BloomFilter.java).
    Ok(unsafe { &*(handle as *const BloomFilter) })
}

pub(super) fn into_handle(filter: BloomFilter) -> jlong {
    Box::into_raw(Box::new(filter)) as jlong
}

pub(super) fn strategy(ordinal: jint) -> JniResult<Strategy> {
    u8::try_from(ordinal)
        .ok()
        .and_then(Strategy::from_ordinal)
        .ok_or_else(|| {
            Error::invalid("strategy", format!("ordinal {ordinal} is not 0 or 1")).into()
        })
}

pub(super) fn non_negative(name: &'static str, value: jlong) -> JniResult<u64> {
    u64::try_from(value).map_err(|_| Error::invalid(name, format!("{value} is negative")).into())
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nCreate<'l>(
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
        Ok(into_handle(BloomFilter::with_shape(shape, strategy)?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nFromWords<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    words: JLongArray<'l>,
    num_hashes: jint,
    strategy_ordinal: jint,
) -> jlong {
    run(env, |env| {
        let num_hashes = u32::try_from(num_hashes)
            .map_err(|_| Error::invalid("numHashFunctions", format!("{num_hashes} is negative")))?;
        let strategy = strategy(strategy_ordinal)?;
        let words = as_u64(Critical::open(env, &words, "words", Mode::Read)?.as_slice()).to_vec();
        Ok(into_handle(BloomFilter::from_words(
            words, num_hashes, strategy,
        )?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nFree<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(env, |_| {
        if handle != 0 {
            // SAFETY: the handle came from `into_handle`; the Java Cleaner runs this once.
            drop(unsafe { Box::from_raw(handle as *mut BloomFilter) });
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nCopy<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| Ok(into_handle(filter(handle)?.clone())))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nPut<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: jlong,
) -> jboolean {
    run_primitive(env, || Ok(filter(handle)?.put(key as u64)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nMightContain<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: jlong,
) -> jboolean {
    run_primitive(env, || Ok(filter(handle)?.might_contain(key as u64)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nPutBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(env, |env| {
        let f = filter(handle)?;
        let key = Critical::open(env, &key, "key", Mode::Read)?;
        Ok(f.put_bytes(as_u8(key.as_slice())))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nMightContainBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(env, |env| {
        let f = filter(handle)?;
        let key = Critical::open(env, &key, "key", Mode::Read)?;
        Ok(f.might_contain_bytes(as_u8(key.as_slice())))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nPutAll<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
) -> jboolean {
    run(env, |env| {
        let f = filter(handle)?;
        let keys = Critical::open(env, &keys, "keys", Mode::Read)?;
        Ok(f.put_all(as_u64(keys.as_slice())))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nMightContainAll<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
    out: JBooleanArray<'l>,
) {
    run(env, |env| {
        let f = filter(handle)?;
        // Both lengths before either section: no JNI call may run inside a critical section.
        let keys_len = length(env, &keys, "keys")?;
        let out_len = length(env, &out, "out")?;
        let keys = Critical::open_with_len(env, &keys, keys_len, Mode::Read)?;
        let mut out = Critical::open_with_len(env, &out, out_len, Mode::Write)?;
        f.might_contain_all_into(as_u64(keys.as_slice()), out.as_mut_slice())?;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nRetainAbsent<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
) -> JLongArray<'l> {
    run(env, |env| {
        let f = filter(handle)?;
        let absent = {
            let keys = Critical::open(env, &keys, "keys", Mode::Read)?;
            f.retain_absent(as_u64(keys.as_slice()))
        };
        let out = env.new_long_array(absent.len())?;
        // SAFETY: same size, alignment and validity; the Java long is the same 64 bits.
        let absent =
            unsafe { std::slice::from_raw_parts(absent.as_ptr() as *const i64, absent.len()) };
        out.set_region(env, 0, absent)?;
        Ok(out)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nMerge<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) {
    run(env, |_| Ok(filter(handle)?.union(filter(other)?)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nIntersect<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) {
    run(env, |_| Ok(filter(handle)?.intersect(filter(other)?)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nIsCompatible<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) -> jboolean {
    run(env, |_| Ok(filter(handle)?.is_compatible(filter(other)?)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nEquals<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) -> jboolean {
    run(env, |_| Ok(filter(handle)? == filter(other)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nHashCode<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    run(env, |_| {
        let f = filter(handle)?;
        // Java's Arrays.hashCode(long[]) over the words, seeded with the shape: equal filters
        // (same shape, strategy and bits) hash equally.
        let seed = 31i32
            .wrapping_mul(f.num_hashes() as i32)
            .wrapping_add(f.strategy().ordinal() as i32);
        Ok(f.words().fold(seed, |h, w| {
            h.wrapping_mul(31).wrapping_add((w ^ (w >> 32)) as i32)
        }))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nBitSize<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run_primitive(env, || Ok(filter(handle)?.num_bits() as jlong))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nNumHashes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    run_primitive(env, || Ok(filter(handle)?.num_hashes() as jint))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nStrategy<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    run(env, |_| Ok(filter(handle)?.strategy().ordinal() as jint))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nBitCount<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| Ok(filter(handle)?.bits_set() as jlong))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nApproximateElementCount<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| {
        let count = filter(handle)?.approximate_element_count();
        Ok(count.min(i64::MAX as u64) as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nExpectedFpp<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jdouble {
    run(env, |_| Ok(filter(handle)?.expected_fpp()))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nToBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(env, |env| {
        let bytes = format::encode(filter(handle)?);
        Ok(env.byte_array_from_slice(&bytes)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nFromBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    bytes: JByteArray<'l>,
) -> jlong {
    run(env, |env| {
        let bytes = Critical::open(env, &bytes, "bytes", Mode::Read)?;
        Ok(into_handle(format::decode(as_u8(bytes.as_slice()))?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nTotalLength<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    header: JByteArray<'l>,
) -> jlong {
    run(env, |env| {
        let header = Critical::open(env, &header, "header", Mode::Read)?;
        let total = format::total_len_from_header(as_u8(header.as_slice()))?;
        Ok(total.min(i64::MAX as u64) as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nToGuava<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(env, |env| {
        let bytes = guava::encode(filter(handle)?)?;
        Ok(env.byte_array_from_slice(&bytes)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nFromGuava<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    bytes: JByteArray<'l>,
) -> jlong {
    run(env, |env| {
        let bytes = Critical::open(env, &bytes, "bytes", Mode::Read)?;
        Ok(into_handle(guava::decode(as_u8(bytes.as_slice()))?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nGuavaTotalLength<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    header: JByteArray<'l>,
) -> jlong {
    run(env, |env| {
        let header = Critical::open(env, &header, "header", Mode::Read)?;
        let total = guava::total_len_from_header(as_u8(header.as_slice()))?;
        Ok(total.min(i64::MAX as u64) as jlong)
    })
}

/// Test hook: panics with a runtime-formatted (`String`) message, so the Java suite can check
/// that a panic becomes a `RuntimeException` carrying the message and never crosses JNI.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nPanicForTest<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    value: jlong,
) -> jlong {
    run(env, |_| -> JniResult<jlong> {
        panic!("test panic with value {value}")
    })
}
