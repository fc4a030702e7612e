//! Puts, one key per call and in batches, for each implementation.
//!
//! * `put_u64`, `put_str`: one key per call, cycling through a fixed pool of distinct keys (the
//!   n u64 keys; the first min(n, 2^20) string keys); when the pool wraps the filter is cleared
//!   (inside the timing, amortised over the pool), so puts land in a filter that is filling up,
//!   as in a real dedup job.
//! * `put_all`: batches of 1, 16, 256, 4096 keys taken in turn from the pool. fastbloom has no
//!   batch API: it is a plain loop, on its plain filter and on its atomic one (`fastbloom_atomic`,
//!   thread-safe as ours is).

use crate::fixture::{BATCHES, Fixture, next_batch};
use crate::peers::{FastAtomic, Filter};
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

pub fn bench_put<F: Filter>(c: &mut Criterion, fx: &Fixture, mut filter: F) {
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

/// `put_u64` and `put_all` on fastbloom's atomic filter (a plain loop, as for its plain one).
pub fn bench_put_atomic(c: &mut Criterion, fx: &Fixture) {
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

    let mut group = c.benchmark_group(fx.group_name("put_all"));
    for batch in BATCHES {
        group.throughput(Throughput::Elements(batch as u64));
        let mut start = 0;
        filter.0.clear();
        group.bench_function(BenchmarkId::new(FastAtomic::NAME, batch), |b| {
            b.iter(|| {
                if start + batch > fx.present.len() {
                    filter.0.clear();
                }
                for key in black_box(next_batch(&fx.present, &mut start, batch)) {
                    filter.0.insert(key);
                }
            })
        });
    }
    group.finish();
}
