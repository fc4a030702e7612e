//! Batches of byte-string keys (`put_all_bytes`, `might_contain_all_bytes`): the pipeline of
//! the `long` batches for keys packed one after another (`packed_bytes.rs`). A group of keys is
//! hashed first, then on filters too large for cache all of the group's bit indexes are
//! computed and prefetched before any is read; smaller filters are probed straight from the
//! hashes, and dense puts into them query each group first and set only the keys not held yet,
//! each key hashed and walked exactly as by [`BloomFilter::put_bytes`].

use super::BloomFilter;
use super::batch::ANSWERS_OF_MASK;
use super::packed_bytes::{GROUP, GroupHashes, PackedBytes};
use crate::bit_array::BitWriter;
use crate::error::Result;
use crate::kernels::{Put, Query, avx512};
use crate::sizing;

/// The largest k whose group indexes fit the small scratch array.
const SMALL_K: usize = 32;

/// Groups put without a query first after a queried group that was mostly new keys.
const UNQUERIED_AFTER_NEW: usize = 8;

/// Keys hashed together before a gathering query walks them: enough for the screened walk
/// (`avx512::screened`, batches of 64 keys and more), one of its passes. Puts on filters beyond
/// L2 hash their chunks this size too (`put_all_bytes_prefetched`).
const QUERY_GROUP: usize = 256;

/// The private words a dense batch accumulates its bits in, allocated on first use.
struct Private {
    words: Vec<u64>,
    len_words: usize,
    out_of_memory: bool,
}

impl Private {
    /// The zeroed words, allocated now if they are not yet; `None` if there is no memory.
    #[inline(always)]
    fn words(&mut self) -> Option<&mut [u64]> {
        if self.words.is_empty() {
            if self.out_of_memory || self.words.try_reserve_exact(self.len_words).is_err() {
                self.out_of_memory = true;
                return None;
            }
            self.words.resize(self.len_words, 0);
        }
        Some(&mut self.words)
    }
}

/// A group's indexes: key after key (`stride` 1: slots `j · k..(j + 1) · k`), or as the vector
/// lanes hold them (`stride` 8: the i-th index of key j at `(⌊j / 8⌋ · k + i) · 8 + j mod 8`).
struct GroupIndexes<'s> {
    slots: &'s [u64],
    k: usize,
    stride: usize,
}

impl GroupIndexes<'_> {
    /// Key j's k indexes.
    #[inline(always)]
    fn of(&self, j: usize) -> impl Iterator<Item = u64> + '_ {
        let first = if self.stride == 1 {
            j * self.k
        } else {
            j / 8 * 8 * self.k + j % 8
        };
        self.slots[first..]
            .iter()
            .step_by(self.stride)
            .take(self.k)
            .copied()
    }
}

impl BloomFilter {
    /// Adds every key as [`put_bytes`](Self::put_bytes) does; returns whether any bit changed.
    pub fn put_all_bytes(&self, keys: PackedBytes<'_>) -> bool {
        let bits = self.write();
        if self.accumulates(keys.len())
            && let Some(changed) = self.put_all_bytes_accumulated(&bits, keys)
        {
            return changed;
        }
        if self.plan.put == Put::Walk {
            return self.put_all_bytes_prefetched(&bits, keys);
        }
        let mut changed = false;
        if self.plan.query == Query::Gather {
            // Up to filters L3 holds (as the queries): each group queried in lanes, and only
            // its absent keys' bits set.
            let k = self.num_hashes() as usize;
            self.for_each_absent_group(keys, |lanes_to_set, indexes| {
                changed |= for_each_lane_index(lanes_to_set, indexes, k, |index| bits.set(index));
            });
            return changed;
        }
        let index_first = self.plan.prefetch || self.plan.lanes;
        self.for_each_group(keys, |_, count, hashes, scratch| {
            if index_first {
                let indexes = self.group_indexes(hashes, count, scratch);
                for j in 0..count {
                    // A key whose bits are all set changes nothing: loads only, no line made
                    // dirty, and a branch that follows the workload (mostly new keys, or
                    // mostly seen ones) where a per-bit one would be a coin flip.
                    let present = indexes
                        .of(j)
                        .fold(true, |all, index| all & self.bits.get(index));
                    if !present {
                        indexes.of(j).for_each(|index| changed |= bits.set(index));
                    }
                }
            } else {
                // As above: a key already present costs its probes and no write.
                for j in 0..count {
                    let hash = hashes.get(j);
                    if !self.contains_hash(hash) {
                        changed |= self.put_hash(&bits, hash);
                    }
                }
            }
        });
        changed
    }

