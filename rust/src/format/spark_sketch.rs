//! Spark's `org.apache.spark.util.sketch.BloomFilter.writeTo` stream (a `DataOutputStream`, so
//! big-endian), both versions:
//!
//! | version | header | then |
//! |---|---|---|
//! | V1 (Spark 2.0–4.0) | int32 version = 1, int32 numHashFunctions, int32 numWords (12 B) | numWords × int64 |
//! | V2 (default since 4.1) | int32 version = 2, int32 numHashFunctions, int32 seed, int32 numWords (16 B) | numWords × int64 |
//!
//! A V1 stream becomes a [`Strategy::SparkSketchV1`] filter, a V2 stream a
//! [`Strategy::SparkSketchV2`] one; [`encode`] writes the version of the filter's strategy, so
//! `encode(decode(x)) == x`. Only V2's default seed 0 (what `BloomFilter.create` and
//! `df.stat.bloomFilter` use) is supported: another seed is refused, naming `seed`.

use super::big_endian_words::{self, WordStream};
use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use crate::sizing::{MAX_NUM_BITS, MAX_NUM_HASHES};
use crate::strategy::Strategy;
use byteorder::{BigEndian, ByteOrder};

/// Bytes of V1's header.
pub const V1_HEADER_LEN: usize = 12;
/// Bytes of V2's header.
pub const V2_HEADER_LEN: usize = 16;
/// Bytes that tell the version (and so the header length) apart.
pub const VERSION_LEN: usize = 4;

/// The header length of the stream whose first four bytes are `version`.
pub fn header_len(version: &[u8]) -> Result<usize> {
    super::check_header_present(version, VERSION_LEN)?;
    match BigEndian::read_i32(version) {
        1 => Ok(V1_HEADER_LEN),
        2 => Ok(V2_HEADER_LEN),
        other => Err(Error::corrupt(
            "version",
            format!("unknown Spark sketch Bloom filter version {other}; expected 1 or 2"),
        )),
    }
}

/// The bytes Spark's `writeTo` writes for this filter: V1 for [`Strategy::SparkSketchV1`], V2
/// (seed 0) for [`Strategy::SparkSketchV2`]; other strategies are refused (`strategy`).
pub fn encode(filter: &BloomFilter) -> Result<Vec<u8>> {
    let version: i32 = match filter.strategy() {
        Strategy::SparkSketchV1 => 1,
        Strategy::SparkSketchV2 => 2,
        other => {
            return Err(Error::invalid(
                "strategy",
                format!(
                    "{other} is not a Spark sketch strategy; Spark's stream holds SPARK_SKETCH_V1 or SPARK_SKETCH_V2 filters"
                ),
            ));
        }
    };
    let num_words = big_endian_words::whole_words(filter, "Spark's")?;
    let mut header = Vec::with_capacity(V2_HEADER_LEN);
    header.extend_from_slice(&version.to_be_bytes());
    header.extend_from_slice(&(filter.num_hashes() as i32).to_be_bytes());
    if version == 2 {
        header.extend_from_slice(&0i32.to_be_bytes()); // the seed
    }
    header.extend_from_slice(&num_words.to_be_bytes());
    big_endian_words::encode(&header, filter)
}

/// Reads exactly one Spark stream (either version) occupying all of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<BloomFilter> {
    decode_with_limit(bytes, MAX_NUM_BITS)
}

/// [`decode`], refusing with [`Error::TooLarge`] a filter of more than `max_num_bits` bits.
pub fn decode_with_limit(bytes: &[u8], max_num_bits: u64) -> Result<BloomFilter> {
    parse_header(bytes)?.decode(bytes, max_num_bits)
}

/// Validates a whole header (12 bytes for V1, 16 for V2) and returns the stream's length.
pub fn total_len_with_limit(header: &[u8], max_num_bits: u64) -> Result<u64> {
    parse_header(header)?.total_len_with_limit(max_num_bits)
}

