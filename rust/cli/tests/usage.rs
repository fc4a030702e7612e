//! A command line that cannot work, whatever the input, is a usage error: exit 2, one line
//! ending "(see --help)", nothing read or written; whether clap finds it (a missing option, a
//! value it cannot parse) or a command does (a missing -n under the default --sizing fixed, a
//! filter too large, a --format that cannot hold the --strategy).

mod support;

use std::fs;
use std::path::Path;
use support::{run_in, scratch};

/// Each subcommand: a command line that works, the options (or operands) it needs, each
/// dropped in turn, and variants with a bad value.
const CASES: [(&str, &[&str], &[&str]); 9] = [
    (
        "dedup -n 10 -p 0.1",
        &["-n 10", "-p 0.1"],
        &[
            "dedup -n 0 -p 0.1",
            "dedup -n ten -p 0.1",
            "dedup -n 10 -p 1",
            "dedup -n 10 -p 0.1 --strategy md5",
            "dedup -n 10 -p 0.1 --sizing per-key",
            "dedup -n 10 -p 0.1 --sizing none",
            "dedup -n 10 -p 0.1 --state",
            "dedup -n 10 -p 0.1 --format guava",
            "dedup -n 10 -p 0.1 --checkpoint-secs 5",
            "dedup -n 10 -p 0.1 --state s.sbloom --format parquet",
            "dedup -n 10 -p 0.1 --state s.sbloom --checkpoint-secs soon",
            "dedup -n 10 -p 0.1 --state s.sbloom --format guava --strategy spark-v2",
            "dedup -n 10 -p 0.1 --state s.sbloom --format spark",
            "dedup -n 18446744073709551615 -p 0.01",
        ],
    ),
    (
        "build -n 10 -p 0.1 -o out.sbloom",
        &["-n 10", "-p 0.1", "-o out.sbloom"],
        &[
            "build -n 10 -p 0.1 -o out.sbloom --keys float",
            "build -n 10 -p 0.1 -o out.sbloom --format parquet",
            "build -n -3 -p 0.1 -o out.sbloom",
            "build -n 10 -p 0 -o out.sbloom",
            "build -n 10 -p 0.1 -o out.sbloom --strategy spark-v1 --format guava",
            "build -n 10 -p 0.1 -o out.sbloom --format spark",
            "build -n 10 -p 0.1 -o out.sbloom --sizing per-key",
            "build -n 18446744073709551615 -p 0.01 -o out.sbloom",
            "build -n 10 -p 0.1 --per-key -o -",
        ],
    ),
    (
        "build --per-key --sizing per-key -p 0.1 -o dir",
        &["-p 0.1", "-o dir"],
        &[
            "build --per-key --sizing per-key -p 1e-300 -o dir",
            "build --per-key --sizing per-key -p 0.1 -o dir --strategy spark-v2 --format guava",
        ],
    ),
    (
        "inspect f.sbloom",
        &["f.sbloom"],
        &["inspect -n 0 f.sbloom", "inspect -n many f.sbloom"],
    ),
    (
        "query f.sbloom",
        &["f.sbloom"],
        &["query f.sbloom --keys float"],
    ),
    (
        "merge f.sbloom f.sbloom -o m.sbloom",
        &["-o m.sbloom"],
        &[
            "merge f.sbloom -o m.sbloom",
            "merge f.sbloom f.sbloom -o m.sbloom --format x",
        ],
    ),
    (
        "intersect f.sbloom f.sbloom -o m.sbloom",
        &["-o m.sbloom"],
        &["intersect f.sbloom -o m.sbloom"],
    ),
    (
        "convert f.sbloom --to guava -o c.guava",
        &["f.sbloom", "--to guava", "-o c.guava"],
        &["convert f.sbloom --to parquet -o c.guava"],
    ),
    (
        "--max-bits 2^30 --max-line-bytes 1Mi inspect f.sbloom",
        &["inspect"],
        &[
            "--max-bits lots inspect f.sbloom",
            "--max-line-bytes 0 inspect f.sbloom",
            "frobnicate f.sbloom",
        ],
    ),
];

/// `line` without the words of `group`, which it holds as one run.
fn without(line: &str, group: &str) -> Vec<String> {
    let (words, drop): (Vec<&str>, Vec<&str>) = (
        line.split_whitespace().collect(),
        group.split_whitespace().collect(),
    );
    let at = (0..=words.len() - drop.len())
        .find(|&i| words[i..i + drop.len()] == drop[..])
        .unwrap_or_else(|| panic!("{group:?} is not in {line:?}"));
    let mut kept: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    kept.drain(at..at + drop.len());
    kept
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn every_missing_or_invalid_option_of_every_subcommand_is_a_usage_error_exit_2() {
    let dir = scratch("usage");
    run_in(
        &dir,
        &["build", "-n", "10", "-p", "0.1", "-o", "f.sbloom"],
        b"a\n",
    )
    .ok();
    let before = listing(&dir);
    let mut checked = 0;
    for (line, required, invalid) in CASES {
        let variants = required.iter().map(|group| without(line, group)).chain(
            invalid
                .iter()
                .map(|v| v.split_whitespace().map(String::from).collect()),
        );
        for args in variants {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let run = run_in(&dir, &args, b"a\n");
            assert!(run.stdout.is_empty(), "{args:?}: output");
            let run = run.fails(2, &["(see --help)"]);
            assert!(
                run.stderr.ends_with("(see --help)\n"),
                "{args:?}: {}",
                run.stderr
            );
            assert_eq!(listing(&dir), before, "{args:?} wrote nothing");
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked}");
    // Each command line as given works.
    for (line, _, _) in CASES {
        let args: Vec<&str> = line.split_whitespace().collect();
        let run = run_in(&dir, &args, b"a,b\n");
        assert_eq!(run.code, Some(0), "{line}: {}", run.stderr);
    }
}
