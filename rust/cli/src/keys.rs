//! Lines to keys, as the JVM library hashes them: `--keys long` parses a 64-bit integer
//! (`put(long)`), `--keys string` takes the UTF-8 text (`put(String)`).

use crate::cli::KeyKind;
use crate::error::{CliError, CliResult};
use crate::lines::Location;

/// A parsed key, borrowing the line for strings.
pub enum Key<'a> {
    Long(u64),
    String(&'a [u8]),
}

/// The key `text` holds, or an error naming `location` and what is wrong.
pub fn parse<'a>(kind: KeyKind, text: &'a [u8], location: &Location) -> CliResult<Key<'a>> {
    match kind {
        KeyKind::Long => parse_long(text).map(Key::Long).ok_or_else(|| {
            CliError::new(format!(
                "{location}: not a 64-bit integer: {}",
                quoted(text)
            ))
        }),
        KeyKind::String => match std::str::from_utf8(text) {
            Ok(_) => Ok(Key::String(text)),
            Err(e) => Err(CliError::new(format!(
                "{location}: not UTF-8 text (invalid byte at offset {}); string keys are hashed as Java's put(String)",
                e.valid_up_to()
            ))),
        },
    }
}

/// -2^63..2^64-1 (surrounding spaces allowed): values above i64::MAX have the same 64 bits as
/// the negative Java long they wrap to, so both spellings give the same key.
fn parse_long(text: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(text).ok()?.trim();
    text.parse::<i64>()
        .map(|v| v as u64)
        .or_else(|_| text.parse::<u64>())
        .ok()
}

/// The offending text for a message, cut to 40 characters.
pub fn quoted(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    let mut shown: String = text.chars().take(40).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    format!("{shown:?}")
}

/// Counts lines skipped under `--skip-malformed` and reports them once at the end.
#[derive(Default)]
pub struct Skipped {
    count: u64,
    first: Option<String>,
}

impl Skipped {
    /// Skips the line when skipping is on; otherwise hands the error back.
    pub fn skip_or_fail(&mut self, skip: bool, err: CliError) -> CliResult<()> {
        if !skip {
            return Err(err);
        }
        self.count += 1;
        self.first.get_or_insert_with(|| err.to_string());
        Ok(())
    }

    pub fn report(&self) {
        if let Some(first) = &self.first {
            eprintln!(
                "sparkbloom: skipped {} malformed line(s) (--skip-malformed); first: {first}",
                self.count
            );
        }
    }
}
