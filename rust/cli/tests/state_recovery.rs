//! `dedup --state` at its edges: what crashed runs leave (journals beside a torn or an older
//! state, under any pid), names that link to the state, a disk too full for a save, a stdout
//! closed early. Real processes, killed for real; every run is waited for with a deadline, so a
//! hang fails.

mod support;

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use support::dedup::{
    crashed_run, dedup_command, journals, keys, load, run_to_end, text, unseen, wait_or_fail,
};
use support::{BIN, run_in, scratch};

/// The id of a process that has ended.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    child.wait().unwrap();
    child.id()
}

/// The one journal in `dir`.
#[track_caller]
fn the_journal(dir: &Path) -> std::path::PathBuf {
    match &journals(dir)[..] {
        [journal] => journal.clone(),
        other => panic!("one journal beside the state (a crashed run's): {other:?}"),
    }
}

#[test]
fn journal_names_that_link_to_the_state_are_removed_never_locked_so_no_run_hangs() {
    let dir = scratch("recovery_links");
    let lines = keys("k", 0..200);
    assert_eq!(unseen(&dir, "seen.sbloom", &lines[..100]), lines[..100]);
    let state = dir.join("seen.sbloom");
    // Locking one of these while holding the state's lock would wait for itself.
    let symlink = dir.join(".seen.sbloom.4000000.00000000000000aa.journal");
    let hard_link = dir.join(".seen.sbloom.4000001.00000000000000bb.journal");
    std::os::unix::fs::symlink("seen.sbloom", &symlink).unwrap();
    fs::hard_link(&state, &hard_link).unwrap();
    // `.NAME.PID.tmp`, the name journals had before: links under it are no journals either.
    std::os::unix::fs::symlink(
        "seen.sbloom",
        dir.join(format!(".seen.sbloom.{}.tmp", dead_pid())),
    )
    .unwrap();
    fs::hard_link(&state, dir.join(format!(".seen.sbloom.{}.tmp", dead_pid()))).unwrap();
    // Neither a file nor a link: left alone, and never opened (a FIFO's open would block).
    let fifo = dir.join(".seen.sbloom.4000002.00000000000000cc.journal");
    let fifo_c = CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo_c.as_ptr(), 0o600) }, 0);
    let directory = dir.join(".seen.sbloom.4000003.00000000000000dd.journal");
    fs::create_dir(&directory).unwrap();

    for (round, expected) in [(1, &lines[100..]), (2, &[][..])] {
        let (status, printed, stderr) = run_to_end(
            dedup_command(&dir, "seen.sbloom", &[]),
            &lines,
            &format!("run {round} beside links to its state"),
        );
        assert!(status.success(), "run {round}: {status:?} {stderr}");
        assert_eq!(printed, expected, "run {round}");
    }
    assert!(!symlink.exists() && fs::symlink_metadata(&symlink).is_err());
    assert!(!hard_link.exists());
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(directory.is_dir());
    assert!(lines.iter().all(|l| load(&state).might_contain_str(l)));
}

