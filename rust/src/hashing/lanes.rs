//! Murmur3_x64_128 (seed 0) of eight byte strings of one length at once, in AVX-512 lanes: the
//! byte-key batches' hash when a group's keys share their length (ids, hex digests, UUIDs).
//! Lane by lane the same arithmetic as [`hash_bytes`](super::hash_bytes), so the same hashes
//! (tested below against it and through the batches against Guava). The CPU check is the
//! filter's (`filter::avx512::available`: AVX-512 F and DQ, not disabled by its environment
//! variable); elsewhere, or without them, [`hash_equal_lengths`] returns `false` and callers
//! hash key by key.

/// Keys hashed together by [`hash_equal_lengths`].
pub(crate) const LANES: usize = 8;

/// Writes the hash halves of the eight keys `data[starts[l]..starts[l] + len]` to `h1s[l]`,
/// `h2s[l]` and returns `true`; returns `false` (writing nothing) where the CPU has no AVX-512
/// lanes: then hash each key with `hash_bytes`.
///
/// # Panics
/// If a key does not lie within `data`.
pub(crate) fn hash_equal_lengths(
    data: &[u8],
    starts: &[usize; LANES],
    len: usize,
    h1s: &mut [u64; LANES],
    h2s: &mut [u64; LANES],
) -> bool {
    let ends_fit = starts
        .iter()
        .all(|&s| s.checked_add(len).is_some_and(|end| end <= data.len()));
    assert!(ends_fit, "a key past the data");
    #[cfg(target_arch = "x86_64")]
    if crate::filter::avx512::available() {
        // SAFETY: the CPU has AVX-512 F and DQ; every key lies within `data` (asserted).
        unsafe { x86::hash_8(data, starts, len, h1s, h2s) };
        return true;
    }
    let _ = (h1s, h2s);
    false
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::{C1, C2};
    use super::LANES;
    use crate::le;
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx512f,avx512dq")]
    fn mul(x: __m512i, c: u64) -> __m512i {
        _mm512_mullo_epi64(x, _mm512_set1_epi64(c as i64))
    }

    /// x · 5 + c, as a shift and two adds.
    #[target_feature(enable = "avx512f,avx512dq")]
    fn times_5_plus(x: __m512i, c: i64) -> __m512i {
        _mm512_add_epi64(
            _mm512_add_epi64(_mm512_slli_epi64::<2>(x), x),
            _mm512_set1_epi64(c),
        )
    }

    #[target_feature(enable = "avx512f,avx512dq")]
    fn mix_k1(k1: __m512i) -> __m512i {
        mul(_mm512_rol_epi64::<31>(mul(k1, C1)), C2)
    }

    #[target_feature(enable = "avx512f,avx512dq")]
    fn mix_k2(k2: __m512i) -> __m512i {
        mul(_mm512_rol_epi64::<33>(mul(k2, C2)), C1)
    }

    #[target_feature(enable = "avx512f,avx512dq")]
    fn fmix64(k: __m512i) -> __m512i {
        let k = _mm512_xor_si512(k, _mm512_srli_epi64::<33>(k));
        let k = mul(k, 0xff51_afd7_ed55_8ccd);
        let k = _mm512_xor_si512(k, _mm512_srli_epi64::<33>(k));
        let k = mul(k, 0xc4ce_b9fe_1a85_ec53);
        _mm512_xor_si512(k, _mm512_srli_epi64::<33>(k))
    }

    /// Lane l = f(key l) for a scalar `f` (the tail words, read with zero padding).
    #[target_feature(enable = "avx512f,avx512dq")]
    fn per_lane(f: impl Fn(usize) -> u64) -> __m512i {
        let words: [u64; LANES] = std::array::from_fn(f);
        // SAFETY: `words` is 64 readable bytes.
        unsafe { _mm512_loadu_si512(words.as_ptr().cast()) }
    }

    /// The block at byte `offset` of each lane's key: its first words (k1) and second words
    /// (k2). Eight 16-byte loads paired into two vectors and split by one permute each: gathers
    /// cost several times more here (AMD Zen 4, measured: 77 % of the hash's time).
    #[target_feature(enable = "avx512f,avx512dq")]
    fn block_words(data: &[u8], starts: &[usize; LANES], offset: usize) -> (__m512i, __m512i) {
        let pair = |l: usize| {
            let block: &[u8; 16] = data[starts[l] + offset..starts[l] + offset + 16]
                .try_into()
                .expect("16 bytes");
            // SAFETY: `block` is 16 readable bytes.
            unsafe { _mm_loadu_si128(block.as_ptr().cast()) }
        };
        let four = |first: usize| {
            let low =
                _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(pair(first)), pair(first + 1));
            let high = _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(pair(first + 2)),
                pair(first + 3),
            );
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high)
        };
        // Lanes (k1, k2) of keys 0..4, then of keys 4..8.
        let (a, b) = (four(0), four(4));
        (
            _mm512_permutex2var_epi64(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b),
            _mm512_permutex2var_epi64(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b),
        )
    }

    /// # Safety
    /// The CPU must have AVX-512 F and DQ, and `data[starts[l]..starts[l] + len]` must lie
    /// within `data` for every lane.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) unsafe fn hash_8(
        data: &[u8],
        starts: &[usize; LANES],
        len: usize,
        h1s: &mut [u64; LANES],
        h2s: &mut [u64; LANES],
    ) {
        let (mut h1, mut h2) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        for block in 0..len / 16 {
            let (k1, k2) = block_words(data, starts, 16 * block);
            h1 = _mm512_xor_si512(h1, mix_k1(k1));
            h1 = times_5_plus(
                _mm512_add_epi64(_mm512_rol_epi64::<27>(h1), h2),
                0x52dc_e729,
            );
            h2 = _mm512_xor_si512(h2, mix_k2(k2));
            h2 = times_5_plus(
                _mm512_add_epi64(_mm512_rol_epi64::<31>(h2), h1),
                0x3849_5ab5,
            );
        }
        let tail_len = len % 16;
        if tail_len > 0 {
            let tail = |l: usize| &data[starts[l] + len - tail_len..starts[l] + len];
            if tail_len > 8 {
                h2 = _mm512_xor_si512(h2, mix_k2(per_lane(|l| le::u64_padded(&tail(l)[8..]))));
            }
            let low = tail_len.min(8);
            h1 = _mm512_xor_si512(h1, mix_k1(per_lane(|l| le::u64_padded(&tail(l)[..low]))));
        }
        let len = _mm512_set1_epi64(len as i64);
        h1 = _mm512_xor_si512(h1, len);
        h2 = _mm512_xor_si512(h2, len);
        h1 = _mm512_add_epi64(h1, h2);
        h2 = _mm512_add_epi64(h2, h1);
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 = _mm512_add_epi64(h1, h2);
        h2 = _mm512_add_epi64(h2, h1);
        // SAFETY: each array is 64 writable bytes.
        unsafe {
            _mm512_storeu_si512(h1s.as_mut_ptr().cast(), h1);
            _mm512_storeu_si512(h2s.as_mut_ptr().cast(), h2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hashing::hash_bytes;
    use crate::testutil::splitmix64;

    /// Every length 0..=130 (every tail, several blocks), keys at odd offsets, overlapping
    /// keys, and the last key ending at the data's end.
    #[test]
    fn lanes_equal_the_scalar_hash() {
        let mut state = 3;
        let data: Vec<u8> = (0..2_000).map(|_| splitmix64(&mut state) as u8).collect();
        for len in 0..=130 {
            for _ in 0..20 {
                let mut starts: [usize; LANES] = std::array::from_fn(|_| {
                    splitmix64(&mut state) as usize % (data.len() - len + 1)
                });
                starts[7] = data.len() - len;
                let (mut h1s, mut h2s) = ([0; LANES], [0; LANES]);
                if !hash_equal_lengths(&data, &starts, len, &mut h1s, &mut h2s) {
                    return; // no AVX-512 here: the callers hash key by key
                }
                for (l, &start) in starts.iter().enumerate() {
                    let h = hash_bytes(&data[start..start + len]);
                    assert_eq!((h1s[l], h2s[l]), (h.h1, h.h2), "len {len}");
                }
            }
        }
    }

    #[test]
    #[should_panic]
    fn a_key_past_the_data_panics() {
        let data = [0u8; 40];
        let (mut h1s, mut h2s) = ([0; LANES], [0; LANES]);
        hash_equal_lengths(&data, &[0, 0, 0, 0, 0, 0, 0, 9], 32, &mut h1s, &mut h2s);
    }
}
