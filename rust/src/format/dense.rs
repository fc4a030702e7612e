//! The dense payload: the m/8 bytes of the word array, each word little-endian, so bit b sits
//! at byte b >> 3, bit b & 7. It is the in-memory layout on little-endian hosts: a copy.

use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use crate::sizing::Shape;
use crate::strategy::Strategy;

/// Bytes of a dense payload for `num_bits` bits.
pub(crate) fn payload_len(num_bits: u64) -> u64 {
    num_bits / 8
}

/// Appends the filter's words (one snapshot each, if other threads are writing).
pub(crate) fn write(filter: &BloomFilter, out: &mut Vec<u8>) {
    for word in filter.words() {
        out.extend_from_slice(&word.to_le_bytes());
    }
}

/// The filter whose dense payload is `payload`; the caller has checked its length against m.
pub(crate) fn read(payload: &[u8], shape: Shape, strategy: Strategy) -> Result<BloomFilter> {
    let num_words = payload.len() / 8;
    debug_assert_eq!(payload.len() as u64, payload_len(shape.num_bits));
    let mut words = Vec::new();
    words
        .try_reserve_exact(num_words)
        .map_err(|_| Error::Allocation {
            bytes: payload.len() as u64,
        })?;
    words.extend(
        payload
            .chunks_exact(8)
            .map(|chunk| u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"))),
    );
    BloomFilter::from_words(words, shape.num_hashes, strategy)
}

/// Word `i` of a dense payload.
pub(crate) fn word(payload: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(payload[i * 8..i * 8 + 8].try_into().expect("8-byte word"))
}
