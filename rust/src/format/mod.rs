//! The sparkbloom binary layout, version 1 (`FORMAT.md`): a 24-byte header, a dense or sparse
//! payload, a CRC-32 trailer; all integers little-endian.
//!
//! Decoding validates every field and names the first bad one in [`Error::Corrupt`]:
//! `length`, `magic`, `version`, `strategy`, `encoding`, `numHashFunctions`, `numBits`,
//! `payloadLength`, `checksum`, `payload`. It checks the declared length against the bytes
//! present and the checksum before it reads the payload, and never panics.

mod bitstream;
mod checksum;
mod dense;
pub mod guava;
mod header;
pub mod redis_bitmap;
mod sparse;

use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use dense::words_from_bytes;
use header::{Encoding, Header};

/// Bytes of the fixed header, before the payload.
pub const HEADER_LEN: usize = 24;
/// Bytes of the CRC-32 trailer, after the payload.
pub const TRAILER_LEN: usize = 4;

/// The filter in format v1; sparse or dense, whichever is smaller (deterministic).
pub fn encode(filter: &BloomFilter) -> Vec<u8> {
    let num_bits = filter.num_bits();
    let dense_len = dense::payload_len(num_bits) as usize;
    // The dense payload doubles as the snapshot the sparse coder reads, so both see the same
    // bits even while other threads put.
    let mut out = Vec::with_capacity(HEADER_LEN + dense_len + TRAILER_LEN);
    out.resize(HEADER_LEN, 0);
    dense::write(filter, &mut out);
    let mut header = Header {
        strategy: filter.strategy(),
        encoding: Encoding::Dense,
        shape: filter.shape(),
        payload_len: dense_len as u64,
    };
    if let Some(sparse) = sparse::encode(&out[HEADER_LEN..]) {
        header.encoding = Encoding::Sparse;
        header.payload_len = sparse.len() as u64;
        out.truncate(HEADER_LEN);
        out.extend_from_slice(&sparse);
        out.shrink_to_fit();
    }
    out[..HEADER_LEN].copy_from_slice(&header.to_bytes());
    checksum::append(&mut out);
    out
}

/// Decodes exactly one filter occupying all of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<BloomFilter> {
    let header = Header::parse(bytes)?;
    let total = header.total_len();
    check_exact_len(bytes, total)?;
    checksum::verify(bytes)?;
    let payload = &bytes[HEADER_LEN..bytes.len() - TRAILER_LEN];
    match header.encoding {
        Encoding::Dense => dense::read(payload, header.shape, header.strategy),
        Encoding::Sparse => sparse::decode(payload, header.shape, header.strategy),
    }
}

/// A `length` error unless `bytes` is exactly the `total` bytes its header declares (used by the
/// Guava stream reader too).
pub(crate) fn check_exact_len(bytes: &[u8], total: u64) -> Result<()> {
    let got = bytes.len() as u64;
    if got == total {
        return Ok(());
    }
    let what = if got < total {
        "truncated"
    } else {
        "trailing bytes"
    };
    Err(Error::corrupt(
        "length",
        format!("{what}: expected {total} bytes, got {got}"),
    ))
}

/// Validates a header (the first [`HEADER_LEN`] bytes) and returns the whole encoded length
/// (header + payload + trailer), so a stream reader can read exactly one filter.
pub fn total_len_from_header(header: &[u8]) -> Result<u64> {
    let header = &header[..header.len().min(HEADER_LEN)];
    Ok(Header::parse(header)?.total_len())
}
