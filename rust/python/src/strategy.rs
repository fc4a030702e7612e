//! Strategies by their Guava / FORMAT.md names ("MURMUR128_MITZ_64", "BLOCKED", ...).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sparkbloom::Strategy;

/// Every strategy the core knows, by ordinal.
fn all() -> impl Iterator<Item = Strategy> {
    (0..=u8::MAX).map_while(Strategy::from_ordinal)
}

/// The names, for `sparkbloom.STRATEGIES`.
pub(crate) fn names() -> Vec<&'static str> {
    all().map(Strategy::name).collect()
}

/// The strategy named `name`; a `ValueError` listing the names otherwise.
pub(crate) fn parse(name: &str) -> PyResult<Strategy> {
    all().find(|s| s.name() == name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "strategy {name:?} is not one of {}",
            names().join(", ")
        ))
    })
}
