//! `dedup` against an exact dedup on seeded URL-like lines with 30 % repeats: no line is printed
//! twice, every printed line is a first occurrence (in order), every lost line is one the
//! filter answers "present" for, and the count lost to false positives lies within the
//! binomial bound the filter's maths gives.

mod support;

use sparkbloom::format;
use sparkbloom::sizing::shape_for;
use std::collections::HashSet;
use std::fs;
use support::{run_in, scratch, splitmix64};

const DISTINCT: usize = 50_000;
const REPEAT_PERCENT: u64 = 30;
const FPP: f64 = 0.01;

/// DISTINCT different lines in a stream where 30 % of the lines repeat an earlier one.
fn crawl(seed: u64) -> Vec<String> {
    let mut state = seed;
    let mut lines: Vec<String> = Vec::new();
    let mut distinct = 0;
    while distinct < DISTINCT {
        let r = splitmix64(&mut state);
        if !lines.is_empty() && r % 100 < REPEAT_PERCENT {
            let earlier = (splitmix64(&mut state) % lines.len() as u64) as usize;
            lines.push(lines[earlier].clone());
        } else {
            lines.push(format!(
                "https://site{}.example/articles/{:x}/{distinct}",
                r % 997,
                r >> 20
            ));
            distinct += 1;
        }
    }
    lines
}

#[test]
fn the_sieve_matches_an_exact_dedup_up_to_false_positives_within_the_binomial_bound() {
    let dir = scratch("sieve");
    let input = crawl(2026);
    let text: String = input.iter().map(|l| format!("{l}\n")).collect();
    let n = DISTINCT.to_string();
    let run = run_in(
        &dir,
        &["dedup", "-n", &n, "-p", "0.01", "--state", "seen.sbloom"],
        text.as_bytes(),
    )
    .ok();
    let printed: Vec<String> = run.stdout_text().lines().map(String::from).collect();

    let mut seen = HashSet::new();
    let exact: Vec<&String> = input.iter().filter(|l| seen.insert(*l)).collect();
    assert_eq!(exact.len(), DISTINCT);
    assert!(
        input.len() as f64 > DISTINCT as f64 * 1.3,
        "{} lines: repeats present",
        input.len()
    );

    // Printed lines are distinct first occurrences, in the input's order.
    let mut exact_iter = exact.iter();
    for line in &printed {
        assert!(
            exact_iter.any(|e| *e == line),
            "{line} printed out of order, twice, or not a first occurrence"
        );
    }
    let printed_set: HashSet<&String> = printed.iter().collect();
    assert_eq!(printed_set.len(), printed.len(), "a line printed twice");

    // Every line not printed is one the saved filter answers present for.
    let filter = format::decode(&fs::read(dir.join("seen.sbloom")).unwrap()).unwrap();
    let lost: Vec<&&String> = exact
        .iter()
        .filter(|l| !printed_set.contains(**l))
        .collect();
    assert!(lost.iter().all(|l| filter.might_contain_str(l)));

    // The i-th new line (i keys already in) is lost with probability q_i = (1 − e^(−k·i/m))^k,
    // the false-positive rate at that fill; losses are a sum of independent Bernoullis:
    // mean Σ q_i, variance Σ q_i(1 − q_i). Six standard deviations either side.
    let shape = shape_for(DISTINCT as u64, FPP).unwrap();
    let (m, k) = (shape.num_bits as f64, shape.num_hashes as i32);
    let q = |i: usize| (1.0 - (-(k as f64) * i as f64 / m).exp()).powi(k);
    let mean: f64 = (0..DISTINCT).map(q).sum();
    let sd = (0..DISTINCT)
        .map(|i| q(i) * (1.0 - q(i)))
        .sum::<f64>()
        .sqrt();
    let (low, high) = (mean - 6.0 * sd, mean + 6.0 * sd);
    assert!(
        (low..=high).contains(&(lost.len() as f64)),
        "{} lines lost, expected {mean:.1} ± 6·{sd:.1}",
        lost.len()
    );
    eprintln!("lost {} in [{low:.1}, {high:.1}]", lost.len());
    assert!(
        low > 0.0,
        "the bound is tight enough to fail: [{low:.1}, {high:.1}]"
    );
}
