//! The standard traits of [`BloomFilter`]: clone, equality and hashing of shape, strategy and
//! bits, and a debug view.

use super::BloomFilter;

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

/// Hashes what [`PartialEq`] compares (shape, strategy, words), so equal filters hash equally:
/// a filter can key a `HashMap`, and the JNI bridge's `hashCode` can follow `equals`. Words
/// that other threads are writing are hashed as a snapshot, as `==` compares them.
impl std::hash::Hash for BloomFilter {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.shape().hash(state);
        self.strategy.hash(state);
        self.words().for_each(|word| word.hash(state));
    }
}

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
