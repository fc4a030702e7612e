//! How a key's hash becomes k bit indexes: Guava's two `BloomFilterStrategies`, and the index
//! walks of Spark's `spark-sketch` filters (V1 and V2), whose hash pair comes from
//! `spark_hashing`; BLOCKED's positions by its own layout (`layout`, `blocked_layout`).

use crate::hashing::Hash128;
use crate::layout::{Layout, Walk};
use crate::shape::Shape;

/// Guava's strategies, by their ordinal in `BloomFilterStrategies` (and in `writeTo`'s first
/// byte), then Spark's sketch filters with ordinals of their own (FORMAT.md §1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Strategy {
    /// Guava ≤ 16, incl. the Guava 14.0.1 that Spark 2.x/3.x shade: 32-bit double hashing of
    /// the low 64 hash bits; indexes never exceed 2^31 − 1.
    Murmur128Mitz32 = 0,
    /// Guava ≥ 17 (the default): 64-bit double hashing of both halves of the hash.
    Murmur128Mitz64 = 1,
    /// Spark's `spark-sketch` V1 (`BloomFilterImpl`, Spark 2.0–4.0), seed 0: Murmur3_x86_32
    /// pair `h1`, `h2`; `c = h1 + i·h2` (int) for i in 1..=k, `~c` if negative, `% m`.
    SparkSketchV1 = 2,
    /// Spark's `spark-sketch` V2 (`BloomFilterImplV2`, the default since Spark 4.1), seed 0:
    /// `c = h1 · (2^31 − 1)` (long), then for each index `c += h2`, `~c` if negative, `% m`.
    SparkSketchV2 = 3,
    /// Ours, opt-in (not Guava's, not Spark's): every bit of a key inside one 512-bit block
    /// (one cache line), so a query costs one cache miss instead of k (`filter::blocked`). The
    /// block comes from Guava's Murmur3_x64_128 `h1` by multiply-shift, the k bit positions from
    /// 9-bit fields of `h2`. m is a multiple of 512.
    Blocked = 4,
}

impl Strategy {
    /// Every strategy, by ordinal.
    pub const ALL: [Strategy; 5] = [
        Strategy::Murmur128Mitz32,
        Strategy::Murmur128Mitz64,
        Strategy::SparkSketchV1,
        Strategy::SparkSketchV2,
        Strategy::Blocked,
    ];

    /// The strategy with Guava's ordinal `ordinal`, if there is one.
    pub fn from_ordinal(ordinal: u8) -> Option<Strategy> {
        Strategy::ALL.get(usize::from(ordinal)).copied()
    }

    /// Guava's ordinal of this strategy.
    pub fn ordinal(self) -> u8 {
        self as u8
    }

