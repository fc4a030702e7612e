//! (Over 500 lines: one short export per native method, 33 of them, each a few lines around
//! [`run`]; JNI fixes their names and signatures, so they stay together with their class.)
//!
//! Exports behind the `static native` methods of `io.sparkbloom.BloomFilterNative`.
//!
//! A filter crosses JNI as a handle: `Box::into_raw(Box::new(BloomFilter)) as jlong`, freed by
//! `nFree` exactly once: Java's `NativeHandle` runs it from `close()` only when no other thread
//! can be inside a call on the filter (only its creating thread ever used it), and otherwise
//! from the `Cleaner` once the filter is unreachable, which a running call prevents
//! (`reachabilityFence`). A handle of 0 means "closed" and becomes `IllegalStateException`.
//! Java `long` keys are the same 64 bits as Rust `u64` keys.
//!
//! Each export is one line around [`run`], which catches panics and maps errors.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use jni::EnvUnowned;
use jni::objects::{JBooleanArray, JByteArray, JClass, JIntArray, JLongArray};
use jni::sys::{jboolean, jdouble, jint, jlong};

use super::arrays::{for_each_chunk, map_chunks, new_array, read_all, try_buffer};
use super::critical::{as_u8, as_u64, length};
use super::errors::{JniError, JniResult, decoding, run, run_primitive};
use super::packed_keys::PackedKeys;
use crate::error::Error;
use crate::format::{self, guava, redis_bitmap, spark_sketch};
use crate::sizing::Shape;
use crate::{BloomFilter, Strategy, sizing};

/// The filter behind a handle.
pub(super) fn filter<'a>(handle: jlong) -> JniResult<&'a BloomFilter> {
    if handle == 0 {
        return Err(JniError::Closed);
    }
    // SAFETY: a non-zero handle comes from `into_handle`, and the Java side frees it only once,
    // never while a call holding it can still run (see the module doc and NativeHandle.java).
    Ok(unsafe { &*(handle as *const BloomFilter) })
}

fn into_handle(filter: BloomFilter) -> jlong {
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

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nCreate<'l>(
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
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nCreateBestPractice<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    expected_insertions: jlong,
    fpp: jdouble,
) -> jlong {
    run(env, |_| {
        let n = non_negative("expectedInsertions", expected_insertions)?;
        Ok(into_handle(BloomFilter::with_best_practice(n, fpp)?))
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
        let num_hashes = u32::try_from(num_hashes)
            .map_err(|_| Error::invalid("numHashFunctions", format!("{num_hashes} is negative")))?;
        let strategy = strategy(strategy_ordinal)?;
        let num_words = length(env, &words, "words")?;
        let shape = Shape {
            num_bits: (num_words as u64).saturating_mul(64),
            num_hashes,
        };
        // Copied straight into the new filter's words: no intermediate buffer, no pinning.
        let mut filter = BloomFilter::with_shape(shape, strategy)?;
        words.get_region(env, 0, as_i64_mut(filter.words_mut()))?;
        Ok(into_handle(filter))
    })
}

/// The same 64 bits, as Java `long`s.
fn as_i64(words: &[u64]) -> &[i64] {
    // SAFETY: u64 and i64 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const i64, words.len()) }
}

