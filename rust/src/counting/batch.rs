//! The counting filter's batched queries (`might_contain_all`, `retain_absent`) on the plain
//! filter's engine, by the path its plan (`kernels::CountingPlan`) chose: on cache-resident
//! filters, eight keys at a time in AVX-512 lanes or the AVX2 kernel's screened walk, testing
//! 4-bit counters instead of bits; on filters too large for cache, the screened prefetching
//! pipeline of `kernels::prefetched`; otherwise key by key.

use std::mem::MaybeUninit;

use super::CountingBloomFilter;
use crate::filter::batch::{fill_indexes, write_absent_by};
use crate::hashing::hash_u64;
use crate::kernels::{Query, avx2, avx512, prefetched};

impl CountingBloomFilter {
    /// `out[i] = might_contain(keys[i])`, by the plan's path.
    pub(super) fn write_answers(&self, keys: &[u64], out: &mut [bool]) {
        self.query_each(keys, |i, present| out[i] = present);
    }

    /// Writes the keys that are certainly not in the filter to the front of `spare`, in order;
    /// how many.
    pub(super) fn write_absent(&self, keys: &[u64], spare: &mut [MaybeUninit<u64>]) -> usize {
        write_absent_by(keys, spare, |chunk, answers| {
            self.write_answers(chunk, answers)
        })
    }

    /// The vector lanes' view of this filter, when its plan gives it them: a CPU with AVX-512
    /// F and DQ, MITZ_64 (the only walk the lanes know) and m in their exact-remainder range.
    pub(super) fn vector_target(&self) -> Option<avx512::Target> {
        self.plan.lanes.then(|| avx512::Target {
            words: self.counters.as_ptr(),
            num_bits: self.num_bits(),
            num_hashes: self.num_hashes(),
            wrap: self.indexer.wrap(),
        })
    }

    /// Calls `emit(i, might_contain(keys[i]))` for each key, in order, by the plan's path.
    pub(super) fn query_each(&self, keys: &[u64], mut emit: impl FnMut(usize, bool)) {
        let lanes = self.vector_target();
        match (self.plan.query, lanes) {
            (Query::Prefetched, lanes) => prefetched::query(
                keys,
                self.num_hashes(),
                |group, out| fill_indexes(&self.indexer, lanes, hash_u64, group, out),
                |index| self.counters.prefetch(index),
                |index| self.counters.get(index) != 0,
                emit,
            ),
            // SAFETY: a target exists only where the plan gives the lanes (see `vector_target`);
            // its words are the ⌈m/16⌉ counter words, alive as long as `self`.
            (Query::Gather, Some(target)) => unsafe {
                avx512::query::<{ avx512::COUNTER_CELLS }>(target, keys, |first, present| {
                    for j in 0..(keys.len() - first).min(8) {
                        emit(first + j, present >> j & 1 != 0);
                    }
                })
            },
            // SAFETY: the plan takes this path only with a CPU that runs the AVX2 kernel,
            // MITZ_64 and m in the walk's range; the words are the m counters', alive as long
            // as `self`, changed by concurrent updates only atomically.
            (Query::ScreenedAvx2, _) => unsafe {
                avx2::query::<true>(&self.indexer, self.counters.as_ptr(), keys, emit)
            },
            _ => keys
                .iter()
                .enumerate()
                .for_each(|(i, &key)| emit(i, self.might_contain(key))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Kernel;
    use crate::sizing::Shape;
    use crate::strategy::Strategy;
    use crate::testutil::{absent, splitmix64};

    /// Batched queries (vector lanes where the CPU has them, prefetching groups on large
    /// filters, the scalar loop elsewhere) against single-key queries: shapes below and at the
    /// lanes' lower bound, odd counter counts, k from 1 to 255, a filter past the prefetch
    /// threshold, both strategies; half-full filters, so keys fail at every probe; every tail
    /// length.
    #[test]
    fn batched_queries_agree_with_single_keys() {
        let mut state = 5;
        let shapes = [
            (avx512::MIN_BITS - 1, 3),
            (avx512::MIN_BITS, 1),
            (avx512::MIN_BITS + 17, 7),
            (143_776, 10),
            (100_003, 255),
            ((1 << 20) + 5, 4),
        ];
        for strategy in [Strategy::Murmur128Mitz64, Strategy::Murmur128Mitz32] {
            for (num_bits, num_hashes) in shapes {
                let shape = Shape {
                    num_bits,
                    num_hashes,
                };
                let f = CountingBloomFilter::with_shape(shape, strategy).unwrap();
                let kernel = crate::kernels::selected_or_best();
                assert_eq!(
                    f.plan.lanes,
                    strategy == Strategy::Murmur128Mitz64
                        && num_bits >= avx512::MIN_BITS
                        && kernel == Kernel::Avx512
                );
                assert_eq!(
                    f.plan.query == Query::Prefetched,
                    kernel != Kernel::Scalar && num_bits > 1 << 19
                );
                let half_full =
                    (num_bits as f64 * std::f64::consts::LN_2 / num_hashes as f64) as usize;
                let added: Vec<u64> = (0..half_full).map(|_| splitmix64(&mut state)).collect();
                f.add_all(&added);
                for len in (0..=40).chain([4096, 5003]) {
                    let probe: Vec<u64> = (0..len)
                        .map(|i| {
                            if i % 2 == 0 {
                                added[splitmix64(&mut state) as usize % added.len()]
                            } else {
                                splitmix64(&mut state)
                            }
                        })
                        .collect();
                    let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
                    assert!(single.iter().step_by(2).all(|&p| p), "no false negatives");
                    assert_eq!(f.might_contain_all(&probe), single, "m={num_bits}");
                    let mut into = vec![false; len];
                    f.might_contain_all_into(&probe, &mut into).unwrap();
                    assert_eq!(into, single);
                    assert_eq!(f.retain_absent(&probe), absent(&probe, &single));
                }
            }
        }
    }

    /// A counter that drops back to zero reads absent in the lanes too (the cell is the whole
    /// nibble, not its low bit): counts of 2 are nonzero with bit 0 clear.
    #[test]
    fn lanes_test_whole_counters() {
        let f = CountingBloomFilter::new(10_000, 0.001).unwrap();
        let keys: Vec<u64> = (0..1_000).collect();
        f.add_all(&keys);
        f.add_all(&keys);
        assert!(f.might_contain_all(&keys).iter().all(|&p| p));
        assert_eq!(f.remove_all(&keys), 1_000);
        assert_eq!(f.remove_all(&keys), 1_000);
        assert_eq!(f.nonzero_counters(), 0);
        assert!(f.might_contain_all(&keys).iter().all(|&p| !p));
    }
}
