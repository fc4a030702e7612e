//! A filter's bits as a Redis bitmap string: what `GET key` returns after `SETBIT key b 1` for
//! every set bit b, so a filter built here can be stored with one `SET` and read back with one
//! `GET` by services that still test bits with `GETBIT`.
//!
//! Redis numbers the bits of a string from the most significant bit of byte 0 (`SETBIT key 0 1`
//! makes the value `\x80`): bit b is byte `b >> 3`, mask `0x80 >> (b & 7)`. The filter keeps bit
//! b at byte `b >> 3`, mask `1 << (b & 7)` of its little-endian words, so the conversion
//! reverses the bits of every byte. An m-bit filter is `ceil(m / 8)` bytes; Redis grows a string
//! on demand, so a shorter string is the same filter with its missing tail bytes zero.
//!
//! Since the conversion keeps every bit's number, a key's k bit indexes are also its `GETBIT`
//! offsets ([`Offsets`]): services that never fetch the bitmap ask Redis for those k bits.

use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use crate::hashing::{Hash128, hash_bytes, hash_u64};
use crate::sizing::{self, Shape};
use crate::spark_hashing;
use crate::strategy::{Indexer, Strategy};

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

/// Redis strings hold at most 512 MiB, so `GETBIT` offsets are below 2^32.
pub const MAX_BITMAP_BITS: u64 = 1 << 32;

/// The `GETBIT` offsets of keys in the Redis bitmap of a filter of one shape and strategy: the
/// k bits `put` sets, in the strategy's order (the bitmap numbers bits as the filter does), so
/// a key is possibly present iff `GETBIT key offset` is 1 for all k. Built once per shape; the
/// hash divisors are precomputed, so a batch costs what a filter's own `put` does.
///
/// ```
/// use sparkbloom::format::redis_bitmap::{self, Offsets};
/// use sparkbloom::{BloomFilter, Shape, Strategy, sizing};
///
/// // sparkbloom-redis's RedisLayout.helperCompatible(10_000, 0.001): 143,775 bits, k = 10
/// let shape = sizing::redis_helper_shape(10_000, 0.001)?;
/// let offsets = Offsets::new(shape, Strategy::Murmur128Mitz32)?;
/// let mut of_42 = Vec::new();
/// offsets.of_u64(42, &mut of_42);
/// let f = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz32)?;
/// f.put(42);
/// let bitmap = redis_bitmap::encode(&f)?;
/// // GETBIT: byte offset >> 3, mask 0x80 >> (offset & 7)
/// assert!(of_42.iter().all(|&b| bitmap[(b >> 3) as usize] & (0x80 >> (b & 7)) != 0));
/// assert_eq!(of_42.len(), 10);
/// # Ok::<(), sparkbloom::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Offsets {
    strategy: Strategy,
    indexer: Indexer,
}

impl Offsets {
    /// The offsets of filters of `shape` and `strategy`. Errors name the argument: `numBits`
    /// beyond [`MAX_BITMAP_BITS`] (no Redis string holds it), `numHashFunctions` outside
    /// 1..=255, and `strategy` BLOCKED (no Redis bitmap form).
    pub fn new(shape: Shape, strategy: Strategy) -> Result<Offsets> {
        check_strategy(strategy)?;
        if shape.num_bits == 0 || shape.num_bits > MAX_BITMAP_BITS {
            return Err(Error::invalid(
                "numBits",
                format!(
                    "{} is not in 1..={MAX_BITMAP_BITS} (a Redis string holds 2^32 bits)",
                    shape.num_bits
                ),
            ));
        }
        sizing::check_num_hashes(shape.num_hashes)?;
        Ok(Offsets {
            strategy,
            indexer: Indexer::new(shape.num_bits, shape.num_hashes, strategy),
        })
    }

    /// Offsets per key (k).
    pub fn num_hashes(&self) -> u32 {
        self.indexer.num_hashes()
    }

    /// Appends the k offsets of a 64-bit key (Java's `put(long)`) to `out`.
    pub fn of_u64(&self, key: u64, out: &mut Vec<u64>) {
        let hash = if self.strategy.is_spark() {
            spark_hashing::pair_u64(key, 0)
        } else {
            hash_u64(key)
        };
        self.push(hash, out);
    }

