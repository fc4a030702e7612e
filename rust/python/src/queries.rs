//! Batch queries shared by both filter classes: answers for a batch of keys, and the keys a
//! filter certainly does not hold. Integer batches run in the core's batch calls with the GIL
//! released, as do batches of only `str`/`bytes` keys (packed a chunk at a time); other
//! batches go key by key.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyList;
use sparkbloom::PackedBytes;

use crate::keys::{self, Key, Keys};

/// What a batch query needs of a filter.
pub(crate) trait Membership: Sync {
    fn contains_long(&self, key: u64) -> bool;
    fn contains_bytes(&self, key: &[u8]) -> bool;
    fn contains_all(&self, keys: &[u64]) -> Vec<bool>;
    /// Answers for packed text keys (by default one key at a time).
    fn contains_all_bytes(&self, keys: PackedBytes<'_>) -> Vec<bool> {
        keys.iter().map(|key| self.contains_bytes(key)).collect()
    }
}

/// The core's single-key and `u64` batch queries, which both filters name alike.
macro_rules! membership {
    ($filter:ty { $($packed:item)? }) => {
        impl Membership for $filter {
            fn contains_long(&self, key: u64) -> bool {
                self.might_contain(key)
            }
            fn contains_bytes(&self, key: &[u8]) -> bool {
                self.might_contain_bytes(key)
            }
            fn contains_all(&self, keys: &[u64]) -> Vec<bool> {
                self.might_contain_all(keys)
            }
            $($packed)?
        }
    };
}

membership!(sparkbloom::BloomFilter {
    fn contains_all_bytes(&self, keys: PackedBytes<'_>) -> Vec<bool> {
        self.might_contain_all_bytes(keys)
    }
});
membership!(sparkbloom::CountingBloomFilter {});

/// `might_contain` of one key of any kind.
pub(crate) fn contains(filter: &impl Membership, key: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(contains_key(filter, &keys::key(key)?))
}

/// `might_contain` of every key of the batch, in order.
fn answers<F: Membership>(py: Python<'_>, filter: &F, batch: &Keys<'_>) -> PyResult<Vec<bool>> {
    if let Some(longs) = batch.longs() {
        return Ok(py.detach(|| filter.contains_all(longs)));
    }
    let Keys::Mixed(items) = batch else {
        return Ok(Vec::new()); // every other batch has longs
    };
    let mut answers = Vec::with_capacity(items.len());
    let text = keys::in_text_chunks(py, items, "keys", |chunk| {
        answers.extend(filter.contains_all_bytes(chunk));
    })?;
    for (index, item) in items.iter().enumerate().skip(text) {
        let key = keys::key(item).map_err(|e| keys::at(e, py, "keys", index))?;
        answers.push(contains_key(filter, &key));
    }
    Ok(answers)
}

fn contains_key(filter: &impl Membership, key: &Key<'_>) -> bool {
    match key {
        Key::Long(long) => filter.contains_long(*long),
        Key::Bytes(bytes) => filter.contains_bytes(bytes),
    }
}

/// Whether numpy can be imported (it is a dependency, but `pip install --no-deps` skips it).
fn numpy_available(py: Python<'_>) -> bool {
    py.import("numpy").is_ok()
}

/// The answers for `keys`: a numpy bool array, or a list of bool where numpy is not installed.
pub(crate) fn might_contain_all<'py>(
    py: Python<'py>,
    filter: &impl Membership,
    keys: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let batch = keys::keys(keys, "keys")?;
    let answers = answers(py, filter, &batch)?;
    if numpy_available(py) {
        Ok(PyArray1::from_vec(py, answers).into_any())
    } else {
        Ok(PyList::new(py, answers)?.into_any())
    }
}

/// The keys the filter certainly does not hold, in order: a numpy array of the input's dtype for
/// a numpy array, else a list of the keys given.
pub(crate) fn retain_absent<'py>(
    py: Python<'py>,
    filter: &impl Membership,
    keys: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let batch = keys::keys(keys, "keys")?;
    let answers = answers(py, filter, &batch)?;
    if keys::ndarray(keys)?.is_some() {
        // numpy selects the absent keys itself, so every dtype comes back as it came.
        let absent: Vec<bool> = answers.iter().map(|&present| !present).collect();
        return keys.get_item(PyArray1::from_vec(py, absent));
    }
    let absent = |i: &usize| !answers[*i];
    match &batch {
        Keys::Mixed(items) => {
            let kept = (0..items.len()).filter(absent).map(|i| &items[i]);
            Ok(PyList::new(py, kept)?.into_any())
        }
        _ => {
            // exact ints: the values are the keys given
            let longs = batch.longs().unwrap_or_default();
            let kept = (0..longs.len()).filter(absent).map(|i| longs[i] as i64);
            Ok(PyList::new(py, kept)?.into_any())
        }
    }
}
