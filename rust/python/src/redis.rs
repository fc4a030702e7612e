//! `sparkbloom.RedisLayout`: where keys' bits sit in a Redis bitmap, for services that test them
//! with `GETBIT` (redis-py) instead of fetching the whole value. The shapes and offsets are
//! those of sparkbloom-redis's `RedisLayout` (`helperCompatible`, `guavaCompatible`, `of`).

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use sparkbloom::format::redis_bitmap::{MAX_BITMAP_BITS, Offsets};
use sparkbloom::{Shape, Strategy, sizing};

use crate::errors::py_result;
use crate::keys::{self, Key, Keys};
use crate::{args, bloom, strategy};

/// Where keys' bits sit in a Redis bitmap: m bits, k hash functions and a strategy, as
/// sparkbloom-redis's `RedisLayout`. `offsets(key)` gives the k bit offsets `GETBIT` reads (Redis
/// numbers bits from the top bit of byte 0, as `BloomFilter.to_redis_bitmap` writes them); a key
/// is possibly present iff all k bits are 1, as `BloomFilter.from_redis_bitmap(bitmap, layout)`
/// answers.
///
/// >>> from sparkbloom import BloomFilter, RedisLayout
/// >>> layout = RedisLayout.helper_compatible(10_000, 0.001)
/// >>> layout
/// RedisLayout(bit_size=143775, num_hash_functions=10, strategy="MURMUR128_MITZ_32")
/// >>> layout.offsets(42)
/// [31031, 21787, 74606, 136845, 84026, 112567, 21611, 46065, 6753, 59572]
/// >>> f = BloomFilter.with_shape(layout.bit_size, layout.num_hash_functions, layout.strategy)
/// >>> f.put("user-42")
/// True
/// >>> bitmap = f.to_redis_bitmap()               # what GET returns; GETBIT reads one bit of it
/// >>> all(bitmap[o >> 3] & (0x80 >> (o & 7)) for o in layout.offsets("user-42"))
/// True
/// >>> BloomFilter.from_redis_bitmap(bitmap, layout) == f   # the filter of a GET, in this layout
/// True
/// >>> layout.offsets_all([42, "user-42"]).shape   # a numpy uint64 array, one row per key
/// (2, 10)
#[pyclass(frozen, eq, hash, module = "sparkbloom", name = "RedisLayout")]
pub(crate) struct RedisLayout {
    pub(crate) shape: Shape,
    pub(crate) strategy: Strategy,
    offsets: Offsets,
}

// The offsets follow from the shape and strategy: layouts are equal when those are.
impl PartialEq for RedisLayout {
    fn eq(&self, other: &Self) -> bool {
        (self.shape, self.strategy) == (other.shape, other.strategy)
    }
}

impl std::hash::Hash for RedisLayout {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.shape, self.strategy).hash(state)
    }
}

impl RedisLayout {
    /// The layout of `shape` (k in 1..=255, as every caller's checks give it) and `strategy`.
    fn make(shape: Shape, strategy: Strategy) -> PyResult<Self> {
        if shape.num_bits > MAX_BITMAP_BITS {
            return Err(PyValueError::new_err(format!(
                "num_bits must be at most 2**32 (a Redis string holds 2**32 bits), not {}",
                shape.num_bits
            )));
        }
        let offsets = py_result(Offsets::new(shape, strategy))?;
        Ok(RedisLayout {
            shape,
            strategy,
            offsets,
        })
    }

    /// The k offsets of one key, appended to `out`.
    fn push(&self, key: &Key<'_>, out: &mut Vec<u64>) {
        match key {
            Key::Long(long) => self.offsets.of_u64(*long, out),
            Key::Bytes(bytes) => self.offsets.of_bytes(bytes, out),
        }
    }
}

