//! (Over 500 lines: one criterion group per operation, each measuring us and the peer side by
//! side, which is what keeps their figures comparable.)
//!
//! Criterion benchmarks of the sparkbloom core beside `fastbloom` 0.17 (the fastest Rust Bloom
//! filter we know of), measured in the same run, on the same shapes (same m bits, same k).
//!
//! Two shapes: (n = 10^4, p = 10^-3), the per-user dedup filter, which
//! lives in L1/L2; and (n = 10^7, p = 10^-2), 12 MB, which does not fit in cache, so every probe
//! is a cache miss unless a batch overlaps them (prefetch).
//!
//! Groups are named `<operation>@<shape>`, functions `<implementation>`, and batch groups carry
//! the batch size as parameter: `scripts/bench_table.py` joins them with the JMH results by
//! these names. Batch groups declare `Throughput::Elements(batch)`; the table divides by it to
//! report ns per key.
//!
//! * `put_u64`, `put_str`: one key per call, cycling through a fixed pool of distinct keys (the
//!   n u64 keys; the first min(n, 2^20) string keys); when the pool wraps the filter is cleared
//!   (inside the timing, amortised over the pool), so puts land in a filter that is filling up,
//!   as in a real dedup job.
//! * `hit_*` / `miss_*`: one query per call on a filter filled with n keys (u64 and string keys
//!   in separate filters); hits are a sample of the keys put, spread over all n; misses come
//!   from another seeded stream (a fraction ≈ p of them are false positives).
//! * `put_all`, `query_all` (`might_contain_all_into`, no allocation), `retain_absent` (allocates
//!   its result, as the API does): batches of 1, 16, 256, 4096 keys taken in turn from a pool,
//!   queries on a 50/50 hit/miss mix. fastbloom has no batch API: it is a plain loop.
//! * `serialize` / `deserialize`: `format::encode` / `format::decode` of a filter holding n keys,
//!   and `*_sparse` of a (10^4, 10^-3) filter holding 200 keys (the per-user case where the
//!   format's sparse encoding wins). fastbloom has no byte format (serde only): its figure is
//!   the raw copy of its words to little-endian bytes and back, the floor any format pays.
//!   `*_sparse_ring` codes 64 distinct such filters in turn (ours only), as a job does.
//!
//! Keys are precomputed from seeded SplitMix64 streams; nothing is allocated in a timed loop
//! except by the operation measured.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sparkbloom::testutil::splitmix64;
use sparkbloom::{BloomFilter, format};
use std::hint::black_box;

/// fastbloom's SipHash key: fixed, so runs are reproducible.
const FASTBLOOM_SEED: u128 = 0x5eed_b100_f11e_7e55_0000_0000_0000_0001;
/// Batch sizes of the batched operations (the JMH benchmarks use the same).
const BATCHES: [usize; 4] = [1, 16, 256, 4096];
/// Largest pool of query keys: 2^20 hits and as many misses, far more cache lines than L3
/// holds at 10^7 keys, so the queries of the large shape really go to memory.
const MAX_POOL: usize = 1 << 20;
/// String keys are 32 ASCII bytes: two keys in hex.
const STR_LEN: usize = 32;

struct Shape {
    name: &'static str,
    n: u64,
    p: f64,
}

