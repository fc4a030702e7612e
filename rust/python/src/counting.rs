//! `sparkbloom.CountingBloomFilter`: 4-bit counters instead of bits, so keys can be removed.

use pyo3::prelude::*;
use sparkbloom::format;

use crate::bloom::BloomFilter;
use crate::errors::py_result;
use crate::keys::{self, Key};
use crate::{args, protocol};

/// A counting Bloom filter: a 4-bit counter per position, so keys can be removed.
///
/// >>> from sparkbloom import CountingBloomFilter
/// >>> window = CountingBloomFilter(10_000, 0.001)
/// >>> window.add_all([1, 2, 3])
/// True
/// >>> window.remove(2)
/// True
/// >>> window.might_contain_all([1, 2, 3]).tolist()
/// [True, False, True]
/// >>> window.count(1)
/// 1
#[pyclass(frozen, module = "sparkbloom", name = "CountingBloomFilter")]
pub(crate) struct CountingBloomFilter {
    inner: sparkbloom::CountingBloomFilter,
}

protocol::filter_class!(CountingBloomFilter(
    sparkbloom::CountingBloomFilter,
    format::counting::try_encode,
    format::counting::decode_with_limit
) {
    /// Increments `key`'s counters; whether any changed.
    fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.add_key(&keys::key(key)?))
    }

    /// Adds every key (numpy int64 arrays, and batches of only `str` / `bytes`, with the GIL
    /// released); whether any counter changed. A bad key raises before any key is added.
    fn add_all(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<bool> {
        let filter = &self.inner;
        keys::update(
            py,
            keys,
            |longs| filter.add_all(longs),
            |chunk| chunk.iter().fold(false, |changed, key| filter.add_bytes(key) | changed),
            |key| self.add_key(key),
            |a, b| a | b,
        )
    }

    /// Removes one occurrence of `key`; `False`, changing nothing, when it is certainly absent.
    fn remove(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.remove_key(&keys::key(key)?))
    }

    /// Removes every key; how many were possibly present, hence removed. A bad key raises
    /// before any key is removed, so that a retry removes none twice.
    fn remove_all(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<u64> {
        let filter = &self.inner;
        keys::update(
            py,
            keys,
            |longs| filter.remove_all(longs),
            |chunk| chunk.iter().map(|key| u64::from(filter.remove_bytes(key))).sum(),
            |key| u64::from(self.remove_key(key)),
            |a, b| a + b,
        )
    }

    /// The smallest of `key`'s counters: an upper bound on how often it was added (15: 15 or more).
    fn count(&self, key: &Bound<'_, PyAny>) -> PyResult<u8> {
        Ok(match keys::key(key)? {
            Key::Long(long) => self.inner.count(long),
            Key::Bytes(bytes) => self.inner.count_bytes(&bytes),
        })
    }

    /// Counters stuck at 15.
    fn saturated_counters(&self) -> u64 {
        self.inner.saturated_counters()
    }

    /// Adds `other`'s counters (saturating at 15).
    fn merge(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let other = args::instance::<CountingBloomFilter>(other, "other")?;
        py_result(self.inner.merge(&other.get().inner))
    }

    /// Subtracts `other`'s counters (floored at 0).
    fn subtract(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let other = args::instance::<CountingBloomFilter>(other, "other")?;
        py_result(self.inner.subtract(&other.get().inner))
    }

    /// The plain filter with a bit set where a counter is nonzero.
    fn to_bloom_filter(&self) -> PyResult<BloomFilter> {
        py_result(self.inner.to_bloom_filter()).map(BloomFilter::from)
    }

    fn __repr__(&self) -> String {
        format!(
            "CountingBloomFilter(bit_size={}, num_hash_functions={}, strategy={:?})",
            self.inner.num_bits(),
            self.inner.num_hashes(),
            self.inner.strategy().name()
        )
    }
});

impl CountingBloomFilter {
    fn add_key(&self, key: &Key<'_>) -> bool {
        match key {
            Key::Long(long) => self.inner.add(*long),
            Key::Bytes(bytes) => self.inner.add_bytes(bytes),
        }
    }

    fn remove_key(&self, key: &Key<'_>) -> bool {
        match key {
            Key::Long(long) => self.inner.remove(*long),
            Key::Bytes(bytes) => self.inner.remove_bytes(bytes),
        }
    }
}
