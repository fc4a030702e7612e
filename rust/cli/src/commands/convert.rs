//! `sparkbloom convert`: the same filter in the other layout (the input's layout is detected).

use crate::cli::ConvertArgs;
use crate::error::CliResult;
use crate::filter_file;

pub fn run(args: &ConvertArgs) -> CliResult<()> {
    let loaded = filter_file::read(&args.input)?;
    filter_file::write(&args.output, &loaded.filter, args.to)
}
