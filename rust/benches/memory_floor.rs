//! The host's random-cache-line floor: the least time per key that any filter of a given size
//! can take when each key touches a given number of random cache lines, measured on this host.
//!
//! A filter far larger than cache (n = 10^7, p = 10^-2: 95,850,584 bits, 12 MB) is bounded by
//! how many random lines memory delivers per second, not by hashing. This benchmark does no
//! filter work: per key it derives `lines` random word indexes with one multiply each, prefetches
//! a whole group of keys' lines a group ahead (as the batch kernels do), then reads (or ORs a bit
//! into) each word. Its ns per key is the floor the batched filter paths are judged against:
//!
//! * `read_1`: one line per key, what a BLOCKED query or put needs;
//! * `read_5`: ~5 lines per key, what a classic (k = 7) query touches on a 50/50 hit/miss mix
//!   when misses stop at their first clear bit (7 lines per hit, ~3 per miss);
//! * `read_7`, `write_7`: k = 7 lines per key, a classic query of a present key or a put.
//!
//! Each is measured with groups of 4, 8 and 16 keys in flight (`/g4` …): how many lines a core
//! keeps in flight best depends on its miss buffers, and the floor is the fastest of the three.
//! Batches of 4096 keys, as the filter benchmarks' largest batch; the group is named
//! `random_lines@<shape>` after the filter shape whose size it measures.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sparkbloom_testkit::splitmix64;
use std::hint::black_box;

/// Words of the (10^7, 10^-2) filter: Guava's m = 95,850,584 bits in whole 64-bit words.
const WORDS: usize = 95_850_584_usize.div_ceil(64);
/// Keys per batch, as the filter benchmarks' largest batch.
const BATCH: usize = 4096;
/// Most lines per key measured.
const MAX_LINES: usize = 7;
/// Most keys in flight measured.
const MAX_GROUP: usize = 16;

/// The `i`th word index of `key`: a multiply-xorshift of the key and `i`, reduced to `words`
/// by a multiply-high (no division).
#[inline(always)]
fn index(key: u64, i: usize, words: usize) -> usize {
    let mut h = key ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h = (h ^ (h >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 29;
    ((u128::from(h) * words as u128) >> 64) as usize
}

#[inline(always)]
fn prefetch(words: &[u64], at: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults; `at` is in bounds anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(words.as_ptr().add(at).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (words, at);
}

/// Reads (`write` false) or sets a bit in (`write` true) `lines` random words per key, each
/// group of `GROUP` keys' words prefetched one group before they are touched. Returns the OR of
/// the words read so nothing is optimised away.
fn touch<const GROUP: usize>(words: &mut [u64], keys: &[u64], lines: usize, write: bool) -> u64 {
    const { assert!(GROUP <= MAX_GROUP) };
    let len = words.len();
    let mut ring = [[0usize; MAX_GROUP * MAX_LINES]; 2];
    let mut acc = 0;
    let groups = keys.chunks(GROUP);
    let mut previous: Option<usize> = None;
    for (g, group) in groups.enumerate() {
        let slot = g & 1;
        for (k, &key) in group.iter().enumerate() {
            for i in 0..lines {
                let at = index(key, i, len);
                ring[slot][k * lines + i] = at;
                prefetch(words, at);
            }
        }
        if let Some(count) = previous {
            acc |= visit(words, &ring[slot ^ 1][..count], write);
        }
        previous = Some(group.len() * lines);
    }
    if let Some(count) = previous {
        acc |= visit(
            words,
            &ring[(keys.len().div_ceil(GROUP) - 1) & 1][..count],
            write,
        );
    }
    acc
}

#[inline(always)]
fn visit(words: &mut [u64], at: &[usize], write: bool) -> u64 {
    let mut acc = 0;
    for &w in at {
        if write {
            words[w] |= 1 << (w & 63);
        } else {
            acc |= words[w];
        }
    }
    acc
}

fn bench_floor(c: &mut Criterion) {
    let mut words = vec![0u64; WORDS];
    let mut state = 0x5eed_u64;
    words.iter_mut().for_each(|w| *w = splitmix64(&mut state));
    // 2^20 keys, cycled a batch at a time: far more lines than cache holds.
    let pool: Vec<u64> = (0..1 << 20).map(|_| splitmix64(&mut state)).collect();
    let mut group = c.benchmark_group("random_lines@n1e7_p1e-2");
    group.throughput(Throughput::Elements(BATCH as u64));
    type Touch = fn(&mut [u64], &[u64], usize, bool) -> u64;
    let groups: [(&str, Touch); 3] = [("g4", touch::<4>), ("g8", touch::<8>), ("g16", touch::<16>)];
    for (name, lines, write) in [
        ("read_1", 1, false),
        ("read_5", 5, false),
        ("read_7", 7, false),
        ("write_7", 7, true),
    ] {
        for (in_flight, touch) in groups {
            let mut start = 0;
            let id = BenchmarkId::new(format!("{name}/{in_flight}"), BATCH);
            group.bench_function(id, |b| {
                b.iter(|| {
                    if start + BATCH > pool.len() {
                        start = 0;
                    }
                    let keys = &pool[start..start + BATCH];
                    start += BATCH;
                    black_box(touch(&mut words, keys, lines, write))
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_floor);
criterion_main!(benches);
