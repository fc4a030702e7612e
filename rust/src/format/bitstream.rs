//! Bit-level writing and reading for the sparse payload: bits are packed LSB-first within
//! each byte, so bit i of the stream is bit i & 7 of byte i >> 3 (the dense payload's order).

/// Appends bits to a byte vector.
pub(crate) struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Pending bits, the oldest in bit 0; fewer than 8 between calls.
    acc: u64,
    filled: u32,
}

/// Widest single `put`: with at most 7 pending bits the accumulator never overflows.
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
    pub(crate) fn put(&mut self, bits: u64, count: u32) {
        if count > MAX_PUT {
            self.put(bits & low_mask(32), 32);
            self.put(bits >> 32, count - 32);
            return;
        }
        self.acc |= (bits & low_mask(count)) << self.filled;
        self.filled += count;
        while self.filled >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.filled -= 8;
        }
    }

    /// Writes `count` one-bits.
    pub(crate) fn put_ones(&mut self, mut count: u64) {
        while count > 0 {
            let chunk = count.min(MAX_PUT as u64) as u32;
            self.put(low_mask(chunk), chunk);
            count -= chunk as u64;
        }
    }

    /// Pads the last byte with zero bits.
    pub(crate) fn finish(self) {
        if self.filled > 0 {
            self.out.push(self.acc as u8);
        }
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
        BitReader {
            data,
            pos: 0,
            len_bits: data.len() as u64 * 8,
        }
    }

    /// Bits consumed so far.
    pub(crate) fn position(&self) -> u64 {
        self.pos
    }

    /// The next 64 bits from the current position, zeros beyond the end of the data.
    fn peek64(&self) -> u64 {
        let first = (self.pos >> 3) as usize;
        let mut window = [0u8; 16];
        if let Some(rest) = self.data.get(first..) {
            let n = rest.len().min(9);
            window[..n].copy_from_slice(&rest[..n]);
        }
        (u128::from_le_bytes(window) >> (self.pos & 7)) as u64
    }

    /// A unary number: the count of one-bits before the next zero-bit, which it consumes.
    /// Each round consumes 64 bits or stops, so the loop is bounded by the data length.
    pub(crate) fn read_unary(&mut self) -> Result<u64, PastEnd> {
        let mut ones = 0u64;
        loop {
            if self.pos >= self.len_bits {
                return Err(PastEnd);
            }
            let run = self.peek64().trailing_ones() as u64;
            if run < 64 {
                // The zero that ends the run must be real data, not the zeros past the end.
                if self.pos + run >= self.len_bits {
                    return Err(PastEnd);
                }
                self.pos += run + 1;
                return Ok(ones + run);
            }
            ones += 64;
            self.pos += 64;
        }
    }

    /// The next `count` bits (≤ 63) as a number, least significant first.
    pub(crate) fn read_bits(&mut self, count: u32) -> Result<u64, PastEnd> {
        if self.pos + count as u64 > self.len_bits {
            return Err(PastEnd);
        }
        let bits = self.peek64() & low_mask(count);
        self.pos += count as u64;
        Ok(bits)
    }
}

/// The `count` low bits set; `count` ≤ 64.
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
