//! Lines from files or standard input (`-`), read one at a time into a reused buffer, so memory
//! stays constant whatever the input size. A line is its bytes without the line ending (`\n` or
//! `\r\n`); a last line without an ending counts.

use crate::error::{CliError, CliResult, display};
use crate::progress::Progress;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

const BUFFER_BYTES: usize = 256 * 1024;

pub struct Lines {
    /// Opened up front, so a missing file fails before any output.
    sources: Vec<(PathBuf, BufReader<Box<dyn Read>>)>,
    current: usize,
    line_number: u64,
    buf: Vec<u8>,
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
    pub fn open(inputs: &[PathBuf], label: &str, progress: bool) -> CliResult<Lines> {
        let inputs: Vec<PathBuf> = if inputs.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            inputs.to_vec()
        };
        let mut sources = Vec::with_capacity(inputs.len());
        let mut total_bytes = Some(0u64);
        for path in inputs {
            let reader: Box<dyn Read> = if path == Path::new("-") {
                total_bytes = None;
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
                Box::new(file)
            };
            sources.push((path, BufReader::with_capacity(BUFFER_BYTES, reader)));
        }
        Ok(Lines {
            sources,
            current: 0,
            line_number: 0,
            buf: Vec::new(),
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
        let read = loop {
            let Some((path, reader)) = self.sources.get_mut(self.current) else {
                self.progress.finish();
                return Ok(None);
            };
            self.buf.clear();
            let read = reader
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| CliError::io(path, "read", e))?;
            if read > 0 {
                break read;
            }
            self.current += 1;
            self.line_number = 0;
        };
        self.line_number += 1;
        self.progress.line(read);
        let mut end = self.buf.len();
        if self.buf[end - 1] == b'\n' {
            end -= 1;
            if end > 0 && self.buf[end - 1] == b'\r' {
                end -= 1;
            }
        }
        Ok(Some(Line {
            raw: &self.buf,
            text: &self.buf[..end],
            location: Location {
                path: &self.sources[self.current].0,
                line: self.line_number,
            },
        }))
    }
}

pub struct Line<'a> {
    /// As read, with its line ending if it had one.
    pub raw: &'a [u8],
    /// Without the line ending: the key.
    pub text: &'a [u8],
    pub location: Location<'a>,
}
