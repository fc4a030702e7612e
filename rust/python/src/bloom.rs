//! `sparkbloom.BloomFilter`: the core's filter, bit-exact with Guava's and Spark's.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sparkbloom::sizing::{MAX_NUM_BITS, MAX_NUM_HASHES};
use sparkbloom::{Strategy, format};

use crate::errors::py_result;
use crate::keys::{self, Key};
use crate::{args, protocol, redis, strategy};

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

protocol::filter_class!(BloomFilter(
    sparkbloom::BloomFilter,
    format::try_encode,
    format::decode_with_limit
) {
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
        let filter = &self.inner;
        keys::update(
            py,
            keys,
            |longs| filter.put_all(longs),
            |chunk| filter.put_all_bytes(chunk),
            |key| self.put_key(key),
            |a, b| a | b,
        )
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

    fn __copy__(&self) -> PyResult<Self> {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.copy()
    }

    /// Clears every bit.
    fn clear(&self) {
        self.inner.clear()
    }

    /// Guava's `BloomFilter.writeTo` stream (MITZ_32 / MITZ_64 filters).
    fn to_guava_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        protocol::encoded(py, format::guava::encode(&self.inner))
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
        protocol::decode(data, max_bits, format::guava::decode_with_limit)
    }

    /// Spark's `BloomFilter.writeTo` stream (SPARK_SKETCH_V1 / V2 filters).
    fn to_spark_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        protocol::encoded(py, format::spark_sketch::encode(&self.inner))
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
        protocol::decode(data, max_bits, format::spark_sketch::decode_with_limit)
    }

    /// The bits as a Redis bitmap string (`SETBIT` order).
    fn to_redis_bitmap<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        protocol::encoded(py, format::redis_bitmap::encode(&self.inner))
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

    fn __repr__(&self) -> String {
        format!(
            "BloomFilter(bit_size={}, num_hash_functions={}, strategy={:?}, bits_set={})",
            self.inner.num_bits(),
            self.inner.num_hashes(),
            self.inner.strategy().name(),
            self.inner.bits_set()
        )
    }
});

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
