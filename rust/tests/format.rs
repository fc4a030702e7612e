//! Format v1 and Guava's stream: round trips on random filters, the sparse/dense choice, the
//! sizes the per-user filter reaches, and Guava 31.1's real bytes.

use proptest::prelude::*;
use sparkbloom::format::guava::{
    HEADER_LEN as GUAVA_HEADER_LEN, decode as read_guava, encode as write_guava,
    total_len_from_header as guava_total_len_from_header,
};
use sparkbloom::format::{
    HEADER_LEN, TRAILER_LEN, decode, encode, encode_into, max_encoded_len, total_len_from_header,
};
use sparkbloom::{BloomFilter, Error, Shape, Strategy};
use sparkbloom_testkit::splitmix64;

/// Guava 31.1 `create(longFunnel(), 100, 0.03)` after put(1, 2, 3), `writeTo` (peers.md §3).
const GUAVA_31_PUT_1_2_3: &str = "01050000000c000000000000000000000004004000004000000000800000000400000000000000000000008000000001000000002400000001000000000000000000000000001000000000001000000000201001000000000000000000000000000000000000";

const SPARSE: u8 = 1;
const DENSE: u8 = 0;

fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

fn strategy_of(mitz64: bool) -> Strategy {
    if mitz64 {
        Strategy::Murmur128Mitz64
    } else {
        Strategy::Murmur128Mitz32
    }
}

/// The sparse payload length the rule in FORMAT.md gives, computed from scratch: gaps between
/// set bits, r ∈ floor(log2(mean gap)) ± 1 within 0..=63, shortest wins, ties to the smaller r.
fn reference_sparse_len(filter: &BloomFilter) -> u64 {
    let positions: Vec<u64> = filter
        .words()
        .enumerate()
        .flat_map(|(i, w)| {
            (0..64)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| i as u64 * 64 + b)
        })
        .collect();
    let mut previous = -1i64;
    let gaps: Vec<u64> = positions
        .iter()
        .map(|&p| {
            let gap = (p as i64 - previous - 1) as u64;
            previous = p as i64;
            gap
        })
        .collect();
    let x = gaps.len() as u64;
    let mean = gaps.iter().sum::<u64>().checked_div(x).unwrap_or(0);
    let center = if mean == 0 {
        0
    } else {
        63 - mean.leading_zeros()
    };
    let best_bits = (center.saturating_sub(1)..=(center + 1).min(63))
        .map(|r| gaps.iter().map(|g| (g >> r) + 1 + r as u64).sum::<u64>())
        .min()
        .unwrap();
    9 + best_bits.div_ceil(8)
}

fn filled(shape: Shape, strategy: Strategy, keys: impl IntoIterator<Item = u64>) -> BloomFilter {
    let f = BloomFilter::with_shape(shape, strategy).unwrap();
    keys.into_iter().for_each(|k| {
        f.put(k);
    });
    f
}

