//! The 24-byte header of format v1: what the filter is and how long its payload is.
//!
//! | off | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `SBLM` |
//! | 4 | 1 | version: 4 for Spark sketch strategies, 5 for BLOCKED; else 1 when m is a multiple of 64, 2 otherwise |
//! | 5 | 1 | strategy (Guava ordinal; 2, 3 Spark sketch V1, V2; 4 BLOCKED) |
//! | 6 | 1 | encoding: 0 dense, 1 sparse |
//! | 7 | 1 | k, 1..=255 |
//! | 8 | 8 | m, u64 LE, 1..=2^43; a multiple of 64 exactly when version = 1 |
//! | 16 | 8 | payload length, u64 LE |

use super::{HEADER_LEN, TRAILER_LEN, dense, sparse};
use crate::error::{Error, Result};
use crate::le;
use crate::sizing::{Shape, num_bits_violation};
use crate::strategy::Strategy;

/// The format version of a counting filter with 4-bit counters (FORMAT.md §10).
pub(crate) const VERSION_COUNTING_4BIT: u8 = 3;

/// "SBLM": spells the format in a hex dump and rejects foreign bytes early.
pub(crate) const MAGIC: [u8; 4] = *b"SBLM";
/// The version of filters whose m is a multiple of 64; stays readable forever.
pub(crate) const VERSION: u8 = 1;
/// The version of filters whose m is not a multiple of 64 (the Redis helper's layout): the
/// same layout, but version-1 readers must refuse m they cannot represent, so they meet an
/// unknown version first.
pub(crate) const VERSION_ANY_BITS: u8 = 2;
/// The version of filters with a Spark sketch strategy (ordinal 2 or 3), any m: the same
/// layout, but version-1 and -2 readers meet an unknown version before an unknown strategy.
/// (Version 3 is the counting filter, `format::counting`.)
pub(crate) const VERSION_SPARK: u8 = 4;
/// The version of BLOCKED filters (strategy 4, m a multiple of 512): the same layout, but a
/// reader that knows only versions 1–4 must refuse the file (it would walk the bits as a
/// classic filter and answer wrongly) and meets an unknown version first.
pub(crate) const VERSION_BLOCKED: u8 = 5;

/// The version a filter of `num_bits` bits and `strategy` is written with.
pub(crate) fn version_for(num_bits: u64, strategy: Strategy) -> u8 {
    if strategy.is_spark() {
        VERSION_SPARK
    } else if strategy.layout().is_blocked() {
        VERSION_BLOCKED
    } else if num_bits.is_multiple_of(64) {
        VERSION
    } else {
        VERSION_ANY_BITS
    }
}

/// How the payload stores the positions (bits, or the counting filter's counters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// The words of the array, little-endian.
    Dense = 0,
    /// Rice-coded gaps between set positions (see `sparse.rs`; counters carry their value).
    Sparse = 1,
}

/// What sets one kind of filter's header apart from the other's (plain filters: versions 1, 2,
/// 4 and 5; the counting filter: version 3, `format::counting`): the version it writes, its
/// rules for the version, strategy and m bytes, and its dense payload length. Every other
/// field is read and checked alike.
pub(crate) struct Kind {
    /// The version byte written for a filter of m positions and this strategy.
    pub(crate) version_for: fn(u64, Strategy) -> u8,
    /// Bytes 4 and 5 (version, strategy ordinal) to the strategy, or an error naming the first
    /// bad one.
    pub(crate) version_and_strategy: fn(u8, u8) -> Result<Strategy>,
    /// m's rules beyond 1..=2^43, for this version and strategy.
    pub(crate) num_bits: fn(u8, Strategy, u64) -> Result<()>,
    /// Bytes of a dense payload of m positions.
    pub(crate) dense_len: fn(u64) -> u64,
    /// What the positions are called in errors: "bits", "counters".
    pub(crate) positions: &'static str,
}

