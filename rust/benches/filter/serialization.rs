//! Encoding and decoding, ours beside the least any byte format can cost.
//!
//! * `serialize` / `deserialize`: `format::encode` / `format::decode` of a filter holding n keys,
//!   and `*_sparse` of a (10^4, 10^-3) filter holding 200 keys (the per-user case where the
//!   format's sparse encoding wins). fastbloom has no byte format (serde only): its figure is
//!   the raw copy of its words to little-endian bytes and back, the floor any format pays.
//! * `*_sparse_ring`, `*_full_ring`: 64 distinct such filters coded in turn (ours only), as a job
//!   does.

use crate::fixture::{Fixture, next_index};
use crate::peers::{FASTBLOOM_SEED, Fast, Filter, Ours};
use criterion::Criterion;
use sparkbloom::{BloomFilter, format};
use sparkbloom_testkit::splitmix64;
use std::hint::black_box;

pub fn bench_serde(c: &mut Criterion, fx: &Fixture, ours: &Ours, fast: &Fast, suffix: &str) {
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
pub fn bench_codec_ring(c: &mut Criterion, fx: &Fixture, name: &str, keys: usize, encoding: u8) {
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
