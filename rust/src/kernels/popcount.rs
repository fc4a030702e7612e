//! The dense payload's copy and its number of set bits, in one pass over the filter's words:
//! the count is the first step of choosing sparse or dense. Built for a baseline x86-64 CPU,
//! `count_ones` is a dozen SSE2 instructions per word, which was most of the time of encoding
//! a full filter; the POPCNT instruction (every x86-64 CPU since 2008) is one, so it is used
//! when the CPU has it, and with AVX-512 VPOPCNTDQ eight words a step.

use crate::bit_array::BitArray;
use std::mem::MaybeUninit;

/// What the copy's destination holds before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Out {
    /// Anything: every word is written.
    Any,
    /// Zeros: zero words are skipped, so the pages under a filter's empty stretches (of a fresh
    /// allocation) are never touched and take no memory.
    Zeroed,
}

/// Writes each of the words of `bits` little-endian into `out` (exactly 8 bytes per word; zero
/// words skipped if `out` is [`Out::Zeroed`]) and returns the number of set bits among them.
/// Each word is read once, one snapshot of it if other threads are writing: with AVX-512
/// VPOPCNTDQ eight words a step, a load, a store and a count each, each 8-byte lane of the load
/// an aligned 8-byte access, which x86 performs atomically, so like the words' `Relaxed` loads
/// never a torn word.
pub(crate) fn copy_counting(bits: &BitArray, out: &mut [MaybeUninit<u8>], to: Out) -> u64 {
    let len = bits.len_words();
    assert_eq!(out.len(), len * 8, "8 bytes per word");
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512_popcnt {
            // SAFETY: the CPU has AVX-512 F and VPOPCNTDQ; the `len` words start at
            // `as_ptr`, 8-byte aligned, and `out` holds 8 bytes for each (asserted).
            return unsafe { copy_counting_avx512(bits.as_ptr(), len, out, to) };
        }
        if cpu.popcnt {
            // SAFETY: the CPU has POPCNT, checked just above.
            return unsafe { copy_counting_popcnt(bits.words(), out, to) };
        }
    }
    copy_counting_portable(bits.words(), out, to)
}

/// # Safety
/// The CPU must have AVX-512 F and VPOPCNTDQ; `words` must point at `len` readable, 8-byte
/// aligned words, and `out` hold `8 · len` bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn copy_counting_avx512(
    words: *const u64,
    len: usize,
    out: &mut [MaybeUninit<u8>],
    to: Out,
) -> u64 {
    use std::arch::x86_64::*;
    let mut counts = _mm512_setzero_si512();
    let mut i = 0;
    while i < len {
        // The last step masks off the words past `len`: masked lanes are neither read nor
        // written.
        let keep = if len - i >= 8 {
            u8::MAX
        } else {
            ((1u16 << (len - i)) - 1) as u8
        };
        // SAFETY: lanes below `len − i` are words `i..len` and bytes `8i..8·len` of `out`
        // (the caller's contract); the others are masked off.
        unsafe {
            let eight = _mm512_maskz_loadu_epi64(keep, words.add(i).cast());
            let write = match to {
                Out::Any => keep,
                Out::Zeroed => _mm512_test_epi64_mask(eight, eight),
            };
            _mm512_mask_storeu_epi64(out.as_mut_ptr().add(i * 8).cast(), write, eight);
            counts = _mm512_add_epi64(counts, _mm512_popcnt_epi64(eight));
        }
        i += 8;
    }
    _mm512_reduce_add_epi64(counts) as u64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn copy_counting_popcnt(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
    to: Out,
) -> u64 {
    copy_counting_portable(words, out, to)
}

/// Inlined into [`copy_counting_popcnt`], where `count_ones` compiles to POPCNT.
#[inline(always)]
fn copy_counting_portable(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
    to: Out,
) -> u64 {
    let mut count = 0;
    for (bytes, word) in out.chunks_exact_mut(8).zip(words) {
        count += word.count_ones() as u64;
        if word != 0 || to == Out::Any {
            for (byte, value) in bytes.iter_mut().zip(word.to_le_bytes()) {
                byte.write(value);
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seeded words, 0 to 40 of them (every remainder of a vector of eight), densities from
    /// empty to full: the copy (vector or POPCNT where the CPU has them) against the plain
    /// loop's, into bytes of anything and into zeros (whose zero words are not written).
    #[test]
    fn copies_little_endian_and_counts_the_bits() {
        let mut seed = 0x000c_09e5_u64;
        let mut random = || crate::testutil::splitmix64(&mut seed);
        for num_words in 0..=40 {
            for mask_shift in [64, 7, 0] {
                let words: Vec<u64> = (0..num_words)
                    .map(|_| random() & random() & u64::MAX.checked_shr(mask_shift).unwrap_or(0))
                    .collect();
                let bits = BitArray::from_words(words.clone());
                for to in [Out::Any, Out::Zeroed] {
                    let mut out = vec![MaybeUninit::new(0xaau8); words.len() * 8];
                    let count = copy_counting(&bits, &mut out, to);
                    let ones: u32 = words.iter().map(|w| w.count_ones()).sum();
                    assert_eq!(count, ones as u64, "{num_words} words");
                    let mut expected = vec![MaybeUninit::new(0xaau8); words.len() * 8];
                    copy_counting_portable(words.iter().copied(), &mut expected, to);
                    // SAFETY: every byte was initialized above.
                    let bytes = |b: &[MaybeUninit<u8>]| -> Vec<u8> {
                        b.iter().map(|b| unsafe { b.assume_init() }).collect()
                    };
                    assert_eq!(bytes(&out), bytes(&expected), "{num_words} words, {to:?}");
                    let le: Vec<u8> = words
                        .iter()
                        .flat_map(|&w| match (w, to) {
                            (0, Out::Zeroed) => [0xaa; 8],
                            _ => w.to_le_bytes(),
                        })
                        .collect();
                    assert_eq!(bytes(&out), le, "{num_words} words, {to:?}");
                }
            }
        }
    }
}
