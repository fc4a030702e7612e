//! The counting filter against a multiset model, its false-positive rate, saturation,
//! concurrency, and its serialized form under damage.

use sparkbloom::format::counting::{decode, decode_with_limit, encode};
use sparkbloom::{BloomFilter, CountingBloomFilter, Error};
use sparkbloom_testkit::splitmix64;
use std::collections::HashMap;

/// ≥ 10^6 seeded add/remove operations (removing only keys that were added), checked against a
/// multiset model: every live key is reported present (0 false negatives), `count` bounds its
/// multiplicity from above, `remove` of a live key reports it, and at the end the counters are
/// exactly those of a filter built from the model's multiset.
#[test]
fn differential_against_a_multiset_model() {
    const OPS: u64 = 1_200_000;
    const CAPACITY: usize = 10_000;
    let filter = CountingBloomFilter::new(CAPACITY as u64, 0.01).unwrap();
    let mut model: HashMap<u64, u32> = HashMap::new();
    let mut live: Vec<u64> = Vec::new(); // distinct keys with multiplicity > 0
    let mut state = 2026;
    let (mut adds, mut removes, mut false_negatives, mut checks) = (0u64, 0u64, 0u64, 0u64);
    for op in 0..OPS {
        let r = splitmix64(&mut state);
        // Below capacity lean to adds, at it to removes: the live set hovers around capacity.
        let add = live.is_empty() || (r % 100) < if live.len() < CAPACITY { 60 } else { 40 };
        if add {
            // A quarter of adds repeat a live key (multiplicities 2 and 3, far from the
            // saturation at 15 that the model cannot follow: tested on its own below).
            let repeat = (!live.is_empty() && r >> 62 == 0)
                .then(|| live[(splitmix64(&mut state) % live.len() as u64) as usize])
                .filter(|key| model[key] < 3);
            let key = repeat.unwrap_or_else(|| splitmix64(&mut state));
            filter.add(key);
            let m = model.entry(key).or_insert(0);
            if *m == 0 {
                live.push(key);
            }
            *m += 1;
            adds += 1;
        } else {
            let at = (splitmix64(&mut state) % live.len() as u64) as usize;
            let key = live[at];
            assert!(filter.remove(key), "remove of live key {key} at op {op}");
            let m = model.get_mut(&key).unwrap();
            *m -= 1;
            if *m == 0 {
                live.swap_remove(at);
                model.remove(&key);
            }
            removes += 1;
        }
        if op % 100_000 == 99_999 {
            for (&key, &m) in &model {
                checks += 1;
                if !filter.might_contain(key) {
                    false_negatives += 1;
                }
                assert!(
                    filter.count(key) as u32 >= m.min(15),
                    "count below multiplicity"
                );
            }
        }
    }
    assert_eq!(false_negatives, 0);
    assert_eq!(filter.saturated_counters(), 0);
    let rebuilt = CountingBloomFilter::new(CAPACITY as u64, 0.01).unwrap();
    for (&key, &m) in &model {
        (0..m).for_each(|_| {
            rebuilt.add(key);
        });
    }
    assert!(filter == rebuilt, "counters equal a rebuild from the model");
    // The false-positive rate of never-added keys matches (nonzero/m)^k within 5σ.
    let queries = 200_000u64;
    let mut probe = !state;
    let fp = (0..queries)
        .filter(|_| filter.might_contain(splitmix64(&mut probe)))
        .count() as f64;
    let q = (filter.nonzero_counters() as f64 / filter.num_bits() as f64)
        .powi(filter.num_hashes() as i32);
    let mean = queries as f64 * q;
    assert!(
        (fp - mean).abs() <= 5.0 * mean.sqrt() + 0.02 * mean,
        "{fp} false positives, expected {mean:.1}"
    );
    println!(
        "model test: {OPS} ops ({adds} adds, {removes} removes), {} live keys ({} distinct), {checks} presence checks, {false_negatives} false negatives, observed fpp {:.4} vs (X/m)^k {q:.4}",
        model.values().sum::<u32>(),
        model.len(),
        fp / queries as f64
    );
}

/// As `fpp_statistics.rs` for the plain filter: after n distinct keys (added as 2n then n
/// removed, so removal is exercised), the false-positive count over 10^6 queries is within
/// 5σ + 2% of Q·(X/m)^k, and (X/m)^k within 10% of p.
#[test]
fn observed_fpp_matches_theory_after_removals() {
    const QUERIES: u64 = 1_000_000;
    for n in [1_000u64, 10_000, 1_000_000] {
        for p in [0.1, 0.01, 0.001] {
            let filter = CountingBloomFilter::new(n, p).unwrap();
            let mut state = n.wrapping_mul(0x9e37_79b9) ^ p.to_bits();
            let keys: Vec<u64> = (0..2 * n).map(|_| splitmix64(&mut state)).collect();
            filter.add_all(&keys);
            assert_eq!(filter.remove_all(&keys[n as usize..]), n);
            assert!(keys[..n as usize].iter().all(|&k| filter.might_contain(k)));
            let mut probe = !state;
            let probes: Vec<u64> = (0..QUERIES).map(|_| splitmix64(&mut probe)).collect();
            let fp = filter
                .might_contain_all(&probes)
                .iter()
                .filter(|&&b| b)
                .count() as f64;
            let q = (filter.nonzero_counters() as f64 / filter.num_bits() as f64)
                .powi(filter.num_hashes() as i32);
            let mean = QUERIES as f64 * q;
            let tolerance = 5.0 * (mean * (1.0 - q)).sqrt() + 0.02 * mean;
            assert!(
                (fp - mean).abs() <= tolerance,
                "n={n} p={p}: {fp} vs {mean:.1}"
            );
            assert!((q - p).abs() <= 0.1 * p, "n={n} p={p}: (X/m)^k = {q}");
        }
    }
}

