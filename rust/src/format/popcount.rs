//! The dense payload's copy and its number of set bits, in one pass over the filter's words:
//! the count is the first step of choosing sparse or dense. Built for a baseline x86-64 CPU,
//! `count_ones` is a dozen SSE2 instructions per word, which was most of the time of encoding
//! a full filter; the POPCNT instruction (every x86-64 CPU since 2008) is one, so it is used
//! when the CPU has it.

use crate::filter::BloomFilter;
use std::mem::MaybeUninit;

/// [`copy_counting`] of a filter's words. With AVX-512 VPOPCNTDQ eight words a step, a load,
/// a store and a count each; each
/// 8-byte lane of the load is an aligned 8-byte access, which x86 performs atomically, so like
/// the iterator's `Relaxed` loads it takes one snapshot of each word, never a torn one.
pub(crate) fn copy_counting_filter(
    filter: &BloomFilter,
    out: &mut [MaybeUninit<u8>],
    to: Out,
) -> u64 {
    let words = filter.words();
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::cpu().avx512_popcnt {
        assert_eq!(out.len(), words.len() * 8, "8 bytes per word");
        // SAFETY: the CPU has AVX-512 F and VPOPCNTDQ; the filter's `words.len()` words start
        // at `words_ptr`, 8-byte aligned, and `out` holds 8 bytes for each (asserted).
        return unsafe { copy_counting_avx512(filter.words_ptr(), words.len(), out, to) };
    }
    copy_counting(words, out, to)
}

/// What the copy's destination holds before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Out {
    /// Anything: every word is written.
    Any,
    /// Zeros: zero words are skipped, so the pages under a filter's empty stretches (of a fresh
    /// allocation) are never touched and take no memory.
    Zeroed,
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

/// Writes each of `words` little-endian into `out` (exactly 8 bytes per word; zero words
/// skipped if `out` is [`Out::Zeroed`]) and returns the number of set bits among them.
pub(crate) fn copy_counting(
    words: impl ExactSizeIterator<Item = u64>,
    out: &mut [MaybeUninit<u8>],
    to: Out,
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::cpu().popcnt {
        // SAFETY: the CPU has POPCNT, checked just above.
        return unsafe { copy_counting_popcnt(words, out, to) };
    }
    copy_counting_portable(words, out, to)
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
    assert_eq!(out.len(), words.len() * 8, "8 bytes per word");
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

    #[test]
    fn copies_little_endian_and_counts_the_bits() {
        let mut out = [MaybeUninit::new(0xaau8); 24];
        let words = [0b1011u64, 0x8000_0000_0000_00ff, 0];
        assert_eq!(copy_counting(words.into_iter(), &mut out, Out::Any), 3 + 9);
        assert_eq!(
            copy_counting_portable(words.into_iter(), &mut out, Out::Any),
            12
        );
        // SAFETY: all 24 bytes were written above (and initialized before).
        let bytes: Vec<u8> = out.iter().map(|b| unsafe { b.assume_init() }).collect();
        assert_eq!(&bytes[..9], &[0b1011, 0, 0, 0, 0, 0, 0, 0, 0xff]);
        assert_eq!(bytes[15], 0x80);
        assert_eq!(&bytes[16..], &[0; 8]);
        assert_eq!(copy_counting([].into_iter(), &mut [], Out::Any), 0);
        // Into zeros, the zero word is not written: its bytes keep what they held.
        let mut out = [MaybeUninit::new(0xaau8); 24];
        assert_eq!(copy_counting(words.into_iter(), &mut out, Out::Zeroed), 12);
        assert_eq!(
            copy_counting_portable(words.into_iter(), &mut out, Out::Zeroed),
            12
        );
        // SAFETY: initialized above.
        let bytes: Vec<u8> = out.iter().map(|b| unsafe { b.assume_init() }).collect();
        assert_eq!(&bytes[..9], &[0b1011, 0, 0, 0, 0, 0, 0, 0, 0xff]);
        assert_eq!(&bytes[16..], &[0xaa; 8]);
    }

    #[test]
    fn a_filter_copies_as_its_words_do() {
        // Seeded words, 0 to 40 of them (every remainder of a vector of eight), densities from
        // empty to full: the filter's copy (vector where the CPU has it) against the words'.
        use crate::sizing::Shape;
        use crate::strategy::Strategy;
        let mut seed = 0x000c_09e5_u64;
        let mut random = || crate::testutil::splitmix64(&mut seed);
        for num_words in 0..=40u64 {
            for mask_shift in [64, 7, 0] {
                let words: Vec<u64> = (0..num_words)
                    .map(|_| random() & random() & u64::MAX.checked_shr(mask_shift).unwrap_or(0))
                    .collect();
                let shape = Shape {
                    num_bits: num_words * 64,
                    num_hashes: 3,
                };
                let Ok(filter) = BloomFilter::from_words_with_shape(
                    words.clone(),
                    shape,
                    Strategy::Murmur128Mitz64,
                ) else {
                    continue; // a shape the filter refuses (no bits)
                };
                for to in [Out::Any, Out::Zeroed] {
                    let mut out = vec![MaybeUninit::new(0xaau8); words.len() * 8];
                    let mut expected = out.clone();
                    assert_eq!(
                        copy_counting_filter(&filter, &mut out, to),
                        copy_counting(words.iter().copied(), &mut expected, to),
                        "{num_words} words"
                    );
                    // SAFETY: every byte was initialized above.
                    let bytes = |b: &[MaybeUninit<u8>]| -> Vec<u8> {
                        b.iter().map(|b| unsafe { b.assume_init() }).collect()
                    };
                    assert_eq!(bytes(&out), bytes(&expected), "{num_words} words, {to:?}");
                }
            }
        }
    }
}
