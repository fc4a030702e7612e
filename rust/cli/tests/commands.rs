//! (Over 500 lines: one test per subcommand and option, sharing this file's helpers.)
//!
//! Every subcommand's happy path, its output checked against the core library's own answers.

mod support;

use sparkbloom::BloomFilter;
use sparkbloom::format;
use std::fs;
use support::{golden, path_str, run_in, scratch, splitmix64};

fn seeded_longs(seed: u64, count: usize) -> Vec<i64> {
    let mut state = seed;
    (0..count).map(|_| splitmix64(&mut state) as i64).collect()
}

fn lines_of<T: ToString>(keys: &[T]) -> String {
    keys.iter().map(|k| k.to_string() + "\n").collect()
}

#[test]
fn dedup_prints_first_occurrences_in_order_and_accepts_crlf_and_a_last_line_without_newline() {
    let dir = scratch("dedup_basic");
    let input = b"b\na\r\nb\nc\na\nd";
    let run = run_in(&dir, &["dedup", "-n", "100", "-p", "0.001"], input).ok();
    assert_eq!(run.stdout_text(), "b\na\r\nc\nd\n");
}

#[test]
fn dedup_state_continues_where_the_last_run_stopped_and_is_a_readable_filter() {
    let dir = scratch("dedup_state");
    let args = [
        "dedup",
        "-n",
        "1000",
        "-p",
        "0.001",
        "--state",
        "seen.sbloom",
    ];
    let first = run_in(&dir, &args, b"u1\nu2\nu3\n").ok();
    assert_eq!(first.stdout_text(), "u1\nu2\nu3\n");
    let second = run_in(&dir, &args, b"u2\nu4\nu1\nu5\n").ok();
    assert_eq!(second.stdout_text(), "u4\nu5\n");
    let saved = format::decode(&fs::read(dir.join("seen.sbloom")).unwrap()).unwrap();
    let expected = BloomFilter::new(1000, 0.001).unwrap();
    for url in ["u1", "u2", "u3", "u4", "u5"] {
        expected.put_str(url);
    }
    assert_eq!(saved, expected);
    // No temp file left beside the state.
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("seen.sbloom")]);
}

#[test]
fn progress_goes_to_stderr_only() {
    let dir = scratch("progress");
    let input = lines_of(&(0..5000).map(|i| i % 3000).collect::<Vec<_>>());
    let plain = run_in(
        &dir,
        &["dedup", "-n", "5000", "-p", "0.01"],
        input.as_bytes(),
    )
    .ok();
    let shown = run_in(
        &dir,
        &["--progress", "dedup", "-n", "5000", "-p", "0.01"],
        input.as_bytes(),
    );
    assert_eq!(shown.code, Some(0));
    assert_eq!(shown.stdout, plain.stdout);
    // Not a terminal: a log line now and then, and always the totals at the end.
    let last = shown.stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("sparkbloom dedup: 0.0 MiB, 5000 lines, "),
        "{:?}",
        shown.stderr
    );
}

#[test]
fn dedup_reads_files_in_order() {
    let dir = scratch("dedup_files");
    fs::write(dir.join("a.txt"), "x\ny\n").unwrap();
    fs::write(dir.join("b.txt"), "y\nz\n").unwrap();
    let run = run_in(
        &dir,
        &["dedup", "-n", "10", "-p", "0.01", "a.txt", "-", "b.txt"],
        b"w\nx\n",
    )
    .ok();
    assert_eq!(run.stdout_text(), "x\ny\nw\nz\n");
}

