//! Exports behind `io.sparkbloom.BloomFilter`'s natives for explicit shapes and Redis bitmaps
//! (`withShape`, `toRedisBitmap`, `fromRedisBitmap`), used by `sparkbloom-redis`: the Redis
//! helper's filters have bit counts that are not whole words, and their bits travel as Redis
//! strings in Redis's bit order (`format::redis_bitmap`).

use jni::EnvUnowned;
use jni::objects::{JByteArray, JClass};
use jni::sys::{jint, jlong};

use super::bloom_filter::{filter, into_handle, non_negative, strategy};
use super::critical::{Critical, Mode, as_u8};
use super::errors::{JniResult, run};
use crate::error::Error;
use crate::format::redis_bitmap;
use crate::{BloomFilter, Shape};

fn shape(num_bits: jlong, num_hashes: jint) -> JniResult<Shape> {
    let num_bits = non_negative("numBits", num_bits)?;
    let num_hashes = u32::try_from(num_hashes)
        .map_err(|_| Error::invalid("numHashFunctions", format!("{num_hashes} is negative")))?;
    Ok(Shape {
        num_bits,
        num_hashes,
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nWithShape<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    num_bits: jlong,
    num_hashes: jint,
    strategy_ordinal: jint,
) -> jlong {
    run(env, |_| {
        let shape = shape(num_bits, num_hashes)?;
        let strategy = strategy(strategy_ordinal)?;
        Ok(into_handle(BloomFilter::with_shape(shape, strategy)?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nToRedisBitmap<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> JByteArray<'l> {
    run(env, |env| {
        let bytes = redis_bitmap::encode(filter(handle)?)?;
        Ok(env.byte_array_from_slice(&bytes)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilter_nFromRedisBitmap<'l>(
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
        let bitmap = Critical::open(env, &bitmap, "bitmap", Mode::Read)?;
        Ok(into_handle(redis_bitmap::decode(
            as_u8(bitmap.as_slice()),
            shape,
            strategy,
        )?))
    })
}
