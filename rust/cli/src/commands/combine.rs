//! `sparkbloom merge` (OR) and `sparkbloom intersect` (AND) of filters with the same m, k and
//! strategy; the first mismatch is named with both files.

use crate::cli::CombineArgs;
use crate::error::{CliError, CliResult, display};
use crate::filter_file;
use crate::limits::Limits;

#[derive(Clone, Copy)]
pub enum Operation {
    Union,
    Intersection,
}

pub fn run(args: &CombineArgs, operation: Operation, limits: &Limits) -> CliResult<()> {
    let first = &args.files[0];
    let result = filter_file::read(first, limits.max_bits)?.filter;
    for path in &args.files[1..] {
        let other = filter_file::read(path, limits.max_bits)?.filter;
        let combined = match operation {
            Operation::Union => result.union(&other),
            Operation::Intersection => result.intersect(&other),
        };
        combined.map_err(|e| {
            CliError::new(format!(
                "cannot combine {} with {}: {e}",
                display(path),
                display(first)
            ))
        })?;
    }
    filter_file::write(&args.output, &result, args.format)
}