/// A key added 100 times saturates its counters; removing it 100 times leaves it present (a
/// saturated counter is never decremented), and keys sharing those counters stay present.
#[test]
fn saturation_never_causes_a_false_negative() {
    let f = CountingBloomFilter::new(100, 0.03).unwrap();
    let others: Vec<u64> = (1_000..1_100).collect();
    f.add_all(&others);
    (0..100).for_each(|_| {
        f.add(7);
    });
    let saturated = f.saturated_counters();
    assert!((1..=5).contains(&saturated), "{saturated}");
    assert_eq!(f.count(7), 15);
    (0..100).for_each(|_| {
        f.remove(7);
    });
    assert!(f.might_contain(7));
    assert_eq!(f.saturated_counters(), saturated);
    assert!(others.iter().all(|&k| f.might_contain(k)));
    // Merging saturates too, and subtracting never lowers a saturated counter.
    let g = f.clone();
    g.merge(&f).unwrap();
    g.subtract(&f).unwrap();
    assert!(g.might_contain(7) && g.saturated_counters() >= saturated);
}

/// 8 threads add and remove disjoint keys at once; the result equals the sequential one. That
/// holds while no interleaving saturates a counter (one at 15 stays there, so where one
/// saturates depends on the order): a key counts at most twice at any moment, so no counter
/// exceeds the one every key added twice gives, which is checked to saturate none.
#[test]
fn eight_threads_add_and_remove_disjoint_keys() {
    const PER_THREAD: u64 = 50_000;
    let f = CountingBloomFilter::new(8 * PER_THREAD, 0.01).unwrap();
    let keys = |t: u64| -> Vec<u64> {
        let mut state = t + 1;
        (0..PER_THREAD).map(|_| splitmix64(&mut state)).collect()
    };
    let bound = CountingBloomFilter::new(8 * PER_THREAD, 0.01).unwrap();
    for t in 0..8 {
        let keys = keys(t);
        bound.add_all(&keys);
        bound.add_all(&keys);
    }
    assert_eq!(bound.saturated_counters(), 0, "no interleaving saturates");
    std::thread::scope(|s| {
        for t in 0..8 {
            let f = &f;
            s.spawn(move || {
                let keys = keys(t);
                for (i, &k) in keys.iter().enumerate() {
                    f.add(k);
                    f.add(k);
                    if i % 3 == 0 {
                        assert!(f.remove(k));
                    }
                    if i >= 10 && i % 2 == 0 {
                        assert!(f.remove(keys[i - 10]));
                    }
                }
            });
        }
    });
    let sequential = CountingBloomFilter::new(8 * PER_THREAD, 0.01).unwrap();
    for t in 0..8 {
        let keys = keys(t);
        for (i, &k) in keys.iter().enumerate() {
            sequential.add(k);
            sequential.add(k);
            if i % 3 == 0 {
                sequential.remove(k);
            }
            if i >= 10 && i % 2 == 0 {
                sequential.remove(keys[i - 10]);
            }
        }
    }
    assert_eq!(sequential.saturated_counters(), 0);
    assert!(
        f == sequential,
        "concurrent result equals the sequential one"
    );
}

#[test]
fn to_bloom_filter_equals_the_plain_filter_of_the_keys_present() {
    let counting = CountingBloomFilter::new(10_000, 0.001).unwrap();
    let plain = BloomFilter::new(10_000, 0.001).unwrap();
    let mut state = 3;
    let keys: Vec<u64> = (0..8_000).map(|_| splitmix64(&mut state)).collect();
    counting.add_all(&keys);
    counting.remove_all(&keys[5_000..]);
    plain.put_all(&keys[..5_000]);
    let converted = counting.to_bloom_filter().unwrap();
    assert_eq!(
        sparkbloom::format::encode(&converted),
        sparkbloom::format::encode(&plain),
        "byte-identical"
    );
}

fn field(result: Result<CountingBloomFilter, Error>) -> &'static str {
    match result {
        Err(Error::Corrupt { field, .. }) => field,
        other => panic!("expected a Corrupt error, got {other:?}"),
    }
}

fn samples() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (n, keys) in [(100u64, 3u64), (1_000, 300), (100, 2_000), (10, 0)] {
        let f = CountingBloomFilter::new(n, 0.01).unwrap();
        (0..keys).for_each(|k| {
            f.add(k % 97);
        });
        out.push(encode(&f));
    }
    out
}

