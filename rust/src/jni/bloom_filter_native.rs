//! Exports behind the `static native` methods of `io.sparkbloom.BloomFilterNative` but the byte
//! formats' (`bloom_filter_formats.rs`).
//!
//! A filter crosses JNI as a handle (a heap `BloomFilter`'s address as a `jlong`) under the
//! rules of [`handle_ops`](super::handle_ops), which holds the shapes this file shares with
//! `counting_bloom_filter_native.rs`. Java `long` keys are the same 64 bits as Rust `u64` keys.
//! Each export is one call around [`run`], which catches panics and maps errors.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use jni::EnvUnowned;
use jni::objects::{JBooleanArray, JByteArray, JByteBuffer, JClass, JIntArray, JLongArray};
use jni::sys::{jboolean, jdouble, jint, jlong};

use super::arrays::read_all;
use super::critical::{as_u64, length};
use super::errors::{JniResult, run, run_primitive};
use super::handle_ops::{
    as_i64_mut, checked_num_hashes, copy, create, fold_keys, free, into_handle, might_contain_all,
    might_contain_all_keys, non_negative, object, put_all_keys, retain_absent, strategy,
    with_bytes_key, with_shape,
};
use super::packed_keys::PackedKeys;
use crate::BloomFilter;
use crate::error::Error;
use crate::sizing::{self, Shape};

/// The filter behind a handle.
pub(super) fn filter<'a>(handle: jlong) -> JniResult<&'a BloomFilter> {
    object(handle)
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nCreate<'l>(
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
            BloomFilter::with_shape,
        )
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nCreateBestPractice<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    expected_insertions: jlong,
    fpp: jdouble,
) -> jlong {
    run(env, |_| {
        let n = non_negative("expectedInsertions", expected_insertions)?;
        Ok(into_handle(BloomFilter::with_best_practice(n, fpp)?)?)
    })
}

/// The bit count `nCreate` gives a MITZ_64 filter for (n, fpp), without making it: the one
/// implementation of Guava's m for Java callers that only size (`Sizing.perKeyShape`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nBitSizeFor<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    expected_insertions: jlong,
    fpp: jdouble,
) -> jlong {
    run_primitive(env, || {
        let n = non_negative("expectedInsertions", expected_insertions)?;
        Ok(sizing::shape_for(n, fpp)?.num_bits as jlong)
    })
}

