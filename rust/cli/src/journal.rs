//! The journal of a `dedup --state` run: `.NAME.PID.NONCE.journal` beside the state file, a
//! private file that holds a save's bytes (fsynced) before they are copied into the state, so a
//! crash in the middle of that copy loses nothing.
//!
//! A run creates its journal before it prints anything, with the room its largest save can need
//! allocated (posix_fallocate), so a full disk or an unwritable directory stops the run before
//! the first line rather than at a save. It keeps the journal, and an exclusive flock on it, to
//! its end, then removes it. A journal found unlocked belongs to a run that has ended (a crash:
//! a run that ends cleanly removes its own); its pid says nothing (a container's entrypoint is
//! always pid 1), the NONCE (the run's start in nanoseconds) only keeps names apart.
//!
//! Layout: MAGIC, the length of the bytes (u64 LE), their Murmur3-128 (h1, h2 LE), the bytes,
//! then whatever the allocation left. A journal whose hash does not match was cut short: its save
//! never reached the state, so it holds nothing to recover.
//!
//! Scanning for ended runs' journals never follows or locks a link: a symlink or a file with a
//! second name (a hard link, perhaps to the state itself, whose lock the scan holds) is no journal
//! a run wrote, and its name is removed; other kinds of file are left alone.

use crate::error::{CliError, CliResult, display, plain};
use crate::filter_file::{self, Loaded};
use sparkbloom::format;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const MAGIC: [u8; 8] = *b"SBJRNL01";
const HEADER_LEN: u64 = 32;
const SUFFIX: &str = ".journal";

/// This run's journal, locked until it is removed or the process ends.
pub struct Journal {
    path: PathBuf,
    file: File,
    /// Bytes allocated.
    reserved: u64,
}

/// The most bytes a save of a filter of `num_bits` bits takes in any layout (FORMAT.md's dense
/// encoding is the largest; Guava's and Spark's headers are shorter).
pub fn max_save_len(num_bits: u64) -> u64 {
    let words = num_bits.div_ceil(64) * 8;
    let spark = format::spark_sketch::V2_HEADER_LEN as u64 + words;
    let guava = format::guava::HEADER_LEN as u64 + words;
    format::max_encoded_len(num_bits).max(spark).max(guava)
}

