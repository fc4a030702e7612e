//! MurmurHash3_x64_128 with seed 0, the hash Guava's `Hashing.murmur3_128()` computes.
//!
//! The `murmur3` crate reads through `io::Read`, which costs 2.5–3.4× on short keys; these
//! slice-based copies are proven equal to it on every length 0..=64 and on random inputs
//! (tests below), and the 8-byte path is what `Funnels.longFunnel()` feeds Guava.

use crate::le;

/// The two 64-bit halves of a 128-bit Murmur3 hash: Guava's `HashCode.asBytes()` is
/// `h1` little-endian followed by `h2` little-endian, and `asLong()` is `h1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hash128 {
    /// The first half: Guava's `HashCode.asLong()`, the first 8 bytes of `asBytes()`.
    pub h1: u64,
    /// The second half: the last 8 bytes of `asBytes()`.
    pub h2: u64,
}

pub(crate) const C1: u64 = 0x87c3_7b91_1142_53d5;
pub(crate) const C2: u64 = 0x4cf5_ad43_2745_937f;
/// The multipliers of the finalizer `fmix64`.
pub(crate) const FMIX1: u64 = 0xff51_afd7_ed55_8ccd;
pub(crate) const FMIX2: u64 = 0xc4ce_b9fe_1a85_ec53;

#[inline(always)]
fn mix_k1(k1: u64) -> u64 {
    k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2)
}

#[inline(always)]
fn mix_k2(k2: u64) -> u64 {
    k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1)
}

#[inline(always)]
pub(crate) fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(FMIX1);
    k ^= k >> 33;
    k = k.wrapping_mul(FMIX2);
    k ^ (k >> 33)
}

#[inline(always)]
fn finish(mut h1: u64, mut h2: u64, len: u64) -> Hash128 {
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    Hash128 { h1, h2 }
}

/// Murmur3_x64_128(seed 0) of the 8 little-endian bytes of `key`: Guava's
/// `murmur3_128().hashLong(key)` and what `Funnels.longFunnel()` produces.
#[inline(always)]
pub fn hash_u64(key: u64) -> Hash128 {
    // One 8-byte tail, no full block: only k1 is mixed into h1 (h1 = h2 = seed = 0).
    finish(mix_k1(key), 0, 8)
}

/// Murmur3_x64_128(seed 0) of `bytes`: Guava's `hashBytes`, `Funnels.byteArrayFunnel()`,
/// and `Funnels.stringFunnel(UTF_8)` over the UTF-8 bytes.
pub fn hash_bytes(bytes: &[u8]) -> Hash128 {
    let (mut h1, mut h2) = (0u64, 0u64);
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        let k1 = le::u64_at(block, 0);
        let k2 = le::u64_at(block, 8);
        h1 ^= mix_k1(k1);
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        h2 ^= mix_k2(k2);
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    let (k1, k2) = if bytes.len() >= 8 {
        tail_words(bytes, tail.len())
    } else {
        (le::u64_padded(tail), 0)
    };
    // An absent tail word is 0, and mixing 0 changes nothing (0 · c = 0): no branch on the
    // tail's length, which varies from key to key in a batch.
    h1 ^= mix_k1(k1);
    h2 ^= mix_k2(k2);
    finish(h1, h2, bytes.len() as u64)
}

/// Murmur3's two tail words of a key of at least 8 bytes whose last `t` (< 16) bytes are its
/// tail: bytes `0..8` of the tail, and bytes `8..t` (0 where absent), each read as whole words
/// ending within the key, never as a variable-length copy.
#[inline(always)]
fn tail_words(bytes: &[u8], t: usize) -> (u64, u64) {
    let end = bytes.len();
    let last = le::u64_at(bytes, end - 8);
    // The key's last `n` (≤ 8) bytes as a word's low bytes; 0 for none.
    let last_bytes = |n: usize| last.checked_shr(64 - 8 * n as u32).unwrap_or(0);
    if t > 8 {
        (le::u64_at(bytes, end - t), last_bytes(t - 8))
    } else {
        (last_bytes(t), 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(h: Hash128) -> String {
        let mut bytes = h.h1.to_le_bytes().to_vec();
        bytes.extend_from_slice(&h.h2.to_le_bytes());
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn reference(bytes: &[u8]) -> Hash128 {
        let r =
            murmur3::murmur3_x64_128(&mut std::io::Cursor::new(bytes), 0).expect("in-memory read");
        Hash128 {
            h1: r as u64,
            h2: (r >> 64) as u64,
        }
    }

    #[test]
    fn guava_known_answers() {
        // HashCode.toString() from Guava 31.1 murmur3_128() with longFunnel / stringFunnel(UTF_8).
        assert_eq!(hex(hash_u64(0)), "cbc357ccb763df2852fee8c4fc7d55f2");
        assert_eq!(hex(hash_u64(1)), "4ac405fbb7034400069c6dd3b4cd8a3d");
        assert_eq!(hex(hash_u64(42)), "f87dd28999c3acb6802ff296fb17b924");
        assert_eq!(
            hex(hash_u64(-1i64 as u64)),
            "73edba1a7ab2e4a0af464a6bc9122169"
        );
        assert_eq!(hex(hash_bytes(b"abc")), "6778ad3f3f3f96b4522dca264174a23b");
    }

    #[test]
    fn equals_the_murmur3_crate_on_every_short_length() {
        let data: Vec<u8> = (0..64u32)
            .map(|i| (i.wrapping_mul(167).wrapping_add(13)) as u8)
            .collect();
        for len in 0..=64 {
            assert_eq!(
                hash_bytes(&data[..len]),
                reference(&data[..len]),
                "length {len}"
            );
        }
    }

    #[test]
    fn equals_the_murmur3_crate_on_random_inputs() {
        let mut state = 0x5eed_u64;
        for _ in 0..2000 {
            let len = (crate::testutil::splitmix64(&mut state) % 300) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| crate::testutil::splitmix64(&mut state) as u8)
                .collect();
            assert_eq!(hash_bytes(&bytes), reference(&bytes));
            let key = crate::testutil::splitmix64(&mut state);
            assert_eq!(hash_u64(key), reference(&key.to_le_bytes()));
            assert_eq!(hash_u64(key), hash_bytes(&key.to_le_bytes()));
        }
    }
}