#[test]
fn dedup_warns_past_n_and_again_as_the_false_positive_rate_grows_then_sums_up() {
    let dir = scratch("dedup_warning");
    let input = lines_of(&(0..3000).collect::<Vec<_>>());
    let run = run_in(
        &dir,
        &["dedup", "-n", "1000", "-p", "0.01"],
        input.as_bytes(),
    );
    assert_eq!(run.code, Some(0));
    let printed = run.stdout_text().lines().count();
    let lines: Vec<&str> = run.stderr.lines().collect();
    // m = 9586, k = 7: 3000 keys fill 1 − e^(−7·3000/9586) = 0.888 of the bits, a rate of
    // 0.888^7 = 0.44, past 1, 2 and 10 times P (not 100: that is 1): three warnings and the sum.
    assert_eq!(lines.len(), 4, "{}", run.stderr);
    const WARNING: &str = "sparkbloom: warning: the filter holds about ";
    let mut rates = Vec::new();
    for warning in &lines[..3] {
        assert!(warning.starts_with(WARNING), "{warning}");
        assert!(
            warning.contains("more than the 1000 it was sized for"),
            "{warning}"
        );
        let rate = warning.split("rate is now ").nth(1).unwrap();
        let rate: f64 = rate.split(' ').next().unwrap().parse().unwrap();
        rates.push(rate);
    }
    // The first comes at most N/64 added lines after the estimate passes N.
    let estimate: u64 = lines[0][WARNING.len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (1001..=1000 + 1000 / 64 + 40).contains(&estimate),
        "estimate {estimate}"
    );
    assert!(
        rates[0] > 0.01 && rates[1] >= 0.02 && rates[2] >= 0.1,
        "{rates:?}"
    );
    assert!(
        rates[0] < 0.02 && rates[1] < 0.1,
        "each as its threshold is passed: {rates:?}"
    );
    let summary = lines[3];
    let expected = format!(
        "sparkbloom: dedup: 3000 lines read, {printed} printed, {} dropped as seen",
        3000 - printed
    );
    assert!(summary.starts_with(&expected), "{summary}");
    assert!(
        summary.contains("false-positive rate is now 4."),
        "{summary}"
    );
    // A state already past N warns at the start of the next run.
    let state = ["dedup", "-n", "1000", "-p", "0.01", "--state", "s.sbloom"];
    run_in(&dir, &state, input.as_bytes());
    let again = run_in(&dir, &state, b"");
    assert_eq!(again.code, Some(0));
    assert!(
        again.stderr.starts_with("sparkbloom: warning:"),
        "{}",
        again.stderr
    );
}

#[test]
fn build_long_and_string_keys_match_the_core() {
    let dir = scratch("build_keys");
    let keys = seeded_longs(11, 5000);
    fs::write(dir.join("keys.txt"), lines_of(&keys)).unwrap();
    run_in(
        &dir,
        &[
            "build", "-n", "5000", "-p", "0.01", "--keys", "long", "keys.txt", "-o", "l.sbloom",
        ],
        b"",
    )
    .ok();
    let expected = BloomFilter::new(5000, 0.01).unwrap();
    for &k in &keys {
        expected.put(k as u64);
    }
    assert_eq!(
        fs::read(dir.join("l.sbloom")).unwrap(),
        format::encode(&expected)
    );

    // Unsigned spellings of negative longs are the same 64 bits.
    let unsigned = lines_of(&keys.iter().map(|&k| k as u64).collect::<Vec<_>>());
    run_in(
        &dir,
        &[
            "build", "-n", "5000", "-p", "0.01", "--keys", "long", "-o", "u.sbloom",
        ],
        unsigned.as_bytes(),
    )
    .ok();
    assert_eq!(
        fs::read(dir.join("u.sbloom")).unwrap(),
        format::encode(&expected)
    );

    let strings = ["user-1", "ユーザー", "", "😀", "a,b"];
    let text = lines_of(&strings);
    run_in(
        &dir,
        &[
            "build", "-n", "100", "-p", "0.01", "--format", "guava", "-", "-o", "s.guava",
        ],
        text.as_bytes(),
    )
    .ok();
    let expected = BloomFilter::new(100, 0.01).unwrap();
    for s in strings {
        expected.put_str(s);
    }
    assert_eq!(
        fs::read(dir.join("s.guava")).unwrap(),
        format::guava::encode(&expected).unwrap()
    );
}

#[test]
fn build_writes_to_stdout_with_dash() {
    let dir = scratch("build_stdout");
    let run = run_in(&dir, &["build", "-n", "10", "-p", "0.1", "-o", "-"], b"a\n").ok();
    assert!(format::decode(&run.stdout).unwrap().might_contain_str("a"));
}

