//! Python keys as the core's keys, hashed as Java's `BloomFilter.put` overloads hash them:
//! an `int` as `put(long)` (two's complement, so it must fit a signed 64-bit long), a `str` as
//! `put(String)` (its UTF-8 bytes), `bytes` / `bytearray` as `put(byte[])`.
//!
//! Batches of keys come either as a one-dimensional numpy int64 array, read in place, or as
//! any iterable: all-int iterables become one `u64` slice for the core's batch calls, all-text
//! ones (`str`, `bytes`) one packed byte buffer for the core's byte batches, and any other mix
//! is converted key by key (`convert`). Every key is converted before a filter is touched.

use std::borrow::Cow;

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyString};
use sparkbloom::PackedBytes;

use crate::args::{as_int, type_name};

/// One key: a 64-bit long, or the bytes a string or byte string is hashed as.
pub(crate) enum Key<'a> {
    Long(u64),
    Bytes(Cow<'a, [u8]>),
}

/// The key `key` stands for; `TypeError` for a type that is no key, `ValueError` for an int
/// outside Java's long range or a `str` without UTF-8 form (a lone surrogate).
pub(crate) fn key<'a>(key: &'a Bound<'_, PyAny>) -> PyResult<Key<'a>> {
    // An exact int first: the common key, and no bool (bool is a subclass, not exactly int).
    if key.is_exact_instance_of::<PyInt>() {
        return Ok(Key::Long(long_key(key)?));
    }
    if let Ok(bytes) = key.cast::<PyBytes>() {
        return Ok(Key::Bytes(Cow::Borrowed(bytes.as_bytes())));
    }
    if let Ok(string) = key.cast::<PyString>() {
        return Ok(Key::Bytes(utf8(string)?));
    }
    if let Ok(array) = key.cast::<PyByteArray>() {
        return Ok(Key::Bytes(Cow::Owned(array.to_vec())));
    }
    Ok(Key::Long(long_key(key)?))
}

/// The UTF-8 bytes of a `str` key: CPython's own UTF-8 view where the interpreter offers it
/// (no copy; for an ASCII string it is the string's storage), otherwise a fresh encoding.
fn utf8<'a>(string: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, [u8]>> {
    if let Some(view) = utf8_view(string) {
        return view.map(Cow::Borrowed);
    }
    match string.to_cow() {
        Ok(Cow::Borrowed(s)) => Ok(Cow::Borrowed(s.as_bytes())),
        Ok(Cow::Owned(s)) => Ok(Cow::Owned(s.into_bytes())),
        Err(cause) => Err(no_utf8(string, cause)),
    }
}

/// The error for a `str` without UTF-8 form, `cause` being Python's `UnicodeEncodeError`.
fn no_utf8(string: &Bound<'_, PyString>, cause: PyErr) -> PyErr {
    let repr = match string.repr() {
        Ok(repr) => repr.to_string(),
        Err(e) => return e,
    };
    let error = PyValueError::new_err(format!(
        "key {repr} has no UTF-8 form (a lone surrogate): str keys are hashed as UTF-8"
    ));
    error.set_cause(string.py(), Some(cause));
    error
}

// `PyUnicode_AsUTF8AndSize` is in the stable ABI from CPython 3.10; the bindings of this
// abi3-py39 build leave it out, so it is declared here and called only on 3.10 and later.
unsafe extern "C" {
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut pyo3::ffi::PyObject,
        size: *mut pyo3::ffi::Py_ssize_t,
    ) -> *const std::ffi::c_char;
}

/// `string`'s UTF-8 bytes as the interpreter caches them in the object, valid while it lives;
/// `None` before Python 3.10.
fn utf8_view<'a>(string: &'a Bound<'_, PyString>) -> Option<PyResult<&'a [u8]>> {
    static HAS_VIEW: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if !*HAS_VIEW.get_or_init(|| string.py().version_info() >= (3, 10)) {
        return None;
    }
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `string` is a live str (the GIL is held, `'a` borrows it); the returned buffer
    // belongs to the object and stays unchanged while it lives (a str is immutable).
    let data = unsafe { PyUnicode_AsUTF8AndSize(string.as_ptr(), &mut size) };
    if data.is_null() {
        let cause =
            PyErr::take(string.py()).unwrap_or_else(|| PyValueError::new_err("no UTF-8 form"));
        return Some(Err(no_utf8(string, cause)));
    }
    let len = usize::try_from(size).unwrap_or(0);
    // SAFETY: CPython returns `size` bytes at `data` (a non-negative size on success).
    Some(Ok(unsafe {
        std::slice::from_raw_parts(data.cast::<u8>(), len)
    }))
}