/// The same 64 bits, as Java `long`s.
fn as_i64_mut(words: &mut [u64]) -> &mut [i64] {
    // SAFETY: u64 and i64 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut i64, words.len()) }
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
        let shape = Shape {
            num_bits: non_negative("numBits", num_bits)?,
            num_hashes: u32::try_from(num_hashes).map_err(|_| {
                Error::invalid("numHashFunctions", format!("{num_hashes} is negative"))
            })?,
        };
        Ok(into_handle(BloomFilter::with_shape(
            shape,
            strategy(strategy_ordinal)?,
        )?))
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
        for (i, &word) in as_u64(&words.as_slice()[..count]).iter().enumerate() {
            f.or_word(offset + i, word);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nFree<'l>(
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
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nCopy<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    run(env, |_| Ok(into_handle(filter(handle)?.try_clone()?)))
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

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nPutBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(env, |env| {
        let f = filter(handle)?;
        let key = read_all(env, &key, "key")?;
        Ok(f.put_bytes(as_u8(key.as_slice())))
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
        let f = filter(handle)?;
        let key = read_all(env, &key, "key")?;
        Ok(f.might_contain_bytes(as_u8(key.as_slice())))
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
        let f = filter(handle)?;
        let mut changed = false;
        for_each_chunk(env, &keys, "keys", |_, chunk| {
            changed |= f.put_all(as_u64(chunk));
            Ok(())
        })?;
        Ok(changed)
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
        let f = filter(handle)?;
        let keys = PackedKeys::read(env, &data, &ends)?;
        let mut changed = false;
        keys.for_each(|key| changed |= f.put_bytes(key));
        Ok(changed)
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
        let f = filter(handle)?;
        let keys = PackedKeys::read(env, &data, &ends)?;
        let out_len = length(env, &out, "out")?;
        if out_len != keys.len() {
            return Err(Error::invalid(
                "out",
                format!("has {out_len} slots for {} keys", keys.len()),
            )
            .into());
        }
        let mut answers = try_buffer::<jboolean>(out_len, "out")?;
        let mut i = 0;
        keys.for_each(|key| {
            answers[i] = f.might_contain_bytes(key);
            i += 1;
        });
        out.set_region(env, 0, &answers)?;
        Ok(())
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
        let f = filter(handle)?;
        map_chunks(env, &keys, "keys", &out, "out", |keys, answers| {
            Ok(f.might_contain_all_into(as_u64(keys), answers)?)
        })
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

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nToBytes<'l>(
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
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nFromBytes<'l>(
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
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nTotalLength<'l>(
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

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nToGuava<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(env, |env| {
        let bytes = guava::encode(filter(handle)?)?;
        new_array(env, as_i8(&bytes), "Guava's stream")
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nFromGuava<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    bytes: JByteArray<'l>,
    max_num_bits: jlong,
) -> jlong {
    run(env, |env| {
        let limit = non_negative("maxNumBits", max_num_bits)?;
        let bytes = read_all(env, &bytes, "bytes")?;
        let filter = decoding(guava::decode_with_limit(as_u8(bytes.as_slice()), limit))?;
        Ok(into_handle(filter))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nGuavaTotalLength<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    header: JByteArray<'l>,
    max_num_bits: jlong,
) -> jlong {
    run(env, |env| {
        let limit = non_negative("maxNumBits", max_num_bits)?;
        let header = read_all(env, &header, "header")?;
        let total = decoding(guava::total_len_with_limit(as_u8(header.as_slice()), limit))?;
        Ok(total.min(i64::MAX as u64) as jlong)
    })
}

/// Spark's `writeTo` stream (V1 or V2 by the filter's strategy), for `SparkSketchInterop`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nToSpark<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(env, |env| {
        let bytes = spark_sketch::encode(filter(handle)?)?;
        new_array(env, as_i8(&bytes), "Spark's stream")
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nFromSpark<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    bytes: JByteArray<'l>,
    max_num_bits: jlong,
) -> jlong {
    run(env, |env| {
        let limit = non_negative("maxNumBits", max_num_bits)?;
        let bytes = read_all(env, &bytes, "bytes")?;
        let filter = decoding(spark_sketch::decode_with_limit(
            as_u8(bytes.as_slice()),
            limit,
        ))?;
        Ok(into_handle(filter))
    })
}

/// The whole stream's length from its header (12 bytes for V1, 16 for V2).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nSparkTotalLength<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    header: JByteArray<'l>,
    max_num_bits: jlong,
) -> jlong {
    run(env, |env| {
        let limit = non_negative("maxNumBits", max_num_bits)?;
        let header = read_all(env, &header, "header")?;
        let total = decoding(spark_sketch::total_len_with_limit(
            as_u8(header.as_slice()),
            limit,
        ))?;
        Ok(total.min(i64::MAX as u64) as jlong)
    })
}

/// The filter's bits as a Redis string (bit 0 = the top bit of byte 0), for `sparkbloom-redis`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nToRedisBitmap<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(env, |env| {
        let bytes = redis_bitmap::encode(filter(handle)?)?;
        new_array(env, as_i8(&bytes), "the Redis bitmap")
    })
}

/// A filter of the given shape whose bits are a Redis string's (`format::redis_bitmap`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nFromRedisBitmap<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    bitmap: JByteArray<'l>,
    num_bits: jlong,
    num_hashes: jint,
    strategy_ordinal: jint,
) -> jlong {
    run(env, |env| {
        let shape = Shape {
            num_bits: non_negative("numBits", num_bits)?,
            num_hashes: u32::try_from(num_hashes).map_err(|_| {
                Error::invalid("numHashFunctions", format!("{num_hashes} is negative"))
            })?,
        };
        let strategy = strategy(strategy_ordinal)?;
        let bitmap = read_all(env, &bitmap, "bitmap")?;
        Ok(into_handle(redis_bitmap::decode(
            as_u8(bitmap.as_slice()),
            shape,
            strategy,
        )?))
    })
}

/// Bytes as Java `byte`s.
fn as_i8(bytes: &[u8]) -> &[i8] {
    // SAFETY: u8 and i8 have the same size, alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const i8, bytes.len()) }
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
