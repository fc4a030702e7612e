//! The command line, as `clap` parses it: subcommands, options and the `--help` examples.

use crate::limits::{Amount, DEFAULT_MAX_LINE_BYTES, parse_amount};
use clap::{Args, Parser, Subcommand, ValueEnum};
use sparkbloom::Strategy;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "sparkbloom",
    version,
    about = "Guava-compatible Bloom filters on the command line: a streaming dedup sieve, offline \
             build, inspect, query, merge/intersect and convert (FORMAT.md and Guava's writeTo stream)",
    after_help = "Example, a crawler's to-visit queue that never visits a URL twice:\n  \
                  crawl-links | sparkbloom dedup -n 100000000 -p 0.001 --state seen.sbloom | fetch-pages"
)]
pub struct Cli {
    /// Show progress on stderr even when it is not a terminal (on a terminal it always shows).
    #[arg(long, global = true)]
    pub progress: bool,

    /// Refuse a filter file that declares more bits than this, from its header, before
    /// allocating anything (e.g. 2^33, 1Gi); default: half the memory this process may use
    /// (physical memory, `ulimit -v`, `ulimit -d`), in bits.
    #[arg(long, global = true, value_name = "BITS", value_parser = parse_amount)]
    pub max_bits: Option<Amount>,

    /// Stop with an error naming the line (file:line) when an input line is longer than this.
    #[arg(long, global = true, value_name = "BYTES", value_parser = parse_amount,
        default_value_t = Amount(DEFAULT_MAX_LINE_BYTES))]
    pub max_line_bytes: Amount,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    Dedup(DedupArgs),
    Build(BuildArgs),
    Inspect(InspectArgs),
    Query(QueryArgs),
    Merge(CombineArgs),
    Intersect(CombineArgs),
    Convert(ConvertArgs),
}

/// How a new filter is sized: Guava's `BloomFilter.create(funnel, n, p)`, or (`build --per-key
/// --sizing per-key`) each key's filter for its own distinct keys at p.
#[derive(Args)]
pub struct Sizing {
    /// Number of distinct keys the filter is sized for (n > 0); not used with --sizing per-key.
    #[arg(short = 'n', long, value_name = "N", value_parser = parse_insertions, allow_hyphen_values = true,
        required_if_eq("policy", "fixed"))]
    pub expected_insertions: Option<u64>,

    /// fixed: every filter for N keys; per-key (build --per-key only): each key's filter for its
    /// own distinct items at P, as the JVM's `Sizing.perKeyCount(p)` sizes it.
    #[arg(long = "sizing", id = "policy", value_enum, default_value_t = SizingPolicy::Fixed)]
    pub policy: SizingPolicy,

    /// Target false-positive probability at N keys, in (0, 1).
    #[arg(short = 'p', long, value_name = "P", value_parser = parse_fpp, allow_hyphen_values = true)]
    pub fpp: f64,

    /// Hashing strategy: Guava's mitz64 (Guava ≥ 17) or mitz32 (Guava ≤ 16, Spark's shaded
    /// 14.0.1), or Spark's sketch `BloomFilter` (spark-v1: Spark 2.0–4.0, spark-v2: 4.1+).
    #[arg(long, value_enum, default_value_t = StrategyArg::Mitz64)]
    pub strategy: StrategyArg,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SizingPolicy {
    Fixed,
    PerKey,
}

impl Sizing {
    /// N for fixed sizing; a usage error naming the flags otherwise (clap's `required_if_eq`
    /// does not see the default `--sizing fixed`, so a missing -n is caught here).
    pub fn fixed_insertions(&self) -> Result<u64, crate::error::CliError> {
        match (self.policy, self.expected_insertions) {
            (SizingPolicy::Fixed, Some(n)) => Ok(n),
            (SizingPolicy::Fixed, None) => Err(crate::error::CliError::usage(
                "--expected-insertions is required with --sizing fixed",
            )),
            (SizingPolicy::PerKey, _) => Err(crate::error::CliError::usage(
                "--sizing per-key applies to `build --per-key` only (one filter per key, sized for its own items)",
            )),
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum StrategyArg {
    Mitz64,
    Mitz32,
    SparkV1,
    SparkV2,
}

impl StrategyArg {
    /// As spelled on the command line.
    pub fn name(self) -> &'static str {
        match self {
            StrategyArg::Mitz64 => "mitz64",
            StrategyArg::Mitz32 => "mitz32",
            StrategyArg::SparkV1 => "spark-v1",
            StrategyArg::SparkV2 => "spark-v2",
        }
    }
}

impl From<StrategyArg> for Strategy {
    fn from(arg: StrategyArg) -> Strategy {
        match arg {
            StrategyArg::Mitz64 => Strategy::Murmur128Mitz64,
            StrategyArg::Mitz32 => Strategy::Murmur128Mitz32,
            StrategyArg::SparkV1 => Strategy::SparkSketchV1,
            StrategyArg::SparkV2 => Strategy::SparkSketchV2,
        }
    }
}

/// How a line becomes a key, as the JVM would put it.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeyKind {
    /// A 64-bit integer (-2^63..2^64-1), hashed as `BloomFilter.put(long)`.
    Long,
    /// The line's UTF-8 text, hashed as `put(String)` (Guava's `stringFunnel(UTF_8)`).
    String,
}

/// A filter file's byte layout.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum FileFormat {
    /// FORMAT.md version 1 (magic "SBLM", sparse when smaller, CRC-32).
    Sparkbloom,
    /// Guava's `BloomFilter.writeTo` stream, read by Guava's `BloomFilter.readFrom`.
    Guava,
    /// Spark's `org.apache.spark.util.sketch.BloomFilter.writeTo` stream (V1 or V2, FORMAT.md
    /// §10); only filters read from Spark's stream can be written back to it.
    Spark,
}

