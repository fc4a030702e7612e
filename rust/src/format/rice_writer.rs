//! The sparse encoder's writer: Rice codes packed LSB-first (the order of
//! [`BitReader`](super::bitstream::BitReader)) into a buffer sized in advance, with one
//! unaligned 8-byte store per code and no branch on when a word fills: the pending bits are
//! stored whole every time, and the cursor advances by the bytes they completed.

use super::bitstream::low_mask;

/// Widest single [`put`](Pending::put): with fewer than 8 bits pending, the pending bits
/// and a put fit in one u64.
const MAX_PUT: u32 = 56;

/// Bytes past the last code the buffer must hold: the tail of the last 8-byte store.
pub(crate) const SLACK: usize = 8;

pub(crate) struct RiceWriter<'a> {
    out: &'a mut [u8],
    pending: Pending,
}

/// The writer's position: kept in a local while a run of codes is written, so that it lives
/// in registers, not behind the writer's `&mut` (through memory, it was a store-to-load
/// forwarding on the chain from each code to the next: about 10 cycles a code).
#[derive(Clone, Copy)]
struct Pending {
    /// The byte the pending bits start at.
    at: usize,
    /// Pending bits, the oldest in bit 0: fewer than 8 between calls.
    acc: u64,
    filled: u32,
}

impl Pending {
    /// Writes the `count` low bits of `bits`; `count` ≤ [`MAX_PUT`], higher bits of `bits`
    /// zero. Stores all the pending bits at `at` and moves on by the bytes they complete.
    #[inline(always)]
    fn put(&mut self, out: &mut [u8], bits: u64, count: u32) {
        debug_assert!(count <= MAX_PUT && bits & !low_mask(count) == 0);
        // filled ≤ 7 and count ≤ 56: nothing falls off the top.
        self.acc |= bits << self.filled;
        self.filled += count;
        out[self.at..self.at + 8].copy_from_slice(&self.acc.to_le_bytes());
        let whole = self.filled >> 3; // ≤ 7: the shift below stays under 64
        self.at += whole as usize;
        self.acc >>= whole * 8;
        self.filled &= 7;
    }
}

/// The Rice code of `gap` and its length, if that is at most [`MAX_PUT`]; else a length above
/// it (at most 57 + r) and a meaningless code.
#[inline(always)]
fn short_code(gap: u64, r: u32) -> (u64, u32) {
    let quotient = (gap >> r).min(MAX_PUT as u64) as u32; // ≤ 56: the shifts are in range
    // (low·2 + 1)·2^q − 1: the low bits above a zero-bit above q one-bits.
    let low = gap & low_mask(r);
    let code = ((low << 1 | 1) << quotient).wrapping_sub(1);
    (code, quotient + 1 + r)
}

impl<'a> RiceWriter<'a> {
    /// A writer into `out`, which must hold the codes' bytes plus [`SLACK`] (a put that does
    /// not fit panics, as a slice index does: a sizing bug, never a property of the data).
    pub(crate) fn new(out: &'a mut [u8]) -> Self {
        RiceWriter {
            out,
            pending: Pending {
                at: 0,
                acc: 0,
                filled: 0,
            },
        }
    }

    /// The Rice codes (parameter `r`) of `gaps`, in order. A code is `gap >> r` one-bits, a
    /// zero-bit, the `r` low bits of `gap`. Four codes of 56 bits or fewer in all (all but
    /// long gaps or a large r) are joined first and go in with one store, so that the chain
    /// from one store's position to the next is paid once per four codes.
    pub(crate) fn put_rice(&mut self, gaps: &[u64], r: u32) {
        let mut pending = self.pending;
        let mut quads = gaps.chunks_exact(4);
        for quad in &mut quads {
            let [a, b, c, d] = [quad[0], quad[1], quad[2], quad[3]].map(|gap| short_code(gap, r));
            // Each length ≤ 57 + 63 when short_code saturates: the sum cannot wrap.
            let (ab, cd) = (a.1 + b.1, c.1 + d.1);
            if ab + cd <= MAX_PUT {
                // Every length is below 56: the shifts are in range.
                let joined = a.0 | b.0 << a.1 | (c.0 | d.0 << c.1) << ab;
                pending.put(self.out, joined, ab + cd);
            } else {
                self.pending = pending;
                quad.iter().for_each(|&gap| self.put_one(gap, r));
                pending = self.pending;
            }
        }
        self.pending = pending;
        quads
            .remainder()
            .iter()
            .for_each(|&gap| self.put_one(gap, r));
    }

