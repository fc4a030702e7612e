//! The Bloom filter: Guava's bit placement over a thread-safe bit array.
//!
//! This file is the API; `batch.rs` is the engine behind the batched calls, which run the
//! kernels of `crate::kernels` as the filter's [`Plan`] says.

use crate::atomic_words::Align;
use crate::bit_array::{BitArray, WriterLock};
use crate::error::Result;
use crate::hashing::{Hash128, hash_bytes, hash_u64};
use crate::sizing::{self, Shape};
use crate::spark_hashing;
use crate::strategy::{Indexer, Strategy};

use crate::kernels::{self, Plan, scalar};
pub(crate) mod batch;
// Batches of byte-string keys.
mod byte_batch;
mod checks;
use checks::check_words_fit;
pub(crate) use checks::{check_answers_fit, check_shape, first_bit_at_or_above};
mod packed_bytes;
mod std_impls;
pub(crate) use std_impls::clone_and_eq;
// How the bits change: the writer, the put paths.
mod writes;
pub use packed_bytes::PackedBytes;
use writes::WRITE_PIECE_KEYS;
// The BLOCKED layout's checks and batch paths.
pub(crate) mod blocked;

/// The methods the plain and the counting filter have word for word, over their `indexer` (m and
/// k), `strategy`, and batch engine (`write_answers`, `write_absent`).
macro_rules! common_methods {
    () => {
        /// Positions (m): bits, or a counting filter's counters; a multiple of 64 for filters
        /// sized by (n, p), any count for one made by `with_shape`.
        pub fn num_bits(&self) -> u64 {
            self.indexer.num_bits()
        }

        /// Positions per key (k, Guava's `numHashFunctions`), 1..=255.
        pub fn num_hashes(&self) -> u32 {
            self.indexer.num_hashes()
        }

        /// m and k together.
        pub fn shape(&self) -> $crate::Shape {
            self.indexer.shape()
        }

        /// How keys map to positions (Guava's `BloomFilter.Strategies`).
        pub fn strategy(&self) -> $crate::Strategy {
            self.strategy
        }

        /// An error naming every parameter that differs, if any.
        pub fn check_compatible(&self, other: &Self) -> $crate::Result<()> {
            let shape = |f: &Self| (f.shape(), f.strategy);
            $crate::sizing::check_compatible(shape(self), shape(other))
        }

        /// `out[i] = might_contain(keys[i])`; `out` must be as long as `keys`.
        pub fn might_contain_all_into(&self, keys: &[u64], out: &mut [bool]) -> $crate::Result<()> {
            $crate::filter::check_answers_fit(out.len(), keys.len())?;
            self.write_answers(keys, out);
            Ok(())
        }

        /// `might_contain` of every key, in order; a batch is faster than one call per key
        /// (indexes computed together, vector lanes where the CPU has them, prefetched on large
        /// filters).
        pub fn might_contain_all(&self, keys: &[u64]) -> Vec<bool> {
            let mut out = vec![false; keys.len()];
            self.write_answers(keys, &mut out);
            out
        }

        /// The keys that are certainly not in the filter, in their original order: the dedup
        /// step "keep the recommendations this user has not seen".
        pub fn retain_absent(&self, keys: &[u64]) -> Vec<u64> {
            let mut out = Vec::new();
            self.retain_absent_into(keys, &mut out);
            out
        }

        /// Appends to `out` the keys that are certainly not in the filter, in order. It reserves
        /// room for every key first, so with that room reserved it never allocates.
        pub fn retain_absent_into(&self, keys: &[u64], out: &mut Vec<u64>) {
            let write = |spare: &mut _| self.write_absent(keys, spare);
            $crate::filter::batch::append_absent(keys, out, write);
        }
    };
}
pub(crate) use common_methods;

