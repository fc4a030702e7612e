//! Constructor arguments checked with their Python names, before the core sees them.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

/// A positive integer argument (`expected_insertions`, `num_bits`, `num_hashes`).
pub(crate) fn positive_int(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an int, not {}",
            value.get_type().name()?
        )));
    }
    match value.extract::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(PyValueError::new_err(format!(
            "{name} must be a positive int of at most 2**64 - 1, not {}",
            value.repr()?
        ))),
    }
}

/// The false-positive probability `fpp`: a float (or int) strictly between 0 and 1.
pub(crate) fn fpp(value: &Bound<'_, PyAny>) -> PyResult<f64> {
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err("fpp must be a float, not bool"));
    }
    let fpp: f64 = value.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "fpp must be a float, not {}",
            value
                .get_type()
                .name()
                .map_or_else(|_| "this type".to_owned(), |n| n.to_string())
        ))
    })?;
    if fpp > 0.0 && fpp < 1.0 {
        Ok(fpp)
    } else {
        Err(PyValueError::new_err(format!(
            "fpp must lie strictly between 0 and 1, not {fpp}"
        )))
    }
}
