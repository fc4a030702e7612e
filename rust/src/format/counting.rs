//! The counting filter's layout (`FORMAT.md` §10): the 24-byte header of format v1 with
//! version byte 3, a dense or sparse payload of 4-bit counters, the CRC-32 trailer.
//!
//! Version 3 marks the kind: a plain-filter reader (versions 1 and 2) stops at the version byte
//! with its `version` error before it reads anything else, and this reader refuses versions 1
//! and 2 the same way. Decoding validates every field in layout order and names the first bad
//! one, checks the length and the checksum before it reads the payload, and allocates only
//! after both, like [`super::decode`].

use super::bitstream::{BitReader, BitWriter};
use super::header::{Encoding, Header, Kind};
use super::sparse::{self, Nouns, Prelude};
use super::{
    HEADER_LEN, LAZY_SNAPSHOT_MIN_BYTES, TRAILER_LEN, check_exact_len, check_limit, checksum,
    reserve, zeroed,
};
use crate::counting::CountingBloomFilter;
use crate::counting::counters::{PER_WORD, nonzero_nibbles, words_for};
use crate::error::{Error, Result};
use crate::sizing::{MAX_NUM_BITS, Shape};
use crate::strategy::Strategy;

/// The version byte of a counting filter with 4-bit counters.
pub const VERSION_COUNTING_4BIT: u8 = super::header::VERSION_COUNTING_4BIT;
/// Bits of a counter's value in a sparse entry.
const VALUE_BITS: u32 = 4;

/// Bytes of a dense payload for m counters.
fn dense_len(num_bits: u64) -> u64 {
    words_for(num_bits) * 8
}

/// The counting filter's header rules: version 3, a Guava strategy (counting filters hash as
/// Guava does), any m, dense payloads of ⌈m/16⌉ words.
const COUNTING: Kind = Kind {
    version_for: |_, _| VERSION_COUNTING_4BIT,
    version_and_strategy,
    num_bits: |_, _, _| Ok(()),
    dense_len,
    positions: "counters",
};

fn version_and_strategy(version: u8, ordinal: u8) -> Result<Strategy> {
    if version != VERSION_COUNTING_4BIT {
        let kind = if version == 1 || version == 2 {
            " (a plain Bloom filter: read it with BloomFilter)"
        } else {
            ""
        };
        return Err(Error::corrupt(
            "version",
            format!(
                "format version {version}{kind}; a counting filter with 4-bit counters is version {VERSION_COUNTING_4BIT}"
            ),
        ));
    }
    Strategy::from_ordinal(ordinal)
        .filter(|s| s.is_guava())
        .ok_or_else(|| {
            Error::corrupt(
                "strategy",
                format!(
                    "unknown strategy ordinal {ordinal}; expected 0 (MURMUR128_MITZ_32) or 1 (MURMUR128_MITZ_64)"
                ),
            )
        })
}

/// The filter's bytes, sparse or dense, whichever is smaller (a tie goes dense). Panics if the
/// bytes cannot be allocated; [`try_encode`] returns an error instead.
pub fn encode(filter: &CountingBloomFilter) -> Vec<u8> {
    try_encode(filter).unwrap_or_else(|e| panic!("format::counting::encode: {e}"))
}

/// [`encode`], with allocation failure as an [`Error::Allocation`].
pub fn try_encode(filter: &CountingBloomFilter) -> Result<Vec<u8>> {
    let dense = dense_len(filter.num_bits());
    // The dense form is the snapshot the sparse coder reads: both see the same counters even
    // while other threads add and remove.
    let total = HEADER_LEN as u64 + dense + TRAILER_LEN as u64;
    let mut out = if dense < LAZY_SNAPSHOT_MIN_BYTES {
        let mut out = reserve(total)?;
        out.resize(HEADER_LEN, 0);
        filter
            .words()
            .for_each(|word| out.extend_from_slice(&word.to_le_bytes()));
        out
    } else {
        // Only the nonzero words written, as the plain filter's large snapshots are.
        let mut out = zeroed(total)?;
        let dense_end = HEADER_LEN + dense as usize;
        for (at, word) in (HEADER_LEN..dense_end).step_by(8).zip(filter.words()) {
            if word != 0 {
                out[at..at + 8].copy_from_slice(&word.to_le_bytes());
            }
        }
        out.truncate(dense_end);
        out
    };
    let mut header = Header {
        strategy: filter.strategy(),
        encoding: Encoding::Dense,
        shape: filter.shape(),
        payload_len: dense,
    };
    if let Some(plan) = plan(&out[HEADER_LEN..]) {
        header.encoding = Encoding::Sparse;
        header.payload_len = plan.len;
        let mut sparse = reserve(HEADER_LEN as u64 + plan.len + TRAILER_LEN as u64)?;
        sparse.resize(HEADER_LEN, 0);
        write_sparse(&out[HEADER_LEN..], &plan, &mut sparse);
        out = sparse;
    }
    out[..HEADER_LEN].copy_from_slice(&header.to_bytes_as(&COUNTING));
    checksum::append(&mut out);
    Ok(out)
}

