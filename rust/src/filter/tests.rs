//! Unit tests of the filter's API: Guava's known answers, set operations, estimates, hashing
//! consistent with equality, sizing; the batch engine's tests are in `batch.rs`.

use super::*;
use crate::error::Error;

#[test]
fn guava_31_put_1_2_3_words() {
    // Guava 31.1 writeTo of create(longFunnel(), 100, 0.03) after put(1, 2, 3).
    let f = BloomFilter::new(100, 0.03).unwrap();
    assert_eq!((f.num_bits(), f.num_hashes()), (768, 5));
    assert!(f.put(1) && f.put(2) && f.put(3));
    assert!(!f.put(1), "a second put of the same key changes nothing");
    let expected = [
        0x0000000000000000u64,
        0x0000000400400000,
        0x4000000000800000,
        0x0004000000000000,
        0x0000000000800000,
        0x0001000000002400,
        0x0000010000000000,
        0x0000000000000000,
        0x1000000000001000,
        0x0000002010010000,
        0x0000000000000000,
        0x0000000000000000,
    ];
    assert_eq!(f.words().collect::<Vec<_>>(), expected);
    assert_eq!(f.bits_set(), 15);
}

#[test]
fn union_and_intersect() {
    let a = BloomFilter::new(1000, 0.01).unwrap();
    let b = BloomFilter::new(1000, 0.01).unwrap();
    (0..100).for_each(|k| {
        a.put(k);
    });
    (50..150).for_each(|k| {
        b.put(k);
    });
    let both = a.clone();
    both.intersect(&b).unwrap();
    assert!((50..100).all(|k| both.might_contain(k)));
    a.union(&b).unwrap();
    assert!((0..150).all(|k| a.might_contain(k)));
    let other = BloomFilter::new(1000, 0.001).unwrap();
    let err = a.union(&other).unwrap_err().to_string();
    assert!(
        err.contains("numBits") && err.contains("numHashFunctions"),
        "{err}"
    );
    let legacy = BloomFilter::with_shape(a.shape(), Strategy::Murmur128Mitz32).unwrap();
    assert!(
        a.intersect(&legacy)
            .unwrap_err()
            .to_string()
            .contains("strategy")
    );
}

#[test]
fn equal_filters_hash_equally() {
    use std::hash::{BuildHasher, RandomState};
    let hasher = RandomState::new();
    let a = BloomFilter::new(1000, 0.01).unwrap();
    let b = BloomFilter::new(1000, 0.01).unwrap();
    (0..100).for_each(|k| {
        a.put(k);
        b.put(99 - k);
    });
    assert_eq!(a, b);
    assert_eq!(hasher.hash_one(&a), hasher.hash_one(&b));
    b.put(1000);
    assert_ne!(a, b);
    assert_ne!(hasher.hash_one(&a), hasher.hash_one(&b), "one more bit");
    // Same words, another strategy or k: unequal, and hashed apart.
    let mitz32 = BloomFilter::from_words(a.words().collect(), 7, Strategy::Murmur128Mitz32);
    let k6 = BloomFilter::from_words(a.words().collect(), 6, Strategy::Murmur128Mitz64);
    for other in [mitz32.unwrap(), k6.unwrap()] {
        assert_ne!(a, other);
        assert_ne!(hasher.hash_one(&a), hasher.hash_one(&other));
    }
}

#[test]
fn best_practice_filters_follow_the_clickhouse_table() {
    // ClickHouse calculationBestPractices: 0.025 → 8 bits per key, k = 4.
    let f = BloomFilter::with_best_practice(10_000, 0.025).unwrap();
    assert_eq!((f.num_bits(), f.num_hashes()), (80_000, 4));
    assert_eq!(f.strategy(), Strategy::Murmur128Mitz64);
    (0..10_000u64).for_each(|k| {
        f.put(k);
    });
    assert!(
        (0..10_000u64).all(|k| f.might_contain(k)),
        "no false negatives"
    );
    // Full at n, the expected FPP is near the theoretical (1 − e^(−4/8))^4 ≈ 0.0240.
    assert!(
        (f.expected_fpp() - 0.0240).abs() < 0.002,
        "{}",
        f.expected_fpp()
    );
    for (n, p, name) in [(0, 0.01, "expectedInsertions"), (10, 1.0, "fpp")] {
        match BloomFilter::with_best_practice(n, p) {
            Err(Error::InvalidArgument { name: got, .. }) => assert_eq!(got, name),
            other => panic!("n={n} p={p}: {other:?}"),
        }
    }
}

#[test]
fn estimates() {
    let f = BloomFilter::new(10_000, 0.01).unwrap();
    assert_eq!(f.approximate_element_count(), 0);
    assert_eq!(f.expected_fpp(), 0.0);
    (0..5_000u64).for_each(|k| {
        f.put(k);
    });
    let estimate = f.approximate_element_count() as f64;
    assert!((estimate - 5_000.0).abs() < 150.0, "{estimate}");
    assert!(f.expected_fpp() > 0.0 && f.expected_fpp() < 0.01);
    f.clear();
    assert_eq!(f.bits_set(), 0);
}

