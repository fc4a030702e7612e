//! `sparkbloom query`: each line with the filter's answer (`true`: probably put, `false`:
//! certainly not), or with `--absent` only the lines certainly not put.

use crate::cli::QueryArgs;
use crate::commands::stdout_error;
use crate::error::CliResult;
use crate::filter_file;
use crate::keys::{self, Key, Skipped};
use crate::limits::Limits;
use crate::lines::Lines;
use std::io::{BufWriter, Write};

pub fn run(args: &QueryArgs, progress: bool, limits: &Limits) -> CliResult<()> {
    let filter = filter_file::read(&args.filter, limits.max_bits)?.filter;
    let mut lines = Lines::open(
        &args.inputs,
        "sparkbloom query",
        progress,
        limits.max_line_bytes,
    )?;
    let mut out = BufWriter::with_capacity(256 * 1024, std::io::stdout().lock());
    let mut skipped = Skipped::default();
    loop {
        if lines.input_drained() {
            out.flush().map_err(stdout_error)?;
        }
        let Some(line) = lines.next_line()? else {
            break;
        };
        let present = match keys::parse(args.keys, line.text, &line.location) {
            Ok(Key::Long(key)) => filter.might_contain(key),
            Ok(Key::String(text)) => filter.might_contain_bytes(text),
            Err(e) => {
                skipped.skip_or_fail(args.skip_malformed, e)?;
                continue;
            }
        };
        if args.absent {
            if !present {
                out.write_all(line.text).map_err(stdout_error)?;
                out.write_all(b"\n").map_err(stdout_error)?;
            }
        } else {
            out.write_all(line.text).map_err(stdout_error)?;
            out.write_all(if present { b"\ttrue\n" } else { b"\tfalse\n" })
                .map_err(stdout_error)?;
        }
    }
    out.flush().map_err(stdout_error)?;
    skipped.report();
    Ok(())
}
