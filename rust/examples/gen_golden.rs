//! (Over 500 lines because it is one table of every golden and corrupt file with the code that
//! makes each; splitting it would scatter the list the manifest mirrors.)
//!
//! Writes the golden files of `tests/golden/` (run `scripts/gen-golden.sh`): filters in format
//! v1 and in Guava's `writeTo` stream, the keys put into each, deliberately corrupt files, and
//! `manifest.tsv` listing them all. Deterministic: fixed shapes, seeded keys, and an encoder
//! that gives equal bytes for equal filters, so a rerun rewrites identical files.
//!
//! `cargo run --example gen_golden -- <dir>` writes the files; `-- --sizing-table` prints the
//! sizing table of FORMAT.md instead.

use sparkbloom::format::guava::{decode as read_guava, encode as write_guava};
use sparkbloom::format::{HEADER_LEN, TRAILER_LEN, decode, encode};
use sparkbloom::testutil::splitmix64;
use sparkbloom::{BloomFilter, Error, Strategy, sizing};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

#[path = "gen_golden_counting.rs"]
mod counting;

const MANIFEST_HEADER: &str = "file\tformat\tstrategy\tn\tfpp\tkey_type\tkeys\texpect\tsizing";

enum Keys {
    Long(Vec<i64>),
    Utf8(Vec<String>),
}

/// How (n, fpp) become the filter's shape.
#[derive(Clone, Copy, PartialEq)]
enum Sizing {
    /// Guava's `create(n, fpp)`: m rounded up to whole words (format version 1).
    Guava,
    /// The Redis "BloomFilterHelper": m not rounded (`sizing::redis_helper_shape`), so m is
    /// not a multiple of 64 here and the files are format version 2.
    Helper,
    /// A BLOCKED filter's own sizing (`blocked_sizing::shape_for`): whole 512-bit blocks,
    /// format version 5; no Guava twin.
    Blocked,
}

struct Spec {
    name: &'static str,
    sizing: Sizing,
    n: u64,
    fpp: &'static str,
    strategy: Strategy,
    keys_file: &'static str,
    keys: Keys,
}

