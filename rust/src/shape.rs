//! A filter's shape (m bits, k hashes), its limits, and the checks of the (n, p) arguments that
//! every sizing shares (Guava's, best practice, BLOCKED's).

use crate::error::{Error, Result, display_f64};

/// Largest bit array a filter may have: 2^43 bits (1 TiB). Far above Guava's and Spark's
/// ~1.37·10^11 (a `long[]` of at most 2^31−1 words), and every index fits a `u64`.
pub const MAX_NUM_BITS: u64 = 1 << 43;

/// Largest number of hash functions: Guava's `writeTo` stores k in one unsigned byte.
pub const MAX_NUM_HASHES: u32 = 255;

/// The shape of a filter: bit count (a whole number of 64-bit words) and hash count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Bits in the array (m): a positive multiple of 64, at most [`MAX_NUM_BITS`].
    pub num_bits: u64,
    /// Bit positions per key (k, Guava's `numHashFunctions`): 1..=[`MAX_NUM_HASHES`].
    pub num_hashes: u32,
}

pub(crate) fn check_insertions(expected_insertions: u64) -> Result<()> {
    // u64 cannot be negative; the JNI layer rejects negative Java longs before they get here.
    if expected_insertions == 0 || expected_insertions > i64::MAX as u64 {
        return Err(Error::invalid(
            "expectedInsertions",
            format!("{expected_insertions} is not in 1..={}", i64::MAX),
        ));
    }
    Ok(())
}

pub(crate) fn check_fpp(fpp: f64) -> Result<()> {
    if fpp.is_nan() || fpp <= 0.0 || fpp >= 1.0 {
        return Err(Error::invalid(
            "fpp",
            format!("{} is not in the open interval (0, 1)", display_f64(fpp)),
        ));
    }
    Ok(())
}
