//! Sizing of [`Strategy::Blocked`](crate::Strategy::Blocked) filters: how many 512-bit blocks
//! and how many bits per key (k) meet a target false-positive probability p.
//!
//! A blocked filter's blocks do not fill evenly: with n keys over B blocks, a block's load J is
//! (nearly) Poisson with mean λ = n/B, and a key that is absent lands in a block of load J with
//! probability P(J = j). A block with j keys has a fraction F_j of its bits set, with mean
//! μ_j = 1 − (1 − 1/512)^(k·j) (every key sets k independent uniform positions of its block)
//! and the variance σ_j² of the occupancy of k·j throws into 512 cells, so
//!
//! FPP(λ, k) = Σ_j P(J = j) · E[F_j^k] ≈ Σ_j P(J = j) · (μ_j^k + C(k, 2)·μ_j^(k−2)·σ_j²).
//!
//! Loaded blocks answer "maybe" more often than the average one, so a blocked filter needs more
//! bits per key than the classic layout for the same p; the sizing here takes, over k, the
//! largest λ whose FPP is at most p (bisection: FPP grows with λ), then B = ⌈n/λ⌉. The Poisson
//! load is the pessimistic one (a binomial load varies less), so the expected FPP is at most p.
//!
//! | p | classic −ln p / ln²2 | BLOCKED (k) | Parquet split-block (8 words × 1 bit) |
//! |---|---|---|---|
//! | 10 % | 4.79 | 4.84 (3) | 6.0 |
//! | 1 % | 9.59 | 9.92 (6) | 10.5 |
//! | 0.1 % | 14.38 | 15.55 (9) | 16.9 |
//!
//! (bits per key; the test below asserts the BLOCKED column.)

use crate::error::{Error, Result, display_f64};
use crate::shape::{MAX_NUM_BITS, Shape, check_fpp, check_insertions};
use std::sync::Mutex;

/// Bits in a block: one 64-byte cache line.
pub const BLOCK_BITS: u64 = 512;

/// Most bits per key the sizing considers; beyond it a blocked filter gains nothing (a block
/// holds under one key at p = 10^-9 with k = 24).
const MAX_SIZED_HASHES: u32 = 24;

/// The expected false-positive probability of a blocked filter with `keys_per_block` keys per
/// block on average and `num_hashes` bits per key (the formula of the module docs).
pub fn false_positive_rate(keys_per_block: f64, num_hashes: u32) -> f64 {
    let lambda = keys_per_block;
    let k = num_hashes as i32;
    let cells = BLOCK_BITS as f64;
    // Per key: the probability that its k bits miss one given bit, and two given bits.
    let miss_one = (1.0 - 1.0 / cells).powi(k);
    let miss_two = (1.0 - 2.0 / cells).powi(k);
    let last = (lambda + 12.0 * lambda.sqrt() + 30.0) as u64;
    let mut p_load = (-lambda).exp();
    let (mut clear_one, mut clear_two) = (1.0f64, 1.0f64);
    let mut sum = 0.0;
    for j in 0..=last {
        // The fraction F of the block's bits that are set has mean μ and variance σ² (the
        // occupancy of k·j throws into 512 cells); an absent key's k independent positions
        // are all set with probability E[F^k] ≈ μ^k + C(k, 2)·μ^(k−2)·σ² (second order: the
        // block-to-block spread adds ~1 % of p at p = 1 %, which μ^k alone would miss).
        let mean = 1.0 - clear_one;
        let variance = ((cells - 1.0) * clear_two + clear_one) / cells - clear_one * clear_one;
        let per_block = mean.powi(k)
            + if k >= 2 {
                (k * (k - 1) / 2) as f64 * mean.powi(k - 2) * variance.max(0.0)
            } else {
                0.0
            };
        sum += p_load * per_block;
        clear_one *= miss_one;
        clear_two *= miss_two;
        p_load *= lambda / (j + 1) as f64;
    }
    sum
}