    /// `put_all_bytes` on a filter beyond L2 with the prefetched vector walk ([`Put::Walk`]):
    /// the keys hashed [`QUERY_GROUP`] at a time, each such chunk's first
    /// [`GROUP`] keys queried in lanes and only their absent keys set; once a group turns out
    /// mostly new keys (a filter being built), the rest of the chunk is set without a query
    /// through the prefetched walk, each group's words fetched while the group before sets its
    /// bits. Otherwise (re-puts, duplicates) the chunk is queried group by group.
    fn put_all_bytes_prefetched(&self, bits: &BitWriter<'_>, keys: PackedBytes<'_>) -> bool {
        let target = self.vector_target();
        let k = self.num_hashes() as usize;
        let mut hashes = GroupHashes::<QUERY_GROUP> {
            h1s: [0; QUERY_GROUP],
            h2s: [0; QUERY_GROUP],
        };
        let mut scratch = [0u64; GROUP * avx512::PREFETCHED_MAX_HASHES as usize];
        let mut lanes_to_set = [0u8; GROUP / 8];
        let mut changed = false;
        for first in (0..keys.len()).step_by(QUERY_GROUP) {
            let count = QUERY_GROUP.min(keys.len() - first);
            self.hash_keys(keys, first, count, &mut hashes);
            let (h1s, h2s) = (&hashes.h1s[..count], &hashes.h2s[..count]);
            let mut at = 0;
            while at < count {
                let group = GROUP.min(count - at);
                // SAFETY: the plan walks (`Put::Walk`) only with the lanes: a CPU with AVX-512
                // F and DQ, a bit filter in the vector path's range; `scratch` has 8 · k slots
                // per eight keys (k ≤ PREFETCHED_MAX_HASHES).
                let to_set = unsafe {
                    avx512::lane_indexes_of_absent(
                        target,
                        &h1s[at..at + group],
                        &h2s[at..at + group],
                        true,
                        &mut scratch,
                        &mut lanes_to_set,
                    )
                };
                if to_set > 0 {
                    changed |=
                        for_each_lane_index(&lanes_to_set, &scratch, k, |index| bits.set(index));
                }
                at += group;
                if 2 * to_set > group {
                    break;
                }
            }
            if at < count {
                // SAFETY: `Put::Walk` holds: the vector lanes and k ≤ PREFETCHED_MAX_HASHES.
                changed |= unsafe {
                    avx512::for_each_index_prefetched_hashed(
                        target,
                        &h1s[at..],
                        &h2s[at..],
                        |index| bits.set(index),
                    )
                };
            }
        }
        changed
    }

    /// `put_all_bytes` through a private word array ORed into the filter once per word (as the
    /// `long` batches do on a cache-resident filter that a batch fills densely): one store per
    /// word that gains a bit, none for words whose bits are all set already. With vector lanes
    /// each group is queried first and only its absent keys are walked again and accumulated
    /// (`avx512::lane_indexes_of_absent`): a batch the filter holds already allocates nothing
    /// and merges nothing. `None` if there is no memory for the private copy (at most
    /// `PREFETCH_MIN_BYTES`): the caller puts bit by bit.
    fn put_all_bytes_accumulated(
        &self,
        bits: &BitWriter<'_>,
        keys: PackedBytes<'_>,
    ) -> Option<bool> {
        let len_words = self.bits.len_words();
        // Allocated (and zeroed) when the first bit to set turns up.
        let mut private = Private {
            words: Vec::new(),
            len_words,
            out_of_memory: false,
        };
        if self.plan.lanes {
            let k = self.num_hashes() as usize;
            self.for_each_absent_group(keys, |lanes_to_set, scratch| {
                let Some(words) = private.words() else { return };
                for_each_lane_index(lanes_to_set, scratch, k, |index| {
                    words[(index >> 6) as usize] |= 1 << (index & 63);
                    false
                });
            });
        } else {
            self.for_each_group(keys, |_, count, hashes, scratch| {
                let indexes = self.group_indexes(hashes, count, scratch);
                if let Some(words) = private.words() {
                    for j in 0..count {
                        for index in indexes.of(j) {
                            words[(index >> 6) as usize] |= 1 << (index & 63);
                        }
                    }
                }
            });
        }
        if private.out_of_memory {
            return None;
        }
        Some(
            private
                .words
                .iter()
                .enumerate()
                .fold(false, |changed, (i, &word)| bits.or_word(i, word) | changed),
        )
    }

