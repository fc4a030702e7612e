//! Bit-level writing and reading for the sparse payload: bits are packed LSB-first within
//! each byte, so bit i of the stream is bit i & 7 of byte i >> 3 (the dense payload's order).

use crate::le;

/// Appends bits to a byte vector.
pub(crate) struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Pending bits, the oldest in bit 0; fewer than 64 between calls, and whole words leave
    /// eight bytes at a time.
    acc: u64,
    filled: u32,
}

/// Widest single `put` on the fast path.
const MAX_PUT: u32 = 56;

impl<'a> BitWriter<'a> {
    pub(crate) fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            acc: 0,
            filled: 0,
        }
    }

    /// Writes the `count` low bits of `bits`, least significant first; `count` ≤ 64.
    #[inline]
    pub(crate) fn put(&mut self, bits: u64, count: u32) {
        if count > MAX_PUT {
            self.put(bits & low_mask(32), 32);
            self.put(bits >> 32, count - 32);
            return;
        }
        let bits = bits & low_mask(count);
        // filled < 64: the shift is in range; what falls off the top is carried below.
        self.acc |= bits << self.filled;
        if self.filled + count >= 64 {
            self.out.extend_from_slice(&self.acc.to_le_bytes());
            // The 64 − filled low bits of `bits` completed the word; the rest start the next.
            // filled ≥ 64 − count ≥ 8 here, so the shift is below 64.
            self.acc = bits >> (64 - self.filled);
            self.filled = self.filled + count - 64;
        } else {
            self.filled += count;
        }
    }

    /// Writes `count` one-bits.
    /// One Rice code: `gap >> r` one-bits, a zero-bit, the `r` low bits of `gap`. Short codes
    /// (nearly all of them) go in with one `put`.
    pub(crate) fn put_rice(&mut self, gap: u64, r: u32) {
        let quotient = gap >> r;
        if quotient + 1 + r as u64 <= MAX_PUT as u64 {
            let q = quotient as u32;
            self.put(low_mask(q) | (gap & low_mask(r)) << (q + 1), q + 1 + r);
        } else {
            self.put_ones(quotient);
            self.put(0, 1);
            self.put(gap, r);
        }
    }

    pub(crate) fn put_ones(&mut self, mut count: u64) {
        while count > 0 {
            let chunk = count.min(MAX_PUT as u64) as u32;
            self.put(low_mask(chunk), chunk);
            count -= chunk as u64;
        }
    }

    /// Pads the last byte with zero bits.
    pub(crate) fn finish(self) {
        let bytes = self.filled.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.acc.to_le_bytes()[..bytes]);
    }
}

/// Why a read failed; the sparse decoder turns it into a `payload` error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PastEnd;

/// Reads bits from a byte slice; never reads past it.
pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    pos: u64,
    len_bits: u64,
}

