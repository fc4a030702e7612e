//! Arguments checked with their Python names, before the core sees them: a wrong type is a
//! `TypeError`, a value out of range a `ValueError`, each naming the argument.

use std::borrow::Cow;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt};
use pyo3::{PyClass, intern};

/// The default of `max_bits`, the decoders' limit: the JVM's default (2**43, the largest
/// filter there is).
pub(crate) const DEFAULT_MAX_BITS: u64 = sparkbloom::sizing::MAX_NUM_BITS;

/// The name of `value`'s type, for messages.
pub(crate) fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "unknown".to_owned(), |name| name.to_string())
}

/// `value` as an `int` when it is an integer: an `int`, or an object whose `__index__` gives one
/// (numpy's integer scalars), never a `bool`. `None` for anything else, a numpy array included.
pub(crate) fn as_int<'py>(value: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyInt>>> {
    if value.is_instance_of::<PyBool>() {
        return Ok(None);
    }
    if let Ok(int) = value.cast::<PyInt>() {
        return Ok(Some(int.clone()));
    }
    let py = value.py();
    if !value.hasattr(intern!(py, "__index__"))? {
        return Ok(None);
    }
    // operator.index's answer; a numpy array of more than one element refuses with a TypeError.
    match value.call_method0(intern!(py, "__index__")) {
        Ok(index) => Ok(index.cast_into::<PyInt>().ok()),
        Err(e) if e.is_instance_of::<PyTypeError>(py) => Ok(None),
        Err(e) => Err(e),
    }
}

/// An integer argument in `min..=max` (`max_text` writes `max` for the message): a `TypeError`
/// for another type, a `ValueError` outside the range, each naming `name`.
pub(crate) fn int_in(
    value: &Bound<'_, PyAny>,
    name: &str,
    min: u64,
    max: u64,
    max_text: &str,
) -> PyResult<u64> {
    let Some(int) = as_int(value)? else {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an int, not {}",
            type_name(value)
        )));
    };
    match int.extract::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => {
            let what = if min == 0 { "non-negative" } else { "positive" };
            Err(PyValueError::new_err(format!(
                "{name} must be a {what} int of at most {max_text}, not {}",
                int.repr()?
            )))
        }
    }
}

/// `expected_insertions`: 1..=2**63 - 1, Java's `long`, the core's range.
pub(crate) fn expected_insertions(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    int_in(
        value,
        "expected_insertions",
        1,
        i64::MAX as u64,
        "2**63 - 1",
    )
}

/// The decoders' `max_bits`: a non-negative int, `DEFAULT_MAX_BITS` when not given.
pub(crate) fn max_bits(value: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    match value {
        None => Ok(DEFAULT_MAX_BITS),
        Some(value) => int_in(value, "max_bits", 0, u64::MAX, "2**64 - 1"),
    }
}

/// The false-positive probability `fpp`: a float (or int) strictly between 0 and 1.
pub(crate) fn fpp(value: &Bound<'_, PyAny>) -> PyResult<f64> {
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err("fpp must be a float, not bool"));
    }
    let fpp: f64 = value.extract().map_err(|_| {
        PyTypeError::new_err(format!("fpp must be a float, not {}", type_name(value)))
    })?;
    if fpp > 0.0 && fpp < 1.0 {
        Ok(fpp)
    } else {
        Err(PyValueError::new_err(format!(
            "fpp must lie strictly between 0 and 1, not {}",
            float_text(fpp)
        )))
    }
}

/// A float as Python's `repr` writes it, near enough: the shortest digits that read back, in
/// scientific notation when very small or large (Rust's `{}` would write 1e-300 with 300 zeros).
pub(crate) fn float_text(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e16).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x:?}")
    }
}

/// The bytes of a bytes-like argument (`bytes`, `bytearray`, `memoryview`, any object with the
/// buffer protocol): `bytes` borrowed, anything else copied (a `bytearray` may be resized while
/// it is read).
pub(crate) fn bytes_like<'a>(value: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(bytes.as_bytes()));
    }
    let py = value.py();
    // memoryview accepts exactly the objects with the buffer protocol, and tobytes copies them
    // in C order (bytes(n) would make n zero bytes of an int).
    let view = pyo3::types::PyMemoryView::from(value).map_err(|e| {
        if e.is_instance_of::<PyTypeError>(py) {
            PyTypeError::new_err(format!(
                "{name} must be a bytes-like object (bytes, bytearray, memoryview), not {}",
                type_name(value)
            ))
        } else {
            e
        }
    })?;
    let copy = view.call_method0(intern!(py, "tobytes"))?;
    Ok(Cow::Owned(copy.cast::<PyBytes>()?.as_bytes().to_vec()))
}

/// `value` as an instance of the class `T`, else a `TypeError` naming the argument `name`.
pub(crate) fn instance<'a, 'py, T: PyClass>(
    value: &'a Bound<'py, PyAny>,
    name: &str,
) -> PyResult<&'a Bound<'py, T>> {
    value.cast::<T>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a {}, not {}",
            T::NAME,
            type_name(value)
        ))
    })
}