    /// Guava's enum constant name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Murmur128Mitz32 => "MURMUR128_MITZ_32",
            Strategy::Murmur128Mitz64 => "MURMUR128_MITZ_64",
            Strategy::SparkSketchV1 => "SPARK_SKETCH_V1",
            Strategy::SparkSketchV2 => "SPARK_SKETCH_V2",
            Strategy::Blocked => "BLOCKED",
        }
    }

    /// Whether keys are hashed with Spark's Murmur3_x86_32 pair rather than Guava's
    /// Murmur3_x64_128.
    pub fn is_spark(self) -> bool {
        matches!(self, Strategy::SparkSketchV1 | Strategy::SparkSketchV2)
    }

    /// Whether this is one of Guava's `BloomFilterStrategies` (MITZ_32, MITZ_64): the only
    /// strategies Guava's stream and the Redis helper's layout can hold.
    pub fn is_guava(self) -> bool {
        matches!(self, Strategy::Murmur128Mitz32 | Strategy::Murmur128Mitz64)
    }

    /// Where this strategy puts a key's bits: a classic walk's indexes, or BLOCKED's block.
    pub(crate) fn layout(self) -> Layout {
        match self {
            Strategy::Murmur128Mitz32 => Layout::Classic(Walk::Mitz32),
            Strategy::Murmur128Mitz64 => Layout::Classic(Walk::Mitz64),
            Strategy::SparkSketchV1 => Layout::Classic(Walk::SparkV1),
            Strategy::SparkSketchV2 => Layout::Classic(Walk::SparkV2),
            Strategy::Blocked => Layout::Blocked,
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Per-filter constants that turn a hash into bit indexes, bit-exact with Guava.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Indexer {
    /// Exact `x mod m` by multiplication (see [`FastMod`]): two per key, where a division
    /// costs as much as the whole rest of the walk. Holds m, the number of positions.
    modulo: FastMod,
    num_hashes: u32,
    layout: Layout,
}

const LOW_63: u64 = i64::MAX as u64;

/// `x mod m` for `x < 2m`, without a branch: when `x < m`, `x − m` wraps above `x`.
#[inline(always)]
fn reduce_once(x: u64, m: u64) -> u64 {
    x.min(x.wrapping_sub(m))
}

impl Indexer {
    pub(crate) fn new(num_bits: u64, num_hashes: u32, strategy: Strategy) -> Indexer {
        Indexer {
            modulo: FastMod::new(num_bits),
            num_hashes,
            layout: strategy.layout(),
        }
    }

    /// Positions (m).
    #[inline(always)]
    pub(crate) fn num_bits(&self) -> u64 {
        self.modulo.divisor()
    }

    /// Indexes per key (k).
    pub(crate) fn num_hashes(&self) -> u32 {
        self.num_hashes
    }

    /// m and k together.
    pub(crate) fn shape(&self) -> Shape {
        Shape {
            num_bits: self.num_bits(),
            num_hashes: self.num_hashes,
        }
    }

    /// Where the indexes lie.
    pub(crate) fn layout(&self) -> Layout {
        self.layout
    }

    /// 2^63 mod m: what an overflow of the 63-bit combined hash subtracts from an index.
    /// Derived, not kept: it does not depend on the key, so a batch computes it once.
    #[inline(always)]
    pub(crate) fn wrap(&self) -> u64 {
        self.modulo.reduce(1 << 63)
    }

    /// Calls `visit` with each of the k indexes of `hash`, in Guava's order, and stops at the
    /// first call that returns `false`. Returns whether every call returned `true`.
    #[inline(always)]
    pub(crate) fn for_each(&self, hash: Hash128, visit: impl FnMut(u64) -> bool) -> bool {
        match self.layout {
            Layout::Classic(Walk::Mitz64) => self.for_each_mitz64(hash, visit),
            Layout::Classic(Walk::Mitz32) => {
                self.for_each_int_pair(hash.h1 as i32, (hash.h1 >> 32) as i32, visit)
            }
            Layout::Classic(Walk::SparkV1) => {
                self.for_each_int_pair(hash.h1 as i32, hash.h2 as i32, visit)
            }
            Layout::Classic(Walk::SparkV2) => self.for_each_spark_v2(hash, visit),
            Layout::Blocked => {
                crate::blocked_layout::for_each_index(self.num_bits(), self.num_hashes, hash, visit)
            }
        }
    }

    /// Spark's `BloomFilterImplV2`: `c = (long) h1 · Integer.MAX_VALUE`; k times `c += h2`
    /// (long, wrapping), index `(c < 0 ? ~c : c) % m` (the complement is not kept in `c`).
    #[inline(always)]
    fn for_each_spark_v2(&self, hash: Hash128, mut visit: impl FnMut(u64) -> bool) -> bool {
        let h1 = hash.h1 as u32 as i32 as i64;
        let h2 = hash.h2 as u32 as i32 as i64;
        let mut combined = h1 * i32::MAX as i64; // |h1| ≤ 2^31: no overflow
        for _ in 0..self.num_hashes {
            combined = combined.wrapping_add(h2);
            let positive = if combined < 0 { !combined } else { combined };
            if !visit(self.modulo.reduce(positive as u64)) {
                return false;
            }
        }
        true
    }

    /// Guava: `combined = h1; for i in 0..k { idx = (combined & MAX) % m; combined += h2 }`.
    /// The same indexes with two remainders per key instead of k: see [`Mitz64Walk`].
    #[inline(always)]
    fn for_each_mitz64(&self, hash: Hash128, mut visit: impl FnMut(u64) -> bool) -> bool {
        let mut walk = self.mitz64_start(hash);
        for i in 0..self.num_hashes {
            if !visit(walk.idx) {
                return false;
            }
            if i + 1 == self.num_hashes {
                break;
            }
            self.mitz64_advance(&mut walk);
        }
        true
    }

    /// The MITZ_64 walk of `hash` at its first index.
    #[inline(always)]
    pub(crate) fn mitz64_start(&self, hash: Hash128) -> Mitz64Walk {
        let m = self.num_bits();
        let a = hash.h1 & LOW_63;
        let d = hash.h2 & LOW_63;
        let step = self.modulo.reduce(d);
        Mitz64Walk {
            idx: self.modulo.reduce(a),
            a,
            d,
            step,
            step_wrapped: reduce_once(step + m - self.wrap(), m),
        }
    }

    /// Moves `walk` to its next index.
    #[inline(always)]
    pub(crate) fn mitz64_advance(&self, walk: &mut Mitz64Walk) {
        walk.a += walk.d; // both < 2^63: no u64 overflow
        let wrapped = walk.a > LOW_63;
        walk.a &= LOW_63;
        let step = if wrapped {
            walk.step_wrapped
        } else {
            walk.step
        };
        walk.idx = reduce_once(walk.idx + step, self.num_bits());
    }

    /// Guava ≤ 16 (`h1`, `h2`: the low and high halves of the hash's low 64 bits) and Spark's
    /// `BloomFilterImpl` (the two 32-bit hashes): `c = h1 + i·h2` in int arithmetic for i in
    /// 1..=k, `~c` if negative, `c % m`.
    #[inline(always)]
    fn for_each_int_pair(&self, h1: i32, h2: i32, mut visit: impl FnMut(u64) -> bool) -> bool {
        for i in 1..=self.num_hashes as i32 {
            let mut combined = h1.wrapping_add(i.wrapping_mul(h2));
            if combined < 0 {
                combined = !combined;
            }
            if !visit(self.modulo.reduce(combined as u64)) {
                return false;
            }
        }
        true
    }
}

/// Guava's MITZ_64 walk, one index at a time, with no division after the first: keep
/// `a = combined mod 2^63` and `idx = a mod m`; each step adds `d = h2 mod 2^63` to `a` and
/// `d mod m` to `idx`, and when `a` passes 2^63 (Guava's `& MAX` drops that bit) subtracts
/// 2^63 mod m from `idx`. Choosing between two precomputed steps keeps the serial chain through
/// `idx` at an add and a conditional subtract per index; no condition is a branch (they are
/// coin flips).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Mitz64Walk {
    /// The current index.
    pub(crate) idx: u64,
    /// combined mod 2^63.
    pub(crate) a: u64,
    /// h2 mod 2^63.
    pub(crate) d: u64,
    /// d mod m, and the step taken instead when `a` passes 2^63.
    pub(crate) step: u64,
    pub(crate) step_wrapped: u64,
}

/// Exact remainder by a fixed 64-bit divisor with two multiplications: `M = ⌊(2^64 − 1) / m⌋`
/// makes `q = ⌊x·M / 2^64⌋` the quotient or one less (`2^64/m − 1 ≤ M < 2^64/m`, so
/// `x/m − 1 < x·M/2^64 ≤ x/m`), hence `x − q·m` lies in `[0, 2m)` and one conditional subtract
/// finishes it. Exact for every 64-bit numerator and divisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FastMod {
    m: u64,
    multiplier: u64,
}

