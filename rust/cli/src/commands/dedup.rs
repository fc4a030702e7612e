//! `sparkbloom dedup`: the crawler's sieve. `put` returns whether any bit changed, which is
//! exactly "not seen before" (a key seen before has all its bits set already), so each line
//! costs one hash and one walk over k bits.
//!
//! With `--state`, the filter is saved (state_file.rs) at checkpoints, on a stop signal, at the
//! end, and when stdout closes or fails, each time after a write of stdout; a line goes into the
//! filter once stdout has taken it (staged_output.rs), so every line a saved state counts as seen
//! has been written, and every line written before a save is in it.

use crate::capacity_watch::{CapacityWatch, Warning};
use crate::cli::DedupArgs;
use crate::commands::{check_format, new_filter, stdout_error};
use crate::error::{CliError, CliResult, display};
use crate::limits::Limits;
use crate::lines::{Event, Lines};
use crate::signals;
use crate::staged_output::StagedOutput;
use crate::state_file::StateFile;
use sparkbloom::BloomFilter;
use std::path::Path;
use std::time::{Duration, Instant};

/// Lines between two looks at the clock for a due checkpoint.
const CLOCK_EVERY_LINES: u64 = 4096;
/// A checkpoint waits at least this many times as long as the last save took, so saving a
/// large filter never takes more than a tenth of the run.
const SAVE_TIME_FACTOR: u32 = 10;

pub fn run(args: &DedupArgs, progress: bool, limits: &Limits) -> CliResult<()> {
    let fresh = new_filter(&args.sizing)?;
    if let Some(format) = args.format {
        check_format(&args.sizing, format)?;
    }
    // The inputs before the state: one that cannot be opened leaves no new state file behind.
    let lines = Lines::open(
        &args.inputs,
        "sparkbloom dedup",
        progress,
        limits.max_line_bytes,
    )?;
    let (state, filter) = match &args.state {
        Some(path) => {
            let check = |loaded: &BloomFilter| compatible(args, path, &fresh, loaded);
            let (state, loaded) =
                StateFile::open(path, args.format, limits.max_bits, &fresh, check)?;
            (Some(state), loaded.unwrap_or(fresh))
        }
        None => (None, fresh),
    };
    if state.is_some() {
        signals::install();
    }
    let (n, p) = (args.sizing.fixed_insertions()?, args.sizing.fpp);
    let mut sieve = Sieve {
        capacity: CapacityWatch::new(&filter, n, p),
        filter,
        lines,
        out: StagedOutput::new(state.is_some()),
        state,
        checkpoint: Checkpoint::new(args.checkpoint_secs),
        read: 0,
        printed: 0,
        printed_at_save: 0,
        save_failed: false,
        stdout_closed: false,
        warned: false,
        format_asked: args.format.is_some(),
        fpp: p,
    };
    let outcome = sieve.run();
    sieve.finish(outcome)
}

/// The filter a state file holds must have the shape the options give.
fn compatible(
    args: &DedupArgs,
    path: &Path,
    fresh: &BloomFilter,
    loaded: &BloomFilter,
) -> CliResult<()> {
    fresh.check_compatible(loaded).map_err(|e| {
        CliError::new(format!(
            "--state {}: the saved filter does not match --expected-insertions {} --fpp {} --strategy (these options vs the file: {e}); pass the options it was made with, or a new state file",
            display(path),
            args.sizing.expected_insertions.unwrap_or_default(),
            args.sizing.fpp,
        ))
    })
}

/// Why [`Sieve::run`] stopped reading.
enum Stop {
    End,
    Signal(libc::c_int),
    /// A write found stdout closed (EPIPE): the run ends quietly, by SIGPIPE, once saved.
    StdoutClosed,
}

struct Sieve {
    filter: BloomFilter,
    lines: Lines,
    out: StagedOutput,
    state: Option<StateFile>,
    checkpoint: Checkpoint,
    capacity: CapacityWatch,
    read: u64,
    /// Lines written to stdout.
    printed: u64,
    /// `printed` at the last save.
    printed_at_save: u64,
    /// A save failed: the run ends without trying again.
    save_failed: bool,
    /// A write found stdout closed (EPIPE).
    stdout_closed: bool,
    warned: bool,
    /// --format was given.
    format_asked: bool,
    fpp: f64,
}

impl Sieve {
    fn run(&mut self) -> CliResult<Stop> {
        let stop = self.sieve_lines();
        stop.or_else(|e| self.closed_or(e))
    }

    /// [`Stop::StdoutClosed`] when `e` came of a closed stdout, else `e`.
    fn closed_or(&self, e: CliError) -> CliResult<Stop> {
        if self.stdout_closed {
            Ok(Stop::StdoutClosed)
        } else {
            Err(e)
        }
    }

