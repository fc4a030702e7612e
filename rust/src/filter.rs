//! The Bloom filter: Guava's bit placement over a thread-safe bit array.

use crate::batch_avx512;
use crate::bit_array::BitArray;
use crate::error::{Error, Result};
use crate::hashing::{Hash128, hash_bytes, hash_u64};
use crate::sizing::{self, Shape};
use crate::strategy::{Indexer, Strategy};

/// A Bloom filter whose bits sit exactly where Guava's `BloomFilter` puts them, for 64-bit keys
/// (`Funnels.longFunnel()`), byte strings (`Funnels.byteArrayFunnel()`) and UTF-8 strings
/// (`Funnels.stringFunnel(UTF_8)`).
///
/// All operations take `&self`: puts are atomic word ORs, so one filter can be filled and
/// queried from many threads at once with no lost bits and no false negatives.
pub struct BloomFilter {
    bits: BitArray,
    shape: Shape,
    strategy: Strategy,
    indexer: Indexer,
    /// Batched operations hash and walk eight keys at a time in AVX-512 lanes
    /// (`batch_avx512`): the CPU has them, the strategy is MITZ_64, and the filter is large
    /// enough for the vector remainder.
    vector_lanes: bool,
}

/// Batched operations on filters larger than this prefetch all of a group's bits before
/// reading any, overlapping the cache misses; smaller filters live in cache anyway.
const PREFETCH_MIN_BYTES: usize = 256 * 1024;
/// Keys per group of computed (and prefetched) indexes: enough misses in flight to hide
/// memory latency; two vectors of eight.
const GROUP: usize = 16;
/// Batched puts into a cache-resident filter accumulate privately once they average this
/// many bits per word: a locked OR costs several plain ones.
const ACCUMULATE_MIN_BITS_PER_WORD: usize = 2;

impl BloomFilter {
    /// The filter Guava's `BloomFilter.create(longFunnel(), n, p)` builds: same m, same k,
    /// strategy `MURMUR128_MITZ_64`.
    pub fn new(expected_insertions: u64, fpp: f64) -> Result<BloomFilter> {
        BloomFilter::with_shape(
            sizing::shape_for(expected_insertions, fpp)?,
            Strategy::Murmur128Mitz64,
        )
    }

    /// A new filter of `strategy` sized for (n, p): Guava 33.8's shape for MITZ_64, Guava
    /// 14.0.1's for MITZ_32 (see [`sizing::shape_for_strategy`]).
    pub fn with_strategy(
        expected_insertions: u64,
        fpp: f64,
        strategy: Strategy,
    ) -> Result<BloomFilter> {
        BloomFilter::with_shape(
            sizing::shape_for_strategy(expected_insertions, fpp, strategy)?,
            strategy,
        )
    }

    /// An empty filter of the given shape; `shape.num_bits` must lie in
    /// 1..=[`sizing::MAX_NUM_BITS`] (any count: the Redis helper's layout sizes m without
    /// rounding to whole words; the bits of the last word at or above m stay zero) and
    /// `shape.num_hashes` in 1..=255.
    pub fn with_shape(shape: Shape, strategy: Strategy) -> Result<BloomFilter> {
        check_shape(shape)?;
        BloomFilter::from_bits(
            BitArray::zeroed(shape.num_bits.div_ceil(64) as usize)?,
            shape,
            strategy,
        )
    }

    /// A filter of `shape` over existing words (bit b in word b >> 6 at bit b & 63), taken
    /// without copying: exactly ceil(m / 64) words, every bit at or above m clear.
    pub fn from_words_with_shape(
        words: Vec<u64>,
        shape: Shape,
        strategy: Strategy,
    ) -> Result<BloomFilter> {
        check_shape(shape)?;
        check_words_fit(&words, shape.num_bits)?;
        BloomFilter::from_bits(BitArray::from_words(words), shape, strategy)
    }

