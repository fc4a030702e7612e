//! The dense payload's copy and its number of set bits, in one pass over the filter's words:
//! the count is the first step of choosing sparse or dense. Built for a baseline x86-64 CPU,
//! `count_ones` is a dozen SSE2 instructions per word, which was most of the time of encoding
//! a full filter; the POPCNT instruction (every x86-64 CPU since 2008) is one, so it is used
//! when the CPU has it.

use std::mem::MaybeUninit;

/// Writes each of `words` little-endian into `out` (exactly 8 bytes per word) and returns the
/// number of set bits among them.
pub(crate) fn copy_counting(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT, checked just above.
        return unsafe { copy_counting_popcnt(words, out) };
    }
    copy_counting_portable(words, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn copy_counting_popcnt(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
) -> u64 {
    copy_counting_portable(words, out)
}

/// Inlined into [`copy_counting_popcnt`], where `count_ones` compiles to POPCNT.
#[inline(always)]
fn copy_counting_portable(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
) -> u64 {
    assert_eq!(out.len(), words.len() * 8, "8 bytes per word");
    let mut count = 0;
    for (bytes, word) in out.chunks_exact_mut(8).zip(words) {
        count += word.count_ones() as u64;
        for (byte, value) in bytes.iter_mut().zip(word.to_le_bytes()) {
            byte.write(value);
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_little_endian_and_counts_the_bits() {
        let mut out = [MaybeUninit::new(0xaau8); 24];
        let words = [0b1011u64, 0x8000_0000_0000_00ff, 0];
        assert_eq!(copy_counting(words.into_iter(), &mut out), 3 + 9);
        assert_eq!(copy_counting_portable(words.into_iter(), &mut out), 12);
        // SAFETY: all 24 bytes were written above (and initialized before).
        let bytes: Vec<u8> = out.iter().map(|b| unsafe { b.assume_init() }).collect();
        assert_eq!(&bytes[..9], &[0b1011, 0, 0, 0, 0, 0, 0, 0, 0xff]);
        assert_eq!(bytes[15], 0x80);
        assert_eq!(&bytes[16..], &[0; 8]);
        assert_eq!(copy_counting([].into_iter(), &mut []), 0);
    }
}
