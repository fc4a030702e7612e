//! What both filter classes share: their common methods ([`filter_class!`]), pickling through
//! their bytes, and equality (same strategy, shape and bits or counters) without hashing, as
//! they are mutable.

use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBytes, PyTuple};

use crate::args;
use crate::errors::{decoded, py_result};

/// The one `#[pymethods]` block (PyO3 allows one a class) of a filter class `$class` wrapping
/// the core filter `$core` as `inner`: the methods both classes have, with `$encode` / `$decode`
/// the FORMAT.md codec of `to_bytes` / `from_bytes`, then the class's own `$own` methods.
macro_rules! filter_class {
    ($class:ident($core:ty, $encode:path, $decode:path) { $($own:tt)* }) => {
        impl From<$core> for $class {
            fn from(inner: $core) -> Self {
                $class { inner }
            }
        }

        #[pyo3::pymethods]
        impl $class {
            /// A filter sized for `expected_insertions` keys at false-positive probability `fpp`
            /// (strictly between 0 and 1) with `strategy` (see `sparkbloom.STRATEGIES`): Guava's
            /// `create(n, fpp)` shape for MITZ_64. `ValueError` / `TypeError` name a bad argument.
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
                let n = $crate::args::expected_insertions(expected_insertions)?;
                let fpp = $crate::args::fpp(fpp)?;
                let strategy =
                    $crate::strategy::parse_or(strategy, sparkbloom::Strategy::Murmur128Mitz64)?;
                $crate::errors::py_result(<$core>::with_strategy(n, fpp, strategy)).map(Self::from)
            }

            /// `False`: `key` was certainly never put; `True`: it probably was.
            fn might_contain(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                $crate::queries::contains(&self.inner, key)
            }

            fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                $crate::queries::contains(&self.inner, key)
            }

            /// `might_contain` of every key, in order: a numpy bool array (a list where numpy is
            /// absent).
            fn might_contain_all<'py>(
                &self,
                py: Python<'py>,
                keys: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyAny>> {
                $crate::queries::might_contain_all(py, &self.inner, keys)
            }

            /// The keys certainly not in the filter, in order: a numpy array of the same dtype for
            /// a numpy array, else a list of the keys given.
            fn retain_absent<'py>(
                &self,
                py: Python<'py>,
                keys: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyAny>> {
                $crate::queries::retain_absent(py, &self.inner, keys)
            }

            /// Positions (m): the bits of a `BloomFilter`, the counters of a `CountingBloomFilter`.
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

            /// An independent copy.
            fn copy(&self) -> PyResult<Self> {
                $crate::errors::py_result(self.inner.try_clone()).map(Self::from)
            }

            /// Bytes held: the object and its words, of bits or counters (what `sys.getsizeof`
            /// reports, plus the collector's header).
            fn __sizeof__(slf: &Bound<'_, Self>) -> PyResult<usize> {
                let object: usize = slf.get_type().getattr("__basicsize__")?.extract()?;
                Ok(object + slf.get().inner.words().len() * 8)
            }

            /// The filter in sparkbloom's format (FORMAT.md; its counting version for a counting
            /// filter), as the JVM library writes it.
            fn to_bytes<'py>(
                &self,
                py: Python<'py>,
            ) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
                $crate::protocol::encoded(py, $encode(&self.inner))
            }

            /// The filter `data` (bytes-like) holds (FORMAT.md); `CorruptFilterError` names the
            /// first bad field, `FilterTooLargeError` a filter of more than `max_bits` positions.
            #[staticmethod]
            #[pyo3(
                signature = (data, *, max_bits = None),
                text_signature = "(data, *, max_bits=8796093022208)"
            )]
            fn from_bytes(
                data: &Bound<'_, PyAny>,
                max_bits: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Self> {
                $crate::protocol::decode(data, max_bits, $decode)
            }

            /// Pickles as `from_bytes(self.to_bytes())` of its class.
            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                $crate::protocol::reduce(slf.as_any(), slf.get().to_bytes(slf.py())?)
            }

            fn __richcmp__(
                &self,
                other: &Bound<'_, PyAny>,
                op: pyo3::pyclass::CompareOp,
            ) -> PyResult<Py<PyAny>> {
                let equal = other.cast::<$class>().ok().map(|o| self.inner == o.get().inner);
                $crate::protocol::compare(other.py(), equal, op)
            }

            #[classattr]
            fn __hash__(py: Python<'_>) -> Py<PyAny> {
                py.None()
            }

            $($own)*
        }
    };
}
pub(crate) use filter_class;

/// A core encoder's bytes as Python `bytes`.
pub(crate) fn encoded<'py>(
    py: Python<'py>,
    bytes: sparkbloom::Result<Vec<u8>>,
) -> PyResult<Bound<'py, PyBytes>> {
    Ok(PyBytes::new(py, &py_result(bytes)?))
}

/// The filter `decode_with_limit` reads from `data` (bytes-like), refusing more than `max_bits`
/// positions (default [`args::DEFAULT_MAX_BITS`]).
pub(crate) fn decode<T, F: From<T>>(
    data: &Bound<'_, PyAny>,
    max_bits: Option<&Bound<'_, PyAny>>,
    decode_with_limit: fn(&[u8], u64) -> sparkbloom::Result<T>,
) -> PyResult<F> {
    let limit = args::max_bits(max_bits)?;
    let data = args::bytes_like(data, "data")?;
    decoded(decode_with_limit(&data, limit)).map(F::from)
}

/// `__reduce__`: the class's `from_bytes` applied to `bytes`, the filter's `to_bytes()`.
pub(crate) fn reduce<'py>(
    slf: &Bound<'py, PyAny>,
    bytes: Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyTuple>> {
    let py = slf.py();
    let from_bytes = slf.get_type().getattr("from_bytes")?;
    PyTuple::new(py, [from_bytes, PyTuple::new(py, [bytes])?.into_any()])
}

/// `__richcmp__` for `==` and `!=`, given whether `other` is of the class and equal
/// (`None`: another type, which Python then asks instead).
pub(crate) fn compare(py: Python<'_>, equal: Option<bool>, op: CompareOp) -> PyResult<Py<PyAny>> {
    let answer = match (equal, op) {
        (Some(equal), CompareOp::Eq) => equal,
        (Some(equal), CompareOp::Ne) => !equal,
        _ => return Ok(py.NotImplemented()),
    };
    Ok(answer.into_pyobject(py)?.to_owned().into_any().unbind())
}
