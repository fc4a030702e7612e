//! The gaps between the set bits of a dense payload (g_i = p_i − p_{i−1} − 1, p_{−1} = −1),
//! what the sparse encoder sizes and codes: each word's set bits by `trailing_zeros`, the gaps
//! into a slice. (Variants that stored a word's first bits without a branch on how many it has,
//! or skipped empty words through a mask, measured slower on the per-user filter.)

use super::dense;
use std::ops::Range;

/// Writes into `gaps` the gaps of the set bits of `words` (indices of 64-bit words of `dense`),
/// in order, the first measured from `*next` (p_{i−1} + 1, updated); returns how many. `gaps`
/// must hold the words' set bits (64 · words always suffices).
pub(crate) fn gaps(dense: &[u8], words: Range<usize>, next: &mut u64, gaps: &mut [u64]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi1") {
        // SAFETY: the CPU has BMI1 (TZCNT, BLSR), checked just above.
        return unsafe { gaps_bmi1(dense, words, next, gaps) };
    }
    gaps_portable(dense, words, next, gaps)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1")]
fn gaps_bmi1(dense: &[u8], words: Range<usize>, next: &mut u64, gaps: &mut [u64]) -> usize {
    gaps_portable(dense, words, next, gaps)
}

/// Inlined into [`gaps_bmi1`], where it compiles to TZCNT and BLSR.
#[inline(always)]
fn gaps_portable(dense: &[u8], words: Range<usize>, next: &mut u64, gaps: &mut [u64]) -> usize {
    let mut len = 0;
    let mut end = *next;
    for i in words {
        let mut word = dense::word(dense, i);
        let base = i as u64 * 64;
        while word != 0 {
            let position = base + word.trailing_zeros() as u64;
            gaps[len] = position - end;
            end = position + 1;
            len += 1;
            word &= word - 1;
        }
    }
    *next = end;
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
        let mut out = vec![0u64; positions.len()];
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