/// Decodes exactly one counting filter occupying all of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<CountingBloomFilter> {
    decode_with_limit(bytes, MAX_NUM_BITS)
}

/// [`decode`], refusing with [`Error::TooLarge`] a filter of more than `max_num_bits`
/// counters before allocating it.
pub fn decode_with_limit(bytes: &[u8], max_num_bits: u64) -> Result<CountingBloomFilter> {
    let header = Header::parse_as(bytes, &COUNTING)?;
    check_limit(header.shape.num_bits, max_num_bits)?;
    check_exact_len(bytes, header.total_len())?;
    checksum::verify(bytes)?;
    let payload = &bytes[HEADER_LEN..bytes.len() - TRAILER_LEN];
    match header.encoding {
        Encoding::Dense => read_dense(payload, header.shape, header.strategy),
        Encoding::Sparse => read_sparse(payload, header.shape, header.strategy),
    }
}

/// Validates a header (the first [`HEADER_LEN`] bytes) and returns the whole encoded length,
/// refusing a filter of more than `max_num_bits` counters: what a stream reader needs.
pub fn total_len_with_limit(header: &[u8], max_num_bits: u64) -> Result<u64> {
    let header = Header::parse_as(&header[..header.len().min(HEADER_LEN)], &COUNTING)?;
    check_limit(header.shape.num_bits, max_num_bits)?;
    Ok(header.total_len())
}

fn read_dense(payload: &[u8], shape: Shape, strategy: Strategy) -> Result<CountingBloomFilter> {
    let words = super::dense::words_from_bytes(payload, u64::from_le_bytes)?;
    if let Some(index) = crate::counting::first_counter_at_or_above(&words, shape.num_bits) {
        return Err(Error::corrupt(
            "payload",
            format!(
                "counter {index} is nonzero, at or above numBits {}",
                shape.num_bits
            ),
        ));
    }
    CountingBloomFilter::from_words(words, shape, strategy)
}

struct Plan {
    count: u64,
    rice: u32,
    len: u64,
}

/// Calls `visit(position, value)` for every nonzero counter, in increasing position order.
fn for_each_nonzero(dense: &[u8], mut visit: impl FnMut(u64, u64)) {
    for i in 0..dense.len() / 8 {
        let w = super::dense::word(dense, i);
        let mut present = nonzero_nibbles(w);
        while present != 0 {
            let shift = present.trailing_zeros();
            visit(i as u64 * PER_WORD + (shift / 4) as u64, (w >> shift) & 15);
            present &= present - 1;
        }
    }
}

/// The sparse plan for the dense payload `dense`, if strictly smaller than it (§10.4's rule,
/// deterministic: equal counters give equal bytes).
fn plan(dense: &[u8]) -> Option<Plan> {
    let mut count = 0u64;
    let mut last = None;
    for_each_nonzero(dense, |position, _| {
        count += 1;
        last = Some(position);
    });
    let sum_gaps = last.map_or(0, |last| last + 1 - count);
    let candidates = sparse::rice_candidates(sum_gaps.checked_div(count).unwrap_or(0));
    let mut quotients = [0u128; 3];
    let mut next = 0u64;
    for_each_nonzero(dense, |position, _| {
        let gap = position - next;
        for (sum, &r) in quotients.iter_mut().zip(&candidates) {
            *sum += (gap >> r) as u128;
        }
        next = position + 1;
    });
    let (rice, bits) = candidates
        .iter()
        .zip(&quotients)
        .map(|(&r, &q)| (r, count as u128 * (r + 1 + VALUE_BITS) as u128 + q))
        .min_by_key(|&(_, bits)| bits)?;
    let len = sparse::payload_len(bits);
    (len < dense.len() as u128).then_some(Plan {
        count,
        rice,
        len: len as u64,
    })
}

