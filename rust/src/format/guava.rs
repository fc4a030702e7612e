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

use super::big_endian_words::{self, WordStream};
use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use crate::sizing::MAX_NUM_BITS;
use crate::strategy::Strategy;

/// Bytes of Guava's header.
pub const HEADER_LEN: usize = 6;

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
    let num_words = big_endian_words::whole_words(filter, "Guava's")?;
    let mut header = vec![filter.strategy().ordinal(), filter.num_hashes() as u8];
    header.extend_from_slice(&num_words.to_be_bytes());
    big_endian_words::encode(&header, filter)
}

/// Reads exactly one Guava `writeTo` stream occupying all of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<BloomFilter> {
    decode_with_limit(bytes, MAX_NUM_BITS)
}

/// [`decode`], refusing with [`Error::TooLarge`] a filter of more than `max_num_bits` bits.
pub fn decode_with_limit(bytes: &[u8], max_num_bits: u64) -> Result<BloomFilter> {
    parse_header(bytes)?.decode(bytes, max_num_bits)
}

/// Validates Guava's 6-byte header and returns the whole stream length.
pub fn total_len_from_header(header: &[u8]) -> Result<u64> {
    total_len_with_limit(header, MAX_NUM_BITS)
}

/// [`total_len_from_header`], refusing a filter of more than `max_num_bits` bits.
pub fn total_len_with_limit(header: &[u8], max_num_bits: u64) -> Result<u64> {
    parse_header(header)?.total_len_with_limit(max_num_bits)
}

/// The stream the first [`HEADER_LEN`] bytes announce.
fn parse_header(bytes: &[u8]) -> Result<WordStream> {
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
    Ok(WordStream {
        strategy,
        num_hashes,
        header_len: HEADER_LEN,
        num_words: WordStream::num_words(num_words)?,
    })
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
