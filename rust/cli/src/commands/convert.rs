//! `sparkbloom convert`: the same filter in the other layout (the input's layout is detected).

use crate::cli::ConvertArgs;
use crate::error::CliResult;
use crate::filter_file;
use crate::limits::Limits;

pub fn run(args: &ConvertArgs, limits: &Limits) -> CliResult<()> {
    let loaded = filter_file::read(&args.input, limits.max_bits)?;
    filter_file::write(&args.output, &loaded.filter, args.to)
}
