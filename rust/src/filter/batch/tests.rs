use super::*;
use crate::kernels::VECTOR_PREFETCH_MIN_BYTES;
use crate::kernels::{self, Kernel};
use crate::sizing::Shape;
use crate::strategy::Strategy;
use crate::testutil::splitmix64;

/// `put_all` sets the bits one `put` per key sets and reports the same change, on each path: cache-resident lanes, the prefetched walk (a filter
/// over `VECTOR_PREFETCH_MIN_BYTES`), accumulated batches (many keys per word), the scalar
/// path (k above the walk's limit, and above 64: more than one round of a key's clear bits)
/// and BLOCKED, cache-resident and prefetched.
#[test]
fn batched_puts_set_the_bits_puts_set() {
    let mut state = 11;
    let large = (VECTOR_PREFETCH_MIN_BYTES as u64 * 8) + 64 * 5;
    let shapes = [
        (
            Shape {
                num_bits: 143_776,
                num_hashes: 10,
            },
            Strategy::Murmur128Mitz64,
            200,
        ),
        (
            Shape {
                num_bits: 143_776,
                num_hashes: 10,
            },
            Strategy::Murmur128Mitz64,
            9_000,
        ),
        (
            Shape {
                num_bits: large,
                num_hashes: 7,
            },
            Strategy::Murmur128Mitz64,
            200_000,
        ),
        (
            Shape {
                num_bits: large,
                num_hashes: 40,
            },
            Strategy::Murmur128Mitz32,
            20_000,
        ),
        (
            Shape {
                num_bits: large,
                num_hashes: 150,
            },
            Strategy::Murmur128Mitz64,
            5_000,
        ),
        (
            Shape {
                num_bits: 1 << 20,
                num_hashes: 7,
            },
            Strategy::Blocked,
            50_000,
        ),
        (
            Shape {
                num_bits: VECTOR_PREFETCH_MIN_BYTES as u64 * 8,
                num_hashes: 6,
            },
            Strategy::Blocked,
            200_000,
        ),
    ];
    for (shape, strategy, count) in shapes {
        let batched = BloomFilter::with_shape(shape, strategy).unwrap();
        let one_by_one = BloomFilter::with_shape(shape, strategy).unwrap();
        let keys: Vec<u64> = (0..count).map(|_| splitmix64(&mut state)).collect();
        for batch in keys.chunks(4096) {
            let single = batch
                .iter()
                .fold(false, |changed, &k| one_by_one.put(k) | changed);
            assert_eq!(batched.put_all(batch), single, "{strategy} {shape:?}");
        }
        assert!(batched == one_by_one, "{strategy} {shape:?}");
        assert!(
            !batched.put_all(&keys[..keys.len().min(1000)]),
            "keys put again change nothing"
        );
    }
}