/// Every truncation and every single-bit flip is refused with a named field, never a panic.
#[test]
fn every_truncation_and_bit_flip_is_refused() {
    for bytes in samples() {
        let f = decode(&bytes).unwrap();
        assert_eq!(encode(&f), bytes, "round trip byte for byte");
        for len in 0..bytes.len() {
            assert_eq!(field(decode(&bytes[..len])), "length", "len {len}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(field(decode(&longer)), "length");
        for bit in 0..bytes.len() * 8 {
            let mut damaged = bytes.clone();
            damaged[bit / 8] ^= 1 << (bit % 8);
            let _ = field(decode(&damaged));
        }
    }
}

/// Random payloads behind a valid header and a fixed checksum: refused with `payload` (or
/// decoded into a valid filter), never a panic or an allocation beyond m.
#[test]
fn random_payloads_with_fixed_checksums_never_panic() {
    let mut state = 77;
    let base = samples();
    for i in 0..20_000 {
        let mut bytes = base[i % base.len()].clone();
        let body = bytes.len() - 4;
        for _ in 0..1 + splitmix64(&mut state) % 4 {
            let at = 24 + (splitmix64(&mut state) as usize % (body - 24).max(1));
            if at < body {
                bytes[at] = splitmix64(&mut state) as u8;
            }
        }
        let crc = crc32fast::hash(&bytes[..body]);
        bytes[body..].copy_from_slice(&crc.to_le_bytes());
        match decode(&bytes) {
            Ok(f) => assert_eq!(decode(&encode(&f)).unwrap(), f),
            Err(Error::Corrupt { field, .. }) => assert_eq!(field, "payload"),
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn decode_limit_refuses_before_allocating() {
    let bytes = encode(&CountingBloomFilter::new(1_000, 0.01).unwrap());
    assert!(matches!(
        decode_with_limit(&bytes, 1_000),
        Err(Error::TooLarge {
            num_bits: 9_600,
            limit: 1_000
        })
    ));
}

/// `tests/golden/manifest_counting.tsv`: every valid file decodes, holds its keys (added once
/// per line), equals the filter built from the row and re-encodes byte for byte; every corrupt
/// file names its field, from the header alone when the field is in the header.
#[test]
fn golden_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let manifest = std::fs::read_to_string(dir.join("manifest_counting.tsv")).unwrap();
    let mut lines = manifest.lines();
    assert_eq!(
        lines.next(),
        Some("file\tformat\tstrategy\tn\tfpp\tkey_type\tkeys\texpect\tsizing")
    );
    let (mut valid, mut corrupt) = (0, 0);
    for line in lines {
        let c: Vec<&str> = line.split('\t').collect();
        let bytes = std::fs::read(dir.join(c[0])).unwrap();
        assert_eq!(c[1], "counting");
        let strategy = match c[2] {
            "MURMUR128_MITZ_64" => sparkbloom::Strategy::Murmur128Mitz64,
            _ => sparkbloom::Strategy::Murmur128Mitz32,
        };
        let (n, fpp): (u64, f64) = (c[3].parse().unwrap(), c[4].parse().unwrap());
        if c[7] != "ok" {
            assert_eq!(field(decode(&bytes)), c[7], "{}", c[0]);
            corrupt += 1;
            continue;
        }
        let shape = match c[8] {
            "helper" => sparkbloom::sizing::redis_helper_shape(n, fpp),
            _ => sparkbloom::sizing::shape_for_strategy(n, fpp, strategy),
        }
        .unwrap();
        let built = CountingBloomFilter::with_shape(shape, strategy).unwrap();
        let keys = std::fs::read_to_string(dir.join(c[6])).unwrap();
        for key in keys.lines() {
            match c[5] {
                "long" => built.add(key.parse::<i64>().unwrap() as u64),
                _ => built.add_str(key),
            };
        }
        let filter = decode(&bytes).unwrap();
        assert_eq!(bytes[4], 3, "{}: version 3", c[0]);
        assert!(filter == built, "{}", c[0]);
        assert_eq!(encode(&filter), bytes, "{}", c[0]);
        for key in keys.lines() {
            let present = match c[5] {
                "long" => filter.might_contain(key.parse::<i64>().unwrap() as u64),
                _ => filter.might_contain_str(key),
            };
            assert!(present, "{}: {key}", c[0]);
        }
        valid += 1;
    }
    assert!(valid >= 6 && corrupt >= 11);
}

/// FORMAT.md §10's worked example is the golden file's bytes and the filter of keys 1, 2, 3.
#[test]
fn format_md_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("FORMAT.md")).unwrap();
    let start = doc.find("<!-- example-counting-100").unwrap();
    let hex = doc[start..].lines().nth(2).unwrap();
    let f = CountingBloomFilter::new(100, 0.03).unwrap();
    [1, 2, 3].iter().for_each(|&k| {
        f.add(k);
    });
    let bytes = encode(&f);
    let written: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, written);
    assert_eq!(
        std::fs::read(root.join("tests/golden/counting/n100_p0.03_keys123.sbloom")).unwrap(),
        bytes
    );
    assert_eq!((bytes.len(), f.nonzero_counters()), (58, 15));
}
