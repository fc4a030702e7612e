//! `dedup --state`: the filter file a run loads at its start and saves at checkpoints, on a
//! stop signal and at its end.
//!
//! A save locks the file (flock, exclusive), ORs in what the file holds at that moment (another
//! run may have saved since), and writes the result through the file itself rather than
//! renaming a new file over it: mode, owner, ACLs, hard links and the inode stay, a symlink's
//! target is what changes, and the lock is on the inode every run opens. To survive a crash in
//! the middle of that overwrite, the bytes first go to the run's journal (journal.rs, fsynced),
//! then into the file (fsynced).
//!
//! Under the lock, a journal of a run that has ended is complete or never reached the file: a
//! complete one is ORed into what the file holds (it holds only lines that were printed), the
//! result is written back, and only then is that journal removed, so a save cut short at any
//! point loses nothing and leaves no litter. The run's start does this too, even for a run that
//! will print nothing.
//!
//! The start also creates the file (when new) and the journal with room for a save, so a state
//! that cannot be saved is refused before any line is printed.

use crate::cli::FileFormat;
use crate::error::{CliError, CliResult, display};
use crate::filter_file::{self, Loaded};
use crate::journal::{self, Journal, Leftover};
use sparkbloom::BloomFilter;
use std::ffi::OsString;
use std::fs::{self, File};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub struct StateFile {
    /// As given (messages name it).
    path: PathBuf,
    /// The layout asked for with --format, else the one the file has when saved.
    format: Option<FileFormat>,
    max_bits: u64,
    /// The real file's directory, where the journals are, and their prefix `.NAME.`.
    dir: PathBuf,
    prefix: OsString,
    /// This run's, from the end of [`open`](Self::open).
    journal: Option<Journal>,
    /// The journal holds a save the file does not have: the copy into the file failed.
    pending: bool,
}

/// What the locked file holds with what ended runs' journals add.
struct Repaired {
    /// The filter and the layout it came in; None for an empty file and no journal.
    filter: Option<(BloomFilter, FileFormat)>,
    /// The file must be written: it was torn, or a journal was ORed in.
    changed: bool,
    /// The journals of ended runs, to remove once the file is written.
    leftovers: Vec<Leftover>,
}

impl StateFile {
    /// Opens the state (creating it, empty, when new), repairs it from ended runs' journals
    /// (writing it back at once when they add to it), checks what it holds with `compatible`,
    /// and creates this run's journal with room for a save of a filter shaped like `fresh` (or
    /// the file's). Returns what the file holds, None when it is empty.
    pub fn open(
        path: &Path,
        format: Option<FileFormat>,
        max_bits: u64,
        fresh: &BloomFilter,
        compatible: impl FnOnce(&BloomFilter) -> CliResult<()>,
    ) -> CliResult<(StateFile, Option<BloomFilter>)> {
        let file = filter_file::open_regular(path, true)?;
        filter_file::lock(&file, path, libc::LOCK_EX)?;
        let real = fs::canonicalize(path).map_err(|e| CliError::io(path, "resolve", e))?;
        let prefix = journal::prefix(&real)
            .ok_or_else(|| CliError::new(format!("--state {}: not a file name", display(path))))?;
        let mut state = StateFile {
            path: path.to_path_buf(),
            format,
            max_bits,
            dir: real.parent().unwrap_or(Path::new("/")).to_path_buf(),
            prefix,
            journal: None,
            pending: false,
        };
        let repaired = state.read_repaired(&file)?;
        if let Some((filter, _)) = &repaired.filter {
            compatible(filter)?;
        }
        let num_bits = repaired
            .filter
            .as_ref()
            .map_or(fresh.num_bits(), |(filter, _)| filter.num_bits());
        state.journal = Some(Journal::create(
            &state.dir,
            &state.prefix,
            journal::max_save_len(num_bits),
            path,
        )?);
        if let (true, Some((filter, disk_format))) = (repaired.changed, &repaired.filter) {
            let format = format.unwrap_or(*disk_format);
            if let Err(e) = state.write_locked(&file, filter, format) {
                state.close();
                return Err(e);
            }
        }
        repaired.leftovers.into_iter().for_each(Leftover::remove);
        Ok((state, repaired.filter.map(|(filter, _)| filter)))
    }