    /// Walks `keys` in groups of [`GROUP`] in AVX-512 lanes (the plan must have lanes), each
    /// group queried first, and calls `visit(lanes_to_set, indexes)` for each group with keys
    /// the filter does not hold: bit j of `lanes_to_set[h]` marks key 8·h + j, whose k indexes
    /// sit lane j of `indexes`' k vectors of eight from 8·k·h on. After a group that was mostly
    /// new keys the next [`UNQUERIED_AFTER_NEW`] are not queried (a filter being built: their
    /// query would only add probes) and all their keys count as absent.
    fn for_each_absent_group(
        &self,
        keys: PackedBytes<'_>,
        mut visit: impl FnMut(&[u8; GROUP / 8], &[u64]),
    ) {
        let target = self.vector_target();
        let mut unqueried = 0;
        let mut lanes_to_set = [0u8; GROUP / 8];
        self.for_each_group(keys, |_, count, hashes, scratch| {
            let query = unqueried == 0;
            // SAFETY: the plan has lanes only on a CPU with AVX-512 F and DQ and for a bit
            // filter in the vector path's range; the words live as long as `self`.
            let to_set = unsafe {
                avx512::lane_indexes_of_absent(
                    target,
                    &hashes.h1s[..count],
                    &hashes.h2s[..count],
                    query,
                    scratch,
                    &mut lanes_to_set,
                )
            };
            if !query {
                unqueried -= 1;
            } else if 2 * to_set > count {
                unqueried = UNQUERIED_AFTER_NEW;
            }
            if to_set > 0 {
                visit(&lanes_to_set, scratch);
            }
        });
    }

    /// `out[i] = might_contain_bytes(keys.get(i))`; `out` must have one slot per key.
    pub fn might_contain_all_bytes_into(
        &self,
        keys: PackedBytes<'_>,
        out: &mut [bool],
    ) -> Result<()> {
        super::check_answers_fit(out.len(), keys.len())?;
        if self.plan.query == Query::Gather {
            // As the `long` batches: gathers in lanes, up to filters L3 holds. Hashed
            // QUERY_GROUP keys at a time, so the walk screens them.
            let target = self.vector_target();
            let mut hashes = GroupHashes::<QUERY_GROUP> {
                h1s: [0; QUERY_GROUP],
                h2s: [0; QUERY_GROUP],
            };
            for first in (0..keys.len()).step_by(QUERY_GROUP) {
                let count = QUERY_GROUP.min(keys.len() - first);
                self.hash_keys(keys, first, count, &mut hashes);
                let out = &mut out[first..first + count];
                let (h1s, h2s) = (&hashes.h1s[..count], &hashes.h2s[..count]);
                // SAFETY: the plan has lanes only on a CPU with AVX-512 F and DQ (and
                // POPCNT) and for a filter in the vector path's range (`query_each_vector`);
                // the words live as long as `self`.
                unsafe {
                    avx512::query_hashes::<{ avx512::BIT_CELLS }>(
                        target,
                        h1s,
                        h2s,
                        |at, present| {
                            let answers = &ANSWERS_OF_MASK[present as usize];
                            let slots = &mut out[at..];
                            if slots.len() >= 8 {
                                // One 8-byte copy instead of eight shifts and stores.
                                slots[..8].copy_from_slice(answers);
                            } else {
                                slots.copy_from_slice(&answers[..slots.len()]);
                            }
                        },
                    )
                }
            }
            return Ok(());
        }
        self.for_each_group(keys, |first, count, hashes, scratch| {
            let out = &mut out[first..first + count];
            if self.plan.prefetch {
                let indexes = self.group_indexes(hashes, count, scratch);
                for (j, slot) in out.iter_mut().enumerate() {
                    // Every probe, no early exit: the loads are in flight anyway, and a
                    // miss's exit point is a branch no predictor learns.
                    *slot = indexes
                        .of(j)
                        .fold(true, |all, index| all & self.bits.get(index));
                }
            } else {
                for (j, slot) in out.iter_mut().enumerate() {
                    *slot = self.contains_hash(hashes.get(j));
                }
            }
        });
        Ok(())
    }