/// A Bloom filter whose bits sit exactly where Guava's `BloomFilter` puts them, for 64-bit keys
/// (`Funnels.longFunnel()`), byte strings (`Funnels.byteArrayFunnel()`) and UTF-8 strings
/// (`Funnels.stringFunnel(UTF_8)`).
///
/// All operations take `&self`: writers take turns on a one-byte lock while readers never
/// wait, so one filter can be filled and queried from many threads at once with no lost bits
/// and no false negatives.
pub struct BloomFilter {
    bits: BitArray,
    /// Taken by every change of `bits` ([`write`](Self::write)).
    writer: WriterLock,
    strategy: Strategy,
    /// m and k, with the constants that turn a hash into indexes.
    indexer: Indexer,
    /// The kernel and paths of the batched operations, chosen when the filter is made.
    plan: Plan,
}

// The array's pointer and length, m with its remainder multiplier, k, the strategy and the
// plan's few bytes: 48 bytes, so that a Python filter object (a 16-byte header and this)
// takes 64, as small as rbloom's.
const _: () = assert!(std::mem::size_of::<BloomFilter>() <= 48);

/// Where a new array of `strategy` starts: a BLOCKED filter's on a cache line, so that each
/// 512-bit block is one line; a classic filter's probes touch single words, so its array takes
/// no padding.
fn array_align(strategy: Strategy) -> Align {
    if strategy.layout().is_blocked() {
        Align::Line
    } else {
        Align::Word
    }
}

impl BloomFilter {
    /// The filter Guava's `BloomFilter.create(longFunnel(), n, p)` builds: same m, same k,
    /// strategy `MURMUR128_MITZ_64`. Errors name the bad argument: `expected_insertions` must
    /// be in 1..=2^63−1, `fpp` in the open interval (0, 1), and the bits at most 2^43.
    ///
    /// ```
    /// use sparkbloom::{BloomFilter, Strategy};
    ///
    /// // 10,000 keys at 0.1 %: ⌊−n·ln p / ln²2⌋ = 143,775 bits, rounded up to 2,247 words;
    /// // k = round(−ln p / ln 2) = 10.
    /// let f = BloomFilter::new(10_000, 0.001)?;
    /// assert_eq!((f.num_bits(), f.num_hashes()), (143_808, 10));
    /// assert_eq!(f.strategy(), Strategy::Murmur128Mitz64);
    /// assert!(f.put(42));
    /// assert!(!f.put(42), "nothing changes the second time");
    /// assert!(f.might_contain(42));
    /// assert!(BloomFilter::new(10_000, 1.5).unwrap_err().to_string().contains("fpp"));
    /// # Ok::<(), sparkbloom::Error>(())
    /// ```
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

    /// ClickHouse's best-practice filter for (n, p), strategy `MURMUR128_MITZ_64`: the smallest
    /// whole number of bits per key `b`, then the smallest `k`, whose theoretical false-positive
    /// probability (1 − e^(−k/b))^k is at most `fpp` (the table lookup of ClickHouse's
    /// `calculationBestPractices`), with m = n·b rounded up to whole 64-bit words; see
    /// [`sizing::best_practice_shape`].
    ///
    /// Compared with [`new`](Self::new) (Guava's real-valued m, then k from p), it trades a few
    /// more bits for fewer hash functions: k = 5 instead of 7 at p = 0.01, so puts and queries
    /// touch fewer words. Filters of the two sizings have different shapes and do not merge.
    ///
    /// ```
    /// use sparkbloom::BloomFilter;
    ///
    /// // 1 % takes 10 bits per key and 5 hashes: (1 − e^(−1/2))^5 ≈ 0.0094.
    /// let f = BloomFilter::with_best_practice(1_000, 0.01)?;
    /// assert_eq!((f.num_bits(), f.num_hashes()), (10_048, 5));
    /// // Guava's sizing for the same (n, p): fewer bits, more hashes.
    /// let guava = BloomFilter::new(1_000, 0.01)?;
    /// assert_eq!((guava.num_bits(), guava.num_hashes()), (9_600, 7));
    /// # Ok::<(), sparkbloom::Error>(())
    /// ```
    pub fn with_best_practice(expected_insertions: u64, fpp: f64) -> Result<BloomFilter> {
        BloomFilter::with_shape(
            sizing::best_practice_shape(expected_insertions, fpp)?,
            Strategy::Murmur128Mitz64,
        )
    }

