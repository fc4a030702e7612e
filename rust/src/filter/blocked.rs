//! The BLOCKED layout: every bit of a key inside one 512-bit block (one 64-byte cache line), so
//! a query touches one line where the classic layouts touch k.
//!
//! Where a key's bits go is `blocked_layout`'s; the batches locate and prefetch the keys'
//! blocks (`kernels::blocked`), then read or set each key's k bits in its cached line.

use super::BloomFilter;
use crate::bit_array::BitWriter;
use crate::blocked_layout::for_each_position;
use crate::blocked_sizing::BLOCK_BITS;
use crate::error::{Error, Result};
use crate::kernels::{Isa, blocked};
use crate::sizing::Shape;
use crate::strategy::Strategy;

const WORDS_PER_BLOCK: usize = (BLOCK_BITS / 64) as usize;

/// A BLOCKED filter's bits are whole blocks: m must be a multiple of 512.
pub(crate) fn check_shape(shape: Shape, strategy: Strategy) -> Result<()> {
    if strategy.layout().is_blocked() && !shape.num_bits.is_multiple_of(BLOCK_BITS) {
        return Err(Error::invalid(
            "numBits",
            format!(
                "{} is not a multiple of {BLOCK_BITS}, the block size of {strategy} filters",
                shape.num_bits
            ),
        ));
    }
    Ok(())
}

/// The bits a key with second hash `h2` sets in its block, as the block's eight words.
#[inline(always)]
fn block_masks(h2: u64, k: u32) -> [u64; WORDS_PER_BLOCK] {
    let mut masks = [0u64; WORDS_PER_BLOCK];
    for_each_position(h2, k, |position| {
        masks[(position / 64) as usize] |= 1 << (position % 64);
        true
    });
    masks
}

impl BloomFilter {
    /// `put_all` for BLOCKED: each key's k bits gathered into its block's eight words, then
    /// ORed in: into a private copy where the batch fills a cache-resident filter densely (then
    /// into each word of the filter that gains a bit), else into the filter, the blocks of the
    /// keys ahead prefetched, one store per word of the block that gains a bit.
    pub(super) fn blocked_put_all(&self, isa: Isa, bits: &BitWriter<'_>, keys: &[u64]) -> bool {
        let (k, prefetch) = (self.num_hashes(), self.plan.prefetch);
        if self.accumulates(keys.len()) {
            let accumulated = self.accumulate_privately(bits, |private| {
                blocked::for_each_block(isa, &self.bits, prefetch, keys, |_, base, h2| {
                    let first = (base / 64) as usize;
                    let block = &mut private[first..first + WORDS_PER_BLOCK];
                    for (word, mask) in block.iter_mut().zip(block_masks(h2, k)) {
                        *word |= mask;
                    }
                });
            });
            if let Some(changed) = accumulated {
                return changed;
            }
        }
        let mut changed = false;
        blocked::for_each_block(isa, &self.bits, prefetch, keys, |_, base, h2| {
            let first = (base / 64) as usize;
            let masks = block_masks(h2, k);
            // The words that gain a bit, found without a branch (the block is cached), then
            // visited by their bit in `gaining`: one loop exit to predict per key, where a test
            // per word would be eight coin flips as the filter fills.
            let mut gaining = 0u32;
            for (w, &mask) in masks.iter().enumerate() {
                gaining |= u32::from(self.bits.word(first + w) & mask != mask) << w;
            }
            while gaining != 0 {
                let w = gaining.trailing_zeros() as usize;
                changed |= bits.or_word(first + w, masks[w]);
                gaining &= gaining - 1;
            }
        });
        changed
    }

