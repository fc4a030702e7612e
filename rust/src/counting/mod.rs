//! The counting Bloom filter: a 4-bit saturating counter per position instead of a bit, so keys
//! can be removed (seeds 002 and 003: "a Bloom filter that can forget").
//!
//! Position i of a counting filter is bit i of the plain [`BloomFilter`] of the same shape and
//! strategy: the same sizing and the same Guava index walks, so [`to_bloom_filter`] gives
//! exactly the plain filter of the keys still present (while no counter saturated).
//!
//! [`to_bloom_filter`]: CountingBloomFilter::to_bloom_filter

mod accumulate;
mod batch;
pub(crate) mod counters;

use crate::error::{Error, Result};
use crate::filter::{BloomFilter, check_shape};
use crate::hashing::{Hash128, hash_bytes, hash_u64};
use crate::kernels::{self, CountingPlan, Kernel};
use crate::sizing::{self, Shape};
use crate::strategy::{Indexer, Strategy};
use counters::{Counters, PER_WORD, nonzero_nibbles, saturated_nibbles};

pub use counters::MAX as MAX_COUNT;

/// A Bloom filter with a 4-bit counter per position: add, remove, query, count.
///
/// Rules:
/// * **Saturation.** A counter that reaches 15 stays at 15 forever: it is never incremented
///   past it and never decremented, so saturation can never cause a false negative (it only
///   keeps a position set after its keys are gone). [`saturated_counters`] reports how many
///   counters saturated; at the design capacity a counter reaches 15 with probability ~10^−15.
/// * **Removing a key the filter says is definitely absent** changes nothing and returns
///   `false`.
/// * **Removing a key that was never added is a caller error**: when it is a false positive,
///   its k counters belong to other keys, and decrementing them can make those keys report
///   absent: a *false negative*. Remove only keys you added (and as many times as you added
///   them).
///
/// All operations take `&self` and are thread-safe: each counter update is a compare-and-swap
/// of its word, so concurrent adds and removes never lose a count.
///
/// [`saturated_counters`]: CountingBloomFilter::saturated_counters
pub struct CountingBloomFilter {
    counters: Counters,
    strategy: Strategy,
    /// m and k, with the constants that turn a hash into positions.
    indexer: Indexer,
    /// The paths of the batches, chosen from the kernel when the filter is made.
    plan: CountingPlan,
}

// As the plain filter: no more than a Python object's 48 bytes beside its header.
const _: () = assert!(std::mem::size_of::<CountingBloomFilter>() <= 48);

/// Counting filters hash keys as Guava does (MURMUR128_MITZ_32, MURMUR128_MITZ_64); Spark's
/// sketch strategies, which hash with Spark's Murmur3_x86_32, and BLOCKED are refused.
fn check_strategy(strategy: Strategy) -> Result<()> {
    if !strategy.is_guava() {
        return Err(Error::invalid(
            "strategy",
            format!(
                "{strategy}: counting filters support MURMUR128_MITZ_32 and MURMUR128_MITZ_64 only"
            ),
        ));
    }
    Ok(())
}

impl CountingBloomFilter {
    /// Sized as [`BloomFilter::new`] (Guava's `create(n, p)`: same m, same k), MITZ_64.
    pub fn new(expected_insertions: u64, fpp: f64) -> Result<CountingBloomFilter> {
        CountingBloomFilter::with_strategy(expected_insertions, fpp, Strategy::Murmur128Mitz64)
    }

    /// Sized as [`BloomFilter::with_strategy`].
    pub fn with_strategy(
        expected_insertions: u64,
        fpp: f64,
        strategy: Strategy,
    ) -> Result<CountingBloomFilter> {
        CountingBloomFilter::with_shape(
            sizing::shape_for_strategy(expected_insertions, fpp, strategy)?,
            strategy,
        )
    }

