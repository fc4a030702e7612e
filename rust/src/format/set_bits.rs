//! The gaps between the set bits of a dense payload (g_i = p_i − p_{i−1} − 1, p_{−1} = −1),
//! what the sparse encoder sizes and codes. A word's set bits are taken by `trailing_zeros`
//! without a branch on how many it has: the first two are stored unconditionally (past the
//! last one, the store is overwritten or ignored) and the cursor advances by the word's
//! popcount. A loop per word (`while word != 0`) mispredicted its exit on about every other
//! word of a lightly filled filter (under one set bit per word), most of the encoder's time.

use super::dense;
use std::ops::Range;

/// Room `gaps` needs beyond the set bits it receives: the unconditional stores of an empty
/// or one-bit word.
pub(crate) const SLACK: usize = 2;

/// Writes into `gaps` the gaps of the set bits of `words` (indices of 64-bit words of `dense`),
/// in order, the first measured from `*next` (p_{i−1} + 1, updated); returns how many. `gaps`
/// must hold the words' set bits plus [`SLACK`] (64 · words + 2 always suffices).
pub(crate) fn gaps(dense: &[u8], words: Range<usize>, next: &mut u64, gaps: &mut [u64]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") && std::arch::is_x86_feature_detected!("bmi1")
    {
        // SAFETY: the CPU has POPCNT and BMI1 (TZCNT, BLSR), checked just above.
        return unsafe { gaps_bmi1(dense, words, next, gaps) };
    }
    gaps_portable(dense, words, next, gaps)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1")]
fn gaps_bmi1(dense: &[u8], words: Range<usize>, next: &mut u64, gaps: &mut [u64]) -> usize {
    gaps_portable(dense, words, next, gaps)
}

/// Inlined into [`gaps_bmi1`], where it compiles to POPCNT, TZCNT and BLSR.
#[inline(always)]
fn gaps_portable(dense: &[u8], words: Range<usize>, next: &mut u64, gaps: &mut [u64]) -> usize {
    let mut len = 0;
    for i in words {
        let word = dense::word(dense, i);
        let base = i as u64 * 64;
        let ones = word.count_ones() as usize;
        let second = word & word.wrapping_sub(1);
        // Positions for now; trailing_zeros(0) = 64 gives a junk entry that `len` skips.
        gaps[len] = base + word.trailing_zeros() as u64;
        gaps[len + 1] = base + second.trailing_zeros() as u64;
        if ones > 2 {
            let mut rest = second & second.wrapping_sub(1);
            let mut at = len + 2;
            while rest != 0 {
                gaps[at] = base + rest.trailing_zeros() as u64;
                at += 1;
                rest &= rest - 1;
            }
        }
        len += ones;
    }
    // Positions to gaps: each from its own position and the one before, no chain between them.
    let mut previous_end = *next;
    for slot in &mut gaps[..len] {
        let position = *slot;
        *slot = position - previous_end;
        previous_end = position + 1;
    }
    *next = previous_end;
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_of_words_with_any_number_of_bits() {
        let words = [0u64, 1, 0b110, u64::MAX, 0, 1 << 63, 0b1011_0001];
        let dense: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let positions: Vec<u64> = (0..words.len() as u64 * 64)
            .filter(|&b| words[(b / 64) as usize] >> (b % 64) & 1 == 1)
            .collect();
        let mut previous_end = 0;
        let expected: Vec<u64> = positions
            .iter()
            .map(|&p| {
                let gap = p - previous_end;
                previous_end = p + 1;
                gap
            })
            .collect();
        // Whole, and split in two ranges carrying `next` across.
        let mut out = vec![0u64; positions.len() + SLACK];
        let mut next = 0;
        assert_eq!(
            gaps(&dense, 0..words.len(), &mut next, &mut out),
            expected.len()
        );
        assert_eq!(&out[..expected.len()], &expected[..]);
        assert_eq!(next, positions.last().unwrap() + 1);
        let mut next = 0;
        let first = gaps(&dense, 0..3, &mut next, &mut out);
        assert_eq!(first, 3);
        let second = gaps(&dense, 3..words.len(), &mut next, &mut out[first..]);
        assert_eq!(&out[..first + second], &expected[..]);
        assert_eq!(gaps_portable(&dense, 0..0, &mut next, &mut []), 0);
    }
}
