//! `dedup --state` runs as real processes: spawned with piped stdin and stdout, fed and read
//! line by line, killed or waited for with a deadline so a hang fails the test instead of
//! hanging the suite.

use super::{BIN, run_in};
use sparkbloom::{BloomFilter, format};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub const SIZING: [&str; 4] = ["-n", "100000", "-p", "0.000001"];

/// Long enough for a debug build on a loaded machine; a run that hangs exceeds it.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// `sparkbloom dedup -n 100000 -p 1e-6 --state FILE extra…` in `dir`, stdin, stdout and stderr
/// piped, the stop signals at their default actions whatever the test runner inherited.
pub fn dedup_command(dir: &Path, state: &str, extra: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .arg("dedup")
        .args(SIZING)
        .args(["--state", state])
        .args(extra)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(signal, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    command
}

/// [`dedup_command`] spawned, its stdout ready to read lines from.
pub fn spawn_dedup(dir: &Path, state: &str, extra: &[&str]) -> (Child, BufReader<ChildStdout>) {
    spawn(dedup_command(dir, state, extra))
}

pub fn spawn(mut command: Command) -> (Child, BufReader<ChildStdout>) {
    let mut child = command.spawn().expect("spawn sparkbloom");
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (child, stdout)
}

/// Writes `lines` to the child and reads back as many lines: each printed, so each processed.
/// In chunks smaller than a pipe's buffer, so neither side waits on the other with both full.
pub fn feed(child: &mut Child, stdout: &mut BufReader<ChildStdout>, lines: &[String]) {
    let stdin = child.stdin.as_mut().unwrap();
    for chunk in lines.chunks(500) {
        for line in chunk {
            writeln!(stdin, "{line}").unwrap();
        }
        stdin.flush().unwrap();
        for line in chunk {
            let mut got = String::new();
            stdout.read_line(&mut got).unwrap();
            assert_eq!(got.trim_end(), line, "printed in order");
        }
    }
}

/// Waits for `child` until [`DEADLINE`]; past it, kills it and fails: `what` hung.
#[track_caller]
pub fn wait_or_fail(child: &mut Child, what: &str) -> ExitStatus {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {DEADLINE:?} (a hang), killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Feeds `lines` to `command` (spawned), closes its input and waits with a deadline: its exit
/// status, stdout lines and stderr.
#[track_caller]
pub fn run_to_end(
    command: Command,
    lines: &[String],
    what: &str,
) -> (ExitStatus, Vec<String>, String) {
    let (mut child, stdout) = spawn(command);
    let mut stdin = child.stdin.take().unwrap();
    let input = text(lines);
    // Threads, so a large input cannot deadlock against a full stdout pipe, and a hung child
    // cannot hang the test past the deadline.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let reader = std::thread::spawn(move || stdout.lines().map(Result::unwrap).collect());
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let status = wait_or_fail(&mut child, what);
    writer.join().unwrap();
    (status, reader.join().unwrap(), errors.join().unwrap())
}

pub fn keys(prefix: &str, range: std::ops::Range<u32>) -> Vec<String> {
    range.map(|i| format!("{prefix}{i}")).collect()
}

pub fn text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

pub fn decode(bytes: &[u8]) -> Option<BloomFilter> {
    match bytes.first()? {
        b'S' => format::decode(bytes).ok(),
        _ => format::guava::decode(bytes).ok(),
    }
}

pub fn load(path: &Path) -> BloomFilter {
    decode(&fs::read(path).unwrap()).expect("a whole filter")
}

/// The lines of `lines` a run on `state` prints: those the state has not seen.
pub fn unseen(dir: &Path, state: &str, lines: &[String]) -> Vec<String> {
    let mut args = vec!["dedup"];
    args.extend(SIZING);
    args.extend(["--state", state]);
    let run = run_in(dir, &args, text(lines).as_bytes()).ok();
    run.stdout_text().lines().map(String::from).collect()
}

/// The journals (`.NAME.PID.NONCE.journal`) in `dir`.
pub fn journals(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(".journal"))
        .collect();
    found.sort();
    found
}

/// A run on `state` that printed `lines` (all new to it), saved them at a checkpoint, then was killed
/// (SIGKILL): what a crash leaves, its journal among it.
pub fn crashed_run(dir: &Path, state: &str, lines: &[String]) {
    let (mut child, mut stdout) = spawn_dedup(dir, state, &["--checkpoint-secs", "1"]);
    feed(&mut child, &mut stdout, lines);
    // The input is idle now: the checkpoint comes on its own.
    let path = dir.join(state);
    let deadline = Instant::now() + DEADLINE;
    while !fs::read(&path)
        .ok()
        .and_then(|bytes| decode(&bytes))
        .is_some_and(|filter| lines.iter().all(|l| filter.might_contain_str(l)))
    {
        assert!(Instant::now() < deadline, "no checkpoint");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}
