//! The sparse decoder's fast path: Rice codes read one 64-bit load each, while every code lies
//! whole inside eight bytes of the data. The careful reader ([`BitReader`](super::bitstream),
//! two bounds-checked reads per code) then takes over where this stops: the last eight bytes,
//! a code longer than 57 bits, or a position that is not below m, whose error it reports. So
//! the fast path accepts exactly what the careful one accepts, and reports nothing itself.

use super::bitstream::low_mask;
use crate::le;

/// Where the fast path stopped: codes decoded, p_{i−1} + 1 after them, bits consumed.
pub(crate) struct Progress {
    pub(crate) codes: u64,
    pub(crate) next: u64,
    pub(crate) bit: u64,
}

/// Sets in `words` the positions of up to `count` Rice-coded gaps (parameter `r` ≤ 63) at the
/// start of `data`, each checked below `num_bits`, as long as each code lies whole in the 57
/// or more bits of one 8-byte load inside `data`.
pub(crate) fn set_leading_bits(
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
    while done.codes < count {
        let byte = (done.bit >> 3) as usize;
        if byte > last_load {
            break;
        }
        // All 64 bits are data; after the shift at least 57 of them are this code's and on.
        let window = le::u64_at(data, byte) >> (done.bit & 7);
        let quotient = window.trailing_ones();
        let len = quotient + 1 + r;
        if len > 57 {
            break;
        }
        // quotient + 1 + r ≤ 57: the shifts stay below 64 and the gap below 2^57.
        let gap = (quotient as u64) << r | (window >> (quotient + 1)) & low;
        let position = done.next + gap; // next ≤ m < 2^44: no overflow
        if position >= num_bits {
            break;
        }
        words[(position >> 6) as usize] |= 1 << (position & 63);
        done.next = position + 1;
        done.bit += len as u64;
        done.codes += 1;
    }
    done
}
