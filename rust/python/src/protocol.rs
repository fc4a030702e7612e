//! The Python protocols both filter classes implement alike: pickling through their bytes, and
//! equality (same strategy, shape and bits or counters) without hashing, as they are mutable.

use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBytes, PyTuple};

/// `__reduce__`: the class's `from_bytes` applied to `bytes`, the filter's `to_bytes()`.
pub(crate) fn reduce<'py>(
    slf: &Bound<'py, PyAny>,
    bytes: Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyTuple>> {
    let py = slf.py();
    let from_bytes = slf.get_type().getattr("from_bytes")?;
    PyTuple::new(py, [from_bytes, PyTuple::new(py, [bytes])?.into_any()])
}

/// `__richcmp__` for `==` and `!=`, given whether `other` is of the class and equal
/// (`None`: another type, which Python then asks instead).
pub(crate) fn compare(py: Python<'_>, equal: Option<bool>, op: CompareOp) -> PyResult<Py<PyAny>> {
    let answer = match (equal, op) {
        (Some(equal), CompareOp::Eq) => equal,
        (Some(equal), CompareOp::Ne) => !equal,
        _ => return Ok(py.NotImplemented()),
    };
    Ok(answer.into_pyobject(py)?.to_owned().into_any().unbind())
}
