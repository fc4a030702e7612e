//! The shapes measured and, per shape, the keys and empty or filled filters every benchmark
//! draws from, built once outside any timing.
//!
//! Keys are precomputed from seeded SplitMix64 streams; nothing is allocated in a timed loop
//! except by the operation measured.

use crate::peers::{FASTBLOOM_SEED, Fast, FastAtomic, Filter, Ours};
use sparkbloom::BloomFilter;
use sparkbloom_testkit::splitmix64;

/// Batch sizes of the batched operations (the JMH benchmarks use the same).
pub const BATCHES: [usize; 4] = [1, 16, 256, 4096];
/// Largest pool of query keys: 2^20 hits and as many misses, far more cache lines than L3
/// holds at 10^7 keys, so the queries of the large shape really go to memory.
const MAX_POOL: usize = 1 << 20;
/// String keys are 32 ASCII bytes: two keys in hex.
const STR_LEN: usize = 32;

pub struct Shape {
    pub name: &'static str,
    pub n: u64,
    p: f64,
}

pub const SHAPES: [Shape; 2] = [
    Shape {
        name: "n1e4_p1e-3",
        n: 10_000,
        p: 1e-3,
    },
    Shape {
        name: "n1e7_p1e-2",
        n: 10_000_000,
        p: 1e-2,
    },
];

/// Keys and filters of one shape, built once per shape outside any timing.
pub struct Fixture {
    shape_name: &'static str,
    pub num_bits: u64,
    pub num_hashes: u32,
    /// n distinct keys: the ones put into the query filters, and the put benchmarks' pool.
    pub present: Vec<u64>,
    /// Up to `MAX_POOL` of the present keys, spread over all of them.
    pub hits: Vec<u64>,
    /// As many keys that were never put.
    pub misses: Vec<u64>,
    /// `hits` and `misses` interleaved in a seeded random order: the 50/50 mix.
    pub mix: Vec<u64>,
    /// 32-byte string keys: the first `MAX_POOL` (at most n) of the n present ones, cycled by
    /// the put benchmarks; a sample of the present ones spread over all n; absent ones.
    pub str_put: Vec<String>,
    pub str_hits: Vec<String>,
    pub str_misses: Vec<String>,
}

fn key_string(state: &mut u64) -> String {
    let s = format!("{:016x}{:016x}", splitmix64(state), splitmix64(state));
    debug_assert_eq!(s.len(), STR_LEN);
    s
}

impl Fixture {
    pub fn new(shape: &Shape) -> Fixture {
        let probe = BloomFilter::new(shape.n, shape.p).expect("valid shape");
        let n = shape.n as usize;
        let pool = n.min(MAX_POOL);
        let mut state = 0x0001_u64 ^ shape.n;
        let present: Vec<u64> = (0..n).map(|_| splitmix64(&mut state)).collect();
        let stride = n / pool;
        let hits: Vec<u64> = present.iter().step_by(stride).take(pool).copied().collect();
        let mut state = 0x0002_u64 ^ shape.n;
        let misses: Vec<u64> = (0..pool).map(|_| splitmix64(&mut state)).collect();
        let mut mix: Vec<u64> = hits.iter().chain(&misses).copied().collect();
        let mut state = 0x0003_u64 ^ shape.n;
        for i in (1..mix.len()).rev() {
            let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
            mix.swap(i, j);
        }
        let str_put: Vec<String> = Fixture::str_present(shape.n).take(pool).collect();
        let str_hits: Vec<String> = Fixture::str_present(shape.n).step_by(stride).collect();
        let mut state = 0x0005_u64 ^ shape.n;
        let str_misses: Vec<String> = (0..pool).map(|_| key_string(&mut state)).collect();
        Fixture {
            shape_name: shape.name,
            num_bits: probe.num_bits(),
            num_hashes: probe.num_hashes(),
            present,
            hits,
            misses,
            mix,
            str_put,
            str_hits,
            str_misses,
        }
    }

    pub fn ours(&self) -> Ours {
        Ours(
            BloomFilter::with_shape(
                sparkbloom::Shape {
                    num_bits: self.num_bits,
                    num_hashes: self.num_hashes,
                },
                sparkbloom::Strategy::Murmur128Mitz64,
            )
            .expect("valid shape"),
        )
    }

    pub fn fast(&self) -> Fast {
        Fast(
            fastbloom::BloomFilter::with_num_bits(self.num_bits as usize)
                .seed(&FASTBLOOM_SEED)
                .hashes(self.num_hashes),
        )
    }

    pub fn fast_atomic(&self) -> FastAtomic {
        FastAtomic(
            fastbloom::AtomicBloomFilter::with_num_bits(self.num_bits as usize)
                .seed(&FASTBLOOM_SEED)
                .hashes(self.num_hashes),
        )
    }

    /// The n present string keys, regenerated on demand rather than all kept in memory.
    fn str_present(n: u64) -> impl Iterator<Item = String> {
        let mut state = 0x0004_u64 ^ n;
        (0..n).map(move |_| key_string(&mut state))
    }

    /// A filter holding the n present u64 keys.
    pub fn filled<F: Filter>(&self, mut filter: F) -> F {
        self.present.iter().for_each(|&k| filter.put(k));
        filter
    }

    /// A filter holding the n present string keys.
    pub fn filled_str<F: Filter>(&self, mut filter: F) -> F {
        Fixture::str_present(self.present.len() as u64).for_each(|k| filter.put_str(&k));
        filter
    }

    /// The benchmark group of `op` at this shape: `<op>@<shape>`.
    pub fn group_name(&self, op: &str) -> String {
        format!("{op}@{}", self.shape_name)
    }
}

/// The index of the next key of a pool of `len` keys, cycling.
#[inline(always)]
pub fn next_index(len: usize, i: &mut usize) -> usize {
    if *i == len {
        *i = 0;
    }
    *i += 1;
    *i - 1
}

/// The next `len` keys of `pool` (restarting when fewer than `len` remain).
#[inline(always)]
pub fn next_batch<'a>(pool: &'a [u64], start: &mut usize, len: usize) -> &'a [u64] {
    if *start + len > pool.len() {
        *start = 0;
    }
    let batch = &pool[*start..*start + len];
    *start += len;
    batch
}
