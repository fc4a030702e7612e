//! The gaps between the set bits of a dense payload (g_i = p_i − p_{i−1} − 1, p_{−1} = −1),
//! what the sparse encoder sizes and codes: the positions of each word's set bits, then the
//! gaps from them in a second pass. With AVX-512 (F, BW, VPOPCNTDQ, VBMI2, BITALG) eight words
//! at a time (`avx512/set_bits.rs`); otherwise by `trailing_zeros`, the first few of a sparse
//! word without a branch on how many it has.

use std::ops::Range;

/// Room beyond the set bits that lets [`gaps`] take every group of words the vector way (it
/// stores whole vectors); without it the last few groups go the scalar way.
pub(crate) const SPARE: usize = 32;
#[cfg(target_arch = "x86_64")]
const _: () = assert!(SPARE >= super::avx512::set_bits::GROUP_MAX);

/// Writes into `gaps` the gaps of the set bits of `words` (indices of 64-bit words of `dense`),
/// in order, the first measured from `*next` (p_{i−1} + 1, updated); returns how many. `gaps`
/// must hold the words' set bits (64 · words always suffices).
pub(crate) fn gaps(dense: &[u8], words: Range<usize>, next: &mut u64, gaps: &mut [u64]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512_bits {
            // SAFETY: the CPU has what the vector path needs (which includes BMI1 and POPCNT).
            return unsafe { gaps_avx512(dense, words, next, gaps) };
        }
        if cpu.bmi && cpu.popcnt {
            // SAFETY: the CPU has BMI1 (TZCNT, BLSR) and POPCNT, checked just above.
            return unsafe { gaps_bmi1(dense, words, next, gaps) };
        }
    }
    gaps_portable(dense, words, next, gaps)
}

/// Word `i` of a dense payload.
#[inline(always)]
fn word(dense: &[u8], i: usize) -> u64 {
    crate::le::u64_at(dense, i * 8)
}

/// Eight words at a time while `gaps` has room for a group, then the scalar way.
#[cfg(target_arch = "x86_64")]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vbmi2,avx512bitalg,avx512vpopcntdq,bmi1,bmi2,popcnt"
)]
fn gaps_avx512(dense: &[u8], words: Range<usize>, next: &mut u64, gaps: &mut [u64]) -> usize {
    use super::avx512::set_bits as avx512;
    let end = words.end;
    let (mut len, rest) = avx512::positions(dense, words, gaps, push_positions);
    for i in rest..end {
        len = push_positions(word(dense, i), i as u64 * 64, gaps, len);
    }
    avx512::to_gaps(&mut gaps[..len], next);
    len
}

/// With POPCNT too: without it each word's `count_ones` was a dozen SSE2 instructions, most of
/// the time of taking the gaps of the per-user filter.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,popcnt")]
fn gaps_bmi1(dense: &[u8], words: Range<usize>, next: &mut u64, gaps: &mut [u64]) -> usize {
    gaps_portable(dense, words, next, gaps)
}

/// Words with at most this many set bits store their positions without a branch on how many.
const UNROLLED: usize = 4;

/// Inlined into [`gaps_bmi1`], where it compiles to TZCNT, BLSR and POPCNT.
#[inline(always)]
fn gaps_portable(dense: &[u8], words: Range<usize>, next: &mut u64, gaps: &mut [u64]) -> usize {
    let mut len = 0;
    for i in words {
        len = push_positions(word(dense, i), i as u64 * 64, gaps, len);
    }
    to_gaps(&mut gaps[..len], next);
    len
}

/// Writes the positions of `word`'s set bits (base + index) at `out[len..]`, which holds them;
/// returns the new length. A word of a lightly filled filter holds 0, 1 or 2 set bits at random
/// (the per-user filter: ~2,000 bits in 2,247 words), so a loop that stops after each word's
/// last bit mispredicts about once a word when every filter is new (a job encoding 10,000 of
/// them; a benchmark that encodes one filter again and again lets the predictor learn its
/// words): such a word's first [`UNROLLED`] positions are stored unconditionally (the ones past
/// its bits are overwritten by the next word's), and the positions become gaps in a second,
/// branch-free pass.
#[inline(always)]
fn push_positions(mut word: u64, base: u64, out: &mut [u64], mut len: usize) -> usize {
    let ones = word.count_ones() as usize;
    if ones <= UNROLLED && len + UNROLLED <= out.len() {
        for k in 0..UNROLLED {
            // an exhausted word stores base + 64: past `len`, overwritten or ignored
            out[len + k] = base + word.trailing_zeros() as u64;
            word &= word.wrapping_sub(1);
        }
        len + ones
    } else {
        while word != 0 {
            out[len] = base + word.trailing_zeros() as u64;
            len += 1;
            word &= word - 1;
        }
        len
    }
}

