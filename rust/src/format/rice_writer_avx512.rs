//! The Rice writer's vector path: eight codes built at once and joined in the lanes into two
//! groups of four, so that the scalar writer only stores (the codes and their joining were
//! about 30 instructions a group of four on the scalar path).

use std::arch::x86_64::*;

/// The Rice codes (parameter `r` ≤ 63) of `gaps`, joined four by four: (bits, length) of the
/// first four and of the last four, each length the sum of its codes' (the bits are meaningless
/// where a length is above 56, which the caller checks: a code's quotient is capped at 56).
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn eight_codes(gaps: &[u64; 8], r: u32) -> [(u64, u32); 2] {
    // SAFETY: the load reads the eight u64 of `gaps`.
    let gaps = unsafe { _mm512_loadu_si512(gaps.as_ptr().cast()) };
    let ones = _mm512_set1_epi64(1);
    let shift = _mm512_set1_epi64(r as i64);
    let quotients = _mm512_min_epu64(_mm512_srlv_epi64(gaps, shift), _mm512_set1_epi64(56));
    let low = _mm512_andnot_si512(_mm512_sllv_epi64(_mm512_set1_epi64(-1), shift), gaps);
    // (low·2 + 1)·2^q − 1: the low bits above a zero-bit above q one-bits (a count of 64 or
    // more shifts to 0 in these instructions, and r ≤ 63 here).
    let codes = _mm512_sub_epi64(
        _mm512_sllv_epi64(_mm512_or_si512(_mm512_slli_epi64(low, 1), ones), quotients),
        ones,
    );
    let lengths = _mm512_add_epi64(quotients, _mm512_set1_epi64(r as i64 + 1));
    // Pairs in the even lanes: each odd lane's code above its even neighbour's.
    let (codes, lengths) = join(
        codes,
        lengths,
        _mm512_shuffle_epi32(codes, _MM_PERM_BADC),
        _mm512_shuffle_epi32(lengths, _MM_PERM_BADC),
    );
    // Fours in lanes 0 and 4: the pair two lanes up above each pair.
    let (codes, lengths) = join(
        codes,
        lengths,
        _mm512_alignr_epi64(codes, codes, 2),
        _mm512_alignr_epi64(lengths, lengths, 2),
    );
    let mut c = [0u64; 8];
    let mut l = [0u64; 8];
    // SAFETY: the stores write the eight u64 of `c` and `l`.
    unsafe {
        _mm512_storeu_si512(c.as_mut_ptr().cast(), codes);
        _mm512_storeu_si512(l.as_mut_ptr().cast(), lengths);
    }
    // A length above 56 is meaningless but at most 8 · (57 + 63): it fits in u32.
    [(c[0], l[0] as u32), (c[4], l[4] as u32)]
}

/// `upper` placed above `lower` in each lane (a shift of 64 or more gives 0: such a length is
/// above 56 and the caller does not use the bits).
#[inline]
#[target_feature(enable = "avx512f")]
fn join(
    lower: __m512i,
    lower_len: __m512i,
    upper: __m512i,
    upper_len: __m512i,
) -> (__m512i, __m512i) {
    (
        _mm512_or_si512(lower, _mm512_sllv_epi64(upper, lower_len)),
        _mm512_add_epi64(lower_len, upper_len),
    )
}
