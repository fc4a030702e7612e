//! Progress on stderr for long reads: a line redrawn in place when stderr is a terminal, or with
//! `--progress` on a pipe or file a plain line every two seconds. Never on stdout.
//!
//! Hand-rolled rather than `indicatif`: a byte counter and a clock are all the CLI needs, and
//! `indicatif` never draws when stderr is not a terminal, which `--progress` asks for (logs).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Bytes read between two looks at the clock: keeps the hot loop free of syscalls.
const CHECK_EVERY_BYTES: u64 = 1 << 20;

pub struct Progress {
    label: String,
    mode: Mode,
    total_bytes: Option<u64>,
    bytes: u64,
    lines: u64,
    next_check: u64,
    start: Instant,
    last_draw: Instant,
    drawn: bool,
    finished: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Off,
    /// Redraws one line in place.
    Terminal,
    /// Appends a line now and then (stderr is a pipe or a file; `--progress`).
    Log,
}

impl Progress {
    /// Shown when stderr is a terminal or `forced`; `total_bytes` when the inputs' size is known.
    pub fn new(label: &str, forced: bool, total_bytes: Option<u64>) -> Progress {
        let mode = if std::io::stderr().is_terminal() {
            Mode::Terminal
        } else if forced {
            Mode::Log
        } else {
            Mode::Off
        };
        let now = Instant::now();
        Progress {
            label: label.to_string(),
            mode,
            total_bytes,
            bytes: 0,
            lines: 0,
            next_check: CHECK_EVERY_BYTES,
            start: now,
            last_draw: now,
            drawn: false,
            finished: false,
        }
    }

    /// One line of `bytes` bytes was read.
    #[inline]
    pub fn line(&mut self, bytes: usize) {
        self.bytes += bytes as u64;
        self.lines += 1;
        if self.bytes >= self.next_check {
            self.next_check = self.bytes + CHECK_EVERY_BYTES;
            self.tick();
        }
    }

    fn tick(&mut self) {
        let interval = match self.mode {
            Mode::Off => return,
            Mode::Terminal => Duration::from_millis(150),
            Mode::Log => Duration::from_secs(2),
        };
        let now = Instant::now();
        if now.duration_since(self.last_draw) >= interval {
            self.last_draw = now;
            self.draw();
        }
    }

    fn draw(&mut self) {
        let elapsed = self.start.elapsed().as_secs_f64().max(1e-9);
        let done = match self.total_bytes {
            Some(total) if total > 0 => format!(
                "{} of {} ({:.0} %)",
                mib(self.bytes),
                mib(total),
                100.0 * self.bytes as f64 / total as f64
            ),
            _ => mib(self.bytes),
        };
        let text = format!(
            "{}: {done}, {} lines, {:.2} M lines/s",
            self.label,
            self.lines,
            self.lines as f64 / elapsed / 1e6
        );
        let mut err = std::io::stderr().lock();
        // Progress is best effort: a closed stderr must not stop the work.
        let _ = match self.mode {
            Mode::Terminal => write!(err, "\r\x1b[K{text}"),
            _ => writeln!(err, "{text}"),
        };
        let _ = err.flush();
        self.drawn = true;
    }

    /// Prints `message` on its own line of stderr, above the progress line (best effort, as
    /// the progress: `dedup --state` ignores SIGPIPE, and a closed stderr must not panic).
    pub fn message(&mut self, message: &str) {
        self.clear();
        let _ = writeln!(std::io::stderr(), "{message}");
    }

    /// The work is done: a terminal's progress line goes away; a log gets the final totals.
    pub fn finish(&mut self) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        match self.mode {
            Mode::Log => self.draw(),
            _ => self.clear(),
        }
    }

    fn clear(&mut self) {
        if self.mode == Mode::Terminal && self.drawn {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
            self.drawn = false;
        }
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}