fn parse_header(bytes: &[u8]) -> Result<WordStream> {
    let header_len = header_len(bytes)?;
    super::check_header_present(bytes, header_len)?;
    let field = |i: usize| BigEndian::read_i32(&bytes[4 * i..]);
    let num_hashes = field(1);
    if !(1..=MAX_NUM_HASHES as i32).contains(&num_hashes) {
        return Err(Error::corrupt(
            "numHashFunctions",
            format!("{num_hashes} is not in 1..={MAX_NUM_HASHES}"),
        ));
    }
    let strategy = if header_len == V1_HEADER_LEN {
        Strategy::SparkSketchV1
    } else {
        let seed = field(2);
        if seed != 0 {
            return Err(Error::corrupt(
                "seed",
                format!("{seed}: only Spark's default seed 0 is supported"),
            ));
        }
        Strategy::SparkSketchV2
    };
    Ok(WordStream {
        strategy,
        header_len,
        num_hashes: num_hashes as u32,
        num_words: WordStream::num_words(field(header_len / 4 - 1))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spark 3.5.9's `create(100, 0.03)` after `putLong(1, 2, 3)` (shared notes, peers §3).
    const SPARK_359_V1: &str = "00000001000000050000000c000000000000000000001000000000000000000000010000000000000000100040001000200800020008000000000000010000000000000000000400000000000000000000000000000000000800000002000002010000000000000000000000";

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn spark_v1_bytes_decode_and_encode_back() {
        let bytes = unhex(SPARK_359_V1);
        let f = decode(&bytes).unwrap();
        assert_eq!(f.strategy(), Strategy::SparkSketchV1);
        assert_eq!((f.num_bits(), f.num_hashes()), (768, 5));
        assert!(f.might_contain(1) && f.might_contain(2) && f.might_contain(3));
        assert_eq!(encode(&f).unwrap(), bytes);
        // The same keys put into our own Spark V1 filter give Spark's bytes.
        let ours = BloomFilter::with_strategy(100, 0.03, Strategy::SparkSketchV1).unwrap();
        [1, 2, 3].iter().for_each(|&k| {
            ours.put(k);
        });
        assert_eq!(encode(&ours).unwrap(), bytes);
    }

    #[test]
    fn v2_round_trips_and_bad_fields_are_named() {
        let f = BloomFilter::with_strategy(100, 0.03, Strategy::SparkSketchV2).unwrap();
        f.put(1);
        let bytes = encode(&f).unwrap();
        assert_eq!(bytes[..16], unhex("0000000200000005000000000000000c")[..]);
        assert_eq!(decode(&bytes).unwrap(), f);
        let field = |b: &[u8]| match decode(b).unwrap_err() {
            Error::Corrupt { field, .. } => field,
            e => panic!("{e}"),
        };
        let mut seeded = bytes.clone();
        seeded[11] = 7;
        assert_eq!(field(&seeded), "seed");
        let mut bad_version = bytes.clone();
        bad_version[3] = 3;
        assert_eq!(field(&bad_version), "version");
        assert_eq!(field(&bytes[..bytes.len() - 1]), "length");
        let guava = BloomFilter::new(100, 0.03).unwrap();
        assert!(encode(&guava).unwrap_err().to_string().contains("strategy"));
    }

    #[test]
    fn spark_filters_are_format_version_4_in_ours() {
        for strategy in [Strategy::SparkSketchV1, Strategy::SparkSketchV2] {
            let f = BloomFilter::with_strategy(1_000, 0.01, strategy).unwrap();
            f.put_str("é😀");
            let ours = crate::format::encode(&f);
            assert_eq!((ours[4], ours[5]), (4, strategy.ordinal()));
            let back = crate::format::decode(&ours).unwrap();
            assert_eq!(back, f);
            assert!(back.might_contain_str("é😀"));
            let mut as_v1 = ours.clone();
            as_v1[4] = 1;
            assert!(
                crate::format::decode(&as_v1)
                    .unwrap_err()
                    .to_string()
                    .contains("strategy")
            );
        }
        // Guava's stream has no such strategy: refused by the Guava reader.
        let mut guava =
            crate::format::guava::encode(&BloomFilter::new(100, 0.03).unwrap()).unwrap();
        guava[0] = 2;
        assert!(
            crate::format::guava::decode(&guava)
                .unwrap_err()
                .to_string()
                .contains("strategy")
        );
    }
}
