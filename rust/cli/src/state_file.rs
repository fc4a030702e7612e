//! `dedup --state`: the filter file a run loads at its start and saves at checkpoints, on a
//! stop signal and at its end.
//!
//! A save locks the file (flock, exclusive), ORs in what the file holds at that moment (another
//! run may have saved since), and writes the result through the file itself rather than
//! renaming a new file over it: mode, owner, ACLs, hard links and the inode stay, a symlink's
//! target is what changes, and the lock is on the inode every run opens. To survive a crash in
//! the middle of that overwrite, the bytes first go to a journal `.NAME.PID.tmp` beside the
//! file (fsynced), then into the file (fsynced), then the journal is removed. A journal left by
//! a dead process is complete or was never copied in: the next run, holding the lock, ORs a
//! complete one into the state (it holds only lines that were printed) and removes it either
//! way, so a save cut short at any point loses nothing and leaves no litter.

use crate::cli::FileFormat;
use crate::error::{CliError, CliResult, display};
use crate::filter_file::{self, Loaded};
use sparkbloom::BloomFilter;
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

pub struct StateFile {
    /// As given (messages name it).
    path: PathBuf,
    /// The layout asked for with --format, else the one the file has when saved.
    format: Option<FileFormat>,
    max_bits: u64,
}

impl StateFile {
    pub fn new(path: &Path, format: Option<FileFormat>, max_bits: u64) -> StateFile {
        StateFile {
            path: path.to_path_buf(),
            format,
            max_bits,
        }
    }

    /// Whether the file holds anything yet.
    pub fn exists(&self) -> bool {
        fs::metadata(&self.path).is_ok_and(|meta| meta.len() > 0)
    }

    /// What the file holds (with what stale journals add), or None for a file that does not
    /// exist yet or is empty (created by a save that never wrote). A file a crash left torn is
    /// rewritten from its journal at once. Opened for writing, so a state that cannot be saved
    /// is refused before any line is printed.
    pub fn load(&self) -> CliResult<Option<BloomFilter>> {
        if fs::metadata(&self.path).is_err() {
            return Ok(None);
        }
        let file = filter_file::open_regular(&self.path, true)?;
        filter_file::lock(&file, &self.path, libc::LOCK_EX)?;
        let torn = self.read_on_disk(&file).is_err();
        let Some((filter, format)) = self.read_repaired(&file)? else {
            return Ok(None);
        };
        if torn {
            self.write_locked(&file, &filter, self.format.unwrap_or(format))?;
        }
        Ok(Some(filter))
    }

    /// Saves `filter` ORed with what the file holds now; `filter` gets those bits too.
    pub fn save(&self, filter: &BloomFilter) -> CliResult<()> {
        let file = filter_file::open_regular(&self.path, true)?;
        filter_file::lock(&file, &self.path, libc::LOCK_EX)?;
        let mut format = self.format;
        if let Some((on_disk, disk_format)) = self.read_repaired(&file)? {
            self.merge(filter, &on_disk)?;
            format = format.or(Some(disk_format));
        }
        self.write_locked(&file, filter, format.unwrap_or(FileFormat::Sparkbloom))
    }

    /// Journal, copy into `file` (locked), remove the journal; each step fsynced.
    fn write_locked(&self, file: &File, filter: &BloomFilter, format: FileFormat) -> CliResult<()> {
        let bytes = filter_file::encode(filter, format)
            .map_err(|e| CliError::new(format!("--state {}: {e}", display(&self.path))))?;
        let journal = self.journal_path(std::process::id())?;
        write_journal(&journal, &bytes).map_err(|e| CliError::io(&journal, "write", e))?;
        let copied = (|| {
            file.write_all_at(&bytes, 0)?;
            file.set_len(bytes.len() as u64)?;
            file.sync_all()
        })();
        copied.map_err(|e| CliError::io(&self.path, "write", e))?;
        fs::remove_file(&journal).map_err(|e| CliError::io(&journal, "remove", e))?;
        Ok(())
    }

