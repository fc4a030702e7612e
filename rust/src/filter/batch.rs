//! The batch engine behind `put_all`, `might_contain_all` and `retain_absent`: the filter's
//! plan (`kernels::Plan`) picks the kernel; here are the paths around the kernels: groups of
//! keys whose bit indexes are computed together (eight at a time in AVX-512 lanes where the
//! plan has them), prefetched on filters too large for cache, accumulated privately on small
//! filters that a batch fills densely, and the answers written eight at a time.

use super::BloomFilter;
use crate::bit_array::BitWriter;
use crate::hashing::Hash128;
pub(crate) use crate::kernels::PREFETCH_MIN_BYTES;
use crate::kernels::{Isa, Put, Query, avx2, avx512, blocked, portable, prefetched, scalar};
use crate::sizing;
use crate::strategy::Indexer;
use std::mem::MaybeUninit;

/// Keys per group of computed (and prefetched) indexes: with the next group prefetched while
/// this one is visited, enough lines in flight to cover memory latency, no more than the core
/// tracks.
const GROUP: usize = 8;
/// Keys per group when nothing is prefetched (cache-resident filters): two vectors of eight,
/// one `fill` call each.
const CACHED_GROUP: usize = 16;
/// Keys `write_absent_by` asks answers for at a time: 4 KB of answers on the stack, so a
/// 4096-key batch (the JVM's `retainAbsent` calls in the benchmarks) is one chunk and the
/// prefetched pipeline does not restart within it.
const ABSENT_CHUNK: usize = 4096;
/// Batched updates of a cache-resident filter accumulate privately once they average this
/// many per word: the private copy is zeroed and scanned whole, which pays where the walks
/// that update the filter in place cost several plain updates per bit (and a counter word's
/// compare-and-swap does).
const ACCUMULATE_MIN_UPDATES_PER_WORD: usize = 2;

/// Whether a batch of `batch_len` keys, `num_hashes` updates each, into a filter of `words`
/// words goes through a private copy first: the filter is cache-resident and the batch
/// updates it densely. Shared by the plain and the counting filter's batches.
pub(crate) fn accumulates(words: usize, batch_len: usize, num_hashes: u32) -> bool {
    words * 8 <= PREFETCH_MIN_BYTES
        && batch_len.saturating_mul(num_hashes as usize) >= ACCUMULATE_MIN_UPDATES_PER_WORD * words
}

/// `len` zeroed words for a batch's private copy, or `None` without memory for them.
pub(crate) fn private_words(len: usize) -> Option<Vec<u64>> {
    let mut private = Vec::new();
    private.try_reserve_exact(len).ok()?;
    private.resize(len, 0u64);
    Some(private)
}

/// The eight answers of each lane mask (bit j: key j is present), copied whole into the
/// answers where the mask's eight keys are: one 8-byte copy in place of eight shifts (2 KiB).
pub(super) const ANSWERS_OF_MASK: [[bool; 8]; 256] = {
    let mut table = [[false; 8]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut j = 0;
        while j < 8 {
            table[mask][j] = mask >> j & 1 != 0;
            j += 1;
        }
        mask += 1;
    }
    table
};

impl BloomFilter {
    /// `put_all` through the prefetched vector walk (the plan's [`Put::Walk`]): each group's
    /// words are fetched while the group before sets its bits.
    pub(super) fn put_all_prefetched(&self, bits: &BitWriter<'_>, keys: &[u64]) -> bool {
        debug_assert_eq!(self.plan.put, Put::Walk);
        // SAFETY: the plan walks only with the AVX-512 lanes (a CPU with AVX-512 F and DQ, a
        // shape in their range) and k ≤ PREFETCHED_MAX_HASHES.
        unsafe {
            avx512::for_each_index_prefetched(self.vector_target(), keys, |index| bits.set(index))
        }
    }

    /// Whether a batch of `batch_len` keys sets enough bits per word of a cache-resident
    /// filter that ORing them into a private array first, then each word once into the
    /// filter, beats setting each bit in place.
    pub(super) fn accumulates(&self, batch_len: usize) -> bool {
        accumulates(self.bits.len_words(), batch_len, self.num_hashes())
    }

