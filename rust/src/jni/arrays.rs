//! Java primitive arrays of any size, read and written without pinning more than
//! [`PIN_MAX_BYTES`] at once and without an allocation that can abort.
//!
//! Small arrays (nearly all calls) are pinned with a [`Critical`] section: no copy. A larger
//! array is never pinned whole: under `-Xcheck:jni` the JVM hands a critical section a guarded
//! copy of the whole array, which for `putAll(new long[1 << 28])` (2 GiB) failed, left the JNI
//! checker reporting hundreds of warnings and the next GC waiting forever on the unreleased
//! section. So large keys arrays, and the slices `keys[from..to]` of them that batches name, are
//! walked in chunks copied with `Get<Type>ArrayRegion` into one bounded buffer
//! ([`for_each_chunk`], [`map_chunks`]), results go back with `Set<Type>ArrayRegion`, and inputs
//! that must be contiguous (a serialized filter, one key) are copied into a Rust buffer whose
//! allocation is fallible.

use std::ops::Range;

use jni::objects::{JPrimitiveArray, TypeArray};
use jni::sys::jint;
use jni::{Env, jni_sig, jni_str};

use super::critical::{Critical, Mode, length};
use super::errors::{JniError, JniResult};
use crate::Error;

/// Arrays up to this many bytes are pinned (no copy); larger ones are copied in chunks.
pub(crate) const PIN_MAX_BYTES: usize = 16 << 20;

/// Elements per chunk when a large array is copied piecewise (512 KiB of `long`s), for keys
/// arrays and slices of them alike.
const CHUNK_ELEMENTS: usize = 64 << 10;

/// The elements of a Java array as one slice: pinned, or copied when large.
pub(crate) enum Elements<'a, T: TypeArray> {
    Pinned(Critical<'a, T>),
    Copied(Vec<T>),
}

impl<T: TypeArray> Elements<'_, T> {
    pub(crate) fn as_slice(&self) -> &[T] {
        match self {
            Elements::Pinned(critical) => critical.as_slice(),
            Elements::Copied(copy) => copy,
        }
    }
}

/// All of `array`'s elements; a null `array` is [`JniError::Null`] naming `what`. While the
/// result lives, make no other JNI call (it may be a critical section).
pub(crate) fn read_all<'a, T: TypeArray + Default>(
    env: &Env<'_>,
    array: &'a JPrimitiveArray<'_, T>,
    what: &'static str,
) -> JniResult<Elements<'a, T>> {
    let len = length(env, array, what)?;
    if len * size_of::<T>() <= PIN_MAX_BYTES {
        return Ok(Elements::Pinned(Critical::open_with_len(
            env,
            array,
            len,
            Mode::Read,
        )?));
    }
    let mut copy = try_buffer(len, what)?;
    array.get_region(env, 0, &mut copy)?;
    Ok(Elements::Copied(copy))
}

/// `from..to` as a range within an array of `len` elements, or an `IllegalArgumentException`
/// naming the bad bound (Java checks the bounds first; a bad call from elsewhere is refused
/// here, never read out of bounds).
pub(crate) fn slice_range(from: jint, to: jint, len: usize) -> JniResult<Range<usize>> {
    if from < 0 || from > to || to as usize > len {
        return Err(Error::invalid(
            "from/to",
            format!("slice [{from}, {to}) is not within an array of length {len}"),
        )
        .into());
    }
    Ok(from as usize..to as usize)
}

/// Calls `visit(offset, chunk)` over `array[from..to]` in order, `offset` counted from `from`:
/// one slice of the pinned array when it is small, else bounded copies. `visit` makes no JNI
/// call.
pub(crate) fn for_each_chunk<T: TypeArray + Default>(
    env: &Env<'_>,
    array: &JPrimitiveArray<'_, T>,
    what: &'static str,
    (from, to): (jint, jint),
    mut visit: impl FnMut(usize, &[T]) -> JniResult<()>,
) -> JniResult<()> {
    let len = length(env, array, what)?;
    let range = slice_range(from, to, len)?;
    if len * size_of::<T>() <= PIN_MAX_BYTES {
        let pinned = Critical::open_with_len(env, array, len, Mode::Read)?;
        return visit(0, &pinned.as_slice()[range]);
    }
    copied_chunks(env, array, what, range, visit)
}

