//! What Guava's and Spark's `writeTo` streams share after their own headers: the filter's
//! 64-bit words as a Java `long[]` written by a `DataOutputStream`, so big-endian, at most
//! 2^31−1 of them, their count an `int` in the header.

use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use crate::strategy::Strategy;

/// The word array is a Java `long[]`, indexed by `int`.
pub(crate) const MAX_WORDS: u64 = i32::MAX as u64;

/// A parsed header: the filter it announces and where its words lie.
pub(crate) struct WordStream {
    pub(crate) strategy: Strategy,
    pub(crate) num_hashes: u32,
    pub(crate) header_len: usize,
    pub(crate) num_words: u64,
}

impl WordStream {
    /// The header's word count, checked: at least one word (an `int`, so at most 2^31−1).
    pub(crate) fn num_words(count: i32) -> Result<u64> {
        if count < 1 {
            return Err(Error::corrupt(
                "numBits",
                format!("word count {count} is not positive"),
            ));
        }
        Ok(count as u64)
    }

    /// Header and words.
    pub(crate) fn total_len(&self) -> u64 {
        self.header_len as u64 + self.num_words * 8
    }

    /// [`total_len`](Self::total_len), refusing a filter of more than `max_num_bits` bits.
    pub(crate) fn total_len_with_limit(&self, max_num_bits: u64) -> Result<u64> {
        super::check_limit(self.num_words * 64, max_num_bits)?;
        Ok(self.total_len())
    }

    /// The filter of `bytes`, which must be exactly this stream; allocates only once the
    /// limit and the length are checked.
    pub(crate) fn decode(&self, bytes: &[u8], max_num_bits: u64) -> Result<BloomFilter> {
        let total = self.total_len_with_limit(max_num_bits)?;
        super::check_exact_len(bytes, total)?;
        let words = super::dense::words_from_bytes(&bytes[self.header_len..], u64::from_be_bytes)?;
        BloomFilter::from_words(words, self.num_hashes, self.strategy)
    }
}

/// The header's word count of `filter`, or an error when its bits are not a whole number of at
/// most [`MAX_WORDS`] words, as the `stream` (Guava's, Spark's) holds them.
pub(crate) fn whole_words(filter: &BloomFilter, stream: &str) -> Result<i32> {
    let num_words = filter.num_bits() / 64;
    if !filter.num_bits().is_multiple_of(64) || num_words > MAX_WORDS {
        return Err(Error::invalid(
            "numBits",
            format!(
                "{} is not a whole number of at most {MAX_WORDS} 64-bit words, as {stream} \
                 stream needs",
                filter.num_bits()
            ),
        ));
    }
    Ok(num_words as i32)
}

/// `header`, then the filter's words big-endian (one snapshot each, if other threads write);
/// the caller has checked that the filter's bits are whole words ([`whole_words`]).
pub(crate) fn encode(header: &[u8], filter: &BloomFilter) -> Result<Vec<u8>> {
    let mut out = super::reserve(header.len() as u64 + filter.num_bits() / 64 * 8)?;
    out.extend_from_slice(header);
    for word in filter.words() {
        out.extend_from_slice(&word.to_be_bytes());
    }
    Ok(out)
}
