//! Every kernel this CPU runs against the reference, on the same seeded keys: u64 keys, byte
//! strings and strings; every strategy; cache-resident filters, filters prefetched beyond
//! cache and filters large enough for the AVX-512 prefetched walk; the counting filter.

use super::*;
use crate::counting::CountingBloomFilter;
use crate::filter::{BloomFilter, PackedBytes};
use crate::sizing::Shape;
use crate::strategy::Strategy;
use crate::testutil::{absent, splitmix64};

/// Keys of `count` bytes each (lengths cycling 0..=40, so byte batches see runs of one length
/// and mixed ones), packed with their end offsets.
fn byte_keys(count: usize, state: &mut u64) -> (Vec<u8>, Vec<u32>) {
    let (mut data, mut ends) = (Vec::new(), Vec::new());
    for i in 0..count {
        let len = if i % 3 == 0 { 16 } else { i % 41 };
        data.extend((0..len).map(|_| splitmix64(state) as u8));
        ends.push(data.len() as u32);
    }
    (data, ends)
}

fn keys_of(data: &[u8], ends: &[u32]) -> Vec<Vec<u8>> {
    PackedBytes::new(data, ends)
        .unwrap()
        .iter()
        .map(<[u8]>::to_vec)
        .collect()
}

/// `len` keys, alternately from `put` and fresh: a dedup's mix.
fn mixed(put: &[u64], len: usize, state: &mut u64) -> Vec<u64> {
    (0..len)
        .map(|i| {
            if i % 2 == 0 {
                put[splitmix64(state) as usize % put.len()]
            } else {
                splitmix64(state)
            }
        })
        .collect()
}

/// Asserts that `f`'s batch answers for `probe` (`might_contain_all`, and `retain_absent` in
/// order) are the reference's single-key answers; returns those answers.
fn answers_match(
    f: &BloomFilter,
    reference: &BloomFilter,
    probe: &[u64],
    context: &str,
) -> Vec<bool> {
    let single: Vec<bool> = probe.iter().map(|&k| reference.might_contain(k)).collect();
    assert_eq!(f.might_contain_all(probe), single, "{context}");
    assert_eq!(f.retain_absent(probe), absent(probe, &single), "{context}");
    single
}

#[test]
fn every_kernel_agrees_with_the_reference() {
    let large = VECTOR_PREFETCH_MIN_BYTES as u64 * 8 + 64 * 3;
    let shapes = [
        (143_808, 10, 8_000),
        (8_192, 3, 2_000),
        // The AVX2 build's smallest filter, and one below it (the portable walk).
        (4_096, 4, 300),
        (2_048, 5, 150),
        (143_808, 40, 2_000),
        (1 << 22, 7, 60_000),
        (large, 7, 200_000),
    ];
    let strategies = [
        Strategy::Murmur128Mitz64,
        Strategy::Murmur128Mitz32,
        Strategy::SparkSketchV1,
        Strategy::SparkSketchV2,
        Strategy::Blocked,
    ];
    let mut state = 31;
    for strategy in strategies {
        for (num_bits, num_hashes, count) in shapes {
            let num_bits = if strategy == Strategy::Blocked {
                num_bits / 512 * 512
            } else {
                num_bits
            };
            let shape = Shape {
                num_bits,
                num_hashes: if strategy == Strategy::Blocked {
                    num_hashes.min(16)
                } else {
                    num_hashes
                },
            };
            let put: Vec<u64> = (0..count).map(|_| splitmix64(&mut state)).collect();
            let (data, ends) = byte_keys(count / 4, &mut state);
            let bytes = keys_of(&data, &ends);
            let (probe_data, probe_ends) = byte_keys(3_000, &mut state);
            let probe_bytes = PackedBytes::new(&probe_data, &probe_ends).unwrap();
            let reference = BloomFilter::with_shape(shape, strategy)
                .unwrap()
                .on_kernel(Kernel::Scalar);
            let put_changed: Vec<bool> = put
                .chunks(4096)
                .map(|batch| batch.iter().fold(false, |c, &k| reference.put(k) | c))
                .collect();
            bytes.iter().for_each(|key| {
                reference.put_bytes(key);
            });
            for kernel in available() {
                let context = format!("{kernel} {strategy} m={num_bits} k={num_hashes}");
                let f = BloomFilter::with_shape(shape, strategy)
                    .unwrap()
                    .on_kernel(kernel);
                for (batch, &changed) in put.chunks(4096).zip(&put_changed) {
                    assert_eq!(f.put_all(batch), changed, "{context}");
                }
                assert!(f.put_all_bytes(PackedBytes::new(&data, &ends).unwrap()));
                assert!(f == reference, "{context}: the bits the reference sets");
                for len in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 71, 72, 73, 300, 4099] {
                    let probe = mixed(&put, len, &mut state);
                    let single =
                        answers_match(&f, &reference, &probe, &format!("{context} len {len}"));
                    assert!(single.iter().step_by(2).all(|&p| p), "no false negatives");
                }
                let single: Vec<bool> = probe_bytes
                    .iter()
                    .map(|key| reference.might_contain_bytes(key))
                    .collect();
                assert_eq!(f.might_contain_all_bytes(probe_bytes), single, "{context}");
                let all_put = PackedBytes::new(&data, &ends).unwrap();
                assert!(f.might_contain_all_bytes(all_put).iter().all(|&p| p));
                for key in ["", "a", "sparkbloom", "ünïcödé keys"] {
                    assert_eq!(f.might_contain_str(key), reference.might_contain_str(key));
                }
            }
        }
    }
}

