//! Batches that are a slice `keys[from..to]` of a larger Java `long[]`: the exports behind
//! `putAll`, `mightContainAll` and `retainAbsent(long[] keys, int from, int to)`, so a caller
//! cutting batches of 4096 from an array of 10^6 copies nothing on the Java side.
//!
//! Only the slice is read. An array of up to [`PIN_MAX_BYTES`] (2 M `long`s) is pinned, a
//! constant cost (no copy on HotSpot), and the slice taken from it; a larger one is never
//! pinned whole (see [`arrays`](super::arrays)), so its slice is copied piecewise with
//! `GetLongArrayRegion` into one bounded buffer. Java checks the bounds first; they are
//! checked here again, so a bad call from elsewhere is an `IllegalArgumentException`, never an
//! out-of-bounds read.

use std::ops::Range;

use jni::objects::{JBooleanArray, JClass, JLongArray};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned};

use super::arrays::{PIN_MAX_BYTES, new_array, try_buffer};
use super::critical::{Critical, Mode, as_u64, length};
use super::errors::{JniResult, run};
use super::handle_ops::{as_i64, object};
use crate::BloomFilter;
use crate::error::Error;

/// Keys per piece when the slice of a large array is copied (512 KiB).
const CHUNK_KEYS: usize = 64 << 10;

/// `from..to` as a range within an array of `len` elements, or an `IllegalArgumentException`
/// naming the bad bound.
fn slice_range(from: jint, to: jint, len: usize) -> JniResult<Range<usize>> {
    if from < 0 || from > to || to as usize > len {
        return Err(Error::invalid(
            "from/to",
            format!("slice [{from}, {to}) is not within an array of length {len}"),
        )
        .into());
    }
    Ok(from as usize..to as usize)
}

/// Calls `visit(offset, chunk)` over `keys[from..to]` in order, `offset` counted from `from`:
/// one pinned slice when the array is small, else bounded copies. `visit` makes no JNI call.
fn for_each_slice_chunk(
    env: &Env<'_>,
    keys: &JLongArray<'_>,
    from: jint,
    to: jint,
    mut visit: impl FnMut(usize, &[u64]) -> JniResult<()>,
) -> JniResult<()> {
    let len = length(env, keys, "keys")?;
    let range = slice_range(from, to, len)?;
    if len * size_of::<i64>() <= PIN_MAX_BYTES {
        let pinned = Critical::open_with_len(env, keys, len, Mode::Read)?;
        return visit(0, as_u64(&pinned.as_slice()[range]));
    }
    let mut buffer = try_buffer::<i64>(CHUNK_KEYS.min(range.len()), "keys")?;
    for start in range.clone().step_by(CHUNK_KEYS) {
        let chunk = &mut buffer[..CHUNK_KEYS.min(range.end - start)];
        keys.get_region(env, start as i32, chunk)?;
        visit(start - range.start, as_u64(chunk))?;
    }
    Ok(())
}

/// `putAll(keys, from, to)`: whether any bit changed.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nPutAllRange<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
    from: jint,
    to: jint,
) -> jboolean {
    run(env, |env| {
        let filter: &BloomFilter = object(handle)?;
        let mut changed = false;
        for_each_slice_chunk(env, &keys, from, to, |_, chunk| {
            changed |= filter.put_all(chunk);
            Ok(())
        })?;
        Ok(changed)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nMightContainAllRange<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
    from: jint,
    to: jint,
    out: JBooleanArray<'l>,
) {
    run(env, |env| {
        let filter: &BloomFilter = object(handle)?;
        // Every length before any critical section: no JNI call may run inside one.
        let out_len = length(env, &out, "out")?;
        let wanted = (to as i64 - from as i64).max(0) as usize;
        if out_len != wanted {
            return Err(Error::invalid(
                "out",
                format!("has {out_len} slots for a slice of {wanted} keys"),
            )
            .into());
        }
        let key_count = length(env, &keys, "keys")?;
        let range = slice_range(from, to, key_count)?;
        if key_count * size_of::<i64>() <= PIN_MAX_BYTES {
            let pinned = Critical::open_with_len(env, &keys, key_count, Mode::Read)?;
            let mut answers = Critical::open_with_len(env, &out, out_len, Mode::Write)?;
            return Ok(filter.might_contain_all_into(
                as_u64(&pinned.as_slice()[range]),
                answers.as_mut_slice(),
            )?);
        }
        let mut answers = try_buffer::<bool>(CHUNK_KEYS.min(out_len), "out")?;
        for_each_slice_chunk(env, &keys, from, to, |offset, chunk| {
            let answers = &mut answers[..chunk.len()];
            filter.might_contain_all_into(chunk, answers)?;
            Ok(out.set_region(env, offset as i32, answers)?)
        })
    })
}

/// The keys of `keys[from..to]` the filter does not contain, in order, as a new `long[]`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nRetainAbsentRange<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    keys: JLongArray<'l>,
    from: jint,
    to: jint,
) -> JLongArray<'l> {
    run(env, |env| {
        let filter: &BloomFilter = object(handle)?;
        let wanted = (to as i64 - from as i64).max(0) as usize;
        // Room for every key up front (no growth that could abort): as large as the slice.
        let mut absent = try_buffer::<u64>(0, "the absent keys")?;
        absent
            .try_reserve_exact(wanted)
            .map_err(|_| Error::allocation("the absent keys", (wanted as u64).saturating_mul(8)))?;
        for_each_slice_chunk(env, &keys, from, to, |_, chunk| {
            filter.retain_absent_into(chunk, &mut absent);
            Ok(())
        })?;
        new_array(env, as_i64(&absent), "the absent keys")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_bounds_are_checked() {
        assert_eq!(slice_range(0, 0, 0).ok(), Some(0..0));
        assert_eq!(slice_range(2, 5, 5).ok(), Some(2..5));
        assert_eq!(slice_range(5, 5, 5).ok(), Some(5..5));
        assert!(slice_range(-1, 2, 5).is_err());
        assert!(slice_range(3, 2, 5).is_err());
        assert!(slice_range(0, 6, 5).is_err());
        assert!(slice_range(6, 6, 5).is_err());
    }
}