    /// Whether the file holds anything yet.
    pub fn exists(&self) -> bool {
        fs::metadata(&self.path).is_ok_and(|meta| meta.len() > 0)
    }

    /// Saves `filter` ORed with what the file holds now; `filter` gets those bits too.
    pub fn save(&mut self, filter: &BloomFilter) -> CliResult<()> {
        let file = filter_file::open_regular(&self.path, true)?;
        filter_file::lock(&file, &self.path, libc::LOCK_EX)?;
        let repaired = self.read_repaired(&file)?;
        let mut format = self.format;
        if let Some((on_disk, disk_format)) = &repaired.filter {
            self.merge(filter, on_disk)?;
            format = format.or(Some(*disk_format));
        }
        self.write_locked(&file, filter, format.unwrap_or(FileFormat::Sparkbloom))?;
        repaired.leftovers.into_iter().for_each(Leftover::remove);
        Ok(())
    }

    /// The journal when it holds a save the file lacks (a copy into the file failed): the next
    /// run applies it.
    pub fn pending_journal(&self) -> Option<&Path> {
        self.journal
            .as_ref()
            .filter(|_| self.pending)
            .map(Journal::path)
    }

    /// The run is over: its journal goes, unless it holds a save the file lacks.
    pub fn close(mut self) {
        if let Some(journal) = self.journal.take()
            && !self.pending
        {
            journal.remove();
        }
    }

    /// Journal, then the locked `file`; each fsynced.
    fn write_locked(
        &mut self,
        file: &File,
        filter: &BloomFilter,
        format: FileFormat,
    ) -> CliResult<()> {
        let bytes = filter_file::encode(filter, format)
            .map_err(|e| CliError::new(format!("--state {}: {e}", display(&self.path))))?;
        let journal = self.journal.as_mut().expect("the journal is created first");
        journal
            .write(&bytes)
            .map_err(|e| CliError::io(journal.path(), "write", e))?;
        self.pending = true;
        let copied = (|| {
            file.write_all_at(&bytes, 0)?;
            file.set_len(bytes.len() as u64)?;
            file.sync_all()
        })();
        copied.map_err(|e| CliError::io(&self.path, "write", e))?;
        self.pending = false;
        Ok(())
    }

    /// What the locked `file` holds with the complete journals of ended runs ORed in; a file a
    /// crash left unreadable is replaced by such a journal.
    fn read_repaired(&self, file: &File) -> CliResult<Repaired> {
        let on_disk = self.read_on_disk(file);
        let meta = file
            .metadata()
            .map_err(|e| CliError::io(&self.path, "read", e))?;
        let own = self.journal.as_ref().map(Journal::path);
        let leftovers = journal::leftovers(&self.dir, &self.prefix, own, &meta);
        let (mut filter, torn) = match on_disk {
            Ok(loaded) => (loaded.map(|l| (l.filter, l.format)), None),
            Err(e) => (None, Some(e)),
        };
        let mut changed = torn.is_some();
        for leftover in &leftovers {
            // A journal cut short never reached the file: nothing to take from it.
            let Some(journal) = leftover.read(self.max_bits) else {
                continue;
            };
            match &filter {
                // A journal of another shape belongs to no run of this state: dropped.
                Some((into, _)) => changed |= into.union(&journal.filter).is_ok(),
                None => {
                    filter = Some((journal.filter, journal.format));
                    changed = true;
                }
            }
        }
        match (torn, &filter) {
            (Some(e), None) => Err(e),
            _ => Ok(Repaired {
                filter,
                changed,
                leftovers,
            }),
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
}
