//! Sizing: from (expected insertions `n`, target false-positive probability `p`) to
//! (bits `m`, hash functions `k`), computed exactly as Guava's `BloomFilter.create` computes
//! them so that a filter built here and one built by Guava have the same shape.
//!
//! Every Guava takes m = ⌊−n·ln p / ln²2⌋ rounded up to whole words, but k has changed:
//! Guava 33.8 (the Guava we test against) takes k = round(−ln p / ln 2); Guava 17–33.4
//! took round(bits/n · ln 2); Guava 14.0.1 (Spark's shaded copy) took round((bits / n) · ln 2)
//! with an integer division. They differ only near rounding boundaries (k from p vs from
//! bits: only for n ≤ 3 over a 182-cell grid). New MITZ_64 filters follow Guava 33.8; new
//! MITZ_32 filters follow Guava 14.0.1, the only Guava whose MITZ_32 filters users still make.

use crate::error::{Error, Result, display_f64};
use crate::strategy::Strategy;
use std::f64::consts::LN_2;

pub use crate::per_key_sizing::{per_key_shape, walk_rate};
pub use crate::shape::{MAX_NUM_BITS, MAX_NUM_HASHES, Shape};
pub(crate) use crate::shape::{check_fpp, check_insertions};

/// Which rule `num_bits` breaks as a filter's bit count, if any: positive and at most
/// [`MAX_NUM_BITS`]. Shared by the constructors and the decoders so both say the same.
pub(crate) fn num_bits_violation(num_bits: u64) -> Option<String> {
    if num_bits == 0 {
        Some("is not positive".to_owned())
    } else if num_bits > MAX_NUM_BITS {
        Some(format!("exceeds the maximum of {MAX_NUM_BITS} bits (2^43)"))
    } else {
        None
    }
}

/// Guava's `optimalNumOfBits`: ⌊−n·ln p / ln²2⌋, before rounding up to whole words.
pub fn optimal_num_of_bits(expected_insertions: u64, fpp: f64) -> Result<u64> {
    check_insertions(expected_insertions)?;
    check_fpp(fpp)?;
    let bits = -(expected_insertions as f64) * fpp.ln() / (LN_2 * LN_2);
    if bits.is_nan() || bits >= MAX_NUM_BITS as f64 {
        return Err(Error::invalid(
            "expectedInsertions",
            format!(
                "{expected_insertions} insertions at fpp {} need {} bits, more than the maximum {MAX_NUM_BITS}",
                display_f64(fpp),
                display_f64(bits.round())
            ),
        ));
    }
    Ok(bits as u64)
}

/// Guava's `optimalNumOfHashFunctions(n, m)`: max(1, round(m/n · ln 2)), capped at 255.
pub fn optimal_num_of_hashes(expected_insertions: u64, num_bits: u64) -> Result<u32> {
    check_insertions(expected_insertions)?;
    let k = java_round(num_bits as f64 / expected_insertions as f64 * LN_2).max(1);
    Ok(k.min(MAX_NUM_HASHES as i64) as u32)
}

/// Guava 33.8's `optimalNumOfHashFunctions(p)`: max(1, round(−ln p / ln 2)), capped at 255.
pub fn optimal_num_of_hashes_for_fpp(fpp: f64) -> Result<u32> {
    check_fpp(fpp)?;
    Ok(java_round(-fpp.ln() / LN_2).clamp(1, MAX_NUM_HASHES as i64) as u32)
}

/// The shape Guava 33.8's `BloomFilter.create(funnel, n, p)` gives: bits from (n, p) rounded up
/// to whole 64-bit words, k from p.
///
/// ```
/// use sparkbloom::sizing::{optimal_num_of_bits, shape_for};
/// use sparkbloom::Shape;
///
/// // The per-user filter of the README: 143,775 bits round up to 2,247 words.
/// assert_eq!(optimal_num_of_bits(10_000, 0.001)?, 143_775);
/// assert_eq!(shape_for(10_000, 0.001)?, Shape { num_bits: 143_808, num_hashes: 10 });
/// // Guava 31.1's create(longFunnel(), 100, 0.03).
/// assert_eq!(shape_for(100, 0.03)?, Shape { num_bits: 768, num_hashes: 5 });
/// # Ok::<(), sparkbloom::Error>(())
/// ```
pub fn shape_for(expected_insertions: u64, fpp: f64) -> Result<Shape> {
    let bits = optimal_num_of_bits(expected_insertions, fpp)?;
    Ok(Shape {
        num_bits: round_up_to_words(bits.max(1))?,
        num_hashes: optimal_num_of_hashes_for_fpp(fpp)?,
    })
}

