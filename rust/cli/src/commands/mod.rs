//! One file per subcommand.

pub mod build;
pub mod build_per_key;
pub mod combine;
pub mod convert;
pub mod dedup;
pub mod inspect;
pub mod query;

use crate::cli::{FileFormat, Sizing};
use crate::error::{CliError, CliResult};
use crate::filter_file;
use sparkbloom::{BloomFilter, Shape};

/// A new, empty filter sized as Guava's `create(funnel, n, p)` for the strategy; options the
/// core refuses (a filter above its largest) are a usage error.
pub fn new_filter(sizing: &Sizing) -> CliResult<BloomFilter> {
    BloomFilter::with_strategy(
        sizing.fixed_insertions()?,
        sizing.fpp,
        sizing.strategy.into(),
    )
    .map_err(|e| CliError::usage(CliError::core("--expected-insertions/--fpp", e).to_string()))
}

/// A usage error when `format` cannot hold filters of the --strategy (Guava's stream holds
/// Guava's strategies only, Spark's Spark's), found before any input is read rather than at the
/// write: the codec's own refusal, asked of a one-word filter.
pub fn check_format(sizing: &Sizing, format: FileFormat) -> CliResult<()> {
    let shape = Shape {
        num_bits: 64,
        num_hashes: 1,
    };
    let probe = BloomFilter::with_shape(shape, sizing.strategy.into())
        .map_err(|e| CliError::core("--strategy", e))?;
    filter_file::encode(&probe, format).map(drop).map_err(|e| {
        CliError::usage(format!(
            "--format {} with --strategy {}: {e}",
            filter_file::name(format),
            sizing.strategy.name()
        ))
    })
}

/// Output to stdout, buffered; a write error other than a closed pipe (which ends the process
/// quietly, see main.rs) names stdout.
pub fn stdout_error(err: std::io::Error) -> CliError {
    CliError::io(std::path::Path::new("<stdout>"), "write", err)
}
