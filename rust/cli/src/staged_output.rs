//! `dedup`'s stdout: new lines are staged in a buffer and written in blocks.
//!
//! With `--state` a line goes into the filter only once stdout has taken its bytes (a "deferred
//! put"), so a save, which always follows a write, never counts as seen a line that was not
//! written: when stdout closes (`| head`) or fails, the lines written before the failure are put
//! and saved, and the rest are dropped, unseen. A staged line is not in the filter yet, so a
//! repeat among the staged lines is caught by an exact set of them (open addressing over their
//! indices, with a keyed hash so no input can make it slow). Without `--state` nothing is saved:
//! lines are put as they are read, and a closed stdout ends the process (SIGPIPE).

use crate::error::{CliError, CliResult};
use std::collections::hash_map::RandomState;
use std::fs::File;
use std::hash::BuildHasher;
use std::io::{ErrorKind, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;

/// Bytes staged before a write.
const BUFFER_BYTES: usize = 256 * 1024;
const MIN_SLOTS: usize = 1024;

pub struct StagedOutput {
    /// Standard output's descriptor, written directly: every byte it takes is counted.
    stdout: ManuallyDrop<File>,
    buf: Vec<u8>,
    /// Each staged line's key end and line end in `buf`; it starts where the previous one ends.
    lines: Vec<(usize, usize)>,
    /// Deferred puts only: indices + 1 into `lines` (0: empty), at least twice as many as lines.
    slots: Vec<u32>,
    hasher: RandomState,
    deferred: bool,
}

impl StagedOutput {
    pub fn new(deferred: bool) -> StagedOutput {
        StagedOutput {
            // SAFETY: fd 1 stays open for the life of the process; ManuallyDrop never closes it.
            stdout: ManuallyDrop::new(unsafe { File::from_raw_fd(1) }),
            buf: Vec::new(),
            lines: Vec::new(),
            slots: if deferred {
                vec![0; MIN_SLOTS]
            } else {
                Vec::new()
            },
            hasher: RandomState::new(),
            deferred,
        }
    }

    /// Whether lines go into the filter only once written (with `--state`).
    pub fn deferred(&self) -> bool {
        self.deferred
    }

    /// Whether `key` is among the staged lines (deferred puts only; false otherwise).
    pub fn is_staged(&self, key: &[u8]) -> bool {
        self.deferred && self.find(key).is_ok()
    }

    /// Stages a new line, `raw` as read (given a `\n` if it has none), its key the first
    /// `key_len` bytes; the key must not be staged already.
    pub fn stage(&mut self, raw: &[u8], key_len: usize) -> CliResult<()> {
        let newline = !raw.ends_with(b"\n");
        if self.buf.try_reserve(raw.len() + 1).is_err() {
            return Err(CliError::new(format!(
                "out of memory staging a line of {} bytes for stdout",
                raw.len()
            )));
        }
        if self.deferred && (self.lines.len() + 1) * 2 > self.slots.len() {
            self.rehash(self.slots.len() * 2);
        }
        let start = self.buf.len();
        self.buf.extend_from_slice(raw);
        if newline {
            self.buf.push(b'\n');
        }
        self.lines.push((start + key_len, self.buf.len()));
        if self.deferred {
            self.insert(self.lines.len() - 1);
        }
        Ok(())
    }

    /// Enough is staged for a write.
    pub fn is_full(&self) -> bool {
        self.buf.len() >= BUFFER_BYTES
    }

    /// Writes what is staged and calls `written` with the key of each line stdout took, in
    /// order, even when a write error stopped it part way (the lines after are dropped); then
    /// the stage is empty.
    pub fn write(&mut self, mut written: impl FnMut(&[u8])) -> std::io::Result<()> {
        let mut done = 0;
        let result = loop {
            if done == self.buf.len() {
                break Ok(());
            }
            match self.stdout.write(&self.buf[done..]) {
                Ok(0) => break Err(ErrorKind::WriteZero.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        for index in 0..self.lines.len() {
            if self.lines[index].1 > done {
                break;
            }
            written(self.key(index));
        }
        self.buf.clear();
        // A long line leaves no long buffer behind.
        self.buf.shrink_to(BUFFER_BYTES * 2);
        self.lines.clear();
        self.slots.fill(0);
        result
    }

    fn key(&self, index: usize) -> &[u8] {
        let start = index.checked_sub(1).map_or(0, |prev| self.lines[prev].1);
        &self.buf[start..self.lines[index].0]
    }

    /// Ok when `key` is staged, else the empty slot where it goes.
    fn find(&self, key: &[u8]) -> Result<(), usize> {
        let mask = self.slots.len() - 1;
        let mut slot = self.hasher.hash_one(key) as usize & mask;
        loop {
            match self.slots[slot] {
                0 => return Err(slot),
                index if self.key(index as usize - 1) == key => return Ok(()),
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    fn insert(&mut self, index: usize) {
        if let Err(slot) = self.find(self.key(index)) {
            self.slots[slot] = (index + 1) as u32;
        }
    }

    fn rehash(&mut self, slots: usize) {
        self.slots = vec![0; slots];
        (0..self.lines.len()).for_each(|index| self.insert(index));
    }
}