fn write_sparse(dense: &[u8], plan: &Plan, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&plan.count.to_le_bytes());
    out.push(plan.rice as u8);
    let mut writer = BitWriter::new(out);
    let mut next = 0u64;
    for_each_nonzero(dense, |position, value| {
        writer.put_rice(position - next, plan.rice);
        writer.put(value, VALUE_BITS);
        next = position + 1;
    });
    writer.finish();
    debug_assert_eq!((out.len() - start) as u64, plan.len);
}

/// The filter whose sparse payload is `payload`; the header and checksum are checked.
fn read_sparse(payload: &[u8], shape: Shape, strategy: Strategy) -> Result<CountingBloomFilter> {
    let bad = |reason: String| Error::corrupt("payload", reason);
    let nouns = Nouns {
        entries: "nonzero counters",
        positions: "counters",
        codes: "entries",
    };
    let Prelude { count, r, data } = Prelude::parse(payload, shape.num_bits, VALUE_BITS, nouns)?;
    let mut filter = CountingBloomFilter::with_shape(shape, strategy)?;
    let words = filter.words_mut();
    let mut reader = BitReader::new(data);
    let mut next = 0u128;
    for i in 0..count {
        let past_end = |_| {
            bad(format!(
                "the entry of nonzero counter {i} of {count} runs past the end of the data"
            ))
        };
        let position = next + reader.read_rice(r).map_err(past_end)?;
        let value = reader.read_bits(VALUE_BITS).map_err(past_end)?;
        if position >= shape.num_bits as u128 {
            return Err(bad(format!(
                "nonzero counter {i} at position {position} is not below numBits {}",
                shape.num_bits
            )));
        }
        if value == 0 {
            return Err(bad(format!(
                "nonzero counter {i} at position {position} has value 0"
            )));
        }
        words[(position >> 4) as usize] |= value << ((position & 15) * 4);
        next = position + 1;
    }
    sparse::check_end(data, reader.position(), count, ("entries", "entry"))?;
    Ok(filter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::splitmix64;

    /// Sparse wins until counters are dense enough: ~6 bits per nonzero counter at half
    /// full against 4 bits per counter dense, so only an overfilled filter goes dense.
    #[test]
    fn round_trips_sparse_and_dense() {
        for (n, keys, sparse) in [
            (1_000u64, 0u64, true),
            (1_000, 10, true),
            (1_000, 1_000, true),
            (1_000, 5_000, false),
        ] {
            let f = CountingBloomFilter::new(n, 0.01).unwrap();
            let mut state = n + keys;
            for _ in 0..keys {
                f.add(splitmix64(&mut state));
            }
            let bytes = encode(&f);
            assert_eq!(bytes[6] == 1, sparse, "n={n} keys={keys}");
            assert_eq!(decode(&bytes).unwrap(), f);
        }
    }

    #[test]
    fn any_counter_count_round_trips() {
        for num_bits in [1u64, 15, 17, 100, 143_775] {
            let shape = Shape {
                num_bits,
                num_hashes: 3,
            };
            let f = CountingBloomFilter::with_shape(shape, Strategy::Murmur128Mitz32).unwrap();
            (0..num_bits.min(50)).for_each(|k| {
                f.add(k);
            });
            assert_eq!(decode(&encode(&f)).unwrap(), f, "m={num_bits}");
        }
    }

    #[test]
    fn plain_readers_and_counting_readers_refuse_each_other() {
        let counting = encode(&CountingBloomFilter::new(100, 0.01).unwrap());
        let err = super::super::decode(&counting).unwrap_err().to_string();
        assert!(err.contains("version"), "{err}");
        let plain = super::super::encode(&crate::BloomFilter::new(100, 0.01).unwrap());
        let err = decode(&plain).unwrap_err().to_string();
        assert!(err.contains("version") && err.contains("plain"), "{err}");
    }
}
