//! The sparkbloom binary layout, version 1 (FORMAT.md): encode and decode.
//!
//! STUB: signatures fixed by the architecture; bodies are being written.

use crate::error::{Error, Result};
use crate::filter::BloomFilter;

/// Bytes of the fixed header, before the payload.
pub const HEADER_LEN: usize = 24;
/// Bytes of the CRC-32 trailer, after the payload.
pub const TRAILER_LEN: usize = 4;

/// The filter in format v1; sparse or dense, whichever is smaller (deterministic).
pub fn encode(filter: &BloomFilter) -> Vec<u8> {
    let _ = filter;
    Vec::new()
}

/// Decodes exactly one filter occupying all of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<BloomFilter> {
    let _ = bytes;
    Err(Error::corrupt("format", "not implemented yet"))
}

/// Validates a header (the first [`HEADER_LEN`] bytes) and returns the whole encoded length
/// (header + payload + trailer), so a stream reader can read exactly one filter.
pub fn total_len_from_header(header: &[u8]) -> Result<u64> {
    let _ = header;
    Err(Error::corrupt("format", "not implemented yet"))
}
