//! Lines from files or standard input (`-`), read one at a time into a reused buffer, so memory
//! stays constant whatever the input size. A line is its bytes without the line ending (`\n` or
//! `\r\n`); a last line without an ending counts. A line longer than `--max-line-bytes` is an
//! error naming it, and the buffer grows only through fallible reservations, so a huge line
//! under a memory limit is an error too, never an abort.

use crate::error::{CliError, CliResult, display};
use crate::progress::Progress;
use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};

const BUFFER_BYTES: usize = 256 * 1024;

pub struct Lines {
    /// Opened up front, so a missing file fails before any output.
    sources: Vec<(PathBuf, BufReader<Box<dyn Read>>)>,
    /// Each source's file descriptor, to poll.
    fds: Vec<RawFd>,
    current: usize,
    line_number: u64,
    buf: Vec<u8>,
    /// `buf` holds a whole line already returned: cleared before the next read.
    line_ready: bool,
    max_line_bytes: u64,
    pub progress: Progress,
}

/// Where a line came from, for error messages: `file:line`.
pub struct Location<'a> {
    path: &'a Path,
    line: u64,
}

impl std::fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", display(self.path), self.line)
    }
}

impl Lines {
    /// Opens every input; no inputs means standard input.
    pub fn open(
        inputs: &[PathBuf],
        label: &str,
        progress: bool,
        max_line_bytes: u64,
    ) -> CliResult<Lines> {
        let inputs: Vec<PathBuf> = if inputs.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            inputs.to_vec()
        };
        let mut sources = Vec::with_capacity(inputs.len());
        let mut fds = Vec::with_capacity(inputs.len());
        let mut total_bytes = Some(0u64);
        for path in inputs {
            let reader: Box<dyn Read> = if path == Path::new("-") {
                total_bytes = None;
                fds.push(0);
                Box::new(std::io::stdin())
            } else {
                let file = File::open(&path).map_err(|e| CliError::io(&path, "open", e))?;
                let meta = file
                    .metadata()
                    .map_err(|e| CliError::io(&path, "read", e))?;
                if meta.is_dir() {
                    return Err(CliError::new(format!(
                        "{}: is a directory, not a file of lines",
                        display(&path)
                    )));
                }
                total_bytes = total_bytes
                    .zip(meta.is_file().then_some(meta.len()))
                    .map(|(a, b)| a + b);
                fds.push(file.as_raw_fd());
                Box::new(file)
            };
            sources.push((path, BufReader::with_capacity(BUFFER_BYTES, reader)));
        }
        Ok(Lines {
            sources,
            fds,
            current: 0,
            line_number: 0,
            buf: Vec::new(),
            line_ready: false,
            max_line_bytes,
            progress: Progress::new(label, progress, total_bytes),
        })
    }

    /// True when the next read may block (the buffered input is used up): a streaming writer
    /// flushes then, so a consumer downstream sees each result as soon as its input has gone
    /// in, not when an output buffer fills.
    pub fn input_drained(&self) -> bool {
        self.sources
            .get(self.current)
            .is_none_or(|(_, reader)| reader.buffer().is_empty())
    }

    /// The next line, without its ending, and the raw bytes read for it (with the ending).
    pub fn next_line(&mut self) -> CliResult<Option<Line<'_>>> {
        loop {
            match self.advance(false)? {
                Advance::Line => return Ok(Some(self.line())),
                Advance::End => return Ok(None),
                Advance::Interrupted => continue,
            }
        }
    }

    /// [`next_line`](Self::next_line), but a read cut short by a signal returns
    /// [`Event::Interrupted`] (keeping what was read of the line) so the caller can act on it.
    pub fn next_event(&mut self) -> CliResult<Event<'_>> {
        Ok(match self.advance(true)? {
            Advance::Line => Event::Line(self.line()),
            Advance::End => Event::End,
            Advance::Interrupted => Event::Interrupted,
        })
    }

    /// Reads up to the next line ending (or the end of the last input) into `buf`, growing it
    /// only fallibly and never past the line limit.
    fn advance(&mut self, report_interrupts: bool) -> CliResult<Advance> {
        if std::mem::take(&mut self.line_ready) {
            self.buf.clear();
        }
        loop {
            let Some((path, reader)) = self.sources.get_mut(self.current) else {
                self.progress.finish();
                return Ok(Advance::End);
            };
            if report_interrupts
                && reader.buffer().is_empty()
                && !wait_for_input(self.fds[self.current])
            {
                return Ok(Advance::Interrupted);
            }
            let available = match reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == ErrorKind::Interrupted => {
                    if report_interrupts {
                        return Ok(Advance::Interrupted);
                    }
                    continue;
                }
                Err(e) => return Err(CliError::io(path, "read", e)),
            };
            if available.is_empty() {
                if !self.buf.is_empty() {
                    break; // a last line without an ending
                }
                self.current += 1;
                self.line_number = 0;
                continue;
            }
            let (take, complete) = match find_newline(available) {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            let line = self.line_number + 1;
            // Room for the longest line and its "\r\n"; the exact length is checked below.
            if (self.buf.len() + take) as u64 > self.max_line_bytes.saturating_add(2) {
                return Err(too_long(path, line, self.max_line_bytes));
            }
            if self.buf.try_reserve(take).is_err() && self.buf.try_reserve_exact(take).is_err() {
                return Err(CliError::new(format!(
                    "{}:{line}: out of memory holding a line of more than {} bytes (lower --max-line-bytes, or give the process more memory)",
                    display(path),
                    self.buf.len()
                )));
            }
            self.buf.extend_from_slice(&available[..take]);
            reader.consume(take);
            if complete {
                break;
            }
        }
        self.line_number += 1;
        self.line_ready = true;
        let text_len = self.text_len();
        if text_len as u64 > self.max_line_bytes {
            let path = &self.sources[self.current].0;
            return Err(too_long(path, self.line_number, self.max_line_bytes));
        }
        self.progress.line(self.buf.len());
        Ok(Advance::Line)
    }

    /// The line's length without its ending.
    fn text_len(&self) -> usize {
        let text = self.buf.strip_suffix(b"\n");
        text.map_or(&self.buf[..], |t| t.strip_suffix(b"\r").unwrap_or(t))
            .len()
    }

    fn line(&self) -> Line<'_> {
        Line {
            raw: &self.buf,
            text: &self.buf[..self.text_len()],
            location: Location {
                path: &self.sources[self.current].0,
                line: self.line_number,
            },
        }
    }
}

