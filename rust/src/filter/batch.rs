//! The batch engine behind `put_all`, `might_contain_all` and `retain_absent`: the filter's
//! plan (`kernels::Plan`) picks the kernel; here are the paths around the kernels: groups of
//! keys whose bit indexes are computed together (eight at a time in AVX-512 lanes where the
//! plan has them), prefetched on filters too large for cache, accumulated privately on small
//! filters that a batch fills densely, and the answers written eight at a time.

use super::{BloomFilter, avx512};
use crate::hashing::Hash128;
pub(crate) use crate::kernels::PREFETCH_MIN_BYTES;
use crate::kernels::{Put, Query, portable, prefetched, scalar};
use crate::sizing;
use crate::strategy::Indexer;

/// Keys per group of computed (and prefetched) indexes: with the next group prefetched while
/// this one is visited, enough lines in flight to cover memory latency, no more than the core
/// tracks.
const GROUP: usize = 8;
/// Keys per group when nothing is prefetched (cache-resident filters): two vectors of eight,
/// one `fill` call each.
const CACHED_GROUP: usize = 16;
/// Batched puts into a cache-resident filter accumulate privately once they average this
/// many bits per word: a locked OR costs several plain ones.
const ACCUMULATE_MIN_BITS_PER_WORD: usize = 2;

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
    pub(super) fn put_all_prefetched(&self, keys: &[u64]) -> bool {
        debug_assert_eq!(self.plan.put, Put::Walk);
        // SAFETY: the plan walks only with the AVX-512 lanes (a CPU with AVX-512 F and DQ, a
        // shape in their range) and k ≤ PREFETCHED_MAX_HASHES.
        unsafe {
            avx512::for_each_index_prefetched(self.vector_target(), keys, |index| {
                self.bits.set(index)
            })
        }
    }

    /// Whether a batch of `batch_len` keys sets enough bits per word of a cache-resident
    /// filter that ORing them into a private array first, then each word once atomically,
    /// beats one locked OR per bit.
    pub(super) fn accumulates(&self, batch_len: usize) -> bool {
        let words = self.bits.len_words();
        words * 8 <= PREFETCH_MIN_BYTES
            && batch_len.saturating_mul(self.num_hashes() as usize)
                >= ACCUMULATE_MIN_BITS_PER_WORD * words
    }

    /// `put_all` through a private word array, ORed into the filter once per word.
    pub(super) fn put_all_accumulated(&self, keys: &[u64]) -> bool {
        let mut private = Vec::new();
        if private.try_reserve_exact(self.bits.len_words()).is_err() {
            // No memory for the private copy (at most PREFETCH_MIN_BYTES): put bit by bit.
            return keys
                .iter()
                .fold(false, |changed, &key| self.put(key) | changed);
        }
        private.resize(self.bits.len_words(), 0u64);
        if let Some(avx2) = self.plan.accumulate_walk {
            portable::accumulate(avx2, &self.indexer, keys, &mut private);
        } else {
            self.for_each_indexed(keys, false, |_, indexes| {
                for &index in indexes {
                    private[(index >> 6) as usize] |= 1 << (index & 63);
                }
            });
        }
        private
            .iter()
            .enumerate()
            .fold(false, |changed, (i, &bits)| {
                self.bits.or_word(i, bits) | changed
            })
    }

    /// Calls `emit(i, might_contain(keys[i]))` for each key, in order, by the plan's path
    /// (batches that can take their answers eight at a time use [`query_groups`] instead).
    ///
    /// [`query_groups`]: Self::query_groups
    pub(super) fn query_each(&self, keys: &[u64], emit: impl FnMut(usize, bool)) {
        if self.indexer.layout().is_blocked() {
            return self.blocked_query_each(keys, emit);
        }
        match self.plan.query {
            Query::OneByOne => scalar::query(
                &self.indexer,
                &self.bits,
                keys,
                |key| self.hash_key(key),
                emit,
            ),
            Query::Prefetched => self.query_each_prefetched(keys, emit),
            Query::Screened => portable::query(false, &self.indexer, &self.bits, keys, emit),
            Query::ScreenedAvx2 => portable::query(true, &self.indexer, &self.bits, keys, emit),
            Query::Gather | Query::Walk => self.query_each_vector(keys, emit),
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
    pub(super) fn write_absent(
        &self,
        keys: &[u64],
        spare: &mut [std::mem::MaybeUninit<u64>],
    ) -> usize {
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
        // Every key is written to the next free slot and kept by advancing past it: no branch
        // on the answer, which is a coin flip on a dedup's mix of seen and new keys.
        self.query_each(keys, |i, present| {
            spare[kept].write(keys[i]);
            kept += usize::from(!present);
        });
        kept
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::VECTOR_PREFETCH_MIN_BYTES;
    use crate::kernels::{self, Kernel};
    use crate::sizing::Shape;
    use crate::strategy::Strategy;
    use crate::testutil::splitmix64;

    /// `put_all_unshared` (plain read-modify-writes) sets the bits one `put` per key sets and
    /// reports the same change, on each path: cache-resident lanes, the prefetched walk (a filter
    /// over `VECTOR_PREFETCH_MIN_BYTES`), accumulated batches (many keys per word), the scalar
    /// path (k above the walk's limit) and BLOCKED, cache-resident and prefetched.
    #[test]
    fn unshared_puts_set_the_bits_puts_set() {
        let mut state = 11;
        let large = (VECTOR_PREFETCH_MIN_BYTES as u64 * 8) + 64 * 5;
        let shapes = [
            (
                Shape {
                    num_bits: 143_776,
                    num_hashes: 10,
                },
                Strategy::Murmur128Mitz64,
                200,
            ),
            (
                Shape {
                    num_bits: 143_776,
                    num_hashes: 10,
                },
                Strategy::Murmur128Mitz64,
                9_000,
            ),
            (
                Shape {
                    num_bits: large,
                    num_hashes: 7,
                },
                Strategy::Murmur128Mitz64,
                200_000,
            ),
            (
                Shape {
                    num_bits: large,
                    num_hashes: 40,
                },
                Strategy::Murmur128Mitz32,
                20_000,
            ),
            (
                Shape {
                    num_bits: 1 << 20,
                    num_hashes: 7,
                },
                Strategy::Blocked,
                50_000,
            ),
            (
                Shape {
                    num_bits: VECTOR_PREFETCH_MIN_BYTES as u64 * 8,
                    num_hashes: 6,
                },
                Strategy::Blocked,
                200_000,
            ),
        ];
        for (shape, strategy, count) in shapes {
            let unshared = BloomFilter::with_shape(shape, strategy).unwrap();
            let one_by_one = BloomFilter::with_shape(shape, strategy).unwrap();
            let keys: Vec<u64> = (0..count).map(|_| splitmix64(&mut state)).collect();
            for batch in keys.chunks(4096) {
                let single = batch
                    .iter()
                    .fold(false, |changed, &k| one_by_one.put(k) | changed);
                assert_eq!(
                    unshared.put_all_unshared(batch),
                    single,
                    "{strategy} {shape:?}"
                );
            }
            assert!(unshared == one_by_one, "{strategy} {shape:?}");
            assert!(
                !unshared.put_all_unshared(&keys[..keys.len().min(1000)]),
                "keys put again change nothing"
            );
        }
    }

    /// `len` keys alternating between keys of `put` (even positions, picked at random) and
    /// fresh ones (odd positions): a dedup's 50/50 mix of seen and new.
    fn half_put(put: &[u64], len: usize, state: &mut u64) -> Vec<u64> {
        (0..len)
            .map(|i| {
                if i % 2 == 0 {
                    put[splitmix64(state) as usize % put.len()]
                } else {
                    splitmix64(state)
                }
            })
            .collect()
    }

    /// The keys of `probe` whose answer in `single` is "absent", in order.
    fn absent_of(probe: &[u64], single: &[bool]) -> Vec<u64> {
        probe
            .iter()
            .zip(single)
            .filter(|&(_, &present)| !present)
            .map(|(&k, _)| k)
            .collect()
    }

    #[test]
    fn batch_paths_agree_with_single_key_paths() {
        for (n, p) in [(10_000, 0.001), (1_000_000, 0.01)] {
            let f = BloomFilter::new(n, p).unwrap();
            assert_eq!(f.plan.prefetch, n == 1_000_000);
            let mut state = n;
            let keys: Vec<u64> = (0..5_000).map(|_| splitmix64(&mut state)).collect();
            assert!(f.put_all(&keys[..2_500]));
            let probe: Vec<u64> = keys.iter().rev().copied().collect();
            let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
            assert_eq!(f.might_contain_all(&probe), single);
            let absent: Vec<u64> = probe
                .iter()
                .copied()
                .filter(|&k| !f.might_contain(k))
                .collect();
            assert_eq!(f.retain_absent(&probe), absent);
            assert!(keys[..2_500].iter().all(|k| !absent.contains(k)));
            let g = BloomFilter::new(n, p).unwrap();
            keys[..2_500].iter().for_each(|&k| {
                g.put(k);
            });
            assert_eq!(f, g, "put_all sets the same bits as put");
        }
    }

    /// Answers written eight at a time (`write_answers`, `write_absent`) against single keys,
    /// for batches of every length from 0 to 40 and past a chunk, in patterns that stress the
    /// groups: all hits, all misses, alternating, one key repeated, and runs of each; with
    /// the vector lanes and without, classic and BLOCKED, cached, gathered beyond cache and
    /// walked with prefetching; appended
    /// after keys already in the output.
    #[test]
    fn group_answers_agree_with_single_keys() {
        let mut state = 2024;
        for strategy in [Strategy::Murmur128Mitz64, Strategy::Blocked] {
            // In cache; above PREFETCH_MIN_BYTES (gathers); above VECTOR_PREFETCH_MIN_BYTES
            // (the prefetched walk).
            for (n, p) in [(10_000, 0.001), (1_000_000, 0.01), (4_000_000, 0.01)] {
                let f = BloomFilter::with_strategy(n, p, strategy).unwrap();
                let put: Vec<u64> = (0..n).map(|_| splitmix64(&mut state)).collect();
                f.put_all(&put);
                let scalar = f.clone().on_kernel(Kernel::Scalar);
                let hit = |state: &mut u64| put[splitmix64(state) as usize % put.len()];
                let repeated = put[7];
                for len in (0..=40).chain([255, 256, 257, 4099]) {
                    let patterns: [Vec<u64>; 5] = [
                        (0..len).map(|_| hit(&mut state)).collect(),
                        (0..len).map(|_| splitmix64(&mut state)).collect(),
                        (0..len)
                            .map(|i| {
                                if i % 2 == 0 {
                                    hit(&mut state)
                                } else {
                                    splitmix64(&mut state)
                                }
                            })
                            .collect(),
                        vec![repeated; len],
                        (0..len)
                            .map(|i| {
                                if (i / 5) % 2 == 0 {
                                    splitmix64(&mut state)
                                } else {
                                    hit(&mut state)
                                }
                            })
                            .collect(),
                    ];
                    for probe in &patterns {
                        let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
                        let absent = absent_of(probe, &single);
                        for filter in [&f, &scalar] {
                            assert_eq!(filter.might_contain_all(probe), single, "len {len}");
                            let mut out = vec![false; len];
                            filter.might_contain_all_into(probe, &mut out).unwrap();
                            assert_eq!(out, single);
                            let mut appended = vec![1, 2, 3];
                            filter.retain_absent_into(probe, &mut appended);
                            assert_eq!(appended[..3], [1, 2, 3]);
                            assert_eq!(appended[3..], absent, "len {len}");
                        }
                    }
                    assert!(
                        patterns[0].iter().all(|&k| f.might_contain(k)),
                        "no false negatives"
                    );
                    assert_eq!(f.retain_absent(&patterns[0]), Vec::<u64>::new());
                    assert_eq!(f.retain_absent(&patterns[3]), Vec::<u64>::new());
                }
            }
        }
    }

    /// The AVX-512 batch paths (where the CPU has them) and the scalar batch paths against
    /// single-key puts and queries, which take the scalar walk: shapes at the vector
    /// remainder's lower bound, odd word counts, k from 1 to 255, m above 2^32; filters half
    /// full, so keys fail at every probe; every tail length.
    #[test]
    fn vector_batches_agree_with_single_keys() {
        let mut state = 99;
        let shapes = [
            (avx512::MIN_BITS, 1),
            (avx512::MIN_BITS + 64, 7),
            (143_808, 10),
            (100_032, 255),
            (1 << 20, 3),
            ((1 << 24) + 64 * 1001, 23),
            ((1 << 32) + 64 * 3, 4),
        ];
        for (num_bits, num_hashes) in shapes {
            let shape = Shape {
                num_bits,
                num_hashes,
            };
            let f = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
            assert_eq!(f.plan.lanes, kernels::selected_or_best() == Kernel::Avx512);
            let half_full = ((num_bits as f64 * std::f64::consts::LN_2 / num_hashes as f64)
                as usize)
                .min(200_000);
            let put: Vec<u64> = (0..half_full).map(|_| splitmix64(&mut state)).collect();
            // Batches of every size class: a tail-only group, odd groups, accumulated batches.
            let mut rest = &put[..];
            for batch in [1, 5, 17, 64, 4096].into_iter().cycle() {
                let (now, later) = rest.split_at(batch.min(rest.len()));
                f.put_all(now);
                rest = later;
                if rest.is_empty() {
                    break;
                }
            }
            let scalar = f.clone().on_kernel(Kernel::Scalar);
            let one_by_one = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
            put.iter().for_each(|&k| {
                one_by_one.put(k);
            });
            assert!(
                f == one_by_one,
                "put_all sets the bits put does, m={num_bits}"
            );
            for len in (0..=40).chain([4096, 5003]) {
                let probe = half_put(&put, len, &mut state);
                let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
                assert_eq!(
                    f.might_contain_all(&probe),
                    single,
                    "m={num_bits} k={num_hashes}"
                );
                assert_eq!(scalar.might_contain_all(&probe), single);
                let absent = absent_of(&probe, &single);
                assert_eq!(f.retain_absent(&probe), absent);
                assert_eq!(scalar.retain_absent(&probe), absent);
                assert!(single.iter().step_by(2).all(|&p| p), "no false negatives");
            }
        }
    }

    /// The screened walk (`avx512/screened.rs`: batches of 64 keys and more, k above the
    /// probes screened) against the scalar batch path and single keys: k at, just above and
    /// far above the screen, batch lengths around the screen's threshold, its passes and its
    /// blocks of sixteen, all hits, all misses and 50/50 on a half-full filter (so misses
    /// fail at every probe, before, at and after the screen).
    #[test]
    fn screened_batches_agree_with_single_keys() {
        let mut state = 4242;
        for (num_bits, num_hashes) in [
            (avx512::MIN_BITS + 64 * 3, 3),
            (143_776, 4),
            (143_776, 5),
            (143_776, 10),
            (200_000, 64),
            (100_032, 255),
        ] {
            let shape = Shape {
                num_bits,
                num_hashes,
            };
            let f = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
            let half_full = (num_bits as f64 * std::f64::consts::LN_2 / num_hashes as f64) as usize;
            let put: Vec<u64> = (0..half_full).map(|_| splitmix64(&mut state)).collect();
            f.put_all(&put);
            let scalar = f.clone().on_kernel(Kernel::Scalar);
            for len in (62..=82).chain([255, 256, 257, 511, 513, 1000, 4099]) {
                let hits: Vec<u64> = (0..len)
                    .map(|_| put[splitmix64(&mut state) as usize % put.len()])
                    .collect();
                let misses: Vec<u64> = (0..len).map(|_| splitmix64(&mut state)).collect();
                for probe in [hits, misses, half_put(&put, len, &mut state)] {
                    let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
                    assert_eq!(
                        f.might_contain_all(&probe),
                        single,
                        "k={num_hashes} len {len}"
                    );
                    assert_eq!(scalar.might_contain_all(&probe), single);
                    let absent = absent_of(&probe, &single);
                    assert_eq!(f.retain_absent(&probe), absent, "k={num_hashes} len {len}");
                }
            }
        }
    }

    /// The screened walk's survivors carried from pass to pass (a pass's last ones short of a
    /// pair of vectors walk with the next pass's): passes with no survivor, with fewer than a
    /// pair (carried, and the next pass too short to take them), with a few pairs and one
    /// over, and a batch's last pass short, on a sparsely filled filter where a miss almost
    /// never survives the screen, so the hits placed set each pass's survivors; against
    /// single keys and the scalar batch path.
    #[test]
    fn screened_survivors_carried_across_passes_agree_with_single_keys() {
        let mut state = 99;
        let shape = Shape {
            num_bits: 143_776,
            num_hashes: 10,
        };
        let f = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
        let put: Vec<u64> = (0..500).map(|_| splitmix64(&mut state)).collect();
        f.put_all(&put);
        let scalar = f.clone().on_kernel(Kernel::Scalar);
        // Hits per pass of 256 keys, cycled over the passes.
        for hits_per_pass in [
            vec![0],
            vec![1],
            vec![15, 0, 0, 1],
            vec![16],
            vec![17, 3],
            vec![31, 33, 0, 7],
            vec![5, 40, 0, 255, 256, 2],
        ] {
            for len in [64, 255, 256, 257, 300, 512, 700, 1024, 1300, 2049] {
                let probe: Vec<u64> = (0..len)
                    .map(|i| {
                        let hits = hits_per_pass[i / 256 % hits_per_pass.len()];
                        if i % 256 * 7 % 256 < hits {
                            put[splitmix64(&mut state) as usize % put.len()]
                        } else {
                            splitmix64(&mut state)
                        }
                    })
                    .collect();
                let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
                let context = format!("hits per pass {hits_per_pass:?}, len {len}");
                assert_eq!(f.might_contain_all(&probe), single, "{context}");
                assert_eq!(scalar.might_contain_all(&probe), single, "{context}");
                let absent = absent_of(&probe, &single);
                assert_eq!(f.retain_absent(&probe), absent, "{context}");
            }
        }
    }

    /// The prefetched vector walk (filters of at least VECTOR_PREFETCH_MIN_BYTES, k up to its
    /// limit; above it the scalar path) against single-key puts and queries: k at and around
    /// the number of indexes screened first, batches shorter than the walk's pipeline and of
    /// every tail length, keys present and absent on a filter filled to its design load (so
    /// absent keys fail at every probe position).
    #[test]
    fn prefetched_walks_agree_with_single_keys() {
        let num_bits = (VECTOR_PREFETCH_MIN_BYTES as u64 * 8) + 64 * 3;
        let mut state = 7;
        for num_hashes in [1, 2, 3, 7, avx512::PREFETCHED_MAX_HASHES, 33] {
            let shape = Shape {
                num_bits,
                num_hashes,
            };
            let f = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
            assert_eq!(
                f.plan.put == Put::Walk,
                kernels::selected_or_best() == Kernel::Avx512
                    && num_hashes <= avx512::PREFETCHED_MAX_HASHES
            );
            let design = (num_bits as f64 * std::f64::consts::LN_2 / num_hashes as f64) as usize;
            let put: Vec<u64> = (0..design.min(300_000))
                .map(|_| splitmix64(&mut state))
                .collect();
            let one_by_one = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
            let mut rest = &put[..];
            for batch in [1, 7, 8, 9, 23, 40, 4096, 10_000].into_iter().cycle() {
                let (now, later) = rest.split_at(batch.min(rest.len()));
                let single = now
                    .iter()
                    .fold(false, |changed, &k| one_by_one.put(k) | changed);
                assert_eq!(f.put_all(now), single, "k={num_hashes}");
                rest = later;
                if rest.is_empty() {
                    break;
                }
            }
            assert!(
                f == one_by_one,
                "put_all sets the bits put does, k={num_hashes}"
            );
            // Every bit of these reads set: the walk skips each one's locked OR.
            assert!(!f.put_all(&put[..5003]), "keys put again change nothing");
            assert!(f == one_by_one);
            for len in (0..=50).chain([4096, 5003]) {
                let probe = half_put(&put, len, &mut state);
                let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
                assert_eq!(f.might_contain_all(&probe), single, "k={num_hashes}");
                assert!(single.iter().step_by(2).all(|&p| p), "no false negatives");
                if len > 100 {
                    let absent = single.iter().skip(1).step_by(2).filter(|&&p| !p).count();
                    assert!(absent > len / 4, "the absent keys are mostly absent");
                }
                let absent = absent_of(&probe, &single);
                assert_eq!(f.retain_absent(&probe), absent);
            }
        }
    }
}