    /// An empty filter of the given shape; `shape.num_bits` must lie in
    /// 1..=[`sizing::MAX_NUM_BITS`] (any count: the Redis helper's layout sizes m without
    /// rounding to whole words; the bits of the last word at or above m stay zero) and
    /// `shape.num_hashes` in 1..=255.
    pub fn with_shape(shape: Shape, strategy: Strategy) -> Result<BloomFilter> {
        check_shape(shape)?;
        let num_words = shape.num_bits.div_ceil(64) as usize;
        BloomFilter::from_bits(
            BitArray::zeroed(num_words, array_align(strategy))?,
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
        blocked::check_shape(shape, strategy)?;
        debug_assert_eq!(bits.len_words() as u64, shape.num_bits.div_ceil(64));
        let kernel = kernels::selected()?;
        let num_bits = shape.num_bits;
        let plan = Plan::new(
            kernel,
            strategy.layout(),
            num_bits,
            shape.num_hashes,
            bits.len_words() * 8,
        );
        Ok(BloomFilter {
            bits,
            writer: WriterLock::default(),
            strategy,
            indexer: Indexer::new(num_bits, shape.num_hashes, strategy),
            plan,
        })
    }

    /// This filter with its batches on `kernel` (which the CPU must run): the tests hold every
    /// kernel to the reference.
    #[cfg(test)]
    pub(crate) fn on_kernel(mut self, kernel: kernels::Kernel) -> BloomFilter {
        assert!(kernel.supported(), "{kernel} runs here");
        self.plan = Plan::new(
            kernel,
            self.strategy.layout(),
            self.num_bits(),
            self.num_hashes(),
            self.bits.len_words() * 8,
        );
        self
    }

    /// The paths this filter's batches take.
    #[cfg(test)]
    pub(crate) fn plan(&self) -> Plan {
        self.plan
    }

    common_methods!();

    /// Adds a 64-bit key; returns whether any bit changed (Guava's `put`). Concurrent puts
    /// take turns (one writer at a time: a lock per call, no locked instruction per bit).
    #[inline]
    pub fn put(&self, key: u64) -> bool {
        self.put_hash(&self.write(), self.hash_key(key))
    }

    /// Adds a byte-string key, hashed as Guava's `Funnels.byteArrayFunnel()` hashes it;
    /// returns whether any bit changed.
    pub fn put_bytes(&self, key: &[u8]) -> bool {
        self.put_hash(&self.write(), self.hash_key_bytes(key))
    }

    /// Adds a string key by its UTF-8 bytes (Guava's `Funnels.stringFunnel(UTF_8)`): the same
    /// bits as [`put_bytes`](Self::put_bytes) of those bytes.
    pub fn put_str(&self, key: &str) -> bool {
        self.put_bytes(key.as_bytes())
    }

    /// `false` means `key` was certainly never put; `true` means it probably was.
    #[inline]
    pub fn might_contain(&self, key: u64) -> bool {
        self.contains_hash(self.hash_key(key))
    }

    /// [`might_contain`](Self::might_contain) for a key added with
    /// [`put_bytes`](Self::put_bytes).
    pub fn might_contain_bytes(&self, key: &[u8]) -> bool {
        self.contains_hash(self.hash_key_bytes(key))
    }

    /// [`might_contain`](Self::might_contain) for a key added with [`put_str`](Self::put_str).
    pub fn might_contain_str(&self, key: &str) -> bool {
        self.might_contain_bytes(key.as_bytes())
    }

    /// Adds every key; returns whether any bit changed. Other writers get their turn between
    /// pieces of 2^16 keys.
    pub fn put_all(&self, keys: &[u64]) -> bool {
        let mut changed = false;
        for piece in keys.chunks(WRITE_PIECE_KEYS) {
            let bits = self.write();
            changed |= self.put_piece(&bits, piece);
            bits.hand_over();
        }
        changed
    }

    /// ORs `other` into `self` (set union). Both must have the same m, k and strategy. Safe
    /// beside concurrent puts into either filter: bits are only ever added.
    pub fn union(&self, other: &BloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        let bits = self.write();
        (0..self.bits.len_words()).for_each(|i| {
            bits.or_word(i, other.bits.word(i));
        });
        Ok(())
    }

    /// ANDs `other` into `self`: answers "probably in both". Same requirements as [`union`](Self::union).
    ///
    /// Safe beside concurrent puts into either filter, with no false negatives: puts into
    /// `self` wait until it is done, and each word is ANDed with `other`'s as it is at one
    /// instant during the call, so a key put into `other` and then into `self` is reported
    /// present. `f.intersect(&f)` changes nothing.
    pub fn intersect(&self, other: &BloomFilter) -> Result<()> {
        self.check_compatible(other)?;
        if std::ptr::eq(self, other) {
            return Ok(());
        }
        let bits = self.write();
        (0..self.bits.len_words()).for_each(|i| bits.and_word(i, &other.bits));
        Ok(())
    }

    /// An independent copy; allocation failure (or a copy beyond the process's memory limit)
    /// is an error, where [`Clone`] panics.
    pub fn try_clone(&self) -> Result<BloomFilter> {
        BloomFilter::from_bits(
            self.bits.try_clone(array_align(self.strategy))?,
            self.shape(),
            self.strategy,
        )
    }

    /// Whether [`union`](Self::union) and [`intersect`](Self::intersect) accept `other`: the
    /// same m, k and strategy.
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

    /// Probability that `might_contain` answers `true` for a key never put: (X/m)^k; for
    /// BLOCKED filters the mean over blocks of (bits set in the block / 512)^k.
    pub fn expected_fpp(&self) -> f64 {
        if self.indexer.layout().is_blocked() {
            return self.blocked_expected_fpp();
        }
        (self.bits_set() as f64 / self.num_bits() as f64).powi(self.num_hashes() as i32)
    }

    /// Clears every bit.
    pub fn clear(&self) {
        self.write().clear()
    }

    /// ORs `words` into the filter's words from word `first` on (a converter filling a filter
    /// word by word: the JNI bridge's).
    ///
    /// # Panics
    /// If the words run past the filter's.
    #[cfg(feature = "jni")]
    pub(crate) fn or_words(&self, first: usize, words: &[u64]) {
        let bits = self.write();
        for (i, &word) in words.iter().enumerate() {
            bits.or_word(first + i, word);
        }
    }

    /// The address of the first word of the bit array (bit b in word b >> 6, little-endian on
    /// the hosts we build for), for the JNI bridge's read-only direct view. The address is fixed
    /// for the filter's whole life: the words are one boxed slice, allocated at creation and
    /// freed with the filter; no operation replaces, grows or moves it (union, intersect and
    /// clear change words in place).
    #[cfg(feature = "jni")]
    pub(crate) fn words_ptr(&self) -> *const u64 {
        self.bits.as_ptr()
    }

    /// The bit array, for the encoder's copy (`kernels::popcount`).
    pub(crate) fn bit_array(&self) -> &BitArray {
        &self.bits
    }

    /// The words of a filter the caller owns exclusively (decoders filling a new filter).
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        self.bits.words_mut()
    }

    /// The bit array as 64-bit words (a snapshot if other threads are writing).
    pub fn words(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.bits.words()
    }

    /// The hash the strategy walks for a 64-bit key: Guava's Murmur3_x64_128 of its 8 bytes,
    /// or Spark's `hashLong` pair (seed 0) for the Spark strategies.
    #[inline(always)]
    pub(crate) fn hash_key(&self, key: u64) -> Hash128 {
        if self.strategy.is_spark() {
            spark_hashing::pair_u64(key, 0)
        } else {
            hash_u64(key)
        }
    }

    /// [`hash_key`](Self::hash_key) for a byte string (Spark: `hashUnsafeBytes`).
    fn hash_key_bytes(&self, key: &[u8]) -> Hash128 {
        if self.strategy.is_spark() {
            spark_hashing::pair_bytes(key, 0)
        } else {
            hash_bytes(key)
        }
    }

    #[inline(always)]
    fn contains_hash(&self, hash: Hash128) -> bool {
        scalar::contains(&self.indexer, &self.bits, hash)
    }
}

#[cfg(test)]
mod tests;
