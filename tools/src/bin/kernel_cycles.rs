//! A fixed amount of batch work for counting CPU cycles with `perf stat -e cycles:u`, which,
//! unlike wall time, does not grow when other processes share the cores:
//!
//! ```text
//! kernel_cycles <sparkbloom|fastbloom> <query|absent|put> <n> <p> <batch> <batches> [blocked]
//! ```
//!
//! builds the filter Guava's sizing gives (n, p) (fastbloom: the same m and k), fills it with
//! n seeded keys (queries) and runs `batches` batches of `batch` keys from a 50/50 mix of keys
//! put and fresh ones (`might_contain_all_into`; `absent`: `retain_absent_into`; puts: `put_all` of fresh keys, clearing the
//! filter whenever n have gone in); `blocked` makes ours a `Strategy::Blocked` filter. Run it with `batches` and with 0, and divide the
//! difference of the cycle counts by `batch · batches`. `SPARKBLOOM_KERNEL` picks our kernel.

use sparkbloom::{BloomFilter, Strategy};
use sparkbloom_testkit::splitmix64;
use std::hint::black_box;

/// fastbloom's SipHash key, the benchmarks' (`rust/benches/filter/peers.rs`).
const FASTBLOOM_SEED: u128 = 0x5eed_b100_f11e_7e55_0000_0000_0000_0001;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (args, strategy) = match &args[..] {
        [rest @ .., last] if last == "blocked" => (rest, Strategy::Blocked),
        all => (all, Strategy::Murmur128Mitz64),
    };
    let [which, op, n, p, batch, batches] = args else {
        eprintln!(
            "usage: kernel_cycles <sparkbloom|fastbloom> <query|absent|put> <n> <p> <batch> <batches> \
             [blocked]"
        );
        std::process::exit(2);
    };
    let n: u64 = n.parse().expect("n");
    let p: f64 = p.parse().expect("p");
    let batch: usize = batch.parse().expect("batch");
    let batches: usize = batches.parse().expect("batches");
    let ours = BloomFilter::with_strategy(n, p, strategy).expect("shape");
    let mut fast = fastbloom::BloomFilter::with_num_bits(ours.num_bits() as usize)
        .seed(&FASTBLOOM_SEED)
        .hashes(ours.num_hashes());
    let mut state = 1 ^ n;
    let present: Vec<u64> = (0..n).map(|_| splitmix64(&mut state)).collect();
    let pool = (n as usize).clamp(batch, 1 << 20);
    let mix: Vec<u64> = (0..2 * pool)
        .map(|i| {
            if i % 2 == 0 {
                present[splitmix64(&mut state) as usize % present.len()]
            } else {
                splitmix64(&mut state)
            }
        })
        .collect();
    let fastbloom = which == "fastbloom";
    let queries = op == "query" || op == "absent";
    if queries {
        if fastbloom {
            present.iter().for_each(|k| {
                fast.insert(k);
            });
        } else {
            ours.put_all(&present);
        }
    }
    let mut out = vec![false; batch];
    let mut absent = Vec::with_capacity(batch);
    let mut start = 0;
    let mut put = 0;
    for _ in 0..batches {
        if start + batch > mix.len() {
            start = 0;
        }
        let keys = black_box(&mix[start..start + batch]);
        start += batch;
        match (op.as_str(), fastbloom) {
            ("query", false) => ours.might_contain_all_into(keys, &mut out).expect("out"),
            ("absent", false) => {
                absent.clear();
                ours.retain_absent_into(keys, &mut absent);
            }
            ("absent", true) => {
                absent.clear();
                absent.extend(keys.iter().filter(|key| !fast.contains(*key)));
            }
            ("query", true) => out
                .iter_mut()
                .zip(keys)
                .for_each(|(slot, key)| *slot = fast.contains(key)),
            (_, false) => {
                ours.put_all(keys);
            }
            (_, true) => keys.iter().for_each(|key| {
                fast.insert(key);
            }),
        }
        put += batch;
        if !queries && put >= n as usize {
            ours.clear();
            fast.clear();
            put = 0;
        }
        black_box((&out, &absent));
    }
}
