//! Runs the built `sparkbloom` binary and gives each test its own scratch directory.
#![allow(dead_code)] // each test file uses its own part of this module

pub mod dedup;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_sparkbloom");

pub struct Run {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    pub fn stdout_text(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    /// Exit 0 and nothing on stderr.
    #[track_caller]
    pub fn ok(self) -> Run {
        assert_eq!(self.code, Some(0), "stderr: {}", self.stderr);
        assert_eq!(self.stderr, "", "stderr of a successful run");
        self
    }

    /// Exit `code` with exactly one line on stderr, `sparkbloom: …` containing every `needle`,
    /// and never a panic.
    #[track_caller]
    pub fn fails(self, code: i32, needles: &[&str]) -> Run {
        assert_eq!(self.code, Some(code), "stderr: {}", self.stderr);
        assert!(
            self.stderr.starts_with("sparkbloom: ") && self.stderr.ends_with('\n'),
            "stderr: {:?}",
            self.stderr
        );
        assert_eq!(
            self.stderr.lines().count(),
            1,
            "one line: {:?}",
            self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        for needle in needles {
            assert!(
                self.stderr.contains(needle),
                "{needle:?} not in {:?}",
                self.stderr
            );
        }
        self
    }
}

/// `sparkbloom args…` with `stdin` fed in, in directory `dir`.
pub fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sparkbloom");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    // A writer thread, so a large stdin cannot deadlock against a full stdout pipe.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().expect("wait for sparkbloom");
    writer.join().unwrap();
    Run {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A fresh, empty directory under cargo's per-target temp dir, named after the test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("sparkbloom-cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The shared golden files (tests/golden at the repository root).
pub fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden")
        .join(name)
}

pub fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[allow(unused_imports)] // not every test file generates data
pub use sparkbloom_testkit::splitmix64;
