//! Queries, one key per call and in batches, for each implementation.
//!
//! * `hit_*` / `miss_*`: one query per call on a filter filled with n keys (u64 and string keys
//!   in separate filters); hits are a sample of the keys put, spread over all n; misses come
//!   from another seeded stream (a fraction ≈ p of them are false positives).
//! * `query_all` (`might_contain_all_into`, no allocation), `retain_absent` (allocates its
//!   result, as the API does): batches of 1, 16, 256, 4096 keys taken in turn from a 50/50
//!   hit/miss mix. fastbloom has no batch API: it is a plain loop.

use crate::fixture::{BATCHES, Fixture, next_batch, next_index};
use crate::peers::Filter;
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

/// Queries on `filter` (holding the u64 keys) and `str_filter` (holding the string keys).
pub fn bench_queries<F: Filter>(c: &mut Criterion, fx: &Fixture, filter: &F, str_filter: &F) {
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
