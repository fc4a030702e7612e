//! `sparkbloom dedup`: the crawler's sieve. `put` returns whether any bit changed, which is
//! exactly "not seen before" (a key seen before has all its bits set already), so each line
//! costs one hash and one walk over k bits.
//!
//! With `--state`, the filter is saved (state_file.rs) at checkpoints, on a stop signal and at
//! the end, each time after stdout is flushed, so every line a saved state counts as seen has
//! been written.

use crate::capacity_watch::{CapacityWatch, Warning};
use crate::cli::DedupArgs;
use crate::commands::{new_filter, stdout_error};
use crate::error::{CliError, CliResult, display};
use crate::limits::Limits;
use crate::lines::{Event, Lines};
use crate::signals;
use crate::state_file::StateFile;
use sparkbloom::BloomFilter;
use std::io::{BufWriter, StdoutLock, Write};
use std::time::{Duration, Instant};

/// Lines between two looks at the clock for a due checkpoint.
const CLOCK_EVERY_LINES: u64 = 4096;
/// A checkpoint waits at least this many times as long as the last save took, so saving a
/// large filter never takes more than a tenth of the run.
const SAVE_TIME_FACTOR: u32 = 10;

pub fn run(args: &DedupArgs, progress: bool, limits: &Limits) -> CliResult<()> {
    let state = args
        .state
        .as_ref()
        .map(|path| StateFile::new(path, args.format, limits.max_bits));
    let filter = load_or_create(args, state.as_ref())?;
    if state.is_some() {
        signals::install();
    }
    let lines = Lines::open(
        &args.inputs,
        "sparkbloom dedup",
        progress,
        limits.max_line_bytes,
    )?;
    let (n, p) = (args.sizing.fixed_insertions()?, args.sizing.fpp);
    let mut sieve = Sieve {
        capacity: CapacityWatch::new(&filter, n, p),
        filter,
        lines,
        out: BufWriter::with_capacity(256 * 1024, std::io::stdout().lock()),
        state,
        checkpoint: Checkpoint::new(args.checkpoint_secs),
        read: 0,
        printed: 0,
        warned: false,
        format_asked: args.format.is_some(),
        fpp: p,
    };
    let result = sieve.run();
    if result.is_err() {
        // Lines printed before the error are saved as seen; the first error is the one told.
        let _ = sieve.out.flush();
        let _ = sieve.save();
    }
    result
}

/// The filter in `--state` when the file holds one (its shape must be the one the options
/// give), a new one otherwise.
fn load_or_create(args: &DedupArgs, state: Option<&StateFile>) -> CliResult<BloomFilter> {
    let fresh = new_filter(&args.sizing)?;
    let (Some(state), Some(path)) = (state, &args.state) else {
        return Ok(fresh);
    };
    let Some(filter) = state.load()? else {
        return Ok(fresh);
    };
    if let Err(e) = fresh.check_compatible(&filter) {
        return Err(CliError::new(format!(
            "--state {}: the saved filter does not match --expected-insertions {} --fpp {} --strategy (these options vs the file: {e}); pass the options it was made with, or a new state file",
            display(path),
            args.sizing.fixed_insertions()?,
            args.sizing.fpp,
        )));
    }
    Ok(filter)
}

struct Sieve<'a> {
    filter: BloomFilter,
    lines: Lines,
    out: BufWriter<StdoutLock<'a>>,
    state: Option<StateFile>,
    checkpoint: Checkpoint,
    capacity: CapacityWatch,
    read: u64,
    printed: u64,
    warned: bool,
    /// --format was given.
    format_asked: bool,
    fpp: f64,
}

