//! The BLOCKED batches' AVX-512 lanes (`kernels::blocked` runs them): eight keys hashed at a
//! time, and a key's whole block tested in one vector.

use super::{load_up_to_8, murmur3_u64};
use std::arch::x86_64::*;

/// `hashing::hash_u64` of up to eight keys in lanes: `h1s[j]`, `h2s[j]` for `keys[j]` (the
/// BLOCKED batches, which need the hash halves only).
///
/// # Safety
/// The CPU must have AVX-512 F and DQ.
///
/// # Panics
/// If `keys` holds more than eight keys.
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn hash_up_to_8(keys: &[u64], h1s: &mut [u64; 8], h2s: &mut [u64; 8]) {
    let (h1, h2) = murmur3_u64(load_up_to_8(keys).0);
    // SAFETY: each array holds eight u64s, one 512-bit store.
    unsafe {
        _mm512_storeu_si512(h1s.as_mut_ptr().cast(), h1);
        _mm512_storeu_si512(h2s.as_mut_ptr().cast(), h2);
    }
}

/// Whether the 512-bit block at `block` holds every one of the k positions `h2` picks (the
/// BLOCKED layout: 9-bit fields of `h2` from its low bits up, seven per word, then of
/// `fmix64(h2)`, … as `blocked_layout::for_each_position` walks them): the block is loaded once as
/// one vector, each position's word picked from it by a lane permute, and seven positions
/// tested at a time, with no per-position load or branch.
///
/// Each 8-byte lane of the load is an aligned 8-byte access, which x86 performs atomically,
/// so a concurrent put's OR is seen whole or not at all, as with the gathers of [`query`](super::query).
///
/// # Safety
/// The CPU must have AVX-512 F and DQ; `block` must point at eight readable, 8-byte-aligned
/// words.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn block_holds(block: *const u64, h2: u64, num_hashes: u32) -> bool {
    // SAFETY: the caller's contract: eight readable words.
    let line = unsafe { _mm512_loadu_si512(block.cast()) };
    let field_shifts = _mm512_setr_epi64(0, 9, 18, 27, 36, 45, 54, 0);
    let field = _mm512_set1_epi64(511);
    let bit_in_word = _mm512_set1_epi64(63);
    let one = _mm512_set1_epi64(1);
    let mut seed = h2;
    let mut left = num_hashes;
    let mut holds = true;
    loop {
        let fields_here = left.min(7);
        let live = ((1u32 << fields_here) - 1) as u8;
        let positions = _mm512_and_si512(
            _mm512_srlv_epi64(_mm512_set1_epi64(seed as i64), field_shifts),
            field,
        );
        let words = _mm512_permutexvar_epi64(_mm512_srli_epi64::<6>(positions), line);
        let bits = _mm512_sllv_epi64(one, _mm512_and_si512(positions, bit_in_word));
        holds &= _mm512_mask_test_epi64_mask(live, words, bits) == live;
        left -= fields_here;
        if left == 0 {
            return holds;
        }
        seed = crate::hashing::fmix64(seed);
    }
}
