//! `sparkbloom build --per-key`: `key,item` lines (split at the first comma) into one filter per
//! key, written into a directory as `<key>.sbloom` (or `.guava`), the offline rebuild of a Spark
//! job's per-user filters. Every key's filter stays in memory until the end.

use crate::cli::{BuildArgs, FileFormat, SizingPolicy};
use crate::commands::new_filter;
use crate::error::{CliError, CliResult, display};
use crate::filter_file;
use crate::keys::{self, Key, Skipped, quoted};
use sparkbloom::BloomFilter;
use std::collections::BTreeMap;
use std::path::Path;

use crate::limits::Limits;
use crate::lines::Lines;
use sparkbloom::sizing::per_key_shape;

pub fn run(args: &BuildArgs, progress: bool, limits: &Limits) -> CliResult<()> {
    if args.sizing.policy == SizingPolicy::PerKey {
        return run_sized_per_key(args, progress, limits);
    }
    // Refuse a bad sizing or output before reading anything.
    new_filter(&args.sizing)?;
    prepare_directory(&args.output)?;
    let mut filters: BTreeMap<Vec<u8>, BloomFilter> = BTreeMap::new();
    read_key_items(args, progress, limits, |group, key| {
        let filter = match filters.get(group) {
            Some(filter) => filter,
            None => filters
                .entry(group.to_vec())
                .or_insert(new_filter(&args.sizing)?),
        };
        match key {
            Key::Long(key) => filter.put(key),
            Key::String(text) => filter.put_bytes(text),
        };
        Ok(())
    })?;
    write_all(args, &filters)
}

/// A key's items with `--sizing per-key`: kept until the end, when they are counted.
#[derive(Default)]
struct Items {
    longs: Vec<u64>,
    strings: Vec<Vec<u8>>,
}

/// `--sizing per-key`: every key's items are held (8 bytes per long item, the bytes of a string
/// item), then each key's distinct items are counted, its filter sized and filled.
fn run_sized_per_key(args: &BuildArgs, progress: bool, limits: &Limits) -> CliResult<()> {
    let fpp = args.sizing.fpp;
    per_key_shape(1, fpp).map_err(|_| CliError::usage(format!("--fpp {fpp:e}: too small")))?;
    prepare_directory(&args.output)?;
    let mut items: BTreeMap<Vec<u8>, Items> = BTreeMap::new();
    read_key_items(args, progress, limits, |group, key| {
        let entry = match items.get_mut(group) {
            Some(entry) => entry,
            None => items.entry(group.to_vec()).or_default(),
        };
        match key {
            Key::Long(key) => entry.longs.push(key),
            Key::String(text) => entry.strings.push(text.to_vec()),
        }
        Ok(())
    })?;
    let mut filters: BTreeMap<Vec<u8>, BloomFilter> = BTreeMap::new();
    for (group, mut its) in items {
        its.longs.sort_unstable();
        its.longs.dedup();
        its.strings.sort_unstable();
        its.strings.dedup();
        let distinct = (its.longs.len() + its.strings.len()) as u64;
        let shape = per_key_shape(distinct, fpp).map_err(|_| {
            CliError::new(format!(
                "key {}: a filter for {distinct} items at --fpp {fpp} would exceed 2^43 bits",
                quoted(&group)
            ))
        })?;
        let filter = BloomFilter::with_shape(shape, args.sizing.strategy.into())
            .map_err(|e| CliError::core("--sizing per-key", e))?;
        filter.put_all(&its.longs);
        for text in &its.strings {
            filter.put_bytes(text);
        }
        filters.insert(group, filter);
    }
    write_all(args, &filters)
}

/// Reads every `key,item` line of the inputs (split at the first comma) and hands the key and
/// its parsed item to `add`; a malformed line is skipped under `--skip-malformed` (and counted in
/// the closing report) or fails the command.
fn read_key_items(
    args: &BuildArgs,
    progress: bool,
    limits: &Limits,
    mut add: impl FnMut(&[u8], Key<'_>) -> CliResult<()>,
) -> CliResult<()> {
    let mut lines = Lines::open(
        &args.inputs,
        "sparkbloom build --per-key",
        progress,
        limits.max_line_bytes,
    )?;
    let mut skipped = Skipped::default();
    while let Some(line) = lines.next_line()? {
        let Some(comma) = line.text.iter().position(|&b| b == b',') else {
            let e = CliError::new(format!(
                "{}: expected key,item; no comma in {}",
                line.location,
                quoted(line.text)
            ));
            skipped.skip_or_fail(args.skip_malformed, e)?;
            continue;
        };
        let (group, item) = (&line.text[..comma], &line.text[comma + 1..]);
        if group.is_empty() {
            let e = CliError::new(format!("{}: empty key before the comma", line.location));
            skipped.skip_or_fail(args.skip_malformed, e)?;
            continue;
        }
        match keys::parse(args.keys, item, &line.location) {
            Ok(key) => add(group, key)?,
            Err(e) => skipped.skip_or_fail(args.skip_malformed, e)?,
        }
    }
    skipped.report();
    Ok(())
}

/// Writes every key's filter into the output directory.
fn write_all(args: &BuildArgs, filters: &BTreeMap<Vec<u8>, BloomFilter>) -> CliResult<()> {
    let extension = match args.format {
        FileFormat::Sparkbloom => "sbloom",
        FileFormat::Guava => "guava",
        FileFormat::Spark => "spark",
    };
    for (group, filter) in filters {
        let path = args
            .output
            .join(format!("{}.{extension}", file_stem(group)));
        filter_file::write(&path, filter, args.format)?;
    }
    eprintln!(
        "sparkbloom: wrote {} filter(s) into {}",
        filters.len(),
        display(&args.output)
    );
    Ok(())
}

fn prepare_directory(dir: &Path) -> CliResult<()> {
    if dir == Path::new("-") {
        return Err(CliError::usage(
            "--per-key writes a directory of files: -o DIR, not -",
        ));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(CliError::new(format!(
            "{}: exists and is not a directory (--per-key writes one file per key into -o DIR)",
            display(dir)
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| CliError::io(dir, "create directory", e))
}

/// The key as a file name: bytes outside [A-Za-z0-9_.-] (and a leading '.') as %XX, so any key
/// gives a distinct, safe name.
pub fn file_stem(key: &[u8]) -> String {
    let mut stem = String::with_capacity(key.len());
    for (i, &b) in key.iter().enumerate() {
        let plain = b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (b == b'.' && i > 0);
        if plain {
            stem.push(b as char);
        } else {
            stem.push_str(&format!("%{b:02X}"));
        }
    }
    stem
}
