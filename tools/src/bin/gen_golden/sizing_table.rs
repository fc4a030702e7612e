//! `--sizing-table`: FORMAT.md's table of Guava's shapes, printed from the code so the
//! document can be checked against it.

use sparkbloom::sizing;
use std::fmt::Write as _;

/// The sizing table of FORMAT.md, from the code.
pub fn sizing_table() -> String {
    let mut out = String::from(
        "| n | p | m (bits) | k | dense bytes | bits per key |\n|---:|---:|---:|---:|---:|---:|\n",
    );
    for n in [1_000u64, 10_000, 1_000_000, 10_000_000] {
        for p in ["0.1", "0.01", "0.001"] {
            let shape = sizing::shape_for(n, p.parse().unwrap()).unwrap();
            writeln!(
                out,
                "| {n} | {p} | {} | {} | {} | {:.2} |",
                shape.num_bits,
                shape.num_hashes,
                shape.num_bits / 8,
                shape.num_bits as f64 / n as f64
            )
            .unwrap();
        }
    }
    out
}