    /// An empty filter of m = `shape.num_bits` counters (1..=2^43, any count) and k hashes.
    pub fn with_shape(shape: Shape, strategy: Strategy) -> Result<CountingBloomFilter> {
        check_shape(shape)?;
        check_strategy(strategy)?;
        kernels::selected()?;
        let counters = Counters::zeroed(counters::words_for(shape.num_bits) as usize)?;
        Ok(CountingBloomFilter::from_counters(
            counters, shape, strategy,
        ))
    }

    /// A filter of `shape` over existing counter words (counter i in word i >> 4 at bits
    /// 4·(i & 15)): exactly ⌈m/16⌉ words, every counter at or above m zero.
    pub fn from_words(
        words: Vec<u64>,
        shape: Shape,
        strategy: Strategy,
    ) -> Result<CountingBloomFilter> {
        check_shape(shape)?;
        check_strategy(strategy)?;
        let expected = counters::words_for(shape.num_bits);
        if words.len() as u64 != expected {
            return Err(Error::invalid(
                "words",
                format!(
                    "{} words for {} counters, expected {expected}",
                    words.len(),
                    shape.num_bits
                ),
            ));
        }
        if let Some(index) = first_counter_at_or_above(&words, shape.num_bits) {
            return Err(Error::invalid(
                "words",
                format!(
                    "counter {index} is nonzero, at or above numBits {}",
                    shape.num_bits
                ),
            ));
        }
        Ok(CountingBloomFilter::from_counters(
            Counters::from_words(words),
            shape,
            strategy,
        ))
    }

    fn from_counters(counters: Counters, shape: Shape, strategy: Strategy) -> CountingBloomFilter {
        CountingBloomFilter::on_kernel(counters, shape, strategy, kernels::selected_or_best())
    }

    /// A filter over `counters` whose batches run `kernel` (which the CPU must run).
    fn on_kernel(
        counters: Counters,
        shape: Shape,
        strategy: Strategy,
        kernel: Kernel,
    ) -> CountingBloomFilter {
        let bytes = counters.len_words() * 8;
        CountingBloomFilter {
            counters,
            strategy,
            indexer: Indexer::new(shape.num_bits, shape.num_hashes, strategy),
            plan: CountingPlan::new(kernel, strategy.layout(), shape.num_bits, bytes),
        }
    }

    /// This filter with its batches on `kernel`: the tests hold every kernel to the reference.
    #[cfg(test)]
    pub(crate) fn with_kernel(self, kernel: Kernel) -> CountingBloomFilter {
        assert!(kernel.supported(), "{kernel} runs here");
        let shape = self.shape();
        CountingBloomFilter::on_kernel(self.counters, shape, self.strategy, kernel)
    }

    crate::filter::common_methods!();

    /// Adds a 64-bit key (increments its k counters); returns whether any counter changed
    /// (`false` only when all of them are saturated).
    #[inline]
    pub fn add(&self, key: u64) -> bool {
        self.add_hash(hash_u64(key))
    }

    /// [`add`](Self::add) for a byte-string key (Guava's `byteArrayFunnel`).
    pub fn add_bytes(&self, key: &[u8]) -> bool {
        self.add_hash(hash_bytes(key))
    }

    /// [`add`](Self::add) for a string key, hashed as its UTF-8 bytes.
    pub fn add_str(&self, key: &str) -> bool {
        self.add_bytes(key.as_bytes())
    }

    /// Adds every key; returns whether any counter changed. A batch that updates a
    /// cache-resident filter densely counts its updates privately first, then updates each
    /// counter word once.
    pub fn add_all(&self, keys: &[u64]) -> bool {
        if self.accumulates(keys.len())
            && let Some(changed) = self.add_all_accumulated(keys)
        {
            return changed;
        }
        keys.iter()
            .fold(false, |changed, &key| self.add(key) | changed)
    }

