//! The sparkbloom binary layout, version 1 (`FORMAT.md`): a 24-byte header, a dense or sparse
//! payload, a CRC-32 trailer; all integers little-endian.
//!
//! Decoding validates every field and names the first bad one in [`Error::Corrupt`]:
//! `length`, `magic`, `version`, `strategy`, `encoding`, `numHashFunctions`, `numBits`,
//! `payloadLength`, `checksum`, `payload`. It checks the declared length against the bytes
//! present and the checksum before it reads the payload, and never panics.

mod big_endian_words;
mod bitstream;
mod checksum;
pub mod counting;
mod dense;
pub mod guava;
mod header;
pub mod redis_bitmap;
mod rice_fast;
mod rice_writer;
pub mod spark_sketch;
mod sparse;

use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use crate::sizing::MAX_NUM_BITS;
use header::{Encoding, Header};

/// Bytes of the fixed header, before the payload.
pub const HEADER_LEN: usize = 24;
/// Bytes of the CRC-32 trailer, after the payload.
pub const TRAILER_LEN: usize = 4;

/// The filter in format v1; sparse or dense, whichever is smaller (deterministic). Panics if
/// the bytes cannot be allocated, as `Vec` does; [`try_encode`] returns an error instead.
///
/// ```
/// use sparkbloom::{BloomFilter, format};
///
/// let f = BloomFilter::new(10_000, 0.001)?; // 143,808 bits: a dense payload of 17,976 bytes
/// // Empty: sparse, a header, a count and a Rice parameter (9 bytes), no codes, a CRC.
/// assert_eq!(format::encode(&f).len(), 24 + 9 + 4);
/// (0..10_000).for_each(|key| {
///     f.put(key);
/// });
/// // Full at n, half its bits are set: dense is smaller.
/// let bytes = format::encode(&f);
/// assert_eq!(bytes.len(), 24 + 17_976 + 4);
/// assert_eq!(&bytes[..4], b"SBLM");
/// assert_eq!(format::decode(&bytes)?, f);
/// # Ok::<(), sparkbloom::Error>(())
/// ```
pub fn encode(filter: &BloomFilter) -> Vec<u8> {
    try_encode(filter).unwrap_or_else(|e| panic!("format::encode: {e}"))
}

/// [`encode`], with allocation failure as an [`Error::Allocation`] instead of a panic: what the
/// JNI bridge calls. Needs at most the dense size (m/8 bytes) plus the sparse result, which is
/// smaller; deciding between them allocates nothing more. Of a large filter's snapshot only the
/// pages under nonzero words are written ([`LAZY_SNAPSHOT_MIN_BYTES`]), so one holding few keys
/// takes memory for those alone.
pub fn try_encode(filter: &BloomFilter) -> Result<Vec<u8>> {
    let dense_len = dense::payload_len(filter.num_bits());
    let total = HEADER_LEN as u64 + dense_len + TRAILER_LEN as u64;
    // The dense form doubles as the snapshot the sparse coder reads, so both see the same bits
    // even while other threads put.
    let (mut out, count) = if dense_len < LAZY_SNAPSHOT_MIN_BYTES {
        let mut out = reserve(total)?;
        out.resize(HEADER_LEN, 0);
        let count = dense::write(filter, &mut out);
        (out, count)
    } else {
        let mut out = zeroed(total)?;
        let dense_end = HEADER_LEN + dense_len as usize;
        let count = dense::write_nonzero(filter, &mut out[HEADER_LEN..dense_end]);
        out.truncate(dense_end);
        (out, count)
    };
    let mut header = Header {
        strategy: filter.strategy(),
        encoding: Encoding::Dense,
        shape: filter.shape(),
        payload_len: dense_len,
    };
    if let Some(plan) = sparse::plan(&out[HEADER_LEN..], count) {
        header.encoding = Encoding::Sparse;
        header.payload_len = plan.len();
        let slack = sparse::WRITE_SLACK.saturating_sub(TRAILER_LEN as u64);
        let mut sparse = reserve(HEADER_LEN as u64 + plan.len() + TRAILER_LEN as u64 + slack)?;
        sparse.resize(HEADER_LEN, 0);
        sparse::write(&out[HEADER_LEN..], &plan, &mut sparse);
        out = sparse;
    }
    out[..HEADER_LEN].copy_from_slice(&header.to_bytes());
    checksum::append(&mut out);
    Ok(out)
}

/// The most bytes [`encode`] gives for a filter of `num_bits` bits: a dense filter's (a sparse
/// payload is always smaller); what [`encode_into`] needs.
pub fn max_encoded_len(num_bits: u64) -> u64 {
    (HEADER_LEN + TRAILER_LEN) as u64 + dense::payload_len(num_bits)
}

/// Writes [`encode`]'s bytes to the front of `out` and returns how many: the Java serial
/// proxy's path, encoding straight into a reused, pinned Java array. `out` must hold at least
/// [`max_encoded_len`] bytes (else an [`Error::InvalidArgument`] naming `out`), since the
/// dense form is written there first: it is the snapshot the sparse coder reads, as in
/// [`try_encode`]. A dense result allocates nothing; a sparse one its payload only.
pub fn encode_into(filter: &BloomFilter, out: &mut [u8]) -> Result<usize> {
    let needed = max_encoded_len(filter.num_bits());
    if (out.len() as u64) < needed {
        return Err(Error::invalid(
            "out",
            format!(
                "{} bytes cannot hold a filter of {} bits ({needed} bytes)",
                out.len(),
                filter.num_bits()
            ),
        ));
    }
    let dense_len = dense::payload_len(filter.num_bits()) as usize;
    let dense = &mut out[HEADER_LEN..HEADER_LEN + dense_len];
    let count = dense::write_into(filter, dense);
    let mut header = Header {
        strategy: filter.strategy(),
        encoding: Encoding::Dense,
        shape: filter.shape(),
        payload_len: dense_len as u64,
    };
    if let Some(plan) = sparse::plan(dense, count) {
        header.encoding = Encoding::Sparse;
        header.payload_len = plan.len();
        let mut sparse = reserve(plan.len() + sparse::WRITE_SLACK)?;
        sparse::write(dense, &plan, &mut sparse);
        // Smaller than the dense snapshot it overwrites, which is no longer needed.
        dense[..sparse.len()].copy_from_slice(&sparse);
    }
    out[..HEADER_LEN].copy_from_slice(&header.to_bytes());
    let end = HEADER_LEN + header.payload_len as usize;
    let crc = checksum::of(&out[..end]);
    out[end..end + TRAILER_LEN].copy_from_slice(&crc.to_le_bytes());
    Ok(end + TRAILER_LEN)
}

