//! Batched adds and removes on a cache-resident counting filter: a batch's updates are counted
//! first in a private copy of the counter words, then each word that changes is updated once,
//! one compare-and-swap for its sixteen counters (`counters::saturating_add` and
//! `saturating_sub`), where one key at a time takes a compare-and-swap per counter.
//!
//! The result is the one the keys' `add` (or `remove`) one by one gives: a counter's
//! increments saturate at 15 in any order, and each removal's check ("might the key be
//! present?") reads the counters as the batch's earlier removals left them. A private count
//! stops at 15 too, which changes nothing: a counter is at most 15.

use super::CountingBloomFilter;
use super::counters::{MAX, PER_WORD};
use crate::filter::batch::{self, fill_indexes, for_each_indexed, private_words};
use crate::hashing::hash_u64;

/// Counter `index`'s count in the private words.
#[inline(always)]
fn count(private: &[u64], index: u64) -> u8 {
    (private[(index / PER_WORD) as usize] >> (index % PER_WORD * 4)) as u8 & MAX
}

/// Adds one to counter `index`'s count in the private words, unless it is 15: no branch.
#[inline(always)]
fn count_one(private: &mut [u64], index: u64) {
    let shift = index % PER_WORD * 4;
    let word = &mut private[(index / PER_WORD) as usize];
    *word += u64::from(*word >> shift & 15 != 15) << shift;
}

impl CountingBloomFilter {
    /// Whether a batch of `batch_len` keys updates a cache-resident filter densely enough to
    /// count privately first (never for the scalar kernel, the reference: key by key).
    pub(super) fn accumulates(&self, batch_len: usize) -> bool {
        self.plan.accumulate
            && batch::accumulates(self.counters.len_words(), batch_len, self.num_hashes())
    }

    /// `add_all` counted privately: whether any counter changed, or `None` (nothing added)
    /// when there is no memory for the private words.
    pub(super) fn add_all_accumulated(&self, keys: &[u64]) -> Option<bool> {
        let mut private = private_words(self.counters.len_words())?;
        self.for_each_key_indexes(keys, |indexes| {
            indexes
                .iter()
                .for_each(|&index| count_one(&mut private, index));
        });
        Some(
            private
                .iter()
                .enumerate()
                .filter(|&(_, &counts)| counts != 0)
                .fold(false, |changed, (i, &counts)| {
                    self.counters.add_to_word(i, counts) | changed
                }),
        )
    }

    /// `remove_all` counted privately: how many keys were possibly present, hence removed, or
    /// `None` (nothing removed) when there is no memory for the private words.
    pub(super) fn remove_all_accumulated(&self, keys: &[u64]) -> Option<u64> {
        let mut private = private_words(self.counters.len_words())?;
        let mut removed = 0;
        self.for_each_key_indexes(keys, |indexes| {
            // Present if every counter is nonzero after the batch's earlier removals: above
            // its pending decrements, or saturated (never decremented).
            let present = indexes.iter().fold(true, |present, &index| {
                let counter = self.counters.get(index);
                present & (counter == MAX || counter > count(&private, index))
            });
            if present {
                removed += 1;
                indexes
                    .iter()
                    .for_each(|&index| count_one(&mut private, index));
            }
        });
        private
            .iter()
            .enumerate()
            .filter(|&(_, &counts)| counts != 0)
            .for_each(|(i, &counts)| self.counters.subtract_from_word(i, counts));
        Some(removed)
    }

