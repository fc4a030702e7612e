//! Every error path: one line on stderr naming the file, line or option, a non-zero exit, no
//! panic, and nothing half-written.

mod support;

use std::fs;
use support::{golden, run_in, scratch};

#[test]
fn sizing_options_out_of_range_name_the_option() {
    let dir = scratch("err_sizing");
    for (n, p, needle) in [
        ("0", "0.01", "--expected-insertions"),
        ("-5", "0.01", "--expected-insertions"),
        ("ten", "0.01", "--expected-insertions"),
        ("100", "0", "--fpp"),
        ("100", "1", "--fpp"),
        ("100", "-0.1", "--fpp"),
        ("100", "NaN", "--fpp"),
        ("100", "x", "--fpp"),
    ] {
        for command in ["dedup", "build"] {
            let mut args = vec![command, "-n", n, "-p", p];
            if command == "build" {
                args.extend(["-o", "out.sbloom"]);
            }
            run_in(&dir, &args, b"a\n").fails(2, &[needle]);
        }
    }
    // Beyond the largest filter (2^43 bits): the core's refusal, named, a usage error too.
    run_in(
        &dir,
        &[
            "build",
            "-n",
            "18446744073709551615",
            "-p",
            "0.01",
            "-o",
            "o",
        ],
        b"",
    )
    .fails(2, &["--expected-insertions/--fpp", "expectedInsertions"]);
    assert!(!dir.join("out.sbloom").exists());
}

#[test]
fn unknown_options_and_missing_arguments_fail_on_one_line() {
    let dir = scratch("err_usage");
    run_in(&dir, &["dedup", "-n", "10"], b"").fails(2, &["--fpp"]);
    run_in(&dir, &["build", "-n", "10", "-p", "0.1"], b"").fails(2, &["--output"]);
    run_in(&dir, &["merge", "a.sbloom", "-o", "x"], b"").fails(2, &["FILE"]);
    run_in(&dir, &["convert", "a", "--to", "parquet", "-o", "x"], b"").fails(2, &["parquet"]);
    run_in(&dir, &["frobnicate"], b"").fails(2, &["frobnicate"]);
}

#[test]
fn missing_input_files_are_named_before_any_output() {
    let dir = scratch("err_missing");
    run_in(&dir, &["dedup", "-n", "10", "-p", "0.1", "nope.txt"], b"")
        .fails(1, &["nope.txt", "No such file"]);
    run_in(
        &dir,
        &["build", "-n", "10", "-p", "0.1", "nope.txt", "-o", "x"],
        b"",
    )
    .fails(1, &["nope.txt"]);
    run_in(&dir, &["inspect", "nope.sbloom"], b"").fails(1, &["nope.sbloom"]);
    run_in(&dir, &["query", "nope.sbloom"], b"").fails(1, &["nope.sbloom"]);
    run_in(
        &dir,
        &["convert", "nope.guava", "--to", "sparkbloom", "-o", "x"],
        b"",
    )
    .fails(1, &["nope.guava"]);
    run_in(&dir, &["dedup", "-n", "10", "-p", "0.1", "."], b"").fails(1, &["is a directory"]);
    // The second file is missing: nothing of the first is printed.
    fs::write(dir.join("a.txt"), "x\n").unwrap();
    let run = run_in(
        &dir,
        &["dedup", "-n", "10", "-p", "0.1", "a.txt", "b.txt"],
        b"",
    )
    .fails(1, &["b.txt"]);
    assert!(run.stdout.is_empty());
    assert!(!dir.join("x").exists());
}

#[test]
fn malformed_long_keys_stop_the_run_with_file_and_line_or_are_skipped_and_counted() {
    let dir = scratch("err_malformed");
    fs::write(
        dir.join("keys.txt"),
        "1\n2\n3x\n4\n18446744073709551616\n\n",
    )
    .unwrap();
    run_in(
        &dir,
        &[
            "build", "-n", "10", "-p", "0.1", "--keys", "long", "keys.txt", "-o", "k.sbloom",
        ],
        b"",
    )
    .fails(1, &["keys.txt:3:", "not a 64-bit integer", "\"3x\""]);
    assert!(!dir.join("k.sbloom").exists(), "nothing written");
    run_in(&dir, &["query", "--keys", "long", "k.sbloom"], b"").fails(1, &["k.sbloom"]);

    let run = run_in(
        &dir,
        &[
            "build",
            "-n",
            "10",
            "-p",
            "0.1",
            "--keys",
            "long",
            "--skip-malformed",
            "keys.txt",
            "-o",
            "k.sbloom",
        ],
        b"",
    );
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.stderr,
        "sparkbloom: skipped 3 malformed line(s) (--skip-malformed); first: keys.txt:3: not a 64-bit integer: \"3x\"\n"
    );
    let query = run_in(
        &dir,
        &["query", "k.sbloom", "--keys", "long", "--skip-malformed"],
        b"1\nzz\n4\n",
    );
    assert_eq!(query.code, Some(0));
    assert_eq!(
        String::from_utf8(query.stdout).unwrap(),
        "1\ttrue\n4\ttrue\n"
    );
    assert!(
        query
            .stderr
            .contains("<stdin>:2: not a 64-bit integer: \"zz\""),
        "{}",
        query.stderr
    );
    run_in(&dir, &["query", "k.sbloom", "--keys", "long"], b"1\n2\n-\n").fails(1, &["<stdin>:3:"]);
}

