//! Where a batch of byte-string keys spends its time natively, beside `long` keys on the same
//! filter: 32-byte ASCII keys (two u64s in hex, as `StringBatchBench` and `filter.rs` use) at the
//! two shapes `StringBatchBench` reports, (10^6, 10^-2) (1.2 MB, above the prefetch threshold)
//! and (10^4, 10^-3) (the per-user filter, in cache). Batches of 4096, queries a 50/50 mix of
//! keys put and keys never put; reported per key (`Throughput::Elements`).
//!
//! Groups `bytes_<op>@<shape>`, functions:
//! * `u64_batch`: `put_all` / `might_contain_all_into` over u64 keys (the reference);
//! * `bytes_batch`: `put_all_bytes` / `might_contain_all_bytes_into` over the packed keys;
//! * `bytes_batch_new_keys` (puts): `put_all_bytes` of a batch into an empty filter (the puts
//!   above re-put keys the filter holds, which dense batches answer with a query first);
//! * `bytes_loop`: one `put_bytes` / `might_contain_bytes` per key (the batch path before);
//! * `hash_scalar` (`bytes_hash@`): Murmur3_x64_128 of the keys alone, key by key.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sparkbloom::hashing::hash_bytes;
use sparkbloom::{BloomFilter, PackedBytes};
use sparkbloom_testkit::splitmix64;
use std::hint::black_box;

const BATCH: usize = 4096;
/// Batches cycled through: 64 × 4096 keys, more than the L2 holds at 32 bytes each.
const BATCHES: usize = 64;

struct Keys {
    data: Vec<u8>,
    ends: Vec<u32>,
    longs: Vec<u64>,
}

/// `count` 32-byte ASCII keys and as many u64 keys, from one seeded stream.
fn keys(seed: u64, count: usize) -> Keys {
    let mut state = seed;
    let (mut data, mut ends, mut longs) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..count {
        let (a, b) = (splitmix64(&mut state), splitmix64(&mut state));
        data.extend_from_slice(format!("{a:016x}{b:016x}").as_bytes());
        ends.push(data.len() as u32);
        longs.push(a);
    }
    Keys { data, ends, longs }
}

/// Batch `b` of `keys` as packed bytes (ends relative to its own data).
fn batch(keys: &Keys, b: usize) -> (&[u8], Vec<u32>, &[u64]) {
    let (first, last) = (b * BATCH, (b + 1) * BATCH);
    let start = if first == 0 { 0 } else { keys.ends[first - 1] };
    let ends = keys.ends[first..last].iter().map(|e| e - start).collect();
    (
        &keys.data[start as usize..keys.ends[last - 1] as usize],
        ends,
        &keys.longs[first..last],
    )
}