/// The shape Guava 14.0.1's `create(funnel, n, p)` gives: the same bits, but k =
/// round((bits / n) · ln 2) with an integer division, e.g. 6 instead of 7 for (500000, 0.01).
pub fn guava14_shape_for(expected_insertions: u64, fpp: f64) -> Result<Shape> {
    let bits = optimal_num_of_bits(expected_insertions, fpp)?;
    let k = java_round((bits / expected_insertions) as f64 * LN_2).clamp(1, MAX_NUM_HASHES as i64);
    Ok(Shape {
        num_bits: round_up_to_words(bits.max(1))?,
        num_hashes: k as u32,
    })
}

/// The shape Spark's `spark-sketch` `BloomFilter.create(n, p)` gives: m = ⌊−n·ln p / ln²2⌋
/// rounded up to whole words, k = max(1, round(m/n · ln 2)) from m before rounding.
pub fn spark_shape_for(expected_insertions: u64, fpp: f64) -> Result<Shape> {
    let bits = optimal_num_of_bits(expected_insertions, fpp)?;
    Ok(Shape {
        num_bits: round_up_to_words(bits.max(1))?,
        num_hashes: optimal_num_of_hashes(expected_insertions, bits.max(1))?,
    })
}

/// The shape a new filter of `strategy` gets: Guava 33.8's for MITZ_64, Guava 14.0.1's for
/// MITZ_32 (so it merges with filters converted from Spark's shaded Guava), Spark's
/// `BloomFilter.create` for the Spark sketch strategies, [`crate::blocked_sizing`]'s for
/// BLOCKED.
pub fn shape_for_strategy(expected_insertions: u64, fpp: f64, strategy: Strategy) -> Result<Shape> {
    match strategy {
        Strategy::Murmur128Mitz64 => shape_for(expected_insertions, fpp),
        Strategy::Murmur128Mitz32 => guava14_shape_for(expected_insertions, fpp),
        Strategy::SparkSketchV1 | Strategy::SparkSketchV2 => {
            spark_shape_for(expected_insertions, fpp)
        }
        Strategy::Blocked => crate::blocked_sizing::shape_for(expected_insertions, fpp),
    }
}

/// The shape of the "BloomFilterHelper" that services run on plain Redis `SETBIT`/`GETBIT`
///: m = ⌊−n·ln p / ln²2⌋ **not** rounded up to whole words, k = max(1, round(m/n ·
/// ln 2)). Its offsets are Guava's `MURMUR128_MITZ_32` walk over that m.
///
/// The helper holds n and m in Java `int`s: beyond `Integer.MAX_VALUE` its casts saturate and its
/// filter would be another than the one asked for, and so would one of more than 255 hash
/// functions (the core's cap, which the helper lacks); each is an error naming the limit.
pub fn redis_helper_shape(expected_insertions: u64, fpp: f64) -> Result<Shape> {
    if expected_insertions > HELPER_INT_MAX {
        return Err(Error::invalid(
            "expectedInsertions",
            format!(
                "{expected_insertions} is more than the helper's Java int limit of \
                 {HELPER_INT_MAX} (a Guava-compatible layout holds larger filters)"
            ),
        ));
    }
    let num_bits = optimal_num_of_bits(expected_insertions, fpp)?;
    if num_bits == 0 {
        return Err(Error::invalid(
            "fpp",
            format!(
                "{expected_insertions} insertions at fpp {} give 0 bits",
                display_f64(fpp)
            ),
        ));
    }
    let k = java_round(num_bits as f64 / expected_insertions as f64 * LN_2).max(1);
    if num_bits > HELPER_INT_MAX || k > i64::from(MAX_NUM_HASHES) {
        return Err(Error::invalid(
            "fpp",
            format!(
                "{expected_insertions} insertions at fpp {} need {num_bits} bits and {k} hash \
                 functions, more than the helper's Java int bit count holds ({HELPER_INT_MAX} = \
                 Integer.MAX_VALUE) or than {MAX_NUM_HASHES} hash functions (a Guava-compatible \
                 layout holds larger filters)",
                display_f64(fpp)
            ),
        ));
    }
    Ok(Shape {
        num_bits,
        num_hashes: k as u32, // 1..=255, checked above
    })
}

/// The largest n and m the Redis helper's Java `int`s hold: `Integer.MAX_VALUE`.
const HELPER_INT_MAX: u64 = i32::MAX as u64;

