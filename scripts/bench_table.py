#!/usr/bin/env python3
"""Markdown tables from one or more benchmark runs (scripts/bench.sh), and the targets' verdicts.

A run is a directory (`--run DIR`, repeatable) holding what scripts/bench.sh wrote for it:
`criterion/`, `jmh*.json`, `sizes.json`, `job-*.txt` (the example job's reports) and
`blocked_fpp.txt`; `--criterion/--jmh/--sizes` name the parts of a single run instead.

Reads criterion's `<CRITERION_HOME>/**/new/{benchmark,estimates}.json` (median of the samples;
batch groups divided by their `Throughput::Elements` to give ns per key), JMH's `-rf json`
files (median of the measurement iterations; batch benchmarks are already per key through
`@OperationsPerInvocation`), and the byte counts printed by `SerializedSizes`.

Prints, per filter shape, ns/op of every implementation side by side (the median over the
runs), the ratios sparkbloom/peer (below 1 = sparkbloom faster), the JNI-to-native ratio for
sparkbloom, the example job's figures, and then the targets (TARGETS, JOB_TARGETS, the BLOCKED
FPP bound), each with its ratio in every run. A target is "met" when it holds in at least 2 of
3 runs (a majority of the runs); with `--indicative` (bench.sh's quick mode: short
iterations, one run) a shortfall reads "below in this quick run" rather than "missed", because
that mode's noise cannot support a verdict.

This file is the command; beside it, bench_table_results.py reads the runs,
bench_table_figures.py makes the side-by-side tables and bench_table_targets.py holds the
targets and their verdicts.

Usage: bench_table.py --run DIR [--run DIR ...] [--indicative]
       bench_table.py --criterion DIR --jmh FILE [--jmh FILE ...] [--sizes FILE]
"""

import argparse
import sys

from bench_table_figures import SHAPES, Tables, fmt_ns
from bench_table_results import Run, load_criterion, load_jmh, load_run, load_sizes, median_of
from bench_table_targets import JOB_TARGETS, blocked_fpp_line, job_section, targets


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", action="append", default=[],
                    help="a directory bench.sh wrote for one run (repeatable)")
    ap.add_argument("--criterion")
    ap.add_argument("--jmh", action="append", default=[])
    ap.add_argument("--sizes")
    ap.add_argument("--indicative", action="store_true",
                    help="quick mode: report shortfalls as indicative, not as missed targets")
    args = ap.parse_args()
    runs = [load_run(d, [t.name for t in JOB_TARGETS]) for d in args.run]
    if args.criterion or args.jmh:
        runs.append(Run(load_criterion(args.criterion) if args.criterion else {},
                        load_jmh(args.jmh), load_sizes(args.sizes), {}, None))
    if not any(run.crit or run.jmh or run.jobs for run in runs):
        sys.exit("no results found: run scripts/bench.sh first")
    per_run = [Tables(run.crit, run.jmh, run.sizes) for run in runs]
    t = Tables(median_of([run.crit for run in runs]), median_of([run.jmh for run in runs]),
               next((run.sizes for run in runs if run.sizes), {}))
    print(f"ns/op, median (batch rows: ns per key){' over ' + str(len(runs)) + ' runs' if len(runs) > 1 else ''}. "
          "Ratios are sparkbloom/peer: below 1 means "
          "sparkbloom is faster. `JNI/Rust sb` = the JVM call's cost over the Rust core's for "
          "the same operation. Own format: Rust = `format::encode` + `format::decode` "
          "(fastbloom: its words copied to bytes and back); JVM = `toByteArray`+`fromByteArray`, "
          "Guava/Spark `writeTo`+`readFrom`.")
    for shape, title in SHAPES:
        table = t.table(shape)
        if table.count("\n") > 1:
            print(f"\n### {title}\n")
            print(table)
    strings = t.string_table()
    if strings:
        print("\n### String batches (32-byte keys, ns per key)\n")
        print(strings)
    sizes_md = t.sizes_table()
    if sizes_md:
        print("\n### Serialized bytes\n")
        print(sizes_md)
    jni = [t.j(f"JniOverheadBench.{m}", None, None) for m in ("bitSize", "numHashFunctions")]
    if any(v is not None for v in jni):
        print("\nJNI call without filter work (`bitSize()`, `numHashFunctions()`: one native call "
              f"that reads a field): {fmt_ns(jni[0])} / {fmt_ns(jni[1])} ns.")
    anatomy = t.anatomy()
    if anatomy:
        print("\n### Anatomy (Rust, ns per key; models of the core's steps)\n")
        print(anatomy)
    jobs = job_section(runs, args.indicative)
    if jobs:
        print("\n### The example job (scripts/run-example.sh; each report is the best of 3)\n")
        print(jobs)
    print("\n### Targets\n")
    if args.indicative:
        print("Quick mode: one short run, so a shortfall here is noise as often as not; "
              "`scripts/bench.sh --targets` gives the verdicts (3 runs, longer iterations).\n")
    print(targets(per_run, args.indicative))
    fpp = blocked_fpp_line(runs)
    if fpp:
        print("\n" + fpp)


if __name__ == "__main__":
    main()
