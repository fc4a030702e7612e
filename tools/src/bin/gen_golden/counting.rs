//! The counting filter's golden files (FORMAT.md §10): `counting/` and `manifest_counting.tsv`,
//! same columns as `manifest.tsv` with format `counting`. Each row's keys are added once per
//! line (read back from the keys files `generate` has just written), so files stay in step.

use sparkbloom::format::counting::{decode, encode};
use sparkbloom::{CountingBloomFilter, Error, Strategy, sizing};
use std::fs;
use std::path::Path;

struct Spec {
    name: &'static str,
    helper: bool,
    n: u64,
    fpp: &'static str,
    strategy: Strategy,
    key_type: &'static str,
    keys_file: &'static str,
}

const SPECS: [Spec; 6] = [
    Spec {
        name: "n100_p0.03_keys123",
        helper: false,
        n: 100,
        fpp: "0.03",
        strategy: Strategy::Murmur128Mitz64,
        key_type: "long",
        keys_file: "keys_1_2_3.txt",
    },
    Spec {
        name: "n1000_p0.01_1000keys_mitz32",
        helper: false,
        n: 1000,
        fpp: "0.01",
        strategy: Strategy::Murmur128Mitz32,
        key_type: "long",
        keys_file: "keys_seeded_1000.txt",
    },
    Spec {
        name: "n1000_p0.01_10000keys_dense",
        helper: false,
        n: 1000,
        fpp: "0.01",
        strategy: Strategy::Murmur128Mitz64,
        key_type: "long",
        keys_file: "keys_seeded_10000.txt",
    },
    Spec {
        name: "n1000_p0.01_utf8",
        helper: false,
        n: 1000,
        fpp: "0.01",
        strategy: Strategy::Murmur128Mitz64,
        key_type: "utf8",
        keys_file: "keys_utf8.txt",
    },
    Spec {
        name: "n1000_p0.01_empty",
        helper: false,
        n: 1000,
        fpp: "0.01",
        strategy: Strategy::Murmur128Mitz64,
        key_type: "long",
        keys_file: "keys_empty.txt",
    },
    Spec {
        name: "helper_n50_p0.03_utf8",
        helper: true,
        n: 50,
        fpp: "0.03",
        strategy: Strategy::Murmur128Mitz32,
        key_type: "utf8",
        keys_file: "keys_utf8.txt",
    },
];

impl Spec {
    fn filter(&self, dir: &Path) -> CountingBloomFilter {
        let fpp = self.fpp.parse().expect("fpp");
        let shape = if self.helper {
            sizing::redis_helper_shape(self.n, fpp)
        } else {
            sizing::shape_for_strategy(self.n, fpp, self.strategy)
        }
        .expect("shape");
        let filter = CountingBloomFilter::with_shape(shape, self.strategy).expect("filter");
        let keys = fs::read_to_string(dir.join(self.keys_file)).expect("keys file");
        for line in keys.lines() {
            match self.key_type {
                "long" => filter.add(line.parse::<i64>().expect("long key") as u64),
                _ => filter.add_str(line),
            };
        }
        filter
    }

    fn row(&self, file: &str, expect: &str) -> String {
        format!(
            "{file}\tcounting\t{}\t{}\t{}\t{}\t{}\t{expect}\t{}",
            self.strategy.name(),
            self.n,
            self.fpp,
            self.key_type,
            self.keys_file,
            if self.helper { "helper" } else { "guava" }
        )
    }
}

fn field_of(result: Result<CountingBloomFilter, Error>) -> String {
    match result {
        Ok(_) => "ok".to_string(),
        Err(Error::Corrupt { field, .. }) => field.to_string(),
        Err(other) => panic!("not a Corrupt error: {other}"),
    }
}

