//! The 4-byte trailer: CRC-32 (ISO-HDLC, as `java.util.zip.CRC32` and `zlib.crc32` compute it)
//! of every byte before it, little-endian. It detects every single-bit error and every burst
//! of up to 32 bits, and either peer can verify it with its standard library.

use super::TRAILER_LEN;
use crate::error::{Error, Result};
use crate::le;

/// Appends the CRC-32 of everything in `out`.
pub(crate) fn append(out: &mut Vec<u8>) {
    let crc = crc32fast::hash(out);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// The CRC-32 of `bytes`, for a trailer written in place.
pub(crate) fn of(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// Checks the trailer of `bytes` (whose length the caller has checked) against its body.
pub(crate) fn verify(bytes: &[u8]) -> Result<()> {
    let (body, trailer) = bytes.split_at(bytes.len() - TRAILER_LEN);
    let stored = le::u32_at(trailer, 0);
    let actual = crc32fast::hash(body);
    if stored != actual {
        return Err(Error::corrupt(
            "checksum",
            format!("stored CRC-32 {stored:08x}, computed {actual:08x}"),
        ));
    }
    Ok(())
}
