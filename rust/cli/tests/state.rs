//! `dedup --state` never loses or rewrites what the state file holds: real processes, real
//! files, real signals. A stop signal saves every line printed; a checkpoint saves them while
//! the run goes on; runs sharing a file merge; the file keeps its layout, mode, inode, hard
//! links and symlinks. tests/state_recovery.rs: crashes, links, full disks, closed pipes.

mod support;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::{Duration, Instant};
use support::dedup::{SIZING, crashed_run, feed, journals, keys, load, spawn_dedup, text, unseen};
use support::{run_in, scratch};

#[test]
fn a_stop_signal_saves_every_printed_line_then_ends_the_run_by_that_signal() {
    for (signal, name) in [
        (libc::SIGINT, "int"),
        (libc::SIGTERM, "term"),
        (libc::SIGHUP, "hup"),
    ] {
        let dir = scratch(&format!("state_signal_{name}"));
        // No checkpoints: only the signal can save; the input stays open, so no end of input.
        let (mut child, mut stdout) = spawn_dedup(&dir, "seen.sbloom", &[]);
        let lines = keys("https://example.org/", 0..5000);
        feed(&mut child, &mut stdout, &lines);
        // Kept open until the child has ended (`wait` would close it first).
        let _stdin = child.stdin.take();
        // SAFETY: signalling the child this test spawned.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(signal), "{name}: {status:?}");
        let filter = load(&dir.join("seen.sbloom"));
        assert!(lines.iter().all(|l| filter.might_contain_str(l)), "{name}");
        let mut more = lines.clone();
        more.push("https://example.org/new".into());
        assert_eq!(
            unseen(&dir, "seen.sbloom", &more),
            ["https://example.org/new"]
        );
    }
}