/// Print each input line the filter has not seen and add it: a crawler's sieve.
///
/// Reads lines (a line is its bytes without `\n` or `\r\n`, hashed as `put(String)` for UTF-8
/// text), writes each line not seen before to stdout, in order, and adds it. A line seen before
/// is never printed again; a new line is dropped only on a false positive, with probability at
/// most the filter's current false-positive rate. Memory: the filter (m/8 bytes) and one line.
/// Once the estimated count passes N it warns on stderr, and again as the false-positive rate
/// reaches 2, 10, 100, ... times P; an over-capacity run ends with a summary line on stderr.
#[derive(Args)]
#[command(after_help = "Examples:\n  \
    sparkbloom dedup -n 10000000 -p 0.001 urls.txt > new-urls.txt\n  \
    crawl-links | sparkbloom dedup -n 100000000 -p 0.001 --state seen.sbloom | fetch-pages\n\n\
    With --state, a run continues where the last stopped, and the state is saved: every \
    --checkpoint-secs seconds of work, on SIGINT, SIGTERM or SIGHUP (then the run ends with that \
    signal; a second one ends it at once, unsaved), at the end of input, and when stdout closes \
    (`| head`: the run then ends quietly). A line counts as seen once it is written to stdout, so \
    a run killed outright prints again at most the lines of its last interval. A save takes an \
    exclusive lock (flock) on the file and ORs in what the file holds then, so runs sharing one \
    state lose nothing; it writes through the file itself (mode, owner, hard links and symlinks \
    stay), after a journal .NAME.PID.NONCE.journal beside it, which the run creates at its start \
    with room for a save (a full disk or an unwritable directory stops it before its first line) \
    and removes at its end; a later run uses a crashed run's journal to repair a save cut short. \
    The file keeps the layout it was read in (Guava's stream stays Guava's) unless --format.")]
pub struct DedupArgs {
    #[command(flatten)]
    pub sizing: Sizing,

    /// Load the filter from FILE when it exists; save it there (see below).
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,

    /// Layout the state is saved in; default: the layout the file has, sparkbloom for a new one.
    #[arg(long, value_enum, value_name = "FORMAT", requires = "state")]
    pub format: Option<FileFormat>,

    /// Save the state after this many seconds of work (0: only on a signal and at the end). A
    /// save that takes long stretches the interval to ten times its duration.
    #[arg(long, value_name = "SECS", default_value_t = 5, requires = "state")]
    pub checkpoint_secs: u64,

    /// Files of lines; none or `-` reads stdin.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

/// Build a filter from lines of keys, or one filter per key from `key,item` CSV.
///
/// A malformed line (not a 64-bit integer with --keys long, not UTF-8 with --keys string, no
/// comma with --per-key) stops the run with its file and line, unless --skip-malformed, which
/// skips it and reports the count on stderr.
#[derive(Args)]
#[command(after_help = "Examples:\n  \
    sparkbloom build -n 10000 -p 0.001 --keys long item-ids.txt -o seen.sbloom\n  \
    sparkbloom build -n 1000000 -p 0.01 --format guava urls.txt -o urls.guava\n  \
    sparkbloom build -n 10000 -p 0.001 --keys long --per-key user-items.csv -o filters/\n  \
    sparkbloom build --sizing per-key -p 0.001 --keys long --per-key user-items.csv -o filters/\n\n\
    --per-key reads `key,item` lines (split at the first comma) and writes one filter per key \
    into the directory OUT, named <key>.sbloom (or .guava), the key percent-encoded outside \
    [A-Za-z0-9_.-]. It holds every key's filter in memory until the end: keys × m/8 bytes.")]
pub struct BuildArgs {
    #[command(flatten)]
    pub sizing: Sizing,

