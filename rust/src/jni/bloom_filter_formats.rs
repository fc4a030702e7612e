//! Exports of `io.sparkbloom.BloomFilterNative` that move a filter to and from bytes: FORMAT.md,
//! Guava's and Spark's `writeTo` streams, Redis bitmaps (the rest: `bloom_filter_native.rs`).

use jni::EnvUnowned;
use jni::objects::{JByteArray, JClass};
use jni::sys::{jint, jlong};

use super::arrays::read_all;
use super::critical::as_u8;
use super::errors::run;
use super::handle_ops::{
    decode, decode_prefix, encode, encode_into, into_handle, shape, strategy, total_length,
};
use crate::BloomFilter;
use crate::format::{self, guava, redis_bitmap, spark_sketch};

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nToBytes<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(env, |env| {
        encode(env, handle, format::try_encode, "the serialized filter")
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nEncodeInto<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    out: JByteArray<'l>,
) -> jlong {
    run(env, |env| {
        encode_into(
            env,
            handle,
            &out,
            |f: &BloomFilter| format::max_encoded_len(f.num_bits()),
            format::encode_into,
        )
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nFromBytesPrefix<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    bytes: JByteArray<'l>,
    length: jint,
    max_num_bits: jlong,
) -> jlong {
    run(env, |env| {
        decode_prefix(env, &bytes, length, max_num_bits, format::decode_with_limit)
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
        decode(env, &bytes, max_num_bits, format::decode_with_limit)
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
        total_length(env, &header, max_num_bits, format::total_len_with_limit)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nToGuava<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(env, |env| {
        encode(env, handle, guava::encode, "Guava's stream")
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
        decode(env, &bytes, max_num_bits, guava::decode_with_limit)
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
        total_length(env, &header, max_num_bits, guava::total_len_with_limit)
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
        encode(env, handle, spark_sketch::encode, "Spark's stream")
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
        decode(env, &bytes, max_num_bits, spark_sketch::decode_with_limit)
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
        total_length(
            env,
            &header,
            max_num_bits,
            spark_sketch::total_len_with_limit,
        )
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
        encode(env, handle, redis_bitmap::encode, "the Redis bitmap")
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
        let shape = shape(num_bits, num_hashes)?;
        let strategy = strategy(strategy_ordinal)?;
        let bitmap = read_all(env, &bitmap, "bitmap")?;
        let filter = redis_bitmap::decode(as_u8(bitmap.as_slice()), shape, strategy)?;
        Ok(into_handle(filter)?)
    })
}
