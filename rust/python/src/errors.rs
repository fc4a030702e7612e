//! The core's errors as Python exceptions: bad arguments and incompatible filters are
//! `ValueError`, corrupt bytes `CorruptFilterError` (a `ValueError`), refused memory
//! `MemoryError`. The message is the core's, which names the argument or the FORMAT.md field.

use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use sparkbloom::Error;

create_exception!(
    sparkbloom,
    CorruptFilterError,
    PyValueError,
    "Serialized filter bytes are malformed; the message names the first bad field (FORMAT.md)."
);

/// The Python exception for a core error.
pub(crate) fn to_py(error: Error) -> PyErr {
    match error {
        Error::Corrupt { .. } => CorruptFilterError::new_err(error.to_string()),
        Error::Allocation { .. } => PyMemoryError::new_err(error.to_string()),
        _ => PyValueError::new_err(error.to_string()),
    }
}

/// `result` with a core error turned into its Python exception.
pub(crate) fn py_result<T>(result: sparkbloom::Result<T>) -> PyResult<T> {
    result.map_err(to_py)
}