    /// The probability that a key never put is reported present, given the bits set now: the
    /// mean over blocks of (bits set in the block / 512)^k. (X/m)^k would understate it: the
    /// fuller blocks answer "maybe" more often than the average one.
    pub(super) fn blocked_expected_fpp(&self) -> f64 {
        let k = self.num_hashes() as i32;
        let words: Vec<u64> = self.words().collect();
        let sum: f64 = words
            .chunks_exact(WORDS_PER_BLOCK)
            .map(|block| {
                let set: u32 = block.iter().map(|w| w.count_ones()).sum();
                (set as f64 / BLOCK_BITS as f64).powi(k)
            })
            .sum();
        sum / (words.len() / WORDS_PER_BLOCK) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocked_layout::for_each_index;
    use crate::testutil::{absent, splitmix64};

    fn blocked(n: u64, p: f64) -> BloomFilter {
        BloomFilter::with_strategy(n, p, Strategy::Blocked).unwrap()
    }

    #[test]
    fn every_bit_of_a_key_lies_in_one_block() {
        let f = blocked(100_000, 0.001);
        let mut state = 5;
        for _ in 0..10_000 {
            let hash = f.hash_key(splitmix64(&mut state));
            let mut blocks = Vec::new();
            for_each_index(f.num_bits(), f.num_hashes(), hash, |i| {
                blocks.push(i / BLOCK_BITS);
                true
            });
            assert_eq!(blocks.len(), f.num_hashes() as usize);
            assert!(
                blocks
                    .iter()
                    .all(|&b| b == blocks[0] && b < f.num_bits() / 512)
            );
        }
    }

    /// Fields past the seventh come from remixed words: with k = 30 (five words per key) the
    /// positions still cover the block evenly.
    #[test]
    fn positions_are_spread_over_the_block() {
        let mut counts = [0u32; 512];
        let mut state = 3;
        for _ in 0..20_000 {
            for_each_position(splitmix64(&mut state), 30, |p| {
                counts[p as usize] += 1;
                true
            });
        }
        // 600,000 draws over 512 cells: mean 1171.9, σ ≈ 34.2; 6σ bounds.
        assert!(
            counts.iter().all(|&c| (966..=1378).contains(&c)),
            "{:?}",
            counts.iter().minmax()
        );
    }

    trait MinMax {
        fn minmax(self) -> (u32, u32);
    }
    impl<'a, I: Iterator<Item = &'a u32>> MinMax for I {
        fn minmax(self) -> (u32, u32) {
            self.fold((u32::MAX, 0), |(lo, hi), &c| (lo.min(c), hi.max(c)))
        }
    }

    #[test]
    fn batches_agree_with_single_keys() {
        // A cache-resident filter and one large enough to prefetch.
        for (n, p) in [(10_000, 0.01), (1_000_000, 0.01), (3_000, 1e-6)] {
            let f = blocked(n, p);
            assert_eq!(f.plan.prefetch, n == 1_000_000);
            let mut state = n;
            let keys: Vec<u64> = (0..(n as usize).min(200_000))
                .map(|_| splitmix64(&mut state))
                .collect();
            let half = keys.len() / 2;
            let mut rest = &keys[..half];
            for batch in [1, 5, 33, 4096].into_iter().cycle() {
                let (now, later) = rest.split_at(batch.min(rest.len()));
                f.put_all(now);
                rest = later;
                if rest.is_empty() {
                    break;
                }
            }
            let g = blocked(n, p);
            keys[..half].iter().for_each(|&k| {
                g.put(k);
            });
            assert!(f == g, "put_all sets the bits put does");
            let single: Vec<bool> = keys.iter().map(|&k| f.might_contain(k)).collect();
            assert!(single[..half].iter().all(|&b| b), "no false negatives");
            assert_eq!(f.might_contain_all(&keys), single);
            assert_eq!(f.retain_absent(&keys), absent(&keys, &single));
            assert!(!f.put_all(&keys[..half]), "nothing changes the second time");
        }
    }

    /// Seeded: n keys at their design load, 10^6 other keys probed. The sizing's expected FPP
    /// is at most p, and the observed count of false positives is binomial around it:
    /// σ = √(N·p) at most, so 1.1·p is ≥ 10σ above p at N = 10^6, p = 1 %, 0.1 % (≥ 3σ).
    #[test]
    fn observed_fpp_meets_the_requested_p() {
        for (n, p) in [(100_000u64, 0.01), (200_000, 0.001), (50_000, 0.1)] {
            let f = blocked(n, p);
            let mut state = 17;
            let keys: Vec<u64> = (0..n).map(|_| splitmix64(&mut state)).collect();
            f.put_all(&keys);
            let probes = 1_000_000u64;
            let mut state = 1 << 40;
            let probe: Vec<u64> = (0..probes).map(|_| splitmix64(&mut state)).collect();
            let positives = f.might_contain_all(&probe).iter().filter(|&&b| b).count();
            let observed = positives as f64 / probes as f64;
            assert!(observed <= 1.1 * p, "n={n} p={p}: observed {observed}");
            // The model is tight, not only an upper bound: within 5σ of the filter's own
            // expected FPP (its blocks as they are), a test that the layout's positions are as
            // independent as the sizing assumes.
            let expected = f.expected_fpp();
            let sigma = (expected / probes as f64).sqrt();
            assert!(
                (observed - expected).abs() <= 5.0 * sigma,
                "n={n} p={p}: observed {observed}, expected {expected}"
            );
            let count = f.approximate_element_count() as f64;
            assert!(
                (count / n as f64 - 1.0).abs() < 0.02,
                "estimated {count} of {n}"
            );
        }
    }

    /// Dense and sparse round trips; version 5 in the header, so readers of versions 1–4
    /// refuse the file by its version; a header that pairs BLOCKED with another version, or
    /// m with a partial block, is refused.
    #[test]
    fn sparkbloom_format_round_trips_as_version_5() {
        use crate::format;
        let f = blocked(10_000, 0.01);
        let sparse = format::encode(&f);
        assert_eq!((sparse[4], sparse[5], sparse[6]), (5, 4, 1));
        assert_eq!(format::decode(&sparse).unwrap(), f);
        f.put_all(&(0..10_000).collect::<Vec<u64>>());
        let dense = format::encode(&f);
        assert_eq!((dense[4], dense[5], dense[6]), (5, 4, 0));
        let back = format::decode(&dense).unwrap();
        assert_eq!(back, f);
        assert_eq!(back.strategy(), Strategy::Blocked);
        assert!((0..10_000).all(|k| back.might_contain(k)));
        let reheader = |bytes: &[u8], at: usize, value: u8| {
            let mut bytes = bytes[..bytes.len() - 4].to_vec();
            bytes[at] = value;
            crate::format::checksum_append_for_tests(&mut bytes);
            format::decode(&bytes).unwrap_err().to_string()
        };
        assert!(reheader(&dense, 4, 1).contains("version"));
        assert!(reheader(&dense, 5, 1).contains("version"));
        assert!(reheader(&dense, 4, 6).contains("unknown format version 6"));
        let mut odd = dense[..dense.len() - 4].to_vec();
        let m = f.num_bits() - 64;
        odd[8..16].copy_from_slice(&m.to_le_bytes());
        odd[16..24].copy_from_slice(&(m / 8).to_le_bytes());
        odd.truncate(odd.len() - 8);
        crate::format::checksum_append_for_tests(&mut odd);
        let err = format::decode(&odd).unwrap_err().to_string();
        assert!(err.contains("multiple of 512"), "{err}");
    }

    #[test]
    fn guava_spark_redis_and_counting_refuse_blocked() {
        use crate::format::{guava, redis_bitmap, spark_sketch};
        let f = blocked(1_000, 0.01);
        for err in [
            guava::encode(&f).unwrap_err(),
            spark_sketch::encode(&f).unwrap_err(),
            redis_bitmap::encode(&f).unwrap_err(),
            redis_bitmap::decode(&[], f.shape(), Strategy::Blocked).unwrap_err(),
            crate::CountingBloomFilter::with_strategy(1_000, 0.01, Strategy::Blocked).unwrap_err(),
        ] {
            assert!(err.to_string().contains("BLOCKED"), "{err}");
        }
        // Guava's stream with ordinal 4 is not a strategy of Guava's.
        let mut stream = guava::encode(&BloomFilter::new(1_000, 0.01).unwrap()).unwrap();
        stream[0] = 4;
        assert!(
            guava::decode(&stream)
                .unwrap_err()
                .to_string()
                .contains("strategy")
        );
    }

    #[test]
    fn shapes_must_be_whole_blocks() {
        let shape = Shape {
            num_bits: 512 * 3 + 64,
            num_hashes: 5,
        };
        let err = BloomFilter::with_shape(shape, Strategy::Blocked).unwrap_err();
        assert!(err.to_string().contains("multiple of 512"), "{err}");
        assert!(BloomFilter::from_words(vec![0; 9], 5, Strategy::Blocked).is_err());
        assert!(BloomFilter::from_words(vec![0; 16], 5, Strategy::Blocked).is_ok());
        assert!(BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).is_ok());
    }

    #[test]
    fn union_and_intersect_need_the_same_strategy() {
        let a = blocked(10_000, 0.01);
        let b = blocked(10_000, 0.01);
        a.put_all(&[1, 2, 3]);
        b.put_all(&[3, 4]);
        a.union(&b).unwrap();
        assert!([1, 2, 3, 4].iter().all(|&k| a.might_contain(k)));
        a.intersect(&b).unwrap();
        assert!(a.might_contain(3) && a.might_contain(4));
        let classic = BloomFilter::with_shape(a.shape(), Strategy::Murmur128Mitz64).unwrap();
        assert!(
            a.union(&classic)
                .unwrap_err()
                .to_string()
                .contains("BLOCKED")
        );
        assert_eq!(a.try_clone().unwrap(), a);
    }
}