/// The best-practice lookup of ClickHouse's `calculationBestPractices`: the smallest
/// whole bits-per-key `b`, then the smallest `k`, whose theoretical FPP (1 − e^(−k/b))^k ≤ `fpp`.
/// Returns `(bits_per_key, k)`. [`BloomFilter::with_best_practice`](crate::BloomFilter::with_best_practice)
/// builds a filter of this sizing.
///
/// ```
/// use sparkbloom::sizing::{best_practice, theoretical_fpp};
///
/// assert_eq!(best_practice(0.025)?, (8, 4));
/// assert_eq!(best_practice(0.01)?, (10, 5));
/// assert!(theoretical_fpp(10.0, 5) <= 0.01 && theoretical_fpp(9.0, 5) > 0.01);
/// # Ok::<(), sparkbloom::Error>(())
/// ```
pub fn best_practice(fpp: f64) -> Result<(u32, u32)> {
    check_fpp(fpp)?;
    for bits_per_key in 1..=MAX_BITS_PER_KEY {
        for k in 1..=MAX_NUM_HASHES.min(bits_per_key) {
            if theoretical_fpp(bits_per_key as f64, k) <= fpp {
                return Ok((bits_per_key, k));
            }
        }
    }
    Err(Error::invalid(
        "fpp",
        format!("{fpp} needs more than {MAX_BITS_PER_KEY} bits per key"),
    ))
}

/// The shape of [`best_practice`] for `n` keys: m = n·b rounded up to whole words.
///
/// ```
/// use sparkbloom::sizing::best_practice_shape;
/// use sparkbloom::Shape;
///
/// // 1,000 keys × 10 bits = 10,000 bits, rounded up to 157 words.
/// assert_eq!(best_practice_shape(1_000, 0.01)?, Shape { num_bits: 10_048, num_hashes: 5 });
/// # Ok::<(), sparkbloom::Error>(())
/// ```
pub fn best_practice_shape(expected_insertions: u64, fpp: f64) -> Result<Shape> {
    check_insertions(expected_insertions)?;
    let (bits_per_key, num_hashes) = best_practice(fpp)?;
    let bits = expected_insertions
        .checked_mul(bits_per_key as u64)
        .ok_or_else(|| {
            Error::invalid(
                "expectedInsertions",
                format!("{expected_insertions} × {bits_per_key} bits overflows"),
            )
        })?;
    Ok(Shape {
        num_bits: round_up_to_words(bits)?,
        num_hashes,
    })
}

/// (1 − e^(−k/b))^k: the false-positive probability with `b` bits per key and `k` hashes.
pub fn theoretical_fpp(bits_per_key: f64, num_hashes: u32) -> f64 {
    (1.0 - (-(num_hashes as f64) / bits_per_key).exp()).powi(num_hashes as i32)
}

/// Upper bound of the best-practice search: 64 bits per key reach p ≈ 1e-13.
const MAX_BITS_PER_KEY: u32 = 64;

/// Rounds a bit count up to a whole number of 64-bit words and checks the maximum.
pub fn round_up_to_words(num_bits: u64) -> Result<u64> {
    if num_bits == 0 || num_bits > MAX_NUM_BITS {
        return Err(Error::invalid(
            "numBits",
            format!("{num_bits} is not in 1..={MAX_NUM_BITS}"),
        ));
    }
    Ok(num_bits.div_ceil(64) * 64)
}

/// Checks a hash count against 1..=255.
pub fn check_num_hashes(num_hashes: u32) -> Result<()> {
    if num_hashes == 0 || num_hashes > MAX_NUM_HASHES {
        return Err(Error::invalid(
            "numHashFunctions",
            format!("{num_hashes} is not in 1..={MAX_NUM_HASHES}"),
        ));
    }
    Ok(())
}

/// Whether two filters (or counting filters) can be combined: an error naming every parameter
/// that differs (m, k, strategy), if any.
pub(crate) fn check_compatible(a: (Shape, Strategy), b: (Shape, Strategy)) -> Result<()> {
    let ((shape, strategy), (other, other_strategy)) = (a, b);
    let mut mismatches = Vec::new();
    if shape.num_bits != other.num_bits {
        mismatches.push(format!("numBits {} vs {}", shape.num_bits, other.num_bits));
    }
    if shape.num_hashes != other.num_hashes {
        mismatches.push(format!(
            "numHashFunctions {} vs {}",
            shape.num_hashes, other.num_hashes
        ));
    }
    if strategy != other_strategy {
        mismatches.push(format!("strategy {strategy} vs {other_strategy}"));
    }
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(Error::Incompatible(mismatches.join(", ")))
    }
}

