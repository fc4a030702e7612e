//! Python keys as the core's keys, hashed as Java's `BloomFilter.put` overloads hash them:
//! an `int` as `put(long)` (two's complement, so it must fit a signed 64-bit long), a `str` as
//! `put(String)` (its UTF-8 bytes), `bytes` / `bytearray` as `put(byte[])`.
//!
//! Batches of keys come either as a one-dimensional numpy int64 array, read in place, or as
//! any iterable: all-int iterables become one `u64` slice for the core's batch calls, and
//! all-text ones (`str`, `bytes`) one packed byte buffer for the core's byte batches.

use std::borrow::Cow;

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyInt, PyString};
use sparkbloom::PackedBytes;

/// One key: a 64-bit long, or the bytes a string or byte string is hashed as.
pub(crate) enum Key<'a> {
    Long(u64),
    Bytes(Cow<'a, [u8]>),
}

/// The key `key` stands for; `TypeError` for a type that is no key, `ValueError` for an int
/// outside Java's long range.
pub(crate) fn key<'a>(key: &'a Bound<'_, PyAny>) -> PyResult<Key<'a>> {
    // An exact int first: the common key, and no bool (bool is a subclass, not exactly int).
    if key.is_exact_instance_of::<PyInt>() {
        return Ok(Key::Long(long_key(key)?));
    }
    if let Ok(bytes) = key.cast::<PyBytes>() {
        return Ok(Key::Bytes(Cow::Borrowed(bytes.as_bytes())));
    }
    if let Ok(string) = key.cast::<PyString>() {
        return Ok(Key::Bytes(match string.to_cow()? {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }));
    }
    if let Ok(array) = key.cast::<PyByteArray>() {
        return Ok(Key::Bytes(Cow::Owned(array.to_vec())));
    }
    Ok(Key::Long(long_key(key)?))
}

/// Whether `key` is an integer key: an `int` (not a `bool`) or an object with `__index__`
/// (numpy's integer scalars).
fn is_integer(key: &Bound<'_, PyAny>) -> PyResult<bool> {
    if key.is_instance_of::<PyBool>() {
        return Ok(false);
    }
    Ok(key.is_instance_of::<PyInt>() || key.hasattr("__index__")?)
}

/// An integer key as Java's `long`, in two's complement.
pub(crate) fn long_key(key: &Bound<'_, PyAny>) -> PyResult<u64> {
    if !key.is_exact_instance_of::<PyInt>() && !is_integer(key)? {
        return Err(PyTypeError::new_err(format!(
            "key {} has type {}: keys are int, str or bytes",
            key.repr()?,
            key.get_type().name()?
        )));
    }
    match key.extract::<i64>() {
        Ok(value) => Ok(value as u64),
        Err(_) => Err(PyValueError::new_err(format!(
            "key {} is outside Java's long range [-2**63, 2**63 - 1]",
            key.repr()?
        ))),
    }
}

/// A batch of keys.
pub(crate) enum Keys<'py> {
    /// A contiguous one-dimensional numpy int64 array, read in place.
    Array(PyReadonlyArray1<'py, i64>),
    /// Integer keys, converted.
    Longs(Vec<u64>),
    /// Keys of any kind, one by one.
    Mixed(Vec<Bound<'py, PyAny>>),
}

impl Keys<'_> {
    /// The keys as one slice of longs, when every key is an integer.
    pub(crate) fn longs(&self) -> Option<&[u64]> {
        match self {
            Keys::Array(array) => array.as_slice().ok().map(as_u64),
            Keys::Longs(longs) => Some(longs),
            Keys::Mixed(_) => None,
        }
    }
}

/// Java's longs are two's complement: the same 8 bytes as u64.
fn as_u64(keys: &[i64]) -> &[u64] {
    // SAFETY: i64 and u64 have the same size and alignment and every bit pattern is valid.
    unsafe { std::slice::from_raw_parts(keys.as_ptr().cast::<u64>(), keys.len()) }
}

/// `keys` (the argument named `name`) as a batch. A lone `str` or `bytes` is refused: it is
/// iterable, but its characters are not the keys meant.
pub(crate) fn keys<'py>(keys: &Bound<'py, PyAny>, name: &str) -> PyResult<Keys<'py>> {
    if keys.is_instance_of::<PyString>()
        || keys.is_instance_of::<PyBytes>()
        || keys.is_instance_of::<PyByteArray>()
    {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an iterable of keys, not a single {}",
            keys.get_type().name()?
        )));
    }
    if is_numpy(keys)?
        && let Ok(array) = keys.cast::<PyArray1<i64>>()
    {
        // try_readonly, not readonly: an array another Rust extension is writing is an error
        // here, not a panic.
        let array = array.try_readonly().map_err(|e| {
            PyValueError::new_err(format!("{name}: the array cannot be read now: {e}"))
        })?;
        if array.as_slice().is_ok() {
            return Ok(Keys::Array(array));
        }
        return Ok(Keys::Longs(
            array.as_array().iter().map(|&k| k as u64).collect(),
        ));
    }
    let items: Vec<Bound<'py, PyAny>> = keys
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "{name} must be an iterable of keys, not {}",
                keys.get_type()
                    .name()
                    .map_or_else(|_| "this type".to_owned(), |n| n.to_string())
            ))
        })?
        .collect::<PyResult<_>>()?;
    let mut longs = Vec::with_capacity(items.len());
    for item in &items {
        if !item.is_instance_of::<PyInt>() || item.is_instance_of::<PyBool>() {
            return Ok(Keys::Mixed(items));
        }
        longs.push(long_key(item)?);
    }
    Ok(Keys::Longs(longs))
}

/// Whether `obj` is an instance of a numpy type (checked without importing numpy, so the
/// module works where numpy is not installed).
fn is_numpy(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(obj.get_type().module()?.to_cow()?.starts_with("numpy"))
}

/// Text keys (`str` as UTF-8, `bytes`) packed one after another for the core's byte batches.
pub(crate) struct Packed {
    pub(crate) data: Vec<u8>,
    pub(crate) ends: Vec<u32>,
}

impl Packed {
    pub(crate) fn keys(&self) -> PackedBytes<'_> {
        // The ends rise within the data by construction; `new` checks it once more.
        PackedBytes::new(&self.data, &self.ends).expect("packed keys rise within their data")
    }
}

/// `items` packed, when every one is a `str` or `bytes` (the usual batch of string ids), so one
/// GIL-free batch call hashes them all; `None` for any other mix (and for more than 4 GiB of
/// key bytes, beyond u32 ends), which then goes key by key.
pub(crate) fn packed(items: &[Bound<'_, PyAny>]) -> PyResult<Option<Packed>> {
    let mut data = Vec::new();
    let mut ends = Vec::with_capacity(items.len());
    for item in items {
        if let Ok(string) = item.cast::<PyString>() {
            data.extend_from_slice(string.to_cow()?.as_bytes());
        } else if let Ok(bytes) = item.cast::<PyBytes>() {
            data.extend_from_slice(bytes.as_bytes());
        } else {
            return Ok(None);
        }
        match u32::try_from(data.len()) {
            Ok(end) => ends.push(end),
            Err(_) => return Ok(None),
        }
    }
    Ok(Some(Packed { data, ends }))
}
