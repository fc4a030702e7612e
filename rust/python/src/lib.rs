//! `sparkbloom._native`: the core crate's filters and byte formats for Python, so that Python
//! services without a JVM read, query and write the filters Spark builds.
//!
//! Every call goes through the core's public API; its errors become Python exceptions
//! (`errors`), and no path here panics.

mod args;
mod bloom;
mod counting;
mod errors;
mod keys;
mod queries;
mod redis;
mod strategy;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<bloom::BloomFilter>()?;
    m.add_class::<counting::CountingBloomFilter>()?;
    m.add_class::<redis::RedisLayout>()?;
    m.add(
        "CorruptFilterError",
        m.py().get_type::<errors::CorruptFilterError>(),
    )?;
    m.add(
        "FilterTooLargeError",
        m.py().get_type::<errors::FilterTooLargeError>(),
    )?;
    m.add("STRATEGIES", strategy::names())?;
    Ok(())
}
