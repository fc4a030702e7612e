//! The dense payload: the ceil(m/64) words of the word array, each little-endian, so bit b sits
//! at byte b >> 3, bit b & 7. It is the in-memory layout on little-endian hosts: a copy. Bits
//! at or above m (version 2 only) are zero.

use std::mem::MaybeUninit;

use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use crate::kernels::popcount::{Out, copy_counting};
use crate::le;
use crate::sizing::Shape;
use crate::strategy::Strategy;

/// Bytes of a dense payload for `num_bits` bits: whole words (m/8 when m is a multiple of 64).
pub(crate) fn payload_len(num_bits: u64) -> u64 {
    num_bits.div_ceil(64) * 8
}

/// Appends the filter's words (one snapshot each, if other threads are writing); returns the
/// number of set bits among them, counted in the same pass.
pub(crate) fn write(filter: &BloomFilter, out: &mut Vec<u8>) -> u64 {
    // Into the spare capacity, 8 bytes at a time: a per-word `extend_from_slice` re-checks
    // the capacity for every word (most of the time of encoding a full filter), and zeroing
    // the bytes first would be one more pass over them.
    let len = filter.words().len() * 8;
    out.reserve(len);
    let count = copy_counting(
        filter.bit_array(),
        &mut out.spare_capacity_mut()[..len],
        Out::Any,
    );
    // SAFETY: the copy initialized all `len` bytes after the old length (8 per word), within
    // the capacity reserved above.
    unsafe { out.set_len(out.len() + len) }
    count
}

/// Writes the filter's nonzero words into `out`, which holds zeros and is exactly
/// [`payload_len`] bytes (one snapshot of each word, if other threads are writing), leaving the
/// pages of its empty stretches untouched; returns the number of set bits, counted in the same
/// pass.
pub(crate) fn write_nonzero(filter: &BloomFilter, out: &mut [u8]) -> u64 {
    copy_counting(filter.bit_array(), as_uninit(out), Out::Zeroed)
}

/// Writes the filter's words into `out`, exactly [`payload_len`] bytes (one snapshot each, if
/// other threads are writing); returns the number of set bits among them, counted in the same
/// pass. For encoders writing into a caller's buffer (a pinned Java array).
pub(crate) fn write_into(filter: &BloomFilter, out: &mut [u8]) -> u64 {
    assert_eq!(
        out.len(),
        filter.words().len() * 8,
        "dense::write_into: out is not the payload's size"
    );
    copy_counting(filter.bit_array(), as_uninit(out), Out::Any)
}

/// `out` as the copy's destination.
fn as_uninit(out: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; the copy only writes initialized
    // bytes, so `out` stays initialized.
    unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<MaybeUninit<u8>>(), out.len()) }
}

/// The filter whose dense payload is `payload`; the caller has checked its length against m.
pub(crate) fn read(payload: &[u8], shape: Shape, strategy: Strategy) -> Result<BloomFilter> {
    debug_assert_eq!(payload.len() as u64, payload_len(shape.num_bits));
    let words = words_from_bytes(payload, u64::from_le_bytes)?;
    if let Some(bit) = crate::filter::first_bit_at_or_above(&words, shape.num_bits) {
        return Err(Error::corrupt(
            "payload",
            format!("bit {bit} is set, at or above numBits {}", shape.num_bits),
        ));
    }
    BloomFilter::from_words_with_shape(words, shape, strategy)
}

/// The 64-bit words of `bytes` (a multiple of 8 long, checked by the caller), each read by
/// `word_of`: the dense payload ([`u64::from_le_bytes`]) and Guava's stream
/// ([`u64::from_be_bytes`]). Allocation failure is an error, not an abort. Written once, not
/// zeroed first and then overwritten.
pub(crate) fn words_from_bytes(bytes: &[u8], word_of: fn([u8; 8]) -> u64) -> Result<Vec<u64>> {
    let mut words = Vec::new();
    words
        .try_reserve_exact(bytes.len() / 8)
        .map_err(|_| Error::allocation("the bit array", bytes.len() as u64))?;
    words.extend(
        bytes
            .chunks_exact(8)
            .map(|word| word_of(word.try_into().expect("8 bytes"))),
    );
    Ok(words)
}

/// Word `i` of a dense payload.
pub(crate) fn word(payload: &[u8], i: usize) -> u64 {
    le::u64_at(payload, i * 8)
}