    /// How a line (or a CSV item) becomes a key.
    #[arg(long, value_enum, default_value_t = KeyKind::String)]
    pub keys: KeyKind,

    /// Layout of the written filter(s).
    #[arg(long, value_enum, default_value_t = FileFormat::Sparkbloom)]
    pub format: FileFormat,

    /// Input lines are `key,item`: one filter per key, written into the directory OUT.
    #[arg(long)]
    pub per_key: bool,

    /// Skip malformed lines (counted on stderr) instead of stopping at the first.
    #[arg(long)]
    pub skip_malformed: bool,

    /// Output file (`-` for stdout), or the output directory with --per-key.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,

    /// Files of lines; none or `-` reads stdin.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

/// Describe filter files: format, strategy, m, k, fill, estimated count, expected FPP.
///
/// Neither FORMAT.md v1 nor Guava's stream records the n a filter was sized for; inspect shows
/// the capacity m·ln2/(k − ½) instead (the largest n whose (n, p) sizing gives this m and k)
/// and warns when the estimated count is above it, or above --expected-insertions.
#[derive(Args)]
#[command(after_help = "Examples:\n  \
    sparkbloom inspect seen.sbloom\n  \
    sparkbloom inspect --json filters/*.sbloom | jq .expected_fpp")]
pub struct InspectArgs {
    /// One JSON object per file, one per line (JSON Lines).
    #[arg(long)]
    pub json: bool,

    /// The n the filters were sized for, when you know it (for the over-capacity warning).
    #[arg(short = 'n', long, value_name = "N", value_parser = parse_insertions, allow_hyphen_values = true)]
    pub expected_insertions: Option<u64>,

    /// Filter files (FORMAT.md or Guava's stream, detected).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

/// Ask a filter about each input line: `<line>\ttrue|false` (Guava's mightContain).
#[derive(Args)]
#[command(after_help = "Examples:\n  \
    sparkbloom query seen.sbloom --keys long candidates.txt\n  \
    sparkbloom query seen.sbloom --absent new-urls.txt > unseen.txt")]
pub struct QueryArgs {
    /// Filter file (FORMAT.md or Guava's stream, detected).
    #[arg(value_name = "FILE")]
    pub filter: PathBuf,

    /// Print only the lines the filter has certainly not seen, as they are.
    #[arg(long)]
    pub absent: bool,

    /// How a line becomes a key.
    #[arg(long, value_enum, default_value_t = KeyKind::String)]
    pub keys: KeyKind,

    /// Skip malformed lines (counted on stderr) instead of stopping at the first.
    #[arg(long)]
    pub skip_malformed: bool,

    /// Files of lines; none or `-` reads stdin.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

/// `merge`: the union (bitwise OR) of filters; `intersect`: their intersection (AND).
///
/// The filters must have the same m, k and strategy; otherwise the mismatch is named and
/// nothing is written. The inputs may mix formats.
#[derive(Args)]
#[command(after_help = "Examples:\n  \
    sparkbloom merge day1.sbloom day2.sbloom day3.guava -o week.sbloom\n  \
    sparkbloom intersect a.sbloom b.sbloom -o both.sbloom")]
pub struct CombineArgs {
    /// Two or more filter files.
    #[arg(value_name = "FILE", num_args = 2.., required = true)]
    pub files: Vec<PathBuf>,

    /// Output file (`-` for stdout).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,

    /// Layout of the written filter.
    #[arg(long, value_enum, default_value_t = FileFormat::Sparkbloom)]
    pub format: FileFormat,
}

/// Rewrite a filter in the other layout; the input's layout is detected.
#[derive(Args)]
#[command(after_help = "Examples:\n  \
    sparkbloom convert legacy.guava --to sparkbloom -o legacy.sbloom\n  \
    sparkbloom convert seen.sbloom --to guava -o seen.guava\n  \
    sparkbloom convert df-stat.spark --to sparkbloom -o df-stat.sbloom")]
pub struct ConvertArgs {
    /// Filter file (FORMAT.md or Guava's stream).
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// Layout to write.
    #[arg(long, value_enum)]
    pub to: FileFormat,

    /// Output file (`-` for stdout).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
}

fn parse_insertions(text: &str) -> Result<u64, String> {
    match text.trim().parse::<i128>() {
        Ok(n) if n > 0 && n <= u64::MAX as i128 => Ok(n as u64),
        Ok(_) => Err(format!("must be a positive integer, got {text}")),
        Err(_) => Err(format!("not an integer: {text:?}")),
    }
}

fn parse_fpp(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p < 1.0 => Ok(p),
        Ok(_) => Err(format!("must be in (0, 1), got {text}")),
        Err(_) => Err(format!("not a number: {text:?}")),
    }
}
