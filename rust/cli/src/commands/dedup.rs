//! `sparkbloom dedup`: the crawler's sieve of seed 001. `put` returns whether any bit changed,
//! which is exactly "not seen before" (a key seen before has all its bits set already), so each
//! line costs one hash and one walk over k bits.

use crate::cli::DedupArgs;
use crate::commands::{new_filter, stdout_error};
use crate::error::{CliError, CliResult, display};
use crate::filter_file::{self, Loaded};
use crate::lines::Lines;
use crate::stats::Fill;
use sparkbloom::BloomFilter;
use std::io::{BufWriter, Write};

pub fn run(args: &DedupArgs, progress: bool) -> CliResult<()> {
    let filter = load_or_create(args)?;
    let mut lines = Lines::open(&args.inputs, "sparkbloom dedup", progress)?;
    let mut out = BufWriter::with_capacity(256 * 1024, std::io::stdout().lock());
    let (n, p) = (args.sizing.fixed_insertions()?, args.sizing.fpp);
    let mut capacity = CapacityWatch::new(&filter, n);
    let mut warning = capacity
        .warned
        .then(|| over_capacity_warning(&filter, n, p));
    loop {
        if lines.input_drained() {
            out.flush().map_err(stdout_error)?;
        }
        let Some(line) = lines.next_line()? else {
            break;
        };
        if filter.put_bytes(line.text) {
            out.write_all(line.raw).map_err(stdout_error)?;
            if !line.raw.ends_with(b"\n") {
                out.write_all(b"\n").map_err(stdout_error)?;
            }
            if capacity.added(&filter) {
                warning = Some(over_capacity_warning(&filter, n, p));
            }
        }
        if let Some(message) = warning.take() {
            lines.progress.message(&message);
        }
    }
    if let Some(message) = warning.take() {
        lines.progress.message(&message);
    }
    out.flush().map_err(stdout_error)?;
    if let Some(state) = &args.state {
        filter_file::write(state, &filter, crate::cli::FileFormat::Sparkbloom)?;
    }
    Ok(())
}

/// The filter in `--state` when the file exists (its shape must be the one the options give),
/// a new one otherwise.
fn load_or_create(args: &DedupArgs) -> CliResult<BloomFilter> {
    let fresh = new_filter(&args.sizing)?;
    let Some(state) = &args.state else {
        return Ok(fresh);
    };
    if !state.exists() {
        return Ok(fresh);
    }
    let Loaded { filter, .. } = filter_file::read(state)?;
    if let Err(e) = fresh.check_compatible(&filter) {
        return Err(CliError::new(format!(
            "--state {}: the saved filter does not match --expected-insertions {} --fpp {} --strategy (these options vs the file: {e}); pass the options it was made with, or a new state file",
            display(state),
            args.sizing.fixed_insertions()?,
            args.sizing.fpp,
        )));
    }
    Ok(filter)
}

fn over_capacity_warning(filter: &BloomFilter, expected: u64, fpp: f64) -> String {
    let fill = Fill::of(filter);
    format!(
        "sparkbloom: warning: the filter holds about {} distinct lines, more than the {expected} it was sized for (--expected-insertions); its false-positive rate is now {:.3e} (sized for {fpp}), so more new lines will be dropped as if seen",
        fill.estimated_count, fill.expected_fpp
    )
}

/// Decides when the estimated count has passed N without counting bits on every line: the lines
/// added since the start bound the count from above, so bits are counted (O(m/64)) only once
/// that bound passes N, and then every N/64 added lines, until the warning is given.
struct CapacityWatch {
    expected: u64,
    /// Upper bound of the distinct keys in the filter.
    bound: u64,
    next_check: u64,
    warned: bool,
}

impl CapacityWatch {
    fn new(filter: &BloomFilter, expected: u64) -> CapacityWatch {
        let start = filter.approximate_element_count();
        CapacityWatch {
            expected,
            bound: start,
            next_check: expected.saturating_add(1),
            // A state file already past N: warned at once.
            warned: start > expected,
        }
    }

    /// One line was added; true when the warning is due now.
    #[inline]
    fn added(&mut self, filter: &BloomFilter) -> bool {
        self.bound += 1;
        if self.warned || self.bound < self.next_check {
            return false;
        }
        if filter.approximate_element_count() > self.expected {
            self.warned = true;
            return true;
        }
        self.next_check = self.bound + (self.expected / 64).max(1);
        false
    }
}
