//! Exports behind `io.sparkbloom.RedisBitmaps`' layout methods: the shape of the Redis
//! "BloomFilterHelper" ([`sizing::redis_helper_shape`]) and the `GETBIT` offsets of keys
//! ([`Offsets`]), so `sparkbloom-redis` sizes and places bits with the core's code, as the Python
//! package does. Offsets come key after key, k per key (`out[j·k + i]`), in a new `long[]`.

use std::f64::consts::LN_2;

use jni::Env;
use jni::objects::{JByteArray, JCharArray, JIntArray, JLongArray};
use jni::sys::{jdouble, jint, jlong};

use super::arrays::{for_each_chunk, new_array, slice_range};
use super::critical::{as_u64, length};
use super::errors::{JniResult, run, run_primitive};
use super::handle_ops::{KeyBatch, as_i64, non_negative, shape, strategy};
use super::packed_keys::PackedKeys;
use super::utf16_keys::Utf16Keys;
use crate::error::{Error, display_f64};
use crate::format::redis_bitmap::Offsets;
use crate::sizing::{self, MAX_NUM_HASHES};

/// The helper holds n and m in Java `int`s.
const HELPER_INT_MAX: u64 = i32::MAX as u64;

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
        run(env, |env| {
            let offsets = offsets(num_bits, num_hashes, strategy_ordinal)?;
            let keys = PackedKeys::read(env, &data, &ends)?;
            byte_key_offsets(env, &offsets, &keys)
        })
    }

    /// The offsets of string keys as UTF-16 chars, hashed as their UTF-8 (`nPutAllUtf16`'s batch).
    BloomFilterNative.nRedisOffsetsUtf16(
        env, num_bits: jlong, num_hashes: jint, strategy_ordinal: jint, chars: JCharArray<'l>,
        ends: JIntArray<'l>
    ) -> JLongArray<'l> {
        run(env, |env| {
            let offsets = offsets(num_bits, num_hashes, strategy_ordinal)?;
            let keys = Utf16Keys::read(env, &chars, &ends)?;
            byte_key_offsets(env, &offsets, &keys)
        })
    }
}

/// The helper's shape for (n, fpp) as `nRedisHelperShape` packs it. Where the helper's `int`
/// arithmetic breaks (n or m beyond `Integer.MAX_VALUE`, where its casts saturate) or k exceeds
/// 255 (the core's cap, which the helper lacks), its filter would be another than the one asked
/// for: an `IllegalArgumentException` naming the limit.
fn helper_shape(expected_insertions: jlong, fpp: f64) -> JniResult<jlong> {
    let n = non_negative("expectedInsertions", expected_insertions)?;
    if n > HELPER_INT_MAX {
        return Err(Error::invalid(
            "expectedInsertions",
            format!(
                "{n} is more than the helper's int limit of {HELPER_INT_MAX} (use guavaCompatible \
                 for larger filters)"
            ),
        )
        .into());
    }
    let shape = sizing::redis_helper_shape(n, fpp)?;
    let k = (shape.num_bits as f64 / n as f64 * LN_2 + 0.5).floor();
    if shape.num_bits > HELPER_INT_MAX || k > MAX_NUM_HASHES as f64 {
        return Err(Error::invalid(
            "expectedInsertions/fpp",
            format!(
                "{n} insertions at fpp {} need {} bits and {k} hash functions, more than the \
                 helper's int bit count can hold ({HELPER_INT_MAX} = Integer.MAX_VALUE) or than \
                 {MAX_NUM_HASHES} hash functions (use guavaCompatible for larger filters)",
                display_f64(fpp),
                shape.num_bits
            ),
        )
        .into());
    }
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

fn byte_key_offsets<'l>(
    env: &mut Env<'l>,
    offsets: &Offsets,
    keys: &impl KeyBatch,
) -> JniResult<JLongArray<'l>> {
    let keys = keys.packed()?;
    let mut out = room(keys.len(), offsets)?;
    for key in keys.iter() {
        offsets.of_bytes(key, &mut out);
    }
    new_array(env, as_i64(&out), "the offsets")
}
