//! `sparkbloom inspect`: what a filter file holds, for people or (`--json`) for scripts.

use crate::cli::{FileFormat, InspectArgs};
use crate::commands::stdout_error;
use crate::error::{CliResult, display};
use crate::filter_file::{self, Loaded};
use crate::limits::Limits;
use crate::stats::Fill;
use serde_json::json;
use std::io::Write;
use std::path::Path;

pub fn run(args: &InspectArgs, limits: &Limits) -> CliResult<()> {
    let mut out = std::io::stdout().lock();
    for (i, path) in args.files.iter().enumerate() {
        let loaded = filter_file::read(path, limits.max_bits)?;
        let fill = Fill::of(&loaded.filter);
        let n = args.expected_insertions;
        let text = if args.json {
            json_line(path, &loaded, &fill, n)
        } else {
            let separator = if i > 0 { "\n" } else { "" };
            format!("{separator}{}", text_block(path, &loaded, &fill, n))
        };
        out.write_all(text.as_bytes()).map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)
}

/// The estimated count is above the n given, or (none given) above the capacity m·ln2/k.
fn over_capacity(fill: &Fill, expected: Option<u64>) -> bool {
    fill.estimated_count > expected.unwrap_or(fill.capacity)
}

fn format_description(loaded: &Loaded) -> String {
    match loaded.format {
        FileFormat::Sparkbloom => format!(
            "sparkbloom v{} (FORMAT.md), {} encoding",
            loaded.version.unwrap_or(0),
            loaded.encoding.unwrap_or("?")
        ),
        FileFormat::Guava => "guava (BloomFilter.writeTo stream)".to_string(),
        FileFormat::Spark => "spark (sketch BloomFilter.writeTo stream)".to_string(),
    }
}

fn text_block(path: &Path, loaded: &Loaded, fill: &Fill, expected: Option<u64>) -> String {
    let filter = &loaded.filter;
    let sized_for = match expected {
        Some(n) => format!("{} (--expected-insertions)", grouped(n)),
        None => "not recorded in the file".to_string(),
    };
    let mut text = format!(
        "file:              {}\n\
         format:            {}\n\
         file size:         {} bytes\n\
         kind:              Bloom filter\n\
         strategy:          {}\n\
         bits (m):          {} ({} bytes)\n\
         hashes (k):        {}\n\
         bits set:          {}\n\
         fill ratio:        {:.4}\n\
         estimated count:   {}\n\
         expected fpp:      {:.3e} (at the current fill)\n\
         sized for (n):     {sized_for}\n\
         capacity:          {} (the largest n whose (n, p) sizing gives this m and k)\n",
        display(path),
        format_description(loaded),
        grouped(loaded.file_bytes),
        filter.strategy(),
        grouped(filter.num_bits()),
        grouped(filter.num_bits() / 8),
        filter.num_hashes(),
        grouped(fill.bits_set),
        fill.fill_ratio,
        grouped(fill.estimated_count),
        fill.expected_fpp,
        grouped(fill.capacity),
    );
    if over_capacity(fill, expected) {
        let limit = match expected {
            Some(n) => format!("the {} it was sized for", grouped(n)),
            // Past the capacity the fill is above the design fill, so is the false-positive rate.
            None => format!(
                "its capacity {}, so its false-positive rate is above the design rate",
                grouped(fill.capacity)
            ),
        };
        text.push_str(&format!(
            "warning:           over capacity: about {} keys, more than {limit}\n",
            grouped(fill.estimated_count)
        ));
    }
    text
}

fn json_line(path: &Path, loaded: &Loaded, fill: &Fill, expected: Option<u64>) -> String {
    let filter = &loaded.filter;
    let mut line = json!({
        "file": display(path),
        "format": filter_file::name(loaded.format),
        "version": loaded.version,
        "encoding": loaded.encoding,
        "file_bytes": loaded.file_bytes,
        "kind": "bloom",
        "strategy": filter.strategy().name(),
        "num_bits": filter.num_bits(),
        "num_hashes": filter.num_hashes(),
        "bits_set": fill.bits_set,
        "fill_ratio": fill.fill_ratio,
        "estimated_count": fill.estimated_count,
        "expected_fpp": fill.expected_fpp,
        "expected_insertions": expected,
        "capacity": fill.capacity,
        "over_capacity": over_capacity(fill, expected),
    })
    .to_string();
    line.push('\n');
    line
}

/// 1234567 → "1,234,567".
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