/// Calls `map(inputs, outputs)` over matching parts of `input[from..to]` and `output`, which
/// must have one slot per input (else an `IllegalArgumentException` naming `output_what`): both
/// pinned when small, else chunk by chunk through bounded buffers, each output chunk written
/// back before the next is computed. `map` must fill its output slice and make no JNI call.
pub(crate) fn map_chunks<I: TypeArray + Default, O: TypeArray + Default>(
    env: &Env<'_>,
    input: &JPrimitiveArray<'_, I>,
    input_what: &'static str,
    (from, to): (jint, jint),
    output: &JPrimitiveArray<'_, O>,
    output_what: &'static str,
    mut map: impl FnMut(&[I], &mut [O]) -> JniResult<()>,
) -> JniResult<()> {
    // Both lengths before any section: no JNI call may run inside a critical section.
    let len = length(env, input, input_what)?;
    let out_len = length(env, output, output_what)?;
    let range = slice_range(from, to, len)?;
    if out_len != range.len() {
        return Err(Error::invalid(
            output_what,
            format!("has {out_len} slots for {} {input_what}", range.len()),
        )
        .into());
    }
    if len * size_of::<I>().max(size_of::<O>()) <= PIN_MAX_BYTES {
        let pinned_input = Critical::open_with_len(env, input, len, Mode::Read)?;
        let mut pinned_output = Critical::open_with_len(env, output, out_len, Mode::Write)?;
        return map(
            &pinned_input.as_slice()[range],
            pinned_output.as_mut_slice(),
        );
    }
    let mut outputs = try_buffer(CHUNK_ELEMENTS.min(out_len), output_what)?;
    copied_chunks(env, input, input_what, range, |offset, inputs| {
        let outputs = &mut outputs[..inputs.len()];
        map(inputs, outputs)?;
        Ok(output.set_region(env, offset as i32, outputs)?)
    })
}

/// Calls `visit(offset, chunk)` over `array[range]`, copied piece by piece into one bounded
/// buffer (no section is open: `visit` may make JNI calls).
fn copied_chunks<T: TypeArray + Default>(
    env: &Env<'_>,
    array: &JPrimitiveArray<'_, T>,
    what: &'static str,
    range: Range<usize>,
    mut visit: impl FnMut(usize, &[T]) -> JniResult<()>,
) -> JniResult<()> {
    let mut buffer = try_buffer(CHUNK_ELEMENTS.min(range.len()), what)?;
    for start in range.clone().step_by(CHUNK_ELEMENTS) {
        let chunk = &mut buffer[..CHUNK_ELEMENTS.min(range.end - start)];
        array.get_region(env, start as i32, chunk)?;
        visit(start - range.start, chunk)?;
    }
    Ok(())
}

/// A zeroed buffer of `len` elements, or an `Allocation` error naming `what`.
pub(crate) fn try_buffer<T: Default + Clone>(len: usize, what: &'static str) -> JniResult<Vec<T>> {
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len).map_err(|_| {
        JniError::Core(Error::allocation(
            what,
            (len as u64).saturating_mul(size_of::<T>() as u64),
        ))
    })?;
    buffer.resize(len, T::default());
    Ok(buffer)
}

/// A new Java array holding `elements`; `what` names the result in errors. Longer than a Java
/// array can be (2^31 − 1 elements) is an `IllegalArgumentException` naming the size; larger
/// than the heap's maximum (`Runtime.maxMemory()`) a `FilterExceedsMemoryException`; a heap
/// that has no room now an `OutOfMemoryError` naming it.
pub(crate) fn new_array<'l, T: TypeArray>(
    env: &mut Env<'l>,
    elements: &[T],
    what: &'static str,
) -> JniResult<JPrimitiveArray<'l, T>> {
    let len = i32::try_from(elements.len()).map_err(|_| {
        Error::invalid(
            what,
            format!(
                "{} elements are more than a Java array holds ({})",
                elements.len(),
                i32::MAX
            ),
        )
    })?;
    let array = JPrimitiveArray::<T>::new(env, len as usize).map_err(|_| {
        // The JVM's own OutOfMemoryError says only "Java heap space": replace it with one that
        // names the size and what it was for.
        env.exception_clear();
        let bytes = (len as u64) * size_of::<T>() as u64;
        match max_heap_bytes(env).filter(|&max| bytes > max) {
            Some(max) => JniError::ExceedsMemory(format!(
                "cannot allocate {bytes} bytes for {what}, more than the Java heap's maximum of \
                 {max} bytes (-Xmx)"
            )),
            None => JniError::Core(Error::allocation(what, bytes)),
        }
    })?;
    array.set_region(env, 0, elements)?;
    Ok(array)
}

/// `Runtime.getRuntime().maxMemory()`, or `None` if asking fails (the failure is cleared).
fn max_heap_bytes(env: &mut Env<'_>) -> Option<u64> {
    let max = env
        .call_static_method(
            jni_str!("java/lang/Runtime"),
            jni_str!("getRuntime"),
            jni_sig!("()Ljava/lang/Runtime;"),
            &[],
        )
        .and_then(|runtime| runtime.l())
        .and_then(|runtime| env.call_method(&runtime, jni_str!("maxMemory"), jni_sig!("()J"), &[]))
        .and_then(|max| max.j());
    match max {
        Ok(max) => u64::try_from(max).ok(),
        Err(_) => {
            env.exception_clear();
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::slice_range;

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
