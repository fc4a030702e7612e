//! The set-bit finder's vector path: the positions of the set bits of eight words at a time,
//! without a branch per word. A lightly filled filter (the per-user one: ~2,000 bits in 2,247
//! words) has 0, 1 or 2 bits in a word at random; the scalar path stores four positions a word
//! unconditionally, about 20 instructions a word. Here a group of eight words whose nonzero
//! bytes hold one bit each (most groups of such a filter) is taken byte-wise: the bytes'
//! indices and in-byte positions compressed to the front, widened eight at a time. Any other
//! group with at most four bits a word is taken word-wise: the eight words' first four
//! positions computed lane-wise (the count of ones below each lowest bit, then that bit
//! cleared), turned word-major by a transpose, and the valid ones kept by four
//! compress-stores, about 8 instructions a word. The rest go the scalar way.

use crate::le;
use std::arch::x86_64::*;
use std::ops::Range;

/// Positions a group of eight words can add at most on this path (four a word).
pub(crate) const GROUP_MAX: usize = 32;

/// Writes into `out` the positions of the set bits of the first whole groups of eight of
/// `words` (indices of 64-bit words of `dense`), in order, while `out` has room for a group's
/// [`GROUP_MAX`]; a group with a word of more than four bits is left to `scalar`, which pushes
/// one word's positions at `out[len..]` and returns the new length (it must find room there:
/// `out` holds the words' set bits, or [`GROUP_MAX`] more than those written). Returns how many
/// positions were written and the first word not visited.
///
/// Callable where the CPU facts' `avx512_bits` holds (`kernels::set_bits`).
#[target_feature(
    enable = "avx512f,avx512bw,avx512vbmi2,avx512bitalg,avx512vpopcntdq,bmi1,bmi2,popcnt"
)]
pub(crate) fn positions(
    dense: &[u8],
    words: Range<usize>,
    out: &mut [u64],
    scalar: impl Fn(u64, u64, &mut [u64], usize) -> usize,
) -> (usize, usize) {
    assert!(words.end * 8 <= dense.len());
    let mut len = 0;
    let mut word = words.start;
    let lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    let ones = _mm512_set1_epi64(1);
    let four = _mm512_set1_epi64(4);
    // Word-major order of four vectors p0..p3 (the j-th position of each word) in two steps:
    // pairs (p0, p1) and (p2, p3) interleaved, then their halves joined word by word.
    let pair_low = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
    let pair_high = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    let join_first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
    let join_second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    while word + 8 <= words.end && len + GROUP_MAX <= out.len() {
        // SAFETY: word + 8 ≤ words.end and words.end · 8 ≤ dense.len() (asserted): the 64
        // bytes are inside `dense`.
        let bits = unsafe { _mm512_loadu_si512(dense.as_ptr().add(word * 8).cast()) };
        if let Some(found) = single_bit_bytes(bits, word, &mut out[len..]) {
            len += found;
            word += 8;
            continue;
        }
        let counts = _mm512_popcnt_epi64(bits);
        if _mm512_cmpgt_epu64_mask(counts, four) != 0 {
            for i in word..word + 8 {
                len = scalar(le::u64_at(dense, i * 8), i as u64 * 64, out, len);
            }
            word += 8;
            continue;
        }
        let base = _mm512_add_epi64(
            _mm512_set1_epi64(word as i64 * 64),
            _mm512_slli_epi64(lane, 6),
        );
        let mut rest = bits;
        let p0 = take_lowest(&mut rest, base);
        let p1 = take_lowest(&mut rest, base);
        let p2 = take_lowest(&mut rest, base);
        let p3 = take_lowest(&mut rest, base);
        let p01_low = _mm512_permutex2var_epi64(p0, pair_low, p1);
        let p01_high = _mm512_permutex2var_epi64(p0, pair_high, p1);
        let p23_low = _mm512_permutex2var_epi64(p2, pair_low, p3);
        let p23_high = _mm512_permutex2var_epi64(p2, pair_high, p3);
        let by_word = [
            _mm512_permutex2var_epi64(p01_low, join_first, p23_low),
            _mm512_permutex2var_epi64(p01_low, join_second, p23_low),
            _mm512_permutex2var_epi64(p01_high, join_first, p23_high),
            _mm512_permutex2var_epi64(p01_high, join_second, p23_high),
        ];
        // Word i's valid positions as nibble i of a 32-bit mask: 2^count − 1 (count ≤ 4).
        let nibbles = _mm512_sub_epi64(_mm512_sllv_epi64(ones, counts), ones);
        let packed = _mm_cvtsi128_si64(_mm512_cvtepi64_epi8(nibbles)) as u64;
        let valid = _pext_u64(packed, 0x0f0f_0f0f_0f0f_0f0f);
        for (k, positions) in by_word.into_iter().enumerate() {
            let keep = (valid >> (8 * k)) as u8;
            // SAFETY: len + 8 ≤ len + GROUP_MAX ≤ out.len() until this group's last store
            // (len grows by at most 8 a store, 32 a group).
            unsafe {
                _mm512_storeu_si512(
                    out.as_mut_ptr().add(len).cast(),
                    _mm512_maskz_compress_epi64(keep, positions),
                );
            }
            len += keep.count_ones() as usize;
        }
        word += 8;
    }
    (len, word)
}

