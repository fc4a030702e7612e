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
//! This file runs the groups in order; each module holds one concept: `fixture` (shapes, keys,
//! filters), `peers` (ours and fastbloom's behind one trait), `puts`, `queries`,
//! `serialization` and `anatomy` (where a put's time goes), each documenting its groups.

// The modules live in rust/benches/filter/ (a bench target's root resolves `mod` beside itself).
#[path = "filter/anatomy.rs"]
mod anatomy;
#[path = "filter/fixture.rs"]
mod fixture;
#[path = "filter/peers.rs"]
mod peers;
#[path = "filter/puts.rs"]
mod puts;
#[path = "filter/queries.rs"]
mod queries;
#[path = "filter/serialization.rs"]
mod serialization;

use criterion::{Criterion, criterion_group, criterion_main};
use fixture::{Fixture, SHAPES};
use peers::Filter;

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
        puts::bench_put(c, &fx, fx.ours());
        puts::bench_put(c, &fx, fx.fast());
        puts::bench_put_atomic(c, &fx);

        let ours = fx.filled(fx.ours());
        let fast = fx.filled(fx.fast());
        queries::bench_queries(c, &fx, &ours, &fx.filled_str(fx.ours()));
        queries::bench_queries(c, &fx, &fast, &fx.filled_str(fx.fast()));
        serialization::bench_serde(c, &fx, &ours, &fast, "");

        if shape.n == 10_000 {
            // The per-user case: a per-user filter sized for 10^4 keys holding 200.
            let (mut sparse, mut sparse_fast) = (fx.ours(), fx.fast());
            fx.present[..200].iter().for_each(|&k| {
                sparse.put(k);
                sparse_fast.put(k);
            });
            serialization::bench_serde(c, &fx, &sparse, &sparse_fast, "_sparse");
            serialization::bench_codec_ring(c, &fx, "sparse", 200, 1);
            serialization::bench_codec_ring(c, &fx, "full", shape.n as usize, 0);
        }
    }
}

criterion_group!(filter_benches, benches);
criterion_main!(filter_benches);