#[test]
fn a_crashed_runs_journal_repairs_a_torn_state_even_for_a_run_with_its_pid() {
    let dir = scratch("recovery_same_pid");
    let lines = keys("k", 0..300);
    unseen(&dir, "seen.sbloom", &lines[..100]);
    crashed_run(&dir, "seen.sbloom", &lines[100..200]);
    let journal = the_journal(&dir);
    // Killed while copying its journal into the state: the state is torn, the journal whole.
    let state = dir.join("seen.sbloom");
    let whole = fs::read(&state).unwrap();
    fs::write(&state, &whole[..whole.len() / 2]).unwrap();

    // The next run gets the crashed run's pid (as a container's entrypoint always has pid 1):
    // its journal is renamed to that pid as the run starts, in the child before exec.
    let name = journal.file_name().unwrap().to_str().unwrap();
    let (_, nonce) = name
        .strip_prefix(".seen.sbloom.")
        .unwrap()
        .split_once('.')
        .unwrap();
    let from = CString::new(journal.as_os_str().as_bytes()).unwrap();
    let head = format!("{}/.seen.sbloom.", dir.display()).into_bytes();
    let tail = format!(".{nonce}\0").into_bytes();
    let mut command = dedup_command(&dir, "seen.sbloom", &[]);
    // SAFETY: only async-signal-safe calls (getpid, rename) and no allocation.
    unsafe {
        command.pre_exec(move || {
            let mut to = [0u8; 4096];
            let mut at = 0;
            let mut push = |b: u8| {
                to[at] = b;
                at += 1;
            };
            head.iter().for_each(|&b| push(b));
            let (mut pid, mut digits, mut n) = (libc::getpid() as u32, [0u8; 10], 0);
            loop {
                digits[n] = b'0' + (pid % 10) as u8;
                n += 1;
                pid /= 10;
                if pid == 0 {
                    break;
                }
            }
            digits[..n].iter().rev().for_each(|&b| push(b));
            tail.iter().for_each(|&b| push(b));
            if libc::rename(from.as_ptr(), to.as_ptr().cast()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let (status, printed, stderr) = run_to_end(command, &lines, "the run with the crashed pid");
    assert!(status.success(), "{status:?} {stderr}");
    assert_eq!(printed, lines[200..]);
    assert!(journals(&dir).is_empty(), "applied and removed");
    assert_eq!(unseen(&dir, "seen.sbloom", &lines), Vec::<String>::new());
}

#[test]
fn a_run_that_prints_nothing_still_applies_a_crashed_runs_journal() {
    let dir = scratch("recovery_nothing_new");
    let lines = keys("k", 0..300);
    unseen(&dir, "seen.sbloom", &lines[..100]);
    let state = dir.join("seen.sbloom");
    let before = fs::read(&state).unwrap();
    crashed_run(&dir, "seen.sbloom", &lines[100..200]);
    the_journal(&dir);
    // Killed after its journal was written, before the copy into the state began.
    fs::write(&state, &before).unwrap();

    assert_eq!(
        unseen(&dir, "seen.sbloom", &lines[..50]),
        Vec::<String>::new()
    );
    assert!(journals(&dir).is_empty(), "applied and removed");
    assert_eq!(unseen(&dir, "seen.sbloom", &lines), lines[200..]);
}

#[test]
fn a_save_without_room_is_refused_before_the_first_line_is_printed() {
    let dir = scratch("recovery_no_room");
    let lines = keys("k", 0..1000);
    let mut command = dedup_command(&dir, "seen.sbloom", &[]);
    // A disk with 4 KiB free for this process: files may not grow past it (EFBIG, SIGXFSZ
    // ignored). A save of this filter takes up to 360 KB (dense), and some 22 KB with these
    // lines (sparse): no save fits.
    // SAFETY: setrlimit and signal are async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 4096,
                rlim_max: 4096,
            };
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let (status, printed, stderr) = run_to_end(command, &lines, "a run on a full disk");
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(printed, Vec::<String>::new(), "nothing printed");
    assert!(
        stderr.starts_with("sparkbloom: --state seen.sbloom: cannot reserve ")
            && stderr.contains("File too large")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    assert!(journals(&dir).is_empty());
    // With room, the same state takes every line.
    assert_eq!(unseen(&dir, "seen.sbloom", &lines), lines);
}

#[test]
fn a_stdout_closed_early_saves_the_lines_written_then_ends_quietly() {
    let dir = scratch("recovery_closed_stdout");
    let sizing = ["-n", "400000", "-p", "0.000000001"];
    // A reader that takes one line and goes away, with a writer far ahead of it; no checkpoint
    // can come first.
    let script = format!(
        "seq 1 300000 | {BIN} dedup {} --state s.sbloom --checkpoint-secs 0 | head -n 1; echo \"${{PIPESTATUS[1]}}\"",
        sizing.join(" ")
    );
    let mut shell = Command::new("bash");
    shell
        .arg("-c")
        .arg(&script)
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = shell.spawn().unwrap();
    wait_or_fail(&mut child, "dedup | head -n 1");
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "",
        "nothing on stderr"
    );
    // 141 = 128 + SIGPIPE: ended by the signal, as cat and grep are.
    assert_eq!(String::from_utf8_lossy(&output.stdout), "1\n141\n");

    // The state holds the lines written before stdout closed, a prefix 1..=W, and none after
    // (p = 1e-9: a false positive among 300,000 lines has odds of 1 in 3,000).
    let filter = load(&dir.join("s.sbloom"));
    let all: Vec<String> = (1..=300_000).map(|i| i.to_string()).collect();
    let written = all
        .iter()
        .position(|l| !filter.might_contain_str(l))
        .expect("lines after the close are not saved");
    assert!(written >= 1, "head's line is saved");
    assert!(
        all[written..].iter().all(|l| !filter.might_contain_str(l)),
        "only lines written are saved"
    );
    assert!(journals(&dir).is_empty());
    // The next run prints exactly the lines never written.
    let mut args = vec!["dedup"];
    args.extend(sizing);
    args.extend(["--state", "s.sbloom"]);
    let next = run_in(&dir, &args, text(&all).as_bytes()).ok();
    assert_eq!(next.stdout_text(), text(&all[written..]));
}
