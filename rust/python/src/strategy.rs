//! Strategies by their Guava / FORMAT.md names ("MURMUR128_MITZ_64", "BLOCKED", ...).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use sparkbloom::Strategy;

use crate::args::type_name;

/// The names, for `sparkbloom.STRATEGIES`.
pub(crate) fn names() -> Vec<&'static str> {
    Strategy::ALL.map(Strategy::name).to_vec()
}

/// The `strategy` argument: a `TypeError` unless it is a `str`, a `ValueError` listing the names
/// unless it is one of them.
pub(crate) fn parse(value: &Bound<'_, PyAny>) -> PyResult<Strategy> {
    let Ok(name) = value.cast::<PyString>() else {
        return Err(PyTypeError::new_err(format!(
            "strategy must be a str, not {}",
            type_name(value)
        )));
    };
    // A str that is no UTF-8 (a lone surrogate) names no strategy either.
    let found = name
        .to_cow()
        .ok()
        .and_then(|name| Strategy::ALL.into_iter().find(|s| s.name() == name));
    found.ok_or_else(|| {
        PyValueError::new_err(format!(
            "strategy {} is not one of {}",
            name.repr()
                .map_or_else(|_| "?".to_owned(), |repr| repr.to_string()),
            names().join(", ")
        ))
    })
}

/// The optional `strategy` argument: `default` when it is not given (or `None`).
pub(crate) fn parse_or(value: Option<&Bound<'_, PyAny>>, default: Strategy) -> PyResult<Strategy> {
    match value {
        Some(value) if !value.is_none() => parse(value),
        _ => Ok(default),
    }
}