/// The screened queries' edges: batches of all hits (every key survives the screen, a pass's
/// survivors fill it), all misses and mixes, lengths around the screen's threshold and its
/// passes, k at and below the probes screened, the smallest and largest cache-resident filters.
#[test]
fn every_kernel_agrees_with_the_reference_on_screened_edges() {
    let mut state = 53;
    for (num_bits, num_hashes) in [
        (4_096, 1),
        (4_096, 2),
        (8_192, 3),
        (143_808, 10),
        ((1 << 21) - 64, 7),
    ] {
        let shape = Shape {
            num_bits,
            num_hashes,
        };
        let strategy = Strategy::Murmur128Mitz64;
        let put: Vec<u64> = (0..num_bits / 16).map(|_| splitmix64(&mut state)).collect();
        let reference = BloomFilter::with_shape(shape, strategy)
            .unwrap()
            .on_kernel(Kernel::Scalar);
        put.iter().for_each(|&k| {
            reference.put(k);
        });
        for kernel in available() {
            let f = BloomFilter::with_shape(shape, strategy)
                .unwrap()
                .on_kernel(kernel);
            f.put_all(&put);
            assert!(f == reference, "{kernel} m={num_bits} k={num_hashes}");
            for len in [31, 32, 33, 255, 256, 257, 511, 513, 1_000] {
                let hits: Vec<u64> = (0..len)
                    .map(|_| put[splitmix64(&mut state) as usize % put.len()])
                    .collect();
                let misses: Vec<u64> = (0..len).map(|_| splitmix64(&mut state)).collect();
                for probe in [hits, misses, mixed(&put, len, &mut state)] {
                    let context = format!("{kernel} m={num_bits} k={num_hashes} len {len}");
                    answers_match(&f, &reference, &probe, &context);
                }
            }
        }
    }
}

#[test]
fn every_kernel_agrees_with_the_reference_on_counting_filters() {
    let mut state = 77;
    for strategy in [Strategy::Murmur128Mitz64, Strategy::Murmur128Mitz32] {
        for (num_bits, num_hashes) in [(143_776, 10), (8_192, 3), (1 << 20, 7)] {
            let shape = Shape {
                num_bits,
                num_hashes,
            };
            let added: Vec<u64> = (0..(num_bits / 20) as usize)
                .map(|_| splitmix64(&mut state))
                .collect();
            let reference = CountingBloomFilter::with_shape(shape, strategy)
                .unwrap()
                .with_kernel(Kernel::Scalar);
            added.iter().for_each(|&k| {
                reference.add(k);
            });
            for kernel in available() {
                let f = CountingBloomFilter::with_shape(shape, strategy)
                    .unwrap()
                    .with_kernel(kernel);
                f.add_all(&added);
                assert!(f == reference, "{kernel} {strategy} m={num_bits}");
                for len in [0, 5, 8, 64, 100, 4099] {
                    let probe = mixed(&added, len, &mut state);
                    let single: Vec<bool> =
                        probe.iter().map(|&k| reference.might_contain(k)).collect();
                    assert_eq!(f.might_contain_all(&probe), single, "{kernel} {strategy}");
                }
            }
        }
    }
}