/// `Math.round(double)` of Java: floor(x + 0.5), saturating.
fn java_round(x: f64) -> i64 {
    (x + 0.5).floor() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_helper_shapes_are_not_rounded() {
        // The helper: (int) (-10000 · ln 0.001 / ln²2) = 143775, k = round(143775/10000 · ln 2) = 10.
        assert_eq!(
            redis_helper_shape(10_000, 0.001).unwrap(),
            Shape {
                num_bits: 143_775,
                num_hashes: 10
            }
        );
        assert!(redis_helper_shape(1, 0.9).is_err(), "0 bits");
    }

    #[test]
    fn redis_helper_shapes_stop_at_the_helpers_int_limits() {
        let too_many = redis_helper_shape(1 << 31, 0.01).unwrap_err().to_string();
        assert!(too_many.contains("expectedInsertions") && too_many.contains("2147483647"));
        // 10^9 keys at 10^-9: 43,132,616,875 bits, beyond the helper's int.
        let too_large = redis_helper_shape(1_000_000_000, 1e-9)
            .unwrap_err()
            .to_string();
        assert!(too_large.contains("Integer.MAX_VALUE"), "{too_large}");
        // 10 keys at 10^-100: 4,792 bits is fine, but k = 332 exceeds 255.
        let too_many_hashes = redis_helper_shape(10, 1e-100).unwrap_err().to_string();
        assert!(
            too_many_hashes.contains("332 hash functions"),
            "{too_many_hashes}"
        );
        assert_eq!(redis_helper_shape(1 << 30, 0.5).unwrap().num_hashes, 1); // 1,549,082,005 bits
    }

    #[test]
    fn guava_shapes() {
        // Guava 31.1: create(longFunnel(), 100, 0.03) → m = 768, k = 5.
        assert_eq!(
            shape_for(100, 0.03).unwrap(),
            Shape {
                num_bits: 768,
                num_hashes: 5
            }
        );
        // The Redis helper's per-user filter: 143,775 bits → 2,247 words, k = 10.
        assert_eq!(
            shape_for(10_000, 0.001).unwrap(),
            Shape {
                num_bits: 143_808,
                num_hashes: 10
            }
        );
        assert_eq!(optimal_num_of_bits(10_000, 0.001).unwrap(), 143_775);
        // Guava 33.8 takes k from p; Guava 31 took it from the bits: they differ at tiny n.
        assert_eq!(shape_for(1, 0.01).unwrap().num_hashes, 7);
        assert_eq!(
            optimal_num_of_hashes(1, optimal_num_of_bits(1, 0.01).unwrap()).unwrap(),
            6
        );
        // Guava 14.0.1's integer division: (500000, 0.01) has k = 6 there, 7 since.
        let legacy = shape_for_strategy(500_000, 0.01, Strategy::Murmur128Mitz32).unwrap();
        assert_eq!(
            legacy,
            Shape {
                num_bits: 4_792_576,
                num_hashes: 6
            }
        );
        assert_eq!(
            shape_for_strategy(500_000, 0.01, Strategy::Murmur128Mitz64)
                .unwrap()
                .num_hashes,
            7
        );
    }

    #[test]
    fn bad_arguments_name_the_argument() {
        for (n, p, name) in [
            (0, 0.01, "expectedInsertions"),
            (10, 0.0, "fpp"),
            (10, 1.0, "fpp"),
            (10, -0.5, "fpp"),
            (10, f64::NAN, "fpp"),
            (u64::MAX, 0.01, "expectedInsertions"),
            (i64::MAX as u64, 1e-9, "expectedInsertions"),
        ] {
            match shape_for(n, p) {
                Err(Error::InvalidArgument { name: got, .. }) => {
                    assert_eq!(got, name, "n={n} p={p}")
                }
                other => panic!("n={n} p={p}: {other:?}"),
            }
        }
        assert!(round_up_to_words(0).is_err());
        assert!(round_up_to_words(MAX_NUM_BITS + 1).is_err());
        assert_eq!(round_up_to_words(MAX_NUM_BITS).unwrap(), MAX_NUM_BITS);
        assert!(check_num_hashes(0).is_err() && check_num_hashes(256).is_err());
    }

    #[test]
    fn best_practice_matches_clickhouse_table() {
        // ClickHouse calculationBestPractices: 0.025 → (8, 4), 0.01 → (10, 5).
        assert_eq!(best_practice(0.025).unwrap(), (8, 4));
        assert_eq!(best_practice(0.01).unwrap(), (10, 5));
        let (b, k) = best_practice(0.001).unwrap();
        assert!(theoretical_fpp(b as f64, k) <= 0.001);
        assert!((1..=b - 1).all(|b2| (1..=b2).all(|k2| theoretical_fpp(b2 as f64, k2) > 0.001)));
        assert!(best_practice(1e-300).is_err());
        assert_eq!(
            best_practice_shape(1000, 0.01).unwrap(),
            Shape {
                num_bits: 10_048,
                num_hashes: 5
            }
        );
    }
}