/// The plain filter's header rules.
pub(crate) const PLAIN: Kind = Kind {
    version_for,
    version_and_strategy: plain_version_and_strategy,
    num_bits: plain_num_bits,
    dense_len: dense::payload_len,
    positions: "bits",
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) strategy: Strategy,
    pub(crate) encoding: Encoding,
    pub(crate) shape: Shape,
    pub(crate) payload_len: u64,
}

impl Header {
    /// The bytes of a plain filter's header.
    pub(crate) fn to_bytes(self) -> [u8; HEADER_LEN] {
        self.to_bytes_as(&PLAIN)
    }

    /// The bytes of this header for a filter of `kind`.
    pub(crate) fn to_bytes_as(self, kind: &Kind) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0..4].copy_from_slice(&MAGIC);
        out[4] = (kind.version_for)(self.shape.num_bits, self.strategy);
        out[5] = self.strategy.ordinal();
        out[6] = self.encoding as u8;
        // k ≤ 255 is an invariant of every filter (sizing::check_num_hashes).
        out[7] = self.shape.num_hashes as u8;
        out[8..16].copy_from_slice(&self.shape.num_bits.to_le_bytes());
        out[16..24].copy_from_slice(&self.payload_len.to_le_bytes());
        out
    }

    /// Header, payload and trailer: at most 24 + 2^40 + 4, so no overflow.
    pub(crate) fn total_len(&self) -> u64 {
        (HEADER_LEN + TRAILER_LEN) as u64 + self.payload_len
    }

    /// Validates a plain filter's header: [`parse_as`](Self::parse_as) with [`PLAIN`].
    pub(crate) fn parse(bytes: &[u8]) -> Result<Header> {
        Header::parse_as(bytes, &PLAIN)
    }

    /// Validates every header field, in layout order, from the first [`HEADER_LEN`] bytes, by
    /// the rules of `kind`; an error names the first bad field.
    pub(crate) fn parse_as(bytes: &[u8], kind: &Kind) -> Result<Header> {
        // A short foreign input is more usefully "not ours" than "truncated".
        let seen = bytes.len().min(MAGIC.len());
        if bytes[..seen] != MAGIC[..seen] {
            return Err(Error::corrupt(
                "magic",
                format!("expected 53424c4d (\"SBLM\"), got {}", hex(&bytes[..seen])),
            ));
        }
        super::check_header_present(bytes, HEADER_LEN)?;
        let version = bytes[4];
        let strategy = (kind.version_and_strategy)(version, bytes[5])?;
        let encoding = match bytes[6] {
            0 => Encoding::Dense,
            1 => Encoding::Sparse,
            other => {
                return Err(Error::corrupt(
                    "encoding",
                    format!("unknown encoding {other}; expected 0 (dense) or 1 (sparse)"),
                ));
            }
        };
        let num_hashes = bytes[7] as u32;
        if num_hashes == 0 {
            return Err(Error::corrupt("numHashFunctions", "0 is not in 1..=255"));
        }
        let num_bits = le::u64_at(bytes, 8);
        if let Some(rule) = num_bits_violation(num_bits) {
            return Err(Error::corrupt("numBits", format!("{num_bits} {rule}")));
        }
        (kind.num_bits)(version, strategy, num_bits)?;
        let payload_len = le::u64_at(bytes, 16);
        check_payload_len(kind, num_bits, encoding, payload_len)?;
        Ok(Header {
            strategy,
            encoding,
            shape: Shape {
                num_bits,
                num_hashes,
            },
            payload_len,
        })
    }
}

