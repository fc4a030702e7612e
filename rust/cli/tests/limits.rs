//! Bounded resources: a filter file is refused from its header when it declares more bits than
//! `--max-bits` (by default half the memory the process may use), before anything is
//! allocated; a FIFO, a device or a directory given as a filter is refused without blocking or
//! reading; a line longer than `--max-line-bytes`, or too long for the memory left, is a
//! one-line error naming it, never an abort.

mod support;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{BIN, Run, run_in, scratch};

/// `sh -c script` in `dir`, killed (and failed) if it has not ended after two minutes, so a
/// run that blocks fails instead of hanging the suite.
fn shell(dir: &Path, script: &str) -> Run {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("still running: {script}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// CRC-32 (ISO-HDLC), as FORMAT.md's trailer.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= byte as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// An empty filter's 37 bytes (sparse: header, count and Rice parameter, CRC) declaring
/// `num_bits` bits: valid in every field, so only a limit stops a reader allocating m/8 bytes.
fn empty_filter_declaring(num_bits: u64) -> Vec<u8> {
    let small = sparkbloom::BloomFilter::new(1000, 0.01).unwrap();
    let mut bytes = sparkbloom::format::encode(&small);
    assert_eq!(bytes.len(), 37);
    bytes[8..16].copy_from_slice(&num_bits.to_le_bytes());
    bytes.truncate(33);
    let crc = crc32(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    bytes
}

#[test]
fn a_header_declaring_more_bits_than_the_limit_is_refused_before_allocating() {
    let dir = scratch("limits_bits");
    fs::write(dir.join("huge.sbloom"), empty_filter_declaring(1 << 37)).unwrap();
    let small = empty_filter_declaring(1 << 20);
    assert!(
        sparkbloom::format::decode(&small).is_ok(),
        "the forged file is valid"
    );
    fs::write(dir.join("small.sbloom"), small).unwrap();
    // Under a 4 GiB address-space limit the default is at most 2 GiB of bits (2^34): 2^37 is
    // refused from its header, however much memory the machine has.
    for command in [
        "inspect huge.sbloom",
        "merge small.sbloom huge.sbloom -o m.sbloom",
        "query huge.sbloom",
        "convert huge.sbloom --to guava -o c.guava",
        "dedup -n 10 -p 0.1 --state huge.sbloom",
    ] {
        shell(
            &dir,
            &format!("ulimit -v 4194304; exec {BIN} {command} </dev/null"),
        )
        .fails(
            1,
            &[
                "huge.sbloom",
                "137438953472 bits exceeds the decode limit of",
                "--max-bits",
            ],
        );
    }
    // The flag, in either spelling.
    run_in(
        &dir,
        &["--max-bits", "2^19", "inspect", "small.sbloom"],
        b"",
    )
    .fails(
        1,
        &[
            "small.sbloom",
            "1048576 bits exceeds the decode limit of 524288 bits",
        ],
    );
    run_in(&dir, &["inspect", "--max-bits", "1Mi", "small.sbloom"], b"").ok();
    assert!(!dir.join("m.sbloom").exists() && !dir.join("c.guava").exists());
}

#[test]
fn a_fifo_a_device_or_a_directory_as_a_filter_is_refused_without_blocking() {
    let dir = scratch("limits_not_regular");
    assert!(
        Command::new("mkfifo")
            .arg(dir.join("fifo"))
            .status()
            .unwrap()
            .success()
    );
    fs::create_dir(dir.join("sub")).unwrap();
    for (command, what) in [
        ("inspect fifo", "fifo: is a FIFO"),
        ("dedup -n 10 -p 0.1 --state fifo", "fifo: is a FIFO"),
        (
            "dedup -n 10 -p 0.1 --state /dev/zero",
            "/dev/zero: is a device",
        ),
        ("query /dev/zero", "/dev/zero: is a device"),
        ("merge sub fifo -o m", "sub: is a directory"),
    ] {
        shell(
            &dir,
            &format!("ulimit -v 1048576; exec {BIN} {command} </dev/null"),
        )
        .fails(1, &[what, "a filter file must be a regular file"]);
    }
}

#[test]
fn a_line_longer_than_the_limit_is_a_one_line_error_naming_it_even_under_a_memory_limit() {
    let dir = scratch("limits_line");
    // A 300 MB line under a 512 MiB address-space limit: the default limit (64 MiB) stops it.
    let huge = "head -c 300000000 /dev/zero | ";
    shell(
        &dir,
        &format!("ulimit -v 524288; {huge}exec {BIN} dedup -n 10 -p 0.1"),
    )
    .fails(
        1,
        &["<stdin>:1: line longer than --max-line-bytes 67108864 bytes"],
    );
    // Allowed by the flag, a 600 MB line does not fit: an error too, not an abort.
    let huge = "head -c 600000000 /dev/zero | ";
    shell(
        &dir,
        &format!("ulimit -v 524288; {huge}exec {BIN} --max-line-bytes 1Gi build -n 10 -p 0.1 -o x"),
    )
    .fails(1, &["<stdin>:1: out of memory holding a line of more than"]);
    // The line number, the file and the exact bound: 10 bytes pass, 11 do not.
    fs::write(dir.join("keys.txt"), "0123456789\r\nshort\n01234567890\n").unwrap();
    let args = ["query", "--max-line-bytes", "10", "f.sbloom", "keys.txt"];
    run_in(
        &dir,
        &["build", "-n", "10", "-p", "0.1", "-o", "f.sbloom"],
        b"a\n",
    )
    .ok();
    run_in(&dir, &args, b"").fails(
        1,
        &["keys.txt:3: line longer than --max-line-bytes 10 bytes"],
    );
    assert!(!dir.join("x").exists());
}
