//! `sparkbloom`: Guava-compatible Bloom filters on the command line. Every failure
//! is one line on stderr, `sparkbloom: <file/line/option>: <what is wrong>`, and exit status 1
//! (2 for a usage error: a missing, invalid or contradictory option, whether clap or a
//! command finds it); a closed stdout (`| head`) ends the process quietly.

mod capacity_watch;
mod cli;
mod commands;
mod error;
mod filter_file;
mod journal;
mod keys;
mod limits;
mod lines;
mod progress;
mod signals;
mod staged_output;
mod state_file;
mod stats;

use clap::Parser;
use clap::error::ErrorKind;
use cli::{Cli, Command};
use commands::combine::Operation;
use limits::Limits;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            let _ = e.print();
            return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
        Err(e) => {
            eprintln!(
                "sparkbloom: {} (see --help)",
                first_paragraph(&e.render().to_string())
            );
            return ExitCode::from(2);
        }
    };
    let progress = cli.progress;
    let limits = Limits {
        max_bits: cli
            .max_bits
            .map_or_else(limits::default_max_bits, |bits| bits.0),
        max_line_bytes: cli.max_line_bytes.0,
    };
    let result = match &cli.command {
        Command::Dedup(args) => commands::dedup::run(args, progress, &limits),
        Command::Build(args) => commands::build::run(args, progress, &limits),
        Command::Inspect(args) => commands::inspect::run(args, &limits),
        Command::Query(args) => commands::query::run(args, progress, &limits),
        Command::Merge(args) => commands::combine::run(args, Operation::Union, &limits),
        Command::Intersect(args) => commands::combine::run(args, Operation::Intersection, &limits),
        Command::Convert(args) => commands::convert::run(args, &limits),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let hint = if e.is_usage() { " (see --help)" } else { "" };
            // A closed stderr must not turn the error into a panic.
            let _ = writeln!(std::io::stderr(), "sparkbloom: {e}{hint}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// Clap's message on one line: its first paragraph without the "error: " prefix (the usage
/// lines after it are what --help shows).
fn first_paragraph(rendered: &str) -> String {
    let paragraph: Vec<&str> = rendered
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    let text = paragraph.join(" ");
    text.strip_prefix("error: ").unwrap_or(&text).to_string()
}

/// Rust ignores SIGPIPE, so a write to a closed pipe fails with EPIPE; the default action ends
/// the process silently instead, as `cat` and `grep` do. `dedup --state` ignores it again
/// (signals.rs) to save the lines written before it ends.
fn quiet_on_closed_pipe() {
    // SAFETY: restoring a signal's default disposition at startup, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
