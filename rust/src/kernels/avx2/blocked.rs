//! BLOCKED batches in AVX2 lanes: eight keys hashed in two vectors ([`hash_up_to_8`]), and a
//! key's whole block tested at once ([`block_holds`]), as the AVX-512 kernel does with wider
//! lanes.

use super::{Lanes, murmur3_u64};
use crate::blocked_layout::FIELDS_PER_WORD;
use std::arch::x86_64::*;

/// The field each 32-bit lane of [`block_holds`]' positions holds: the low halves of the
/// shifted words `[f0, f1, f2, f3]` and `[f4, f5, f6, –]`, interleaved by `_mm256_shuffle_ps`
/// two from each per 128-bit half.
const FIELD_OF_LANE: [u32; 8] = [0, 1, 4, 5, 2, 3, 6, 7];

/// For each count of fields n (0..=7), the lanes holding fields below n: the ones tested.
const LIVE_LANES: [i32; 8] = {
    let mut table = [0; 8];
    let mut n = 0;
    while n < 8 {
        let mut lane = 0;
        while lane < 8 {
            if FIELD_OF_LANE[lane] < n as u32 {
                table[n] |= 1 << lane;
            }
            lane += 1;
        }
        n += 1;
    }
    table
};

/// `hashing::hash_u64` of up to eight keys into `h1s` and `h2s` (lanes past `keys` hash 0).
///
/// # Safety
/// The CPU must have AVX2 ([`Kernel::Avx2`](crate::kernels::Kernel::Avx2)).
///
/// # Panics
/// If `keys` holds more than eight keys.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn hash_up_to_8(keys: &[u64], h1s: &mut [u64; 8], h2s: &mut [u64; 8]) {
    let mut lanes = [0u64; 8];
    // A whole chunk is read in place (no copy, which would be a call to memcpy).
    let keys = match <&[u64; 8]>::try_from(keys) {
        Ok(whole) => whole,
        Err(_) => {
            lanes[..keys.len()].copy_from_slice(keys);
            &lanes
        }
    };
    // SAFETY: two vectors of four from an eight-word array.
    let keys: Lanes<2> =
        std::array::from_fn(|g| unsafe { _mm256_loadu_si256(keys.as_ptr().add(4 * g).cast()) });
    let (h1, h2) = murmur3_u64(keys);
    for g in 0..2 {
        // SAFETY: two vectors of four into eight-word arrays.
        unsafe {
            _mm256_storeu_si256(h1s.as_mut_ptr().add(4 * g).cast(), h1[g]);
            _mm256_storeu_si256(h2s.as_mut_ptr().add(4 * g).cast(), h2[g]);
        }
    }
}

/// Whether the 512-bit block at `block` holds every one of the k positions `h2` picks (as
/// `blocked_layout::for_each_position` walks them): the block loaded as sixteen 32-bit words in
/// two vectors, seven positions at a time each picking its word by two lane permutes and a
/// blend, then its bit tested; no per-position load or branch.
///
/// Each 8-byte lane of the loads is an aligned 8-byte access, which x86 performs atomically,
/// so a concurrent put's OR is seen whole or not at all.
///
/// # Safety
/// The CPU must have AVX2; `block` must point at eight readable, 8-byte-aligned words.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn block_holds(block: *const u64, h2: u64, num_hashes: u32) -> bool {
    // SAFETY: the caller's contract: eight readable words.
    let (low, high) = unsafe {
        (
            _mm256_loadu_si256(block.cast()),
            _mm256_loadu_si256(block.add(4).cast()),
        )
    };
    let first_shifts = _mm256_setr_epi64x(0, 9, 18, 27);
    let last_shifts = _mm256_setr_epi64x(36, 45, 54, 0);
    let field = _mm256_set1_epi32(511);
    let bit_in_word = _mm256_set1_epi32(31);
    let one = _mm256_set1_epi32(1);
    let mut seed = h2;
    let mut left = num_hashes;
    let mut missing = 0;
    loop {
        let fields_here = left.min(FIELDS_PER_WORD);
        let seeds = _mm256_set1_epi64x(seed as i64);
        let first = _mm256_castsi256_ps(_mm256_srlv_epi64(seeds, first_shifts));
        let last = _mm256_castsi256_ps(_mm256_srlv_epi64(seeds, last_shifts));
        // Each position fits the low 32 bits of its shifted word: keep those, in FIELD_OF_LANE order.
        let positions = _mm256_and_si256(
            _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(first, last)),
            field,
        );
        let word = _mm256_srli_epi32::<5>(positions);
        // Words 0..8 from `low`, 8..16 from `high` (bit 3 of the word, moved to the sign bit).
        let words = _mm256_castps_si256(_mm256_blendv_ps(
            _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(low, word)),
            _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(high, word)),
            _mm256_castsi256_ps(_mm256_slli_epi32::<28>(word)),
        ));
        let bits = _mm256_sllv_epi32(one, _mm256_and_si256(positions, bit_in_word));
        let clear = _mm256_cmpeq_epi32(_mm256_and_si256(words, bits), _mm256_setzero_si256());
        missing |=
            _mm256_movemask_ps(_mm256_castsi256_ps(clear)) & LIVE_LANES[fields_here as usize];
        left -= fields_here;
        if left == 0 {
            return missing == 0;
        }
        seed = crate::hashing::fmix64(seed);
    }
}