impl Journal {
    /// Creates this run's journal as `<prefix><pid>.<nonce>.journal` in `dir`, locked, with
    /// room for a save of `save_len` bytes allocated. `state` names the state in messages.
    pub fn create(dir: &Path, prefix: &OsStr, save_len: u64, state: &Path) -> CliResult<Journal> {
        let mut nonce = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let (path, file) = loop {
            let mut name = prefix.to_os_string();
            name.push(format!("{}.{nonce:016x}{SUFFIX}", std::process::id()));
            let path = dir.join(name);
            let opened = OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path);
            match opened {
                Ok(file) => break (path, file),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => nonce = nonce.wrapping_add(1),
                Err(e) => {
                    return Err(CliError::new(format!(
                        "--state {}: cannot create its journal {} (the directory must be writable): {}",
                        display(state),
                        display(&path),
                        plain(&e)
                    )));
                }
            }
        };
        let mut journal = Journal {
            path,
            file,
            reserved: 0,
        };
        let ready = try_lock(&journal.file)
            .and_then(|locked| {
                locked
                    .then_some(())
                    .ok_or_else(|| std::io::Error::from(ErrorKind::WouldBlock))
            })
            .and_then(|()| journal.reserve(HEADER_LEN + save_len));
        if let Err(e) = ready {
            let _ = fs::remove_file(&journal.path);
            return Err(CliError::new(format!(
                "--state {}: cannot reserve {} bytes for its saves in {}: {}",
                display(state),
                HEADER_LEN + save_len,
                display(&journal.path),
                plain(&e)
            )));
        }
        // The journal's name must survive a crash too. Best effort: not every file system lets a
        // directory be opened for fsync.
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
        Ok(journal)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes` with their header and fsyncs: once this returns, they survive a crash.
    pub fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let len = bytes.len() as u64;
        // Within the allocation unless the state changed layout since (a run with --format).
        self.reserve(HEADER_LEN + len)?;
        let hash = sparkbloom::hashing::hash_bytes(bytes);
        let mut header = [0u8; HEADER_LEN as usize];
        header[..8].copy_from_slice(&MAGIC);
        header[8..16].copy_from_slice(&len.to_le_bytes());
        header[16..24].copy_from_slice(&hash.h1.to_le_bytes());
        header[24..].copy_from_slice(&hash.h2.to_le_bytes());
        self.file.write_all_at(&header, 0)?;
        self.file.write_all_at(bytes, HEADER_LEN)?;
        self.file.sync_data()
    }

    /// Removes the journal (the run has ended with its saves in the state).
    pub fn remove(self) {
        let _ = fs::remove_file(&self.path);
    }

    fn reserve(&mut self, len: u64) -> std::io::Result<()> {
        if len <= self.reserved {
            return Ok(());
        }
        let too_large = || std::io::Error::from(ErrorKind::FileTooLarge);
        let len_off = libc::off_t::try_from(len).map_err(|_| too_large())?;
        // SAFETY: posix_fallocate on a descriptor this File owns; it returns the error number
        // (glibc writes zeros itself where the file system cannot allocate).
        let err = unsafe { libc::posix_fallocate(self.file.as_raw_fd(), 0, len_off) };
        if err != 0 {
            return Err(std::io::Error::from_raw_os_error(err));
        }
        self.reserved = len;
        Ok(())
    }
}

/// A journal of a run that has ended, locked by this process while it is looked at.
pub struct Leftover {
    path: PathBuf,
    file: File,
}

impl Leftover {
    /// The filter it holds, None when it was cut short (or is no journal at all).
    pub fn read(&self, max_bits: u64) -> Option<Loaded> {
        let mut header = [0u8; HEADER_LEN as usize];
        self.file.read_exact_at(&mut header, 0).ok()?;
        if header[..8] != MAGIC {
            return None;
        }
        let len = u64::from_le_bytes(header[8..16].try_into().ok()?);
        let file_len = self.file.metadata().ok()?.len();
        if len == 0 || len > file_len.saturating_sub(HEADER_LEN) || len > max_save_len(max_bits) {
            return None;
        }
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(usize::try_from(len).ok()?).ok()?;
        bytes.resize(len as usize, 0);
        self.file.read_exact_at(&mut bytes, HEADER_LEN).ok()?;
        let hash = sparkbloom::hashing::hash_bytes(&bytes);
        let expected = (
            u64::from_le_bytes(header[16..24].try_into().ok()?),
            u64::from_le_bytes(header[24..].try_into().ok()?),
        );
        if (hash.h1, hash.h2) != expected {
            return None;
        }
        filter_file::decode(&bytes, &self.path, max_bits).ok()
    }

    /// Removes it (what it held is in the state now, or it held nothing).
    pub fn remove(self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// The journals in `dir` named `<prefix><pid>.<nonce>.journal` whose runs have ended, each
/// locked; `own` (this run's) and journals of live runs are skipped, links' names removed.
/// `state` is the metadata of the state file, which the caller holds open and locked: a name
/// for it is never opened here.
pub fn leftovers(
    dir: &Path,
    prefix: &OsStr,
    own: Option<&Path>,
    state: &fs::Metadata,
) -> Vec<Leftover> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        if !is_journal_name(&entry.file_name(), prefix) {
            continue;
        }
        let path = entry.path();
        if Some(path.as_path()) == own {
            continue;
        }
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.file_type().is_symlink() || (meta.is_file() && meta.nlink() > 1) {
            let _ = fs::remove_file(&path);
            continue;
        }
        if !meta.is_file() {
            continue;
        }
        // O_NOFOLLOW and O_NONBLOCK: a name swapped for a link or a FIFO since is not opened.
        let Ok(file) = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
        else {
            continue;
        };
        let Ok(opened) = file.metadata() else {
            continue;
        };
        let same = |a: &fs::Metadata, b: &fs::Metadata| a.dev() == b.dev() && a.ino() == b.ino();
        if !opened.is_file() || opened.nlink() != 1 || !same(&opened, &meta) || same(&opened, state)
        {
            continue;
        }
        // Held by a live run, or no flock here: left alone.
        if try_lock(&file).unwrap_or(false) {
            found.push(Leftover { path, file });
        }
    }
    found
}

/// `<prefix><digits>.<16 hex digits>.journal`, nothing else.
fn is_journal_name(name: &OsStr, prefix: &OsStr) -> bool {
    let (Some(name), Some(prefix)) = (name.to_str(), prefix.to_str()) else {
        return false;
    };
    let Some(middle) = name
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix(SUFFIX))
    else {
        return false;
    };
    let Some((pid, nonce)) = middle.split_once('.') else {
        return false;
    };
    !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && nonce.len() == 16
        && nonce.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `.NAME.` of the state's real file name.
pub fn prefix(real_state: &Path) -> Option<OsString> {
    let mut prefix = OsString::from(".");
    prefix.push(real_state.file_name()?);
    prefix.push(".");
    Some(prefix)
}

/// flock(LOCK_EX | LOCK_NB): Ok(false) when another open file holds a lock on it.
fn try_lock(file: &File) -> std::io::Result<bool> {
    filter_file::flock(file, libc::LOCK_EX | libc::LOCK_NB)
}
