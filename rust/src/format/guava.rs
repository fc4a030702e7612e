//! Guava's `BloomFilter.writeTo` stream (a `DataOutputStream`, so big-endian):
//!
//! | off | size | field |
//! |---|---|---|
//! | 0 | 1 | strategy ordinal, signed byte |
//! | 1 | 1 | numHashFunctions, unsigned byte |
//! | 2 | 4 | number of 64-bit words, int32 BE |
//! | 6 | 8·words | the words, int64 BE |
//!
//! Guava's `readFrom` validates little; this reader checks every field, the exact length and
//! allocates only after the bytes for the words are known to be present.

use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use crate::sizing::MAX_NUM_BITS;
use crate::strategy::Strategy;
use byteorder::{BigEndian, ByteOrder};

/// Bytes of Guava's header.
pub const HEADER_LEN: usize = 6;

/// Guava's word array is a Java `long[]`, indexed by `int`.
const MAX_WORDS: u64 = i32::MAX as u64;

/// The bytes Guava's `writeTo` would write for this filter (errors past 2^31−1 words).
pub fn encode(filter: &BloomFilter) -> Result<Vec<u8>> {
    if filter.strategy().is_spark() {
        return Err(Error::invalid(
            "strategy",
            format!(
                "{} is Spark's, not Guava's; write it as Spark's stream",
                filter.strategy()
            ),
        ));
    }
    if !filter.strategy().is_guava() {
        return Err(Error::invalid(
            "strategy",
            format!(
                "{} is not one of Guava's strategies (MURMUR128_MITZ_32, MURMUR128_MITZ_64); Guava's stream cannot hold it: use sparkbloom's format",
                filter.strategy()
            ),
        ));
    }
    let num_words = filter.num_bits() / 64;
    if !filter.num_bits().is_multiple_of(64) {
        return Err(Error::invalid(
            "numBits",
            format!(
                "{} is not a multiple of 64; Guava's stream holds whole words only",
                filter.num_bits()
            ),
        ));
    }
    if num_words > MAX_WORDS {
        return Err(Error::invalid(
            "numBits",
            format!(
                "{} bits need {num_words} words; Guava's stream holds at most {MAX_WORDS}",
                filter.num_bits()
            ),
        ));
    }
    let mut out = super::reserve(HEADER_LEN as u64 + num_words * 8)?;
    out.push(filter.strategy().ordinal());
    out.push(filter.num_hashes() as u8);
    out.extend_from_slice(&(num_words as i32).to_be_bytes());
    for word in filter.words() {
        out.extend_from_slice(&word.to_be_bytes());
    }
    Ok(out)
}

/// Reads exactly one Guava `writeTo` stream occupying all of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<BloomFilter> {
    decode_with_limit(bytes, MAX_NUM_BITS)
}

/// [`decode`], refusing with [`Error::TooLarge`] a filter of more than `max_num_bits` bits.
pub fn decode_with_limit(bytes: &[u8], max_num_bits: u64) -> Result<BloomFilter> {
    let (strategy, num_hashes, total) = parse_header(bytes)?;
    super::check_limit(words_in(total) * 64, max_num_bits)?;
    super::check_exact_len(bytes, total)?;
    let words = super::words_from_bytes(&bytes[HEADER_LEN..], BigEndian::read_u64_into)?;
    BloomFilter::from_words(words, num_hashes, strategy)
}

/// Validates Guava's 6-byte header and returns the whole stream length.
pub fn total_len_from_header(header: &[u8]) -> Result<u64> {
    total_len_with_limit(header, MAX_NUM_BITS)
}

/// [`total_len_from_header`], refusing a filter of more than `max_num_bits` bits.
pub fn total_len_with_limit(header: &[u8], max_num_bits: u64) -> Result<u64> {
    let total = parse_header(header)?.2;
    super::check_limit(words_in(total) * 64, max_num_bits)?;
    Ok(total)
}

/// The number of words of a stream of `total` bytes.
fn words_in(total: u64) -> u64 {
    (total - HEADER_LEN as u64) / 8
}

/// Strategy, k and the whole stream length, from the first [`HEADER_LEN`] bytes.
fn parse_header(bytes: &[u8]) -> Result<(Strategy, u32, u64)> {
    // The strategy byte is the only thing that tells a foreign stream apart early.
    if let Some(&ordinal) = bytes.first() {
        check_strategy(ordinal)?;
    }
    super::check_header_present(bytes, HEADER_LEN)?;
    let strategy = check_strategy(bytes[0])?;
    let num_hashes = bytes[1] as u32;
    if num_hashes == 0 {
        return Err(Error::corrupt("numHashFunctions", "0 is not in 1..=255"));
    }
    let num_words = i32::from_be_bytes(bytes[2..6].try_into().expect("4 bytes"));
    if num_words < 1 {
        return Err(Error::corrupt(
            "numBits",
            format!("word count {num_words} is not positive"),
        ));
    }
    Ok((
        strategy,
        num_hashes,
        HEADER_LEN as u64 + num_words as u64 * 8,
    ))
}

fn check_strategy(ordinal: u8) -> Result<Strategy> {
    // Ordinals 2 to 4 are ours (Spark's sketch walks, BLOCKED): Guava has no such strategy.
    Strategy::from_ordinal(ordinal).filter(|s| s.is_guava()).ok_or_else(|| {
        Error::corrupt(
            "strategy",
            format!(
                "unknown strategy ordinal {}; expected 0 (MURMUR128_MITZ_32) or 1 (MURMUR128_MITZ_64)",
                ordinal as i8
            ),
        )
    })
}
