//! Prints BLOCKED's sizing table (bits per key and k for p = 10 %, 1 %, 0.1 %, beside the
//! classic layout's) and measures a BLOCKED filter's false-positive rate: n seeded keys put,
//! 10^7 other seeded keys probed. FORMAT.md §1.7 quotes its output. Then, as a rough guide
//! (JMH's `BatchBench` is the measurement), the best of 5 batched-query times per key in
//! batches of 4096, a 50/50 mix of present and absent keys, for the classic (MITZ_64) and the
//! BLOCKED filter of the same (n, p), taken in turns so machine load hits both alike.
//!
//! `cargo run --release -p sparkbloom-tools --bin blocked_fpp -- [n] [p]` (default 10^7 and 0.01).

use sparkbloom::{BloomFilter, Strategy, blocked_sizing, sizing};
use sparkbloom_testkit::splitmix64;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map_or(10_000_000, |a| a.parse().expect("n"));
    let p: f64 = args.next().map_or(0.01, |a| a.parse().expect("p"));
    println!("| p | classic bits/key (k) | BLOCKED bits/key (k) | extra |");
    println!("|---:|---:|---:|---:|");
    for fpp in [0.1f64, 0.01, 0.001] {
        let classic = -fpp.ln() / std::f64::consts::LN_2.powi(2);
        let classic_k = sizing::optimal_num_of_hashes_for_fpp(fpp).expect("k");
        let (blocked, k) = blocked_sizing::bits_per_key(fpp).expect("blocked");
        println!(
            "| {fpp} | {classic:.2} ({classic_k}) | {blocked:.2} ({k}) | {:+.1} % |",
            (blocked / classic - 1.0) * 100.0
        );
    }
    let f = BloomFilter::with_strategy(n, p, Strategy::Blocked).expect("filter");
    let mut state = 1;
    let keys: Vec<u64> = (0..n).map(|_| splitmix64(&mut state)).collect();
    f.put_all(&keys);
    let probes = 10_000_000usize;
    let mut state = 1 << 50;
    let probe: Vec<u64> = (0..probes).map(|_| splitmix64(&mut state)).collect();
    let positives = f.might_contain_all(&probe).iter().filter(|&&b| b).count();
    let observed = positives as f64 / probes as f64;
    println!(
        "n={n} p={p}: m={} ({:.3} bits/key), k={}, observed FPP {observed:.5} ({:.3}·p, σ = {:.5}), expected_fpp {:.5}",
        f.num_bits(),
        f.num_bits() as f64 / n as f64,
        f.num_hashes(),
        observed / p,
        (p / probes as f64).sqrt(),
        f.expected_fpp()
    );

    let classic = BloomFilter::new(n, p).expect("classic");
    classic.put_all(&keys);
    let mix: Vec<u64> = probe
        .iter()
        .zip(&keys)
        .flat_map(|(&absent, &present)| [absent, present])
        .take(4_000_000)
        .collect();
    let mut best = [f64::MAX; 2];
    for _ in 0..5 {
        for (slot, filter) in [&classic, &f].into_iter().enumerate() {
            let start = std::time::Instant::now();
            let mut hits = 0;
            for batch in mix.chunks(4096) {
                hits += filter
                    .might_contain_all(batch)
                    .iter()
                    .filter(|&&b| b)
                    .count();
            }
            let per_key = start.elapsed().as_secs_f64() * 1e9 / mix.len() as f64;
            assert!(hits >= mix.len() / 2, "every present key answers true");
            best[slot] = best[slot].min(per_key);
        }
    }
    println!(
        "batched query, best of 5: classic {:.1} ns/key, BLOCKED {:.1} ns/key ({:.2}x)",
        best[0],
        best[1],
        best[0] / best[1]
    );
}
