//! The number of set bits of a dense payload: the first step of choosing sparse or dense, over
//! every word of the filter. Built for a baseline x86-64 CPU, `count_ones` is a dozen SSE2
//! instructions per word, which was most of the time of encoding a full filter; the POPCNT
//! instruction (every x86-64 CPU since 2008) is one, so it is used when the CPU has it.

use super::dense;

/// Set bits in the whole words of `dense` (a dense payload: little-endian words).
pub(crate) fn count_ones(dense: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT, checked just above.
        return unsafe { count_ones_popcnt(dense) };
    }
    count_ones_portable(dense)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn count_ones_popcnt(dense: &[u8]) -> u64 {
    count_ones_portable(dense)
}

/// Inlined into [`count_ones_popcnt`], where it compiles to POPCNT.
#[inline(always)]
fn count_ones_portable(dense: &[u8]) -> u64 {
    (0..dense.len() / 8)
        .map(|i| dense::word(dense, i).count_ones() as u64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_bits_of_whole_words() {
        assert_eq!(count_ones(&[]), 0);
        let mut bytes = vec![0u8; 8 * 37];
        bytes[0] = 0b1011;
        bytes[8 * 36 + 7] = 0x80;
        bytes[100] = 0xff;
        assert_eq!(count_ones(&bytes), 3 + 1 + 8);
        assert_eq!(count_ones_portable(&bytes), 12);
        // A trailing partial word is not counted (a dense payload is whole words).
        bytes.push(0xff);
        assert_eq!(count_ones(&bytes), 12);
    }
}