    /// What the locked `file` holds with the journals of dead processes ORed in, and its
    /// layout; a file a crash left unreadable is replaced by its complete journal.
    fn read_repaired(&self, file: &File) -> CliResult<Option<(BloomFilter, FileFormat)>> {
        match self.read_on_disk(file) {
            Ok(Some(loaded)) => {
                self.recover_journals(Some(&loaded.filter))?;
                Ok(Some((loaded.filter, loaded.format)))
            }
            Ok(None) => Ok(self
                .recover_journals(None)?
                .map(|journal| (journal.filter, journal.format))),
            Err(e) => match self.recover_journals(None)? {
                Some(journal) => Ok(Some((journal.filter, journal.format))),
                None => Err(e),
            },
        }
    }

    /// The filter in `file`, None when it is empty.
    fn read_on_disk(&self, file: &File) -> CliResult<Option<Loaded>> {
        let len = file
            .metadata()
            .map_err(|e| CliError::io(&self.path, "read", e))?
            .len();
        if len == 0 {
            return Ok(None);
        }
        filter_file::read_from(file, &self.path, self.max_bits).map(Some)
    }

    /// ORs `other` (from the file or a journal) into `filter`; a different shape is an error.
    fn merge(&self, filter: &BloomFilter, other: &BloomFilter) -> CliResult<()> {
        filter.union(other).map_err(|e| {
            CliError::new(format!(
                "--state {}: the filter in the file no longer matches this run's ({e}); another run saved a different filter there",
                display(&self.path)
            ))
        })
    }

    /// Removes the journals of dead processes, ORing each complete one of the same shape into
    /// `into`, or (no filter yet) returning the first as the filter. Called under the lock.
    fn recover_journals(&self, into: Option<&BloomFilter>) -> CliResult<Option<Loaded>> {
        let own = self.journal_path(std::process::id())?;
        let (dir, prefix) = (
            own.parent().unwrap_or(Path::new(".")),
            self.journal_prefix()?,
        );
        let Ok(entries) = fs::read_dir(dir) else {
            return Ok(None);
        };
        let mut recovered: Option<Loaded> = None;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = journal_pid(&name, &prefix) else {
                continue;
            };
            if pid == std::process::id() || alive(pid) {
                continue;
            }
            let path = entry.path();
            // A journal cut short was never copied into the file: nothing to take from it.
            if let Ok(journal) = filter_file::read(&path, self.max_bits) {
                match into.or(recovered.as_ref().map(|r| &r.filter)) {
                    // A journal of another shape belongs to no run of this state: dropped.
                    Some(filter) => {
                        let _ = filter.union(&journal.filter);
                    }
                    None => recovered = Some(journal),
                }
            }
            fs::remove_file(&path).map_err(|e| CliError::io(&path, "remove", e))?;
        }
        Ok(recovered)
    }

    /// `.NAME.` of the real file (a symlink resolved), in its directory.
    fn journal_prefix(&self) -> CliResult<OsString> {
        let real = real_path(&self.path);
        let name = real.file_name().ok_or_else(|| {
            CliError::new(format!("--state {}: not a file name", display(&self.path)))
        })?;
        let mut prefix = OsString::from(".");
        prefix.push(name);
        prefix.push(".");
        Ok(prefix)
    }

    fn journal_path(&self, pid: u32) -> CliResult<PathBuf> {
        let real = real_path(&self.path);
        let dir = match real.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut name = self.journal_prefix()?;
        name.push(format!("{pid}.tmp"));
        Ok(dir.join(name))
    }
}

/// The file a path names once symlinks are followed (the path itself if that fails: a file
/// not created yet).
fn real_path(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The process id in a journal's name `PREFIX<pid>.tmp`.
fn journal_pid(name: &std::ffi::OsStr, prefix: &OsString) -> Option<u32> {
    let name = name.to_str()?;
    name.strip_prefix(prefix.to_str()?)?
        .strip_suffix(".tmp")?
        .parse()
        .ok()
}

/// Whether process `pid` exists (kill with signal 0: EPERM means it exists, as someone else's).
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let exists = unsafe { libc::kill(pid, 0) } == 0;
    exists || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The journal: created afresh, private (0600), written and fsynced.
fn write_journal(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let _ = fs::remove_file(path);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}
