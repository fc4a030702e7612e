//! Murmur3_x64_128 (seed 0) in AVX-512 lanes, one key a lane, step for step the scalar
//! `hashing` functions (the same mixes and the same finish), so the same hashes: of `u64` keys
//! ([`murmur3_u64`], the lanes' batches), and of runs of equal-length byte strings packed one
//! after another ([`hash_packed_run`], the byte-key batches' hash when keys share their length:
//! ids, hex digests, UUIDs), eight keys per vector and two vectors interleaved.
//!
//! Each vector's byte hash is one long chain of dependent multiplies (h2 waits on h1, every
//! block on the previous one): two independent chains side by side keep the multiplier busy
//! while either waits.

use crate::hashing::{C1, C2, FMIX1, FMIX2};
use crate::le;
use std::arch::x86_64::*;

/// Keys per vector.
pub(crate) const LANES: usize = 8;

#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn mul(x: __m512i, c: u64) -> __m512i {
    _mm512_mullo_epi64(x, _mm512_set1_epi64(c as i64))
}

/// x · 5 + c, as a shift and two adds.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn times_5_plus(x: __m512i, c: i64) -> __m512i {
    _mm512_add_epi64(
        _mm512_add_epi64(_mm512_slli_epi64::<2>(x), x),
        _mm512_set1_epi64(c),
    )
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn mix_k1(k1: __m512i) -> __m512i {
    mul(_mm512_rol_epi64::<31>(mul(k1, C1)), C2)
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn mix_k2(k2: __m512i) -> __m512i {
    mul(_mm512_rol_epi64::<33>(mul(k2, C2)), C1)
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn fmix64(k: __m512i) -> __m512i {
    let k = _mm512_xor_si512(k, _mm512_srli_epi64::<33>(k));
    let k = mul(k, FMIX1);
    let k = _mm512_xor_si512(k, _mm512_srli_epi64::<33>(k));
    let k = mul(k, FMIX2);
    _mm512_xor_si512(k, _mm512_srli_epi64::<33>(k))
}

/// The hash halves from the state (h1, h2) after keys of `len` bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn finish(h1: __m512i, h2: __m512i, len: __m512i) -> (__m512i, __m512i) {
    let (h1, h2) = (_mm512_xor_si512(h1, len), _mm512_xor_si512(h2, len));
    let h1 = _mm512_add_epi64(h1, h2);
    let h2 = _mm512_add_epi64(h2, h1);
    let (h1, h2) = (fmix64(h1), fmix64(h2));
    let h1 = _mm512_add_epi64(h1, h2);
    (h1, _mm512_add_epi64(h2, h1))
}

/// `hashing::hash_u64` in each lane: the key's 8 little-endian bytes, one tail word mixed into
/// h1.
#[target_feature(enable = "avx512f,avx512dq")]
pub(super) fn murmur3_u64(keys: __m512i) -> (__m512i, __m512i) {
    finish(mix_k1(keys), _mm512_setzero_si512(), _mm512_set1_epi64(8))
}

/// Lane l = f(key l) for a scalar `f` (the tail words, read with zero padding).
#[target_feature(enable = "avx512f,avx512dq")]
fn per_lane(f: impl Fn(usize) -> u64) -> __m512i {
    let words: [u64; LANES] = std::array::from_fn(f);
    // SAFETY: `words` is 64 readable bytes.
    unsafe { _mm512_loadu_si512(words.as_ptr().cast()) }
}

/// The block at byte `offset` of each of the eight keys `run[l · len..(l + 1) · len]`: its
/// first words (k1) and second words (k2). Eight 16-byte loads paired into two vectors and
/// split by one permute each, where gathers would cost several times more.
///
/// # Safety
/// `run` must hold eight keys of `len` bytes with `offset + 16 ≤ len`.
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn block_words(run: *const u8, len: usize, offset: usize) -> (__m512i, __m512i) {
    // SAFETY: (for every lane) bytes offset..offset + 16 of key l lie in the run.
    let pair = |l: usize| unsafe { _mm_loadu_si128(run.add(l * len + offset).cast()) };
    let four = |first: usize| {
        let low =
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(pair(first)), pair(first + 1));
        let high =
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(pair(first + 2)), pair(first + 3));
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high)
    };
    // Lanes (k1, k2) of keys 0..4, then of keys 4..8.
    let (a, b) = (four(0), four(4));
    (
        _mm512_permutex2var_epi64(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b),
        _mm512_permutex2var_epi64(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b),
    )
}

