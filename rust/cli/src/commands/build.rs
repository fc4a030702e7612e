//! `sparkbloom build`: one filter from lines of keys, written in FORMAT.md or Guava's stream.
//! Long keys go in through `put_all` in batches (the core's batched, vectorised path).

use crate::cli::{BuildArgs, KeyKind};
use crate::commands::{build_per_key, check_format, new_filter};
use crate::error::CliResult;
use crate::filter_file;
use crate::keys::{self, Key, Skipped};
use crate::limits::Limits;
use crate::lines::Lines;

const BATCH: usize = 4096;

pub fn run(args: &BuildArgs, progress: bool, limits: &Limits) -> CliResult<()> {
    check_format(&args.sizing, args.format)?;
    if args.per_key {
        return build_per_key::run(args, progress, limits);
    }
    let filter = new_filter(&args.sizing)?;
    let mut lines = Lines::open(
        &args.inputs,
        "sparkbloom build",
        progress,
        limits.max_line_bytes,
    )?;
    let mut skipped = Skipped::default();
    let mut batch = Vec::with_capacity(BATCH);
    while let Some(line) = lines.next_line()? {
        match keys::parse(args.keys, line.text, &line.location) {
            Ok(Key::Long(key)) => {
                batch.push(key);
                if batch.len() == BATCH {
                    filter.put_all(&batch);
                    batch.clear();
                }
            }
            Ok(Key::String(text)) => {
                filter.put_bytes(text);
            }
            Err(e) => skipped.skip_or_fail(args.skip_malformed, e)?,
        }
    }
    if args.keys == KeyKind::Long {
        filter.put_all(&batch);
    }
    skipped.report();
    filter_file::write(&args.output, &filter, args.format)
}
