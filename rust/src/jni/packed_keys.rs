//! A batch of byte-string keys as Java packs them: one `byte[]` holding every key, one after
//! another (the array may be longer: Java reuses its buffer), and an `int[]` of each key's end
//! offset. One crossing per batch, no per-key JNI call (an object array would need
//! `GetObjectArrayElement` and a copy per key); the keys' bytes and the ends are copied into
//! fallible Rust buffers, so no critical section is held while keys are hashed, and the batch
//! goes to the core's pipelined `put_all_bytes` / `might_contain_all_bytes_into`.

use jni::Env;
use jni::objects::{JByteArray, JIntArray};

use super::arrays::try_buffer;
use super::critical::{Critical, Mode, as_u8, length};
use super::errors::JniResult;
use super::handle_ops::KeyBatch;
use crate::{Error, PackedBytes};

pub(crate) struct PackedKeys {
    data: Vec<i8>,
    ends: Vec<u32>,
}

impl PackedKeys {
    /// Copies both arrays and checks that `ends` rises from 0 to at most the data's length.
    pub(crate) fn read(
        env: &Env<'_>,
        data: &JByteArray<'_>,
        ends: &JIntArray<'_>,
    ) -> JniResult<PackedKeys> {
        let data_len = length(env, data, "data")?;
        let ends = checked_ends(env, ends, data_len, "data")?;
        // Java reuses a larger buffer: only the keys' bytes are copied.
        let total = ends.last().map_or(0, |&end| end as usize);
        let mut bytes = try_buffer::<i8>(total, "data")?;
        data.get_region(env, 0, &mut bytes)?;
        Ok(PackedKeys { data: bytes, ends })
    }
}

impl KeyBatch for PackedKeys {
    fn packed(&self) -> JniResult<PackedBytes<'_>> {
        // `read` checked the ends as it copied them, and the data ends at the last one.
        Ok(PackedBytes::checked_by_caller(
            as_u8(&self.data),
            &self.ends,
        ))
    }
}

/// A batch's end offsets, copied, checked to rise from 0 to at most `limit` (the length of the
/// array named `what` that they index). Read in a short critical section, checked and copied in
/// two passes the compiler vectorizes (no zeroed buffer, no per-element branch).
pub(crate) fn checked_ends(
    env: &Env<'_>,
    ends: &JIntArray<'_>,
    limit: usize,
    what: &str,
) -> JniResult<Vec<u32>> {
    let ends_len = length(env, ends, "ends")?;
    let mut offsets = Vec::new();
    offsets
        .try_reserve_exact(ends_len)
        .map_err(|_| Error::allocation("ends", ends_len as u64 * 4))?;
    if ends_len == 0 {
        return Ok(offsets);
    }
    let section = Critical::open_with_len(env, ends, ends_len, Mode::Read)?;
    let src = section.as_slice();
    let rising = src[0] >= 0 && src.windows(2).fold(true, |ok, w| ok & (w[0] <= w[1]));
    if !rising || src[ends_len - 1] as usize > limit {
        // The first offending end, for the message.
        let mut previous = 0i32;
        for (i, &end) in src.iter().enumerate() {
            if end < previous || end as usize > limit {
                return Err(Error::invalid(
                    "ends",
                    format!(
                        "ends[{i}] = {end} is not in {previous}..={limit} (offsets must rise within the {what})"
                    ),
                )
                .into());
            }
            previous = end;
        }
    }
    // Non-negative (checked): the same values as u32.
    offsets.extend(src.iter().map(|&end| end as u32));
    Ok(offsets)
}
