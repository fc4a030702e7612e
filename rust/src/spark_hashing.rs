//! Spark's `spark-sketch` hashing: `Murmur3_x86_32.hashLong` and the legacy `hashUnsafeBytes`
//! that its `BloomFilterImpl` (V1) and `BloomFilterImplV2` call, bit-exact.
//!
//! `hashUnsafeBytes` is not standard MurmurHash3_x86_32 when the length is not a multiple of 4:
//! each trailing byte, sign-extended to an int, gets its own full mix round instead of being
//! packed into one tail word. Filters Spark wrote depend on that, so it is reproduced here.

use crate::hashing::Hash128;

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

#[inline(always)]
fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

#[inline(always)]
fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

#[inline(always)]
fn fmix(mut h1: u32, len: u32) -> u32 {
    h1 ^= len;
    h1 ^= h1 >> 16;
    h1 = h1.wrapping_mul(0x85eb_ca6b);
    h1 ^= h1 >> 13;
    h1 = h1.wrapping_mul(0xc2b2_ae35);
    h1 ^ (h1 >> 16)
}

/// Spark's `Murmur3_x86_32.hashLong(key, seed)`: standard MurmurHash3_x86_32 of the 8
/// little-endian bytes of `key`.
#[inline(always)]
pub fn hash_long(key: u64, seed: i32) -> i32 {
    let h1 = mix_h1(seed as u32, mix_k1(key as u32));
    let h1 = mix_h1(h1, mix_k1((key >> 32) as u32));
    fmix(h1, 8) as i32
}

/// Spark's `Murmur3_x86_32.hashUnsafeBytes(bytes, offset, length, seed)` (the legacy variant
/// its Bloom filters use): whole 4-byte little-endian words as in Murmur3, then one mix round
/// per trailing byte, sign-extended.
pub fn hash_unsafe_bytes(bytes: &[u8], seed: i32) -> i32 {
    let mut words = bytes.chunks_exact(4);
    let mut h1 = seed as u32;
    for word in &mut words {
        h1 = mix_h1(
            h1,
            mix_k1(u32::from_le_bytes([word[0], word[1], word[2], word[3]])),
        );
    }
    for &byte in words.remainder() {
        h1 = mix_h1(h1, mix_k1(byte as i8 as i32 as u32));
    }
    // Spark passes the int length; a Java byte[] is shorter than 2^31.
    fmix(h1, bytes.len() as u32) as i32
}

/// The pair Spark's Bloom filters walk, for a 64-bit key: `h1 = hashLong(key, seed)`,
/// `h2 = hashLong(key, h1)`, carried as the low 32 bits of [`Hash128`]'s halves.
#[inline(always)]
pub(crate) fn pair_u64(key: u64, seed: i32) -> Hash128 {
    let h1 = hash_long(key, seed);
    let h2 = hash_long(key, h1);
    Hash128 {
        h1: h1 as u32 as u64,
        h2: h2 as u32 as u64,
    }
}

/// [`pair_u64`] for a byte string (Spark's `putBinary`; `putString` hashes the UTF-8 bytes).
pub(crate) fn pair_bytes(key: &[u8], seed: i32) -> Hash128 {
    let h1 = hash_unsafe_bytes(key, seed);
    let h2 = hash_unsafe_bytes(key, h1);
    Hash128 {
        h1: h1 as u32 as u64,
        h2: h2 as u32 as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors checked against the spark-sketch 3.5.9 jar (shared notes, peers §3).
    #[test]
    fn hash_long_matches_spark() {
        assert_eq!(hash_long(0, 0), 1_669_671_676);
        assert_eq!(hash_long(1, 0), 1_392_991_556);
        assert_eq!(hash_long(42, 0), 1_871_679_806);
        assert_eq!(hash_long(u64::MAX, 0), 1_651_860_712);
        assert_eq!(hash_long(1, 1_392_991_556), -1_193_428_387);
    }

    #[test]
    fn hash_unsafe_bytes_treats_trailing_bytes_as_spark_does() {
        assert_eq!(hash_unsafe_bytes(b"abc", 0), -849_139_816);
        assert_eq!(hash_unsafe_bytes(b"abcd", 0), 1_139_631_978);
        assert_eq!(hash_unsafe_bytes(b"hello", 0), -1_306_563_072);
    }

    #[test]
    fn hash_of_8_bytes_equals_hash_long() {
        for key in [0u64, 1, 42, u64::MAX, 0x0123_4567_89ab_cdef] {
            assert_eq!(hash_unsafe_bytes(&key.to_le_bytes(), 7), hash_long(key, 7));
        }
    }
}