    /// Removes one occurrence of a key that was added. Returns `false`, changing nothing, when
    /// the filter says the key is definitely absent. Removing a key that was never added can
    /// cause false negatives (see the type's doc).
    #[inline]
    pub fn remove(&self, key: u64) -> bool {
        self.remove_hash(hash_u64(key))
    }

    /// [`remove`](Self::remove) for a byte-string key.
    pub fn remove_bytes(&self, key: &[u8]) -> bool {
        self.remove_hash(hash_bytes(key))
    }

    /// [`remove`](Self::remove) for a string key (UTF-8).
    pub fn remove_str(&self, key: &str) -> bool {
        self.remove_bytes(key.as_bytes())
    }

    /// Removes every key (as [`remove`](Self::remove) one by one); returns how many were
    /// possibly present, hence removed.
    pub fn remove_all(&self, keys: &[u64]) -> u64 {
        if self.accumulates(keys.len())
            && let Some(removed) = self.remove_all_accumulated(keys)
        {
            return removed;
        }
        keys.iter().filter(|&&key| self.remove(key)).count() as u64
    }

    /// `false` means `key` is certainly not in the filter; `true` means it probably is.
    #[inline]
    pub fn might_contain(&self, key: u64) -> bool {
        self.contains_hash(hash_u64(key))
    }

    /// [`might_contain`](Self::might_contain) for a byte-string key.
    pub fn might_contain_bytes(&self, key: &[u8]) -> bool {
        self.contains_hash(hash_bytes(key))
    }

    /// [`might_contain`](Self::might_contain) for a string key (UTF-8).
    pub fn might_contain_str(&self, key: &str) -> bool {
        self.might_contain_bytes(key.as_bytes())
    }

    /// The smallest of the key's k counters: an upper bound on how many times it was added
    /// (minus removed), 0 when it is certainly absent; 15 means "15 or more".
    pub fn count(&self, key: u64) -> u8 {
        self.count_hash(hash_u64(key))
    }

    /// [`count`](Self::count) for a byte-string key.
    pub fn count_bytes(&self, key: &[u8]) -> u8 {
        self.count_hash(hash_bytes(key))
    }

    /// Counter `index` (< m).
    pub fn counter(&self, index: u64) -> Result<u8> {
        if index >= self.num_bits() {
            return Err(Error::invalid(
                "index",
                format!("{index} is not below numBits {}", self.num_bits()),
            ));
        }
        Ok(self.counters.get(index))
    }

    /// Adds `other`'s counters to this filter's (the multiset sum), each saturating at 15.
    /// Same m, k and strategy required.
    pub fn merge(&self, other: &CountingBloomFilter) -> Result<()> {
        self.combine(other, counters::saturating_add)
    }

    /// Subtracts `other`'s counters from this filter's (removes a multiset that was added,
    /// e.g. the day that leaves a window), each floored at 0; saturated counters of `self`
    /// stay saturated. Subtracting keys that were never added can cause false negatives, as
    /// [`remove`](Self::remove) can.
    pub fn subtract(&self, other: &CountingBloomFilter) -> Result<()> {
        self.combine(other, counters::saturating_sub)
    }

    /// Replaces each word of `self` by `op(it, other's word)`, atomically per word; `other`
    /// may be `self` (its words are then read before any is replaced).
    fn combine(&self, other: &CountingBloomFilter, op: fn(u64, u64) -> u64) -> Result<()> {
        self.check_compatible(other)?;
        let snapshot: Option<Vec<u64>> = std::ptr::eq(self, other).then(|| self.words().collect());
        for i in 0..self.counters.len_words() {
            let b = snapshot
                .as_ref()
                .map_or_else(|| other.counters.word(i), |s| s[i]);
            self.counters.update_word(i, |a| op(a, b));
        }
        Ok(())
    }