    fn put_one(&mut self, gap: u64, r: u32) {
        let (code, len) = short_code(gap, r);
        if len <= MAX_PUT {
            self.pending.put(self.out, code, len);
        } else {
            self.put_long_rice(gap >> r, gap & low_mask(r), r);
        }
    }

    #[cold]
    fn put_long_rice(&mut self, mut quotient: u64, low: u64, r: u32) {
        let out = &mut *self.out;
        let pending = &mut self.pending;
        while quotient > 0 {
            let chunk = quotient.min(MAX_PUT as u64) as u32;
            pending.put(out, low_mask(chunk), chunk);
            quotient -= chunk as u64;
        }
        pending.put(out, 0, 1);
        if r > 32 {
            pending.put(out, low & low_mask(32), 32);
            pending.put(out, low >> 32, r - 32);
        } else {
            pending.put(out, low, r);
        }
    }

    /// Bytes written, the last one zero-padded.
    pub(crate) fn finish(self) -> usize {
        self.pending.at + self.pending.filled.div_ceil(8) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::super::bitstream::BitWriter;
    use super::*;

    /// The Rice codes of `gaps` as the Vec-appending BitWriter (itself tested bit by bit)
    /// writes them.
    fn appended(gaps: &[u64], r: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut reference = BitWriter::new(&mut bytes);
        gaps.iter().for_each(|&g| reference.put_rice(g, r));
        reference.finish();
        bytes
    }

    #[test]
    fn writes_what_the_appending_writer_writes() {
        // Seeded Rice codes of every parameter, short and long, against the Vec-appending
        // BitWriter (itself tested bit by bit).
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || crate::testutil::splitmix64(&mut seed);
        for r in 0..=63 {
            let gaps: Vec<u64> = (0..300)
                .map(|i| {
                    let g = next();
                    match i % 3 {
                        0 => g >> (64 - r.max(1)),       // short codes
                        1 => g >> 60.min(64 - r.max(1)), // quotients of up to 15
                        _ => g >> (next() % 64),         // any length, some over 56 bits
                    }
                })
                .filter(|&g| g >> r < 1 << 20)
                .collect();
            let expected = appended(&gaps, r);
            let mut out = vec![0u8; expected.len() + SLACK];
            let mut writer = RiceWriter::new(&mut out);
            // In two runs, so that the position carries from one to the next.
            let (first, rest) = gaps.split_at(gaps.len() / 3);
            writer.put_rice(first, r);
            writer.put_rice(rest, r);
            let len = writer.finish();
            assert_eq!(&out[..len], &expected[..], "r = {r}");
        }
    }

    #[test]
    fn runs_of_short_codes_write_what_the_appending_writer_writes() {
        // Seeded gaps of a sparse filter's kind (quotients below 8, so that codes join in fours
        // for small r) with a long one now and then, for every r, at every offset into the
        // runs of four: against the Vec-appending BitWriter.
        let mut seed = 0x5eed_0fc0_de00_u64;
        let mut next = || crate::testutil::splitmix64(&mut seed);
        for r in 0..=63u32 {
            let gaps: Vec<u64> = (0..400)
                .map(|i| {
                    let g = next();
                    if i % 37 == 36 {
                        g >> (next() % 64) // any length, some over 56 bits
                    } else {
                        g >> (64 - (r + 3).min(64))
                    }
                })
                .filter(|&g| g >> r < 1 << 20)
                .collect();
            let expected = appended(&gaps, r);
            for first in 0..4 {
                let mut out = vec![0u8; expected.len() + SLACK];
                let mut writer = RiceWriter::new(&mut out);
                for run in [&gaps[..first], &gaps[first..]] {
                    writer.put_rice(run, r);
                }
                let len = writer.finish();
                assert_eq!(&out[..len], &expected[..], "r = {r}, first run {first}");
            }
        }
    }
}