/// A dense payload is exactly `dense_len(m)` bytes; a sparse one lies between the smallest
/// sparse payload and the dense length, and only a filter whose dense payload is larger than
/// the smallest sparse one can be sparse.
fn check_payload_len(
    kind: &Kind,
    num_bits: u64,
    encoding: Encoding,
    payload_len: u64,
) -> Result<()> {
    let dense_len = (kind.dense_len)(num_bits);
    let positions = kind.positions;
    let min_sparse = sparse::MIN_PAYLOAD_LEN;
    match encoding {
        Encoding::Dense if payload_len != dense_len => Err(Error::corrupt(
            "payloadLength",
            format!(
                "dense payload of {num_bits} {positions} must be {dense_len} bytes, header says {payload_len}"
            ),
        )),
        Encoding::Sparse if dense_len <= min_sparse => Err(Error::corrupt(
            "encoding",
            format!(
                "a filter of {num_bits} {positions} is never sparse: its dense payload ({dense_len} bytes) is no larger than the smallest sparse one ({min_sparse} bytes)"
            ),
        )),
        Encoding::Sparse if payload_len < min_sparse || payload_len >= dense_len => {
            Err(Error::corrupt(
                "payloadLength",
                format!(
                    "sparse payload of {num_bits} {positions} must be {min_sparse} to {} bytes (smaller than the dense {dense_len}), header says {payload_len}",
                    dense_len - 1
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// The plain filter's versions and strategies: versions 1 and 2 hold the Guava strategies,
/// 4 the Spark sketch ones, 5 BLOCKED (checked with m, below); version 3 is the counting filter.
fn plain_version_and_strategy(version: u8, ordinal: u8) -> Result<Strategy> {
    if ![VERSION, VERSION_ANY_BITS, VERSION_SPARK, VERSION_BLOCKED].contains(&version) {
        // Version 3 is another kind of filter, not a newer plain one: say which.
        let kind = if version == VERSION_COUNTING_4BIT {
            " (a counting Bloom filter: read it with CountingBloomFilter)"
        } else {
            ""
        };
        return Err(Error::corrupt(
            "version",
            format!(
                "unknown format version {version}{kind}; this reader knows versions {VERSION}, {VERSION_ANY_BITS}, {VERSION_SPARK} and {VERSION_BLOCKED}"
            ),
        ));
    }
    let strategy = Strategy::from_ordinal(ordinal).ok_or_else(|| {
        Error::corrupt(
            "strategy",
            format!(
                "unknown strategy ordinal {ordinal}; expected 0 (MURMUR128_MITZ_32), 1 (MURMUR128_MITZ_64), 2 (SPARK_SKETCH_V1), 3 (SPARK_SKETCH_V2) or 4 (BLOCKED)"
            ),
        )
    })?;
    // Version 4 exists only for the Spark strategies: with a Guava strategy the version is
    // wrong (a file of an unknown version, as readers before version 4 saw it).
    if version == VERSION_SPARK && !strategy.is_spark() {
        return Err(Error::corrupt(
            "version",
            format!(
                "format version {version} holds only the Spark sketch strategies (2, 3), not {strategy}"
            ),
        ));
    }
    if version != VERSION_SPARK && strategy.is_spark() {
        return Err(Error::corrupt(
            "strategy",
            format!("{strategy} is a strategy of format version {VERSION_SPARK}, not {version}"),
        ));
    }
    Ok(strategy)
}

/// The plain filter's rules for m by version: a multiple of 64 exactly in version 1, whole
/// 512-bit blocks in BLOCKED's version 5 (which holds BLOCKED only), any m in version 4.
fn plain_num_bits(version: u8, strategy: Strategy, num_bits: u64) -> Result<()> {
    // Versions 4 and 5 each hold their strategies only, with any m they allow.
    if (version == VERSION_BLOCKED) != strategy.layout().is_blocked() {
        return Err(Error::corrupt(
            "version",
            format!(
                "format version {version} does not hold {strategy} filters (BLOCKED is version {VERSION_BLOCKED}, and version {VERSION_BLOCKED} holds only BLOCKED)"
            ),
        ));
    }
    if strategy.layout().is_blocked() && !num_bits.is_multiple_of(crate::blocked_sizing::BLOCK_BITS)
    {
        return Err(Error::corrupt(
            "numBits",
            format!("{num_bits} must be a multiple of 512 in a BLOCKED filter"),
        ));
    }
    if version < VERSION_SPARK && version_for(num_bits, strategy) != version {
        let rule = if version == VERSION {
            "a multiple of 64 in version 1"
        } else {
            "not a multiple of 64 in version 2"
        };
        return Err(Error::corrupt(
            "numBits",
            format!("{num_bits} must be {rule}"),
        ));
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