    /// `put_all` through a private word array, ORed into the filter once per word.
    pub(super) fn put_all_accumulated(&self, bits: &BitWriter<'_>, keys: &[u64]) -> bool {
        let accumulated =
            self.accumulate_privately(bits, |private| match self.plan.accumulate_walk {
                // SAFETY: the plan walks in the AVX2 build only where the CPU has AVX2; `private`
                // holds the filter's words.
                Some(Isa::Avx2) => unsafe { avx2::accumulate(&self.indexer, keys, private) },
                Some(_) => portable::accumulate(&self.indexer, keys, private),
                None => self.for_each_indexed(keys, false, |_, indexes| {
                    for &index in indexes {
                        private[(index >> 6) as usize] |= 1 << (index & 63);
                    }
                }),
            });
        // No memory for the private copy (at most PREFETCH_MIN_BYTES): put bit by bit.
        accumulated.unwrap_or_else(|| self.put_each(bits, keys))
    }

    /// Runs `fill` on a zeroed private copy of the filter's words, then ORs each nonzero word
    /// into the filter with `bits`: whether any bit changed, or `None` when there was no memory
    /// for the copy (nothing put).
    pub(super) fn accumulate_privately(
        &self,
        bits: &BitWriter<'_>,
        fill: impl FnOnce(&mut [u64]),
    ) -> Option<bool> {
        let mut private = private_words(self.bits.len_words())?;
        fill(&mut private);
        Some(
            private
                .iter()
                .enumerate()
                .fold(false, |changed, (i, &word)| bits.or_word(i, word) | changed),
        )
    }

    /// Calls `emit(i, might_contain(keys[i]))` for each key, in order, by the plan's path
    /// (batches that can take their answers eight at a time use [`query_groups`] instead).
    ///
    /// [`query_groups`]: Self::query_groups
    pub(super) fn query_each(&self, keys: &[u64], emit: impl FnMut(usize, bool)) {
        let (bits, k) = (&self.bits, self.num_hashes());
        match self.plan.query {
            Query::OneByOne => scalar::query(
                &self.indexer,
                &self.bits,
                keys,
                |key| self.hash_key(key),
                emit,
            ),
            Query::Prefetched => self.query_each_prefetched(keys, emit),
            Query::Screened => portable::query(&self.indexer, bits, keys, emit),
            // SAFETY: the plan walks in the AVX2 build only where the CPU has AVX2 and for
            // MITZ_64 filters of m in its range; the words live as long as `self`.
            Query::ScreenedAvx2 => unsafe {
                avx2::query::<false>(&self.indexer, bits.as_ptr(), keys, emit)
            },
            Query::Gather | Query::Walk => self.query_each_vector(keys, emit),
            Query::Blocked(isa) => blocked::query(isa, bits, k, self.plan.prefetch, keys, emit),
        }
    }

    /// Calls `visit(first, present)` for each group of up to eight keys, in order: bit j of
    /// `present` answers `might_contain(keys[first + j])`. Only where the plan queries in
    /// lanes.
    fn query_groups(&self, keys: &[u64], visit: impl FnMut(usize, u8)) {
        let target = self.vector_target();
        // SAFETY: the plan queries in lanes only on a CPU with AVX-512 F and DQ and for a
        // filter of at least MIN_BITS bits (at most MAX_NUM_BITS = 2^43, k ≥ 1:
        // `check_shape`); the words live as long as `self`; its walk adds k ≤
        // PREFETCHED_MAX_HASHES.
        unsafe {
            match self.plan.query {
                Query::Walk => avx512::query_prefetched(target, keys, visit),
                Query::Gather => avx512::query::<{ avx512::BIT_CELLS }>(target, keys, visit),
                other => unreachable!("{other:?} takes no answers in groups"),
            }
        }
    }

    /// `out[i] = might_contain(keys[i])`, eight answers at a time; `out` is as long as `keys`.
    pub(super) fn write_answers(&self, keys: &[u64], out: &mut [bool]) {
        assert_eq!(out.len(), keys.len(), "one answer per key");
        if !self.plan.queries_in_lanes() {
            // Answers come key by key: no mask built from them.
            return self.query_each(keys, |i, present| out[i] = present);
        }
        self.query_groups(keys, |first, present| {
            let answers = &mut out[first..keys.len().min(first + 8)];
            let all = &ANSWERS_OF_MASK[present as usize];
            if let Ok(answers) = <&mut [bool; 8]>::try_from(&mut *answers) {
                *answers = *all;
                return;
            }
            answers.copy_from_slice(&all[..answers.len()]);
        });
    }