#[test]
fn build_per_key_writes_one_filter_per_key_into_a_directory() {
    let dir = scratch("build_per_key");
    let mut csv = String::new();
    let mut state = 5;
    let users = ["alice", "bob", "c/d", ".hidden"];
    let expected: Vec<BloomFilter> = users
        .iter()
        .map(|_| BloomFilter::new(1000, 0.001).unwrap())
        .collect();
    for _ in 0..4000 {
        let user = (splitmix64(&mut state) % 4) as usize;
        let item = splitmix64(&mut state) as i64;
        csv.push_str(&format!("{},{item}\n", users[user]));
        expected[user].put(item as u64);
    }
    let run = run_in(
        &dir,
        &[
            "build",
            "-n",
            "1000",
            "-p",
            "0.001",
            "--keys",
            "long",
            "--per-key",
            "-o",
            "out",
        ],
        csv.as_bytes(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stderr, "sparkbloom: wrote 4 filter(s) into out\n");
    let mut names: Vec<String> = fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "%2Ehidden.sbloom",
            "alice.sbloom",
            "bob.sbloom",
            "c%2Fd.sbloom"
        ]
    );
    for (user, name) in users.iter().zip(["alice", "bob", "c%2Fd", "%2Ehidden"]) {
        let bytes = fs::read(dir.join("out").join(format!("{name}.sbloom"))).unwrap();
        let i = users.iter().position(|u| u == user).unwrap();
        assert_eq!(format::decode(&bytes).unwrap(), expected[i], "{user}");
    }
}