    /// A filter over existing 64-bit words (bit b in word b >> 6 at bit b & 63), taken
    /// without copying.
    pub fn from_words(words: Vec<u64>, num_hashes: u32, strategy: Strategy) -> Result<BloomFilter> {
        let shape = Shape {
            num_bits: (words.len() as u64).saturating_mul(64),
            num_hashes,
        };
        check_shape(shape)?;
        BloomFilter::from_bits(BitArray::from_words(words), shape, strategy)
    }

    fn from_bits(bits: BitArray, shape: Shape, strategy: Strategy) -> Result<BloomFilter> {
        debug_assert_eq!(bits.len_words() as u64, shape.num_bits.div_ceil(64));
        let num_bits = shape.num_bits;
        Ok(BloomFilter {
            bits,
            shape,
            strategy,
            indexer: Indexer::new(num_bits, shape.num_hashes, strategy),
            // Bit counts that are not whole words (Redis helper layouts) stay on the scalar walk.
            vector_lanes: strategy == Strategy::Murmur128Mitz64
                && num_bits >= batch_avx512::MIN_BITS
                && num_bits.is_multiple_of(64)
                && batch_avx512::available(),
        })
    }

    pub fn num_bits(&self) -> u64 {
        self.shape.num_bits
    }

    pub fn num_hashes(&self) -> u32 {
        self.shape.num_hashes
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Adds a 64-bit key; returns whether any bit changed (Guava's `put`). Under concurrent
    /// puts of the same key both may return `true`, as in Guava.
    #[inline]
    pub fn put(&self, key: u64) -> bool {
        self.put_hash(hash_u64(key))
    }

    pub fn put_bytes(&self, key: &[u8]) -> bool {
        self.put_hash(hash_bytes(key))
    }

    pub fn put_str(&self, key: &str) -> bool {
        self.put_bytes(key.as_bytes())
    }

    /// `false` means `key` was certainly never put; `true` means it probably was.
    #[inline]
    pub fn might_contain(&self, key: u64) -> bool {
        self.contains_hash(hash_u64(key))
    }

    pub fn might_contain_bytes(&self, key: &[u8]) -> bool {
        self.contains_hash(hash_bytes(key))
    }

    pub fn might_contain_str(&self, key: &str) -> bool {
        self.might_contain_bytes(key.as_bytes())
    }

    /// Adds every key; returns whether any bit changed.
    pub fn put_all(&self, keys: &[u64]) -> bool {
        if self.accumulates(keys.len()) {
            return self.put_all_accumulated(keys);
        }
        if !self.prefetches() && !self.vector_lanes {
            return keys
                .iter()
                .fold(false, |changed, &key| self.put(key) | changed);
        }
        let mut changed = false;
        self.for_each_indexed(keys, self.prefetches(), |_, indexes| {
            for &index in indexes {
                changed |= self.bits.set(index);
            }
        });
        changed
    }

    /// `out[i] = might_contain(keys[i])`; `out` must be as long as `keys`.
    pub fn might_contain_all_into(&self, keys: &[u64], out: &mut [bool]) -> Result<()> {
        if out.len() != keys.len() {
            return Err(Error::invalid(
                "out",
                format!("has {} slots for {} keys", out.len(), keys.len()),
            ));
        }
        self.query_each(keys, |i, present| out[i] = present);
        Ok(())
    }

    pub fn might_contain_all(&self, keys: &[u64]) -> Vec<bool> {
        let mut out = vec![false; keys.len()];
        self.query_each(keys, |i, present| out[i] = present);
        out
    }

    /// The keys that are certainly not in the filter, in their original order: the dedup step
    /// "keep the recommendations this user has not seen".
    pub fn retain_absent(&self, keys: &[u64]) -> Vec<u64> {
        let mut out = Vec::new();
        self.retain_absent_into(keys, &mut out);
        out
    }

    /// Appends to `out` the keys that are certainly not in the filter, in order. With room
    /// reserved for every key, it never allocates.
    pub fn retain_absent_into(&self, keys: &[u64], out: &mut Vec<u64>) {
        self.query_each(keys, |i, present| {
            if !present {
                out.push(keys[i]);
            }
        });
    }

    /// ORs `other` into `self` (set union). Both must have the same m, k and strategy. Safe
    /// beside concurrent puts into either filter: bits are only ever added.
    pub fn union(&self, other: &BloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        (0..self.bits.len_words()).for_each(|i| {
            self.bits.or_word(i, other.bits.word(i));
        });
        Ok(())
    }

    /// ANDs `other` into `self`: answers "probably in both". Same requirements as [`union`](Self::union).
    ///
    /// Safe beside concurrent puts into either filter, with no false negatives: each word is
    /// ANDed as if in one indivisible step at some instant during the call (bits put into
    /// `self` during the call may survive it), so a key that is in both filters when
    /// `intersect` returns is reported present. `f.intersect(&f)` changes nothing.
    pub fn intersect(&self, other: &BloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        if std::ptr::eq(self, other) {
            return Ok(());
        }
        (0..self.bits.len_words()).for_each(|i| self.bits.intersect_word(i, &other.bits));
        Ok(())
    }

    /// An independent copy; allocation failure (or a copy beyond the process's memory limit)
    /// is an error, where [`Clone`] panics.
    pub fn try_clone(&self) -> Result<BloomFilter> {
        BloomFilter::from_bits(self.bits.try_clone()?, self.shape, self.strategy)
    }

    /// An error naming every parameter that differs, if any.
    pub fn check_compatible(&self, other: &BloomFilter) -> Result<()> {
        let mut mismatches = Vec::new();
        if self.num_bits() != other.num_bits() {
            mismatches.push(format!(
                "numBits {} vs {}",
                self.num_bits(),
                other.num_bits()
            ));
        }
        if self.num_hashes() != other.num_hashes() {
            mismatches.push(format!(
                "numHashFunctions {} vs {}",
                self.num_hashes(),
                other.num_hashes()
            ));
        }
        if self.strategy != other.strategy {
            mismatches.push(format!("strategy {} vs {}", self.strategy, other.strategy));
        }
        if mismatches.is_empty() {
            Ok(())
        } else {
            Err(Error::Incompatible(mismatches.join(", ")))
        }
    }

    pub fn is_compatible(&self, other: &BloomFilter) -> bool {
        self.check_compatible(other).is_ok()
    }

    /// Number of bits set (X).
    pub fn bits_set(&self) -> u64 {
        self.bits.count_ones()
    }

    /// Estimated number of distinct keys put: −m/k · ln(1 − X/m), rounded half up (Guava's
    /// `approximateElementCount`). Saturates at `u64::MAX` when every bit is set.
    pub fn approximate_element_count(&self) -> u64 {
        let m = self.num_bits() as f64;
        let estimate = -(-(self.bits_set() as f64) / m).ln_1p() * m / self.num_hashes() as f64;
        (estimate + 0.5).floor() as u64
    }

    /// Probability that `might_contain` answers `true` for a key never put: (X/m)^k.
    pub fn expected_fpp(&self) -> f64 {
        (self.bits_set() as f64 / self.num_bits() as f64).powi(self.num_hashes() as i32)
    }

    /// Clears every bit.
    pub fn clear(&self) {
        self.bits.clear()
    }

    /// ORs `bits` into word `i` (a converter filling a filter word by word).
    pub(crate) fn or_word(&self, i: usize, bits: u64) {
        self.bits.or_word(i, bits);
    }

    /// The words of a filter the caller owns exclusively (decoders filling a new filter).
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        self.bits.words_mut()
    }

    /// The bit array as 64-bit words (a snapshot if other threads are writing).
    pub fn words(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.bits.words()
    }

    #[inline(always)]
    fn put_hash(&self, hash: Hash128) -> bool {
        let mut changed = false;
        self.indexer.for_each(hash, |index| {
            changed |= self.bits.set(index);
            true
        });
        changed
    }

    #[inline(always)]
    fn contains_hash(&self, hash: Hash128) -> bool {
        self.indexer.for_each(hash, |index| self.bits.get(index))
    }

    fn prefetches(&self) -> bool {
        self.bits.len_words() * 8 >= PREFETCH_MIN_BYTES
    }

    /// Whether a batch of `batch_len` keys sets enough bits per word of a cache-resident
    /// filter that ORing them into a private array first, then each word once atomically,
    /// beats one locked OR per bit.
    fn accumulates(&self, batch_len: usize) -> bool {
        let words = self.bits.len_words();
        words * 8 <= PREFETCH_MIN_BYTES
            && batch_len.saturating_mul(self.num_hashes() as usize)
                >= ACCUMULATE_MIN_BITS_PER_WORD * words
    }

    fn put_all_accumulated(&self, keys: &[u64]) -> bool {
        let mut private = Vec::new();
        if private.try_reserve_exact(self.bits.len_words()).is_err() {
            // No memory for the private copy (at most PREFETCH_MIN_BYTES): put bit by bit.
            return keys
                .iter()
                .fold(false, |changed, &key| self.put(key) | changed);
        }
        private.resize(self.bits.len_words(), 0u64);
        self.for_each_indexed(keys, false, |_, indexes| {
            for &index in indexes {
                private[(index >> 6) as usize] |= 1 << (index & 63);
            }
        });
        private
            .iter()
            .enumerate()
            .fold(false, |changed, (i, &bits)| {
                self.bits.or_word(i, bits) | changed
            })
    }

    fn query_each(&self, keys: &[u64], emit: impl FnMut(usize, bool)) {
        // Large filters: prefetching a group's indexes overlaps more misses than gathers
        // that wait on each other (measured: BENCHMARKS.md).
        #[cfg(target_arch = "x86_64")]
        if self.vector_lanes && !self.prefetches() {
            return self.query_each_vector(keys, emit);
        }
        self.query_each_scalar(keys, emit)
    }

    #[cfg(target_arch = "x86_64")]
    fn query_each_vector(&self, keys: &[u64], mut emit: impl FnMut(usize, bool)) {
        let target = self.vector_target();
        // SAFETY: `vector_lanes` holds only on a CPU with AVX-512 F and DQ and for a filter
        // of at least MIN_BITS bits (at most MAX_NUM_BITS = 2^43, k ≥ 1: `check_shape`); the
        // words live as long as `self`.
        unsafe {
            batch_avx512::query(target, keys, |first, present| {
                for j in 0..(keys.len() - first).min(8) {
                    emit(first + j, present >> j & 1 != 0);
                }
            })
        }
    }

    fn vector_target(&self) -> batch_avx512::Target {
        batch_avx512::Target {
            words: self.bits.as_ptr(),
            num_bits: self.num_bits(),
            num_hashes: self.num_hashes(),
            wrap: self.indexer.wrap(),
        }
    }

    fn query_each_scalar(&self, keys: &[u64], mut emit: impl FnMut(usize, bool)) {
        if self.prefetches() {
            self.for_each_indexed(keys, true, |i, indexes| {
                emit(i, indexes.iter().all(|&index| self.bits.get(index)))
            });
            return;
        }
        keys.iter()
            .enumerate()
            .for_each(|(i, &key)| emit(i, self.might_contain(key)));
    }

    /// For groups of keys: computes every bit index of the group (eight keys at a time in
    /// vector lanes where the filter allows), prefetches them if `prefetch`, then calls
    /// `visit(key position, its k indexes)` for each key of the group.
    fn for_each_indexed(&self, keys: &[u64], prefetch: bool, mut visit: impl FnMut(usize, &[u64])) {
        let k = self.num_hashes() as usize;
        // On the stack (32 KiB at k = 255): nothing to allocate, so nothing to fail.
        let mut scratch = [0u64; GROUP * sizing::MAX_NUM_HASHES as usize];
        let scratch = &mut scratch[..GROUP * k];
        for (group_no, group) in keys.chunks(GROUP).enumerate() {
            self.fill_indexes(group, scratch);
            if prefetch {
                scratch[..group.len() * k]
                    .iter()
                    .for_each(|&index| self.bits.prefetch(index));
            }
            for (j, slots) in scratch.chunks_exact(k).take(group.len()).enumerate() {
                visit(group_no * GROUP + j, slots);
            }
        }
    }

    /// `out[j * k + i]` = the i-th index of `keys[j]`.
    fn fill_indexes(&self, keys: &[u64], out: &mut [u64]) {
        let k = self.num_hashes() as usize;
        #[cfg(target_arch = "x86_64")]
        if self.vector_lanes {
            // SAFETY: `vector_lanes` holds only on a CPU with AVX-512 F and DQ and for a shape
            // in the vector path's range (see `query_each_vector`); `out` has room for k
            // indexes per key.
            unsafe { batch_avx512::indexes(self.vector_target(), keys, out) }
            return;
        }
        for (slots, &key) in out.chunks_exact_mut(k).zip(keys) {
            let mut filled = 0;
            self.indexer.for_each(hash_u64(key), |index| {
                slots[filled] = index;
                filled += 1;
                true
            });
        }
    }
}

fn check_shape(shape: Shape) -> Result<()> {
    if let Some(rule) = sizing::num_bits_violation(shape.num_bits) {
        return Err(Error::invalid(
            "numBits",
            format!("{} {rule}", shape.num_bits),
        ));
    }
    sizing::check_num_hashes(shape.num_hashes)
}

/// `words` are exactly the ceil(m / 64) words of an m-bit filter, with no bit set at or above m.
fn check_words_fit(words: &[u64], num_bits: u64) -> Result<()> {
    let expected = num_bits.div_ceil(64);
    if words.len() as u64 != expected {
        return Err(Error::invalid(
            "words",
            format!(
                "{} words for {num_bits} bits, expected {expected}",
                words.len()
            ),
        ));
    }
    match first_bit_at_or_above(words, num_bits) {
        Some(bit) => Err(Error::invalid(
            "words",
            format!("bit {bit} is set, at or above numBits {num_bits}"),
        )),
        None => Ok(()),
    }
}

/// The lowest set bit at or above `num_bits` in the last word, if any (ceil(m / 64) words).
pub(crate) fn first_bit_at_or_above(words: &[u64], num_bits: u64) -> Option<u64> {
    let used = num_bits % 64;
    let last = *words.last()?;
    if used == 0 {
        return None;
    }
    let above = last & (u64::MAX << used);
    (above != 0).then(|| (words.len() as u64 - 1) * 64 + above.trailing_zeros() as u64)
}

/// Panics if the copy cannot be allocated, as `Vec`'s clone aborts; [`BloomFilter::try_clone`]
/// returns an error instead.
impl Clone for BloomFilter {
    fn clone(&self) -> BloomFilter {
        self.try_clone()
            .unwrap_or_else(|e| panic!("BloomFilter::clone: {e}"))
    }
}

/// Equal shape, strategy and bits.
impl PartialEq for BloomFilter {
    fn eq(&self, other: &BloomFilter) -> bool {
        self.is_compatible(other) && self.words().eq(other.words())
    }
}

impl Eq for BloomFilter {}

impl std::fmt::Debug for BloomFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BloomFilter")
            .field("num_bits", &self.num_bits())
            .field("num_hashes", &self.num_hashes())
            .field("strategy", &self.strategy)
            .field("bits_set", &self.bits_set())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::splitmix64;

