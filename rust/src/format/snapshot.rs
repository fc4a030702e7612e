//! The encoder's one pass over the filter's words: the dense copy (the snapshot both
//! encodings are made from), its number of set bits and, while they fit in a bounded buffer,
//! the positions of those bits. A per-user filter's sparse encoding then needs no second walk
//! of the words (taking the gaps from the copy was about half the time of an encode), and
//! each word is read once, so the positions are those of the copy even while other threads
//! put.

use std::mem::MaybeUninit;

/// Words with at most this many set bits store their positions without a branch on how many
/// (as in [`set_bits`](super::set_bits)): the ones past the word's bits are overwritten by the
/// next word's, or ignored.
const UNROLLED: usize = 4;

/// Spare room `positions` needs beyond the positions it should keep.
pub(crate) const POSITIONS_SLACK: usize = UNROLLED;

/// What [`copy_finding_positions`] found.
pub(crate) struct Snapshot {
    /// Set bits among the words.
    pub(crate) count: u64,
    /// Whether all `count` positions are stored, in increasing order, at the front of
    /// `positions` (else what it holds is meaningless).
    pub(crate) kept: bool,
}

/// Writes each of `words` little-endian into `out` (exactly 8 bytes per word), counts their
/// set bits and stores the positions of those bits into `positions` as long as they fit in it
/// with [`POSITIONS_SLACK`] to spare.
pub(crate) fn copy_finding_positions(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
    positions: &mut [MaybeUninit<u64>],
) -> Snapshot {
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
fn copy_finding_positions_bmi1(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
    positions: &mut [MaybeUninit<u64>],
) -> Snapshot {
    copy_finding_positions_portable(words, out, positions)
}

/// Inlined into [`copy_finding_positions_bmi1`], where it compiles to TZCNT, BLSR and POPCNT.
/// Once a word's positions would not fit, the rest of the words are only copied and counted.
#[inline(always)]
fn copy_finding_positions_portable(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
    positions: &mut [MaybeUninit<u64>],
) -> Snapshot {
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
        if found + ones > room {
            return Snapshot {
                count: count + copy_counting(words.map(|(_, word)| word), bytes),
                kept: false,
            };
        }
        let mut word = word;
        if ones <= UNROLLED {
            // found + UNROLLED ≤ room + POSITIONS_SLACK = positions.len(): in bounds.
            for k in 0..UNROLLED {
                positions[found + k].write(base + word.trailing_zeros() as u64);
                word &= word.wrapping_sub(1);
            }
        } else {
            for k in 0..ones {
                positions[found + k].write(base + word.trailing_zeros() as u64);
                word &= word - 1;
            }
        }
        found += ones;
    }
    Snapshot { count, kept: true }
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