    /// The plain filter of the same shape and strategy with bit i set exactly when counter i is
    /// nonzero: byte-identical to a [`BloomFilter`] put the keys still present, while no counter
    /// saturated.
    pub fn to_bloom_filter(&self) -> Result<BloomFilter> {
        let num_words = self.num_bits().div_ceil(64) as usize;
        let mut bits = Vec::new();
        bits.try_reserve_exact(num_words).map_err(|_| {
            Error::allocation("the bit array", (num_words as u64).saturating_mul(8))
        })?;
        bits.resize(num_words, 0u64);
        for (i, word) in self.counters.words().enumerate() {
            let mut present = nonzero_nibbles(word);
            while present != 0 {
                let position = i as u64 * PER_WORD + (present.trailing_zeros() / 4) as u64;
                bits[(position >> 6) as usize] |= 1 << (position & 63);
                present &= present - 1;
            }
        }
        BloomFilter::from_words_with_shape(bits, self.shape(), self.strategy)
    }

    /// Number of counters stuck at 15 (see the type's doc).
    pub fn saturated_counters(&self) -> u64 {
        self.counters
            .words()
            .map(|w| saturated_nibbles(w).count_ones() as u64)
            .sum()
    }

    /// Number of nonzero counters: the bits set of [`to_bloom_filter`](Self::to_bloom_filter).
    pub fn nonzero_counters(&self) -> u64 {
        self.counters
            .words()
            .map(|w| nonzero_nibbles(w).count_ones() as u64)
            .sum()
    }

    /// Sets every counter to 0.
    pub fn clear(&self) {
        self.counters.clear()
    }

    /// An independent copy; allocation failure is an error.
    pub fn try_clone(&self) -> Result<CountingBloomFilter> {
        Ok(CountingBloomFilter::from_counters(
            self.counters.try_clone()?,
            self.shape(),
            self.strategy,
        ))
    }

    /// The counter words (counter i in word i >> 4 at bits 4·(i & 15)), one snapshot each.
    pub fn words(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.counters.words()
    }

    /// The words of a filter the caller owns exclusively (decoders filling a new filter).
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        self.counters.words_mut()
    }

    #[inline(always)]
    fn add_hash(&self, hash: Hash128) -> bool {
        let mut changed = false;
        self.indexer.for_each(hash, |index| {
            changed |= self.counters.increment(index);
            true
        });
        changed
    }

    #[inline(always)]
    fn remove_hash(&self, hash: Hash128) -> bool {
        if !self.contains_hash(hash) {
            return false;
        }
        self.indexer.for_each(hash, |index| {
            self.counters.decrement(index);
            true
        });
        true
    }

    #[inline(always)]
    fn contains_hash(&self, hash: Hash128) -> bool {
        self.indexer
            .for_each(hash, |index| self.counters.get(index) != 0)
    }

    fn count_hash(&self, hash: Hash128) -> u8 {
        let mut min = counters::MAX;
        self.indexer.for_each(hash, |index| {
            min = min.min(self.counters.get(index));
            min != 0
        });
        min
    }
}

/// The lowest nonzero counter at or above `num_bits` in the last of ⌈m/16⌉ words, if any.
pub(crate) fn first_counter_at_or_above(words: &[u64], num_bits: u64) -> Option<u64> {
    let used = (num_bits % PER_WORD) as u32;
    let last = *words.last()?;
    if used == 0 {
        return None;
    }
    let above = nonzero_nibbles(last) & (u64::MAX << (used * 4));
    (above != 0).then(|| (words.len() as u64 - 1) * PER_WORD + (above.trailing_zeros() / 4) as u64)
}

crate::filter::clone_and_eq!(CountingBloomFilter);

impl std::fmt::Debug for CountingBloomFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CountingBloomFilter")
            .field("num_bits", &self.num_bits())
            .field("num_hashes", &self.num_hashes())
            .field("strategy", &self.strategy)
            .field("nonzero_counters", &self.nonzero_counters())
            .field("saturated_counters", &self.saturated_counters())
            .finish()
    }
}

#[cfg(test)]
mod tests;