/// Turns increasing positions into gaps, the first from `*next` (p_{i−1} + 1, updated).
#[inline(always)]
fn to_gaps(positions: &mut [u64], next: &mut u64) {
    let mut end = *next;
    for gap in positions {
        let position = *gap;
        *gap = position - end;
        end = position + 1;
    }
    *next = end;
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

    #[test]
    fn every_path_gives_the_same_gaps() {
        // Seeded words of 0 to 64 set bits (densities from one bit in 200 to nearly all), in
        // buffers with room to spare and exactly none, split in two runs carrying `next`: the
        // vector path (where the CPU has it), the unrolled one and the plain loop agree.
        let mut seed = 0x0dd5_eed5_u64;
        let mut random = || crate::testutil::splitmix64(&mut seed);
        for one_in in [1u64, 2, 7, 30, 64, 200] {
            let words: Vec<u64> = (0..700)
                .map(|_| (0..64).fold(0u64, |w, b| w | ((random() % one_in == 0) as u64) << b))
                .collect();
            let dense: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let count = words.iter().map(|w| w.count_ones() as usize).sum::<usize>();
            let split = (random() % 700) as usize;
            let run = |f: fn(&[u8], Range<usize>, &mut u64, &mut [u64]) -> usize, spare| {
                let mut out = vec![u64::MAX; count + spare];
                let mut next = 0;
                let first = f(&dense, 0..split, &mut next, &mut out);
                let second = f(&dense, split..700, &mut next, &mut out[first..]);
                out.truncate(first + second);
                (out, next)
            };
            let expected = run(gaps_portable, 64 * 700 - count);
            assert_eq!(expected.0.len(), count);
            for spare in [0, 5, SPARE, 64] {
                assert_eq!(
                    run(gaps, spare),
                    expected,
                    "one bit in {one_in}, spare {spare}"
                );
            }
        }
    }

    #[test]
    fn groups_at_the_limits_of_the_vector_paths_give_the_plain_gaps() {
        // Groups of eight words whose nonzero bytes hold one bit each, 0, 1, 8, 9, 16 and 17 of
        // them (the byte-wise path takes up to 16), one with a byte of two bits, one with a
        // word of five (the word-wise path takes up to four a word): all paths agree.
        let mut seed = 0x000b_17e5_u64;
        let mut random = || crate::testutil::splitmix64(&mut seed);
        let mut words = Vec::new();
        for single_bit_bytes in [0usize, 1, 8, 9, 16, 17, 64] {
            let mut group = [0u8; 64];
            let mut byte_order: Vec<usize> = (0..64).collect();
            for i in (1..64).rev() {
                byte_order.swap(i, (random() % (i as u64 + 1)) as usize);
            }
            for &byte in &byte_order[..single_bit_bytes] {
                group[byte] = 1 << (random() % 8);
            }
            words.extend(
                group
                    .chunks(8)
                    .map(|w| u64::from_le_bytes(w.try_into().unwrap())),
            );
        }
        words.extend([0b11u64 << 9, 0, 0, 1 << 63, 0, 0, 0, 1]); // a byte of two bits
        words.extend([0b1_0101_0101u64, 0, 0, 0, 0, 0, 0, 1 << 40]); // a word of five
        let dense: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let count: usize = words.iter().map(|w| w.count_ones() as usize).sum();
        for spare in [0, SPARE] {
            let run = |f: fn(&[u8], Range<usize>, &mut u64, &mut [u64]) -> usize| {
                let mut out = vec![u64::MAX; count + spare];
                let mut next = 0;
                let len = f(&dense, 0..words.len(), &mut next, &mut out);
                out.truncate(len);
                (out, next)
            };
            assert_eq!(run(gaps), run(gaps_portable), "spare {spare}");
        }
    }

    #[test]
    fn sparse_words_give_the_gaps_a_bit_loop_gives() {
        // Seeded words of 0 to 6 set bits (both paths), with room to spare and exactly none.
        let mut seed = 0x5eed_u64;
        let mut next_random = || crate::testutil::splitmix64(&mut seed);
        let words: Vec<u64> = (0..500)
            .map(|_| (0..next_random() % 7).fold(0u64, |w, _| w | 1 << (next_random() % 64)))
            .collect();
        let dense: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut expected = Vec::new();
        let mut end = 0;
        for b in 0..words.len() as u64 * 64 {
            if words[(b / 64) as usize] >> (b % 64) & 1 == 1 {
                expected.push(b - end);
                end = b + 1;
            }
        }
        for spare in [0, 3, 64] {
            let mut out = vec![u64::MAX; expected.len() + spare];
            let mut next = 0;
            assert_eq!(
                gaps(&dense, 0..words.len(), &mut next, &mut out),
                expected.len()
            );
            assert_eq!(&out[..expected.len()], &expected[..], "spare {spare}");
            assert_eq!(next, end);
        }
    }
}
