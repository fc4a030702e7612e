//! Exports behind `io.sparkbloom.RedisBitmaps`' layout methods: the shape of the Redis
//! "BloomFilterHelper" ([`sizing::redis_helper_shape`]) and the `GETBIT` offsets of keys
//! ([`Offsets`]), so `sparkbloom-redis` sizes and places bits with the core's code, as the Python
//! package does. Offsets come key after key, k per key (`out[j·k + i]`), in a new `long[]`.

use jni::Env;
use jni::objects::{JByteArray, JCharArray, JIntArray, JLongArray};
use jni::sys::{jdouble, jint, jlong};

use super::arrays::{for_each_chunk, new_array, slice_range};
use super::critical::{as_u64, length};
use super::errors::{JniResult, run, run_primitive};
use super::handle_ops::{KeyBatch, as_i64, non_negative, shape, strategy};
use super::packed_keys::PackedKeys;
use super::utf16_keys::Utf16Keys;
use crate::error::Error;
use crate::format::redis_bitmap::Offsets;
use crate::sizing;

exports! {
    /// The helper's shape for (n, fpp), packed as m << 8 | k ([`helper_shape`]).
    BloomFilterNative.nRedisHelperShape(env, expected_insertions: jlong, fpp: jdouble) -> jlong {
        run_primitive(env, || helper_shape(expected_insertions, fpp))
    }

    /// The offsets of `keys[from..to]` in a bitmap of this shape and strategy.
    BloomFilterNative.nRedisOffsets(
        env, num_bits: jlong, num_hashes: jint, strategy_ordinal: jint, keys: JLongArray<'l>,
        from: jint, to: jint
    ) -> JLongArray<'l> {
        run(env, |env| {
            let offsets = offsets(num_bits, num_hashes, strategy_ordinal)?;
            let count = slice_range(from, to, length(env, &keys, "keys")?)?.len();
            let mut out = room(count, &offsets)?;
            for_each_chunk(env, &keys, "keys", (from, to), |_, chunk| {
                for &key in as_u64(chunk) {
                    offsets.of_u64(key, &mut out);
                }
                Ok(())
            })?;
            new_array(env, as_i64(&out), "the offsets")
        })
    }

    /// The offsets of packed byte-string keys (`BloomFilterNative.nPutAllPacked`'s batch).
    BloomFilterNative.nRedisOffsetsPacked(
        env, num_bits: jlong, num_hashes: jint, strategy_ordinal: jint, data: JByteArray<'l>,
        ends: JIntArray<'l>
    ) -> JLongArray<'l> {
        let shape = (num_bits, num_hashes, strategy_ordinal);
        run(env, |env| byte_key_offsets(env, shape, |env| PackedKeys::read(env, &data, &ends)))
    }

    /// The offsets of string keys as UTF-16 chars, hashed as their UTF-8 (`nPutAllUtf16`'s batch).
    BloomFilterNative.nRedisOffsetsUtf16(
        env, num_bits: jlong, num_hashes: jint, strategy_ordinal: jint, chars: JCharArray<'l>,
        ends: JIntArray<'l>
    ) -> JLongArray<'l> {
        let shape = (num_bits, num_hashes, strategy_ordinal);
        run(env, |env| byte_key_offsets(env, shape, |env| Utf16Keys::read(env, &chars, &ends)))
    }
}

/// The helper's shape for (n, fpp) as `nRedisHelperShape` packs it; the core names the limits.
fn helper_shape(expected_insertions: jlong, fpp: f64) -> JniResult<jlong> {
    let n = non_negative("expectedInsertions", expected_insertions)?;
    let shape = sizing::redis_helper_shape(n, fpp)?;
    Ok((shape.num_bits << 8 | shape.num_hashes as u64) as jlong)
}

/// The core's offsets of this shape and strategy; errors name the bad argument.
fn offsets(num_bits: jlong, num_hashes: jint, strategy_ordinal: jint) -> JniResult<Offsets> {
    Ok(Offsets::new(
        shape(num_bits, num_hashes)?,
        strategy(strategy_ordinal)?,
    )?)
}

/// Room for the offsets of `count` keys, reserved up front: no push can reallocate (and abort).
fn room(count: usize, offsets: &Offsets) -> JniResult<Vec<u64>> {
    let len = count.saturating_mul(offsets.num_hashes() as usize);
    let mut out = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| Error::allocation("the offsets", (len as u64).saturating_mul(8)))?;
    Ok(out)
}

/// The offsets of the byte-string batch `read_keys` reads, for a shape and strategy as
/// [`offsets`] takes them.
fn byte_key_offsets<'l, K: KeyBatch>(
    env: &mut Env<'l>,
    (num_bits, num_hashes, strategy_ordinal): (jlong, jint, jint),
    read_keys: impl FnOnce(&Env<'l>) -> JniResult<K>,
) -> JniResult<JLongArray<'l>> {
    let offsets = offsets(num_bits, num_hashes, strategy_ordinal)?;
    let batch = read_keys(env)?;
    let keys = batch.packed()?;
    let mut out = room(keys.len(), &offsets)?;
    for key in keys.iter() {
        offsets.of_bytes(key, &mut out);
    }
    new_array(env, as_i64(&out), "the offsets")
}
