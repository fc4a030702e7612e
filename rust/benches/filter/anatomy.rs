//! Where a put's time goes, measured on models of the core's steps (the core's `Indexer` and
//! `BitArray` are private): the Murmur3 hash alone; plus the two 64-bit divisions that start
//! Guava's index walk (`(h1 & MAX) % m`, `(h2 & MAX) % m`); the same two remainders the core's
//! way, two multiplications and a conditional subtract (bit-identical, checked below); and the
//! whole put (hash, walk, k bit sets) with three ways of setting a bit; and a miss query's
//! latency (queries that cannot overlap). Diagnostics for BENCHMARKS.md, not a comparison with
//! a peer: one group, `anatomy@<shape>`.

use crate::fixture::{Fixture, next_index};
use crate::peers::Filter;
use criterion::Criterion;
use sparkbloom::hashing::hash_u64;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const LOW_63: u64 = i64::MAX as u64;

/// Precomputed ⌊(2^64 − 1) / m⌋ for [`fastmod`].
fn fastmod_magic(m: u64) -> u64 {
    u64::MAX / m
}

/// `a % m` from `magic = fastmod_magic(m)` without a division, as the core's `FastMod`: the
/// quotient estimate `a · magic / 2^64` is exact or one short, so one conditional subtract
/// finishes the remainder.
#[inline(always)]
fn fastmod(a: u64, magic: u64, m: u64) -> u64 {
    let quotient = ((a as u128 * magic as u128) >> 64) as u64;
    let r = a - quotient * m;
    r.min(r.wrapping_sub(m))
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
    // How a bit is set: load, and `fetch_or` only if the bit is clear (a branch that
    // mispredicts about half the time once the filter is half full); always `fetch_or`
    // (fastbloom's AtomicBloomFilter); branchless plain load | mask, store (fastbloom's
    // BloomFilter, and the core's under its writer lock; alone, not safe for concurrent puts).
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
