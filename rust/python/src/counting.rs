//! `sparkbloom.CountingBloomFilter`: 4-bit counters instead of bits, so keys can be removed.

use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBytes, PyTuple};
use sparkbloom::{Strategy, format};

use crate::bloom::BloomFilter;
use crate::errors::{decoded, py_result};
use crate::keys::{self, Key, Keys};
use crate::{args, protocol, queries, strategy};

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

impl From<sparkbloom::CountingBloomFilter> for CountingBloomFilter {
    fn from(inner: sparkbloom::CountingBloomFilter) -> Self {
        CountingBloomFilter { inner }
    }
}

#[pymethods]
impl CountingBloomFilter {
    /// A counting filter (4-bit counters) sized as `BloomFilter(expected_insertions, fpp, strategy)`;
    /// MURMUR128_MITZ_64 or MURMUR128_MITZ_32.
    #[new]
    #[pyo3(
        signature = (expected_insertions, fpp, strategy = None),
        text_signature = "(expected_insertions, fpp, strategy='MURMUR128_MITZ_64')"
    )]
    fn new(
        expected_insertions: &Bound<'_, PyAny>,
        fpp: &Bound<'_, PyAny>,
        strategy: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let n = args::expected_insertions(expected_insertions)?;
        let fpp = args::fpp(fpp)?;
        let strategy = strategy::parse_or(strategy, Strategy::Murmur128Mitz64)?;
        py_result(sparkbloom::CountingBloomFilter::with_strategy(
            n, fpp, strategy,
        ))
        .map(Self::from)
    }

    /// Increments `key`'s counters; whether any changed.
    fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.add_key(&keys::key(key)?))
    }

    /// Adds every key (numpy int64 arrays, and batches of only `str` / `bytes`, with the GIL
    /// released); whether any counter changed. A bad key raises before any key is added.
    fn add_all(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<bool> {
        let batch = keys::keys(keys, "keys")?;
        if let Some(longs) = batch.longs() {
            let filter = &self.inner;
            return Ok(py.detach(|| filter.add_all(longs)));
        }
        let Keys::Mixed(items) = &batch else {
            return Ok(false); // every other batch has longs
        };
        let (filter, mut changed) = (&self.inner, false);
        if keys::in_text_chunks_all_checked(py, items, "keys", |chunk| {
            changed = chunk
                .iter()
                .fold(changed, |changed, key| filter.add_bytes(key) | changed);
        })? {
            return Ok(changed);
        }
        let keys = keys::convert(items, "keys")?;
        Ok(keys
            .iter()
            .fold(false, |changed, key| self.add_key(key) | changed))
    }

    /// Removes one occurrence of `key`; `False`, changing nothing, when it is certainly absent.
    fn remove(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.remove_key(&keys::key(key)?))
    }

    /// Removes every key; how many were possibly present, hence removed. A bad key raises
    /// before any key is removed, so that a retry removes none twice.
    fn remove_all(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<u64> {
        let batch = keys::keys(keys, "keys")?;
        if let Some(longs) = batch.longs() {
            let filter = &self.inner;
            return Ok(py.detach(|| filter.remove_all(longs)));
        }
        let Keys::Mixed(items) = &batch else {
            return Ok(0); // every other batch has longs
        };
        let (filter, mut removed) = (&self.inner, 0);
        if keys::in_text_chunks_all_checked(py, items, "keys", |chunk| {
            removed += chunk
                .iter()
                .map(|key| u64::from(filter.remove_bytes(key)))
                .sum::<u64>();
        })? {
            return Ok(removed);
        }
        let keys = keys::convert(items, "keys")?;
        Ok(keys.iter().map(|key| u64::from(self.remove_key(key))).sum())
    }

    /// The smallest of `key`'s counters: an upper bound on how often it was added (15: 15 or more).
    fn count(&self, key: &Bound<'_, PyAny>) -> PyResult<u8> {
        Ok(match keys::key(key)? {
            Key::Long(long) => self.inner.count(long),
            Key::Bytes(bytes) => self.inner.count_bytes(&bytes),
        })
    }

    /// `False`: `key` was certainly never put; `True`: it probably was.
    fn might_contain(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        queries::contains(&self.inner, key)
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        queries::contains(&self.inner, key)
    }

    /// Bytes held: the object and its counter words (what `sys.getsizeof` reports, plus the
    /// collector's header).
    fn __sizeof__(slf: &Bound<'_, Self>) -> PyResult<usize> {
        let object: usize = slf.get_type().getattr("__basicsize__")?.extract()?;
        Ok(object + slf.get().inner.words().len() * 8)
    }

    /// `might_contain` of every key, in order: a numpy bool array (a list where numpy is absent).
    fn might_contain_all<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        queries::might_contain_all(py, &self.inner, keys)
    }

    /// The keys certainly not in the filter, in order: a numpy array of the same dtype for a
    /// numpy array, else a list of the keys given.
    fn retain_absent<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        queries::retain_absent(py, &self.inner, keys)
    }

    /// Counters (m).
    #[getter]
    fn bit_size(&self) -> u64 {
        self.inner.num_bits()
    }

    /// Bit positions per key (k).
    #[getter]
    fn num_hash_functions(&self) -> u32 {
        self.inner.num_hashes()
    }

    /// The strategy's name.
    #[getter]
    fn strategy(&self) -> &'static str {
        self.inner.strategy().name()
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

    /// An independent copy.
    fn copy(&self) -> PyResult<Self> {
        py_result(self.inner.try_clone()).map(Self::from)
    }

    /// The plain filter with a bit set where a counter is nonzero.
    fn to_bloom_filter(&self) -> PyResult<BloomFilter> {
        py_result(self.inner.to_bloom_filter()).map(BloomFilter::from)
    }

    /// The counting filter in sparkbloom's format (FORMAT.md, counting version).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py_result(format::counting::try_encode(&self.inner))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The counting filter `data` (bytes-like) holds; `CorruptFilterError` names the first bad
    /// field, `FilterTooLargeError` a filter of more than `max_bits` counters.
    #[staticmethod]
    #[pyo3(
        signature = (data, *, max_bits = None),
        text_signature = "(data, *, max_bits=8796093022208)"
    )]
    fn from_bytes(data: &Bound<'_, PyAny>, max_bits: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let limit = args::max_bits(max_bits)?;
        let data = args::bytes_like(data, "data")?;
        decoded(format::counting::decode_with_limit(&data, limit)).map(Self::from)
    }

    /// Pickles as `CountingBloomFilter.from_bytes(self.to_bytes())`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        protocol::reduce(slf.as_any(), slf.get().to_bytes(slf.py())?)
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let equal = other
            .cast::<CountingBloomFilter>()
            .ok()
            .map(|other| self.inner == other.get().inner);
        protocol::compare(other.py(), equal, op)
    }

    fn __repr__(&self) -> String {
        format!(
            "CountingBloomFilter(bit_size={}, num_hash_functions={}, strategy={:?})",
            self.inner.num_bits(),
            self.inner.num_hashes(),
            self.inner.strategy().name()
        )
    }

    #[classattr]
    fn __hash__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }
}

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