#[test]
fn a_checkpoint_saves_the_printed_lines_while_the_run_goes_on_so_a_kill_loses_none() {
    let dir = scratch("state_checkpoint");
    let (mut child, mut stdout) = spawn_dedup(&dir, "seen.sbloom", &["--checkpoint-secs", "1"]);
    let lines = keys("k", 0..3000);
    feed(&mut child, &mut stdout, &lines);
    // The input is idle now: the checkpoint comes on its own. Waiting is bounded only so a
    // failure cannot hang the suite.
    let path = dir.join("seen.sbloom");
    let deadline = Instant::now() + Duration::from_secs(120);
    while !fs::metadata(&path).is_ok_and(|m| m.len() > 0) {
        assert!(
            Instant::now() < deadline,
            "no checkpoint while the run goes on"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap(); // SIGKILL: nothing more is saved
    child.wait().unwrap();
    assert!(lines.iter().all(|l| load(&path).might_contain_str(l)));
    assert_eq!(unseen(&dir, "seen.sbloom", &lines), Vec::<String>::new());
}

#[test]
fn two_runs_on_one_state_at_once_lose_nothing() {
    let dir = scratch("state_concurrent");
    let (a_lines, b_lines) = (keys("a", 0..20_000), keys("b", 0..20_000));
    let (mut a, mut a_out) = spawn_dedup(&dir, "seen.sbloom", &[]);
    let (mut b, mut b_out) = spawn_dedup(&dir, "seen.sbloom", &[]);
    // Both have loaded the (absent) state and printed their lines before either saves.
    feed(&mut a, &mut a_out, &a_lines);
    feed(&mut b, &mut b_out, &b_lines);
    drop(a.stdin.take());
    drop(b.stdin.take());
    assert!(a.wait().unwrap().success());
    assert!(b.wait().unwrap().success());
    assert!(journals(&dir).is_empty(), "{:?}", journals(&dir));
    let all: Vec<String> = a_lines.iter().chain(&b_lines).cloned().collect();
    assert_eq!(unseen(&dir, "seen.sbloom", &all), Vec::<String>::new());
}

#[test]
fn a_save_onto_a_state_of_another_shape_is_refused_and_the_error_counts_the_unsaved_lines() {
    let dir = scratch("state_other_shape");
    let (mut a, mut a_out) = spawn_dedup(&dir, "seen.sbloom", &[]);
    feed(&mut a, &mut a_out, &keys("a", 0..10));
    // Meanwhile another run makes the state with other options.
    run_in(
        &dir,
        &["dedup", "-n", "10", "-p", "0.1", "--state", "seen.sbloom"],
        b"x\n",
    )
    .ok();
    drop(a.stdin.take());
    let output = a.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with(
            "sparkbloom: --state seen.sbloom: the filter in the file no longer matches"
        ) && stderr.lines().count() == 1,
        "{stderr}"
    );
    // The save failed after the lines were printed: the error says so.
    assert!(
        stderr.ends_with("; 10 printed lines were not saved (a later run prints them again)\n"),
        "{stderr}"
    );
    assert!(
        load(&dir.join("seen.sbloom")).might_contain_str("x"),
        "left as it was"
    );
}

#[test]
fn a_guava_state_stays_guava_unless_format_says_otherwise() {
    let dir = scratch("state_guava");
    build_in(&dir, &SIZING, "guava", &keys("k", 0..100), "seen.guava");
    build_in(&dir, &SIZING, "guava", &keys("k", 0..200), "expected.guava");
    assert_eq!(
        unseen(&dir, "seen.guava", &keys("k", 50..200)),
        keys("k", 100..200)
    );
    // Byte for byte what Guava's writeTo gives for those keys.
    assert_eq!(
        fs::read(dir.join("seen.guava")).unwrap(),
        fs::read(dir.join("expected.guava")).unwrap()
    );
    let mut args = vec!["dedup"];
    args.extend(SIZING);
    args.extend(["--state", "seen.guava", "--format", "sparkbloom"]);
    run_in(&dir, &args, b"k1\n").ok();
    assert_eq!(&fs::read(dir.join("seen.guava")).unwrap()[..4], b"SBLM");
}

#[test]
fn the_state_keeps_its_mode_inode_and_hard_links_and_a_symlink_is_followed() {
    let dir = scratch("state_metadata");
    let lines = keys("k", 0..100);
    assert_eq!(unseen(&dir, "seen.sbloom", &lines[..50]), lines[..50]);
    let path = dir.join("seen.sbloom");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    fs::hard_link(&path, dir.join("other-name.sbloom")).unwrap();
    std::os::unix::fs::symlink("seen.sbloom", dir.join("link.sbloom")).unwrap();
    let before = fs::metadata(&path).unwrap();

    assert_eq!(unseen(&dir, "link.sbloom", &lines[..80]), lines[50..80]);
    let after = fs::metadata(&path).unwrap();
    assert_eq!(after.mode() & 0o7777, 0o600, "mode kept");
    assert_eq!(
        (after.ino(), after.uid(), after.gid()),
        (before.ino(), before.uid(), before.gid())
    );
    assert_eq!(after.nlink(), 2, "hard link kept");
    assert!(
        fs::symlink_metadata(dir.join("link.sbloom"))
            .unwrap()
            .is_symlink()
    );
    // Every name sees the saved state.
    assert_eq!(unseen(&dir, "other-name.sbloom", &lines), lines[80..]);
    assert_eq!(unseen(&dir, "seen.sbloom", &lines), Vec::<String>::new());
    let names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn a_journal_cut_short_adds_nothing_and_is_removed() {
    let dir = scratch("state_journal_cut_short");
    let lines = keys("k", 0..300);
    unseen(&dir, "seen.sbloom", &lines[..100]);
    let before = fs::read(dir.join("seen.sbloom")).unwrap();
    crashed_run(&dir, "seen.sbloom", &lines[100..200]);
    // Killed while writing its journal: the state is the one before, the journal's bytes are
    // half new (a byte in the middle changed).
    fs::write(dir.join("seen.sbloom"), &before).unwrap();
    let [journal] = &journals(&dir)[..] else {
        panic!("one journal: {:?}", journals(&dir))
    };
    let mut bytes = fs::read(journal).unwrap();
    // After its 32-byte header (magic, length, hash), the length of the saved bytes.
    let len = u64::from_le_bytes(bytes[8..16].try_into().unwrap()) as usize;
    bytes[32 + len / 2] ^= 0x40;
    fs::write(journal, &bytes).unwrap();
    assert_eq!(unseen(&dir, "seen.sbloom", &lines), lines[100..]);
    assert!(journals(&dir).is_empty(), "journal removed");
}

#[test]
fn a_spark_state_stays_spark() {
    let dir = scratch("state_spark");
    let sized = ["-n", "1000", "-p", "0.01", "--strategy", "spark-v2"];
    build_in(&dir, &sized, "spark", &keys("k", 0..100), "seen.spark");
    build_in(&dir, &sized, "spark", &keys("k", 0..200), "expected.spark");
    let mut args = vec!["dedup"];
    args.extend(sized);
    args.extend(["--state", "seen.spark"]);
    let run = run_in(&dir, &args, text(&keys("k", 50..200)).as_bytes()).ok();
    assert_eq!(run.stdout_text(), text(&keys("k", 100..200)));
    assert_eq!(
        fs::read(dir.join("seen.spark")).unwrap(),
        fs::read(dir.join("expected.spark")).unwrap()
    );
}

/// `sparkbloom build` of `lines` with `sizing` into `out`, in `format`, in `dir`.
fn build_in(dir: &Path, sizing: &[&str], format: &str, lines: &[String], out: &str) {
    let mut args = vec!["build"];
    args.extend(sizing);
    args.extend(["--format", format, "-o", out]);
    run_in(dir, &args, text(lines).as_bytes()).ok();
}
