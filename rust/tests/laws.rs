//! Property tests for the filter's laws: no false negatives; union contains each input and is
//! commutative and associative; intersection is contained in each input.

use proptest::prelude::*;
use sparkbloom::{BloomFilter, Shape, Strategy as Placement};

fn shape() -> impl Strategy<Value = (Shape, Placement)> {
    (1u64..64, 1u32..16, prop::bool::ANY).prop_map(|(words, k, legacy)| {
        let strategy = if legacy {
            Placement::Murmur128Mitz32
        } else {
            Placement::Murmur128Mitz64
        };
        (
            Shape {
                num_bits: words * 64,
                num_hashes: k,
            },
            strategy,
        )
    })
}

fn filled(shape: (Shape, Placement), keys: &[u64]) -> BloomFilter {
    let f = BloomFilter::with_shape(shape.0, shape.1).unwrap();
    f.put_all(keys);
    f
}

/// Every bit set in `inner` is set in `outer`.
fn bits_within(inner: &BloomFilter, outer: &BloomFilter) -> bool {
    inner.words().zip(outer.words()).all(|(i, o)| i & !o == 0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed), ..ProptestConfig::default() })]

    #[test]
    fn no_false_negatives(shape in shape(), keys in prop::collection::vec(any::<u64>(), 0..300),
                          strings in prop::collection::vec(".{0,40}", 0..30)) {
        let f = filled(shape, &keys);
        strings.iter().for_each(|s| { f.put_str(s); });
        prop_assert!(keys.iter().all(|&k| f.might_contain(k)));
        prop_assert!(f.might_contain_all(&keys).iter().all(|&p| p));
        prop_assert!(f.retain_absent(&keys).is_empty());
        prop_assert!(strings.iter().all(|s| f.might_contain_str(s)));
    }

    #[test]
    fn union_contains_inputs_and_is_commutative_and_associative(
        shape in shape(),
        a in prop::collection::vec(any::<u64>(), 0..200),
        b in prop::collection::vec(any::<u64>(), 0..200),
        c in prop::collection::vec(any::<u64>(), 0..200),
    ) {
        let (fa, fb, fc) = (filled(shape, &a), filled(shape, &b), filled(shape, &c));
        let ab = fa.clone();
        ab.union(&fb).unwrap();
        let ba = fb.clone();
        ba.union(&fa).unwrap();
        prop_assert_eq!(&ab, &ba);
        prop_assert!(bits_within(&fa, &ab) && bits_within(&fb, &ab));
        prop_assert!(a.iter().chain(&b).all(|&k| ab.might_contain(k)));
        // (a ∪ b) ∪ c = a ∪ (b ∪ c), and both equal the filter built from all keys at once.
        let ab_c = ab.clone();
        ab_c.union(&fc).unwrap();
        let bc = fb.clone();
        bc.union(&fc).unwrap();
        let a_bc = fa.clone();
        a_bc.union(&bc).unwrap();
        prop_assert_eq!(&ab_c, &a_bc);
        let all: Vec<u64> = a.iter().chain(&b).chain(&c).copied().collect();
        prop_assert_eq!(&ab_c, &filled(shape, &all));
    }

    #[test]
    fn intersection_is_within_each_input(
        shape in shape(),
        a in prop::collection::vec(any::<u64>(), 0..200),
        b in prop::collection::vec(any::<u64>(), 0..200),
    ) {
        let (fa, fb) = (filled(shape, &a), filled(shape, &b));
        let both = fa.clone();
        both.intersect(&fb).unwrap();
        prop_assert!(bits_within(&both, &fa) && bits_within(&both, &fb));
        let common: Vec<u64> = a.iter().copied().filter(|k| b.contains(k)).collect();
        prop_assert!(common.iter().all(|&k| both.might_contain(k)));
    }
}