#[test]
fn string_and_byte_keys_share_the_hash() {
    let f = BloomFilter::new(100, 0.01).unwrap();
    assert!(f.put_str("héllo"));
    assert!(f.might_contain_bytes("héllo".as_bytes()));
    assert!(!f.put_bytes("héllo".as_bytes()));
}

#[test]
fn bad_shapes_are_errors() {
    assert!(BloomFilter::from_words(vec![], 3, Strategy::Murmur128Mitz64).is_err());
    assert!(BloomFilter::from_words(vec![0; 2], 0, Strategy::Murmur128Mitz64).is_err());
    for num_bits in [0, sizing::MAX_NUM_BITS + 1] {
        let shape = Shape {
            num_bits,
            num_hashes: 3,
        };
        assert!(BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).is_err());
    }
    let odd = Shape {
        num_bits: 100,
        num_hashes: 3,
    };
    let err = BloomFilter::from_words_with_shape(vec![0, 1 << 36], odd, Strategy::Murmur128Mitz32)
        .unwrap_err()
        .to_string();
    assert!(err.contains("bit 100 is set"), "{err}");
    assert!(
        BloomFilter::from_words_with_shape(vec![0; 3], odd, Strategy::Murmur128Mitz32).is_err()
    );
    let mut out = [false; 1];
    assert!(
        BloomFilter::new(10, 0.1)
            .unwrap()
            .might_contain_all_into(&[1, 2], &mut out)
            .is_err()
    );
}

/// Bit counts that are not whole words (the Redis helper sizes m = ⌊−n·ln p / ln²2⌋):
/// every index below m, nothing at or above m ever set, batch and single paths agree,
/// clones and unions keep the shape.
#[test]
fn any_bit_count() {
    let mut state = 5;
    for (num_bits, strategy) in [
        (1, Strategy::Murmur128Mitz32),
        (1, Strategy::Murmur128Mitz64),
        (143_775, Strategy::Murmur128Mitz32),
        (143_775, Strategy::Murmur128Mitz64),
        (65, Strategy::Murmur128Mitz64),
        ((1 << 20) + 3, Strategy::Murmur128Mitz64),
    ] {
        let shape = Shape {
            num_bits,
            num_hashes: 10,
        };
        let f = BloomFilter::with_shape(shape, strategy).unwrap();
        assert_eq!(f.num_bits(), num_bits);
        assert!(!f.plan.lanes);
        let keys: Vec<u64> = (0..2_000)
            .map(|_| crate::testutil::splitmix64(&mut state))
            .collect();
        f.put_all(&keys[..1_000]);
        let g = BloomFilter::with_shape(shape, strategy).unwrap();
        keys[..1_000].iter().for_each(|&k| {
            g.put(k);
        });
        assert!(f == g, "m={num_bits}");
        let words: Vec<u64> = f.words().collect();
        assert_eq!(words.len() as u64, num_bits.div_ceil(64));
        assert_eq!(first_bit_at_or_above(&words, num_bits), None);
        let single: Vec<bool> = keys.iter().map(|&k| f.might_contain(k)).collect();
        assert_eq!(f.might_contain_all(&keys), single);
        assert!(single[..1_000].iter().all(|&p| p), "no false negatives");
        let copy = f.clone();
        assert_eq!(copy.shape(), shape);
        copy.union(&g).unwrap();
        assert!(copy == f);
    }
}

#[test]
fn spark_strategies_batches_equal_single_key_calls() {
    // Large enough for the prefetching batch path; Spark filters never take the vector lanes.
    for strategy in [Strategy::SparkSketchV1, Strategy::SparkSketchV2] {
        let batched = BloomFilter::with_strategy(1_000_000, 0.01, strategy).unwrap();
        let single = BloomFilter::with_strategy(1_000_000, 0.01, strategy).unwrap();
        let mut state = 3u64;
        let keys: Vec<u64> = (0..50_000)
            .map(|_| crate::testutil::splitmix64(&mut state))
            .collect();
        assert!(batched.put_all(&keys));
        keys.iter().for_each(|&k| {
            single.put(k);
        });
        assert!(batched == single, "{strategy}");
        let probes: Vec<u64> = (0..50_000)
            .map(|_| crate::testutil::splitmix64(&mut state))
            .collect();
        let answers = batched.might_contain_all(&probes);
        for (&probe, &answer) in probes.iter().zip(&answers) {
            assert_eq!(answer, single.might_contain(probe));
        }
        assert!(
            batched
                .might_contain_all(&keys)
                .iter()
                .all(|&present| present)
        );
    }
}

#[test]
fn a_batch_of_several_write_pieces_puts_every_key() {
    // Three pieces and a part, on a cache-resident filter (180 KB: accumulated) and a larger one.
    let keys: Vec<u64> = (0..3 * WRITE_PIECE_KEYS as u64 + 77)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    for (n, p) in [(100_000, 0.001), (1_000_000, 0.01)] {
        let batched = BloomFilter::new(n, p).unwrap();
        let one_by_one = BloomFilter::new(n, p).unwrap();
        assert!(batched.put_all(&keys));
        keys.iter().for_each(|&key| {
            one_by_one.put(key);
        });
        assert!(
            batched == one_by_one,
            "n={n}: the pieces set the bits put does"
        );
        assert!(!batched.put_all(&keys), "keys put again change nothing");
    }
}
