//! A batch of byte-string keys as Java packs them: one `byte[]` holding every key, one after
//! another, and an `int[]` of each key's end offset. One crossing per batch, no per-key JNI call
//! (an object array would need `GetObjectArrayElement` and a copy per key); both arrays are
//! copied into fallible Rust buffers, so no critical section is held while keys are hashed.

use jni::Env;
use jni::objects::{JByteArray, JIntArray};

use super::arrays::try_buffer;
use super::critical::{as_u8, length};
use super::errors::JniResult;
use super::handle_ops::KeyBatch;
use crate::Error;

pub(crate) struct PackedKeys {
    data: Vec<i8>,
    ends: Vec<i32>,
}

impl PackedKeys {
    /// Copies both arrays and checks that `ends` rises from 0 to at most the data's length.
    pub(crate) fn read(
        env: &Env<'_>,
        data: &JByteArray<'_>,
        ends: &JIntArray<'_>,
    ) -> JniResult<PackedKeys> {
        let data_len = length(env, data, "data")?;
        let ends_len = length(env, ends, "ends")?;
        let mut bytes = try_buffer::<i8>(data_len, "data")?;
        data.get_region(env, 0, &mut bytes)?;
        let mut offsets = try_buffer::<i32>(ends_len, "ends")?;
        ends.get_region(env, 0, &mut offsets)?;
        let mut previous = 0i32;
        for (i, &end) in offsets.iter().enumerate() {
            if end < previous || end as usize > data_len {
                return Err(Error::invalid(
                    "ends",
                    format!(
                        "ends[{i}] = {end} is not in {previous}..={data_len} (offsets must rise within the data)"
                    ),
                )
                .into());
            }
            previous = end;
        }
        Ok(PackedKeys {
            data: bytes,
            ends: offsets,
        })
    }
}

impl KeyBatch for PackedKeys {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn try_for_each(&self, mut visit: impl FnMut(&[u8])) -> JniResult<()> {
        let mut start = 0usize;
        for &end in &self.ends {
            visit(as_u8(&self.data[start..end as usize]));
            start = end as usize;
        }
        Ok(())
    }
}
