//! The BLOCKED layout's bit placement: every bit of a key inside one 512-bit block (one 64-byte
//! cache line), so a query touches one line where the classic layouts touch k.
//!
//! Key → Guava's Murmur3_x64_128 (`h1`, `h2`) → block ⌊h1 · B / 2^64⌋ (multiply-shift: no
//! division, uniform over any block count B) → k positions in the block: the 9-bit fields of
//! `h2` from its low bits up (7 per word), then of `fmix64(h2)`, `fmix64(fmix64(h2))`, … when
//! k > 7. The fields are independent and uniform, which is what `blocked_sizing`'s model
//! assumes.

use crate::blocked_sizing::BLOCK_BITS;
use crate::hashing::{Hash128, fmix64};

/// 9-bit fields in a 64-bit word (the top bit is unused).
pub(crate) const FIELDS_PER_WORD: u32 = 7;
/// The block of a key with hash half `h1` among `num_blocks`.
#[inline(always)]
pub(crate) fn block_of(h1: u64, num_blocks: u64) -> u64 {
    ((h1 as u128 * num_blocks as u128) >> 64) as u64
}

/// Calls `visit` with each of the k positions (0..512) inside the block, stopping at the first
/// `false`; returns whether every call returned `true`.
#[inline(always)]
pub(crate) fn for_each_position(
    h2: u64,
    num_hashes: u32,
    mut visit: impl FnMut(u64) -> bool,
) -> bool {
    let mut seed = h2;
    let mut fields = seed;
    let mut left = FIELDS_PER_WORD;
    for _ in 0..num_hashes {
        if left == 0 {
            seed = fmix64(seed);
            fields = seed;
            left = FIELDS_PER_WORD;
        }
        if !visit(fields & (BLOCK_BITS - 1)) {
            return false;
        }
        fields >>= 9;
        left -= 1;
    }
    true
}

/// The strategy walk (`Indexer::for_each`): the k bit indexes of `hash` in an m-bit filter.
#[inline(always)]
pub(crate) fn for_each_index(
    num_bits: u64,
    num_hashes: u32,
    hash: Hash128,
    mut visit: impl FnMut(u64) -> bool,
) -> bool {
    let base = block_of(hash.h1, num_bits / BLOCK_BITS) * BLOCK_BITS;
    for_each_position(hash.h2, num_hashes, |position| visit(base + position))
}