    /// Calls `visit(its k indexes)` for each key, in order; the indexes are computed a group
    /// at a time (in AVX-512 lanes where the filter has them).
    fn for_each_key_indexes(&self, keys: &[u64], mut visit: impl FnMut(&[u64])) {
        let lanes = self.vector_target();
        for_each_indexed(
            keys,
            self.num_hashes(),
            |group, out| fill_indexes(&self.indexer, lanes, hash_u64, group, out),
            None::<fn(u64)>,
            |_, indexes| visit(indexes),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{self, Kernel};
    use crate::sizing::Shape;
    use crate::strategy::Strategy;
    use crate::testutil::splitmix64;

    /// Batches counted privately against the same keys one by one on the scalar kernel (the
    /// reference): the same counters and the same answers, with keys added up to 40 times
    /// (saturated counters), removals of keys never added and of keys already removed, and
    /// both strategies.
    #[test]
    fn accumulated_batches_equal_keys_one_by_one() {
        let mut state = 3;
        for strategy in [Strategy::Murmur128Mitz64, Strategy::Murmur128Mitz32] {
            for (num_bits, num_hashes) in [(20_000, 7), (143_776, 10), (50_000, 150)] {
                let shape = Shape {
                    num_bits,
                    num_hashes,
                };
                let batched = CountingBloomFilter::with_shape(shape, strategy).unwrap();
                let reference = CountingBloomFilter::with_shape(shape, strategy)
                    .unwrap()
                    .with_kernel(Kernel::Scalar);
                let pool: Vec<u64> = (0..3_000).map(|_| splitmix64(&mut state)).collect();
                for round in 0..40 {
                    let batch: Vec<u64> = (0..4096)
                        .map(|_| pool[splitmix64(&mut state) as usize % pool.len()])
                        .collect();
                    let remove: Vec<u64> = (0..4096)
                        .map(|i| {
                            if i % 3 == 0 {
                                splitmix64(&mut state)
                            } else {
                                pool[splitmix64(&mut state) as usize % pool.len()]
                            }
                        })
                        .collect();
                    assert_eq!(
                        batched.accumulates(batch.len()),
                        kernels::selected_or_best() != Kernel::Scalar
                    );
                    assert_eq!(batched.add_all(&batch), reference.add_all(&batch));
                    if round % 2 == 1 {
                        assert_eq!(batched.remove_all(&remove), reference.remove_all(&remove));
                    }
                    assert!(
                        batched.counters.words().eq(reference.counters.words()),
                        "{strategy} m={num_bits} k={num_hashes} round {round}"
                    );
                }
            }
        }
    }

    /// Four threads add and remove disjoint keys in batches that count privately, at once:
    /// every removal of a key still held is granted, and the counters equal the sequential
    /// result (each word's update is atomic, and sums and floors of one's own counts commute).
    /// That holds while no interleaving saturates a counter: a counter that reaches 15 stays
    /// there by design, so where it does depends on the order. Each key counts at most once at
    /// any moment here, so no counter ever exceeds the one every key added once gives, which
    /// is checked to saturate none.
    #[test]
    fn concurrent_batches_equal_the_sequential_result() {
        const THREADS: u64 = 4;
        const PER_THREAD: usize = 10_000;
        let shared = CountingBloomFilter::new(THREADS * PER_THREAD as u64, 0.01).unwrap();
        assert_eq!(
            shared.accumulates(PER_THREAD),
            kernels::selected_or_best() != Kernel::Scalar
        );
        let keys_of = |t: u64| -> Vec<u64> {
            let mut state = 7 + t;
            (0..PER_THREAD).map(|_| splitmix64(&mut state)).collect()
        };
        let bound = CountingBloomFilter::new(THREADS * PER_THREAD as u64, 0.01).unwrap();
        (0..THREADS).for_each(|t| {
            bound.add_all(&keys_of(t));
        });
        assert_eq!(bound.saturated_counters(), 0, "no interleaving saturates");
        let run = |f: &CountingBloomFilter, keys: &[u64]| {
            let thirds: Vec<u64> = keys.iter().step_by(3).copied().collect();
            f.add_all(keys);
            assert_eq!(f.remove_all(&thirds), thirds.len() as u64);
            f.add_all(&thirds);
            assert_eq!(f.remove_all(&keys[..PER_THREAD / 2]), PER_THREAD as u64 / 2);
        };
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let shared = &shared;
                scope.spawn(move || run(shared, &keys_of(t)));
            }
        });
        let sequential = CountingBloomFilter::new(THREADS * PER_THREAD as u64, 0.01).unwrap();
        (0..THREADS).for_each(|t| run(&sequential, &keys_of(t)));
        assert_eq!(sequential.saturated_counters(), 0);
        assert!(
            shared == sequential,
            "concurrent batches equal the sequential ones"
        );
    }
}