/// `--sizing per-key`: each key's filter for its own distinct items (duplicates count once), the
/// core's per-key shape (the JVM's `Sizing.perKeyCount(0.001)` calls the same code).
/// Without --per-key, or with a fixed policy and no -n, a one-line error.
#[test]
fn build_per_key_sizes_each_key_for_its_own_items() {
    let dir = scratch("build_per_key_sized");
    let mut csv = String::new();
    let mut state = 9;
    let mut items = Vec::new();
    for _ in 0..200 {
        let item = splitmix64(&mut state) as i64;
        items.push(item);
        csv.push_str(&format!("big,{item}\nbig,{item}\n"));
    }
    csv.push_str("small,42\n");
    let run = run_in(
        &dir,
        &[
            "build",
            "--sizing",
            "per-key",
            "-p",
            "0.001",
            "--keys",
            "long",
            "--per-key",
            "-o",
            "out",
        ],
        csv.as_bytes(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let big = format::decode(&fs::read(dir.join("out/big.sbloom")).unwrap()).unwrap();
    assert_eq!(
        big.shape(),
        sparkbloom::sizing::per_key_shape(200, 0.001).unwrap()
    );
    for item in &items {
        assert!(big.might_contain(*item as u64));
    }
    let small = format::decode(&fs::read(dir.join("out/small.sbloom")).unwrap()).unwrap();
    assert_eq!(
        small.shape(),
        sparkbloom::sizing::per_key_shape(1, 0.001).unwrap()
    );
    assert!(small.might_contain(42));

    let run = run_in(
        &dir,
        &["build", "--sizing", "per-key", "-p", "0.001", "-o", "x"],
        b"a\n",
    );
    assert_ne!(run.code, Some(0));
    assert!(
        run.stderr
            .contains("--sizing per-key applies to `build --per-key` only"),
        "{}",
        run.stderr
    );
    let run = run_in(&dir, &["build", "-p", "0.001", "-o", "x"], b"a\n");
    assert_ne!(run.code, Some(0));
    assert!(
        run.stderr.contains("--expected-insertions"),
        "{}",
        run.stderr
    );
}

#[test]
fn inspect_describes_the_seed_filter() {
    let dir = scratch("inspect");
    let file = golden("n10000_p0.001_200keys.sbloom");
    let run = run_in(&dir, &["inspect", path_str(&file)], b"").ok();
    let text = run.stdout_text();
    for expected in [
        "format:            sparkbloom v1 (FORMAT.md), sparse encoding\n",
        "file size:         1,951 bytes\n",
        "strategy:          MURMUR128_MITZ_64\n",
        "bits (m):          143,808 (17,976 bytes)\n",
        "hashes (k):        10\n",
        "bits set:          1,990\n",
        "estimated count:   200\n",
        "sized for (n):     not recorded in the file\n",
        "capacity:          10,492 ",
    ] {
        assert!(text.contains(expected), "{expected:?} not in\n{text}");
    }
    assert!(!text.contains("warning"));
}

#[test]
fn inspect_json_one_object_per_file_and_the_over_capacity_warning() {
    let dir = scratch("inspect_json");
    let full = golden("n10000_p0.001_10000keys.guava");
    let seed = golden("n10000_p0.001_200keys.sbloom");
    let run = run_in(
        &dir,
        &["inspect", "--json", path_str(&full), path_str(&seed)],
        b"",
    )
    .ok();
    let objects: Vec<serde_json::Value> = run
        .stdout_text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objects.len(), 2);
    let full_filter = format::guava::decode(&fs::read(&full).unwrap()).unwrap();
    assert_eq!(objects[0]["format"], "guava");
    assert_eq!(objects[0]["version"], serde_json::Value::Null);
    assert_eq!(objects[0]["bits_set"], full_filter.bits_set());
    assert_eq!(
        objects[0]["estimated_count"],
        full_filter.approximate_element_count()
    );
    assert_eq!(objects[0]["expected_fpp"], full_filter.expected_fpp());
    assert_eq!(
        objects[0]["over_capacity"], false,
        "a filter at its design load"
    );
    assert_eq!(objects[1]["encoding"], "sparse");
    assert_eq!(objects[1]["num_hashes"], 10);

    // Told n = 5000, the 10,000-key filter is over capacity.
    let over = run_in(&dir, &["inspect", "-n", "5000", path_str(&full)], b"").ok();
    assert!(
        over.stdout_text()
            .contains("warning:           over capacity: about 9,990 keys, more than the 5,000 it was sized for\n"),
        "{}",
        over.stdout_text()
    );
}

#[test]
fn query_answers_as_the_core_does_and_absent_keeps_only_unseen_lines() {
    let dir = scratch("query");
    let keys = seeded_longs(21, 20_000);
    let (put, probe) = keys.split_at(10_000);
    fs::write(dir.join("put.txt"), lines_of(put)).unwrap();
    run_in(
        &dir,
        &[
            "build", "-n", "10000", "-p", "0.05", "--keys", "long", "put.txt", "-o", "f.guava",
            "--format", "guava",
        ],
        b"",
    )
    .ok();
    let filter = format::guava::decode(&fs::read(dir.join("f.guava")).unwrap()).unwrap();
    let all = lines_of(&keys);
    let run = run_in(
        &dir,
        &["query", "f.guava", "--keys", "long"],
        all.as_bytes(),
    )
    .ok();
    let answers: Vec<String> = run.stdout_text().lines().map(String::from).collect();
    assert_eq!(answers.len(), keys.len());
    let mut false_positives = 0;
    for (line, &key) in answers.iter().zip(&keys) {
        let expected = filter.might_contain(key as u64);
        assert_eq!(line, &format!("{key}\t{expected}"));
        false_positives += (expected && probe.contains(&key)) as u32;
    }
    assert!(
        put.iter().all(|&k| filter.might_contain(k as u64)),
        "no false negatives"
    );
    // 10,000 absent keys at p = 0.05: mean 500, sd 21.8; 6 sd either side.
    assert!((369..=631).contains(&false_positives), "{false_positives}");

    let absent = run_in(
        &dir,
        &["query", "f.guava", "--keys", "long", "--absent", "-"],
        all.as_bytes(),
    )
    .ok();
    let expected: String = keys
        .iter()
        .filter(|&&k| !filter.might_contain(k as u64))
        .map(|k| format!("{k}\n"))
        .collect();
    assert_eq!(absent.stdout_text(), expected);
}

#[test]
fn merge_and_intersect_equal_the_core_union_and_intersection_across_formats() {
    let dir = scratch("combine");
    let a: Vec<String> = (0..300).map(|i| format!("a{i}")).collect();
    let b: Vec<String> = (0..300).map(|i| format!("b{i}")).collect();
    fs::write(dir.join("a.txt"), lines_of(&a)).unwrap();
    fs::write(dir.join("b.txt"), lines_of(&b)).unwrap();
    run_in(
        &dir,
        &[
            "build", "-n", "1000", "-p", "0.01", "a.txt", "-o", "a.sbloom",
        ],
        b"",
    )
    .ok();
    run_in(
        &dir,
        &[
            "build", "-n", "1000", "-p", "0.01", "b.txt", "-o", "b.guava", "--format", "guava",
        ],
        b"",
    )
    .ok();
    run_in(
        &dir,
        &["merge", "a.sbloom", "b.guava", "-o", "or.sbloom"],
        b"",
    )
    .ok();
    run_in(
        &dir,
        &[
            "intersect",
            "a.sbloom",
            "b.guava",
            "-o",
            "and.guava",
            "--format",
            "guava",
        ],
        b"",
    )
    .ok();
    let fa = format::decode(&fs::read(dir.join("a.sbloom")).unwrap()).unwrap();
    let fb = format::guava::decode(&fs::read(dir.join("b.guava")).unwrap()).unwrap();
    let union = fa.clone();
    union.union(&fb).unwrap();
    let intersection = fa.clone();
    intersection.intersect(&fb).unwrap();
    assert_eq!(
        format::decode(&fs::read(dir.join("or.sbloom")).unwrap()).unwrap(),
        union
    );
    assert_eq!(
        format::guava::decode(&fs::read(dir.join("and.guava")).unwrap()).unwrap(),
        intersection
    );
    assert!(a.iter().chain(&b).all(|k| union.might_contain_str(k)));
    assert_ne!(union, intersection);
}

#[test]
fn help_on_every_subcommand_has_an_example() {
    let dir = scratch("help");
    for command in [
        "dedup",
        "build",
        "inspect",
        "query",
        "merge",
        "intersect",
        "convert",
    ] {
        let run = run_in(&dir, &[command, "--help"], b"").ok();
        let text = run.stdout_text();
        assert!(text.contains("Example"), "{command} --help:\n{text}");
        assert!(
            text.contains(&format!("sparkbloom {command} ")),
            "{command} --help:\n{text}"
        );
    }
}

#[test]
fn inspect_warns_past_the_capacity_when_n_is_not_given() {
    let dir = scratch("inspect_capacity");
    let keys = lines_of(&(0..300).collect::<Vec<_>>());
    let args = [
        "build", "-n", "100", "-p", "0.01", "--keys", "long", "-o", "f.sbloom",
    ];
    run_in(&dir, &args, keys.as_bytes()).ok();
    let text = run_in(&dir, &["inspect", "f.sbloom"], b"")
        .ok()
        .stdout_text();
    // m = 960, k = 7: capacity ⌊960·ln2/6.5⌋ = 102.
    assert!(text.contains("capacity:          102 "), "{text}");
    assert!(
        text.contains("more than its capacity 102, so its false-positive rate is above"),
        "{text}"
    );
}

#[test]
fn output_to_a_symlink_or_a_pipe_writes_through_it_and_keeps_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("output_special");
    fs::write(dir.join("real.sbloom"), b"old").unwrap();
    std::os::unix::fs::symlink("real.sbloom", dir.join("link.sbloom")).unwrap();
    run_in(
        &dir,
        &["build", "-n", "10", "-p", "0.1", "-o", "link.sbloom"],
        b"a\n",
    )
    .ok();
    assert!(
        fs::symlink_metadata(dir.join("link.sbloom"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let written = format::decode(&fs::read(dir.join("real.sbloom")).unwrap()).unwrap();
    assert!(written.might_contain_str("a"));

    // A FIFO (like /dev/stdout or /dev/null, not a file to rename over): written in place.
    let fifo = dir.join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    run_in(
        &dir,
        &["build", "-n", "10", "-p", "0.1", "-o", "pipe"],
        b"a\n",
    )
    .ok();
    assert_eq!(
        reader.join().unwrap(),
        fs::read(dir.join("real.sbloom")).unwrap()
    );
    assert!(
        fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "still a FIFO"
    );
}

#[test]
fn convert_reads_and_writes_spark_sketch_streams_byte_for_byte() {
    let dir = scratch("spark-convert");
    // Spark's V1 and V2 streams, written by the core (checked against the spark-sketch jars).
    for strategy in [
        sparkbloom::Strategy::SparkSketchV1,
        sparkbloom::Strategy::SparkSketchV2,
    ] {
        let f = BloomFilter::with_strategy(1000, 0.01, strategy).unwrap();
        (0..500u64).for_each(|k| {
            f.put(k);
        });
        let spark = format::spark_sketch::encode(&f).unwrap();
        fs::write(dir.join("in.spark"), &spark).unwrap();
        run_in(
            &dir,
            &[
                "convert",
                "in.spark",
                "--to",
                "sparkbloom",
                "-o",
                "x.sbloom",
            ],
            b"",
        )
        .ok();
        assert_eq!(
            format::decode(&fs::read(dir.join("x.sbloom")).unwrap()).unwrap(),
            f
        );
        run_in(
            &dir,
            &["convert", "x.sbloom", "--to", "spark", "-o", "back.spark"],
            b"",
        )
        .ok();
        assert_eq!(fs::read(dir.join("back.spark")).unwrap(), spark);
        let inspect = run_in(&dir, &["inspect", "in.spark"], b"")
            .ok()
            .stdout_text();
        assert!(inspect.contains("spark (sketch"), "{inspect}");
        run_in(
            &dir,
            &["convert", "in.spark", "--to", "guava", "-o", "no.guava"],
            b"",
        )
        .fails(1, &["Guava", "strategy"]);
    }
}