#[test]
fn the_environment_chooses_a_kernel_the_cpu_runs() {
    let all = |_: Kernel| true;
    let no_avx512 = |k: Kernel| k != Kernel::Avx512;
    let portable_only = |k: Kernel| matches!(k, Kernel::Scalar | Kernel::Portable);
    assert_eq!(choose(None, false, "x86_64", all), Ok(Kernel::Avx512));
    assert_eq!(choose(None, true, "x86_64", all), Ok(Kernel::Avx2));
    assert_eq!(choose(None, false, "x86_64", no_avx512), Ok(Kernel::Avx2));
    assert_eq!(
        choose(None, false, "x86_64", portable_only),
        Ok(Kernel::Portable)
    );
    assert_eq!(
        choose(Some("scalar".into()), false, "x86_64", all),
        Ok(Kernel::Scalar)
    );
    assert_eq!(
        choose(Some(" AVX2 ".into()), true, "x86_64", all),
        Ok(Kernel::Avx2)
    );
    let lacks = choose(Some("avx512".into()), false, "x86_64", no_avx512).unwrap_err();
    assert!(lacks.contains("lacks AVX-512"), "{lacks}");
    let contradicts = choose(Some("avx512".into()), true, "x86_64", all).unwrap_err();
    assert!(contradicts.contains(DISABLE_AVX512_ENV), "{contradicts}");
    let unknown = choose(Some("sse9".into()), false, "x86_64", all).unwrap_err();
    assert!(unknown.contains("\"sse9\" is not a kernel"), "{unknown}");
    let missing = choose(Some("avx512".into()), false, "x86_64", no_avx512).unwrap_err();
    assert!(
        missing.contains("runs: scalar, portable, avx2)"),
        "{missing}"
    );
    // Off x86-64 the AVX kernels are not built at all: the error names the architecture and
    // the kernels it has.
    for name in ["avx2", "AVX512"] {
        let elsewhere = choose(Some(name.into()), false, "aarch64", portable_only).unwrap_err();
        assert_eq!(
            elsewhere,
            format!(
                "{name} is an x86-64 kernel; this CPU is aarch64, whose kernels are scalar, portable"
            )
        );
    }
    assert_eq!(
        choose(None, false, "aarch64", portable_only),
        Ok(Kernel::Portable)
    );
}

#[test]
fn the_selected_kernel_runs_here_and_plans_follow_it() {
    let kernel = selected_or_best();
    assert!(kernel.supported());
    assert!(available().any(|k| k == kernel));
    let f = BloomFilter::new(10_000, 0.001).unwrap();
    let expected = Plan::new(
        kernel,
        Strategy::Murmur128Mitz64.layout(),
        143_808,
        10,
        143_808 / 8,
    );
    assert_eq!(f.plan(), expected);
}

/// BLOCKED batches and byte-key hashing follow the kernel through the plan: its instruction
/// set for BLOCKED whatever the shape, and lanes for byte keys only with AVX-512 and a Murmur3
/// strategy.
#[test]
fn plans_carry_the_kernels_blocked_and_byte_key_paths() {
    for kernel in Kernel::ALL {
        let plan = |strategy: Strategy, num_bits| {
            Plan::new(
                kernel,
                strategy.layout(),
                num_bits,
                7,
                num_bits as usize / 8,
            )
        };
        let isa = match kernel {
            Kernel::Avx512 => Isa::Avx512,
            Kernel::Avx2 => Isa::Avx2,
            Kernel::Scalar | Kernel::Portable => Isa::Portable,
        };
        for num_bits in [4_096, 1 << 24] {
            let blocked = plan(Strategy::Blocked, num_bits);
            assert_eq!(blocked.query, Query::Blocked(isa), "{kernel}");
            assert_eq!(blocked.put, Put::Blocked(isa), "{kernel}");
            assert_eq!(blocked.prefetch, num_bits == 1 << 24, "{kernel}");
        }
        for strategy in Strategy::ALL {
            assert_eq!(
                plan(strategy, 143_808).byte_lanes,
                kernel == Kernel::Avx512 && !strategy.is_spark(),
                "{kernel} {strategy}"
            );
        }
    }
}

