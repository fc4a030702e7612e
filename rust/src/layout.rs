//! Where a filter puts a key's k bits, apart from how the key is hashed: anywhere in the m bits
//! by a classic index walk (Guava's, Spark's), or inside one 512-bit block (BLOCKED). The
//! public [`Strategy`](crate::Strategy) names both at once, as Guava's and the Java API's
//! ordinals do; inside the crate each filter asks its [`Layout`].

/// The classic strategies' index walks over all m bits (`strategy::Indexer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Walk {
    /// Guava's MURMUR128_MITZ_32: 32-bit double hashing of the low hash half.
    Mitz32,
    /// Guava's MURMUR128_MITZ_64: 63-bit double hashing of both halves.
    Mitz64,
    /// Spark's sketch V1: int double hashing of the Murmur3_x86_32 pair.
    SparkV1,
    /// Spark's sketch V2: long double hashing of the Murmur3_x86_32 pair.
    SparkV2,
}

/// How a filter lays a key's k bits out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Layout {
    /// k indexes anywhere in the m bits, by `Walk`.
    Classic(Walk),
    /// k positions inside one 512-bit block (`blocked_layout`), m a multiple of 512: our own,
    /// with its own format version, batches and sizing.
    Blocked,
}

impl Layout {
    /// Whether a key's bits lie in one 512-bit block.
    pub(crate) fn is_blocked(self) -> bool {
        self == Layout::Blocked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Strategy;

    /// Each strategy keeps its own walk, ordinal and name; only BLOCKED is blocked.
    #[test]
    fn each_strategy_has_its_own_layout_and_only_blocked_is_blocked() {
        let layouts: Vec<Layout> = Strategy::ALL.iter().map(|s| s.layout()).collect();
        assert_eq!(
            layouts,
            [
                Layout::Classic(Walk::Mitz32),
                Layout::Classic(Walk::Mitz64),
                Layout::Classic(Walk::SparkV1),
                Layout::Classic(Walk::SparkV2),
                Layout::Blocked,
            ]
        );
        for strategy in Strategy::ALL {
            assert_eq!(strategy.layout().is_blocked(), strategy.name() == "BLOCKED");
            assert_eq!(Strategy::from_ordinal(strategy.ordinal()), Some(strategy));
        }
        assert_eq!(Strategy::Blocked.ordinal(), 4);
    }
}
