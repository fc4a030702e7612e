use super::super::bitstream::BitWriter;
use super::*;
use crate::format::{self, HEADER_LEN, TRAILER_LEN};

/// The careful reader alone, from the first code.
fn no_fast_path(_: &[u8], _: u64, _: u32, _: u64, _: &mut [u64]) -> rice_fast::Progress {
    rice_fast::Progress {
        codes: 0,
        next: 0,
        bit: 0,
    }
}

/// The sparse payload by definition, one bit at a time: r the cheapest of the three
/// candidates (ties to the smaller), `None` unless smaller than dense.
fn reference_payload(dense: &[u8]) -> Option<Vec<u8>> {
    let positions: Vec<u64> = (0..dense.len() as u64 / 8 * 64)
        .filter(|&b| dense[(b / 8) as usize] >> (b % 8) & 1 == 1)
        .collect();
    let mut gaps = Vec::new();
    let mut next = 0;
    for &p in &positions {
        gaps.push(p - next);
        next = p + 1;
    }
    let sum: u64 = gaps.iter().sum();
    let count = gaps.len() as u64;
    let (bits, r) = rice_candidates(sum.checked_div(count).unwrap_or(0))
        .iter()
        .map(|&r| (gaps.iter().map(|g| (g >> r) + 1 + r as u64).sum::<u64>(), r))
        .min()?;
    let mut stream = Vec::new();
    for &g in &gaps {
        stream.extend(std::iter::repeat_n(true, (g >> r) as usize));
        stream.push(false);
        stream.extend((0..r).map(|j| g >> j & 1 == 1));
    }
    assert_eq!(stream.len() as u64, bits);
    let mut payload = count.to_le_bytes().to_vec();
    payload.push(r as u8);
    payload.extend(stream.chunks(8).map(|byte| {
        byte.iter()
            .rev()
            .fold(0u8, |acc, &bit| acc << 1 | bit as u8)
    }));
    (payload.len() < dense.len()).then_some(payload)
}

#[test]
fn encodes_as_the_definition_at_every_density() {
    // Seeded bit sets from one bit in 4,000 to all bits, some with runs and long gaps,
    // over filters of 2,000 to 160,000 bits: the batch walk (more set bits than words),
    // the kept gaps, long codes and "dense after all" all occur.
    let mut seed = 0x853c_49e6_748f_ea9bu64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut outcomes = [0u32; 2];
    for words in [32usize, 300, 2_500] {
        for one_in in [1u64, 2, 3, 5, 9, 17, 40, 64, 100, 700, 4_000] {
            let mut dense = vec![0u8; words * 8];
            for bit in 0..words as u64 * 64 {
                if next() % one_in == 0 {
                    dense[(bit / 8) as usize] |= 1 << (bit % 8);
                }
            }
            if one_in == 100 {
                dense[words * 4..words * 6].fill(0xff); // a run of set bits
                dense[8..words * 4].fill(0); // a long gap
            }
            let count = dense.iter().map(|b| b.count_ones() as u64).sum();
            let expected = reference_payload(&dense);
            let got = plan(&dense, count).map(|plan| {
                let mut out = Vec::new();
                write(&dense, &plan, &mut out);
                out
            });
            assert_eq!(got, expected, "{words} words, one bit in {one_in}");
            outcomes[got.is_some() as usize] += 1;
        }
    }
    assert!(outcomes[0] > 2 && outcomes[1] > 10, "{outcomes:?}");
}

#[test]
fn both_encoders_write_the_definition() {
    // The two filter encoders end to end (`encodes_as_the_definition_at_every_density`
    // checks the plan and writer alone): seeded filters from empty to half full, of 64 to
    // 576,000 bits, some with words of many set bits; `encode_into` (into a buffer of
    // garbage, exactly the size it needs or larger) and `try_encode` give the reference
    // payload, or the dense one when that is not smaller.
    let mut seed = 0x3c6e_f372_fe94_f82bu64;
    let mut next = || crate::testutil::splitmix64(&mut seed);
    let strategy = Strategy::Murmur128Mitz64;
    let mut outcomes = [0u32; 2];
    for words in [1usize, 7, 100, 2_247, 9_000] {
        for one_in in [1u64, 3, 20, 64, 72, 90, 300, 5_000] {
            let mut bits: Vec<u64> = (0..words)
                .map(|_| (0..64).fold(0u64, |w, b| w | ((next() % one_in == 0) as u64) << b))
                .collect();
            if one_in == 90 && words > 10 {
                bits[words / 2] = u64::MAX; // a word of 64 set bits
                bits[words / 3] = 0x00ff_0f0f_0000_1111;
            }
            let dense: Vec<u8> = bits.iter().flat_map(|w| w.to_le_bytes()).collect();
            let shape = Shape {
                num_bits: words as u64 * 64,
                num_hashes: 3,
            };
            let filter = BloomFilter::from_words_with_shape(bits, shape, strategy).unwrap();
            let expected = reference_payload(&dense);
            let whole = format::try_encode(&filter).unwrap();
            for spare in [0usize, 3, 100] {
                let len = format::max_encoded_len(shape.num_bits) as usize + spare;
                let mut out: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                let written = format::encode_into(&filter, &mut out).unwrap();
                assert_eq!(
                    &out[..written],
                    &whole[..],
                    "{words} words, one in {one_in}"
                );
            }
            let payload = &whole[HEADER_LEN..whole.len() - TRAILER_LEN];
            match &expected {
                Some(sparse) => assert_eq!(payload, &sparse[..]),
                None => assert_eq!(payload, &dense[..]),
            }
            assert_eq!(format::decode(&whole).unwrap(), filter);
            outcomes[expected.is_some() as usize] += 1;
        }
    }
    assert!(outcomes[0] > 5 && outcomes[1] > 10, "{outcomes:?}");
}

