//! The CLI's one error: a single line that names the file, line or option at fault. `main`
//! prints it after `sparkbloom: ` and exits with status 1, or 2 for a usage error (a command
//! line that cannot work whatever the input, as for what clap rejects); nothing in the CLI
//! panics on input.

use std::fmt;
use std::path::Path;

#[derive(Debug)]
pub struct CliError {
    message: String,
    usage: bool,
}

pub type CliResult<T> = Result<T, CliError>;

impl CliError {
    pub fn new(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            usage: false,
        }
    }

    /// A missing, invalid or contradictory option, found before any input is read: exit 2.
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            usage: true,
        }
    }

    /// 2 for a usage error, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        if self.usage { 2 } else { 1 }
    }

    pub fn is_usage(&self) -> bool {
        self.usage
    }

    /// This error with `more` after it, on the same line.
    pub fn and(self, more: impl fmt::Display) -> CliError {
        CliError {
            message: format!("{}; {more}", self.message),
            usage: self.usage,
        }
    }

    /// An I/O failure on `path` ("-" is standard input or output).
    pub fn io(path: &Path, action: &str, err: std::io::Error) -> CliError {
        CliError::new(format!(
            "{}: cannot {action}: {}",
            display(path),
            plain(&err)
        ))
    }

    /// A refusal of the core library, in the context of `what` (a file, an option).
    pub fn core(what: impl fmt::Display, err: sparkbloom::Error) -> CliError {
        CliError::new(format!("{what}: {err}"))
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the pieces held (a file name with a newline, say).
        f.write_str(&self.message.replace(['\n', '\r'], " "))
    }
}

/// How a path appears in messages: `-` is standard input.
pub fn display(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// The OS message without Rust's " (os error 2)" suffix.
pub fn plain(err: &std::io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}