/// Appends the CRC-32 trailer: tests that forge headers.
#[cfg(test)]
pub(crate) fn checksum_append_for_tests(bytes: &mut Vec<u8>) {
    checksum::append(bytes);
}

/// Dense snapshots at least this large are taken into zeroed memory ([`zeroed`]) with only the
/// nonzero words written, so the pages under a filter's empty stretches are never touched: a
/// huge filter holding few keys (or a forged header declaring one) serializes in the memory of
/// its keys' pages. Smaller ones are written whole into uninitialized memory: zeroing costs a
/// pass over the snapshot whenever the allocator hands back reused memory (a third more time to
/// serialize a full 12 MB filter), to spare at most this much.
pub(crate) const LAZY_SNAPSHOT_MIN_BYTES: u64 = 64 << 20;

/// `len` zero bytes for a serialized filter, allocated fallibly and zeroed lazily: a large
/// allocation is fresh pages from the system, which take memory only once written.
pub(crate) fn zeroed(len: u64) -> Result<Vec<u8>> {
    let too_big = || Error::allocation("the serialized filter", len);
    let len = usize::try_from(len).map_err(|_| too_big())?;
    if len == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(len).map_err(|_| too_big())?;
    // SAFETY: the layout has non-zero size; a null return is handled; every byte is
    // initialized (zero); the vector frees the allocation with the layout of `len` bytes it
    // was made with.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout);
        if ptr.is_null() {
            return Err(too_big());
        }
        Ok(Vec::from_raw_parts(ptr, len, len))
    }
}

/// An empty vector with room for exactly `len` bytes of a serialized filter.
pub(crate) fn reserve(len: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    usize::try_from(len)
        .ok()
        .and_then(|len| out.try_reserve_exact(len).ok())
        .ok_or_else(|| Error::allocation("the serialized filter", len))?;
    Ok(out)
}

/// Decodes exactly one filter occupying all of `bytes`. Every field is checked, and an error
/// names the first bad one.
///
/// ```
/// use sparkbloom::{BloomFilter, Error, format};
///
/// let f = BloomFilter::new(1_000, 0.01)?;
/// f.put_all(&[1, 2, 3]);
/// let mut bytes = format::encode(&f);
/// assert_eq!(format::decode(&bytes)?, f);
/// bytes[30] ^= 1; // one flipped bit in the payload
/// match format::decode(&bytes) {
///     Err(Error::Corrupt { field, .. }) => assert_eq!(field, "checksum"),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), sparkbloom::Error>(())
/// ```
pub fn decode(bytes: &[u8]) -> Result<BloomFilter> {
    decode_with_limit(bytes, MAX_NUM_BITS)
}

/// [`decode`], refusing with [`Error::TooLarge`] a filter of more than `max_num_bits` bits
/// before allocating it: a 37-byte sparse input can declare 2^43 bits (1 TiB).
pub fn decode_with_limit(bytes: &[u8], max_num_bits: u64) -> Result<BloomFilter> {
    let header = Header::parse(bytes)?;
    check_limit(header.shape.num_bits, max_num_bits)?;
    let total = header.total_len();
    check_exact_len(bytes, total)?;
    checksum::verify(bytes)?;
    let payload = &bytes[HEADER_LEN..bytes.len() - TRAILER_LEN];
    match header.encoding {
        Encoding::Dense => dense::read(payload, header.shape, header.strategy),
        Encoding::Sparse => sparse::decode(payload, header.shape, header.strategy),
    }
}

/// A [`Error::TooLarge`] if `num_bits` exceeds `max_num_bits`.
pub(crate) fn check_limit(num_bits: u64, max_num_bits: u64) -> Result<()> {
    if num_bits > max_num_bits {
        return Err(Error::TooLarge {
            num_bits,
            limit: max_num_bits,
        });
    }
    Ok(())
}

/// A `length` error if fewer than `header_len` bytes hold a header (FORMAT.md's and Guava's).
pub(crate) fn check_header_present(bytes: &[u8], header_len: usize) -> Result<()> {
    if bytes.len() < header_len {
        return Err(Error::corrupt(
            "length",
            format!(
                "truncated header: expected {header_len} bytes, got {}",
                bytes.len()
            ),
        ));
    }
    Ok(())
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
    total_len_with_limit(header, MAX_NUM_BITS)
}

/// [`total_len_from_header`], refusing a filter of more than `max_num_bits` bits, so a stream
/// reader refuses it before reading its payload.
pub fn total_len_with_limit(header: &[u8], max_num_bits: u64) -> Result<u64> {
    let header = Header::parse(&header[..header.len().min(HEADER_LEN)])?;
    check_limit(header.shape.num_bits, max_num_bits)?;
    Ok(header.total_len())
}