    fn sieve_lines(&mut self) -> CliResult<Stop> {
        if let Some(warning) = self.capacity.initial(&self.filter) {
            self.warn(&warning);
        }
        loop {
            if let Some(signal) = signals::stop_requested() {
                return Ok(Stop::Signal(signal));
            }
            if self.lines.input_drained() {
                self.flush()?;
                self.checkpoint_if_due(true)?;
            }
            let line = match self.lines.next_event()? {
                Event::End => return Ok(Stop::End),
                Event::Interrupted => {
                    signals::drain();
                    signals::take_alarm();
                    continue;
                }
                Event::Line(line) => line,
            };
            self.read += 1;
            let key = line.text;
            // Deferred, a line goes into the filter when written (flush).
            let new = if self.out.deferred() {
                !self.filter.might_contain_bytes(key) && !self.out.is_staged(key)
            } else {
                self.filter.put_bytes(key)
            };
            if new {
                self.out.stage(line.raw, key.len())?;
                if !self.out.deferred()
                    && let Some(warning) = self.capacity.added(&self.filter)
                {
                    self.warn(&warning);
                }
                if self.out.is_full() {
                    self.flush()?;
                }
            }
            if self.read.is_multiple_of(CLOCK_EVERY_LINES) && self.checkpoint.due() {
                self.flush()?;
                self.checkpoint_if_due(false)?;
            }
        }
    }

    /// Ends the run: what is staged is written (stdout failing, the lines it took are kept and
    /// the rest dropped), the state is saved when anything is new, on a stop signal and after
    /// an error, and the run ends as `outcome` says (by its signal, quietly by SIGPIPE when
    /// stdout closed, or with the first error).
    fn finish(mut self, outcome: CliResult<Stop>) -> CliResult<()> {
        let outcome = match outcome {
            Ok(Stop::StdoutClosed) => Ok(Stop::StdoutClosed),
            Ok(stop) => self.flush().map(|()| stop).or_else(|e| self.closed_or(e)),
            Err(e) => {
                // The first error is the one told.
                let _ = self.flush();
                Err(e)
            }
        };
        let save = match outcome {
            // Also when nothing is new: a state not written yet, or to be rewritten in --format.
            Ok(Stop::End) => {
                self.checkpoint.dirty
                    || self.format_asked
                    || self.state.as_ref().is_some_and(|s| !s.exists())
            }
            // Lines written before a signal, a closed stdout or an error are saved as seen.
            _ => !self.save_failed,
        };
        let saved = if save { self.save() } else { Ok(()) };
        self.lines.progress.finish();
        if let Some(state) = self.state.take() {
            state.close();
        }
        match (outcome, saved) {
            (Ok(Stop::End), Ok(())) => {}
            (Ok(Stop::Signal(signal)), Ok(())) => signals::die_of(signal),
            (Ok(Stop::StdoutClosed), Ok(())) => signals::die_of(libc::SIGPIPE),
            (Err(e), Ok(())) | (Ok(_), Err(e)) => return Err(e),
            (Err(e), Err(save)) => return Err(e.and(format_args!("then {save}"))),
        }
        self.summary();
        // A stop signal that came with the end of input still ends the run by that signal.
        if let Some(signal) = signals::stop_requested() {
            signals::die_of(signal);
        }
        Ok(())
    }

    /// Writes what is staged; deferred, each line stdout took goes into the filter.
    fn flush(&mut self) -> CliResult<()> {
        let (filter, capacity, deferred) = (&self.filter, &mut self.capacity, self.out.deferred());
        let (mut written, mut warnings) = (0, Vec::new());
        let result = self.out.write(|key| {
            written += 1;
            if deferred {
                filter.put_bytes(key);
                warnings.extend(capacity.added(filter));
            }
        });
        self.printed += written;
        self.checkpoint.dirty |= written > 0;
        warnings.iter().for_each(|warning| self.warn(warning));
        result.map_err(|e| {
            self.stdout_closed = e.kind() == std::io::ErrorKind::BrokenPipe;
            stdout_error(e)
        })
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

    /// Saves the state (ORed with the file's), with stdout flushed by the caller. A failure
    /// says what became of the lines printed since the last save.
    fn save(&mut self) -> CliResult<()> {
        let Some(state) = &mut self.state else {
            return Ok(());
        };
        let start = Instant::now();
        if let Err(e) = state.save(&self.filter) {
            self.save_failed = true;
            let unsaved = self.printed - self.printed_at_save;
            return Err(match state.pending_journal() {
                Some(journal) => e.and(format_args!(
                    "the {unsaved} lines printed since the last save are kept in {}, which the next run applies",
                    display(journal)
                )),
                None => e.and(format_args!(
                    "{unsaved} printed lines were not saved (a later run prints them again)"
                )),
            });
        }
        self.printed_at_save = self.printed;
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
