//! The reference kernel, the specification in code: a key's hash (`hashing`, or
//! `spark_hashing` for the Spark strategies), its k indexes (`strategy::Indexer`, Guava's and
//! Spark's walks bit for bit), and the test or set of each bit, one key after another. Every
//! other kernel is tested equal to this one.

use crate::bit_array::BitArray;
use crate::hashing::Hash128;
use crate::strategy::Indexer;

/// Whether every one of the k bits of `hash` is set; stops at the first clear one.
#[inline(always)]
pub(crate) fn contains(indexer: &Indexer, bits: &BitArray, hash: Hash128) -> bool {
    indexer.for_each(hash, |index| bits.get(index))
}

/// Sets the k bits of `hash` by `set` (an atomic or a plain OR); returns whether any changed.
#[inline(always)]
pub(crate) fn put(indexer: &Indexer, hash: Hash128, mut set: impl FnMut(u64) -> bool) -> bool {
    let mut changed = false;
    indexer.for_each(hash, |index| {
        changed |= set(index);
        true
    });
    changed
}

/// Calls `emit(i, contains(hash(keys[i])))` for each key, in order.
pub(crate) fn query(
    indexer: &Indexer,
    bits: &BitArray,
    keys: &[u64],
    hash: impl Fn(u64) -> Hash128,
    mut emit: impl FnMut(usize, bool),
) {
    for (i, &key) in keys.iter().enumerate() {
        emit(i, contains(indexer, bits, hash(key)));
    }
}