    /// Appends the keys the filter does not contain to `out`'s spare room, in order, and
    /// returns how many: eight answers at a time, the absent keys of each eight written with
    /// one compress and one store where the plan queries in AVX-512 lanes.
    pub(super) fn write_absent(&self, keys: &[u64], spare: &mut [MaybeUninit<u64>]) -> usize {
        assert!(spare.len() >= keys.len(), "room for every key");
        let mut kept = 0;
        if self.plan.queries_in_lanes() {
            let out = spare.as_mut_ptr().cast::<u64>();
            self.query_groups(keys, |first, present| {
                let group = &keys[first..keys.len().min(first + 8)];
                // SAFETY: the plan queries in lanes only on a CPU with AVX-512 F and DQ; kept
                // ≤ first (each earlier key was written at most once), so the group's absent
                // keys fit in the room of `keys.len()` slots.
                kept += unsafe { avx512::write_absent(group, present, out.add(kept)) };
            });
            return kept;
        }
        write_absent_by(keys, spare, |chunk, answers| {
            self.write_answers(chunk, answers)
        })
    }

    /// [`query_groups`](Self::query_groups), answer by answer.
    fn query_each_vector(&self, keys: &[u64], mut emit: impl FnMut(usize, bool)) {
        self.query_groups(keys, |first: usize, present: u8| {
            for j in 0..(keys.len() - first).min(8) {
                emit(first + j, present >> j & 1 != 0);
            }
        });
    }

    pub(super) fn vector_target(&self) -> avx512::Target {
        avx512::Target {
            words: self.bits.as_ptr(),
            num_bits: self.num_bits(),
            num_hashes: self.num_hashes(),
            wrap: self.indexer.wrap(),
        }
    }

    /// Groups' indexes computed, screened and tested with prefetching (filters beyond cache).
    fn query_each_prefetched(&self, keys: &[u64], emit: impl FnMut(usize, bool)) {
        let lanes = self.plan.lanes.then(|| self.vector_target());
        prefetched::query(
            keys,
            self.num_hashes(),
            |group, out| fill_indexes(&self.indexer, lanes, |key| self.hash_key(key), group, out),
            |index| self.bits.prefetch(index),
            |index| self.bits.get(index),
            emit,
        );
    }

    /// For groups of keys: computes every bit index of the group (eight keys at a time in
    /// vector lanes where the plan has them), prefetches them if `prefetch`, then calls
    /// `visit(key position, its k indexes)` for each key of the group.
    pub(super) fn for_each_indexed(
        &self,
        keys: &[u64],
        prefetch: bool,
        visit: impl FnMut(usize, &[u64]),
    ) {
        let lanes = self.plan.lanes.then(|| self.vector_target());
        for_each_indexed(
            keys,
            self.num_hashes(),
            |group, out| fill_indexes(&self.indexer, lanes, |key| self.hash_key(key), group, out),
            prefetch.then_some(|index| self.bits.prefetch(index)),
            visit,
        );
    }
}

