//! The golden files of `tests/golden/` (shared with the JVM suite): every valid file decodes to
//! a filter holding its keys and re-encodes byte for byte; Guava and sparkbloom files describe
//! the same bits; every corrupt file, truncation and single-bit flip is rejected with a named
//! field; seeded random damage never panics.

use sparkbloom::format::guava::{
    HEADER_LEN as GUAVA_HEADER_LEN, decode as read_guava, encode as write_guava,
    total_len_from_header as guava_total_len_from_header,
};
use sparkbloom::format::{HEADER_LEN, decode, encode, total_len_from_header};
use sparkbloom::{BloomFilter, Error, Strategy, sizing};
use sparkbloom_testkit::splitmix64;
use std::path::PathBuf;

const MANIFEST_HEADER: &str = "file\tformat\tstrategy\tn\tfpp\tkey_type\tkeys\texpect\tsizing";

/// The field names decoders may report (FORMAT.md, "Errors").
const FIELDS: [&str; 10] = [
    "length",
    "magic",
    "version",
    "strategy",
    "encoding",
    "numHashFunctions",
    "numBits",
    "payloadLength",
    "checksum",
    "payload",
];

struct Row {
    file: String,
    format: String,
    strategy: Strategy,
    n: u64,
    fpp: f64,
    key_type: String,
    keys: String,
    expect: String,
    /// `guava` (Guava's `create(n, fpp)` shape), `helper` (the Redis helper's, unrounded) or
    /// `blocked` (a BLOCKED filter's own sizing).
    sizing: String,
}

