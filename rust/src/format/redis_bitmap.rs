//! A filter's bits as a Redis bitmap string: what `GET key` returns after `SETBIT key b 1` for
//! every set bit b, so a filter built here can be stored with one `SET` and read back with one
//! `GET` by services that still test bits with `GETBIT`.
//!
//! Redis numbers the bits of a string from the most significant bit of byte 0 (`SETBIT key 0 1`
//! makes the value `\x80`): bit b is byte `b >> 3`, mask `0x80 >> (b & 7)`. The filter keeps bit
//! b at byte `b >> 3`, mask `1 << (b & 7)` of its little-endian words, so the conversion
//! reverses the bits of every byte. An m-bit filter is `ceil(m / 8)` bytes; Redis grows a string
//! on demand, so a shorter string is the same filter with its missing tail bytes zero.

use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use crate::sizing::Shape;
use crate::strategy::Strategy;

/// Services that test bits with `GETBIT` walk a classic strategy's k positions; a BLOCKED
/// filter's positions are ours alone, so its bitmap would answer their queries wrongly.
fn check_strategy(strategy: Strategy) -> Result<()> {
    if strategy.layout().is_blocked() {
        return Err(Error::invalid(
            "strategy",
            format!(
                "{strategy} filters have no Redis bitmap form: Redis clients probe a classic strategy's bits"
            ),
        ));
    }
    Ok(())
}

/// Bytes of the Redis bitmap of an m-bit filter.
pub fn bitmap_len(num_bits: u64) -> u64 {
    num_bits.div_ceil(8)
}

/// The `ceil(m / 8)` bytes of the filter in Redis bit order (a snapshot if other threads put).
pub fn encode(filter: &BloomFilter) -> Result<Vec<u8>> {
    check_strategy(filter.strategy())?;
    let len = bitmap_len(filter.num_bits());
    // Room for whole words: the last one is written whole, then cut to `len`.
    let mut out = super::reserve(filter.num_bits().div_ceil(64) * 8)?;
    for word in filter.words() {
        // reverse_bits then big-endian: byte j of the word, its bits reversed, lands at j.
        out.extend_from_slice(&word.reverse_bits().to_be_bytes());
    }
    out.truncate(len as usize);
    Ok(out)
}

/// The filter of `shape` and `strategy` whose Redis bitmap is `bitmap`. A bitmap shorter than
/// `ceil(m / 8)` bytes is zero-extended; a longer one, or one with a bit set at or above m, is
/// not this shape's and is refused (`bitmap`).
pub fn decode(bitmap: &[u8], shape: Shape, strategy: Strategy) -> Result<BloomFilter> {
    check_strategy(strategy)?;
    let len = bitmap_len(shape.num_bits);
    if bitmap.len() as u64 > len {
        return Err(Error::invalid(
            "bitmap",
            format!(
                "{} bytes is longer than the {len} bytes of a {}-bit filter",
                bitmap.len(),
                shape.num_bits
            ),
        ));
    }
    let num_words = shape.num_bits.div_ceil(64) as usize;
    let mut words = Vec::new();
    words
        .try_reserve_exact(num_words)
        .map_err(|_| Error::allocation("the bit array", num_words as u64 * 8))?;
    for chunk in bitmap.chunks(8) {
        let mut be = [0u8; 8];
        be[..chunk.len()].copy_from_slice(chunk);
        words.push(u64::from_be_bytes(be).reverse_bits());
    }
    words.resize(num_words, 0);
    if let Some(bit) = crate::filter::first_bit_at_or_above(&words, shape.num_bits) {
        return Err(Error::invalid(
            "bitmap",
            format!("bit {bit} is set, at or above numBits {}", shape.num_bits),
        ));
    }
    BloomFilter::from_words_with_shape(words, shape, strategy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::splitmix64;

    fn shape(num_bits: u64) -> Shape {
        Shape {
            num_bits,
            num_hashes: 7,
        }
    }

    /// Redis's SETBIT, written out: byte b >> 3, mask 0x80 >> (b & 7), growing on demand.
    fn setbit(bitmap: &mut Vec<u8>, b: u64) {
        let byte = (b >> 3) as usize;
        if bitmap.len() <= byte {
            bitmap.resize(byte + 1, 0);
        }
        bitmap[byte] |= 0x80 >> (b & 7);
    }

    #[test]
    fn bit_zero_is_the_top_bit_of_byte_zero() {
        let f = BloomFilter::with_shape(shape(20), Strategy::Murmur128Mitz32).unwrap();
        assert_eq!(encode(&f).unwrap(), vec![0, 0, 0]);
        let f = decode(&[0x80], shape(20), Strategy::Murmur128Mitz32).unwrap();
        assert_eq!(f.words().collect::<Vec<_>>(), vec![1]);
        assert_eq!(encode(&f).unwrap(), vec![0x80, 0, 0]);
        let f = decode(&[0, 0, 0x10], shape(20), Strategy::Murmur128Mitz32).unwrap();
        assert_eq!(f.words().collect::<Vec<_>>(), vec![1 << 19]);
    }

    /// Every set bit of a filter is one SETBIT of the same offset, for bit counts around
    /// byte and word edges.
    #[test]
    fn equals_setbit_per_set_bit() {
        let mut state = 3;
        for num_bits in [1, 7, 8, 9, 63, 64, 65, 143_775, 143_808] {
            for strategy in [Strategy::Murmur128Mitz32, Strategy::Murmur128Mitz64] {
                let f = BloomFilter::with_shape(shape(num_bits), strategy).unwrap();
                (0..50).for_each(|_| {
                    f.put(splitmix64(&mut state));
                });
                let mut expected = Vec::new();
                for (w, word) in f.words().enumerate() {
                    (0..64)
                        .filter(|i| word >> i & 1 == 1)
                        .for_each(|i| setbit(&mut expected, w as u64 * 64 + i));
                }
                let bitmap = encode(&f).unwrap();
                assert_eq!(bitmap.len() as u64, bitmap_len(num_bits));
                assert_eq!(&bitmap[..expected.len()], &expected[..]);
                assert!(bitmap[expected.len()..].iter().all(|&b| b == 0));
                // Redis's own, possibly shorter, string decodes to the same filter.
                assert!(decode(&expected, f.shape(), strategy).unwrap() == f);
                assert!(decode(&bitmap, f.shape(), strategy).unwrap() == f);
            }
        }
    }

    #[test]
    fn refuses_other_shapes() {
        let err = decode(&[0; 4], shape(20), Strategy::Murmur128Mitz32)
            .unwrap_err()
            .to_string();
        assert!(err.contains("bitmap") && err.contains("4 bytes"), "{err}");
        // Bit 20 is the 0x08 of byte 2: past the 20 bits 0..=19.
        let err = decode(&[0, 0, 0x08], shape(20), Strategy::Murmur128Mitz32)
            .unwrap_err()
            .to_string();
        assert!(err.contains("bit 20 is set"), "{err}");
        assert!(decode(&[], shape(20), Strategy::Murmur128Mitz32).is_ok());
    }
}