    /// Appends the k offsets of a byte-string key (`put(byte[])`; a string's UTF-8 bytes for
    /// `put(String)`) to `out`.
    pub fn of_bytes(&self, key: &[u8], out: &mut Vec<u64>) {
        let hash = if self.strategy.is_spark() {
            spark_hashing::pair_bytes(key, 0)
        } else {
            hash_bytes(key)
        };
        self.push(hash, out);
    }

    fn push(&self, hash: Hash128, out: &mut Vec<u64>) {
        self.indexer.for_each(hash, |index| {
            out.push(index);
            true
        });
    }
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

#[cfg(test)]
mod offsets_tests {
    use super::*;
    use crate::testutil::splitmix64;

    /// The bits of `bitmap` that are 1, by their `GETBIT` offsets.
    fn getbits(bitmap: &[u8]) -> Vec<u64> {
        (0..bitmap.len() as u64 * 8)
            .filter(|&b| bitmap[(b >> 3) as usize] & (0x80 >> (b & 7)) != 0)
            .collect()
    }

    fn sorted_unique(mut offsets: Vec<u64>) -> Vec<u64> {
        offsets.sort_unstable();
        offsets.dedup();
        offsets
    }

    /// A key's offsets are the bits a filter holding only that key has set in its Redis
    /// bitmap, for every classic strategy and bit counts around byte and word edges, long and
    /// byte-string keys alike; k of them, in the order `put` visits them.
    #[test]
    fn offsets_are_the_bitmap_bits_of_a_one_key_filter() {
        let mut state = 5;
        for strategy in [
            Strategy::Murmur128Mitz32,
            Strategy::Murmur128Mitz64,
            Strategy::SparkSketchV1,
            Strategy::SparkSketchV2,
        ] {
            for (num_bits, num_hashes) in [(1, 3), (7, 2), (64, 5), (65, 7), (143_775, 10)] {
                let shape = Shape {
                    num_bits,
                    num_hashes,
                };
                let offsets = Offsets::new(shape, strategy).unwrap();
                assert_eq!(offsets.num_hashes(), num_hashes);
                for _ in 0..100 {
                    let key = splitmix64(&mut state);
                    let text = format!("k{key}é");
                    let long_filter = BloomFilter::with_shape(shape, strategy).unwrap();
                    long_filter.put(key);
                    let text_filter = BloomFilter::with_shape(shape, strategy).unwrap();
                    text_filter.put_str(&text);
                    let (mut of_long, mut of_text) = (Vec::new(), Vec::new());
                    offsets.of_u64(key, &mut of_long);
                    offsets.of_bytes(text.as_bytes(), &mut of_text);
                    for (filter, of) in [(long_filter, of_long), (text_filter, of_text)] {
                        assert_eq!(of.len(), num_hashes as usize);
                        assert!(of.iter().all(|&b| b < num_bits));
                        assert_eq!(
                            getbits(&encode(&filter).unwrap()),
                            sorted_unique(of),
                            "{strategy} m={num_bits} key={key}"
                        );
                    }
                }
            }
        }
    }

    /// Appending keeps what `out` held: a batch is its keys' offsets one after another.
    #[test]
    fn offsets_append() {
        let offsets = Offsets::new(
            sizing::redis_helper_shape(10_000, 0.001).unwrap(),
            Strategy::Murmur128Mitz32,
        )
        .unwrap();
        let (mut one, mut two, mut both) = (Vec::new(), Vec::new(), Vec::new());
        offsets.of_u64(1, &mut one);
        offsets.of_bytes(b"two", &mut two);
        offsets.of_u64(1, &mut both);
        offsets.of_bytes(b"two", &mut both);
        assert_eq!(both, [one, two].concat());
    }

    #[test]
    fn offsets_refuse_what_no_bitmap_holds() {
        let shape = |num_bits, num_hashes| Shape {
            num_bits,
            num_hashes,
        };
        let err = |shape, strategy| Offsets::new(shape, strategy).unwrap_err().to_string();
        assert!(err(shape(0, 3), Strategy::Murmur128Mitz32).contains("numBits"));
        assert!(err(shape((1 << 32) + 1, 3), Strategy::Murmur128Mitz64).contains("numBits"));
        assert!(Offsets::new(shape(1 << 32, 3), Strategy::Murmur128Mitz64).is_ok());
        assert!(err(shape(64, 0), Strategy::Murmur128Mitz32).contains("numHashFunctions"));
        assert!(err(shape(64, 256), Strategy::Murmur128Mitz32).contains("numHashFunctions"));
        assert!(err(shape(512, 3), Strategy::Blocked).contains("strategy"));
    }
}