/// A counting filter's plan, for every kernel this CPU runs: the reference one key at a time;
/// beyond cache, prefetched; in cache, the AVX-512 lanes where they take the filter, else the
/// AVX2 walk for MITZ_64 with a vector kernel, else one key at a time (the portable walk and the
/// AVX-512 walk test bits only).
#[test]
fn counting_plans_take_the_paths_that_know_counters() {
    let (m, big) = (143_808, 1 << 24);
    let mitz64 = Strategy::Murmur128Mitz64.layout();
    let mitz32 = Strategy::Murmur128Mitz32.layout();
    let query = |kernel, layout, num_bits: u64| {
        CountingPlan::new(kernel, layout, num_bits, num_bits as usize / 2).query
    };
    for kernel in available() {
        let (vector, lanes) = (
            matches!(kernel, Kernel::Avx2 | Kernel::Avx512),
            kernel == Kernel::Avx512,
        );
        let in_cache = match kernel {
            Kernel::Avx512 => Query::Gather,
            Kernel::Avx2 => Query::ScreenedAvx2,
            _ => Query::OneByOne,
        };
        assert_eq!(query(kernel, mitz64, m), in_cache, "{kernel}");
        assert_eq!(query(kernel, mitz32, m), Query::OneByOne, "{kernel}");
        let beyond = if kernel == Kernel::Scalar {
            Query::OneByOne
        } else {
            Query::Prefetched
        };
        assert_eq!(query(kernel, mitz64, big), beyond, "{kernel}");
        assert_eq!(query(kernel, mitz32, big), beyond, "{kernel}");
        assert_eq!(
            CountingPlan::new(kernel, mitz64, m, m as usize / 2).lanes,
            lanes
        );
        assert!(!CountingPlan::new(kernel, mitz32, m, m as usize / 2).lanes);
        // Below the lanes' range the AVX-512 kernel walks in AVX2 where the walk takes m.
        let small = avx512::MIN_BITS - 64;
        let expected = if vector && plan::avx2_takes(small) {
            Query::ScreenedAvx2
        } else {
            Query::OneByOne
        };
        assert_eq!(query(kernel, mitz64, small), expected, "{kernel}");
    }
}

/// The line `scripts/test.sh` and `scripts/bench.sh` read the kernels from (run with
/// `--nocapture`): those this CPU runs, slowest first, then the one the environment selects. A
/// kernel named in `SPARKBLOOM_KERNEL` must be the one selected, so a run per kernel runs it.
#[test]
fn the_kernels_are_reported_and_a_named_one_is_selected() {
    let available: Vec<&str> = available().map(Kernel::name).collect();
    println!("sparkbloom kernels available: {}", available.join(" "));
    let selected = selected();
    match &selected {
        Ok(kernel) => println!("sparkbloom kernel selected: {kernel}"),
        Err(e) => println!("sparkbloom kernel selected: none ({e})"),
    }
    if let Some(named) = std::env::var_os(KERNEL_ENV) {
        let named = named.to_string_lossy().trim().to_ascii_lowercase();
        assert_eq!(selected.map(Kernel::name).ok(), Some(&*named));
    }
}

#[test]
fn the_cpu_facts_follow_the_kernel() {
    let cpu = cpu();
    let avx512 = selected_or_best() == Kernel::Avx512;
    assert!(avx512 || !(cpu.avx512_bw || cpu.avx512_popcnt || cpu.avx512_bits));
    assert!(!cpu.avx512_bits || (cpu.avx512_bw && cpu.avx512_popcnt && cpu.bmi));
}

/// The CPU is asked in one place: no source file outside `kernels/` tests or enables a CPU
/// feature.
#[test]
fn only_the_kernels_test_or_enable_cpu_features() {
    fn visit(dir: &std::path::Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|name| name != "kernels") {
                    visit(&path, found);
                }
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for needle in [
                concat!("is_x86_feature", "_detected"),
                concat!("#[target", "_feature"),
            ] {
                if text.contains(needle) {
                    found.push(format!("{} ({needle})", path.display()));
                }
            }
        }
    }
    let mut found = Vec::new();
    visit(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rust/src"),
        &mut found,
    );
    assert!(
        found.is_empty(),
        "CPU features tested or enabled outside kernels/: {found:?}"
    );
}

/// Off x86-64 only the plain-Rust kernels are built, and the portable one is chosen unasked.
#[cfg(not(target_arch = "x86_64"))]
#[test]
fn off_x86_64_the_portable_kernel_runs() {
    assert_eq!(
        available().collect::<Vec<_>>(),
        [Kernel::Scalar, Kernel::Portable]
    );
    if std::env::var_os(KERNEL_ENV).is_none() {
        assert_eq!(selected(), Ok(Kernel::Portable));
    }
}