/// The largest mean block load (keys per block, at most 512) whose false-positive rate is at
/// most `fpp` with `num_hashes` bits per key.
fn max_keys_per_block(fpp: f64, num_hashes: u32) -> f64 {
    let (mut lo, mut hi) = (0.0, BLOCK_BITS as f64);
    if false_positive_rate(hi, num_hashes) <= fpp {
        return hi;
    }
    for _ in 0..50 {
        let mid = (lo + hi) / 2.0;
        if false_positive_rate(mid, num_hashes) <= fpp {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The (keys per block, k) with the most keys per block, i.e. the fewest bits per key, for
/// `fpp`; the last answer is remembered, since filters are usually made by the thousand with
/// one p.
pub fn keys_per_block(fpp: f64) -> (f64, u32) {
    static LAST: Mutex<Option<(u64, f64, u32)>> = Mutex::new(None);
    if let Ok(last) = LAST.lock()
        && let Some((bits, lambda, k)) = *last
        && bits == fpp.to_bits()
    {
        return (lambda, k);
    }
    // The optimum lies at or a little below the classic layout's k = −log2 p.
    let classic_k = (-fpp.log2()).round().clamp(1.0, MAX_SIZED_HASHES as f64) as u32;
    let best = (classic_k.saturating_sub(5).max(1)..=(classic_k + 1).min(MAX_SIZED_HASHES))
        .map(|k| (max_keys_per_block(fpp, k), k))
        .fold(
            (0.0, 1),
            |best, cand| if cand.0 > best.0 { cand } else { best },
        );
    if let Ok(mut last) = LAST.lock() {
        *last = Some((fpp.to_bits(), best.0, best.1));
    }
    best
}

/// Bits per key a blocked filter takes for `fpp` (512 / keys per block), and its k.
pub fn bits_per_key(fpp: f64) -> Result<(f64, u32)> {
    check_fpp(fpp)?;
    let (lambda, k) = keys_per_block(fpp);
    Ok((BLOCK_BITS as f64 / lambda, k))
}

/// The shape of a new blocked filter for `expected_insertions` keys at `fpp`: ⌈n/λ⌉ blocks of
/// 512 bits and the k of [`keys_per_block`].
///
/// ```
/// use sparkbloom::blocked_sizing::shape_for;
/// use sparkbloom::Shape;
///
/// // 10^7 keys at 1 %: 9.92 bits per key (classic: 9.59), k = 6.
/// let shape = shape_for(10_000_000, 0.01)?;
/// assert_eq!(shape.num_hashes, 6);
/// assert_eq!(shape.num_bits % 512, 0);
/// assert_eq!(shape.num_bits / 10_000, 9_918); // 9.918 bits per key
/// # Ok::<(), sparkbloom::Error>(())
/// ```
pub fn shape_for(expected_insertions: u64, fpp: f64) -> Result<Shape> {
    check_insertions(expected_insertions)?;
    let (_, k) = bits_per_key(fpp)?;
    let (lambda, _) = keys_per_block(fpp);
    let blocks = (expected_insertions as f64 / lambda).ceil().max(1.0);
    let bits = blocks * BLOCK_BITS as f64;
    if bits > MAX_NUM_BITS as f64 {
        return Err(Error::invalid(
            "expectedInsertions",
            format!(
                "{expected_insertions} insertions at fpp {} need {} bits in a BLOCKED filter, more than the maximum {MAX_NUM_BITS}",
                display_f64(fpp),
                display_f64(bits)
            ),
        ));
    }
    Ok(Shape {
        num_bits: bits as u64,
        num_hashes: k,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_per_key_table() {
        for (p, bits, k) in [(0.1, 4.84, 3), (0.01, 9.92, 6), (0.001, 15.55, 9)] {
            let (got, got_k) = bits_per_key(p).unwrap();
            assert!((got - bits).abs() < 0.005, "p={p}: {got}");
            assert_eq!(got_k, k, "p={p}");
            let classic = crate::sizing::optimal_num_of_bits(1_000_000, p).unwrap() as f64 / 1e6;
            assert!(
                got > classic,
                "blocked takes more bits than classic at p={p}"
            );
        }
    }

    /// The model against a direct evaluation of its sum for one load: a single block holding
    /// exactly the keys (λ → its Poisson mass) is checked through the limit λ = 0.
    #[test]
    fn empty_filter_has_no_false_positives_and_rate_grows_with_load() {
        assert_eq!(false_positive_rate(0.0, 7), 0.0);
        let rates: Vec<f64> = [1.0, 10.0, 50.0, 100.0, 512.0]
            .iter()
            .map(|&l| false_positive_rate(l, 7))
            .collect();
        assert!(rates.windows(2).all(|w| w[0] < w[1]), "{rates:?}");
    }

    #[test]
    fn shapes_meet_p_in_the_model_and_refuse_bad_arguments() {
        for p in [0.5, 0.1, 0.03, 0.01, 1e-3, 1e-5, 1e-9] {
            let shape = shape_for(1_000_000, p).unwrap();
            assert_eq!(shape.num_bits % BLOCK_BITS, 0);
            let lambda = 1e6 / (shape.num_bits / BLOCK_BITS) as f64;
            assert!(false_positive_rate(lambda, shape.num_hashes) <= p, "p={p}");
        }
        assert_eq!(shape_for(1, 0.01).unwrap().num_bits, 512);
        assert!(shape_for(0, 0.01).is_err());
        assert!(shape_for(10, 1.0).is_err());
        assert!(shape_for(1 << 42, 1e-9).is_err());
    }
}