#[pymethods]
impl RedisLayout {
    /// The layout of an explicit shape: `num_bits` in 1..2**32, `num_hashes` in 1..255, and a
    /// strategy with a Redis bitmap form (any but BLOCKED); `ValueError` names a bad argument.
    #[new]
    #[pyo3(
        signature = (num_bits, num_hashes, strategy = None),
        text_signature = "(num_bits, num_hashes, strategy='MURMUR128_MITZ_32')"
    )]
    fn new(
        num_bits: &Bound<'_, PyAny>,
        num_hashes: &Bound<'_, PyAny>,
        strategy: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        RedisLayout::make(
            bloom::shape(num_bits, num_hashes)?,
            strategy::parse_or(strategy, Strategy::Murmur128Mitz32)?,
        )
    }

    /// The "BloomFilterHelper" layout (`RedisLayout.helperCompatible` in Java): m =
    /// int(-n·ln fpp / ln²2), not rounded to whole words, k = max(1, round(m/n·ln 2)),
    /// MURMUR128_MITZ_32 offsets. n and m must fit Java's int, as in the helper.
    #[staticmethod]
    fn helper_compatible(
        expected_insertions: &Bound<'_, PyAny>,
        fpp: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let n = args::expected_insertions(expected_insertions)?;
        let fpp = args::fpp(fpp)?;
        let shape = py_result(sizing::redis_helper_shape(n, fpp))?;
        RedisLayout::make(shape, Strategy::Murmur128Mitz32)
    }

    /// The shape of `BloomFilter(expected_insertions, fpp, strategy)` (`guavaCompatible` in
    /// Java), so a filter built that way is stored as it is.
    #[staticmethod]
    #[pyo3(
        signature = (expected_insertions, fpp, strategy = None),
        text_signature = "(expected_insertions, fpp, strategy='MURMUR128_MITZ_64')"
    )]
    fn guava_compatible(
        expected_insertions: &Bound<'_, PyAny>,
        fpp: &Bound<'_, PyAny>,
        strategy: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let n = args::expected_insertions(expected_insertions)?;
        let fpp = args::fpp(fpp)?;
        let strategy = strategy::parse_or(strategy, Strategy::Murmur128Mitz64)?;
        let shape = py_result(sizing::shape_for_strategy(n, fpp, strategy))?;
        // Blamed on this call's arguments: the caller gave no num_bits.
        if shape.num_bits > MAX_BITMAP_BITS {
            return Err(PyValueError::new_err(format!(
                "expected_insertions, fpp: {n} insertions at fpp {} need {} bits, more than a \
                 Redis string's 2**32",
                args::float_text(fpp),
                shape.num_bits
            )));
        }
        RedisLayout::make(shape, strategy)
    }

    /// Bits in the bitmap (m): offsets are below it.
    #[getter]
    fn bit_size(&self) -> u64 {
        self.shape.num_bits
    }

    /// Bit positions per key (k).
    #[getter]
    fn num_hash_functions(&self) -> u32 {
        self.shape.num_hashes
    }

    /// The strategy's name.
    #[getter]
    fn strategy(&self) -> &'static str {
        self.strategy.name()
    }

    /// The longest value a key of this layout holds: ceil(bit_size / 8) bytes.
    #[getter]
    fn bitmap_bytes(&self) -> u64 {
        self.shape.num_bits.div_ceil(8)
    }

    /// The k `GETBIT` offsets of `key` (int as Java's `put(long)`, str as UTF-8, bytes), in the
    /// order the strategy visits them; repeats are possible.
    fn offsets(&self, key: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let mut out = Vec::with_capacity(self.shape.num_hashes as usize);
        self.push(&keys::key(key)?, &mut out);
        Ok(out)
    }

    /// The offsets of every key of `keys`, one row of k per key: a numpy uint64 array of shape
    /// (len(keys), k) (a list of lists where numpy is not installed). A numpy int64 array is
    /// read in place with the GIL released.
    fn offsets_all<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let batch = keys::keys(keys, "keys")?;
        let k = self.shape.num_hashes as usize;
        let mut out = Vec::new();
        let rows = match &batch {
            Keys::Mixed(items) => {
                let keys = keys::convert(items, "keys")?;
                reserve(&mut out, keys.len(), k)?;
                for key in &keys {
                    self.push(key, &mut out);
                }
                keys.len()
            }
            _ => {
                let longs = batch.longs().unwrap_or_default();
                reserve(&mut out, longs.len(), k)?;
                let offsets = &self.offsets;
                py.detach(|| longs.iter().for_each(|&key| offsets.of_u64(key, &mut out)));
                longs.len()
            }
        };
        if py.import("numpy").is_err() {
            let rows: Vec<&[u64]> = out.chunks(k).collect();
            return Ok(PyList::new(py, rows)?.into_any());
        }
        Ok(PyArray1::from_vec(py, out).reshape([rows, k])?.into_any())
    }

    fn __repr__(&self) -> String {
        format!(
            "RedisLayout(bit_size={}, num_hash_functions={}, strategy={:?})",
            self.shape.num_bits,
            self.shape.num_hashes,
            self.strategy.name()
        )
    }

    /// Pickles as `RedisLayout(bit_size, num_hash_functions, strategy)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let layout = slf.get();
        let args = (
            layout.shape.num_bits,
            layout.shape.num_hashes,
            layout.strategy.name(),
        );
        Ok((slf.get_type().into_any(), args))
    }
}

