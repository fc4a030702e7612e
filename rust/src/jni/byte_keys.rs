//! A Java `byte[][]` of keys, read one element at a time (`GetObjectArrayElement`, then a copy
//! into one reused buffer): no critical section can span an object array, and local references
//! are freed per frame of [`FRAME`] elements, so any number of keys takes bounded memory.

use jni::Env;
use jni::objects::{JByteArray, JObjectArray};

use super::critical::as_u8;
use super::errors::{JniError, JniResult};
use crate::Error;

/// Elements per local-reference frame.
const FRAME: usize = 1024;

/// Calls `visit(index, bytes)` for each element of `keys`, in order. A null `keys` is
/// [`JniError::Null`] naming `what`; a null element an `IllegalArgumentException` naming it.
pub(crate) fn for_each_byte_key(
    env: &mut Env<'_>,
    keys: &JObjectArray<'_, JByteArray<'_>>,
    what: &'static str,
    mut visit: impl FnMut(usize, &[u8]),
) -> JniResult<()> {
    if keys.is_null() {
        return Err(JniError::Null(what));
    }
    let len = keys.len(env)?;
    let mut buffer: Vec<i8> = Vec::new();
    for start in (0..len).step_by(FRAME) {
        env.with_local_frame(FRAME, |env| -> JniResult<()> {
            for i in start..len.min(start + FRAME) {
                let key = keys.get_element(env, i)?;
                if key.is_null() {
                    return Err(Error::invalid(what, format!("element {i} is null")).into());
                }
                let n = key.len(env)?;
                if buffer.len() < n {
                    buffer
                        .try_reserve_exact(n - buffer.len())
                        .map_err(|_| Error::allocation("a key", n as u64))?;
                    buffer.resize(n, 0);
                }
                key.get_region(env, 0, &mut buffer[..n])?;
                visit(i, as_u8(&buffer[..n]));
            }
            Ok(())
        })?;
    }
    Ok(())
}
