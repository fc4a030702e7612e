//! Batches of keys already hashed, for byte-string and string batches (whose keys the JNI layer
//! encodes one at a time into a reused buffer, so it hands over their hashes rather than the
//! keys): on filters too large for cache, the bit indexes of a group of keys are computed and
//! prefetched before any is read, overlapping the cache misses as `put_all(&[u64])` does;
//! smaller filters are probed key by key.

use super::BloomFilter;
use crate::hashing::Hash128;
use crate::sizing;

/// Hashes per group of computed and prefetched indexes (as the `u64` batches).
const GROUP: usize = 16;

impl BloomFilter {
    /// The hash that [`put_bytes`](Self::put_bytes) and
    /// [`might_contain_bytes`](Self::might_contain_bytes) walk for `key`.
    pub(crate) fn hash_of_bytes(&self, key: &[u8]) -> Hash128 {
        self.hash_key_bytes(key)
    }

    /// Puts every key whose [`hash_of_bytes`](Self::hash_of_bytes) is in `hashes`; returns
    /// whether any bit changed. Same bits as one `put_bytes` per key.
    pub(crate) fn put_all_hashes(&self, hashes: &[Hash128]) -> bool {
        if !self.prefetches() {
            return hashes
                .iter()
                .fold(false, |changed, &hash| self.put_hash(hash) | changed);
        }
        let mut changed = false;
        self.for_each_hash_indexed(hashes, |_, indexes| {
            for &index in indexes {
                changed |= self.bits.set(index);
            }
        });
        changed
    }

    /// `out[i]` = whether the key of `hashes[i]` might be in the filter; `out` is as long as
    /// `hashes`. Same answers as one `might_contain_bytes` per key.
    pub(crate) fn might_contain_all_hashes(&self, hashes: &[Hash128], out: &mut [bool]) {
        debug_assert_eq!(hashes.len(), out.len());
        if !self.prefetches() {
            for (answer, &hash) in out.iter_mut().zip(hashes) {
                *answer = self.contains_hash(hash);
            }
            return;
        }
        self.for_each_hash_indexed(hashes, |i, indexes| {
            out[i] = indexes.iter().all(|&index| self.bits.get(index));
        });
    }

    /// For groups of hashes: every bit index of the group, prefetched, then
    /// `visit(position, its k indexes)` for each.
    fn for_each_hash_indexed(&self, hashes: &[Hash128], mut visit: impl FnMut(usize, &[u64])) {
        let k = self.num_hashes() as usize;
        // On the stack (32 KiB at k = 255): nothing to allocate, so nothing to fail.
        let mut scratch = [0u64; GROUP * sizing::MAX_NUM_HASHES as usize];
        let scratch = &mut scratch[..GROUP * k];
        for (group_no, group) in hashes.chunks(GROUP).enumerate() {
            for (slots, &hash) in scratch.chunks_exact_mut(k).zip(group) {
                let mut filled = 0;
                self.indexer.for_each(hash, |index| {
                    slots[filled] = index;
                    filled += 1;
                    true
                });
            }
            for &index in &scratch[..group.len() * k] {
                self.bits.prefetch(index);
            }
            for (j, slots) in scratch.chunks_exact(k).take(group.len()).enumerate() {
                visit(group_no * GROUP + j, slots);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::BloomFilter;
    use crate::sizing::Shape;
    use crate::strategy::Strategy;
    use crate::testutil::splitmix64;

    #[test]
    fn hashed_batches_equal_single_byte_keys_for_every_strategy_and_size() {
        for strategy in (0..).map_while(Strategy::from_ordinal) {
            // below and above the prefetch threshold
            for num_bits in [1u64 << 14, 1 << 23] {
                let shape = Shape {
                    num_bits,
                    num_hashes: 7,
                };
                let batched = BloomFilter::with_shape(shape, strategy).unwrap();
                let single = BloomFilter::with_shape(shape, strategy).unwrap();
                let mut state = 14;
                let keys: Vec<Vec<u8>> = (0..5_000)
                    .map(|i| {
                        let x = splitmix64(&mut state);
                        x.to_le_bytes()[..(i % 9)].to_vec()
                    })
                    .collect();
                let (put, probe) = keys.split_at(2_000);
                let hashes: Vec<_> = put.iter().map(|k| batched.hash_of_bytes(k)).collect();
                assert!(batched.put_all_hashes(&hashes));
                for k in put {
                    single.put_bytes(k);
                }
                assert!(
                    batched.words().eq(single.words()),
                    "{strategy:?} {num_bits}"
                );
                let hashes: Vec<_> = probe.iter().map(|k| batched.hash_of_bytes(k)).collect();
                let mut out = vec![false; hashes.len()];
                batched.might_contain_all_hashes(&hashes, &mut out);
                for (k, &answer) in probe.iter().zip(&out) {
                    assert_eq!(single.might_contain_bytes(k), answer);
                }
                assert!(out.iter().any(|&a| !a) && out.iter().any(|&a| a));
            }
        }
    }
}
