//! Exports behind the `static native` methods of `io.sparkbloom.CountingBloomFilterNative`.
//!
//! Built as `bloom_filter_native.rs` is, on the same [`handle_ops`](super::handle_ops): a filter
//! crosses JNI as a handle (a heap `CountingBloomFilter`'s address), freed once by
//! `nFree` under the rules of Java's `NativeHandle`; a handle of 0 is "closed". Every export is
//! one call to [`run`] (or [`run_primitive`] for the hot single-key calls).

use jni::EnvUnowned;
use jni::objects::{JBooleanArray, JByteArray, JClass, JLongArray};
use jni::sys::{jboolean, jdouble, jint, jlong};

use super::errors::{JniResult, run, run_primitive};
use super::handle_ops::{
    copy, create, decode, encode, fold_keys, free, into_handle, might_contain_all, object,
    retain_absent, total_length, with_bytes_key, with_shape,
};
use crate::counting::CountingBloomFilter;
use crate::format::counting as format;

/// The filter behind a handle.
fn filter<'a>(handle: jlong) -> JniResult<&'a CountingBloomFilter> {
    object(handle)
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
        create(
            expected_insertions,
            fpp,
            strategy_ordinal,
            CountingBloomFilter::with_shape,
        )
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
        with_shape(
            num_bits,
            num_hashes,
            strategy_ordinal,
            CountingBloomFilter::with_shape,
        )
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nFree<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(env, |_| free::<CountingBloomFilter>(handle))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_CountingBloomFilterNative_nCopy<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| copy(handle, CountingBloomFilter::try_clone))
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
        with_bytes_key(env, handle, &key, CountingBloomFilter::add_bytes)
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
        with_bytes_key(env, handle, &key, CountingBloomFilter::remove_bytes)
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
        with_bytes_key(env, handle, &key, CountingBloomFilter::might_contain_bytes)
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
        with_bytes_key(env, handle, &key, |f: &CountingBloomFilter, key| {
            f.count_bytes(key) as jint
        })
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
        fold_keys(
            env,
            handle,
            &keys,
            false,
            |changed, f: &CountingBloomFilter, keys| changed | f.add_all(keys),
        )
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
        let removed = fold_keys(
            env,
            handle,
            &keys,
            0u64,
            |removed, f: &CountingBloomFilter, keys| removed + f.remove_all(keys),
        )?;
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
        might_contain_all(
            env,
            handle,
            &keys,
            &out,
            CountingBloomFilter::might_contain_all_into,
        )
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
        retain_absent(env, handle, &keys, CountingBloomFilter::retain_absent_into)
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
        Ok(into_handle(filter(handle)?.to_bloom_filter()?)?)
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
        encode(env, handle, format::try_encode, "the serialized filter")
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
        decode(env, &bytes, max_num_bits, format::decode_with_limit)
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
        total_length(env, &header, max_num_bits, format::total_len_with_limit)
    })
}