/// An integer key as Java's `long`, in two's complement.
pub(crate) fn long_key(key: &Bound<'_, PyAny>) -> PyResult<u64> {
    let Some(int) = as_int(key)? else {
        return Err(PyTypeError::new_err(format!(
            "a key of type {} is not supported ({}): keys are int, str or bytes",
            type_name(key),
            key.repr()?
        )));
    };
    match int.extract::<i64>() {
        Ok(value) => Ok(value as u64),
        Err(_) => Err(PyValueError::new_err(format!(
            "key {} is outside Java's long range [-2**63, 2**63 - 1]",
            int.repr()?
        ))),
    }
}

/// `error` (about one key) with the key's place in the batch `name` in front: "keys[3]: ...".
pub(crate) fn at(error: PyErr, py: Python<'_>, name: &str, index: usize) -> PyErr {
    let message = format!("{name}[{index}]: {}", error.value(py));
    let placed = if error.is_instance_of::<PyTypeError>(py) {
        PyTypeError::new_err(message)
    } else if error.is_instance_of::<PyValueError>(py) {
        PyValueError::new_err(message)
    } else {
        return error;
    };
    placed.set_cause(py, error.cause(py));
    placed
}

/// A batch of keys.
pub(crate) enum Keys<'py> {
    /// A contiguous one-dimensional numpy int64 array, read in place.
    Array(PyReadonlyArray1<'py, i64>),
    /// Integer keys, converted: from an iterable of exact ints, or a strided int64 array.
    Longs(Vec<u64>),
    /// Keys of any kind, to `convert` before use.
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
/// iterable, but its characters are not the keys meant; so is a numpy array of other than one
/// dimension, whose rows are not keys.
pub(crate) fn keys<'py>(keys: &Bound<'py, PyAny>, name: &str) -> PyResult<Keys<'py>> {
    if keys.is_instance_of::<PyString>()
        || keys.is_instance_of::<PyBytes>()
        || keys.is_instance_of::<PyByteArray>()
    {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an iterable of keys, not a single {}",
            type_name(keys)
        )));
    }
    if let Some(array) = ndarray(keys)? {
        if array.ndim() != 1 {
            return Err(PyTypeError::new_err(format!(
                "{name} must be one-dimensional, not a {}-dimensional array",
                array.ndim()
            )));
        }
        if let Ok(array) = keys.cast::<PyArray1<i64>>() {
            // try_readonly, not readonly: an array another Rust extension is writing is an
            // error here, not a panic.
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
    }
    let items: Vec<Bound<'py, PyAny>> = keys
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "{name} must be an iterable of keys, not {}",
                type_name(keys)
            ))
        })?
        .collect::<PyResult<_>>()?;
    let mut longs = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        // Exact ints only: a list of them comes back from retain_absent as the same values.
        if !item.is_exact_instance_of::<PyInt>() {
            return Ok(Keys::Mixed(items));
        }
        longs.push(long_key(item).map_err(|e| at(e, keys.py(), name, index))?);
    }
    Ok(Keys::Longs(longs))
}

/// `obj` as a numpy array, when it is one (checked without importing numpy, so the module
/// works where numpy is not installed).
pub(crate) fn ndarray<'a, 'py>(
    obj: &'a Bound<'py, PyAny>,
) -> PyResult<Option<&'a Bound<'py, PyUntypedArray>>> {
    if !obj.get_type().module()?.to_cow()?.starts_with("numpy") {
        return Ok(None);
    }
    Ok(obj.cast::<PyUntypedArray>().ok())
}

/// Every key of `items` (the batch named `name`) converted, so that a bad key raises, naming
/// its place, before any key changes a filter.
pub(crate) fn convert<'a>(items: &'a [Bound<'_, PyAny>], name: &str) -> PyResult<Vec<Key<'a>>> {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| key(item).map_err(|e| at(e, item.py(), name, index)))
        .collect()
}

