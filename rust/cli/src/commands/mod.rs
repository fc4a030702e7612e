//! One file per subcommand.

pub mod build;
pub mod build_per_key;
pub mod combine;
pub mod convert;
pub mod dedup;
pub mod inspect;
pub mod query;

use crate::cli::Sizing;
use crate::error::{CliError, CliResult};
use sparkbloom::BloomFilter;

/// A new, empty filter sized as Guava's `create(funnel, n, p)` for the strategy.
pub fn new_filter(sizing: &Sizing) -> CliResult<BloomFilter> {
    BloomFilter::with_strategy(
        sizing.fixed_insertions()?,
        sizing.fpp,
        sizing.strategy.into(),
    )
    .map_err(|e| CliError::core("--expected-insertions/--fpp", e))
}

/// Output to stdout, buffered; a write error other than a closed pipe (which ends the process
/// quietly, see main.rs) names stdout.
pub fn stdout_error(err: std::io::Error) -> CliError {
    CliError::io(std::path::Path::new("<stdout>"), "write", err)
}