/// `len` keys alternating between keys of `put` (even positions, picked at random) and
/// fresh ones (odd positions): a dedup's 50/50 mix of seen and new.
fn half_put(put: &[u64], len: usize, state: &mut u64) -> Vec<u64> {
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

/// The keys of `probe` whose answer in `single` is "absent", in order.
fn absent_of(probe: &[u64], single: &[bool]) -> Vec<u64> {
    probe
        .iter()
        .zip(single)
        .filter(|&(_, &present)| !present)
        .map(|(&k, _)| k)
        .collect()
}

#[test]
fn batch_paths_agree_with_single_key_paths() {
    for (n, p) in [(10_000, 0.001), (1_000_000, 0.01)] {
        let f = BloomFilter::new(n, p).unwrap();
        assert_eq!(f.plan.prefetch, n == 1_000_000);
        let mut state = n;
        let keys: Vec<u64> = (0..5_000).map(|_| splitmix64(&mut state)).collect();
        assert!(f.put_all(&keys[..2_500]));
        let probe: Vec<u64> = keys.iter().rev().copied().collect();
        let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
        assert_eq!(f.might_contain_all(&probe), single);
        let absent: Vec<u64> = probe
            .iter()
            .copied()
            .filter(|&k| !f.might_contain(k))
            .collect();
        assert_eq!(f.retain_absent(&probe), absent);
        assert!(keys[..2_500].iter().all(|k| !absent.contains(k)));
        let g = BloomFilter::new(n, p).unwrap();
        keys[..2_500].iter().for_each(|&k| {
            g.put(k);
        });
        assert_eq!(f, g, "put_all sets the same bits as put");
    }
}

/// Answers written eight at a time (`write_answers`, `write_absent`) against single keys,
/// for batches of every length from 0 to 40 and past a chunk, in patterns that stress the
/// groups: all hits, all misses, alternating, one key repeated, and runs of each; with
/// the vector lanes and without, classic and BLOCKED, cached, gathered beyond cache and
/// walked with prefetching; appended
/// after keys already in the output.
#[test]
fn group_answers_agree_with_single_keys() {
    let mut state = 2024;
    for strategy in [Strategy::Murmur128Mitz64, Strategy::Blocked] {
        // In cache; above PREFETCH_MIN_BYTES (gathers); above VECTOR_PREFETCH_MIN_BYTES
        // (the prefetched walk).
        for (n, p) in [(10_000, 0.001), (1_000_000, 0.01), (4_000_000, 0.01)] {
            let f = BloomFilter::with_strategy(n, p, strategy).unwrap();
            let put: Vec<u64> = (0..n).map(|_| splitmix64(&mut state)).collect();
            f.put_all(&put);
            let scalar = f.clone().on_kernel(Kernel::Scalar);
            let hit = |state: &mut u64| put[splitmix64(state) as usize % put.len()];
            let repeated = put[7];
            for len in (0..=40).chain([255, 256, 257, 4099]) {
                let patterns: [Vec<u64>; 5] = [
                    (0..len).map(|_| hit(&mut state)).collect(),
                    (0..len).map(|_| splitmix64(&mut state)).collect(),
                    (0..len)
                        .map(|i| {
                            if i % 2 == 0 {
                                hit(&mut state)
                            } else {
                                splitmix64(&mut state)
                            }
                        })
                        .collect(),
                    vec![repeated; len],
                    (0..len)
                        .map(|i| {
                            if (i / 5) % 2 == 0 {
                                splitmix64(&mut state)
                            } else {
                                hit(&mut state)
                            }
                        })
                        .collect(),
                ];
                for probe in &patterns {
                    let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
                    let absent = absent_of(probe, &single);
                    for filter in [&f, &scalar] {
                        assert_eq!(filter.might_contain_all(probe), single, "len {len}");
                        let mut out = vec![false; len];
                        filter.might_contain_all_into(probe, &mut out).unwrap();
                        assert_eq!(out, single);
                        let mut appended = vec![1, 2, 3];
                        filter.retain_absent_into(probe, &mut appended);
                        assert_eq!(appended[..3], [1, 2, 3]);
                        assert_eq!(appended[3..], absent, "len {len}");
                    }
                }
                assert!(
                    patterns[0].iter().all(|&k| f.might_contain(k)),
                    "no false negatives"
                );
                assert_eq!(f.retain_absent(&patterns[0]), Vec::<u64>::new());
                assert_eq!(f.retain_absent(&patterns[3]), Vec::<u64>::new());
            }
        }
    }
}

/// The AVX-512 batch paths (where the CPU has them) and the scalar batch paths against
/// single-key puts and queries, which take the scalar walk: shapes at the vector
/// remainder's lower bound, odd word counts, k from 1 to 255, m above 2^32; filters half
/// full, so keys fail at every probe; every tail length.
#[test]
fn vector_batches_agree_with_single_keys() {
    let mut state = 99;
    let shapes = [
        (avx512::MIN_BITS, 1),
        (avx512::MIN_BITS + 64, 7),
        (143_808, 10),
        (100_032, 255),
        (1 << 20, 3),
        ((1 << 24) + 64 * 1001, 23),
        ((1 << 32) + 64 * 3, 4),
    ];
    for (num_bits, num_hashes) in shapes {
        let shape = Shape {
            num_bits,
            num_hashes,
        };
        let f = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
        assert_eq!(f.plan.lanes, kernels::selected_or_best() == Kernel::Avx512);
        let half_full =
            ((num_bits as f64 * std::f64::consts::LN_2 / num_hashes as f64) as usize).min(200_000);
        let put: Vec<u64> = (0..half_full).map(|_| splitmix64(&mut state)).collect();
        // Batches of every size class: a tail-only group, odd groups, accumulated batches.
        let mut rest = &put[..];
        for batch in [1, 5, 17, 64, 4096].into_iter().cycle() {
            let (now, later) = rest.split_at(batch.min(rest.len()));
            f.put_all(now);
            rest = later;
            if rest.is_empty() {
                break;
            }
        }
        let scalar = f.clone().on_kernel(Kernel::Scalar);
        let one_by_one = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
        put.iter().for_each(|&k| {
            one_by_one.put(k);
        });
        assert!(
            f == one_by_one,
            "put_all sets the bits put does, m={num_bits}"
        );
        for len in (0..=40).chain([4096, 5003]) {
            let probe = half_put(&put, len, &mut state);
            let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
            assert_eq!(
                f.might_contain_all(&probe),
                single,
                "m={num_bits} k={num_hashes}"
            );
            assert_eq!(scalar.might_contain_all(&probe), single);
            let absent = absent_of(&probe, &single);
            assert_eq!(f.retain_absent(&probe), absent);
            assert_eq!(scalar.retain_absent(&probe), absent);
            assert!(single.iter().step_by(2).all(|&p| p), "no false negatives");
        }
    }
}

/// The screened walk (`avx512/screened.rs`: batches of 64 keys and more, k above the
/// probes screened) against the scalar batch path and single keys: k at, just above and
/// far above the screen, batch lengths around the screen's threshold, its passes and its
/// blocks of sixteen, all hits, all misses and 50/50 on a half-full filter (so misses
/// fail at every probe, before, at and after the screen).
#[test]
fn screened_batches_agree_with_single_keys() {
    let mut state = 4242;
    for (num_bits, num_hashes) in [
        (avx512::MIN_BITS + 64 * 3, 3),
        (143_776, 4),
        (143_776, 5),
        (143_776, 10),
        (200_000, 64),
        (100_032, 255),
    ] {
        let shape = Shape {
            num_bits,
            num_hashes,
        };
        let f = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
        let half_full = (num_bits as f64 * std::f64::consts::LN_2 / num_hashes as f64) as usize;
        let put: Vec<u64> = (0..half_full).map(|_| splitmix64(&mut state)).collect();
        f.put_all(&put);
        let scalar = f.clone().on_kernel(Kernel::Scalar);
        for len in (62..=82).chain([255, 256, 257, 511, 513, 1000, 4099]) {
            let hits: Vec<u64> = (0..len)
                .map(|_| put[splitmix64(&mut state) as usize % put.len()])
                .collect();
            let misses: Vec<u64> = (0..len).map(|_| splitmix64(&mut state)).collect();
            for probe in [hits, misses, half_put(&put, len, &mut state)] {
                let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
                assert_eq!(
                    f.might_contain_all(&probe),
                    single,
                    "k={num_hashes} len {len}"
                );
                assert_eq!(scalar.might_contain_all(&probe), single);
                let absent = absent_of(&probe, &single);
                assert_eq!(f.retain_absent(&probe), absent, "k={num_hashes} len {len}");
            }
        }
    }
}

/// The screened walk's survivors carried from pass to pass (a pass's last ones short of a
/// pair of vectors walk with the next pass's): passes with no survivor, with fewer than a
/// pair (carried, and the next pass too short to take them), with a few pairs and one
/// over, and a batch's last pass short, on a sparsely filled filter where a miss almost
/// never survives the screen, so the hits placed set each pass's survivors; against
/// single keys and the scalar batch path.
#[test]
fn screened_survivors_carried_across_passes_agree_with_single_keys() {
    let mut state = 99;
    let shape = Shape {
        num_bits: 143_776,
        num_hashes: 10,
    };
    let f = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
    let put: Vec<u64> = (0..500).map(|_| splitmix64(&mut state)).collect();
    f.put_all(&put);
    let scalar = f.clone().on_kernel(Kernel::Scalar);
    // Hits per pass of 256 keys, cycled over the passes.
    for hits_per_pass in [
        vec![0],
        vec![1],
        vec![15, 0, 0, 1],
        vec![16],
        vec![17, 3],
        vec![31, 33, 0, 7],
        vec![5, 40, 0, 255, 256, 2],
    ] {
        for len in [64, 255, 256, 257, 300, 512, 700, 1024, 1300, 2049] {
            let probe: Vec<u64> = (0..len)
                .map(|i| {
                    let hits = hits_per_pass[i / 256 % hits_per_pass.len()];
                    if i % 256 * 7 % 256 < hits {
                        put[splitmix64(&mut state) as usize % put.len()]
                    } else {
                        splitmix64(&mut state)
                    }
                })
                .collect();
            let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
            let context = format!("hits per pass {hits_per_pass:?}, len {len}");
            assert_eq!(f.might_contain_all(&probe), single, "{context}");
            assert_eq!(scalar.might_contain_all(&probe), single, "{context}");
            let absent = absent_of(&probe, &single);
            assert_eq!(f.retain_absent(&probe), absent, "{context}");
        }
    }
}

/// The prefetched vector walk (filters of at least VECTOR_PREFETCH_MIN_BYTES, k up to its
/// limit; above it the scalar path) against single-key puts and queries: k at and around
/// the number of indexes screened first, batches shorter than the walk's pipeline and of
/// every tail length, keys present and absent on a filter filled to its design load (so
/// absent keys fail at every probe position).
#[test]
fn prefetched_walks_agree_with_single_keys() {
    let num_bits = (VECTOR_PREFETCH_MIN_BYTES as u64 * 8) + 64 * 3;
    let mut state = 7;
    for num_hashes in [1, 2, 3, 7, avx512::PREFETCHED_MAX_HASHES, 33] {
        let shape = Shape {
            num_bits,
            num_hashes,
        };
        let f = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
        assert_eq!(
            f.plan.put == Put::Walk,
            kernels::selected_or_best() == Kernel::Avx512
                && num_hashes <= avx512::PREFETCHED_MAX_HASHES
        );
        let design = (num_bits as f64 * std::f64::consts::LN_2 / num_hashes as f64) as usize;
        let put: Vec<u64> = (0..design.min(300_000))
            .map(|_| splitmix64(&mut state))
            .collect();
        let one_by_one = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
        let mut rest = &put[..];
        for batch in [1, 7, 8, 9, 23, 40, 4096, 10_000].into_iter().cycle() {
            let (now, later) = rest.split_at(batch.min(rest.len()));
            let single = now
                .iter()
                .fold(false, |changed, &k| one_by_one.put(k) | changed);
            assert_eq!(f.put_all(now), single, "k={num_hashes}");
            rest = later;
            if rest.is_empty() {
                break;
            }
        }
        assert!(
            f == one_by_one,
            "put_all sets the bits put does, k={num_hashes}"
        );
        // Every bit of these reads set: the walk skips each one's store.
        assert!(!f.put_all(&put[..5003]), "keys put again change nothing");
        assert!(f == one_by_one);
        for len in (0..=50).chain([4096, 5003]) {
            let probe = half_put(&put, len, &mut state);
            let single: Vec<bool> = probe.iter().map(|&k| f.might_contain(k)).collect();
            assert_eq!(f.might_contain_all(&probe), single, "k={num_hashes}");
            assert!(single.iter().step_by(2).all(|&p| p), "no false negatives");
            if len > 100 {
                let absent = single.iter().skip(1).step_by(2).filter(|&&p| !p).count();
                assert!(absent > len / 4, "the absent keys are mostly absent");
            }
            let absent = absent_of(&probe, &single);
            assert_eq!(f.retain_absent(&probe), absent);
        }
    }
}