/// A batch that changes a filter, `keys` (the argument "keys"): `longs` on an all-int batch and
/// `chunk` on each packed chunk of an all-text one, with the GIL released; otherwise `one` on
/// each key. Every key is converted first, so a bad one raises before anything changes. The
/// results are joined by `join`.
pub(crate) fn update<T: Copy + Default + Send>(
    py: Python<'_>,
    keys: &Bound<'_, PyAny>,
    longs: impl FnOnce(&[u64]) -> T + Send,
    mut chunk: impl FnMut(PackedBytes<'_>) -> T + Send,
    one: impl Fn(&Key<'_>) -> T,
    join: fn(T, T) -> T,
) -> PyResult<T> {
    let batch = self::keys(keys, "keys")?;
    if let Some(keys) = batch.longs() {
        return Ok(py.detach(|| longs(keys)));
    }
    let Keys::Mixed(items) = &batch else {
        return Ok(T::default()); // every other batch has longs
    };
    let mut total = T::default();
    if in_text_chunks_all_checked(py, items, "keys", |keys| total = join(total, chunk(keys)))? {
        return Ok(total);
    }
    let keys = convert(items, "keys")?;
    Ok(keys
        .iter()
        .fold(T::default(), |total, key| join(total, one(key))))
}

/// Keys per chunk of a text batch: a chunk's packed bytes stay in cache and one buffer serves
/// every chunk, where packing the whole batch first would allocate (and fault in) a buffer as
/// large as all its keys.
const TEXT_CHUNK: usize = 16384;

/// A text key's bytes: a `str`'s UTF-8, a `bytes`' own; `None` for any other key.
fn text<'a>(item: &'a Bound<'_, PyAny>) -> Option<PyResult<Cow<'a, [u8]>>> {
    // Exact types first: one pointer comparison each, where `cast` asks the type for its flags.
    if item.is_exact_instance_of::<PyString>() {
        // SAFETY: `item` is a str, just checked.
        return Some(utf8(unsafe { item.cast_unchecked::<PyString>() }));
    }
    if item.is_exact_instance_of::<PyBytes>() {
        // SAFETY: `item` is a bytes, just checked.
        return Some(Ok(Cow::Borrowed(
            unsafe { item.cast_unchecked::<PyBytes>() }.as_bytes(),
        )));
    }
    if let Ok(string) = item.cast::<PyString>() {
        Some(utf8(string))
    } else if let Ok(bytes) = item.cast::<PyBytes>() {
        Some(Ok(Cow::Borrowed(bytes.as_bytes())))
    } else {
        None
    }
}

/// Whether every key of `items` is a `str` or `bytes` (the usual batch of string ids) of less
/// than 4 GiB (the packing's u32 ends); a `str` without UTF-8 form raises, naming its place in
/// the batch `name`.
fn all_text(py: Python<'_>, items: &[Bound<'_, PyAny>], name: &str) -> PyResult<bool> {
    for (index, item) in items.iter().enumerate() {
        match text(item) {
            Some(Ok(key)) if u32::try_from(key.len()).is_ok() => {}
            Some(Err(e)) => return Err(at(e, py, name, index)),
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// For batches that change a filter: when every key of `items` is text ([`all_text`]), runs
/// `each` on all of them as [`in_text_chunks`] does and returns `true`; otherwise runs nothing
/// and returns `false` (the batch goes key by key). Every key is checked before the first
/// chunk runs, so a bad one raises before `each` changes anything.
pub(crate) fn in_text_chunks_all_checked(
    py: Python<'_>,
    items: &[Bound<'_, PyAny>],
    name: &str,
    each: impl FnMut(PackedBytes<'_>) + Send,
) -> PyResult<bool> {
    if !all_text(py, items, name)? {
        return Ok(false);
    }
    in_text_chunks(py, items, name, each)?;
    Ok(true)
}

/// Runs `each` on the text keys at the head of `items` (the batch named `name`) a chunk at a
/// time, packed for the core's byte batches, with the GIL released; stops before the first key
/// that is not text ([`all_text`]) and returns its place (`items.len()` when there is none),
/// from which the caller goes key by key. A `str` without UTF-8 form raises, naming its place,
/// with the chunks before it run.
pub(crate) fn in_text_chunks(
    py: Python<'_>,
    items: &[Bound<'_, PyAny>],
    name: &str,
    mut each: impl FnMut(PackedBytes<'_>) + Send,
) -> PyResult<usize> {
    let mut data: Vec<u8> = Vec::new();
    let mut ends: Vec<u32> = Vec::with_capacity(TEXT_CHUNK.min(items.len()));
    let mut flush = |data: &mut Vec<u8>, ends: &mut Vec<u32>| -> PyResult<()> {
        if ends.is_empty() {
            return Ok(());
        }
        let keys = PackedBytes::new(data, ends)
            .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
        py.detach(|| each(keys));
        data.clear();
        ends.clear();
        Ok(())
    };
    for (index, item) in items.iter().enumerate() {
        let key = match text(item) {
            Some(Ok(key)) if u32::try_from(key.len()).is_ok() => key,
            Some(Err(e)) => return Err(at(e, py, name, index)),
            _ => {
                flush(&mut data, &mut ends)?;
                return Ok(index);
            }
        };
        if ends.len() == TEXT_CHUNK || u32::try_from(data.len() + key.len()).is_err() {
            flush(&mut data, &mut ends)?;
        }
        data.try_reserve(key.len()).map_err(|_| {
            PyMemoryError::new_err(format!(
                "{name}[{index}]: no memory to pack {} bytes",
                key.len()
            ))
        })?;
        data.extend_from_slice(&key);
        ends.push(data.len() as u32); // < 2^32: flushed above otherwise
    }
    flush(&mut data, &mut ends)?;
    Ok(items.len())
}
