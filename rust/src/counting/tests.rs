//! The counting filter's unit tests: positions equal the plain filter's bits, removal, saturation,
//! merge and subtract, bad shapes.

use super::*;
use crate::testutil::splitmix64;

#[test]
fn positions_are_the_plain_filters_bits() {
    for strategy in [Strategy::Murmur128Mitz64, Strategy::Murmur128Mitz32] {
        for shape in [
            Shape {
                num_bits: 768,
                num_hashes: 5,
            },
            Shape {
                num_bits: 143_775,
                num_hashes: 10,
            },
        ] {
            let counting = CountingBloomFilter::with_shape(shape, strategy).unwrap();
            let plain = BloomFilter::with_shape(shape, strategy).unwrap();
            let mut state = shape.num_bits;
            let keys: Vec<u64> = (0..2_000).map(|_| splitmix64(&mut state)).collect();
            counting.add_all(&keys);
            plain.put_all(&keys);
            counting.add_str("héllo");
            plain.put_str("héllo");
            assert_eq!(counting.to_bloom_filter().unwrap(), plain);
            assert_eq!(counting.nonzero_counters(), plain.bits_set());
            // Removing half the keys leaves the plain filter of the other half.
            assert_eq!(counting.remove_all(&keys[..1_000]), 1_000);
            assert!(counting.remove_str("héllo"));
            let rest = BloomFilter::with_shape(shape, strategy).unwrap();
            rest.put_all(&keys[1_000..]);
            assert_eq!(counting.to_bloom_filter().unwrap(), rest);
        }
    }
}

#[test]
fn guava_31_put_1_sets_these_positions() {
    let f = CountingBloomFilter::new(100, 0.03).unwrap();
    assert_eq!((f.num_bits(), f.num_hashes()), (768, 5));
    f.add(1);
    f.add(1);
    for position in [330, 592, 86, 604, 98] {
        assert_eq!(f.counter(position).unwrap(), 2);
    }
    assert_eq!(f.count(1), 2);
    assert_eq!(f.nonzero_counters(), 5);
    assert!(f.counter(768).is_err());
}

#[test]
fn remove_of_an_absent_key_changes_nothing() {
    let f = CountingBloomFilter::new(1_000, 0.01).unwrap();
    f.add(7);
    let before: Vec<u64> = f.words().collect();
    assert!(!f.might_contain(8));
    assert!(!f.remove(8));
    assert_eq!(f.words().collect::<Vec<_>>(), before);
    assert!(f.remove(7));
    assert!(!f.might_contain(7) && f.nonzero_counters() == 0);
    assert_eq!(f.count(7), 0);
}

#[test]
fn saturated_counters_stay_and_are_reported() {
    let f = CountingBloomFilter::new(100, 0.03).unwrap();
    for _ in 0..20 {
        f.add(1);
    }
    assert_eq!(f.count(1), MAX_COUNT);
    assert_eq!(f.saturated_counters(), 5);
    for _ in 0..40 {
        f.remove(1);
    }
    assert!(
        f.might_contain(1),
        "saturated counters are never decremented"
    );
    assert_eq!(f.saturated_counters(), 5);
    assert!(!f.add(1), "nothing changes once every counter saturated");
}

#[test]
fn merge_and_subtract() {
    let a = CountingBloomFilter::new(1_000, 0.01).unwrap();
    let b = CountingBloomFilter::new(1_000, 0.01).unwrap();
    let both = CountingBloomFilter::new(1_000, 0.01).unwrap();
    (0..100).for_each(|k| {
        a.add(k);
        both.add(k);
    });
    (50..150).for_each(|k| {
        b.add(k);
        both.add(k);
    });
    let sum = a.clone();
    sum.merge(&b).unwrap();
    assert_eq!(sum, both);
    sum.subtract(&b).unwrap();
    assert_eq!(sum, a);
    sum.subtract(&sum).unwrap();
    assert_eq!(sum.nonzero_counters(), 0);
    let other = CountingBloomFilter::new(1_000, 0.001).unwrap();
    let err = a.merge(&other).unwrap_err().to_string();
    assert!(
        err.contains("numBits") && err.contains("numHashFunctions"),
        "{err}"
    );
}

#[test]
fn bad_shapes_and_words_are_errors() {
    let odd = Shape {
        num_bits: 20,
        num_hashes: 3,
    };
    let err = CountingBloomFilter::from_words(vec![0, 1 << 16], odd, Strategy::Murmur128Mitz64)
        .unwrap_err()
        .to_string();
    assert!(err.contains("counter 20 is nonzero"), "{err}");
    assert!(CountingBloomFilter::from_words(vec![0], odd, Strategy::Murmur128Mitz64).is_err());
    let zero = Shape {
        num_bits: 0,
        num_hashes: 3,
    };
    assert!(CountingBloomFilter::with_shape(zero, Strategy::Murmur128Mitz64).is_err());
    assert!(CountingBloomFilter::new(0, 2.0).is_err());
}
