//! The standard traits of [`BloomFilter`]: clone, equality and hashing of shape, strategy and
//! bits, and a debug view; clone and equality for the counting filter too.

use super::BloomFilter;

/// `Clone` (panicking if the copy cannot be allocated, as `Vec`'s clone aborts; `try_clone`
/// returns an error instead) and equality of shape, strategy and words, for `$T` (both filters).
macro_rules! clone_and_eq {
    ($T:ty) => {
        impl Clone for $T {
            fn clone(&self) -> $T {
                let copy = self.try_clone();
                copy.unwrap_or_else(|e| panic!("{}::clone: {e}", stringify!($T)))
            }
        }

        impl PartialEq for $T {
            fn eq(&self, other: &$T) -> bool {
                self.check_compatible(other).is_ok() && self.words().eq(other.words())
            }
        }

        impl Eq for $T {}
    };
}
pub(crate) use clone_and_eq;

clone_and_eq!(BloomFilter);

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