fn bench_shape(c: &mut Criterion, name: &str, n: u64, p: f64) {
    let present = keys(1 ^ n, n as usize);
    let absent = keys(2 ^ n, BATCHES * BATCH / 2);
    // The query batches: present and absent keys alternating.
    let mut mix = Keys {
        data: Vec::new(),
        ends: Vec::new(),
        longs: Vec::new(),
    };
    for i in 0..BATCHES * BATCH {
        let (from, j) = if i % 2 == 0 {
            (&present, (i * 7919) % n as usize)
        } else {
            (&absent, i / 2)
        };
        let start = if j == 0 { 0 } else { from.ends[j - 1] as usize };
        mix.data
            .extend_from_slice(&from.data[start..from.ends[j] as usize]);
        mix.ends.push(mix.data.len() as u32);
        mix.longs.push(from.longs[j]);
    }
    let batches: Vec<_> = (0..BATCHES).map(|b| batch(&mix, b)).collect();
    let put_batches: Vec<_> = (0..BATCHES)
        .map(|b| batch(&present, b % (n as usize / BATCH).max(1)))
        .collect();

    let long_filter = BloomFilter::new(n, p).unwrap();
    long_filter.put_all(&present.longs);
    let byte_filter = BloomFilter::new(n, p).unwrap();
    let all = PackedBytes::new(&present.data, &present.ends).unwrap();
    byte_filter.put_all_bytes(all);

    let mut out = vec![false; BATCH];
    let mut group = c.benchmark_group(format!("bytes_query_all@{name}"));
    group.throughput(Throughput::Elements(BATCH as u64));
    let mut b = 0;
    group.bench_function("u64_batch", |bencher| {
        bencher.iter(|| {
            b = (b + 1) % BATCHES;
            long_filter
                .might_contain_all_into(black_box(batches[b].2), &mut out)
                .unwrap();
        })
    });
    group.bench_function("bytes_batch", |bencher| {
        bencher.iter(|| {
            b = (b + 1) % BATCHES;
            let keys = PackedBytes::new(batches[b].0, &batches[b].1).unwrap();
            byte_filter
                .might_contain_all_bytes_into(black_box(keys), &mut out)
                .unwrap();
        })
    });
    // An empty filter answers at the first probe: about the hashing alone.
    let empty = BloomFilter::new(n, p).unwrap();
    group.bench_function("bytes_batch_empty_filter", |bencher| {
        bencher.iter(|| {
            b = (b + 1) % BATCHES;
            let keys = PackedBytes::new(batches[b].0, &batches[b].1).unwrap();
            empty
                .might_contain_all_bytes_into(black_box(keys), &mut out)
                .unwrap();
        })
    });
    group.bench_function("bytes_loop", |bencher| {
        bencher.iter(|| {
            b = (b + 1) % BATCHES;
            let keys = PackedBytes::new(batches[b].0, &batches[b].1).unwrap();
            for (slot, key) in out.iter_mut().zip(keys.iter()) {
                *slot = byte_filter.might_contain_bytes(black_box(key));
            }
        })
    });
    group.finish();

    // Puts into the full filter (as StringBatchBench): hashing and setting, bits mostly set.
    let mut group = c.benchmark_group(format!("bytes_put_all@{name}"));
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function("u64_batch", |bencher| {
        bencher.iter(|| {
            b = (b + 1) % BATCHES;
            long_filter.put_all(black_box(put_batches[b].2))
        })
    });
    group.bench_function("bytes_batch", |bencher| {
        bencher.iter(|| {
            b = (b + 1) % BATCHES;
            let keys = PackedBytes::new(put_batches[b].0, &put_batches[b].1).unwrap();
            byte_filter.put_all_bytes(black_box(keys))
        })
    });
    group.bench_function("bytes_batch_new_keys", |bencher| {
        bencher.iter_batched(
            || BloomFilter::new(n, p).unwrap(),
            |empty| {
                b = (b + 1) % BATCHES;
                let keys = PackedBytes::new(put_batches[b].0, &put_batches[b].1).unwrap();
                empty.put_all_bytes(black_box(keys))
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("bytes_loop", |bencher| {
        bencher.iter(|| {
            b = (b + 1) % BATCHES;
            let keys = PackedBytes::new(put_batches[b].0, &put_batches[b].1).unwrap();
            keys.iter().fold(false, |changed, key| {
                byte_filter.put_bytes(black_box(key)) | changed
            })
        })
    });
    group.finish();

    if n == 10_000 {
        let mut group = c.benchmark_group("bytes_hash@32");
        group.throughput(Throughput::Elements(BATCH as u64));
        group.bench_function(BenchmarkId::new("hash_scalar", BATCH), |bencher| {
            bencher.iter(|| {
                b = (b + 1) % BATCHES;
                let keys = PackedBytes::new(batches[b].0, &batches[b].1).unwrap();
                keys.iter()
                    .fold(0u64, |acc, key| acc ^ hash_bytes(black_box(key)).h1)
            })
        });
        group.finish();
    }
}

fn benches(c: &mut Criterion) {
    bench_shape(c, "n1e6_p1e-2", 1_000_000, 1e-2);
    bench_shape(c, "n1e4_p1e-3", 10_000, 1e-3);
}

criterion_group!(byte_key_benches, benches);
criterion_main!(byte_key_benches);
