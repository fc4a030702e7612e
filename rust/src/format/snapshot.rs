//! The encoder's one pass over the filter's words: the dense copy (the snapshot both
//! encodings are made from), its number of set bits and, while they fit in a bounded buffer,
//! the positions of those bits. A per-user filter's sparse encoding then needs no second walk
//! of the words (taking the gaps from the copy was about half the time of an encode), and
//! each word is read once, so the positions are those of the copy even while other threads
//! put. Built for a baseline x86-64 CPU, `count_ones` is a dozen SSE2 instructions per word
//! (once most of the time of encoding a full filter): POPCNT is used where the CPU has it.

use std::mem::MaybeUninit;

/// Words with at most this many set bits store their positions without a branch on how many
/// (as in [`set_bits`](super::set_bits)): the ones past the word's bits are overwritten by the
/// next word's, or ignored.
const UNROLLED: usize = 4;

/// Spare room `positions` needs beyond the positions it should keep.
pub(crate) const POSITIONS_SLACK: usize = UNROLLED;

/// What [`copy_finding_positions`] found.
pub(crate) struct Snapshot<'p> {
    /// Set bits among the words.
    pub(crate) count: u64,
    /// All `count` positions in increasing order, if they fit.
    pub(crate) positions: Option<&'p mut [u64]>,
}

/// Writes each of `words` little-endian into `out` (exactly 8 bytes per word), counts their
/// set bits and stores the positions of those bits into `positions` as long as they fit in it
/// with [`POSITIONS_SLACK`] to spare.
pub(crate) fn copy_finding_positions<'p>(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
    positions: &'p mut [MaybeUninit<u64>],
) -> Snapshot<'p> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi1") && std::arch::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: the CPU has BMI1 (TZCNT, BLSR) and POPCNT, checked just above.
        return unsafe { copy_finding_positions_bmi1(words, out, positions) };
    }
    copy_finding_positions_portable(words, out, positions)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,popcnt")]
fn copy_finding_positions_bmi1<'p>(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
    positions: &'p mut [MaybeUninit<u64>],
) -> Snapshot<'p> {
    copy_finding_positions_portable(words, out, positions)
}

/// Inlined into [`copy_finding_positions_bmi1`], where it compiles to TZCNT, BLSR and POPCNT.
/// Once a word's positions would not fit, the rest of the words are only copied and counted.
#[inline(always)]
fn copy_finding_positions_portable<'p>(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
    positions: &'p mut [MaybeUninit<u64>],
) -> Snapshot<'p> {
    assert_eq!(out.len(), words.len() * 8, "8 bytes per word");
    assert!(
        positions.len() >= POSITIONS_SLACK,
        "room for the unrolled stores"
    );
    let room = positions.len().saturating_sub(POSITIONS_SLACK);
    let mut count = 0u64;
    let mut found = 0usize;
    let mut words = words.enumerate();
    let mut bytes = out.chunks_exact_mut(8);
    for ((i, word), to) in (&mut words).zip(&mut bytes) {
        write_le(to, word);
        let ones = word.count_ones() as usize;
        count += ones as u64;
        let base = i as u64 * 64;
        let mut word = word;
        if ones <= UNROLLED && found + UNROLLED <= positions.len() {
            // (One bounds check for the word's stores.)
            for slot in &mut positions[found..found + UNROLLED] {
                slot.write(base + word.trailing_zeros() as u64);
                word &= word.wrapping_sub(1);
            }
        } else if found + ones <= room && found <= base as usize / 8 + 64 {
            for slot in &mut positions[found..found + ones] {
                slot.write(base + word.trailing_zeros() as u64);
                word &= word - 1;
            }
        } else {
            // Out of room, or a dense filter (past an average of eight set bits a word, not
            // counting the first 64: storing 4,096 positions before running out of room was
            // more than the whole copy of a full filter): the rest is only copied and counted.
            return Snapshot {
                count: count + copy_counting(words.map(|(_, word)| word), bytes),
                positions: None,
            };
        }
        found += ones;
    }
    debug_assert_eq!(found as u64, count);
    if found > room {
        // The unrolled stores went past `room`: kept positions are at most that many.
        return Snapshot {
            count,
            positions: None,
        };
    }
    // SAFETY: the first `found` slots were written, each with a position; `MaybeUninit<u64>`
    // has the layout of `u64`.
    let kept = unsafe { &mut *(std::ptr::from_mut(&mut positions[..found]) as *mut [u64]) };
    Snapshot {
        count,
        positions: Some(kept),
    }
}

/// The rest of the words once the positions are not kept: copied and counted.
#[inline(always)]
fn copy_counting<'a>(
    words: impl Iterator<Item = u64>,
    bytes: impl Iterator<Item = &'a mut [MaybeUninit<u8>]>,
) -> u64 {
    let mut count = 0;
    for (word, to) in words.zip(bytes) {
        write_le(to, word);
        count += word.count_ones() as u64;
    }
    count
}

#[inline(always)]
fn write_le(to: &mut [MaybeUninit<u8>], word: u64) {
    for (byte, value) in to.iter_mut().zip(word.to_le_bytes()) {
        byte.write(value);
    }
}
