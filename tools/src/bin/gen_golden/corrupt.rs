//! The deliberately corrupt golden files, each a valid file with one field damaged, and the
//! check that the decoders name that field.

use crate::specs::Spec;
use sparkbloom::format::{HEADER_LEN, TRAILER_LEN};
use sparkbloom::{BloomFilter, Error, sizing};

/// Replaces the CRC-32 trailer so that only the deliberate damage is wrong.
pub fn recrc(mut bytes: Vec<u8>) -> Vec<u8> {
    let body = bytes.len() - TRAILER_LEN;
    let crc = crc32(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// CRC-32/ISO-HDLC, bit by bit: independent of the crate's `crc32fast` on purpose.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn set_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// Format v1 bytes of a sparse filter with m = 768, k = 5 whose single set bit, coded with
/// r = 10 as gap 800, lies past m.
fn sparse_position_out_of_range() -> Vec<u8> {
    let mut bytes = b"SBLM".to_vec();
    bytes.extend_from_slice(&[1, 1, 1, 5]);
    bytes.extend_from_slice(&768u64.to_le_bytes());
    bytes.extend_from_slice(&11u64.to_le_bytes());
    bytes.extend_from_slice(&1u64.to_le_bytes()); // X = 1
    bytes.push(10); // r
    // Code of 800: q = 0 → a single zero bit, then 800 in 10 bits LSB-first: 11 bits.
    let code = (800u32) << 1;
    bytes.extend_from_slice(&[code as u8, (code >> 8) as u8]);
    bytes.extend_from_slice(&[0; 4]);
    recrc(bytes)
}

pub struct Corrupt {
    pub file: String,
    pub base: usize,
    pub format: &'static str,
    pub expect: &'static str,
    pub bytes: Vec<u8>,
}

/// Each corrupt file damages one thing of a valid file (fixing the CRC unless the damage is
/// the CRC or the length), so the decoder must name exactly that field.
pub fn corrupt_files(specs: &[Spec], sbloom: &[Vec<u8>], guava: &[Vec<u8>]) -> Vec<Corrupt> {
    let sparse = 0; // n100_p0.03_keys123: sparse, m = 768
    let by_name = |name: &str| specs.iter().position(|s| s.name == name).expect(name);
    let dense = by_name("n1_p0.5_one_word"); // dense, m = 64
    let v2_dense = by_name("helper_n50_p0.03_utf8"); // dense, m = 364
    assert_eq!(sbloom[sparse][6], 1);
    assert_eq!(sbloom[dense][6], 0);
    assert_eq!((sbloom[v2_dense][4], sbloom[v2_dense][6]), (2, 0));
    let edit = |base: usize, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = sbloom[base].clone();
        f(&mut b);
        recrc(b)
    };
    let raw = |base: usize, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = sbloom[base].clone();
        f(&mut b);
        b
    };
    let guava_edit = |base: usize, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = guava[base].clone();
        f(&mut b);
        b
    };
    let data_end = sbloom[sparse].len() - TRAILER_LEN;
    let mut out = vec![
        (
            "bad_magic.sbloom",
            sparse,
            "magic",
            edit(sparse, &|b| b[3] = b'X'),
        ),
        (
            "unknown_version.sbloom",
            sparse,
            "version",
            edit(sparse, &|b| b[4] = 3),
        ),
        (
            "version2_m_multiple_of_64.sbloom",
            sparse,
            "numBits",
            edit(sparse, &|b| b[4] = 2),
        ),
        (
            "version2_dense_bit_at_m.sbloom",
            v2_dense,
            "payload",
            // m = 364: bit 364 is byte 45, mask 0x10, of the dense payload.
            edit(v2_dense, &|b| b[HEADER_LEN + 45] |= 0x10),
        ),
        (
            "unknown_strategy.sbloom",
            sparse,
            "strategy",
            edit(sparse, &|b| b[5] = 2),
        ),
        (
            "unknown_encoding.sbloom",
            sparse,
            "encoding",
            edit(sparse, &|b| b[6] = 2),
        ),
        (
            "k_zero.sbloom",
            sparse,
            "numHashFunctions",
            edit(sparse, &|b| b[7] = 0),
        ),
        (
            "m_not_multiple_of_64.sbloom",
            sparse,
            "numBits",
            edit(sparse, &|b| set_u64(b, 8, 770)),
        ),
        (
            "m_zero.sbloom",
            sparse,
            "numBits",
            edit(sparse, &|b| set_u64(b, 8, 0)),
        ),
        (
            "m_above_max.sbloom",
            sparse,
            "numBits",
            edit(sparse, &|b| set_u64(b, 8, sizing::MAX_NUM_BITS + 64)),
        ),
        (
            "dense_payload_length_mismatch.sbloom",
            dense,
            "payloadLength",
            edit(dense, &|b| set_u64(b, 16, 16)),
        ),
        (
            "sparse_payload_not_smaller.sbloom",
            sparse,
            "payloadLength",
            edit(sparse, &|b| set_u64(b, 16, 96)),
        ),
        (
            "truncated.sbloom",
            sparse,
            "length",
            raw(sparse, &|b| {
                b.pop();
            }),
        ),
        (
            "trailing_byte.sbloom",
            sparse,
            "length",
            raw(sparse, &|b| b.push(0)),
        ),
        (
            "bad_checksum.sbloom",
            sparse,
            "checksum",
            raw(sparse, &|b| b[HEADER_LEN + 10] ^= 0x10),
        ),
        (
            "sparse_count_too_large.sbloom",
            sparse,
            "payload",
            edit(sparse, &|b| {
                let x = u64::from_le_bytes(b[24..32].try_into().unwrap());
                set_u64(b, 24, x + 1)
            }),
        ),
        (
            "sparse_count_too_small.sbloom",
            sparse,
            "payload",
            edit(sparse, &|b| {
                let x = u64::from_le_bytes(b[24..32].try_into().unwrap());
                set_u64(b, 24, x - 1)
            }),
        ),
        (
            "sparse_nonzero_padding.sbloom",
            sparse,
            "payload",
            edit(sparse, &|b| b[data_end - 1] |= 0x80),
        ),
        (
            "sparse_rice_parameter_64.sbloom",
            sparse,
            "payload",
            edit(sparse, &|b| b[32] = 64),
        ),
        (
            "sparse_position_out_of_range.sbloom",
            sparse,
            "payload",
            sparse_position_out_of_range(),
        ),
    ]
    .into_iter()
    .map(|(file, base, expect, bytes)| Corrupt {
        file: format!("corrupt/{file}"),
        base,
        format: "sparkbloom",
        expect,
        bytes,
    })
    .collect::<Vec<_>>();
    for (file, expect, bytes) in [
        (
            "guava_bad_strategy.guava",
            "strategy",
            guava_edit(sparse, &|b| b[0] = 2),
        ),
        (
            "guava_k_zero.guava",
            "numHashFunctions",
            guava_edit(sparse, &|b| b[1] = 0),
        ),
        (
            "guava_negative_word_count.guava",
            "numBits",
            guava_edit(sparse, &|b| b[2] = 0x80),
        ),
        (
            "guava_truncated.guava",
            "length",
            guava_edit(sparse, &|b| {
                b.pop();
            }),
        ),
        (
            "guava_trailing_byte.guava",
            "length",
            guava_edit(sparse, &|b| b.push(0)),
        ),
    ] {
        out.push(Corrupt {
            file: format!("corrupt/{file}"),
            base: sparse,
            format: "guava",
            expect,
            bytes,
        });
    }
    out
}

pub fn field_of(result: Result<BloomFilter, Error>) -> String {
    match result {
        Ok(_) => "ok".to_string(),
        Err(Error::Corrupt { field, .. }) => field.to_string(),
        Err(other) => panic!("not a Corrupt error: {other}"),
    }
}
