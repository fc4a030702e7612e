//! Seeded statistical test of the false-positive rate over n ∈ {10^3, 10^4, 10^6} ×
//! p ∈ {0.1, 0.01, 0.001, 0.0001}.
//!
//! After n distinct keys, a never-inserted key is a false positive when its k bits are all
//! set. Given the filter's fill X/m, the k positions are (nearly) independent uniform draws,
//! so each query is a Bernoulli trial with q = (X/m)^k and the false-positive count over Q
//! queries is Binomial(Q, q): mean Qq, deviation σ = √(Qq(1−q)). We assert the count lies
//! within 5σ of the mean (a two-sided 5σ event has probability 6·10^-7 per cell) plus 2% of
//! the mean for what double hashing (two hashes instead of k independent ones) adds.
//! Independently of the fill, q must be within 10% of the configured p: that is what
//! Guava's sizing promises at n insertions.

use sparkbloom::BloomFilter;
use sparkbloom_testkit::splitmix64;

const QUERIES: u64 = 1_000_000;

fn check(n: u64, p: f64) -> String {
    let filter = BloomFilter::new(n, p).unwrap();
    let mut inserted = n.wrapping_mul(0x9e37_79b9) ^ p.to_bits();
    let keys: Vec<u64> = (0..n).map(|_| splitmix64(&mut inserted)).collect();
    filter.put_all(&keys);
    assert!(
        filter
            .might_contain_all(&keys)
            .iter()
            .all(|&present| present),
        "false negative at n={n} p={p}"
    );

    // Queries come from another seed; a collision with an inserted key has probability
    // ~n·Q/2^64 < 10^-7, and would only add one count.
    let mut probe_state = !inserted;
    let probes: Vec<u64> = (0..QUERIES).map(|_| splitmix64(&mut probe_state)).collect();
    let false_positives = filter
        .might_contain_all(&probes)
        .iter()
        .filter(|&&present| present)
        .count() as f64;

    let q = filter.expected_fpp();
    let mean = QUERIES as f64 * q;
    let sigma = (mean * (1.0 - q)).sqrt();
    let tolerance = 5.0 * sigma + 0.02 * mean;
    let observed = false_positives / QUERIES as f64;
    assert!(
        (false_positives - mean).abs() <= tolerance,
        "n={n} p={p}: {false_positives} false positives, expected {mean:.1} ± {tolerance:.1}"
    );
    assert!(
        (q - p).abs() <= 0.1 * p,
        "n={n} p={p}: theoretical fpp {q} after n keys"
    );
    format!(
        "| {n} | {p} | {} | {} | {q:.3e} | {observed:.3e} | {:.3} |",
        filter.num_bits(),
        filter.num_hashes(),
        observed / p
    )
}

#[test]
fn observed_fpp_matches_theory() {
    let mut table = vec![
        "| n | p | m | k | theoretical (X/m)^k | observed | observed/p |".to_string(),
        "|---|---|---|---|---|---|---|".to_string(),
    ];
    for n in [1_000, 10_000, 1_000_000] {
        for p in [0.1, 0.01, 0.001, 0.0001] {
            table.push(check(n, p));
        }
    }
    // Printed for the record (cargo test -- --nocapture); the assertions above are the test.
    println!("{}", table.join("\n"));
}