/// For groups of keys: `fill(group, out)` writes each key's k indexes (`out[j * k + i]` = the
/// i-th index of `group[j]`), `prefetch` (if any) is called on every index of the group, then
/// `visit(key position, its k indexes)` for each key of the group. With `prefetch`, a group's
/// indexes are computed and prefetched while the previous group is still to be visited, so its
/// misses are in flight during that visit, not waited for all at once after it. Shared by the
/// plain and the counting filter's batches.
pub(crate) fn for_each_indexed(
    keys: &[u64],
    num_hashes: u32,
    mut fill: impl FnMut(&[u64], &mut [u64]),
    prefetch: Option<impl Fn(u64)>,
    mut visit: impl FnMut(usize, &[u64]),
) {
    let k = num_hashes as usize;
    let Some(prefetch) = prefetch else {
        // On the stack (32 KiB at k = 255): nothing to allocate, so nothing to fail.
        let mut scratch = [0u64; CACHED_GROUP * sizing::MAX_NUM_HASHES as usize];
        let scratch = &mut scratch[..CACHED_GROUP * k];
        for (group_no, group) in keys.chunks(CACHED_GROUP).enumerate() {
            fill(group, scratch);
            for (j, slots) in scratch.chunks_exact(k).take(group.len()).enumerate() {
                visit(group_no * CACHED_GROUP + j, slots);
            }
        }
        return;
    };
    // On the stack (32 KiB at k = 255): nothing to allocate, so nothing to fail. Two halves:
    // the group being visited and the next one, already prefetched.
    let mut scratch = [0u64; 2 * GROUP * sizing::MAX_NUM_HASHES as usize];
    let (current, next) = scratch.split_at_mut(GROUP * sizing::MAX_NUM_HASHES as usize);
    let (mut current, mut next) = (&mut current[..GROUP * k], &mut next[..GROUP * k]);
    let mut groups = keys.chunks(GROUP).enumerate().peekable();
    let mut fill_and_prefetch = |group: &[u64], out: &mut [u64]| {
        fill(group, out);
        out[..group.len() * k]
            .iter()
            .for_each(|&index| prefetch(index));
    };
    if let Some(&(_, first)) = groups.peek() {
        fill_and_prefetch(first, current);
    }
    while let Some((group_no, group)) = groups.next() {
        if let Some(&(_, following)) = groups.peek() {
            fill_and_prefetch(following, next);
        }
        for (j, slots) in current.chunks_exact(k).take(group.len()).enumerate() {
            visit(group_no * GROUP + j, slots);
        }
        std::mem::swap(&mut current, &mut next);
    }
}

/// `out[j * k + i]` = the i-th index of `keys[j]`: from the AVX-512 lanes when `lanes` is given
/// (MITZ_64 only), else from `indexer`'s walk over `hash(key)`.
pub(crate) fn fill_indexes(
    indexer: &Indexer,
    lanes: Option<avx512::Target>,
    hash: impl Fn(u64) -> Hash128,
    keys: &[u64],
    out: &mut [u64],
) {
    if let Some(target) = lanes {
        // SAFETY: a target is only made for a filter whose plan has lanes: a CPU with
        // AVX-512 F and DQ and a shape in the vector path's range (see `query_each_vector`);
        // `out` has room for k indexes per key.
        unsafe { avx512::indexes(target, keys, out) }
        return;
    }
    let k = indexer.num_hashes() as usize;
    for (slots, &key) in out.chunks_exact_mut(k).zip(keys) {
        let mut filled = 0;
        indexer.for_each(hash(key), |index| {
            slots[filled] = index;
            filled += 1;
            true
        });
    }
}

/// Appends to `out` the keys `write` keeps, in order: `write` is given room for every key of
/// `keys` (reserved first) and returns how many it wrote to the front of it.
pub(crate) fn append_absent(
    keys: &[u64],
    out: &mut Vec<u64>,
    write: impl FnOnce(&mut [MaybeUninit<u64>]) -> usize,
) {
    out.reserve(keys.len());
    let kept = write(&mut out.spare_capacity_mut()[..keys.len()]);
    debug_assert!(kept <= keys.len(), "at most one slot a key");
    // SAFETY: `write` wrote the first `kept` spare slots, all within the room reserved.
    unsafe { out.set_len(out.len() + kept) };
}

/// Writes the keys whose answer is "absent" to the front of `spare`, in order, and returns
/// how many; `answer` writes the answers (true: present) of up to [`ABSENT_CHUNK`] keys at a
/// time. The answers come into a local array so that the count stays in a register: counted
/// inside a kernel's callback (a function of its own where it is compiled for AVX2) it lives in
/// memory, one store-to-load round trip a key.
pub(crate) fn write_absent_by(
    keys: &[u64],
    spare: &mut [MaybeUninit<u64>],
    mut answer: impl FnMut(&[u64], &mut [bool]),
) -> usize {
    assert!(spare.len() >= keys.len(), "room for every key");
    let mut answers = [false; ABSENT_CHUNK];
    let mut kept = 0;
    for chunk in keys.chunks(ABSENT_CHUNK) {
        let answers = &mut answers[..chunk.len()];
        answer(chunk, answers);
        // Every key is written to the next free slot and kept by advancing past it: no branch
        // on the answer, which is a coin flip on a dedup's mix of seen and new keys.
        for (&key, &present) in chunk.iter().zip(answers.iter()) {
            spare[kept].write(key);
            kept += usize::from(!present);
        }
    }
    kept
}

#[cfg(test)]
mod tests;