impl<'a> BitReader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Self::at(data, 0)
    }

    /// A reader whose first `pos` bits are already consumed.
    pub(crate) fn at(data: &'a [u8], pos: u64) -> Self {
        BitReader {
            data,
            pos,
            len_bits: data.len() as u64 * 8,
        }
    }

    /// Bits consumed so far.
    pub(crate) fn position(&self) -> u64 {
        self.pos
    }

    /// The next 64 bits from the current position, zeros beyond the end of the data.
    /// The bits from `pos` on, LSB first: at least 57 valid bits (zeros past the end).
    #[inline]
    fn peek(&self) -> u64 {
        let first = (self.pos >> 3) as usize;
        let word = if first + 8 <= self.data.len() {
            le::u64_at(self.data, first)
        } else {
            le::u64_padded(self.data.get(first..).unwrap_or(&[]))
        };
        word >> (self.pos & 7)
    }

    /// Number of bits of [`peek`](Self::peek) that are data (or zeros past the end).
    #[inline]
    fn peek_width(&self) -> u32 {
        64 - (self.pos & 7) as u32
    }

    pub(crate) fn read_unary(&mut self) -> Result<u64, PastEnd> {
        let mut ones = 0u64;
        loop {
            if self.pos >= self.len_bits {
                return Err(PastEnd);
            }
            let width = self.peek_width();
            let run = self.peek().trailing_ones();
            if run < width {
                if self.pos + run as u64 >= self.len_bits {
                    return Err(PastEnd);
                }
                self.pos += run as u64 + 1;
                return Ok(ones + run as u64);
            }
            ones += width as u64;
            self.pos += width as u64;
        }
    }

    /// The gap a Rice code of parameter `r` (≤ 63) codes: its unary quotient, then its `r` low
    /// bits (q < 2^64, so the gap fits a u128).
    pub(crate) fn read_rice(&mut self, r: u32) -> Result<u128, PastEnd> {
        let quotient = self.read_unary()?;
        let low = self.read_bits(r)?;
        Ok((quotient as u128) << r | low as u128)
    }

    pub(crate) fn read_bits(&mut self, count: u32) -> Result<u64, PastEnd> {
        if self.pos + count as u64 > self.len_bits {
            return Err(PastEnd);
        }
        let bits = if count <= 56 {
            self.peek() & low_mask(count)
        } else {
            let low = self.peek() & low_mask(32);
            self.pos += 32;
            let high = self.peek() & low_mask(count - 32);
            self.pos -= 32;
            low | high << 32
        };
        self.pos += count as u64;
        Ok(bits)
    }
}

pub(crate) fn low_mask(count: u32) -> u64 {
    if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_lsb_first_and_reads_back() {
        let mut out = Vec::new();
        let mut w = BitWriter::new(&mut out);
        w.put(0b1, 1);
        w.put_ones(3);
        w.put(0, 1);
        w.put(0x1234_5678_9abc_def0, 63);
        w.put_ones(130);
        w.put(0, 1);
        w.finish();
        assert_eq!(out[0] & 0x1f, 0b01111);
        let mut r = BitReader::new(&out);
        assert_eq!(r.read_unary(), Ok(4));
        assert_eq!(r.read_bits(63), Ok(0x1234_5678_9abc_def0));
        assert_eq!(r.read_unary(), Ok(130));
        assert_eq!(r.position(), 5 + 63 + 131);
        // 199 bits in 25 bytes: one zero bit of padding, then the end.
        assert_eq!(out.len(), 25);
        assert_eq!(r.read_bits(1), Ok(0));
        assert_eq!(r.read_bits(1), Err(PastEnd));
    }

    #[test]
    fn packs_exactly_as_bit_by_bit() {
        // Seeded puts of every width 0..=64, against a writer that sets one bit at a time.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || crate::testutil::splitmix64(&mut seed);
        let mut out = Vec::new();
        let mut expected = Vec::new();
        let mut bit = 0usize;
        let mut w = BitWriter::new(&mut out);
        for _ in 0..5_000 {
            let count = (next() % 65) as u32;
            let bits = next();
            w.put(bits, count);
            for j in 0..count {
                if bit / 8 == expected.len() {
                    expected.push(0u8);
                }
                expected[bit / 8] |= ((bits >> j & 1) as u8) << (bit % 8);
                bit += 1;
            }
        }
        w.finish();
        assert_eq!(out, expected);
    }

    #[test]
    fn a_run_of_ones_to_the_end_is_past_the_end() {
        let ones = [0xffu8; 20];
        assert_eq!(BitReader::new(&ones).read_unary(), Err(PastEnd));
        assert_eq!(BitReader::new(&[]).read_unary(), Err(PastEnd));
        assert_eq!(BitReader::new(&[0xff]).read_unary(), Err(PastEnd));
        assert_eq!(BitReader::new(&[0x7f]).read_unary(), Ok(7));
        let mut r = BitReader::new(&[0xff, 0x7f]);
        assert_eq!(r.read_unary(), Ok(15));
        assert_eq!(r.read_unary(), Err(PastEnd));
    }
}