impl Spec {
    fn filter(&self) -> BloomFilter {
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

    fn keys_text(&self) -> String {
        let mut text = String::new();
        match &self.keys {
            Keys::Long(keys) => keys.iter().for_each(|k| writeln!(text, "{k}").unwrap()),
            Keys::Utf8(keys) => keys.iter().for_each(|k| writeln!(text, "{k}").unwrap()),
        }
        text
    }

    fn row(&self, file: &str, format: &str, expect: &str) -> String {
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

fn specs() -> Vec<Spec> {
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

/// Replaces the CRC-32 trailer so that only the deliberate damage is wrong.
fn recrc(mut bytes: Vec<u8>) -> Vec<u8> {
    let body = bytes.len() - TRAILER_LEN;
    let crc = crc32(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// CRC-32/ISO-HDLC, bit by bit: independent of the crate's `crc32fast` on purpose.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn set_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// Format v1 bytes of a sparse filter with m = 768, k = 5 whose single set bit, coded with
/// r = 10 as gap 800, lies past m.
fn sparse_position_out_of_range() -> Vec<u8> {
    let mut bytes = b"SBLM".to_vec();
    bytes.extend_from_slice(&[1, 1, 1, 5]);
    bytes.extend_from_slice(&768u64.to_le_bytes());
    bytes.extend_from_slice(&11u64.to_le_bytes());
    bytes.extend_from_slice(&1u64.to_le_bytes()); // X = 1
    bytes.push(10); // r
    // Code of 800: q = 0 → a single zero bit, then 800 in 10 bits LSB-first: 11 bits.
    let code = (800u32) << 1;
    bytes.extend_from_slice(&[code as u8, (code >> 8) as u8]);
    bytes.extend_from_slice(&[0; 4]);
    recrc(bytes)
}

struct Corrupt {
    file: String,
    base: usize,
    format: &'static str,
    expect: &'static str,
    bytes: Vec<u8>,
}

/// Each corrupt file damages one thing of a valid file (fixing the CRC unless the damage is
/// the CRC or the length), so the decoder must name exactly that field.
fn corrupt_files(specs: &[Spec], sbloom: &[Vec<u8>], guava: &[Vec<u8>]) -> Vec<Corrupt> {
    let sparse = 0; // n100_p0.03_keys123: sparse, m = 768
    let by_name = |name: &str| specs.iter().position(|s| s.name == name).expect(name);
    let dense = by_name("n1_p0.5_one_word"); // dense, m = 64
    let v2_dense = by_name("helper_n50_p0.03_utf8"); // dense, m = 364
    assert_eq!(sbloom[sparse][6], 1);
    assert_eq!(sbloom[dense][6], 0);
    assert_eq!((sbloom[v2_dense][4], sbloom[v2_dense][6]), (2, 0));
    let edit = |base: usize, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = sbloom[base].clone();
        f(&mut b);
        recrc(b)
    };
    let raw = |base: usize, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = sbloom[base].clone();
        f(&mut b);
        b
    };
    let guava_edit = |base: usize, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = guava[base].clone();
        f(&mut b);
        b
    };
    let data_end = sbloom[sparse].len() - TRAILER_LEN;
    let mut out = vec![
        (
            "bad_magic.sbloom",
            sparse,
            "magic",
            edit(sparse, &|b| b[3] = b'X'),
        ),
        (
            "unknown_version.sbloom",
            sparse,
            "version",
            edit(sparse, &|b| b[4] = 3),
        ),
        (
            "version2_m_multiple_of_64.sbloom",
            sparse,
            "numBits",
            edit(sparse, &|b| b[4] = 2),
        ),
        (
            "version2_dense_bit_at_m.sbloom",
            v2_dense,
            "payload",
            // m = 364: bit 364 is byte 45, mask 0x10, of the dense payload.
            edit(v2_dense, &|b| b[HEADER_LEN + 45] |= 0x10),
        ),
        (
            "unknown_strategy.sbloom",
            sparse,
            "strategy",
            edit(sparse, &|b| b[5] = 2),
        ),
        (
            "unknown_encoding.sbloom",
            sparse,
            "encoding",
            edit(sparse, &|b| b[6] = 2),
        ),
        (
            "k_zero.sbloom",
            sparse,
            "numHashFunctions",
            edit(sparse, &|b| b[7] = 0),
        ),
        (
            "m_not_multiple_of_64.sbloom",
            sparse,
            "numBits",
            edit(sparse, &|b| set_u64(b, 8, 770)),
        ),
        (
            "m_zero.sbloom",
            sparse,
            "numBits",
            edit(sparse, &|b| set_u64(b, 8, 0)),
        ),
        (
            "m_above_max.sbloom",
            sparse,
            "numBits",
            edit(sparse, &|b| set_u64(b, 8, sizing::MAX_NUM_BITS + 64)),
        ),
        (
            "dense_payload_length_mismatch.sbloom",
            dense,
            "payloadLength",
            edit(dense, &|b| set_u64(b, 16, 16)),
        ),
        (
            "sparse_payload_not_smaller.sbloom",
            sparse,
            "payloadLength",
            edit(sparse, &|b| set_u64(b, 16, 96)),
        ),
        (
            "truncated.sbloom",
            sparse,
            "length",
            raw(sparse, &|b| {
                b.pop();
            }),
        ),
        (
            "trailing_byte.sbloom",
            sparse,
            "length",
            raw(sparse, &|b| b.push(0)),
        ),
        (
            "bad_checksum.sbloom",
            sparse,
            "checksum",
            raw(sparse, &|b| b[HEADER_LEN + 10] ^= 0x10),
        ),
        (
            "sparse_count_too_large.sbloom",
            sparse,
            "payload",
            edit(sparse, &|b| {
                let x = u64::from_le_bytes(b[24..32].try_into().unwrap());
                set_u64(b, 24, x + 1)
            }),
        ),
        (
            "sparse_count_too_small.sbloom",
            sparse,
            "payload",
            edit(sparse, &|b| {
                let x = u64::from_le_bytes(b[24..32].try_into().unwrap());
                set_u64(b, 24, x - 1)
            }),
        ),
        (
            "sparse_nonzero_padding.sbloom",
            sparse,
            "payload",
            edit(sparse, &|b| b[data_end - 1] |= 0x80),
        ),
        (
            "sparse_rice_parameter_64.sbloom",
            sparse,
            "payload",
            edit(sparse, &|b| b[32] = 64),
        ),
        (
            "sparse_position_out_of_range.sbloom",
            sparse,
            "payload",
            sparse_position_out_of_range(),
        ),
    ]
    .into_iter()
    .map(|(file, base, expect, bytes)| Corrupt {
        file: format!("corrupt/{file}"),
        base,
        format: "sparkbloom",
        expect,
        bytes,
    })
    .collect::<Vec<_>>();
    for (file, expect, bytes) in [
        (
            "guava_bad_strategy.guava",
            "strategy",
            guava_edit(sparse, &|b| b[0] = 2),
        ),
        (
            "guava_k_zero.guava",
            "numHashFunctions",
            guava_edit(sparse, &|b| b[1] = 0),
        ),
        (
            "guava_negative_word_count.guava",
            "numBits",
            guava_edit(sparse, &|b| b[2] = 0x80),
        ),
        (
            "guava_truncated.guava",
            "length",
            guava_edit(sparse, &|b| {
                b.pop();
            }),
        ),
        (
            "guava_trailing_byte.guava",
            "length",
            guava_edit(sparse, &|b| b.push(0)),
        ),
    ] {
        out.push(Corrupt {
            file: format!("corrupt/{file}"),
            base: sparse,
            format: "guava",
            expect,
            bytes,
        });
    }
    out
}

fn field_of(result: Result<BloomFilter, Error>) -> String {
    match result {
        Ok(_) => "ok".to_string(),
        Err(Error::Corrupt { field, .. }) => field.to_string(),
        Err(other) => panic!("not a Corrupt error: {other}"),
    }
}

fn write(dir: &Path, file: &str, bytes: &[u8]) {
    let path: PathBuf = dir.join(file);
    fs::create_dir_all(path.parent().expect("parent")).expect("create dir");
    fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn generate(dir: &Path) {
    let specs = specs();
    let mut manifest = vec![MANIFEST_HEADER.to_string()];
    let (mut sbloom, mut guava) = (Vec::new(), Vec::new());
    for spec in &specs {
        let filter = spec.filter();
        let ours = encode(&filter);
        // Self-check before writing: every file decodes to this very filter.
        assert!(decode(&ours).expect("decodes") == filter);
        write(dir, spec.keys_file, spec.keys_text().as_bytes());
        let mut files = vec![("sbloom", "sparkbloom", ours.clone())];
        // Guava's stream holds whole words only: no twin for the helper's shapes.
        if spec.sizing == Sizing::Guava {
            let theirs = write_guava(&filter).expect("fits Guava's stream");
            assert!(read_guava(&theirs).expect("reads") == filter);
            files.push(("guava", "guava", theirs.clone()));
            guava.push(theirs);
        } else {
            assert!(write_guava(&filter).is_err());
            guava.push(Vec::new());
        }
        for (ext, format, bytes) in files {
            let file = format!("{}.{ext}", spec.name);
            write(dir, &file, &bytes);
            manifest.push(spec.row(&file, format, "ok"));
        }
        sbloom.push(ours);
    }
    for c in corrupt_files(&specs, &sbloom, &guava) {
        let got = match c.format {
            "guava" => field_of(read_guava(&c.bytes)),
            _ => field_of(decode(&c.bytes)),
        };
        assert_eq!(got, c.expect, "{}", c.file);
        write(dir, &c.file, &c.bytes);
        manifest.push(specs[c.base].row(&c.file, c.format, c.expect));
    }
    write(dir, "manifest.tsv", (manifest.join("\n") + "\n").as_bytes());
    write(dir, "README.md", README.as_bytes());
    counting::generate(dir, MANIFEST_HEADER, recrc);
}

const README: &str = "\
# Golden files

Generated by `scripts/gen-golden.sh` (`rust/examples/gen_golden.rs`); do not edit by hand.
Read by the Rust suite (`rust/tests/golden.rs`) and the JVM suite.

`manifest.tsv` (tab-separated, one header line) lists every file:

| column | meaning |
|---|---|
| `file` | path relative to this folder |
| `format` | `sparkbloom` (format v1, `FORMAT.md`) or `guava` (Guava's `writeTo` stream) |
| `strategy` | `MURMUR128_MITZ_64`, `MURMUR128_MITZ_32` or `BLOCKED` |
| `n`, `fpp` | the filter is `create(n, fpp)`'s shape (Guava sizing) |
| `key_type` | `long` (signed decimal, hashed as 8 little-endian bytes) or `utf8` (hashed as UTF-8 bytes) |
| `keys` | the file listing the keys put, one per line |
| `expect` | `ok`, or for a corrupt file the error field the decoder must name |
| `sizing` | `guava`: the shape is Guava's `create(n, fpp)` (m rounded up to whole words, format version 1); `helper`: the Redis BloomFilterHelper's m = (int)(−n·ln fpp / ln²2), k = max(1, round(m/n·ln 2)), m not rounded (format version 2; no Guava twin); `blocked`: a BLOCKED filter's sizing (`blocked_sizing::shape_for`: whole 512-bit blocks, format version 5; no Guava twin) |

A valid file must decode to a filter containing every listed key and re-encode to the same
bytes; building the `sizing` column's shape for (n, fpp) with `strategy`, putting the keys and
encoding must give the file byte for byte. Corrupt files (`corrupt/`) reuse the row of the file they were made from.
";

/// The sizing table of FORMAT.md, from the code.
fn sizing_table() -> String {
    let mut out = String::from(
        "| n | p | m (bits) | k | dense bytes | bits per key |\n|---:|---:|---:|---:|---:|---:|\n",
    );
    for n in [1_000u64, 10_000, 1_000_000, 10_000_000] {
        for p in ["0.1", "0.01", "0.001"] {
            let shape = sizing::shape_for(n, p.parse().unwrap()).unwrap();
            writeln!(
                out,
                "| {n} | {p} | {} | {} | {} | {:.2} |",
                shape.num_bits,
                shape.num_hashes,
                shape.num_bits / 8,
                shape.num_bits as f64 / n as f64
            )
            .unwrap();
        }
    }
    out
}

fn main() {
    let arg = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tests/golden".into());
    if arg == "--sizing-table" {
        print!("{}", sizing_table());
        return;
    }
    generate(Path::new(&arg));
}