impl FastMod {
    /// `m` ≥ 1.
    pub(crate) fn new(m: u64) -> FastMod {
        debug_assert!(m >= 1);
        FastMod {
            m,
            multiplier: u64::MAX / m,
        }
    }

    /// The divisor.
    #[inline(always)]
    pub(crate) fn divisor(&self) -> u64 {
        self.m
    }

    /// `x mod m`.
    #[inline(always)]
    pub(crate) fn reduce(&self, x: u64) -> u64 {
        let quotient = ((x as u128 * self.multiplier as u128) >> 64) as u64;
        reduce_once(x - quotient * self.m, self.m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hashing::hash_u64;
    use crate::testutil::splitmix64;

    /// Guava's MITZ_64 loop, written as Guava writes it: one division per index.
    fn guava_mitz64(hash: Hash128, m: u64, k: u32) -> Vec<u64> {
        let mut combined = hash.h1;
        (0..k)
            .map(|_| {
                let idx = (combined & LOW_63) % m;
                combined = combined.wrapping_add(hash.h2);
                idx
            })
            .collect()
    }

    fn indexes(indexer: &Indexer, hash: Hash128) -> Vec<u64> {
        let mut out = Vec::new();
        indexer.for_each(hash, |i| {
            out.push(i);
            true
        });
        out
    }

    #[test]
    fn guava_31_put_1_sets_these_bits() {
        let indexer = Indexer::new(768, 5, Strategy::Murmur128Mitz64);
        assert_eq!(indexes(&indexer, hash_u64(1)), vec![330, 592, 86, 604, 98]);
    }

    /// Bits Spark sets for `putLong(1)` in `create(100, 0.03)` (m = 768, k = 5): V1 checked on
    /// the 3.5.9 jar (shared notes, peers §3); V2 from its loop, checked on 4.1.3 in the JVM suite.
    #[test]
    fn spark_put_long_1_sets_these_bits() {
        let pair = crate::spark_hashing::pair_u64(1, 0);
        let v1 = Indexer::new(768, 5, Strategy::SparkSketchV1);
        assert_eq!(indexes(&v1, pair), vec![673, 257, 603, 440, 490]);
        let v2 = Indexer::new(768, 5, Strategy::SparkSketchV2);
        assert_eq!(indexes(&v2, pair), vec![25, 630, 467, 304, 141]);
    }

    #[test]
    fn ordinals_round_trip() {
        for ordinal in 0..=4 {
            assert_eq!(Strategy::from_ordinal(ordinal).unwrap().ordinal(), ordinal);
        }
        assert_eq!(Strategy::from_ordinal(5), None);
    }

    #[test]
    fn two_division_walk_equals_guava_loop() {
        let mut state = 7u64;
        for _ in 0..20_000 {
            // Any m, not only multiples of 64 (the Redis helper's layout): case 4.
            let m = match splitmix64(&mut state) % 5 {
                0 => 64 * (1 + splitmix64(&mut state) % 1000),
                1 => 64 * (1 + splitmix64(&mut state) % (1 << 37)),
                2 => 1u64 << (6 + splitmix64(&mut state) % 37),
                3 => crate::sizing::MAX_NUM_BITS,
                _ => 1 + splitmix64(&mut state) % 200_000,
            };
            let k = 1 + (splitmix64(&mut state) % 40) as u32;
            let hash = Hash128 {
                h1: splitmix64(&mut state),
                h2: splitmix64(&mut state),
            };
            let indexer = Indexer::new(m, k, Strategy::Murmur128Mitz64);
            assert_eq!(
                indexes(&indexer, hash),
                guava_mitz64(hash, m, k),
                "m={m} k={k}"
            );
        }
    }

    #[test]
    fn fast_mod_is_exact() {
        let mut state = 11u64;
        let mut divisors: Vec<u64> = vec![
            1,
            2,
            3,
            64,
            768,
            143_808,
            (1 << 43) - 64,
            1 << 43,
            u64::MAX,
            u64::MAX - 1,
        ];
        divisors.extend((0..200).map(|_| 2 + splitmix64(&mut state) % (1 << 44)));
        divisors.extend((0..200).map(|_| 2.max(splitmix64(&mut state))));
        for m in divisors {
            let fm = FastMod::new(m);
            let mut numerators = vec![
                0,
                1,
                m - 1,
                m,
                m.wrapping_add(1),
                u64::MAX,
                u64::MAX - 1,
                i64::MAX as u64,
            ];
            numerators.extend((0..2_000).map(|_| splitmix64(&mut state)));
            numerators.extend((0..200).map(|_| splitmix64(&mut state) % (m.saturating_mul(3))));
            for x in numerators {
                assert_eq!(fm.reduce(x), x % m, "{x} mod {m}");
            }
        }
    }

    #[test]
    fn mitz32_indexes_stay_below_2_pow_31() {
        let indexer = Indexer::new(1 << 33, 7, Strategy::Murmur128Mitz32);
        let mut state = 1u64;
        for _ in 0..10_000 {
            let hash = Hash128 {
                h1: splitmix64(&mut state),
                h2: splitmix64(&mut state),
            };
            assert!(indexes(&indexer, hash).iter().all(|&i| i < 1 << 31));
        }
    }

    #[test]
    fn visiting_stops_at_the_first_false() {
        let indexer = Indexer::new(768, 5, Strategy::Murmur128Mitz64);
        let mut seen = 0;
        assert!(!indexer.for_each(hash_u64(1), |_| {
            seen += 1;
            seen < 2
        }));
        assert_eq!(seen, 2);
    }
}
