//! Guava's `BloomFilter.writeTo` stream: strategy ordinal (1 byte), k (1 unsigned byte),
//! word count (int32 big-endian), then the words as big-endian int64.
//!
//! STUB: signatures fixed by the architecture; bodies are being written.

use crate::error::{Error, Result};
use crate::filter::BloomFilter;

/// Bytes of Guava's header.
pub const GUAVA_HEADER_LEN: usize = 6;

/// The bytes Guava's `writeTo` would write for this filter (errors past 2^31−1 words).
pub fn write_guava(filter: &BloomFilter) -> Result<Vec<u8>> {
    let _ = filter;
    Err(Error::invalid("filter", "not implemented yet"))
}

/// Reads exactly one Guava `writeTo` stream occupying all of `bytes`.
pub fn read_guava(bytes: &[u8]) -> Result<BloomFilter> {
    let _ = bytes;
    Err(Error::corrupt("format", "not implemented yet"))
}

/// Validates Guava's 6-byte header and returns the whole stream length.
pub fn guava_total_len_from_header(header: &[u8]) -> Result<u64> {
    let _ = header;
    Err(Error::corrupt("format", "not implemented yet"))
}
