//! The sparse decoder's fast path: Rice codes read from a 64-bit window held in a register,
//! refilled by one load whenever the next code does not fit in what is left of it. The careful
//! reader ([`BitReader`](super::bitstream), two bounds-checked reads per code) then takes over
//! where this stops: the last eight bytes, a code longer than one window, or a position that is
//! not below m, whose error it reports. So the fast path accepts exactly what the careful one
//! accepts, and reports nothing itself.
//!
//! Each code is a dependency on the one before (its start is the previous one's end), so the
//! speed is the length of that chain: here a trailing-zero count, an add and a shift of the
//! register, not a load from memory per code. Beyond the chain the loop is bound by its count
//! of ALU operations and by the window's exit branch (mispredicted about once a window), so it
//! keeps as little per code as it can: codes left counted down (no separate compare against
//! the count), the bits consumed worked out once a window from what is left of it, the
//! position's word indexed unchecked (positions are checked below min(m, 64 × words), so the
//! bounds check is that same compare), the code's low bits taken with one ANDN.

use super::bitstream::low_mask;
use crate::kernels::{self, Portable};
use crate::le;

/// Where the fast path stopped: codes decoded, p_{i−1} + 1 after them, bits consumed.
pub(crate) struct Progress {
    pub(crate) codes: u64,
    pub(crate) next: u64,
    pub(crate) bit: u64,
}

/// Sets in `words` the positions of up to `count` Rice-coded gaps (parameter `r` ≤ 63) at the
/// start of `data`, each checked below `num_bits`, as long as each code lies whole in an 8-byte
/// load inside `data` (every code of up to 56 bits is decoded). With TZCNT and the shifts that
/// take their count from any register where the CPU has them (`kernels::with_bmi`: a baseline
/// x86-64 build shifts by CL only, one more move on the chain from each code to the next).
pub(crate) fn set_leading_bits(
    data: &[u8],
    count: u64,
    r: u32,
    num_bits: u64,
    words: &mut [u64],
) -> Progress {
    kernels::with_bmi(LeadingCodes {
        data,
        count,
        r,
        num_bits,
        words,
    })
}

/// [`set_leading_bits`]' arguments; its loop is their [`run`](Portable::run).
struct LeadingCodes<'a> {
    data: &'a [u8],
    count: u64,
    r: u32,
    num_bits: u64,
    words: &'a mut [u64],
}

impl Portable for LeadingCodes<'_> {
    type Output = Progress;

    #[inline(always)]
    fn run(self) -> Progress {
        let LeadingCodes {
            data,
            count,
            r,
            num_bits,
            words,
        } = self;
        let Some(last_load) = data.len().checked_sub(8) else {
            return Progress {
                codes: 0,
                next: 0,
                bit: 0,
            };
        };
        // Positions below `limit` index `words`: the caller's m, or fewer if `words` were short.
        let limit = num_bits.min((words.len() as u64).saturating_mul(64));
        let low = low_mask(r);
        let terminator_and_low = r + 1; // a code is its quotient and these bits
        let mut left = count; // codes still to decode
        let mut next = 0; // p_{i−1} + 1
        let mut bit = 0; // bits consumed before the current window
        'windows: while left > 0 {
            let byte = (bit >> 3) as usize;
            if byte > last_load {
                break;
            }
            let skip = (bit & 7) as u32;
            // The bits from `bit` on, inverted: a code's quotient is its count of trailing zeros
            // here. The shift brings zeros in at the top, which read as ones of the stream, so a
            // quotient running into them yields a code longer than `valid`: never taken.
            let mut inverted = !le::u64_at(data, byte) >> skip;
            // Bits of the window not yet consumed, all data; at most 63 so that every shift below
            // stays under 64.
            let fresh = 63 - skip;
            let mut valid = fresh;
            loop {
                let quotient = inverted.trailing_zeros();
                let len = quotient + terminator_and_low;
                if len > valid {
                    break;
                }
                // quotient + 1 ≤ len ≤ 63: the shifts are in range and the gap is below 2^63.
                let gap = (quotient as u64) << r | !(inverted >> (quotient + 1)) & low;
                let position = next + gap; // next ≤ m < 2^44: no overflow
                if position >= limit {
                    bit += (fresh - valid) as u64;
                    break 'windows;
                }
                // SAFETY: position < limit ≤ 64 · words.len(), so the index is in bounds.
                unsafe {
                    *words.get_unchecked_mut((position >> 6) as usize) |= 1 << (position & 63)
                };
                next += gap + 1;
                valid -= len;
                left -= 1;
                if left == 0 {
                    break;
                }
                // The window after this code: shifted by the code's fixed r + 1 bits (which does
                // not wait for the quotient) and then by the quotient, so that the chain from one
                // code to the next is a trailing-zero count and one shift.
                inverted = (inverted >> terminator_and_low) >> quotient;
            }
            bit += (fresh - valid) as u64;
            if valid == fresh {
                // Not even a whole window holds this code: the careful reader's case.
                break;
            }
        }
        Progress {
            codes: count - left,
            next,
            bit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::bitstream::BitWriter;
    use super::*;

    #[test]
    fn stops_before_a_position_past_the_words_it_was_given() {
        // Not reachable from the decoder (its words always cover m), but the unchecked store
        // must stay inside `words` whatever m says: positions 3, 70 and 200 against one word.
        let r = 4;
        let mut data = Vec::new();
        let mut writer = BitWriter::new(&mut data);
        let mut next = 0;
        for position in [3u64, 70, 200] {
            writer.put_rice(position - next, r);
            next = position + 1;
        }
        writer.finish();
        data.resize(data.len() + 8, 0);
        let mut one_word = [0u64; 1];
        let done = set_leading_bits(&data, 3, r, 1_000, &mut one_word);
        assert_eq!((done.codes, done.next, done.bit), (1, 4, 5));
        assert_eq!(one_word, [1 << 3]);
        let mut all_words = [0u64; 4];
        let done = set_leading_bits(&data, 3, r, 1_000, &mut all_words);
        assert_eq!((done.codes, done.next), (3, 201));
        assert_eq!(all_words, [1 << 3, 1 << 6, 0, 1 << 8]);
    }
}
