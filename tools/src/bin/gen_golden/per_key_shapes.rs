//! `per_key_shapes.tsv`: the core's per-key shape over counts × rates, which the JVM
//! (`Sizing.perKeyCount`), the CLI (`--sizing per-key`) and Python (`per_key_shape`) suites each
//! compare their own answers with, so no language can drift from the one rule.

use sparkbloom::sizing::per_key_shape;
use std::fmt::Write as _;

/// Counts from one item up, dense where small keys are (most users of a long-tailed history).
pub const COUNTS: [u64; 22] = [
    0,
    1,
    2,
    3,
    4,
    5,
    7,
    10,
    13,
    17,
    25,
    50,
    100,
    200,
    500,
    1_000,
    2_000,
    4_096,
    10_000,
    100_000,
    1_000_000,
    123_456_789,
];

/// Rates from 0.1 to 10^-9, written as a user types them.
pub const RATES: [&str; 9] = [
    "0.1", "0.03", "0.01", "0.001", "0.0001", "1e-05", "1e-06", "1e-07", "1e-09",
];

/// The table: `distinct_items fpp num_bits num_hashes`, tab-separated, with a header.
pub fn per_key_shapes() -> String {
    let mut out = String::from("distinct_items\tfpp\tnum_bits\tnum_hashes\n");
    for n in COUNTS {
        for p in RATES {
            let shape = per_key_shape(n, p.parse().unwrap()).unwrap();
            writeln!(out, "{n}\t{p}\t{}\t{}", shape.num_bits, shape.num_hashes).unwrap();
        }
    }
    out
}