/// The first `\n` in `bytes`, eight bytes at a time: a zero byte of w = word ^ 0x0a…0a is a
/// newline, and (w − 0x01…01) & !w & 0x80…80 has its lowest set bit in the first zero byte
/// (a borrow can only mark bytes above it).
fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    const NEWLINES: u64 = u64::from_le_bytes([b'\n'; 8]);
    let mut words = bytes.chunks_exact(8);
    let mut offset = 0;
    for word in words.by_ref() {
        let w = u64::from_le_bytes(word.try_into().expect("8 bytes")) ^ NEWLINES;
        let zeros = w.wrapping_sub(ONES) & !w & HIGHS;
        if zeros != 0 {
            return Some(offset + zeros.trailing_zeros() as usize / 8);
        }
        offset += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|at| offset + at)
}

/// Waits until `fd` can be read (data, end of input or an error, which the read then tells)
/// or a signal handler has run: false then.
fn wait_for_input(fd: RawFd) -> bool {
    let Some(wake) = crate::signals::wake_fd() else {
        return true;
    };
    let mut fds = [
        libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: wake,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    // SAFETY: two valid pollfd entries.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
    ready > 0 && fds[1].revents == 0
}

fn too_long(path: &Path, line: u64, max: u64) -> CliError {
    CliError::new(format!(
        "{}:{line}: line longer than --max-line-bytes {max} bytes",
        display(path)
    ))
}

enum Advance {
    Line,
    End,
    /// A read returned EINTR: a signal handler ran.
    Interrupted,
}

pub enum Event<'a> {
    Line(Line<'a>),
    End,
    /// A signal interrupted a read; call again to go on.
    Interrupted,
}

pub struct Line<'a> {
    /// As read, with its line ending if it had one.
    pub raw: &'a [u8],
    /// Without the line ending: the key.
    pub text: &'a [u8],
    pub location: Location<'a>,
}