impl Row {
    fn shape(&self) -> sizing::Shape {
        match self.sizing.as_str() {
            "guava" => sizing::shape_for(self.n, self.fpp).unwrap(),
            "helper" => sizing::redis_helper_shape(self.n, self.fpp).unwrap(),
            "blocked" => sparkbloom::blocked_sizing::shape_for(self.n, self.fpp).unwrap(),
            other => panic!("sizing {other}"),
        }
    }
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn read(file: &str) -> Vec<u8> {
    let path = golden_dir().join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn manifest() -> Vec<Row> {
    let text = String::from_utf8(read("manifest.tsv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(MANIFEST_HEADER));
    lines
        .map(|line| {
            let c: Vec<&str> = line.split('\t').collect();
            assert_eq!(c.len(), 9, "{line}");
            Row {
                file: c[0].into(),
                format: c[1].into(),
                strategy: match c[2] {
                    "MURMUR128_MITZ_64" => Strategy::Murmur128Mitz64,
                    "MURMUR128_MITZ_32" => Strategy::Murmur128Mitz32,
                    "BLOCKED" => Strategy::Blocked,
                    other => panic!("strategy {other}"),
                },
                n: c[3].parse().unwrap(),
                fpp: c[4].parse().unwrap(),
                key_type: c[5].into(),
                keys: c[6].into(),
                expect: c[7].into(),
                sizing: c[8].into(),
            }
        })
        .collect()
}

fn decode_as(format: &str, bytes: &[u8]) -> sparkbloom::Result<BloomFilter> {
    match format {
        "sparkbloom" => decode(bytes),
        "guava" => read_guava(bytes),
        other => panic!("format {other}"),
    }
}

fn encode_as(format: &str, filter: &BloomFilter) -> Vec<u8> {
    match format {
        "sparkbloom" => encode(filter),
        _ => write_guava(filter).unwrap(),
    }
}

fn field(result: sparkbloom::Result<BloomFilter>) -> Result<&'static str, String> {
    match result {
        Err(Error::Corrupt { field, .. }) => Ok(field),
        Err(other) => Err(format!("not a Corrupt error: {other}")),
        Ok(f) => Err(format!("decoded to {f:?}")),
    }
}

/// Puts the row's keys into `filter`; returns how many.
fn put_keys(row: &Row, filter: &BloomFilter) -> usize {
    let text = String::from_utf8(read(&row.keys)).unwrap();
    for line in text.lines() {
        match row.key_type.as_str() {
            "long" => {
                filter.put(line.parse::<i64>().unwrap() as u64);
            }
            "utf8" => {
                filter.put_str(line);
            }
            other => panic!("key_type {other}"),
        }
    }
    text.lines().count()
}

fn ok_rows() -> Vec<Row> {
    manifest()
        .into_iter()
        .filter(|r| r.expect == "ok")
        .collect()
}

#[test]
fn manifest_covers_what_it_promises() {
    let rows = manifest();
    let ok = rows.iter().filter(|r| r.expect == "ok").count();
    assert!(ok >= 12, "{ok} valid files");
    for r in &rows {
        assert!(
            r.expect == "ok" || FIELDS.contains(&r.expect.as_str()),
            "{}",
            r.expect
        );
        assert!(golden_dir().join(&r.file).is_file() && golden_dir().join(&r.keys).is_file());
    }
    for format in ["sparkbloom", "guava"] {
        for strategy in [Strategy::Murmur128Mitz64, Strategy::Murmur128Mitz32] {
            assert!(
                rows.iter()
                    .any(|r| r.format == format && r.strategy == strategy && r.expect == "ok")
            );
        }
    }
    // Both encodings appear among the valid sparkbloom files.
    let encodings: Vec<u8> = rows
        .iter()
        .filter(|r| r.format == "sparkbloom" && r.expect == "ok")
        .map(|r| read(&r.file)[6])
        .collect();
    assert!(encodings.contains(&0) && encodings.contains(&1));
    // Both versions too, and version 2 in both encodings.
    let v2: Vec<u8> = rows
        .iter()
        .filter(|r| r.format == "sparkbloom" && r.expect == "ok" && r.sizing == "helper")
        .map(|r| read(&r.file)[6])
        .collect();
    assert!(v2.contains(&0) && v2.contains(&1));
    // BLOCKED (version 5) in both encodings.
    let v5: Vec<u8> = rows
        .iter()
        .filter(|r| r.format == "sparkbloom" && r.expect == "ok" && r.strategy == Strategy::Blocked)
        .map(|r| {
            let bytes = read(&r.file);
            assert_eq!(bytes[4], 5, "{}", r.file);
            bytes[6]
        })
        .collect();
    assert!(v5.contains(&0) && v5.contains(&1));
    let total: u64 = walk(golden_dir())
        .iter()
        .map(|p| p.metadata().unwrap().len())
        .sum();
    assert!(total < 1 << 20, "tests/golden holds {total} bytes");
}

/// The per-key sizing table every language checks itself against is the core's rule.
#[test]
fn per_key_shapes_are_the_cores() {
    let text = String::from_utf8(read("per_key_shapes.tsv")).unwrap();
    let mut rows = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (n, p): (u64, f64) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        let shape = sizing::per_key_shape(n, p).unwrap();
        assert_eq!(
            (shape.num_bits.to_string(), shape.num_hashes.to_string()),
            (f[2].to_owned(), f[3].to_owned()),
            "{line}"
        );
        rows += 1;
    }
    assert!(rows >= 100, "{rows} rows");
}

fn walk(dir: PathBuf) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flat_map(|e| {
            let path = e.unwrap().path();
            if path.is_dir() {
                walk(path)
            } else {
                vec![path]
            }
        })
        .collect()
}

#[test]
fn valid_files_decode_hold_their_keys_and_reencode_identically() {
    for row in ok_rows() {
        let bytes = read(&row.file);
        let filter = decode_as(&row.format, &bytes).unwrap_or_else(|e| panic!("{}: {e}", row.file));
        let shape = row.shape();
        assert_eq!(filter.shape(), shape, "{}", row.file);
        // Version 1 exactly when m is a multiple of 64, 5 for BLOCKED (FORMAT.md).
        if row.format == "sparkbloom" {
            let version = if row.strategy == Strategy::Blocked {
                5
            } else if shape.num_bits % 64 == 0 {
                1
            } else {
                2
            };
            assert_eq!(bytes[4], version, "{}", row.file);
        }
        assert_eq!(filter.strategy(), row.strategy, "{}", row.file);
        // Built from the manifest, the same filter encodes to the file's exact bytes.
        let built = BloomFilter::with_shape(shape, row.strategy).unwrap();
        let count = put_keys(&row, &built);
        assert_eq!(built, filter, "{}", row.file);
        assert_eq!(encode_as(&row.format, &built), bytes, "{}: built", row.file);
        assert_eq!(
            encode_as(&row.format, &filter),
            bytes,
            "{}: re-encoded",
            row.file
        );
        // No false negatives: every listed key is present.
        let present = BloomFilter::with_shape(shape, row.strategy).unwrap();
        put_keys(&row, &present);
        present.intersect(&filter).unwrap();
        assert_eq!(present, built, "{}: every key's bits are set", row.file);
        assert_eq!(filter.bits_set() == 0, count == 0, "{}", row.file);
    }
}

#[test]
fn guava_and_sparkbloom_files_describe_the_same_bits() {
    let rows = ok_rows();
    let mut pairs = 0;
    // The helper's shapes are not whole words: Guava's stream cannot hold them.
    for ours in rows
        .iter()
        .filter(|r| r.format == "sparkbloom" && r.sizing == "guava")
    {
        let stem = ours.file.trim_end_matches(".sbloom");
        let theirs = rows
            .iter()
            .find(|r| r.format == "guava" && r.file == format!("{stem}.guava"))
            .unwrap_or_else(|| panic!("no Guava twin of {}", ours.file));
        let a = decode(&read(&ours.file)).unwrap();
        let b = read_guava(&read(&theirs.file)).unwrap();
        assert_eq!(a, b, "{stem}");
        assert_eq!(write_guava(&a).unwrap(), read(&theirs.file), "{stem}");
        assert_eq!(encode(&b), read(&ours.file), "{stem}");
        pairs += 1;
    }
    assert!(pairs >= 6);
}

#[test]
fn corrupt_files_name_their_field() {
    let corrupt: Vec<Row> = manifest()
        .into_iter()
        .filter(|r| r.expect != "ok")
        .collect();
    assert!(corrupt.len() >= 14);
    for row in corrupt {
        let bytes = read(&row.file);
        assert_eq!(
            field(decode_as(&row.format, &bytes)),
            Ok(row.expect.as_str()),
            "{}",
            row.file
        );
        // A header-level problem is already reported from the header alone.
        let from_header = match row.format.as_str() {
            "sparkbloom" => total_len_from_header(&bytes[..bytes.len().min(HEADER_LEN)]),
            _ => guava_total_len_from_header(&bytes[..bytes.len().min(GUAVA_HEADER_LEN)]),
        };
        // The header's fields: magic through payloadLength.
        let header_fields = &FIELDS[1..8];
        if header_fields.contains(&row.expect.as_str()) {
            match from_header {
                Err(Error::Corrupt { field, .. }) => assert_eq!(field, row.expect, "{}", row.file),
                other => panic!("{}: {other:?}", row.file),
            }
        } else {
            assert!(from_header.is_ok(), "{}", row.file);
        }
    }
}

#[test]
fn every_truncation_is_rejected() {
    for row in ok_rows() {
        let bytes = read(&row.file);
        for len in 0..bytes.len() {
            assert_eq!(
                field(decode_as(&row.format, &bytes[..len])),
                Ok("length"),
                "{} cut to {len} bytes",
                row.file
            );
        }
    }
}

#[test]
fn every_single_bit_flip_of_the_small_files_is_detected() {
    let mut flips = 0;
    for row in ok_rows().iter().filter(|r| r.format == "sparkbloom") {
        let mut bytes = read(&row.file);
        if bytes.len() > 4096 {
            continue;
        }
        for i in 0..bytes.len() {
            for bit in 0..8 {
                bytes[i] ^= 1 << bit;
                let got = field(decode(&bytes));
                assert!(
                    matches!(got, Ok(f) if FIELDS.contains(&f)),
                    "{} byte {i} bit {bit}: {got:?}",
                    row.file
                );
                bytes[i] ^= 1 << bit;
                flips += 1;
            }
        }
    }
    assert!(flips > 16_000, "{flips}");
}

#[test]
fn seeded_random_damage_never_panics() {
    let rows = ok_rows();
    let files: Vec<(String, Vec<u8>)> = rows
        .iter()
        .map(|r| (r.format.clone(), read(&r.file)))
        .collect();
    let mut state = 0xdead_beef_u64;
    let mut rand = |bound: usize| (splitmix64(&mut state) % bound as u64) as usize;
    let (mut rejected, mut decoded) = (0, 0);
    for round in 0..12_000 {
        let (format, original) = &files[rand(files.len())];
        let mut bytes = original.clone();
        // 1 to 3 edits, biased to the header where the fields are.
        let edits = 1 + rand(3);
        for _ in 0..edits {
            let at = if rand(2) == 0 {
                rand(bytes.len().min(40))
            } else {
                rand(bytes.len())
            };
            match rand(4) {
                0 | 1 => bytes[at] ^= 1 + rand(255) as u8, // a different byte
                2 => bytes.insert(at, rand(256) as u8),
                _ => {
                    bytes.remove(at);
                }
            }
            if bytes.is_empty() {
                break;
            }
        }
        match decode_as(format, &bytes) {
            Ok(f) => {
                decoded += 1;
                // Only Guava's stream has no checksum; our format must catch every edit of
                // a single byte, and every insertion or removal changes the length.
                assert!(
                    format == "guava" || edits > 1,
                    "round {round}: one edit went unnoticed"
                );
                assert!(f.num_bits() > 0);
            }
            Err(Error::Corrupt { field, .. }) => {
                assert!(FIELDS.contains(&field), "round {round}: {field}");
                rejected += 1;
            }
            Err(other) => panic!("round {round}: {other}"),
        }
    }
    assert!(rejected > 10_000, "{rejected} rejected, {decoded} decoded");
}
