//! Per-key sizing: the shape of a filter made for a key whose distinct items are counted before
//! it is built (a static rebuild of per-user history), so that it meets the target
//! false-positive rate **as measured** on Guava's double-hashing walk, with as few bits as that
//! allows. The JVM's `Sizing.perKeyCount(p)`, the CLI's `build --per-key --sizing per-key` and
//! the Python package's `per_key_shape` all call [`per_key_shape`].
//!
//! # The rate of a walk, not of k independent hashes
//!
//! The textbook rate (1 − e^(−kn/m))^k assumes k independent positions per key. Guava places a
//! key at h1 + i·h2 mod m (i < k), and in a filter of a few words those walks are far from
//! independent: a query whose step h2 is 0 mod m (1 in m) tests one bit, set with probability
//! about kn/m; a query with the step of one of the n items, starting within k − 1 steps of it
//! (about 2k in m² per item), tests mostly that item's bits. Together they add about
//! 2(k + 1)·n/m² to the rate, which the textbook leaves out and which dominates where m is
//! small: for 17 items in 256 bits with k = 7 it is 2·8·17/256² ≈ 0.0041, four times the
//! textbook 0.001.
//! [`walk_rate`] is the textbook rate plus that term, an upper bound of the measured rate over
//! m = 64 to 2^18 and n = 1 to 10^4 for every strategy that walks so (both MITZ strategies and
//! Spark's sketch; `rust/tests/per_key_fpp.rs` measures it on 10^7 queries per cell).
//!
//! # The rule
//!
//! m is the fewest whole 64-bit words for which some k in 1..=255 has [`walk_rate`] ≤ p, and k
//! the fewest hash functions that reach p there. m is never below the textbook minimum
//! −n·ln p / ln²2 (the extra term only adds bits), and is a whole number of words, so the
//! filter converts to Guava's stream. Small keys get more bits than the textbook gives them
//! (at p = 0.001: one item 128 bits, 17 items 448; at 10^-6 a 1,000-item key 94,464 bits, where
//! Guava's own 28,800-bit shape measures 8.9·p), large ones about the same (10,000 items:
//! within 1 % of Guava's m).

use crate::error::{Error, Result, display_f64};
use crate::shape::{MAX_NUM_BITS, MAX_NUM_HASHES, Shape, check_fpp, check_insertions};
use std::cell::RefCell;
use std::f64::consts::LN_2;

/// The rate [`per_key_shape`] sizes by: the textbook (1 − e^(−kn/m))^k plus what Guava's walk
/// adds to it (module docs), with ρ = 1 − e^(−kn/m) the filter's expected fill:
///
/// * a query whose step has order L < k in Z_m (φ(L) of the m steps, for L a power of two)
///   tests L positions instead of k: (1/m)·Σ φ(L)·(ρ^L − ρ^k);
/// * a query whose step is ± an item's and whose start is t steps from it (2 in m² per item and
///   t, |t| < k) needs only |t| positions beyond the item's: (2n/m²)·Σ_t ρ^|t|.
///
/// Both are exact where m is a power of two (every walk an arithmetic progression mod m); for
/// other m, Guava's `& Long.MAX_VALUE` wraps break the progressions and the rate measures lower.
pub fn walk_rate(distinct_items: u64, num_bits: u64, num_hashes: u32) -> f64 {
    let (n, m, k) = (
        distinct_items.max(1) as f64,
        num_bits as f64,
        num_hashes as i32,
    );
    let fill = -(-(k as f64) * n / m).exp_m1();
    let textbook = fill.powi(k);
    let mut short_walks = 0.0;
    let (mut order, mut steps) = (1u64, 1.0);
    while order < num_hashes as u64 && order <= num_bits {
        short_walks += steps * (fill.powi(order as i32) - textbook);
        steps = order as f64; // φ(2L) = L
        order *= 2;
    }
    // 1 + 2·(ρ + ρ² + … + ρ^(k−1)), the shifts of both signs
    let shifts = if fill < 1.0 {
        1.0 + 2.0 * fill * (1.0 - fill.powi(k - 1)) / (1.0 - fill)
    } else {
        (2 * k - 1) as f64
    };
    textbook + short_walks / m + 2.0 * n * shifts / (m * m)
}

/// The per-key shape for `distinct_items` distinct items (0 counts as 1: an empty key's filter
/// is the smallest) at target rate `fpp` in (0, 1): the rule of the module docs.
///
/// ```
/// use sparkbloom::sizing::{per_key_shape, walk_rate};
/// use sparkbloom::Shape;
///
/// let shape = per_key_shape(200, 0.001)?;
/// assert_eq!(shape, Shape { num_bits: 3_136, num_hashes: 8 });
/// assert!(walk_rate(200, shape.num_bits, shape.num_hashes) <= 0.001);
/// assert!((1..=255).all(|k| walk_rate(200, shape.num_bits - 64, k) > 0.001));
/// # Ok::<(), sparkbloom::Error>(())
/// ```
///
/// # Errors
/// `InvalidArgument` naming `fpp` outside (0, 1), or `expectedInsertions` when the filter would
/// exceed 2^43 bits.
pub fn per_key_shape(distinct_items: u64, fpp: f64) -> Result<Shape> {
    check_fpp(fpp)?;
    let n = distinct_items.max(1);
    check_insertions(n)?;
    if let Some(shape) = cached(n, fpp) {
        return Ok(shape);
    }
    let shape = search(n, fpp)?;
    remember(n, fpp, shape);
    Ok(shape)
}

