//! Per-key filters meet the rate they are sized for, as measured: for each (count, p) cell,
//! filters of `per_key_shape(n, p)` each hold n random keys and answer never-inserted keys, and
//! the false positives over Q queries must not exceed what a rate of p allows.
//!
//! Each query is a Bernoulli trial; at a true rate q ≤ p the count is Binomial(Q, q), at most
//! mean Qp and deviation √(Qp). A cell fails above Qp + 5√(Qp) + 1 (one-sided 5σ: probability
//! 3·10^-7 per cell at q = p, the +1 for the Poisson tail of the 10-count cells). Before the
//! walk-rate rule, 17 items at p = 0.001 measured 4.3·p here, and Guava's own shape for 1,000 items at
//! 10^-6 (28,800 bits, k = 20) 8.9·p.

use sparkbloom::sizing::per_key_shape;
use sparkbloom::{BloomFilter, Strategy};
use sparkbloom_testkit::splitmix64;

/// Queries per filter: many small filters, so each cell averages over many keys' walks.
const QUERIES_PER_FILTER: usize = 2_000;

/// Q for rate p: 10^4 expected false positives where that fits in 10^7 queries, else 10^7.
fn queries(p: f64) -> u64 {
    ((1e4 / p) as u64).min(10_000_000)
}

fn measure(n: u64, p: f64, strategy: Strategy, total: u64) -> (u64, u64) {
    let shape = per_key_shape(n, p).unwrap();
    let mut state = n.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ p.to_bits() ^ strategy as u64;
    let (mut false_positives, mut asked) = (0, 0);
    let mut answers = vec![false; QUERIES_PER_FILTER];
    while asked < total {
        let filter = BloomFilter::with_shape(shape, strategy).unwrap();
        let keys: Vec<u64> = (0..n).map(|_| splitmix64(&mut state)).collect();
        filter.put_all(&keys);
        assert!(
            filter.might_contain_all(&keys).iter().all(|&b| b),
            "false negative"
        );
        // Probes from the same stream: a collision with an inserted key has probability ~2^-50.
        let probes: Vec<u64> = (0..QUERIES_PER_FILTER)
            .map(|_| splitmix64(&mut state))
            .collect();
        filter
            .might_contain_all_into(&probes, &mut answers)
            .unwrap();
        false_positives += answers.iter().filter(|&&b| b).count() as u64;
        asked += QUERIES_PER_FILTER as u64;
    }
    (false_positives, asked)
}

fn check_cells(strategy: Strategy, counts: &[u64], rates: &[f64], total: impl Fn(f64) -> u64) {
    let mut failures = Vec::new();
    println!("| strategy | n | p | m | k | queries | measured | × p |");
    for &p in rates {
        for &n in counts {
            let (fp, q) = measure(n, p, strategy, total(p));
            let shape = per_key_shape(n, p).unwrap();
            let mean = q as f64 * p;
            let limit = mean + 5.0 * mean.sqrt() + 1.0;
            let rate = fp as f64 / q as f64;
            println!(
                "| {strategy} | {n} | {p:e} | {} | {} | {q} | {rate:.3e} | {:.2} |",
                shape.num_bits,
                shape.num_hashes,
                rate / p
            );
            if fp as f64 > limit {
                failures.push(format!(
                    "n={n} p={p:e}: {fp} false positives, at most {limit:.0}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{strategy}: {failures:#?}");
}

#[test]
fn per_key_filters_meet_their_rate_mitz_64() {
    check_cells(
        Strategy::Murmur128Mitz64,
        &[1, 2, 3, 5, 8, 17, 50, 200, 1_000, 10_000],
        &[1e-2, 1e-3, 1e-4, 1e-5, 1e-6],
        queries,
    );
}

/// The CLI sizes per key for every strategy that walks as Guava's: the older walks too.
#[test]
fn per_key_filters_meet_their_rate_other_walks() {
    for strategy in [
        Strategy::Murmur128Mitz32,
        Strategy::SparkSketchV1,
        Strategy::SparkSketchV2,
    ] {
        check_cells(
            strategy,
            &[1, 3, 17, 200, 10_000],
            &[1e-2, 1e-4, 1e-6],
            |p| queries(p).min(4_000_000),
        );
    }
}