impl Sieve<'_> {
    fn run(&mut self) -> CliResult<()> {
        if let Some(warning) = self.capacity.initial(&self.filter) {
            self.warn(&warning);
        }
        loop {
            if let Some(signal) = signals::stop_requested() {
                self.out.flush().map_err(stdout_error)?;
                self.save()?;
                self.lines.progress.finish();
                signals::die_of(signal);
            }
            if self.lines.input_drained() {
                self.out.flush().map_err(stdout_error)?;
                self.checkpoint_if_due(true)?;
            }
            let line = match self.lines.next_event()? {
                Event::End => break,
                Event::Interrupted => {
                    signals::drain();
                    signals::take_alarm();
                    continue;
                }
                Event::Line(line) => line,
            };
            self.read += 1;
            if self.filter.put_bytes(line.text) {
                self.out.write_all(line.raw).map_err(stdout_error)?;
                if !line.raw.ends_with(b"\n") {
                    self.out.write_all(b"\n").map_err(stdout_error)?;
                }
                self.printed += 1;
                self.checkpoint.dirty = true;
                if let Some(warning) = self.capacity.added(&self.filter) {
                    self.warn(&warning);
                }
            }
            if self.read.is_multiple_of(CLOCK_EVERY_LINES) && self.checkpoint.due() {
                self.out.flush().map_err(stdout_error)?;
                self.checkpoint_if_due(false)?;
            }
        }
        self.out.flush().map_err(stdout_error)?;
        // Also when nothing is new: a state not written yet, or to be rewritten in --format.
        if self.checkpoint.dirty
            || self.format_asked
            || self.state.as_ref().is_some_and(|s| !s.exists())
        {
            self.save()?;
        }
        self.summary();
        // A stop signal that came with the end of input still ends the run by that signal.
        if let Some(signal) = signals::stop_requested() {
            signals::die_of(signal);
        }
        Ok(())
    }

    /// Saves when a checkpoint is due (stdout flushed already); otherwise, when about to wait
    /// for input with unsaved lines, sets the alarm for when it will be.
    fn checkpoint_if_due(&mut self, idle: bool) -> CliResult<()> {
        if self.state.is_none() || !self.checkpoint.dirty {
            return Ok(());
        }
        match self.checkpoint.remaining() {
            Some(remaining) if remaining.is_zero() => self.save(),
            Some(remaining) if idle => {
                signals::arm_alarm(remaining);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Saves the state (ORed with the file's), with stdout flushed by the caller.
    fn save(&mut self) -> CliResult<()> {
        let Some(state) = &self.state else {
            return Ok(());
        };
        let start = Instant::now();
        state.save(&self.filter)?;
        self.checkpoint.saved(start.elapsed());
        self.capacity.merged(&self.filter);
        Ok(())
    }

    fn warn(&mut self, warning: &Warning) {
        self.warned = true;
        let message = format!(
            "sparkbloom: warning: the filter holds about {} distinct lines, more than the {} it was sized for (--expected-insertions); its false-positive rate is now {:.3e} (sized for {}; {:.1} times that), so that share of new lines is dropped as if seen",
            warning.estimated_count,
            self.capacity.expected(),
            warning.expected_fpp,
            self.fpp,
            warning.expected_fpp / self.fpp,
        );
        self.lines.progress.message(&message);
    }

    /// The totals on stderr, for a run that warned it was over capacity.
    fn summary(&mut self) {
        if !self.warned {
            return;
        }
        let count = self.filter.approximate_element_count();
        let message = format!(
            "sparkbloom: dedup: {} lines read, {} printed, {} dropped as seen (repeats, or new lines lost to false positives); the filter holds about {count} distinct lines (sized for {}) and its false-positive rate is now {:.3e} (sized for {})",
            self.read,
            self.printed,
            self.read - self.printed,
            self.capacity.expected(),
            self.filter.expected_fpp(),
            self.fpp
        );
        self.lines.progress.message(&message);
    }
}

/// When the next periodic save is due: `--checkpoint-secs` after the last, or ten times the
/// last save's duration if that is longer; never with 0.
struct Checkpoint {
    interval: Option<Duration>,
    last: Instant,
    last_took: Duration,
    /// Lines were added since the last save.
    dirty: bool,
}

impl Checkpoint {
    fn new(secs: u64) -> Checkpoint {
        Checkpoint {
            interval: (secs > 0).then(|| Duration::from_secs(secs)),
            last: Instant::now(),
            last_took: Duration::ZERO,
            dirty: false,
        }
    }

    /// Time until the next save is due; None with checkpoints off.
    fn remaining(&self) -> Option<Duration> {
        let wait = self.interval?.max(self.last_took * SAVE_TIME_FACTOR);
        Some(wait.saturating_sub(self.last.elapsed()))
    }

    fn due(&self) -> bool {
        self.remaining().is_some_and(|r| r.is_zero())
    }

    fn saved(&mut self, took: Duration) {
        self.last = Instant::now();
        self.last_took = took;
        self.dirty = false;
    }
}