/// Writes `counting/` and `manifest_counting.tsv` into `dir`; `recrc` fixes a trailer.
pub fn generate(dir: &Path, header: &str, recrc: fn(Vec<u8>) -> Vec<u8>) {
    let mut manifest = vec![header.to_string()];
    let mut valid = Vec::new();
    for spec in &SPECS {
        let filter = spec.filter(dir);
        let bytes = encode(&filter);
        assert!(decode(&bytes).expect("decodes") == filter);
        let file = format!("counting/{}.sbloom", spec.name);
        super::write(dir, &file, &bytes);
        manifest.push(spec.row(&file, "ok"));
        valid.push(bytes);
    }
    // (base spec, file, expected field, damage)
    type Damage = fn(&mut [u8]);
    let corrupt: [(usize, &str, &str, Damage, bool); 11] = [
        (0, "bad_magic", "magic", |b| b[0] = b'X', true),
        (0, "unknown_version", "version", |b| b[4] = 9, true),
        (0, "plain_version_1", "version", |b| b[4] = 1, true),
        (0, "unknown_strategy", "strategy", |b| b[5] = 7, true),
        (0, "unknown_encoding", "encoding", |b| b[6] = 2, true),
        (0, "k_zero", "numHashFunctions", |b| b[7] = 0, true),
        (0, "m_zero", "numBits", |b| b[8..16].fill(0), true),
        (
            2,
            "dense_payload_length_mismatch",
            "payloadLength",
            |b| b[16] ^= 8,
            true,
        ),
        (
            0,
            "bad_checksum",
            "checksum",
            |b| *b.last_mut().unwrap() ^= 1,
            false,
        ),
        // The first entry's 4-bit value (after its Rice code) set to 0.
        (0, "sparse_zero_value", "payload", zero_first_value, true),
        // A counter at m in the last word of the helper's m = 364 (not a multiple of 16).
        (5, "dense_counter_at_m", "payload", |_| {}, false),
    ];
    for (base, name, expect, damage, fix) in corrupt {
        let mut bytes = valid[base].clone();
        if name == "dense_counter_at_m" {
            bytes = dense_with_counter_at_m(&SPECS[base], dir, recrc);
        }
        damage(&mut bytes);
        if fix {
            bytes = recrc(bytes);
        }
        assert_eq!(field_of(decode(&bytes)), expect, "{name}");
        let file = format!("counting/corrupt/{name}.sbloom");
        super::write(dir, &file, &bytes);
        manifest.push(SPECS[base].row(&file, expect));
    }
    super::write(
        dir,
        "manifest_counting.tsv",
        (manifest.join("\n") + "\n").as_bytes(),
    );
}

/// Sets the value bits of the first sparse entry to 0 (its Rice code is q ones, a zero, r bits).
fn zero_first_value(bytes: &mut [u8]) {
    assert_eq!(bytes[6], 1, "sparse");
    let r = bytes[24 + 8] as usize;
    let data = 24 + 9;
    let mut bit = 0;
    while bytes[data + bit / 8] >> (bit % 8) & 1 == 1 {
        bit += 1;
    }
    bit += 1 + r;
    for i in bit..bit + 4 {
        bytes[data + i / 8] &= !(1 << (i % 8));
    }
}

/// The helper filter, dense, with the counter at position m set in its last word.
fn dense_with_counter_at_m(spec: &Spec, dir: &Path, recrc: fn(Vec<u8>) -> Vec<u8>) -> Vec<u8> {
    let filter = spec.filter(dir);
    let m = filter.num_bits();
    assert!(!m.is_multiple_of(16), "m = {m}");
    let words: Vec<u64> = filter.words().collect();
    let mut bytes = b"SBLM".to_vec();
    bytes.extend_from_slice(&[3, filter.strategy().ordinal(), 0, filter.num_hashes() as u8]);
    bytes.extend_from_slice(&m.to_le_bytes());
    bytes.extend_from_slice(&(words.len() as u64 * 8).to_le_bytes());
    for (i, w) in words.iter().enumerate() {
        let w = if i == words.len() - 1 {
            w | 1 << ((m % 16) * 4)
        } else {
            *w
        };
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    bytes.extend_from_slice(&[0; 4]);
    recrc(bytes)
}
