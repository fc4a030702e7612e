//! The CLI against the shared golden files (tests/golden/manifest.tsv): `build` writes every
//! valid MITZ_64 file byte for byte from its keys (MITZ_32 ones: see `core_built`), `convert`
//! turns each layout into the other byte for byte, and every corrupt file makes `inspect` and
//! `convert` fail with one line naming the file and the field.

mod support;

use sparkbloom::{BloomFilter, Strategy};
use std::fs;
use support::{golden, path_str, run_in, scratch};

struct Row {
    file: String,
    format: String,
    strategy: String,
    n: String,
    fpp: String,
    key_type: String,
    keys: String,
    expect: String,
    /// "guava" (sized by (n, p) as `build` sizes) or "helper" (the Redis helper's exact m,
    /// which `build` does not offer).
    sizing: String,
}

fn manifest() -> Vec<Row> {
    let text = fs::read_to_string(golden("manifest.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            Row {
                file: f[0].into(),
                format: f[1].into(),
                strategy: f[2].into(),
                n: f[3].into(),
                fpp: f[4].into(),
                key_type: f[5].into(),
                keys: f[6].into(),
                expect: f[7].into(),
                sizing: f.get(8).copied().unwrap_or("guava").into(),
            }
        })
        .collect()
}

#[test]
fn build_writes_every_golden_file_byte_for_byte() {
    let dir = scratch("golden_build");
    let rows: Vec<Row> = manifest()
        .into_iter()
        .filter(|r| r.expect == "ok" && r.sizing == "guava")
        .collect();
    assert!(rows.len() >= 16, "manifest has {} valid files", rows.len());
    for row in rows {
        let strategy = match row.strategy.as_str() {
            "MURMUR128_MITZ_64" => "mitz64",
            "MURMUR128_MITZ_32" => "mitz32",
            other => panic!("strategy {other}"),
        };
        let keys = if row.key_type == "long" {
            "long"
        } else {
            "string"
        };
        let out = dir.join(&row.file);
        let keys_path = golden(&row.keys);
        let args = [
            "build",
            "-n",
            &row.n,
            "-p",
            &row.fpp,
            "--strategy",
            strategy,
            "--keys",
            keys,
            "--format",
            &row.format,
            path_str(&keys_path),
            "-o",
            path_str(&out),
        ];
        run_in(&dir, &args, b"").ok();
        let built = fs::read(&out).unwrap();
        if strategy == "mitz64" {
            assert_eq!(
                built,
                fs::read(golden(&row.file)).unwrap(),
                "{} built by the CLI",
                row.file
            );
        } else {
            // The golden MITZ_32 files take Guava 33's k; a new MITZ_32 filter takes Guava
            // 14.0.1's (sizing::shape_for_strategy), as the core's with_strategy does.
            assert_eq!(built, core_built(&row), "{} built by the CLI", row.file);
        }
    }
}

/// The bytes the core writes for the row's filter built with `BloomFilter::with_strategy`.
fn core_built(row: &Row) -> Vec<u8> {
    let strategy = if row.strategy == "MURMUR128_MITZ_32" {
        Strategy::Murmur128Mitz32
    } else {
        Strategy::Murmur128Mitz64
    };
    let filter =
        BloomFilter::with_strategy(row.n.parse().unwrap(), row.fpp.parse().unwrap(), strategy)
            .unwrap();
    for line in fs::read_to_string(golden(&row.keys)).unwrap().lines() {
        filter.put(line.parse::<i64>().unwrap() as u64);
    }
    assert_eq!(row.key_type, "long");
    if row.format == "guava" {
        sparkbloom::format::guava::encode(&filter).unwrap()
    } else {
        sparkbloom::format::encode(&filter)
    }
}

#[test]
fn convert_turns_each_golden_layout_into_the_other_byte_for_byte() {
    let dir = scratch("golden_convert");
    let mut pairs = 0;
    for row in manifest()
        .iter()
        .filter(|r| r.expect == "ok" && r.format == "guava")
    {
        let sbloom_name = row.file.replace(".guava", ".sbloom");
        let guava = golden(&row.file);
        let sbloom = golden(&sbloom_name);
        let to_sbloom = dir.join(&sbloom_name);
        let to_guava = dir.join(&row.file);
        run_in(
            &dir,
            &[
                "convert",
                path_str(&guava),
                "--to",
                "sparkbloom",
                "-o",
                path_str(&to_sbloom),
            ],
            b"",
        )
        .ok();
        run_in(
            &dir,
            &[
                "convert",
                path_str(&sbloom),
                "--to",
                "guava",
                "-o",
                path_str(&to_guava),
            ],
            b"",
        )
        .ok();
        assert_eq!(
            fs::read(&to_sbloom).unwrap(),
            fs::read(&sbloom).unwrap(),
            "{}",
            row.file
        );
        assert_eq!(
            fs::read(&to_guava).unwrap(),
            fs::read(&guava).unwrap(),
            "{sbloom_name}"
        );
        pairs += 1;
    }
    assert!(pairs >= 8);
}

#[test]
fn every_corrupt_golden_file_fails_with_its_field_named() {
    let dir = scratch("golden_corrupt");
    let rows: Vec<Row> = manifest()
        .into_iter()
        .filter(|r| r.expect != "ok")
        .collect();
    assert!(
        rows.len() >= 15,
        "manifest has {} corrupt files",
        rows.len()
    );
    for row in rows {
        let path = golden(&row.file);
        let file_name = path.file_name().unwrap().to_str().unwrap().to_string();
        for command in [
            vec!["inspect"],
            vec!["convert", "--to", "guava", "-o", "out.guava"],
        ] {
            let mut args = command.clone();
            args.insert(1, path_str(&path));
            let field = format!("{}:", row.expect);
            run_in(&dir, &args, b"").fails(1, &[&file_name, &field]);
        }
        assert!(
            !dir.join("out.guava").exists(),
            "nothing written for {}",
            row.file
        );
    }
}