fn seeded_keys(seed: u64, count: usize) -> Vec<u64> {
    let mut state = seed;
    (0..count).map(|_| splitmix64(&mut state)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn decode_inverts_encode(
        words in 1u64..400,
        k in 1u32..=40,
        mitz64 in any::<bool>(),
        seed in any::<u64>(),
        fill in 0.0f64..1.5,
    ) {
        let shape = Shape { num_bits: words * 64, num_hashes: k };
        let count = (fill * words as f64 * 64.0 / k as f64) as usize;
        let f = filled(shape, strategy_of(mitz64), seeded_keys(seed, count));
        let bytes = encode(&f);
        let back = decode(&bytes).unwrap();
        prop_assert_eq!(&back, &f);
        prop_assert_eq!(encode(&back), bytes.clone(), "re-encoding is byte-identical");
        // encode_into writes the same bytes in place, into a buffer with stale contents past
        // them, which it leaves alone.
        let max = max_encoded_len(shape.num_bits) as usize;
        let mut into = vec![0xA5u8; max + 3];
        let written = encode_into(&f, &mut into).unwrap();
        prop_assert_eq!(&into[..written], &bytes[..]);
        prop_assert!(into[max..].iter().all(|&b| b == 0xA5));
        prop_assert_eq!(total_len_from_header(&bytes[..HEADER_LEN]).unwrap(), bytes.len() as u64);
        // Sparse exactly when strictly smaller than dense, at the length the rule gives.
        let dense_len = words * 8;
        let sparse_len = reference_sparse_len(&f);
        let payload_len = (bytes.len() - HEADER_LEN - TRAILER_LEN) as u64;
        if sparse_len < dense_len {
            prop_assert_eq!((bytes[6], payload_len), (SPARSE, sparse_len));
        } else {
            prop_assert_eq!((bytes[6], payload_len), (DENSE, dense_len));
        }
    }

    #[test]
    fn decode_inverts_encode_on_arbitrary_bits(
        words in proptest::collection::vec(any::<u64>(), 1..64),
        sparsify in 0u32..6,
        k in 1u32..=255,
    ) {
        // AND-ing several random words thins the bits out: density 2^-sparsify.
        let mut state = words[0];
        let words: Vec<u64> = words
            .iter()
            .map(|&w| (0..sparsify).fold(w, |acc, _| acc & splitmix64(&mut state)))
            .collect();
        let f = BloomFilter::from_words(words, k, Strategy::Murmur128Mitz64).unwrap();
        let bytes = encode(&f);
        prop_assert_eq!(decode(&bytes).unwrap(), f);
    }

    #[test]
    fn guava_stream_round_trip(
        words in proptest::collection::vec(any::<u64>(), 1..64),
        k in 1u32..=255,
        mitz64 in any::<bool>(),
    ) {
        let f = BloomFilter::from_words(words.clone(), k, strategy_of(mitz64)).unwrap();
        let bytes = write_guava(&f).unwrap();
        prop_assert_eq!(bytes.len(), GUAVA_HEADER_LEN + 8 * words.len());
        prop_assert_eq!(guava_total_len_from_header(&bytes[..GUAVA_HEADER_LEN]).unwrap(), bytes.len() as u64);
        prop_assert_eq!(read_guava(&bytes).unwrap(), f);
    }
}

/// Large snapshots are taken into zeroed memory with only the nonzero words written, smaller
/// ones whole: on either side of the size where that changes, empty, sparse and dense filters
/// encode to the bytes `encode_into` writes (every word into a stale buffer) and decode back.
#[test]
fn large_and_small_snapshots_encode_alike() {
    // 64 MiB of words, the size from which snapshots are taken lazily.
    for len in [(1 << 23) - 1, 1 << 23] {
        let mut state = len as u64;
        for every in [0, 100_003, 1] {
            // Nonzero words every `every` words (none for 0), random ones.
            let words: Vec<u64> = (0..len)
                .map(|i| {
                    if every > 0 && i % every == 0 {
                        splitmix64(&mut state)
                    } else {
                        0
                    }
                })
                .collect();
            let f = BloomFilter::from_words(words, 7, Strategy::Murmur128Mitz64).unwrap();
            let bytes = encode(&f);
            let mut into = vec![0xA5u8; max_encoded_len(f.num_bits()) as usize];
            let written = encode_into(&f, &mut into).unwrap();
            assert_eq!(&into[..written], &bytes[..], "{len} words, every {every}");
            assert_eq!(decode(&bytes).unwrap(), f, "{len} words, every {every}");
        }
    }
}

#[test]
fn encode_into_refuses_a_buffer_smaller_than_the_dense_form() {
    // Empty: its bytes would fit, but the dense snapshot is written first.
    let f = BloomFilter::new(10_000, 0.001).unwrap();
    let max = max_encoded_len(f.num_bits()) as usize;
    assert_eq!(max, 24 + 17_976 + 4);
    let mut out = vec![0u8; max - 1];
    match encode_into(&f, &mut out) {
        Err(Error::InvalidArgument { name, reason }) => {
            assert_eq!(name, "out");
            assert!(reason.contains("18003 bytes cannot hold"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let mut out = vec![0u8; max];
    assert_eq!(encode_into(&f, &mut out).unwrap(), encode(&f).len());
}

#[test]
fn guava_31_vector_both_directions() {
    let guava = unhex(GUAVA_31_PUT_1_2_3);
    assert_eq!(guava.len(), 102);
    let ours = BloomFilter::new(100, 0.03).unwrap();
    ours.put_all(&[1, 2, 3]);
    assert_eq!(write_guava(&ours).unwrap(), guava);
    let read = read_guava(&guava).unwrap();
    assert_eq!(read, ours);
    assert!(read.might_contain(1) && read.might_contain(2) && read.might_contain(3));
    assert_eq!(read.strategy(), Strategy::Murmur128Mitz64);
    // And through our format: same bits, the same Guava bytes back out.
    let through = decode(&encode(&read)).unwrap();
    assert_eq!(write_guava(&through).unwrap(), guava);
}

#[test]
fn the_seed_filter_sizes() {
    // The per-user filter: n = 10^4, p = 0.001 → m = 143,808 bits, k = 10.
    let light = BloomFilter::new(10_000, 0.001).unwrap();
    light.put_all(&seeded_keys(2024, 200));
    let bytes = encode(&light);
    let x = light.bits_set();
    assert_eq!(x, 1_990);
    assert_eq!(bytes[6], SPARSE);
    // Information content of X set bits among m: log2 C(m, X) = 15,133 bits = 1,892 bytes.
    // The Rice codes (r = 6) take 1,914 bytes, ~0.09 bit per set bit above that bound; with
    // count, r, header and trailer (9 + 24 + 4 bytes) the whole encoding is 1,951 bytes,
    // 9.2× smaller than the 17,976 dense bytes.
    let information_bytes = log2_binomial(light.num_bits(), x) / 8.0;
    assert!(
        (1_891.0..1_892.0).contains(&information_bytes),
        "{information_bytes}"
    );
    assert_eq!(bytes.len(), 1_951);
    assert_eq!(bytes[HEADER_LEN + 8], 6, "r");
    assert!(bytes.len() as f64 <= information_bytes * 1.035);

    // At capacity half the bits are set: dense, a copy of the 2,247 words.
    let full = BloomFilter::new(10_000, 0.001).unwrap();
    full.put_all(&seeded_keys(2024, 10_000));
    let bytes = encode(&full);
    assert_eq!(bytes[6], DENSE);
    assert_eq!(bytes.len(), HEADER_LEN + 17_976 + TRAILER_LEN);
}

/// log2 of the binomial coefficient C(n, k), through ln Γ sums.
fn log2_binomial(n: u64, k: u64) -> f64 {
    let ln_factorial = |v: u64| (1..=v).map(|i| (i as f64).ln()).sum::<f64>();
    (ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)) / std::f64::consts::LN_2
}

#[test]
fn sparse_dense_boundary() {
    // m = 64: a sparse payload is ≥ 9 bytes, the dense one 8, so always dense, even empty.
    let tiny = BloomFilter::with_shape(
        Shape {
            num_bits: 64,
            num_hashes: 3,
        },
        Strategy::Murmur128Mitz64,
    )
    .unwrap();
    assert_eq!(encode(&tiny)[6], DENSE);
    // m = 128, empty: 9 sparse bytes beat 16 dense ones.
    let empty = BloomFilter::with_shape(
        Shape {
            num_bits: 128,
            num_hashes: 3,
        },
        Strategy::Murmur128Mitz64,
    )
    .unwrap();
    let bytes = encode(&empty);
    assert_eq!(
        (bytes[6], bytes.len()),
        (SPARSE, HEADER_LEN + 9 + TRAILER_LEN)
    );
    // Random 2-word filters around the boundary: equal length goes dense, one byte less sparse.
    let (mut ties, mut one_less) = (0, 0);
    let mut state = 99u64;
    for _ in 0..20_000 {
        let density = splitmix64(&mut state) % 5;
        let mut word =
            || (0..density).fold(splitmix64(&mut state), |w, _| w & splitmix64(&mut state));
        let f =
            BloomFilter::from_words(vec![word(), word()], 4, Strategy::Murmur128Mitz64).unwrap();
        let bytes = encode(&f);
        match reference_sparse_len(&f) {
            16 => {
                ties += 1;
                assert_eq!(bytes[6], DENSE)
            }
            15 => {
                one_less += 1;
                assert_eq!(
                    (bytes[6], bytes.len()),
                    (SPARSE, HEADER_LEN + 15 + TRAILER_LEN)
                )
            }
            _ => {}
        }
        assert_eq!(decode(&bytes).unwrap(), f);
    }
    assert!(
        ties > 10 && one_less > 10,
        "{ties} ties, {one_less} one byte less"
    );
    // Growing the per-user filter key by key crosses from sparse to dense exactly once: at
    // 6,906 keys (X = 54,907 of 143,808 bits, density 0.38, where the entropy of the bit set,
    // 0.96 bit per bit, no longer leaves room for the Rice codes' overhead).
    let f = BloomFilter::new(10_000, 0.001).unwrap();
    let mut first_dense = None;
    for (i, key) in seeded_keys(7, 10_000).into_iter().enumerate() {
        f.put(key);
        // Every 50th key, and every key near the crossing.
        if i % 50 != 0 && !(6_850..6_950).contains(&i) {
            continue;
        }
        let dense = encode(&f)[6] == DENSE;
        match first_dense {
            None if dense => first_dense = Some((i + 1, f.bits_set())),
            Some(_) => assert!(dense, "back to sparse at {} keys", i + 1),
            None => {}
        }
    }
    assert_eq!(first_dense, Some((6_906, 54_907)));
}

#[test]
fn header_length_of_a_stream() {
    let f = BloomFilter::new(1_000, 0.01).unwrap();
    f.put_all(&seeded_keys(5, 300));
    let bytes = encode(&f);
    assert_eq!(total_len_from_header(&bytes).unwrap(), bytes.len() as u64);
    assert_eq!(
        total_len_from_header(&bytes[..HEADER_LEN]).unwrap(),
        bytes.len() as u64
    );
    match total_len_from_header(&bytes[..HEADER_LEN - 1]) {
        Err(Error::Corrupt { field, .. }) => assert_eq!(field, "length"),
        other => panic!("{other:?}"),
    }
    match total_len_from_header(b"PK\x03\x04 not a filter at all") {
        Err(Error::Corrupt { field, .. }) => assert_eq!(field, "magic"),
        other => panic!("{other:?}"),
    }
    let guava = write_guava(&f).unwrap();
    assert_eq!(
        guava_total_len_from_header(&guava[..6]).unwrap(),
        guava.len() as u64
    );
    match guava_total_len_from_header(&guava[..5]) {
        Err(Error::Corrupt { field, .. }) => assert_eq!(field, "length"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn guava_header_fields_are_validated() {
    for (bytes, field) in [
        (&[2u8, 5, 0, 0, 0, 1][..], "strategy"),
        (&[0xff, 5, 0, 0, 0, 1][..], "strategy"),
        (&[1, 0, 0, 0, 0, 1][..], "numHashFunctions"),
        (&[1, 5, 0, 0, 0, 0][..], "numBits"),
        (&[1, 5, 0x80, 0, 0, 0][..], "numBits"),
        (&[1, 5, 0x7f, 0xff, 0xff, 0xff][..], "length"),
        (&[][..], "length"),
    ] {
        match read_guava(bytes) {
            Err(Error::Corrupt { field: got, .. }) => assert_eq!(got, field, "{bytes:?}"),
            other => panic!("{bytes:?}: {other:?}"),
        }
    }
}

#[test]
fn guava_stream_caps_the_word_count() {
    // 2^31 words (16 GiB) is one past Guava's long[]; the pages are never touched.
    let shape = Shape {
        num_bits: (1u64 << 31) * 64,
        num_hashes: 3,
    };
    let f = match BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64) {
        Ok(f) => f,
        Err(Error::Allocation { .. }) => return, // no address space for it here: nothing to test
        Err(e) => panic!("{e}"),
    };
    match write_guava(&f) {
        Err(Error::InvalidArgument { name, .. }) => assert_eq!(name, "numBits"),
        other => panic!("{:?}", other.map(|v| v.len())),
    }
}

/// Replaces the CRC-32 trailer, so damage gets past the checksum to the payload decoders.
fn recrc(bytes: &mut [u8]) {
    let body = bytes.len() - TRAILER_LEN;
    let crc = crc32fast::hash(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
}

/// Expects a decoded filter or a `payload` error (the header and checksum are valid).
fn decodes_or_names_payload(bytes: &[u8], round: usize) -> bool {
    match decode(bytes) {
        Ok(f) => {
            let m = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
            assert_eq!(f.num_bits(), m, "round {round}");
            assert_eq!(decode(&encode(&f)).unwrap(), f, "round {round}");
            true
        }
        Err(Error::Corrupt { field, .. }) => {
            assert_eq!(field, "payload", "round {round}");
            false
        }
        Err(other) => panic!("round {round}: {other}"),
    }
}

#[test]
fn fuzz_payloads_behind_valid_headers_and_checksums() {
    // A seeded stand-in for a cargo-fuzz target: random payloads that pass every header and
    // checksum check, so the sparse decoder's own validation is what stands.
    let mut state = 0xf022_u64;
    let mut rand = |bound: u64| splitmix64(&mut state) % bound;
    let (mut decoded, mut rejected) = (0, 0);
    for round in 0..30_000 {
        let words = 2 + rand(40);
        let dense_len = words * 8;
        let sparse = rand(4) != 0;
        let payload_len = if sparse {
            9 + rand(dense_len - 9)
        } else {
            dense_len
        };
        let mut bytes = b"SBLM".to_vec();
        bytes.extend_from_slice(&[1, rand(2) as u8, sparse as u8, 1 + rand(255) as u8]);
        bytes.extend_from_slice(&(words * 64).to_le_bytes());
        bytes.extend_from_slice(&payload_len.to_le_bytes());
        // Thin random bits (AND of two or three words) so unary runs end and codes decode.
        let mut payload: Vec<u8> = (0..payload_len)
            .map(|_| {
                let b = rand(256) & rand(256);
                (if rand(2) == 0 { b & rand(256) } else { b }) as u8
            })
            .collect();
        if sparse {
            let data_bits = (payload_len - 9) * 8;
            let r = match rand(8) {
                0 => rand(256),
                _ => rand(8),
            };
            let count = match rand(4) {
                0 => rand(u64::MAX),
                _ => rand(data_bits / (r.min(63) + 1) + 2),
            };
            payload[..8].copy_from_slice(&count.to_le_bytes());
            payload[8] = r as u8;
        }
        bytes.extend_from_slice(&payload);
        bytes.extend_from_slice(&[0; TRAILER_LEN]);
        recrc(&mut bytes);
        if decodes_or_names_payload(&bytes, round) {
            decoded += 1;
        } else {
            rejected += 1;
        }
    }
    // Both outcomes are exercised, not just an early rejection.
    assert!(
        decoded > 5_000 && rejected > 5_000,
        "{decoded} decoded, {rejected} rejected"
    );
}

#[test]
fn fuzz_damaged_sparse_payloads_with_fixed_checksums() {
    // Valid sparse encodings with one payload byte changed and the CRC fixed: every outcome
    // is a filter or a `payload` error, never a panic.
    let mut state = 0xbad5_u64;
    let mut rand = |bound: u64| splitmix64(&mut state) % bound;
    let mut decoded = 0;
    for round in 0..20_000 {
        let words = 4 + rand(200);
        let shape = Shape {
            num_bits: words * 64,
            num_hashes: 1 + rand(12) as u32,
        };
        let keys = seeded_keys(round as u64, rand(words * 2) as usize);
        let mut bytes = encode(&filled(shape, Strategy::Murmur128Mitz64, keys));
        if bytes[6] != SPARSE {
            continue;
        }
        let payload_len = bytes.len() - HEADER_LEN - TRAILER_LEN;
        let at = HEADER_LEN + rand(payload_len as u64) as usize;
        bytes[at] ^= 1 + rand(255) as u8;
        recrc(&mut bytes);
        decoded += decodes_or_names_payload(&bytes, round) as u32;
    }
    assert!(decoded > 100, "{decoded}");
}

/// The text of FORMAT.md between `<!-- {marker}: ... -->` and `<!-- /{marker} -->`.
fn format_md_section(marker: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("FORMAT.md");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find(&format!("<!-- {marker}:")).unwrap();
    let start = start + text[start..].find("-->\n").unwrap() + 4;
    let end = text.find(&format!("<!-- /{marker} -->")).unwrap();
    text[start..end].to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn format_md_sizing_table_is_the_codes() {
    let table = format_md_section("sizing-table");
    let rows: Vec<&str> = table.lines().skip(2).collect();
    assert_eq!(rows.len(), 12);
    for row in rows {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let n: u64 = cells[0].parse().unwrap();
        let shape = sparkbloom::sizing::shape_for(n, cells[1].parse().unwrap()).unwrap();
        assert_eq!(cells[2], shape.num_bits.to_string(), "{row}");
        assert_eq!(cells[3], shape.num_hashes.to_string(), "{row}");
        assert_eq!(cells[4], (shape.num_bits / 8).to_string(), "{row}");
        assert_eq!(
            cells[5],
            format!("{:.2}", shape.num_bits as f64 / n as f64),
            "{row}"
        );
    }
}

#[test]
fn format_md_worked_examples_are_the_encoders() {
    let f = BloomFilter::new(100, 0.03).unwrap();
    f.put_all(&[1, 2, 3]);
    assert!(format_md_section("example-100").contains(&format!("```\n{}\n```", hex(&encode(&f)))));
    let f = BloomFilter::new(1, 0.5).unwrap();
    f.put_all(&[-1i64 as u64, 0, 42, i64::MIN as u64, i64::MAX as u64]);
    assert_eq!(f.words().collect::<Vec<_>>(), [0x0108_0080_0010_0800]);
    assert!(format_md_section("example-64").contains(&format!("```\n{}\n```", hex(&encode(&f)))));
    assert_eq!(
        hex(&write_guava(&f).unwrap()),
        "0101000000010108008000100800"
    );
}
