//! `sparkbloom.BloomFilter`: the core's filter, bit-exact with Guava's and Spark's.

use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBytes, PyTuple};
use sparkbloom::sizing::{MAX_NUM_BITS, MAX_NUM_HASHES};
use sparkbloom::{Strategy, format};

use crate::errors::{decoded, py_result};
use crate::keys::{self, Key, Keys};
use crate::{args, protocol, queries, redis, strategy};

/// A Bloom filter whose bits sit where Guava's (or Spark's) `BloomFilter` puts them: no false
/// negatives, thread-safe puts and queries, and the byte formats the JVM side reads and writes.
///
/// >>> import numpy as np
/// >>> from sparkbloom import BloomFilter
/// >>> seen = BloomFilter(10_000, 0.001)              # Guava's create(10_000, 0.001): m and k
/// >>> seen.bit_size, seen.num_hash_functions
/// (143808, 10)
/// >>> seen.put_all(np.array([17, 42, 99], dtype=np.int64))
/// True
/// >>> 42 in seen, 7 in seen
/// (True, False)
/// >>> seen.retain_absent([42, 7, 99, 8])             # certainly unseen, in order
/// [7, 8]
/// >>> BloomFilter.from_guava_bytes(seen.to_guava_bytes()) == seen
/// True
#[pyclass(frozen, module = "sparkbloom", name = "BloomFilter")]
pub(crate) struct BloomFilter {
    pub(crate) inner: sparkbloom::BloomFilter,
}

impl From<sparkbloom::BloomFilter> for BloomFilter {
    fn from(inner: sparkbloom::BloomFilter) -> Self {
        BloomFilter { inner }
    }
}