/// The shape and strategy `BloomFilter.from_redis_bitmap` reads a bitmap in: a `RedisLayout`'s
/// (`layout`, alone), or `num_bits` (the second argument, or by keyword), `num_hashes` and
/// `strategy` (default MURMUR128_MITZ_32). A `TypeError` names an argument that is missing,
/// given twice or of neither form; `ValueError` a size out of range.
pub(crate) fn bitmap_shape(
    layout: Option<&Bound<'_, PyAny>>,
    num_bits: Option<&Bound<'_, PyAny>>,
    num_hashes: Option<&Bound<'_, PyAny>>,
    strategy: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Shape, Strategy)> {
    if let Some(layout) = layout.and_then(|l| l.cast::<RedisLayout>().ok()) {
        let given = [
            ("num_bits", num_bits),
            ("num_hashes", num_hashes),
            ("strategy", strategy),
        ];
        if let Some((name, _)) = given.iter().find(|(_, value)| value.is_some()) {
            return Err(PyTypeError::new_err(format!(
                "from_redis_bitmap: {name} is not taken with a RedisLayout, which gives the \
                 shape and strategy"
            )));
        }
        let layout = layout.get();
        return Ok((layout.shape, layout.strategy));
    }
    let num_bits = match (layout, num_bits) {
        (Some(_), Some(_)) => {
            return Err(PyTypeError::new_err(
                "from_redis_bitmap: num_bits given twice, as the second argument and by keyword",
            ));
        }
        (Some(layout), None) if args::as_int(layout)?.is_none() => {
            return Err(PyTypeError::new_err(format!(
                "from_redis_bitmap: layout must be a RedisLayout (or num_bits an int), not {}",
                args::type_name(layout)
            )));
        }
        (Some(num_bits), None) | (None, Some(num_bits)) => num_bits,
        (None, None) => {
            return Err(PyTypeError::new_err(
                "from_redis_bitmap: pass a layout (a RedisLayout), or num_bits and num_hashes",
            ));
        }
    };
    let Some(num_hashes) = num_hashes else {
        return Err(PyTypeError::new_err(
            "from_redis_bitmap: num_hashes is missing: pass num_bits and num_hashes, or a \
             RedisLayout alone",
        ));
    };
    Ok((
        bloom::shape(num_bits, num_hashes)?,
        strategy::parse_or(strategy, Strategy::Murmur128Mitz32)?,
    ))
}

/// What `__reduce__` returns: the class and its constructor's arguments.
type Reduced<'py> = (Bound<'py, PyAny>, (u64, u32, &'static str));

/// Room for `rows` × `k` offsets, or a `MemoryError` where the allocator refuses it (a huge
/// batch must not abort the interpreter).
fn reserve(out: &mut Vec<u64>, rows: usize, k: usize) -> PyResult<()> {
    let len = rows
        .checked_mul(k)
        .ok_or_else(|| pyo3::exceptions::PyMemoryError::new_err("keys: too many offsets"))?;
    out.try_reserve_exact(len).map_err(|_| {
        pyo3::exceptions::PyMemoryError::new_err(format!("keys: no memory for {len} offsets"))
    })
}