/// The per-key shape for (distinct items, fpp) ([`sizing::per_key_shape`]), packed as
/// m << 8 | k (m ≤ 2^43, k ≤ 255): the one implementation for `BloomFilter.perKey*`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nPerKeyShape<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    distinct_items: jlong,
    fpp: jdouble,
) -> jlong {
    run_primitive(env, || {
        let n = non_negative("distinctItems", distinct_items)?;
        let shape = sizing::per_key_shape(n, fpp)?;
        Ok((shape.num_bits << 8 | shape.num_hashes as u64) as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nFromWords<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    words: JLongArray<'l>,
    num_hashes: jint,
    strategy_ordinal: jint,
) -> jlong {
    run(env, |env| {
        let num_hashes = checked_num_hashes(num_hashes)?;
        let strategy = strategy(strategy_ordinal)?;
        let num_words = length(env, &words, "words")?;
        let shape = Shape {
            num_bits: (num_words as u64).saturating_mul(64),
            num_hashes,
        };
        // Copied straight into the new filter's words: no intermediate buffer, no pinning.
        let mut filter = BloomFilter::with_shape(shape, strategy)?;
        words.get_region(env, 0, as_i64_mut(filter.words_mut()))?;
        Ok(into_handle(filter)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nWithShape<'l>(
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
            BloomFilter::with_shape,
        )
    })
}

/// ORs `words[..count]` into the filter's words from `word_offset` on (a conversion filling a
/// filter nobody else uses yet, chunk by chunk).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nOrWords<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    word_offset: jint,
    words: JLongArray<'l>,
    count: jint,
) {
    run(env, |env| {
        let f = filter(handle)?;
        let offset = non_negative("wordOffset", word_offset as jlong)? as usize;
        let count = non_negative("count", count as jlong)? as usize;
        let len = length(env, &words, "words")?;
        if count > len || offset.saturating_add(count) as u64 * 64 > f.num_bits() {
            return Err(Error::invalid(
                "count",
                format!(
                    "{count} words from word {offset} do not fit the array ({len}) and the filter ({} words)",
                    f.num_bits() / 64
                ),
            )
            .into());
        }
        let words = read_all(env, &words, "words")?;
        f.or_words(offset, as_u64(&words.as_slice()[..count]));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nFree<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(env, |_| free::<BloomFilter>(handle))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nCopy<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| copy(handle, BloomFilter::try_clone))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nPut<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: jlong,
) -> jboolean {
    run_primitive(env, || Ok(filter(handle)?.put(key as u64)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nMightContain<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: jlong,
) -> jboolean {
    run_primitive(env, || Ok(filter(handle)?.might_contain(key as u64)))
}

/// A direct `java.nio.ByteBuffer` over the filter's words (ceil(m / 64) · 8 bytes, native byte
/// order), for Java's single-key queries without a JNI call per key (`BitsView.java`); null
/// when the words exceed a buffer's `int` capacity (Java then keeps the JNI path).
///
/// The buffer owns nothing. It stays valid because the words never move while the filter
/// lives ([`BloomFilter::words_ptr`]) and Java reads it only while the handle is open and its
/// owner reachable (`NativeHandle`); Java only reads, so Rust's writers (one at a time, each
/// store a whole word) remain the only ones.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nWordsView<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteBuffer<'l> {
    run(env, |env| {
        let f = filter(handle)?;
        let bytes = f.num_bits().div_ceil(64) * 8;
        if bytes > i32::MAX as u64 {
            return Ok(JByteBuffer::default());
        }
        // SAFETY: `words_ptr` points to `bytes` bytes that stay allocated and in place until
        // the filter is freed, which Java does only once no read of the buffer can still run
        // (see above). JNI never writes through the pointer; the `*mut` is its signature.
        Ok(unsafe { env.new_direct_byte_buffer(f.words_ptr() as *mut u8, bytes as usize)? })
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nPutBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(env, |env| {
        with_bytes_key(env, handle, &key, BloomFilter::put_bytes)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nMightContainBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(env, |env| {
        with_bytes_key(env, handle, &key, BloomFilter::might_contain_bytes)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nPutAll<'l>(
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
            |changed, f: &BloomFilter, keys| changed | f.put_all(keys),
        )
    })
}

/// `putAll(byte[][])`: Java packs the keys into one `byte[]` with each key's end offset in
/// `ends`, so a batch is one crossing and two copies (`String[]`: `utf16_keys.rs`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nPutAllPacked<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    data: JByteArray<'l>,
    ends: JIntArray<'l>,
) -> jboolean {
    run(env, |env| {
        put_all_keys(
            env,
            handle,
            |env| PackedKeys::read(env, &data, &ends),
            BloomFilter::put_all_bytes,
        )
    })
}

/// `out[i] = mightContain(key i)` over packed keys (see `nPutAllPacked`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nMightContainAllPacked<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    data: JByteArray<'l>,
    ends: JIntArray<'l>,
    out: JBooleanArray<'l>,
) {
    run(env, |env| {
        might_contain_all_keys(
            env,
            handle,
            |env| PackedKeys::read(env, &data, &ends),
            &out,
            BloomFilter::might_contain_all_bytes_into,
        )
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nMightContainAll<'l>(
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
            BloomFilter::might_contain_all_into,
        )
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nRetainAbsent<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
) -> JLongArray<'l> {
    run(env, |env| {
        retain_absent(env, handle, &keys, BloomFilter::retain_absent_into)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nMerge<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) {
    run(env, |_| Ok(filter(handle)?.union(filter(other)?)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nIntersect<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) {
    run(env, |_| Ok(filter(handle)?.intersect(filter(other)?)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nIsCompatible<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) -> jboolean {
    run(env, |_| Ok(filter(handle)?.is_compatible(filter(other)?)))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nEquals<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    other: jlong,
) -> jboolean {
    run(env, |_| Ok(filter(handle)? == filter(other)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nHashCode<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    run(env, |_| {
        // The core's Hash (shape, strategy, words) through a fixed-key hasher: equal filters
        // hash equally, in every JVM that loads this library.
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(filter(handle)?);
        Ok((hash ^ (hash >> 32)) as jint)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nBitSize<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run_primitive(env, || Ok(filter(handle)?.num_bits() as jlong))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nNumHashes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    run_primitive(env, || Ok(filter(handle)?.num_hashes() as jint))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nStrategy<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    run(env, |_| Ok(filter(handle)?.strategy().ordinal() as jint))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nBitCount<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| Ok(filter(handle)?.bits_set() as jlong))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nApproximateElementCount<'l>(
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
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nExpectedFpp<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jdouble {
    run(env, |_| Ok(filter(handle)?.expected_fpp()))
}

/// Test hook: panics with a runtime-formatted (`String`) message, so the Java suite can check
/// that a panic becomes a `RuntimeException` carrying the message and never crosses JNI.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nPanicForTest<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    value: jlong,
) -> jlong {
    run(env, |_| -> JniResult<jlong> {
        panic!("test panic with value {value}")
    })
}