#[test]
fn any_rice_parameter_decodes_as_the_careful_reader_does() {
    // Payloads the encoder would not choose: seeded positions (one bit in 3 to one in
    // 5,000, some runs) coded with every r from 0 to 63 by the reference BitWriter, then
    // truncated, extended, bit-flipped or given another count: the decoder with its fast
    // path returns exactly what the careful reader alone returns, and the intact payload
    // gives back exactly the positions coded.
    let mut seed = 0x6a09_e667_f3bc_c908u64;
    let mut next = || crate::testutil::splitmix64(&mut seed);
    let strategy = Strategy::Murmur128Mitz64;
    let mut compared = 0;
    for num_bits in [64u64, 640, 143_808] {
        let shape = Shape {
            num_bits,
            num_hashes: 3,
        };
        for r in 0..=MAX_RICE {
            let one_in = [3, 40, 700, 5_000][(next() % 4) as usize];
            let positions: Vec<u64> = (0..num_bits)
                .filter(|&b| next() % one_in == 0 || (b > 100 && b < 110 && r % 5 == 0))
                .collect();
            let mut data = (positions.len() as u64).to_le_bytes().to_vec();
            data.push(r as u8);
            let mut writer = BitWriter::new(&mut data);
            let mut end = 0;
            for &p in &positions {
                writer.put_rice(p - end, r);
                end = p + 1;
            }
            writer.finish();
            let decoded = decode(&data, shape, strategy).unwrap();
            let mut expected = BloomFilter::with_shape(shape, strategy).unwrap();
            let words = expected.words_mut();
            positions
                .iter()
                .for_each(|&p| words[(p / 64) as usize] |= 1 << (p % 64));
            assert_eq!(decoded, expected, "m {num_bits}, r {r}");
            for _ in 0..20 {
                let mut bad = data.clone();
                match next() % 4 {
                    0 => {
                        let bit = next() as usize % (bad.len() * 8);
                        bad[bit / 8] ^= 1 << (bit % 8);
                    }
                    1 => bad.truncate(9 + next() as usize % (bad.len() - 8)),
                    2 => bad.extend(std::iter::repeat_n(next() as u8, 1 + next() as usize % 9)),
                    _ => bad[..8]
                        .copy_from_slice(&(next() % (positions.len() as u64 + 3)).to_le_bytes()),
                }
                let with = decode(&bad, shape, strategy);
                let without = decode_with(&bad, shape, strategy, no_fast_path);
                match (&with, &without) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b),
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                    _ => panic!("m {num_bits}, r {r}: {with:?} vs {without:?}"),
                }
                compared += with.is_err() as u32;
            }
        }
    }
    assert!(compared > 1_000, "the damage was caught: {compared}");
}

#[test]
fn the_fast_path_changes_no_outcome() {
    // Sparse payloads of several densities and Rice parameters, then seeded corruptions of
    // each (flipped bits, a truncated or extended tail, a changed count or r): the decoder
    // with its fast path returns exactly what the careful reader alone returns.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut checked = 0;
    for (n, keys) in [
        (10_000, 200),
        (10_000, 1),
        (100, 3),
        (1_000_000, 300),
        (50, 4),
    ] {
        let f = BloomFilter::new(n, 0.001).unwrap();
        (0..keys).for_each(|_| {
            f.put(next());
        });
        let bytes = format::encode(&f);
        let payload = &bytes[HEADER_LEN..bytes.len() - TRAILER_LEN];
        assert_eq!(bytes[6], 1, "n {n}, {keys} keys: sparse"); // the encoding byte
        let (shape, strategy) = (f.shape(), f.strategy());
        let fast = decode(payload, shape, strategy).unwrap();
        assert_eq!(fast, f);
        for _ in 0..400 {
            let mut bad = payload.to_vec();
            match next() % 4 {
                0 => {
                    let bit = next() as usize % (bad.len() * 8);
                    bad[bit / 8] ^= 1 << (bit % 8);
                }
                1 => bad.truncate(MIN_PAYLOAD_LEN as usize + next() as usize % (bad.len() - 8)),
                2 => bad.extend(std::iter::repeat_n(next() as u8, 1 + next() as usize % 9)),
                _ => bad[(next() % 9) as usize] = next() as u8 % 70,
            }
            let with = decode(&bad, shape, strategy);
            let without = decode_with(&bad, shape, strategy, no_fast_path);
            match (&with, &without) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                _ => panic!("{with:?} vs {without:?}"),
            }
            checked += with.is_err() as u32;
        }
    }
    assert!(checked > 500, "the corruptions were caught: {checked}");
}
