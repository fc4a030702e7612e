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
mod protocol;
mod queries;
mod redis;
mod strategy;

use pyo3::prelude::*;

/// The shape `(num_bits, num_hashes)` of a per-key filter for `distinct_items` distinct items
/// (0 counts as 1) whose measured false-positive rate is at most `fpp`: the rule of the JVM's
/// `Sizing.perKeyCount(p)` and the CLI's `--sizing per-key`, from the same core code, so
/// `BloomFilter.with_shape(*per_key_shape(n, p))` is the filter Spark builds for that key.
#[pyfunction]
#[pyo3(signature = (distinct_items, fpp))]
fn per_key_shape(
    distinct_items: &Bound<'_, PyAny>,
    fpp: &Bound<'_, PyAny>,
) -> PyResult<(u64, u32)> {
    let n = args::int_in(
        distinct_items,
        "distinct_items",
        0,
        i64::MAX as u64,
        "2**63 - 1",
    )?;
    let shape = errors::py_result(sparkbloom::sizing::per_key_shape(n, args::fpp(fpp)?))?;
    Ok((shape.num_bits, shape.num_hashes))
}

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
    m.add_function(wrap_pyfunction!(per_key_shape, m)?)?;
    Ok(())
}