/// The fewest words meeting `fpp`: an exponential search up from the textbook minimum, then a
/// binary search in the last step (the lowest rate over k falls as m grows).
fn search(n: u64, fpp: f64) -> Result<Shape> {
    let max_words = MAX_NUM_BITS / 64;
    let textbook_bits = -(n as f64) * fpp.ln() / (LN_2 * LN_2);
    let too_large = || {
        Error::invalid(
            "expectedInsertions",
            format!(
                "a per-key filter for {n} items at fpp {} would exceed 2^43 bits",
                display_f64(fpp)
            ),
        )
    };
    // No k reaches fpp below the textbook minimum, nor below √(2n/p), where the aligned walks'
    // term 2n/m² alone exceeds it: the words up to the larger bound all fail.
    let lower_bits = textbook_bits.max((2.0 * n as f64 / fpp).sqrt());
    if lower_bits.is_nan() || lower_bits >= MAX_NUM_BITS as f64 {
        return Err(too_large());
    }
    let mut below = ((lower_bits / 64.0).floor() as u64).max(1) - 1;
    let mut step = 1;
    let mut above = loop {
        let words = below + step;
        if words > max_words {
            if meets(n, max_words * 64, fpp) {
                break max_words;
            }
            return Err(too_large());
        }
        if meets(n, words * 64, fpp) {
            break words;
        }
        below = words;
        step *= 2;
    };
    while above - below > 1 {
        let mid = below + (above - below) / 2;
        if meets(n, mid * 64, fpp) {
            above = mid;
        } else {
            below = mid;
        }
    }
    let num_bits = above * 64;
    let num_hashes = (1..=MAX_NUM_HASHES)
        .find(|&k| walk_rate(n, num_bits, k) <= fpp)
        .ok_or_else(too_large)?;
    Ok(Shape {
        num_bits,
        num_hashes,
    })
}

/// Whether some k reaches `fpp` with `num_bits`. The rate is convex in k (a convex textbook
/// term plus a linear one), so the walk over k stops where it turns upward.
fn meets(n: u64, num_bits: u64, fpp: f64) -> bool {
    let mut previous = f64::INFINITY;
    for k in 1..=MAX_NUM_HASHES {
        let rate = walk_rate(n, num_bits, k);
        if rate <= fpp {
            return true;
        }
        if rate > previous {
            return false;
        }
        previous = rate;
    }
    false
}

/// Entries of the per-thread cache: per-key builds ask for the same few (n, p) again and again
/// (a million users share a few thousand distinct counts), and a search costs microseconds.
const CACHE_ENTRIES: usize = 512;

type CacheEntry = Option<(u64, u64, Shape)>;

thread_local! {
    static CACHE: RefCell<[CacheEntry; CACHE_ENTRIES]> =
        const { RefCell::new([None; CACHE_ENTRIES]) };
}

fn slot(n: u64, fpp: f64) -> usize {
    let h = (n ^ fpp.to_bits().rotate_left(17)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> 55) as usize % CACHE_ENTRIES
}

fn cached(n: u64, fpp: f64) -> Option<Shape> {
    CACHE.with(|cache| match cache.borrow()[slot(n, fpp)] {
        Some((cn, cp, shape)) if cn == n && cp == fpp.to_bits() => Some(shape),
        _ => None,
    })
}

fn remember(n: u64, fpp: f64, shape: Shape) {
    CACHE.with(|cache| cache.borrow_mut()[slot(n, fpp)] = Some((n, fpp.to_bits(), shape)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sizing::optimal_num_of_bits;

    /// The shape is the fewest words meeting p, checked against a plain scan word by word.
    #[test]
    fn the_search_finds_the_fewest_words() {
        for n in [1, 2, 3, 5, 17, 50, 200, 1_000, 10_000] {
            for p in [0.1, 0.01, 1e-3, 1e-4, 1e-6, 1e-9] {
                let shape = per_key_shape(n, p).unwrap();
                let scan = (1u64..).find(|&w| meets(n, w * 64, p)).unwrap() * 64;
                assert_eq!(shape.num_bits, scan, "n={n} p={p}");
                assert!(walk_rate(n, shape.num_bits, shape.num_hashes) <= p);
                let fewer = shape.num_hashes - 1;
                assert!(fewer == 0 || walk_rate(n, shape.num_bits, fewer) > p);
                // Never fewer bits than the textbook rule.
                assert!(
                    shape.num_bits >= optimal_num_of_bits(n, p).unwrap(),
                    "n={n} p={p}"
                );
            }
        }
    }

    #[test]
    fn large_keys_cost_about_guavas_bits() {
        let guava = crate::sizing::shape_for(10_000, 0.001).unwrap().num_bits;
        let ours = per_key_shape(10_000, 0.001).unwrap().num_bits;
        assert!(
            ours >= guava && (ours as f64) < guava as f64 * 1.01,
            "{ours} vs {guava}"
        );
    }

    #[test]
    fn zero_items_size_as_one_and_bad_arguments_are_named() {
        assert_eq!(
            per_key_shape(0, 0.01).unwrap(),
            per_key_shape(1, 0.01).unwrap()
        );
        for p in [0.0, 1.0, -1.0, f64::NAN] {
            assert!(matches!(
                per_key_shape(5, p),
                Err(Error::InvalidArgument { name: "fpp", .. })
            ));
        }
        assert!(matches!(
            per_key_shape(1 << 40, 1e-6),
            Err(Error::InvalidArgument {
                name: "expectedInsertions",
                ..
            })
        ));
    }

    #[test]
    fn the_cache_answers_as_the_search() {
        for n in 1..2_000 {
            let first = per_key_shape(n, 0.003).unwrap();
            assert_eq!(per_key_shape(n, 0.003).unwrap(), first);
            assert_eq!(search(n, 0.003).unwrap(), first);
        }
    }
}
