//! # sparkbloom
//!
//! A Bloom filter that places its bits exactly where Guava's `BloomFilter` does, with a
//! documented, versioned, checksummed binary layout (`FORMAT.md`), built for per-user
//! dedup in Apache Spark through a JNI bridge.
//!
//! * **No false negatives**: a key that was put is always reported as possibly present.
//! * **False positives at the configured rate**: `BloomFilter::new(n, p)` sizes the filter as
//!   Guava's `BloomFilter.create(Funnels.longFunnel(), n, p)` does (same m, same k).
//! * **Fixed size**, thread-safe puts and queries (writers take turns, readers never wait),
//!   union and intersection.
//!
//! ```
//! use sparkbloom::BloomFilter;
//!
//! let seen = BloomFilter::new(10_000, 0.001)?;   // a per-user filter
//! seen.put_all(&[17, 42, 99]);
//! assert!(seen.might_contain(42));
//! // Keep the recommendations this user has certainly not seen, in order.
//! assert_eq!(seen.retain_absent(&[42, 7, 99, 8]), vec![7, 8]);
//! # Ok::<(), sparkbloom::Error>(())
//! ```
//!
//! Filters travel as bytes in a checksummed format both peers read ([`mod@format`]), or as
//! Guava's own `writeTo` stream ([`format::guava`]):
//!
//! ```
//! use sparkbloom::{BloomFilter, format};
//!
//! let f = BloomFilter::new(10_000, 0.001)?;
//! f.put_all(&[17, 42, 99]);
//! assert_eq!(f.bits_set(), 29); // 3 keys × k = 10 positions, two of them shared
//! let bytes = format::encode(&f); // sparse: far smaller than the 17,976 dense bytes
//! assert_eq!(bytes.len(), 87); // header 24, count and r 9, 29 Rice codes 50, CRC 4
//! assert_eq!(format::decode(&bytes)?, f);
//! let guava = format::guava::encode(&f)?; // what Guava's writeTo writes: 6 + 8 · 2,247 bytes
//! assert_eq!(guava.len(), 17_982);
//! assert_eq!(format::guava::decode(&guava)?, f);
//! # Ok::<(), sparkbloom::Error>(())
//! ```
//!
//! The JNI bridge behind the Java library is compiled only with the `jni` feature.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod atomic_words;
mod bit_array;
mod blocked_layout;
pub mod blocked_sizing;
pub mod counting;
pub mod error;
mod filter;
pub mod format;
pub mod hashing;
mod kernels;
// The JNI bridge, with the `jni` feature only (the JVM build enables it). Its
// `Java_io_sparkbloom_*` exports are `pub` for the dynamic linker, not for Rust callers.
#[cfg(feature = "jni")]
#[allow(unreachable_pub)]
mod jni;
mod layout;
mod le;
mod memory_limit;
mod per_key_sizing;
mod shape;
pub mod sizing;
pub mod spark_hashing;
mod strategy;
#[cfg(test)]
mod testutil;

pub use counting::CountingBloomFilter;
pub use error::{Error, Result};
pub use filter::{BloomFilter, PackedBytes};
pub use sizing::Shape;
pub use strategy::Strategy;

/// The README's Rust example, run as a doc test so the README cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
