//! The valid golden filters: each one's sizing, (n, fpp), strategy and keys, and the manifest
//! row that describes it.

use sparkbloom::{BloomFilter, Strategy, sizing};
use sparkbloom_testkit::splitmix64;
use std::fmt::Write as _;

enum Keys {
    Long(Vec<i64>),
    Utf8(Vec<String>),
}

/// How (n, fpp) become the filter's shape.
#[derive(Clone, Copy, PartialEq)]
pub enum Sizing {
    /// Guava's `create(n, fpp)`: m rounded up to whole words (format version 1).
    Guava,
    /// The Redis "BloomFilterHelper": m not rounded (`sizing::redis_helper_shape`), so m is
    /// not a multiple of 64 here and the files are format version 2.
    Helper,
    /// A BLOCKED filter's own sizing (`blocked_sizing::shape_for`): whole 512-bit blocks,
    /// format version 5; no Guava twin.
    Blocked,
}

pub struct Spec {
    pub name: &'static str,
    pub sizing: Sizing,
    n: u64,
    fpp: &'static str,
    strategy: Strategy,
    pub keys_file: &'static str,
    keys: Keys,
}

impl Spec {
    pub fn filter(&self) -> BloomFilter {
        let fpp = self.fpp.parse().expect("fpp");
        let shape = match self.sizing {
            Sizing::Guava => sizing::shape_for(self.n, fpp),
            Sizing::Helper => sizing::redis_helper_shape(self.n, fpp),
            Sizing::Blocked => sparkbloom::blocked_sizing::shape_for(self.n, fpp),
        }
        .expect("shape");
        let filter = BloomFilter::with_shape(shape, self.strategy).expect("filter");
        match &self.keys {
            Keys::Long(keys) => keys.iter().for_each(|&k| {
                filter.put(k as u64);
            }),
            Keys::Utf8(keys) => keys.iter().for_each(|k| {
                filter.put_str(k);
            }),
        }
        filter
    }

    fn key_type(&self) -> &'static str {
        match self.keys {
            Keys::Long(_) => "long",
            Keys::Utf8(_) => "utf8",
        }
    }

    pub fn keys_text(&self) -> String {
        let mut text = String::new();
        match &self.keys {
            Keys::Long(keys) => keys.iter().for_each(|k| writeln!(text, "{k}").unwrap()),
            Keys::Utf8(keys) => keys.iter().for_each(|k| writeln!(text, "{k}").unwrap()),
        }
        text
    }

    pub fn row(&self, file: &str, format: &str, expect: &str) -> String {
        format!(
            "{file}\t{format}\t{}\t{}\t{}\t{}\t{}\t{expect}\t{}",
            self.strategy.name(),
            self.n,
            self.fpp,
            self.key_type(),
            self.keys_file,
            match self.sizing {
                Sizing::Guava => "guava",
                Sizing::Helper => "helper",
                Sizing::Blocked => "blocked",
            }
        )
    }
}

fn seeded(seed: u64, count: usize) -> Vec<i64> {
    let mut state = seed;
    (0..count).map(|_| splitmix64(&mut state) as i64).collect()
}

pub fn specs() -> Vec<Spec> {
    let mut words: Vec<String> = (0..250).map(|i| format!("user-{i}")).collect();
    words.extend(
        [
            "abc",
            "héllo wörld",
            "日本語のキー",
            "🦀 crab",
            "Ünïcödé – dash",
            "comma, \"quotes\" and 'apostrophes'",
            "ελληνικά",
            "x",
        ]
        .map(String::from),
    );
    vec![
        Spec {
            sizing: Sizing::Guava,
            name: "n100_p0.03_keys123",
            n: 100,
            fpp: "0.03",
            strategy: Strategy::Murmur128Mitz64,
            keys_file: "keys_1_2_3.txt",
            keys: Keys::Long(vec![1, 2, 3]),
        },
        Spec {
            sizing: Sizing::Guava,
            name: "n10000_p0.001_200keys",
            n: 10_000,
            fpp: "0.001",
            strategy: Strategy::Murmur128Mitz64,
            keys_file: "keys_seeded_200.txt",
            keys: Keys::Long(seeded(2024, 200)),
        },
        Spec {
            sizing: Sizing::Guava,
            name: "n10000_p0.001_10000keys",
            n: 10_000,
            fpp: "0.001",
            strategy: Strategy::Murmur128Mitz64,
            keys_file: "keys_seeded_10000.txt",
            keys: Keys::Long(seeded(2024, 10_000)),
        },
        Spec {
            sizing: Sizing::Guava,
            name: "n1000_p0.01_mitz32",
            n: 1_000,
            fpp: "0.01",
            strategy: Strategy::Murmur128Mitz32,
            keys_file: "keys_seeded_1000.txt",
            keys: Keys::Long(seeded(32, 1_000)),
        },
        Spec {
            sizing: Sizing::Guava,
            name: "n1000_p0.01_mitz32_sparse",
            n: 1_000,
            fpp: "0.01",
            strategy: Strategy::Murmur128Mitz32,
            keys_file: "keys_1_2_3.txt",
            keys: Keys::Long(vec![1, 2, 3]),
        },
        Spec {
            sizing: Sizing::Guava,
            name: "n1000_p0.01_utf8",
            n: 1_000,
            fpp: "0.01",
            strategy: Strategy::Murmur128Mitz64,
            keys_file: "keys_utf8.txt",
            keys: Keys::Utf8(words.clone()),
        },
        Spec {
            sizing: Sizing::Guava,
            name: "n1000_p0.01_empty",
            n: 1_000,
            fpp: "0.01",
            strategy: Strategy::Murmur128Mitz64,
            keys_file: "keys_empty.txt",
            keys: Keys::Long(vec![]),
        },
        Spec {
            sizing: Sizing::Guava,
            name: "n1_p0.5_one_word",
            n: 1,
            fpp: "0.5",
            strategy: Strategy::Murmur128Mitz64,
            keys_file: "keys_small_signed.txt",
            keys: Keys::Long(vec![-1, 0, 42, i64::MIN, i64::MAX]),
        },
        // The Redis helper's shapes (m not a multiple of 64: format version 2), sparse and dense.
        Spec {
            sizing: Sizing::Helper,
            name: "helper_n10000_p0.001_200keys",
            n: 10_000,
            fpp: "0.001",
            strategy: Strategy::Murmur128Mitz32,
            keys_file: "keys_seeded_200.txt",
            keys: Keys::Long(seeded(2024, 200)),
        },
        Spec {
            sizing: Sizing::Helper,
            name: "helper_n50_p0.03_utf8",
            n: 50,
            fpp: "0.03",
            strategy: Strategy::Murmur128Mitz32,
            keys_file: "keys_utf8.txt",
            keys: Keys::Utf8(words.clone()),
        },
        // BLOCKED (format version 5), sparse and dense.
        Spec {
            sizing: Sizing::Blocked,
            name: "blocked_n10000_p0.01_200keys",
            n: 10_000,
            fpp: "0.01",
            strategy: Strategy::Blocked,
            keys_file: "keys_seeded_200.txt",
            keys: Keys::Long(seeded(2024, 200)),
        },
        Spec {
            sizing: Sizing::Blocked,
            name: "blocked_n10000_p0.01_10000keys",
            n: 10_000,
            fpp: "0.01",
            strategy: Strategy::Blocked,
            keys_file: "keys_seeded_10000.txt",
            keys: Keys::Long(seeded(2024, 10_000)),
        },
    ]
}