/// [`block_words`] of both blocks of eight 32-byte keys one after another (hex digests of
/// 128 bits, UUIDs without dashes): four whole-vector loads (two keys each) and a two-step
/// transpose by permutes, where the general loads take sixteen 16-byte loads and inserts.
///
/// # Safety
/// `run` must hold 256 readable bytes.
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn blocks_of_32(run: *const u8) -> [(__m512i, __m512i); 2] {
    // SAFETY: bytes 0..256 are readable.
    let load = |at: usize| unsafe { _mm512_loadu_si512(run.add(64 * at).cast()) };
    let (z0, z1, z2, z3) = (load(0), load(1), load(2), load(3));
    // Word w of key l is lane 4l + w (mod 8) of vector l / 2. First the words 0 and 2
    // (then 1 and 3) of keys 0..4, and of keys 4..8:
    let even = _mm512_setr_epi64(0, 4, 8, 12, 2, 6, 10, 14);
    let odd = _mm512_setr_epi64(1, 5, 9, 13, 3, 7, 11, 15);
    let (a, b) = (
        _mm512_permutex2var_epi64(z0, even, z1),
        _mm512_permutex2var_epi64(z2, even, z3),
    );
    let (c, d) = (
        _mm512_permutex2var_epi64(z0, odd, z1),
        _mm512_permutex2var_epi64(z2, odd, z3),
    );
    // Then the low halves (word 0, word 1) and the high halves (word 2, word 3) joined.
    let low = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
    let high = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
    let joined = |halves| {
        (
            _mm512_permutex2var_epi64(a, halves, b),
            _mm512_permutex2var_epi64(c, halves, d),
        )
    };
    [joined(low), joined(high)]
}

/// Writes the hash halves of the `8 · VECTORS` keys `data[start + i · len..start + (i + 1) ·
/// len]` (keys of one length packed one after another) to `h1s[i]`, `h2s[i]`, exactly as
/// `hashing::hash_bytes` of each key. `VECTORS` is 1 or 2.
///
/// # Safety
/// The CPU must have AVX-512 F and DQ (a plan that hashes byte keys in lanes).
///
/// # Panics
/// If the keys do not lie within `data`, or `h1s`, `h2s` do not hold `8 · VECTORS` slots.
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn hash_packed_run<const VECTORS: usize>(
    data: &[u8],
    start: usize,
    len: usize,
    h1s: &mut [u64],
    h2s: &mut [u64],
) {
    let keys = LANES * VECTORS;
    assert!(h1s.len() == keys && h2s.len() == keys, "one slot per key");
    let end = len.checked_mul(keys).and_then(|run| run.checked_add(start));
    assert!(
        end.is_some_and(|end| end <= data.len()),
        "a key past the data"
    );
    let run = &data[start..start + keys * len];
    let zero = _mm512_setzero_si512();
    let (mut h1, mut h2) = ([zero; VECTORS], [zero; VECTORS]);
    let first_key = |v: usize| run[v * LANES * len..].as_ptr();
    let mut mix_block = |v: usize, k1: __m512i, k2: __m512i| {
        h1[v] = _mm512_xor_si512(h1[v], mix_k1(k1));
        h1[v] = times_5_plus(
            _mm512_add_epi64(_mm512_rol_epi64::<27>(h1[v]), h2[v]),
            0x52dc_e729,
        );
        h2[v] = _mm512_xor_si512(h2[v], mix_k2(k2));
        h2[v] = times_5_plus(
            _mm512_add_epi64(_mm512_rol_epi64::<31>(h2[v]), h1[v]),
            0x3849_5ab5,
        );
    };
    if len == 32 {
        // SAFETY: each vector's eight keys are 256 bytes from its first key.
        let words: [[(__m512i, __m512i); 2]; VECTORS] =
            std::array::from_fn(|v| unsafe { blocks_of_32(first_key(v)) });
        for block in 0..2 {
            for (v, blocks) in words.iter().enumerate() {
                mix_block(v, blocks[block].0, blocks[block].1);
            }
        }
    } else {
        for block in 0..len / 16 {
            for v in 0..VECTORS {
                // SAFETY: bytes 16·block..16·block + 16 lie within each key (block < len / 16).
                let (k1, k2) = unsafe { block_words(first_key(v), len, 16 * block) };
                mix_block(v, k1, k2);
            }
        }
    }
    let tail_len = len % 16;
    if tail_len > 0 {
        for v in 0..VECTORS {
            let tail = |l: usize| {
                let end = (v * LANES + l + 1) * len;
                &run[end - tail_len..end]
            };
            if tail_len > 8 {
                let k2 = per_lane(|l| le::u64_padded(&tail(l)[8..]));
                h2[v] = _mm512_xor_si512(h2[v], mix_k2(k2));
            }
            let low = tail_len.min(8);
            let k1 = per_lane(|l| le::u64_padded(&tail(l)[..low]));
            h1[v] = _mm512_xor_si512(h1[v], mix_k1(k1));
        }
    }
    let len = _mm512_set1_epi64(len as i64);
    for v in 0..VECTORS {
        let (a, b) = finish(h1[v], h2[v], len);
        // SAFETY: slots 8v..8v + 8 of each output are 64 writable bytes.
        unsafe {
            _mm512_storeu_si512(h1s[v * LANES..][..LANES].as_mut_ptr().cast(), a);
            _mm512_storeu_si512(h2s[v * LANES..][..LANES].as_mut_ptr().cast(), b);
        }
    }
}