/// Each lane's lowest set bit as base + its index, cleared from `rest` (an exhausted lane gives
/// base + 64).
#[inline]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
fn take_lowest(rest: &mut __m512i, base: __m512i) -> __m512i {
    let less = _mm512_sub_epi64(*rest, _mm512_set1_epi64(1));
    let below = _mm512_andnot_si512(*rest, less); // the ones under the lowest set bit
    *rest = _mm512_and_si512(*rest, less);
    _mm512_add_epi64(base, _mm512_popcnt_epi64(below))
}

/// Turns increasing positions into gaps in place, eight at a time, the first from `*next`
/// (p_{i−1} + 1, updated): each position less the one before it (kept from the vector before,
/// not re-read: it is a gap by then) and 1.
#[target_feature(enable = "avx512f")]
pub(crate) fn to_gaps(positions: &mut [u64], next: &mut u64) {
    let Some(&last) = positions.last() else {
        return;
    };
    let ones = _mm512_set1_epi64(1);
    // Lane 7 holds the position before the next vector's first: next − 1 (wrapping when 0:
    // the subtraction wraps back).
    let mut before = _mm512_set1_epi64(next.wrapping_sub(1) as i64);
    for chunk in positions.chunks_mut(8) {
        let keep = ((1u16 << chunk.len()) - 1) as u8;
        // SAFETY: the masked load and store touch the chunk's lanes only.
        unsafe {
            let current = _mm512_maskz_loadu_epi64(keep, chunk.as_ptr().cast());
            let previous = _mm512_alignr_epi64(current, before, 7);
            let gaps = _mm512_sub_epi64(_mm512_sub_epi64(current, previous), ones);
            _mm512_mask_storeu_epi64(chunk.as_mut_ptr().cast(), keep, gaps);
            before = current;
        }
    }
    *next = last + 1;
}

/// Byte i of the vector: i.
const BYTE_INDEX: [u8; 64] = {
    let mut index = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        index[i] = i as u8;
        i += 1;
    }
    index
};

/// The common group of a lightly filled filter, byte-wise: if every nonzero byte of `bits`
/// (words `word..word + 8`) holds a single set bit and there are at most 16 of them, writes
/// their positions at the start of `out` (which has room for [`GROUP_MAX`]) and returns how
/// many. A byte's position is its index times 8 plus the ones of b − 1; the nonzero bytes'
/// indices and in-byte positions are compressed to the front and widened eight at a time
/// (about a third of the instructions of the word-wise way).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,avx512bitalg")]
fn single_bit_bytes(bits: __m512i, word: usize, out: &mut [u64]) -> Option<usize> {
    let less = _mm512_sub_epi8(bits, _mm512_set1_epi8(1));
    let nonzero = _mm512_test_epi8_mask(bits, bits);
    let found = nonzero.count_ones() as usize;
    // b & (b − 1) is nonzero where a byte holds two bits or more.
    if _mm512_test_epi8_mask(bits, less) != 0 || found > 16 {
        return None;
    }
    // SAFETY: the load reads BYTE_INDEX's 64 bytes.
    let byte_index = unsafe { _mm512_loadu_si512(BYTE_INDEX.as_ptr().cast()) };
    let bytes = _mm512_castsi512_si128(_mm512_maskz_compress_epi8(nonzero, byte_index));
    let in_byte = _mm512_castsi512_si128(_mm512_maskz_compress_epi8(
        nonzero,
        _mm512_popcnt_epi8(less),
    ));
    let base = _mm512_set1_epi64(word as i64 * 64);
    let eight = |bytes: __m128i, in_byte: __m128i| {
        _mm512_add_epi64(
            _mm512_add_epi64(base, _mm512_slli_epi64(_mm512_cvtepu8_epi64(bytes), 3)),
            _mm512_cvtepu8_epi64(in_byte),
        )
    };
    assert!(out.len() >= 16);
    // SAFETY: out holds 16 u64 (asserted): two stores of eight.
    unsafe {
        _mm512_storeu_si512(out.as_mut_ptr().cast(), eight(bytes, in_byte));
        if found > 8 {
            _mm512_storeu_si512(
                out.as_mut_ptr().add(8).cast(),
                eight(_mm_srli_si128(bytes, 8), _mm_srli_si128(in_byte, 8)),
            );
        }
    }
    Some(found)
}