#[test]
fn invalid_utf8_string_keys_and_bad_csv_name_the_line() {
    let dir = scratch("err_utf8");
    run_in(
        &dir,
        &["build", "-n", "10", "-p", "0.1", "-o", "s.sbloom"],
        b"ok\nbad\xff\n",
    )
    .fails(1, &["<stdin>:2:", "not UTF-8"]);
    run_in(
        &dir,
        &["build", "-n", "10", "-p", "0.1", "--per-key", "-o", "d"],
        b"u,1\nno-comma\n",
    )
    .fails(1, &["<stdin>:2:", "key,item"]);
    run_in(
        &dir,
        &["build", "-n", "10", "-p", "0.1", "--per-key", "-o", "d"],
        b",1\n",
    )
    .fails(1, &["<stdin>:1:", "empty key"]);
    run_in(
        &dir,
        &[
            "build",
            "-n",
            "10",
            "-p",
            "0.1",
            "--per-key",
            "--keys",
            "long",
            "-o",
            "d",
        ],
        b"u,1\nu,x\n",
    )
    .fails(1, &["<stdin>:2:", "not a 64-bit integer"]);
    fs::write(dir.join("file"), "").unwrap();
    run_in(
        &dir,
        &["build", "-n", "10", "-p", "0.1", "--per-key", "-o", "file"],
        b"u,1\n",
    )
    .fails(1, &["file: exists and is not a directory"]);
    // dedup takes any bytes: it is a sieve of lines, not of text.
    let run = run_in(&dir, &["dedup", "-n", "10", "-p", "0.1"], b"a\xff\na\xff\n").ok();
    assert_eq!(run.stdout, b"a\xff\n");
}

#[test]
fn foreign_empty_and_truncated_filter_files_are_refused() {
    let dir = scratch("err_filters");
    fs::write(dir.join("empty.sbloom"), b"").unwrap();
    fs::write(dir.join("text.sbloom"), b"hello\n").unwrap();
    let seed = fs::read(golden("n10000_p0.001_200keys.sbloom")).unwrap();
    fs::write(dir.join("cut.sbloom"), &seed[..seed.len() / 2]).unwrap();
    let guava = fs::read(golden("n10000_p0.001_200keys.guava")).unwrap();
    fs::write(dir.join("cut.guava"), &guava[..100]).unwrap();
    run_in(&dir, &["inspect", "empty.sbloom"], b"").fails(1, &["empty.sbloom: empty file"]);
    run_in(&dir, &["inspect", "text.sbloom"], b"")
        .fails(1, &["text.sbloom: not a Bloom filter file", "0x68"]);
    run_in(&dir, &["query", "cut.sbloom"], b"x\n")
        .fails(1, &["cut.sbloom (sparkbloom)", "length: truncated"]);
    run_in(&dir, &["merge", "cut.guava", "cut.sbloom", "-o", "m"], b"")
        .fails(1, &["cut.guava (guava)", "length: truncated"]);
    assert!(!dir.join("m").exists());
}

#[test]
fn incompatible_filters_are_refused_with_the_mismatch_named() {
    let dir = scratch("err_incompatible");
    run_in(
        &dir,
        &["build", "-n", "1000", "-p", "0.01", "-o", "a.sbloom"],
        b"x\n",
    )
    .ok();
    run_in(
        &dir,
        &["build", "-n", "2000", "-p", "0.01", "-o", "b.sbloom"],
        b"x\n",
    )
    .ok();
    run_in(
        &dir,
        &[
            "build",
            "-n",
            "1000",
            "-p",
            "0.01",
            "--strategy",
            "mitz32",
            "-o",
            "c.sbloom",
        ],
        b"x\n",
    )
    .ok();
    run_in(
        &dir,
        &["merge", "a.sbloom", "b.sbloom", "-o", "m.sbloom"],
        b"",
    )
    .fails(1, &["b.sbloom", "a.sbloom", "numBits"]);
    run_in(
        &dir,
        &[
            "intersect",
            "a.sbloom",
            "a.sbloom",
            "c.sbloom",
            "-o",
            "m.sbloom",
        ],
        b"",
    )
    .fails(1, &["c.sbloom", "strategy"]);
    assert!(!dir.join("m.sbloom").exists());
    // A state made with other options.
    run_in(
        &dir,
        &["dedup", "-n", "2000", "-p", "0.01", "--state", "a.sbloom"],
        b"y\n",
    )
    .fails(1, &["--state a.sbloom", "numBits"]);
}

#[test]
fn an_unwritable_output_is_named_and_leaves_nothing() {
    let dir = scratch("err_output");
    run_in(
        &dir,
        &[
            "build",
            "-n",
            "10",
            "-p",
            "0.1",
            "-o",
            "no/such/dir/x.sbloom",
        ],
        b"a\n",
    )
    .fails(1, &["no/such/dir/x.sbloom", "cannot write"]);
    run_in(&dir, &["build", "-n", "10", "-p", "0.1", "-o", "."], b"a\n").fails(1, &["."]);
    let names: Vec<_> = fs::read_dir(&dir).unwrap().collect();
    assert!(names.is_empty());
}
