//! The core's errors as Python exceptions: bad arguments and incompatible filters are
//! `ValueError`, corrupt bytes `CorruptFilterError` (a `ValueError`), bytes describing a filter
//! too large to decode `FilterTooLargeError` (a `CorruptFilterError`), refused memory
//! `MemoryError`. The message is the core's, which names the FORMAT.md field, with an argument
//! named as the Python API names it.

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

create_exception!(
    sparkbloom,
    FilterTooLargeError,
    CorruptFilterError,
    "Serialized bytes describe a filter larger than the reader accepts (its max_bits) or than \
     this process can allocate; the message names numBits and the limit."
);

/// The Python exception for a core error.
pub(crate) fn to_py(error: Error) -> PyErr {
    match error {
        Error::Corrupt { .. } => CorruptFilterError::new_err(error.to_string()),
        Error::Allocation { .. } => PyMemoryError::new_err(error.to_string()),
        Error::InvalidArgument { name, reason } => {
            PyValueError::new_err(format!("invalid argument {}: {reason}", python_name(name)))
        }
        _ => PyValueError::new_err(error.to_string()),
    }
}

/// The Python name of an argument the core names as Java does.
fn python_name(java_name: &str) -> &str {
    match java_name {
        "expectedInsertions" => "expected_insertions",
        "numBits" => "num_bits",
        "numHashFunctions" => "num_hashes",
        other => other,
    }
}

/// `result` with a core error turned into its Python exception.
pub(crate) fn py_result<T>(result: sparkbloom::Result<T>) -> PyResult<T> {
    result.map_err(to_py)
}

/// The result of a decoder: a filter above `max_bits`, or one the process cannot allocate, is
/// `FilterTooLargeError` (as on the JVM), since the bytes' own numBits asked for it.
pub(crate) fn decoded<T>(result: sparkbloom::Result<T>) -> PyResult<T> {
    result.map_err(|error| match error {
        Error::TooLarge { num_bits, limit } => FilterTooLargeError::new_err(format!(
            "corrupt filter: numBits: {num_bits} bits exceed the decode limit max_bits={limit}"
        )),
        Error::Allocation { .. } => {
            FilterTooLargeError::new_err(format!("corrupt filter: numBits: {error}"))
        }
        error => to_py(error),
    })
}