#[pymethods]
impl BloomFilter {
    /// A filter sized for `expected_insertions` keys at false-positive probability `fpp` (strictly
    /// between 0 and 1) with `strategy` (see `sparkbloom.STRATEGIES`): Guava's `create(n, fpp)` shape
    /// for MITZ_64. `ValueError` / `TypeError` name a bad argument.
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
        py_result(sparkbloom::BloomFilter::with_strategy(n, fpp, strategy)).map(Self::from)
    }

    /// An empty filter of exactly `num_bits` bits and `num_hashes` hash functions.
    #[staticmethod]
    #[pyo3(
        signature = (num_bits, num_hashes, strategy = None),
        text_signature = "(num_bits, num_hashes, strategy='MURMUR128_MITZ_64')"
    )]
    fn with_shape(
        num_bits: &Bound<'_, PyAny>,
        num_hashes: &Bound<'_, PyAny>,
        strategy: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let shape = shape(num_bits, num_hashes)?;
        let strategy = strategy::parse_or(strategy, Strategy::Murmur128Mitz64)?;
        py_result(sparkbloom::BloomFilter::with_shape(shape, strategy)).map(Self::from)
    }

    /// Adds `key` (int as Java's `put(long)`, str as UTF-8, bytes); whether any bit changed.
    fn put(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.put_key(&keys::key(key)?))
    }

    /// Adds every key of `keys` (an iterable, or a numpy int64 array read in place with the GIL
    /// released); whether any bit changed. A bad key raises before any key is put.
    fn put_all(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<bool> {
        let batch = keys::keys(keys, "keys")?;
        let filter = &self.inner;
        if let Some(longs) = batch.longs() {
            return Ok(py.detach(|| filter.put_all(longs)));
        }
        let Keys::Mixed(items) = &batch else {
            return Ok(false); // every other batch has longs
        };
        let mut changed = false;
        if keys::in_text_chunks_all_checked(py, items, "keys", |chunk| {
            changed |= filter.put_all_bytes(chunk);
        })? {
            return Ok(changed);
        }
        let keys = keys::convert(items, "keys")?;
        Ok(keys
            .iter()
            .fold(false, |changed, key| self.put_key(key) | changed))
    }

    /// `False`: `key` was certainly never put; `True`: it probably was.
    fn might_contain(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        queries::contains(&self.inner, key)
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        queries::contains(&self.inner, key)
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

    /// Guava's `approximateElementCount`: -m/k · ln(1 − bits set / m), rounded, at most
    /// 2**63 - 1 (Java's `Long.MAX_VALUE`, where a saturated filter's estimate ends on the JVM).
    fn approximate_element_count(&self) -> u64 {
        self.inner.approximate_element_count().min(i64::MAX as u64)
    }

    /// Probability that a key never put is reported present: (bits set / m)^k.
    fn expected_fpp(&self) -> f64 {
        self.inner.expected_fpp()
    }

    /// Number of bits set.
    fn bits_set(&self) -> u64 {
        self.inner.bits_set()
    }

    /// Bits in the array (m).
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

    /// Whether `merge` / `intersect` accept `other`: same m, k and strategy.
    fn is_compatible(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let other = args::instance::<BloomFilter>(other, "other")?;
        Ok(self.inner.is_compatible(&other.get().inner))
    }

    /// ORs `other` into this filter (union); `ValueError` names what differs.
    fn merge(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let other = args::instance::<BloomFilter>(other, "other")?;
        py_result(self.inner.union(&other.get().inner))
    }

    /// ANDs `other` into this filter; `ValueError` names what differs.
    fn intersect(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let other = args::instance::<BloomFilter>(other, "other")?;
        py_result(self.inner.intersect(&other.get().inner))
    }

    /// An independent copy.
    fn copy(&self) -> PyResult<Self> {
        py_result(self.inner.try_clone()).map(Self::from)
    }

    fn __copy__(&self) -> PyResult<Self> {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.copy()
    }

    /// Bytes held: the object and its bit array (what `sys.getsizeof` reports, plus the
    /// collector's header).
    fn __sizeof__(slf: &Bound<'_, Self>) -> PyResult<usize> {
        let object: usize = slf.get_type().getattr("__basicsize__")?.extract()?;
        Ok(object + slf.get().inner.words().len() * 8)
    }

    /// Clears every bit.
    fn clear(&self) {
        self.inner.clear()
    }

    /// The filter in sparkbloom's format (FORMAT.md), as the JVM library writes it.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py_result(format::try_encode(&self.inner))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The filter `data` (bytes-like) holds (FORMAT.md); `CorruptFilterError` names the first
    /// bad field, `FilterTooLargeError` a filter of more than `max_bits` bits.
    #[staticmethod]
    #[pyo3(
        signature = (data, *, max_bits = None),
        text_signature = "(data, *, max_bits=8796093022208)"
    )]
    fn from_bytes(data: &Bound<'_, PyAny>, max_bits: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let limit = args::max_bits(max_bits)?;
        let data = args::bytes_like(data, "data")?;
        decoded(format::decode_with_limit(&data, limit)).map(Self::from)
    }

    /// Guava's `BloomFilter.writeTo` stream (MITZ_32 / MITZ_64 filters).
    fn to_guava_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py_result(format::guava::encode(&self.inner))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The filter of a Guava `writeTo` stream, of at most `max_bits` bits.
    #[staticmethod]
    #[pyo3(
        signature = (data, *, max_bits = None),
        text_signature = "(data, *, max_bits=8796093022208)"
    )]
    fn from_guava_bytes(
        data: &Bound<'_, PyAny>,
        max_bits: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let limit = args::max_bits(max_bits)?;
        let data = args::bytes_like(data, "data")?;
        decoded(format::guava::decode_with_limit(&data, limit)).map(Self::from)
    }

    /// Spark's `BloomFilter.writeTo` stream (SPARK_SKETCH_V1 / V2 filters).
    fn to_spark_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py_result(format::spark_sketch::encode(&self.inner))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The filter of a Spark `BloomFilter.writeTo` stream, of at most `max_bits` bits.
    #[staticmethod]
    #[pyo3(
        signature = (data, *, max_bits = None),
        text_signature = "(data, *, max_bits=8796093022208)"
    )]
    fn from_spark_bytes(
        data: &Bound<'_, PyAny>,
        max_bits: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let limit = args::max_bits(max_bits)?;
        let data = args::bytes_like(data, "data")?;
        decoded(format::spark_sketch::decode_with_limit(&data, limit)).map(Self::from)
    }

    /// The bits as a Redis bitmap string (`SETBIT` order).
    fn to_redis_bitmap<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py_result(format::redis_bitmap::encode(&self.inner))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The filter whose Redis bitmap (`GET key`) is `bitmap`: `from_redis_bitmap(bitmap, layout)`
    /// with a `RedisLayout` (its shape and strategy), or `from_redis_bitmap(bitmap, num_bits,
    /// num_hashes, strategy='MURMUR128_MITZ_32')`. A shorter bitmap is zero-extended.
    #[staticmethod]
    #[pyo3(
        signature = (bitmap, layout = None, num_hashes = None, strategy = None, *, num_bits = None),
        text_signature = "(bitmap, layout, num_hashes=None, strategy=None, *, num_bits=None)"
    )]
    fn from_redis_bitmap(
        bitmap: &Bound<'_, PyAny>,
        layout: Option<&Bound<'_, PyAny>>,
        num_hashes: Option<&Bound<'_, PyAny>>,
        strategy: Option<&Bound<'_, PyAny>>,
        num_bits: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (shape, strategy) = redis::bitmap_shape(layout, num_bits, num_hashes, strategy)?;
        let bitmap = args::bytes_like(bitmap, "bitmap")?;
        py_result(format::redis_bitmap::decode(&bitmap, shape, strategy)).map(Self::from)
    }

    /// Pickles as `BloomFilter.from_bytes(self.to_bytes())`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        protocol::reduce(slf.as_any(), slf.get().to_bytes(slf.py())?)
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let equal = other
            .cast::<BloomFilter>()
            .ok()
            .map(|other| self.inner == other.get().inner);
        protocol::compare(other.py(), equal, op)
    }

    fn __repr__(&self) -> String {
        format!(
            "BloomFilter(bit_size={}, num_hash_functions={}, strategy={:?}, bits_set={})",
            self.inner.num_bits(),
            self.inner.num_hashes(),
            self.inner.strategy().name(),
            self.inner.bits_set()
        )
    }

    #[classattr]
    fn __hash__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }
}

impl BloomFilter {
    fn put_key(&self, key: &Key<'_>) -> bool {
        match key {
            Key::Long(long) => self.inner.put(*long),
            Key::Bytes(bytes) => self.inner.put_bytes(bytes),
        }
    }
}

/// (m, k) from Python integers, in the core's ranges: 1..=2**43 bits, 1..=255 hashes.
pub(crate) fn shape(
    num_bits: &Bound<'_, PyAny>,
    num_hashes: &Bound<'_, PyAny>,
) -> PyResult<sparkbloom::Shape> {
    let num_bits = args::int_in(num_bits, "num_bits", 1, MAX_NUM_BITS, "2**43")?;
    let num_hashes = args::int_in(num_hashes, "num_hashes", 1, MAX_NUM_HASHES.into(), "255")?;
    Ok(sparkbloom::Shape {
        num_bits,
        num_hashes: num_hashes as u32, // 1..=255, checked above
    })
}
