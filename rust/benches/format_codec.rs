//! The format's codec alone, as the Java serial proxy calls it (`format::encode_into` into a
//! reused buffer, `format::decode` of the bytes): a ring of [`RING`] distinct (10^4, 10^-3)
//! filters, each holding 200 keys (`sparse`: the per-user filter, ~2,000 Rice codes) or 10^4
//! keys (`full`: a dense payload of 17,976 bytes). Distinct filters, so that the branch
//! predictor cannot learn one filter's words and codes, which a job never lets it do. Figures
//! are per filter.

use criterion::{Criterion, criterion_group, criterion_main};
use sparkbloom::testutil::splitmix64;
use sparkbloom::{BloomFilter, format};
use std::hint::black_box;

/// Filters in each ring.
const RING: usize = 64;

fn ring(keys: usize) -> Vec<BloomFilter> {
    let mut state = 0x0006_u64;
    (0..RING)
        .map(|_| {
            let filter = BloomFilter::new(10_000, 0.001).expect("shape");
            (0..keys).for_each(|_| {
                filter.put(splitmix64(&mut state));
            });
            filter
        })
        .collect()
}

fn bench_codec(c: &mut Criterion) {
    for (name, keys, encoding) in [("sparse", 200, 1u8), ("full", 10_000, 0)] {
        let filters = ring(keys);
        let encoded: Vec<Vec<u8>> = filters.iter().map(format::encode).collect();
        for (filter, bytes) in filters.iter().zip(&encoded) {
            assert_eq!(bytes[6], encoding, "{name}");
            assert_eq!(&format::decode(bytes).expect("decodes"), filter);
        }
        let mut buffer = vec![0u8; format::max_encoded_len(filters[0].num_bits()) as usize];
        let mut i = 0;
        let mut next = || {
            i = (i + 1) % RING;
            i
        };
        c.bench_function(&format!("encode_into_{name}"), |b| {
            b.iter(|| format::encode_into(black_box(&filters[next()]), &mut buffer).unwrap())
        });
        c.bench_function(&format!("decode_{name}"), |b| {
            b.iter(|| format::decode(black_box(&encoded[next()])).expect("decodes"))
        });
    }
}

criterion_group!(codec_benches, bench_codec);
criterion_main!(codec_benches);