const SHAPES: [Shape; 2] = [
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

/// The operations benchmarked, for either implementation: a small trait rather than a macro,
/// so both sides read as plain code.
trait Filter {
    const NAME: &'static str;
    fn put(&mut self, key: u64);
    fn contains(&self, key: u64) -> bool;
    fn put_str(&mut self, key: &str);
    fn contains_str(&self, key: &str) -> bool;
    fn put_all(&mut self, keys: &[u64]);
    fn contains_all_into(&self, keys: &[u64], out: &mut [bool]);
    fn retain_absent(&self, keys: &[u64]) -> Vec<u64>;
    fn clear(&mut self);
}

struct Ours(BloomFilter);

impl Filter for Ours {
    const NAME: &'static str = "sparkbloom";
    #[inline]
    fn put(&mut self, key: u64) {
        self.0.put(key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.might_contain(key)
    }
    #[inline]
    fn put_str(&mut self, key: &str) {
        self.0.put_str(key);
    }
    #[inline]
    fn contains_str(&self, key: &str) -> bool {
        self.0.might_contain_str(key)
    }
    #[inline]
    fn put_all(&mut self, keys: &[u64]) {
        self.0.put_all(keys);
    }
    #[inline]
    fn contains_all_into(&self, keys: &[u64], out: &mut [bool]) {
        self.0
            .might_contain_all_into(keys, out)
            .expect("out is as long as keys");
    }
    #[inline]
    fn retain_absent(&self, keys: &[u64]) -> Vec<u64> {
        self.0.retain_absent(keys)
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

struct Fast(fastbloom::BloomFilter);

impl Filter for Fast {
    const NAME: &'static str = "fastbloom";
    #[inline]
    fn put(&mut self, key: u64) {
        self.0.insert(&key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    #[inline]
    fn put_str(&mut self, key: &str) {
        self.0.insert(key);
    }
    #[inline]
    fn contains_str(&self, key: &str) -> bool {
        self.0.contains(key)
    }
    #[inline]
    fn put_all(&mut self, keys: &[u64]) {
        keys.iter().for_each(|key| {
            self.0.insert(key);
        });
    }
    #[inline]
    fn contains_all_into(&self, keys: &[u64], out: &mut [bool]) {
        out.iter_mut()
            .zip(keys)
            .for_each(|(slot, key)| *slot = self.0.contains(key));
    }
    #[inline]
    fn retain_absent(&self, keys: &[u64]) -> Vec<u64> {
        keys.iter()
            .copied()
            .filter(|key| !self.0.contains(key))
            .collect()
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// fastbloom's thread-safe variant (atomic `fetch_or`), the like-for-like peer of our puts,
/// which are atomic too: measured for puts only.
struct FastAtomic(fastbloom::AtomicBloomFilter);

impl FastAtomic {
    const NAME: &'static str = "fastbloom_atomic";
}

/// Keys and filters of one shape, built once per shape outside any timing.
struct Fixture {
    shape_name: &'static str,
    num_bits: u64,
    num_hashes: u32,
    /// n distinct keys: the ones put into the query filters, and the put benchmarks' pool.
    present: Vec<u64>,
    /// Up to `MAX_POOL` of the present keys, spread over all of them.
    hits: Vec<u64>,
    /// As many keys that were never put.
    misses: Vec<u64>,
    /// `hits` and `misses` interleaved in a seeded random order: the 50/50 mix.
    mix: Vec<u64>,
    /// 32-byte string keys: the first `MAX_POOL` (at most n) of the n present ones, cycled by
    /// the put benchmarks; a sample of the present ones spread over all n; absent ones.
    str_put: Vec<String>,
    str_hits: Vec<String>,
    str_misses: Vec<String>,
}

fn key_string(state: &mut u64) -> String {
    let s = format!("{:016x}{:016x}", splitmix64(state), splitmix64(state));
    debug_assert_eq!(s.len(), STR_LEN);
    s
}

impl Fixture {
    fn new(shape: &Shape) -> Fixture {
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

    fn ours(&self) -> Ours {
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

    fn fast(&self) -> Fast {
        Fast(
            fastbloom::BloomFilter::with_num_bits(self.num_bits as usize)
                .seed(&FASTBLOOM_SEED)
                .hashes(self.num_hashes),
        )
    }

    fn fast_atomic(&self) -> FastAtomic {
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
    fn filled<F: Filter>(&self, mut filter: F) -> F {
        self.present.iter().for_each(|&k| filter.put(k));
        filter
    }

    /// A filter holding the n present string keys.
    fn filled_str<F: Filter>(&self, mut filter: F) -> F {
        Fixture::str_present(self.present.len() as u64).for_each(|k| filter.put_str(&k));
        filter
    }

    fn group_name(&self, op: &str) -> String {
        format!("{op}@{}", self.shape_name)
    }
}

/// The index of the next key of a pool of `len` keys, cycling.
#[inline(always)]
fn next_index(len: usize, i: &mut usize) -> usize {
    if *i == len {
        *i = 0;
    }
    *i += 1;
    *i - 1
}

/// The next `len` keys of `pool` (restarting when fewer than `len` remain).
#[inline(always)]
fn next_batch<'a>(pool: &'a [u64], start: &mut usize, len: usize) -> &'a [u64] {
    if *start + len > pool.len() {
        *start = 0;
    }
    let batch = &pool[*start..*start + len];
    *start += len;
    batch
}

fn bench_put<F: Filter>(c: &mut Criterion, fx: &Fixture, mut filter: F) {
    let mut group = c.benchmark_group(fx.group_name("put_u64"));
    let mut i = 0;
    group.bench_function(F::NAME, |b| {
        b.iter(|| {
            if i == fx.present.len() {
                filter.clear();
                i = 0;
            }
            filter.put(black_box(fx.present[i]));
            i += 1;
        })
    });
    group.finish();

    let mut group = c.benchmark_group(fx.group_name("put_str"));
    let mut i = 0;
    group.bench_function(F::NAME, |b| {
        b.iter(|| {
            if i == fx.str_put.len() {
                filter.clear();
                i = 0;
            }
            filter.put_str(black_box(&fx.str_put[i]));
            i += 1;
        })
    });
    group.finish();

    let mut group = c.benchmark_group(fx.group_name("put_all"));
    for batch in BATCHES {
        group.throughput(Throughput::Elements(batch as u64));
        let mut start = 0;
        filter.clear();
        group.bench_function(BenchmarkId::new(F::NAME, batch), |b| {
            b.iter(|| {
                if start + batch > fx.present.len() {
                    filter.clear();
                }
                filter.put_all(black_box(next_batch(&fx.present, &mut start, batch)));
            })
        });
    }
    group.finish();
}

fn bench_put_atomic(c: &mut Criterion, fx: &Fixture) {
    let filter = fx.fast_atomic();
    let mut group = c.benchmark_group(fx.group_name("put_u64"));
    let mut i = 0;
    group.bench_function(FastAtomic::NAME, |b| {
        b.iter(|| {
            if i == fx.present.len() {
                filter.0.clear();
                i = 0;
            }
            filter.0.insert(&black_box(fx.present[i]));
            i += 1;
        })
    });
    group.finish();
}

/// Queries on `filter` (holding the u64 keys) and `str_filter` (holding the string keys).
fn bench_queries<F: Filter>(c: &mut Criterion, fx: &Fixture, filter: &F, str_filter: &F) {
    let u64_pools: [(&str, &[u64]); 2] = [("hit_u64", &fx.hits), ("miss_u64", &fx.misses)];
    for (op, pool) in u64_pools {
        let mut group = c.benchmark_group(fx.group_name(op));
        let mut i = 0;
        group.bench_function(F::NAME, |b| {
            b.iter(|| filter.contains(black_box(pool[next_index(pool.len(), &mut i)])))
        });
        group.finish();
    }
    let str_pools: [(&str, &[String]); 2] =
        [("hit_str", &fx.str_hits), ("miss_str", &fx.str_misses)];
    for (op, pool) in str_pools {
        let mut group = c.benchmark_group(fx.group_name(op));
        let mut i = 0;
        group.bench_function(F::NAME, |b| {
            b.iter(|| str_filter.contains_str(black_box(&pool[next_index(pool.len(), &mut i)])))
        });
        group.finish();
    }

    let mut group = c.benchmark_group(fx.group_name("query_all"));
    let mut out = vec![false; *BATCHES.iter().max().expect("batches")];
    for batch in BATCHES {
        group.throughput(Throughput::Elements(batch as u64));
        let mut start = 0;
        group.bench_function(BenchmarkId::new(F::NAME, batch), |b| {
            b.iter(|| {
                let keys = next_batch(&fx.mix, &mut start, batch);
                filter.contains_all_into(black_box(keys), &mut out[..batch]);
                black_box(&out);
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group(fx.group_name("retain_absent"));
    for batch in BATCHES {
        group.throughput(Throughput::Elements(batch as u64));
        let mut start = 0;
        group.bench_function(BenchmarkId::new(F::NAME, batch), |b| {
            b.iter(|| filter.retain_absent(black_box(next_batch(&fx.mix, &mut start, batch))))
        });
    }
    group.finish();
}

fn bench_serde(c: &mut Criterion, fx: &Fixture, ours: &Ours, fast: &Fast, suffix: &str) {
    let encoded = format::encode(&ours.0);
    let mut group = c.benchmark_group(fx.group_name(&format!("serialize{suffix}")));
    group.bench_function(Ours::NAME, |b| {
        b.iter(|| format::encode(black_box(&ours.0)))
    });
    group.bench_function(Fast::NAME, |b| b.iter(|| fast_to_bytes(black_box(&fast.0))));
    group.finish();

    let mut group = c.benchmark_group(fx.group_name(&format!("deserialize{suffix}")));
    match format::decode(&encoded) {
        Ok(decoded) if decoded == ours.0 => {
            group.bench_function(Ours::NAME, |b| {
                b.iter(|| format::decode(black_box(&encoded)).expect("decodes"))
            });
        }
        _ => eprintln!(
            "skipping {}: format::decode does not round-trip encode's {} bytes yet",
            fx.group_name(&format!("deserialize{suffix}/{}", Ours::NAME)),
            encoded.len()
        ),
    }
    let fast_bytes = fast_to_bytes(&fast.0);
    let k = fast.0.num_hashes();
    group.bench_function(Fast::NAME, |b| {
        b.iter(|| fast_from_bytes(black_box(&fast_bytes), k))
    });
    group.finish();
}

/// Filters in [`bench_codec_ring`]'s rings.
const RING: usize = 64;

/// `serialize_{name}_ring` / `deserialize_{name}_ring`: encode and decode a ring of [`RING`]
/// distinct filters of the fixture's shape, each holding `keys` keys (200: the per-user filter
/// of a dedup job's 10,000, sparse; n: full, dense), in turn. Coding one filter again and again
/// lets the branch predictor learn its words and codes, which a job never sees; the figure is
/// per filter. The encode writes into a reused buffer (`encode_into`), as the Java serial proxy
/// does.
fn bench_codec_ring(c: &mut Criterion, fx: &Fixture, name: &str, keys: usize, encoding: u8) {
    let mut state = 0x0006_u64;
    let filters: Vec<BloomFilter> = (0..RING)
        .map(|_| {
            let filter = fx.ours().0;
            (0..keys).for_each(|_| {
                filter.put(splitmix64(&mut state));
            });
            filter
        })
        .collect();
    let encoded: Vec<Vec<u8>> = filters.iter().map(format::encode).collect();
    for (filter, bytes) in filters.iter().zip(&encoded) {
        assert_eq!(bytes[6], encoding, "{name}");
        assert_eq!(&format::decode(bytes).expect("decodes"), filter);
    }
    let mut buffer = vec![0u8; format::max_encoded_len(filters[0].num_bits()) as usize];
    let mut group = c.benchmark_group(fx.group_name(&format!("serialize_{name}_ring")));
    let mut i = 0;
    group.bench_function(Ours::NAME, |b| {
        b.iter(|| {
            format::encode_into(black_box(&filters[next_index(RING, &mut i)]), &mut buffer)
                .expect("fits")
        })
    });
    group.finish();
    let mut group = c.benchmark_group(fx.group_name(&format!("deserialize_{name}_ring")));
    group.bench_function(Ours::NAME, |b| {
        b.iter(|| format::decode(black_box(&encoded[next_index(RING, &mut i)])).expect("decodes"))
    });
    group.finish();
}

/// fastbloom's words as little-endian bytes: the least any byte format costs.
fn fast_to_bytes(filter: &fastbloom::BloomFilter) -> Vec<u8> {
    let words = filter.as_slice();
    let mut out = Vec::with_capacity(words.len() * 8);
    words
        .iter()
        .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    out
}

fn fast_from_bytes(bytes: &[u8], num_hashes: u32) -> fastbloom::BloomFilter {
    let words = bytes
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
        .collect();
    fastbloom::BloomFilter::from_vec(words)
        .seed(&FASTBLOOM_SEED)
        .hashes(num_hashes)
}

/// Where a put's time goes, measured on models of the core's steps (the core's `Indexer` and
/// `BitArray` are private): the Murmur3 hash alone; plus the two 64-bit divisions that start
/// Guava's index walk (`(h1 & MAX) % m`, `(h2 & MAX) % m`); the same two remainders by Lemire's
/// multiply-only "fastmod" (bit-identical, checked below); and the whole put (hash, walk, k bit
/// sets) with three ways of setting a bit; and a miss query's latency (queries that cannot
/// overlap). Diagnostics for BENCHMARKS.md, not a comparison with a peer.
mod anatomy {
    use super::*;
    use sparkbloom::hashing::hash_u64;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    const LOW_63: u64 = i64::MAX as u64;

    /// Precomputed ⌈2^128 / m⌉ for [`fastmod`].
    pub fn fastmod_magic(m: u64) -> u128 {
        (u128::MAX / m as u128).wrapping_add(1)
    }

    /// `a % m` from `magic = fastmod_magic(m)` with three multiplications and no division
    /// (Lemire, Kaser, Kurz 2019, "Faster remainder by direct computation", 64-bit case).
    #[inline(always)]
    pub fn fastmod(a: u64, magic: u128, m: u64) -> u64 {
        let low = magic.wrapping_mul(a as u128);
        let bottom = ((low as u64) as u128 * m as u128) >> 64;
        let top = (low >> 64) * m as u128;
        ((bottom + top) >> 64) as u64
    }

    /// Guava's MITZ_64 walk from the two starting remainders: the core's scheme (two
    /// remainders, then additions and one conditional subtraction per index).
    #[inline(always)]
    fn walk(
        (h1, h2): (u64, u64),
        (start, step): (u64, u64),
        (m, k, wrap): (u64, u32, u64),
        mut visit: impl FnMut(u64),
    ) {
        let mut a = h1 & LOW_63;
        let d = h2 & LOW_63;
        let mut idx = start;
        for i in 0..k {
            visit(idx);
            if i + 1 == k {
                break;
            }
            a += d;
            idx += step;
            if idx >= m {
                idx -= m;
            }
            if a > LOW_63 {
                a -= 1 << 63;
                idx = if idx >= wrap {
                    idx - wrap
                } else {
                    idx + m - wrap
                };
            }
        }
    }

    pub fn bench(c: &mut Criterion, fx: &Fixture) {
        let (m, k) = (fx.num_bits, fx.num_hashes);
        let magic = fastmod_magic(m);
        let wrap = (1u64 << 63) % m;
        for &key in fx.present.iter().take(100_000) {
            let h = hash_u64(key);
            assert_eq!(fastmod(h.h1 & LOW_63, magic, m), (h.h1 & LOW_63) % m);
            assert_eq!(fastmod(h.h2 & LOW_63, magic, m), (h.h2 & LOW_63) % m);
        }
        let words: Vec<AtomicU64> = (0..m / 64).map(|_| AtomicU64::new(0)).collect();
        let keys = &fx.present;
        let mut group = c.benchmark_group(fx.group_name("anatomy"));
        let mut i = 0;
        // Latency, not throughput: each query's key depends on the previous answer, so
        // consecutive queries cannot overlap, as when every query is a separate JNI call
        // (the transition orders them). Compare with `miss_u64` (back-to-back, overlapping).
        let probe = fx.filled(fx.ours());
        let misses = &fx.misses;
        let mut prev = false;
        group.bench_function("miss_latency", |b| {
            b.iter(|| {
                let key = misses[next_index(misses.len(), &mut i)] ^ prev as u64;
                prev = probe.contains(black_box(key));
                prev
            })
        });
        group.bench_function("hash", |b| {
            b.iter(|| hash_u64(black_box(keys[next_index(keys.len(), &mut i)])))
        });
        group.bench_function("hash_2div", |b| {
            b.iter(|| {
                let h = hash_u64(black_box(keys[next_index(keys.len(), &mut i)]));
                ((h.h1 & LOW_63) % m) ^ ((h.h2 & LOW_63) % m)
            })
        });
        group.bench_function("hash_fastmod", |b| {
            b.iter(|| {
                let h = hash_u64(black_box(keys[next_index(keys.len(), &mut i)]));
                fastmod(h.h1 & LOW_63, magic, m) ^ fastmod(h.h2 & LOW_63, magic, m)
            })
        });
        // How a bit is set: the core's way (load, and `fetch_or` only if the bit is clear: a
        // branch that mispredicts about half the time once the filter is half full); always
        // `fetch_or` (fastbloom's AtomicBloomFilter); branchless plain load | mask, store
        // (fastbloom's BloomFilter; not safe for concurrent puts).
        #[derive(Clone, Copy)]
        enum SetBit {
            CheckFirst,
            AlwaysAtomic,
            PlainStore,
        }
        let put = |key: u64, how: SetBit| {
            let h = hash_u64(key);
            let (start, step) = ((h.h1 & LOW_63) % m, (h.h2 & LOW_63) % m);
            let mut changed = false;
            walk((h.h1, h.h2), (start, step), (m, k, wrap), |idx| {
                let word = &words[(idx >> 6) as usize];
                let mask = 1u64 << (idx & 63);
                changed |= match how {
                    SetBit::CheckFirst => {
                        word.load(Relaxed) & mask == 0 && word.fetch_or(mask, Relaxed) & mask == 0
                    }
                    SetBit::AlwaysAtomic => word.fetch_or(mask, Relaxed) & mask == 0,
                    SetBit::PlainStore => {
                        let old = word.load(Relaxed);
                        word.store(old | mask, Relaxed);
                        old & mask == 0
                    }
                };
            });
            changed
        };
        for (name, how) in [
            ("put_check_then_fetch_or", SetBit::CheckFirst),
            ("put_fetch_or", SetBit::AlwaysAtomic),
            ("put_plain_or", SetBit::PlainStore),
        ] {
            group.bench_function(name, |b| {
                b.iter(|| {
                    let j = next_index(keys.len(), &mut i);
                    if j == 0 {
                        words.iter().for_each(|w| w.store(0, Relaxed));
                    }
                    put(black_box(keys[j]), how)
                })
            });
        }
        group.finish();
    }
}

fn benches(c: &mut Criterion) {
    // SPARKBLOOM_BENCH_SHAPES=n1e4_p1e-3 (comma-separated) limits the run to those shapes,
    // fixtures included (useful under callgrind).
    let only = std::env::var("SPARKBLOOM_BENCH_SHAPES").ok();
    for shape in &SHAPES {
        if only
            .as_ref()
            .is_some_and(|o| !o.split(',').any(|s| s == shape.name))
        {
            continue;
        }
        let fx = Fixture::new(shape);
        anatomy::bench(c, &fx);
        bench_put(c, &fx, fx.ours());
        bench_put(c, &fx, fx.fast());
        bench_put_atomic(c, &fx);

        let ours = fx.filled(fx.ours());
        let fast = fx.filled(fx.fast());
        bench_queries(c, &fx, &ours, &fx.filled_str(fx.ours()));
        bench_queries(c, &fx, &fast, &fx.filled_str(fx.fast()));
        bench_serde(c, &fx, &ours, &fast, "");

        if shape.n == 10_000 {
            // The per-user case: a per-user filter sized for 10^4 keys holding 200.
            let (mut sparse, mut sparse_fast) = (fx.ours(), fx.fast());
            fx.present[..200].iter().for_each(|&k| {
                sparse.put(k);
                sparse_fast.put(k);
            });
            bench_serde(c, &fx, &sparse, &sparse_fast, "_sparse");
            bench_codec_ring(c, &fx, "sparse", 200, 1);
            bench_codec_ring(c, &fx, "full", shape.n as usize, 0);
        }
    }
}

criterion_group!(filter_benches, benches);
criterion_main!(filter_benches);