    #[test]
    fn guava_31_put_1_2_3_words() {
        // Guava 31.1 writeTo of create(longFunnel(), 100, 0.03) after put(1, 2, 3).
        let f = BloomFilter::new(100, 0.03).unwrap();
        assert_eq!((f.num_bits(), f.num_hashes()), (768, 5));
        assert!(f.put(1) && f.put(2) && f.put(3));
        assert!(!f.put(1), "a second put of the same key changes nothing");
        let expected = [
            0x0000000000000000u64,
            0x0000000400400000,
            0x4000000000800000,
            0x0004000000000000,
            0x0000000000800000,
            0x0001000000002400,
            0x0000010000000000,
            0x0000000000000000,
            0x1000000000001000,
            0x0000002010010000,
            0x0000000000000000,
            0x0000000000000000,
        ];
        assert_eq!(f.words().collect::<Vec<_>>(), expected);
        assert_eq!(f.bits_set(), 15);
    }

    #[test]
    fn batch_paths_agree_with_single_key_paths() {
        for (n, p) in [(10_000, 0.001), (1_000_000, 0.01)] {
            let f = BloomFilter::new(n, p).unwrap();
            assert_eq!(f.prefetches(), n == 1_000_000);
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

    /// The AVX-512 batch paths (where the CPU has them) and the scalar batch paths against
    /// single-key puts and queries, which take the scalar walk: shapes at the vector
    /// remainder's lower bound, odd word counts, k from 1 to 255, m above 2^32; filters half
    /// full, so keys fail at every probe; every tail length.
    #[test]
    fn vector_batches_agree_with_single_keys() {
        let mut state = 99;
        let shapes = [
            (batch_avx512::MIN_BITS, 1),
            (batch_avx512::MIN_BITS + 64, 7),
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
            assert_eq!(f.vector_lanes, batch_avx512::available());
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
            let mut scalar = f.clone();
            scalar.vector_lanes = false;
            let one_by_one = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
            put.iter().for_each(|&k| {
                one_by_one.put(k);
            });
            assert!(
                f == one_by_one,
                "put_all sets the bits put does, m={num_bits}"
            );
            for len in (0..=40).chain([4096, 5003]) {
                let probe: Vec<u64> = (0..len)
                    .map(|i| {
                        if i % 2 == 0 {
                            put[splitmix64(&mut state) as usize % put.len()]
                        } else {
                            splitmix64(&mut state)
                        }
                    })
                    .collect();
                let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
                assert_eq!(
                    f.might_contain_all(&probe),
                    single,
                    "m={num_bits} k={num_hashes}"
                );
                assert_eq!(scalar.might_contain_all(&probe), single);
                let absent: Vec<u64> = probe
                    .iter()
                    .zip(&single)
                    .filter(|&(_, &present)| !present)
                    .map(|(&k, _)| k)
                    .collect();
                assert_eq!(f.retain_absent(&probe), absent);
                assert_eq!(scalar.retain_absent(&probe), absent);
                assert!(single.iter().step_by(2).all(|&p| p), "no false negatives");
            }
        }
    }

    #[test]
    fn union_and_intersect() {
        let a = BloomFilter::new(1000, 0.01).unwrap();
        let b = BloomFilter::new(1000, 0.01).unwrap();
        (0..100).for_each(|k| {
            a.put(k);
        });
        (50..150).for_each(|k| {
            b.put(k);
        });
        let both = a.clone();
        both.intersect(&b).unwrap();
        assert!((50..100).all(|k| both.might_contain(k)));
        a.union(&b).unwrap();
        assert!((0..150).all(|k| a.might_contain(k)));
        let other = BloomFilter::new(1000, 0.001).unwrap();
        let err = a.union(&other).unwrap_err().to_string();
        assert!(
            err.contains("numBits") && err.contains("numHashFunctions"),
            "{err}"
        );
        let legacy = BloomFilter::with_shape(a.shape(), Strategy::Murmur128Mitz32).unwrap();
        assert!(
            a.intersect(&legacy)
                .unwrap_err()
                .to_string()
                .contains("strategy")
        );
    }

    #[test]
    fn estimates() {
        let f = BloomFilter::new(10_000, 0.01).unwrap();
        assert_eq!(f.approximate_element_count(), 0);
        assert_eq!(f.expected_fpp(), 0.0);
        (0..5_000u64).for_each(|k| {
            f.put(k);
        });
        let estimate = f.approximate_element_count() as f64;
        assert!((estimate - 5_000.0).abs() < 150.0, "{estimate}");
        assert!(f.expected_fpp() > 0.0 && f.expected_fpp() < 0.01);
        f.clear();
        assert_eq!(f.bits_set(), 0);
    }

    #[test]
    fn string_and_byte_keys_share_the_hash() {
        let f = BloomFilter::new(100, 0.01).unwrap();
        assert!(f.put_str("héllo"));
        assert!(f.might_contain_bytes("héllo".as_bytes()));
        assert!(!f.put_bytes("héllo".as_bytes()));
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(BloomFilter::from_words(vec![], 3, Strategy::Murmur128Mitz64).is_err());
        assert!(BloomFilter::from_words(vec![0; 2], 0, Strategy::Murmur128Mitz64).is_err());
        for num_bits in [0, sizing::MAX_NUM_BITS + 1] {
            let shape = Shape {
                num_bits,
                num_hashes: 3,
            };
            assert!(BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).is_err());
        }
        let odd = Shape {
            num_bits: 100,
            num_hashes: 3,
        };
        let err =
            BloomFilter::from_words_with_shape(vec![0, 1 << 36], odd, Strategy::Murmur128Mitz32)
                .unwrap_err()
                .to_string();
        assert!(err.contains("bit 100 is set"), "{err}");
        assert!(
            BloomFilter::from_words_with_shape(vec![0; 3], odd, Strategy::Murmur128Mitz32).is_err()
        );
        let mut out = [false; 1];
        assert!(
            BloomFilter::new(10, 0.1)
                .unwrap()
                .might_contain_all_into(&[1, 2], &mut out)
                .is_err()
        );
    }

    /// Bit counts that are not whole words (the Redis helper sizes m = ⌊−n·ln p / ln²2⌋):
    /// every index below m, nothing at or above m ever set, batch and single paths agree,
    /// clones and unions keep the shape.
    #[test]
    fn any_bit_count() {
        let mut state = 5;
        for (num_bits, strategy) in [
            (1, Strategy::Murmur128Mitz32),
            (1, Strategy::Murmur128Mitz64),
            (143_775, Strategy::Murmur128Mitz32),
            (143_775, Strategy::Murmur128Mitz64),
            (65, Strategy::Murmur128Mitz64),
            ((1 << 20) + 3, Strategy::Murmur128Mitz64),
        ] {
            let shape = Shape {
                num_bits,
                num_hashes: 10,
            };
            let f = BloomFilter::with_shape(shape, strategy).unwrap();
            assert_eq!(f.num_bits(), num_bits);
            assert!(!f.vector_lanes);
            let keys: Vec<u64> = (0..2_000).map(|_| splitmix64(&mut state)).collect();
            f.put_all(&keys[..1_000]);
            let g = BloomFilter::with_shape(shape, strategy).unwrap();
            keys[..1_000].iter().for_each(|&k| {
                g.put(k);
            });
            assert!(f == g, "m={num_bits}");
            let words: Vec<u64> = f.words().collect();
            assert_eq!(words.len() as u64, num_bits.div_ceil(64));
            assert_eq!(first_bit_at_or_above(&words, num_bits), None);
            let single: Vec<bool> = keys.iter().map(|&k| f.might_contain(k)).collect();
            assert_eq!(f.might_contain_all(&keys), single);
            assert!(single[..1_000].iter().all(|&p| p), "no false negatives");
            let copy = f.clone();
            assert_eq!(copy.shape(), shape);
            copy.union(&g).unwrap();
            assert!(copy == f);
        }
    }
}