    /// [`might_contain_bytes`](Self::might_contain_bytes) of every key, in order.
    pub fn might_contain_all_bytes(&self, keys: PackedBytes<'_>) -> Vec<bool> {
        let mut out = vec![false; keys.len()];
        self.might_contain_all_bytes_into(keys, &mut out)
            .expect("one slot per key");
        out
    }

    /// For each group of keys in order: hashes the group, then
    /// `visit(first key's position, keys in the group, their hashes, index scratch)`.
    fn for_each_group(
        &self,
        keys: PackedBytes<'_>,
        mut visit: impl FnMut(usize, usize, &GroupHashes, &mut [u64]),
    ) {
        let mut hashes = GroupHashes {
            h1s: [0; GROUP],
            h2s: [0; GROUP],
        };
        // On the stack, nothing to allocate, so nothing to fail: 4 KiB for k ≤ 32 (the usual
        // filters), else 32 KiB (k = 255), zeroed once per batch only when needed.
        let k = self.num_hashes() as usize;
        let mut small = [0u64; GROUP * SMALL_K];
        let mut large;
        let scratch: &mut [u64] = if k <= SMALL_K {
            &mut small
        } else {
            large = [0u64; GROUP * sizing::MAX_NUM_HASHES as usize];
            &mut large
        };
        let mut first = 0;
        while first < keys.len() {
            let count = GROUP.min(keys.len() - first);
            self.hash_keys(keys, first, count, &mut hashes);
            visit(first, count, &hashes, scratch);
            first += count;
        }
    }

    /// The k indexes of each of the group's `count` keys (from the vector lanes where the
    /// filter has them, stored as the lanes hold them), prefetched if the filter is too large
    /// for cache.
    fn group_indexes<'s>(
        &self,
        hashes: &GroupHashes,
        count: usize,
        scratch: &'s mut [u64],
    ) -> GroupIndexes<'s> {
        let k = self.num_hashes() as usize;
        let indexes = if self.plan.lanes {
            let scratch = &mut scratch[..count.div_ceil(8) * 8 * k];
            // SAFETY: as in `might_contain_all_bytes_into`; `scratch` has 8 · k slots per eight
            // keys.
            unsafe {
                avx512::lane_indexes_of_absent(
                    self.vector_target(),
                    &hashes.h1s[..count],
                    &hashes.h2s[..count],
                    false,
                    scratch,
                    &mut [0; GROUP / 8],
                )
            };
            GroupIndexes {
                slots: scratch,
                k,
                stride: 8,
            }
        } else {
            let scratch = &mut scratch[..count * k];
            for (j, slots) in scratch.chunks_exact_mut(k).enumerate() {
                let mut filled = 0;
                self.indexer.for_each(hashes.get(j), |index| {
                    slots[filled] = index;
                    filled += 1;
                    true
                });
            }
            GroupIndexes {
                slots: scratch,
                k,
                stride: 1,
            }
        };
        if self.plan.prefetch {
            // (Lanes past the group's last key hold indexes of a zero hash: valid, unused.)
            indexes
                .slots
                .iter()
                .for_each(|&index| self.bits.prefetch(index));
        }
        indexes
    }
}

/// Calls `set` with each index of the lanes `lanes_to_set` marks (as
/// [`BloomFilter::for_each_absent_group`] gives them): all k of a key, for every marked key.
/// Returns the OR of `set`'s answers (whether it changed a bit), kept in a local rather than
/// in a flag the closure captures: the compiler cannot tell such a flag from the filter words
/// `set` stores to, so it would read and write it through memory at every index.
fn for_each_lane_index(
    lanes_to_set: &[u8; GROUP / 8],
    indexes: &[u64],
    k: usize,
    mut set: impl FnMut(u64) -> bool,
) -> bool {
    let mut changed = false;
    for (&lanes, indexes) in lanes_to_set.iter().zip(indexes.chunks_exact(8 * k)) {
        if lanes == 0xff {
            for &index in indexes {
                changed |= set(index);
            }
        } else if lanes != 0 {
            for eight in indexes.chunks_exact(8) {
                let mut rest = lanes;
                while rest != 0 {
                    changed |= set(eight[rest.trailing_zeros() as usize]);
                    rest &= rest - 1;
                }
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests;
