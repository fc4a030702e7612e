//! The sparse decoder's fast path: Rice codes read from a 64-bit window held in a register,
//! refilled by one load whenever the next code does not fit in what is left of it. The careful
//! reader ([`BitReader`](super::bitstream), two bounds-checked reads per code) then takes over
//! where this stops: the last eight bytes, a code longer than one window, or a position that is
//! not below m, whose error it reports. So the fast path accepts exactly what the careful one
//! accepts, and reports nothing itself.
//!
//! Each code is a dependency on the one before (its start is the previous one's end), so the
//! speed is the length of that chain: here a trailing-zero count, an add and a shift of the
//! register, not a load from memory per code (2.1 against 3.5 ns a code on the per-user filter,
//! 2,000 codes). Decoding four codes per load without a branch between them measured slower,
//! and so did again (2026-11-23, Zen 4) four codes per window checked once, then committed
//! together: 6.0 against 4.4 us a decode of the per-user filter, 5.9 against 4.9 on a ring of
//! distinct ones.

use super::bitstream::low_mask;
use crate::le;

/// Where the fast path stopped: codes decoded, p_{i−1} + 1 after them, bits consumed.
pub(crate) struct Progress {
    pub(crate) codes: u64,
    pub(crate) next: u64,
    pub(crate) bit: u64,
}

/// Sets in `words` the positions of up to `count` Rice-coded gaps (parameter `r` ≤ 63) at the
/// start of `data`, each checked below `num_bits`, as long as each code lies whole in an 8-byte
/// load inside `data` (every code of up to 56 bits is decoded).
pub(crate) fn set_leading_bits(
    data: &[u8],
    count: u64,
    r: u32,
    num_bits: u64,
    words: &mut [u64],
) -> Progress {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi1") && std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI1 (TZCNT) and BMI2 (SHRX, SHLX), checked just above.
        return unsafe { set_leading_bits_bmi2(data, count, r, num_bits, words) };
    }
    set_leading_bits_portable(data, count, r, num_bits, words)
}

/// With TZCNT and the shifts that take their count from any register (a baseline x86-64 build
/// shifts by CL only, one more move on the chain from each code to the next).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
fn set_leading_bits_bmi2(
    data: &[u8],
    count: u64,
    r: u32,
    num_bits: u64,
    words: &mut [u64],
) -> Progress {
    set_leading_bits_portable(data, count, r, num_bits, words)
}

/// Inlined into [`set_leading_bits_bmi2`].
#[inline(always)]
fn set_leading_bits_portable(
    data: &[u8],
    count: u64,
    r: u32,
    num_bits: u64,
    words: &mut [u64],
) -> Progress {
    let mut done = Progress {
        codes: 0,
        next: 0,
        bit: 0,
    };
    let Some(last_load) = data.len().checked_sub(8) else {
        return done;
    };
    let low = low_mask(r);
    let terminator_and_low = r + 1; // a code is its quotient and these bits
    while done.codes < count {
        let byte = (done.bit >> 3) as usize;
        if byte > last_load {
            break;
        }
        let skip = (done.bit & 7) as u32;
        // The bits from `done.bit` on, inverted: a code's quotient is its count of trailing
        // zeros here. The shift brings zeros in at the top, which read as ones of the stream,
        // so a quotient running into them yields a code longer than `valid`: never taken.
        let mut inverted = !le::u64_at(data, byte) >> skip;
        // Bits of the window not yet consumed, all data; at most 63 so that every shift below
        // stays under 64.
        let mut valid = 63 - skip;
        let fresh = valid;
        loop {
            let quotient = inverted.trailing_zeros();
            let len = quotient + terminator_and_low;
            if len > valid {
                break;
            }
            // quotient + 1 ≤ len ≤ 63: the shifts are in range and the gap is below 2^63.
            let gap = (quotient as u64) << r | (!inverted >> (quotient + 1)) & low;
            let position = done.next + gap; // next ≤ m < 2^44: no overflow
            if position >= num_bits {
                return done;
            }
            words[(position >> 6) as usize] |= 1 << (position & 63);
            done.next = position + 1;
            done.bit += len as u64;
            done.codes += 1;
            if done.codes == count {
                return done;
            }
            // The window after this code: shifted by the code's fixed r + 1 bits (which does
            // not wait for the quotient) and then by the quotient, so that the chain from one
            // code to the next is a trailing-zero count and one shift.
            inverted = (inverted >> terminator_and_low) >> quotient;
            valid -= len;
        }
        if valid == fresh {
            // Not even a whole window holds this code: the careful reader's case.
            break;
        }
    }
    done
}
