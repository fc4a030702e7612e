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

Usage: bench_table.py --run DIR [--run DIR ...] [--indicative]
       bench_table.py --criterion DIR --jmh FILE [--jmh FILE ...] [--sizes FILE]
"""

import argparse
import glob
import json
import os
import re
import statistics
import sys
from collections import namedtuple

SHAPES = [("n1e4_p1e-3", "n = 10^4, p = 10^-3"), ("n1e7_p1e-2", "n = 10^7, p = 10^-2")]
BATCHES = [1, 16, 256, 4096]
JVM_IMPLS = ["sparkbloom", "guava", "spark_v1", "spark_v2"]
JVM_PEERS = ["guava", "spark_v1", "spark_v2"]

# A JMH result: benchmark class.method, @Param impl, shape and batch (None where not a param).
JmhKey = namedtuple("JmhKey", "method impl shape batch")
# One line of a per-shape table: its label, the criterion operation and the JMH one (either None).
Row = namedtuple("Row", "label rust jvm")
# A criterion operation: function id prefix, batch size; "serde" sums serialize+deserialize.
RustOp = namedtuple("RustOp", "op batch suffix", defaults=(None, ""))
# A JMH operation: class.method, batch size, suffix of the shape (e.g. "_sparse").
JvmOp = namedtuple("JvmOp", "method batch suffix", defaults=(None, ""))

# One side of a target's ratio: where it is measured ("jvm" = JMH, "rust" = criterion,
# "bytes" = SerializedSizes' Java-serialization byte count), which implementation, its label.
Side = namedtuple("Side", "source impl label")
SB = Side("jvm", "sparkbloom", "sparkbloom (JNI)")
RUST_SB = Side("rust", "sparkbloom", "Rust-native sparkbloom")
GUAVA = Side("jvm", "guava", "Guava 33")
SPARK_V1 = Side("jvm", "spark_v1", "Spark V1")
SPARK_V2 = Side("jvm", "spark_v2", "Spark V2")
SB_BLOCKED = Side("jvm", "sparkbloom_blocked", "sparkbloom BLOCKED (JNI)")
SB_BYTES = Side("bytes", "sparkbloom", "sparkbloom bytes")
GUAVA_BYTES = Side("bytes", "guava", "Guava bytes")

# A target: for every shape × operation × batch, numerator ÷ denominator must be <= or >= bound.
Target = namedtuple("Target", "shapes ops batches numerator denominator relation bound")

BOTH = ("n1e4_p1e-3", "n1e7_p1e-2")
SMALL = ("n1e4_p1e-3",)
LARGE = ("n1e7_p1e-2",)
SMALL_ALL_AND_SPARSE = ("n1e4_p1e-3", "n1e4_p1e-3_sparse")
BATCH_QUERIES = ("BatchBench.mightContainAll", "BatchBench.retainAbsent")
SINGLE_QUERIES = ("SingleKeyBench.hit_u64", "SingleKeyBench.miss_u64")
JAVA_SERIALIZATION = ("SerializationBench.javaSerialization",)
NO_BATCH = (None,)

STRING_BATCH = ("StringBatchBench.mightContain", "StringBatchBench.put")
# StringBatchBench's shapes are whichever its results carry (None: a bench without the param).
STRING_SHAPES = "as measured"

# The performance targets. They will change: edit this table, not the code below.
TARGETS = [
    Target(BOTH, BATCH_QUERIES, (4096,), SB, RUST_SB, "<=", 1.5),
    # The classic layout, batched from Java with the caller slicing its array.
    Target(SMALL, BATCH_QUERIES, (4096,), GUAVA, SB, ">=", 12),
    Target(SMALL, BATCH_QUERIES, (4096,), SPARK_V1, SB, ">=", 4),
    Target(SMALL, BATCH_QUERIES, (4096,), SPARK_V2, SB, ">=", 4),
    Target(LARGE, BATCH_QUERIES, (4096,), GUAVA, SB, ">=", 8),
    Target(LARGE, ("BatchBench.putAll",), (4096,), GUAVA, SB, ">=", 10),
    Target(BOTH, SINGLE_QUERIES, NO_BATCH, SPARK_V1, SB, ">=", 1.0),
    Target(BOTH, SINGLE_QUERIES, NO_BATCH, SPARK_V2, SB, ">=", 1.0),
    Target(SMALL_ALL_AND_SPARSE, JAVA_SERIALIZATION, NO_BATCH, GUAVA, SB, ">=", 5),
    Target(SMALL_ALL_AND_SPARSE, JAVA_SERIALIZATION, NO_BATCH, SB_BYTES, GUAVA_BYTES, "<", 1),
    # The cache-blocked layout (Strategy.BLOCKED) on the big filter.
    Target(LARGE, BATCH_QUERIES, (4096,), GUAVA, SB_BLOCKED, ">=", 20),
    Target(LARGE, BATCH_QUERIES, (4096,), SPARK_V1, SB_BLOCKED, ">=", 6),
    Target(LARGE, BATCH_QUERIES, (4096,), SPARK_V2, SB_BLOCKED, ">=", 6),
    # String batches of 32-byte keys against Guava's stringFunnel(UTF_8).
    Target(STRING_SHAPES, STRING_BATCH, NO_BATCH, GUAVA, SB, ">=", 5),
]

# The example job (scripts/run-example.sh, best of 3 inside each report): the report file's
# name, what it runs, and the least Guava-time ÷ sparkbloom-time it must reach.
JobTarget = namedtuple("JobTarget", "name label bound")
JOB_TARGETS = [
    JobTarget("per-key", "10,000 users, helpers, per-key sizing (README's default run)", 3.0),
    JobTarget("fixed", "10,000 users, helpers, fixed sizing", 3.0),
    JobTarget("plain", "10,000 users, the Guava job's code with sparkbloom swapped in", 1.5),
    JobTarget("users100", "100 users, helpers, per-key sizing (shown, not a target)", None),
]
# Bytes on disk per user with per-key sizing: at most Guava's ÷ 40.
JOB_BYTES_BOUND = 40.0
# BLOCKED's observed FPP at (10^7, 10^-2): at most 1.1·p.
BLOCKED_FPP_BOUND = 1.1

# The criterion operation that a JMH batch method measures, for the JNI ÷ Rust targets.
RUST_OP_OF = {"BatchBench.putAll": "put_all", "BatchBench.mightContainAll": "query_all",
              "BatchBench.retainAbsent": "retain_absent"}


def load_criterion(root):
    """{(group, function, parameter or None): ns per op (per key for batch groups)}."""
    out = {}
    for path in glob.glob(os.path.join(root, "**", "new", "benchmark.json"), recursive=True):
        with open(path) as f:
            bench = json.load(f)
        with open(os.path.join(os.path.dirname(path), "estimates.json")) as f:
            est = json.load(f)
        ns = est["median"]["point_estimate"]
        throughput = bench.get("throughput") or {}
        elements = throughput.get("Elements") if isinstance(throughput, dict) else None
        if elements:
            ns /= elements
        param = bench.get("value_str")
        out[(bench["group_id"], bench["function_id"], param)] = ns
    return out


def load_jmh(paths):
    """{JmhKey: ns per op (median of iterations)}."""
    out = {}
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path) as f:
            runs = json.load(f)
        for run in runs:
            method = run["benchmark"].rsplit(".", 2)
            name = method[-2] + "." + method[-1]
            params = run.get("params", {})
            metric = run["primaryMetric"]
            ns = metric.get("scorePercentiles", {}).get("50.0", metric["score"])
            out[JmhKey(name, params.get("impl"), params.get("shape"), params.get("batch"))] = ns
    return out


# One run's results: criterion and JMH figures, serialized sizes, the example job's reports by
# name (JOB_TARGETS), and BLOCKED's observed FPP as a multiple of p (None where not run).
Run = namedtuple("Run", "crit jmh sizes jobs blocked_fpp")
# What one example-job report says: job seconds and bytes on disk per user for each pipeline,
# sparkbloom's false negatives, and whether its observed FPP is within the target + 3 sigma.
JobResult = namedtuple("JobResult", "sb_seconds guava_seconds sb_bytes guava_bytes "
                       "false_negatives fpp_within")


def load_sizes(path):
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


def parse_job(text):
    """A JobResult from PerUserDedupJob's report (Report.java's rows), or None."""
    def row(label, unit=""):
        m = re.search(r"^" + re.escape(label) + r".*?\s([\d,.]+)" + unit + r"\s+([\d,.]+)" + unit,
                      text, re.M)
        return None if m is None else tuple(float(v.replace(",", "")) for v in m.groups())
    seconds = row("job total", " s")
    per_user = row("bytes on disk per user")
    negatives = re.search(r"^false negatives \(must be 0\)\s+([\d,]+)", text, re.M)
    if seconds is None or per_user is None or negatives is None:
        return None
    return JobResult(seconds[0], seconds[1], per_user[0], per_user[1],
                     int(negatives.group(1).replace(",", "")),
                     "observed FPP within the target" in text)


def parse_blocked_fpp(text):
    """The observed FPP over p that examples/blocked_fpp prints, or None."""
    m = re.search(r"observed FPP [\d.]+ \(([\d.]+)·p", text)
    return None if m is None else float(m.group(1))


def load_run(directory):
    """A Run from a directory bench.sh wrote."""
    def read(name):
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return f.read()
    jobs = {}
    for target in JOB_TARGETS:
        text = read(f"job-{target.name}.txt")
        if text is not None:
            jobs[target.name] = parse_job(text)
    fpp_text = read("blocked_fpp.txt")
    crit_dir = os.path.join(directory, "criterion")
    return Run(load_criterion(crit_dir) if os.path.isdir(crit_dir) else {},
               load_jmh(sorted(glob.glob(os.path.join(directory, "jmh*.json")))),
               load_sizes(os.path.join(directory, "sizes.json")), jobs,
               None if fpp_text is None else parse_blocked_fpp(fpp_text))


def median_of(dicts):
    """Key by key, the median of the values the dicts hold for it."""
    keys = {k for d in dicts for k in d}
    return {k: statistics.median(d[k] for d in dicts if k in d) for k in keys}


def fmt_ns(ns):
    if ns is None:
        return "–"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e4:
        return f"{ns / 1e3:.1f} µs"
    if ns >= 100:
        return f"{ns:.0f}"
    return f"{ns:.1f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(r):
    return "–" if r is None else f"{r:.2f}"


class Tables:
    def __init__(self, crit, jmh, sizes):
        self.crit = crit
        self.jmh = jmh
        self.sizes = sizes

    def c(self, op, shape, impl, param=None):
        return self.crit.get((f"{op}@{shape}", impl, None if param is None else str(param)))

    def j(self, method, impl, shape, batch=None):
        return self.jmh.get(JmhKey(method, impl, shape, None if batch is None else str(batch)))

    def rows(self, shape):
        """Every Row of a shape's table."""
        rows = []
        for kind in ("u64", "str"):
            key = "8-byte long" if kind == "u64" else "32-byte String"
            for op, label in (("put", "put"), ("hit", "mightContain, hit"),
                              ("miss", "mightContain, miss")):
                rows.append(Row(f"{label} ({key})", RustOp(f"{op}_{kind}"),
                                JvmOp(f"SingleKeyBench.{op}_{kind}")))
        for jmh_op, label in (("putAll", "putAll"), ("mightContainAll", "mightContainAll, 50/50"),
                              ("retainAbsent", "retainAbsent, 50/50")):
            method = "BatchBench." + jmh_op
            for b in BATCHES:
                rows.append(Row(f"{label}, batch {b} (per key)", RustOp(RUST_OP_OF[method], b),
                                JvmOp(method, b)))
        rows.append(Row("Java serialization write+read", None,
                        JvmOp("SerializationBench.javaSerialization")))
        rows.append(Row("Java serialization of the bare bytes (floor)", None,
                        JvmOp("SerializationBench.javaSerializationFloor")))
        rows.append(Row("own format write+read", RustOp("serde"),
                        JvmOp("SerializationBench.ownFormat")))
        if shape == "n1e4_p1e-3":
            rows.append(Row("Java serialization write+read, 200 keys", None,
                            JvmOp("SerializationBench.javaSerialization", suffix="_sparse")))
            rows.append(Row("Java serialization of the bare bytes (floor), 200 keys", None,
                            JvmOp("SerializationBench.javaSerializationFloor", suffix="_sparse")))
            rows.append(Row("own format write+read, 200 keys", RustOp("serde", suffix="_sparse"),
                            JvmOp("SerializationBench.ownFormat", suffix="_sparse")))
        return rows

    def rust_value(self, shape, op, impl):
        if op is None:
            return None
        if op.op == "serde":
            ser = self.c(f"serialize{op.suffix}", shape, impl)
            de = self.c(f"deserialize{op.suffix}", shape, impl)
            return None if ser is None or de is None else ser + de
        return self.c(op.op, shape, impl, op.batch)

    def jvm_value(self, shape, op, impl):
        return self.j(op.method, impl, shape + op.suffix, op.batch)

    def table(self, shape):
        head = ("| operation | Rust sparkbloom | Rust fastbloom | sb/fastbloom "
                "| JNI sparkbloom | Guava 33 | Spark V1 | Spark V2 "
                "| sb/Guava | sb/Spark V1 | sb/Spark V2 | JNI/Rust sb |")
        lines = [head, "|" + "---|" * 12]
        for row in self.rows(shape):
            rs = self.rust_value(shape, row.rust, "sparkbloom")
            rf = self.rust_value(shape, row.rust, "fastbloom")
            jv = {impl: self.jvm_value(shape, row.jvm, impl) for impl in JVM_IMPLS}
            if all(v is None for v in [rs, rf, *jv.values()]):
                continue
            cells = [row.label, fmt_ns(rs), fmt_ns(rf), fmt_ratio(ratio(rs, rf))]
            cells += [fmt_ns(jv[i]) for i in JVM_IMPLS]
            cells += [fmt_ratio(ratio(jv["sparkbloom"], jv[p])) for p in JVM_PEERS]
            cells.append(fmt_ratio(ratio(jv["sparkbloom"], rs)))
            lines.append("| " + " | ".join(cells) + " |")
        atomic = self.c("put_u64", shape, "fastbloom_atomic")
        if atomic is not None:
            lines.append("")
            lines.append(f"fastbloom's `AtomicBloomFilter` (atomic puts, like ours): put "
                         f"{fmt_ns(atomic)} ns; sparkbloom/atomic fastbloom "
                         f"{fmt_ratio(ratio(self.c('put_u64', shape, 'sparkbloom'), atomic))}.")
        return "\n".join(lines)

    def anatomy(self):
        names = [("miss_latency", "a miss as latency: each key depends on the previous answer"),
                 ("hash", "Murmur3 x64_128 of the 8-byte key"),
                 ("hash_2div", "+ the two 64-bit remainders that start Guava's index walk"),
                 ("hash_fastmod", "+ the same remainders by multiply-only fastmod"),
                 ("put_check_then_fetch_or", "put model: load, `fetch_or` only if clear (the core's `BitArray::set`)"),
                 ("put_fetch_or", "put model: always `fetch_or` (fastbloom's atomic filter)"),
                 ("put_plain_or", "put model: branchless load, OR, store (not thread-safe)")]
        lines = ["| step | " + " | ".join(s for s, _ in SHAPES) + " |", "|---|---|---|"]
        found = False
        for name, label in names:
            vals = [self.crit.get((f"anatomy@{shape}", name, None)) for shape, _ in SHAPES]
            found |= any(v is not None for v in vals)
            lines.append(f"| {label} | " + " | ".join(fmt_ns(v) for v in vals) + " |")
        return "\n".join(lines) if found else ""

    def sizes_table(self):
        if not self.sizes:
            return ""
        lines = ["| filter | sparkbloom | Guava 33 | Spark V1 | Spark V2 |", "|---|---|---|---|---|"]
        for shape in ("n1e4_p1e-3", "n1e4_p1e-3_sparse", "n1e7_p1e-2"):
            for kind, label in (("java", "Java serialization"), ("own", "own format")):
                cells = [f"{shape}, {label}"]
                for impl in JVM_IMPLS:
                    v = self.sizes.get(f"{impl}/{shape}", {}).get(kind)
                    cells.append("–" if v is None else f"{v:,}")
                lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def side_value(self, side, shape, method, batch):
        """One side of a target's ratio: ns per op or key, or a byte count."""
        if side.source == "jvm":
            return self.j(method, side.impl, shape, batch)
        if side.source == "rust":
            return self.c(RUST_OP_OF[method], shape, side.impl, batch)
        return self.sizes.get(f"{side.impl}/{shape}", {}).get("java")

    def string_shapes(self):
        """The shapes StringBatchBench ran (None: a run without the shape param)."""
        return sorted({k.shape for k in self.jmh if k.method in STRING_BATCH},
                      key=lambda v: "" if v is None else v)

    def string_table(self):
        """StringBatchBench: ns per key of each implementation and sparkbloom's speed-ups."""
        lines = ["| shape | operation | sparkbloom | Guava 33 | Spark | Guava/sb | Spark/sb |",
                 "|---|---|---|---|---|---|---|"]
        for shape in self.string_shapes():
            for method in STRING_BATCH:
                v = {impl: self.j(method, impl, shape) for impl in ("sparkbloom", "guava", "spark")}
                if v["sparkbloom"] is None:
                    continue
                lines.append(f"| {shape or '–'} | {method.split('.')[1]} | "
                             + " | ".join(fmt_ns(v[i]) for i in ("sparkbloom", "guava", "spark"))
                             + f" | {fmt_ratio(ratio(v['guava'], v['sparkbloom']))}"
                             f" | {fmt_ratio(ratio(v['spark'], v['sparkbloom']))} |")
        return "\n".join(lines) if len(lines) > 2 else ""


HOLDS = {"<=": lambda v, b: v <= b, ">=": lambda v, b: v >= b, "<": lambda v, b: v < b}
SHOWN = {"<=": "≤", ">=": "≥", "<": "<"}


def verdict(values, holds, indicative):
    """A target's last cell from its value in each run (None: not measured in that run)."""
    measured = [v for v in values if v is not None]
    if not measured:
        return "–"
    held = sum(1 for v in measured if holds(v))
    if indicative:
        return "holds" if held == len(measured) else "below in this quick run (not a verdict)"
    needed = len(measured) // 2 + 1
    word = "met" if held >= needed else "**missed**"
    return f"{word} ({held} of {len(measured)} runs)"


def fmt_values(values, unit=""):
    return ", ".join("–" if v is None else f"{v:.2f}{unit}" for v in values)


def targets(per_run, indicative):
    """Every micro target (TARGETS): its ratio in each run, the bound, the verdict."""
    lines = ["| target | ratio per run | needed | |", "|---|---|---|---|"]
    for t in TARGETS:
        shapes = t.shapes
        if shapes == STRING_SHAPES:
            shapes = sorted({s for run in per_run for s in run.string_shapes()},
                            key=lambda v: "" if v is None else v)
        for shape in shapes:
            for method in t.ops:
                for batch in t.batches:
                    what = method.split(".")[1] + ("" if batch is None else f" batch {batch}")
                    label = f"{method.split('.')[0]} " if method.startswith("String") else ""
                    desc = (f"{shape or '–'} {label}`{what}`: {t.numerator.label} ÷ "
                            f"{t.denominator.label}")
                    values = [ratio(run.side_value(t.numerator, shape, method, batch),
                                    run.side_value(t.denominator, shape, method, batch))
                              for run in per_run]
                    if all(v is None for v in values):
                        lines.append(f"| {desc} | not measured | {SHOWN[t.relation]} {t.bound} | – |")
                        continue
                    cell = verdict(values, lambda v: HOLDS[t.relation](v, t.bound), indicative)
                    lines.append(f"| {desc} | {fmt_values(values)} | {SHOWN[t.relation]} {t.bound} "
                                 f"| {cell} |")
    return "\n".join(lines)


def job_section(runs, indicative):
    """The example job's reports: times, bytes, FPP per run, and the job targets."""
    if not any(run.jobs for run in runs):
        return ""
    lines = ["| job | sparkbloom s | Guava s | Guava ÷ sparkbloom per run | needed | |",
             "|---|---|---|---|---|---|"]
    for t in JOB_TARGETS:
        results = [run.jobs.get(t.name) for run in runs]
        if all(r is None for r in results):
            continue
        speeds = [None if r is None else r.guava_seconds / r.sb_seconds for r in results]
        sb = fmt_values([None if r is None else r.sb_seconds for r in results])
        gv = fmt_values([None if r is None else r.guava_seconds for r in results])
        needed = "–" if t.bound is None else f"≥ {t.bound}"
        cell = "–" if t.bound is None else verdict(speeds, lambda v: v >= t.bound, indicative)
        lines.append(f"| {t.label} | {sb} | {gv} | {fmt_values(speeds)} | {needed} | {cell} |")
    per_key = [run.jobs.get("per-key") for run in runs]
    if any(r is not None for r in per_key):
        fewer = [None if r is None else r.guava_bytes / r.sb_bytes for r in per_key]
        sizes = ", ".join("–" if r is None else f"{r.sb_bytes:,.0f} B vs {r.guava_bytes:,.0f} B"
                          for r in per_key)
        lines.append(f"| per-key sizing, bytes on disk per user ({sizes}): Guava ÷ sparkbloom | – "
                     f"| – | {fmt_values(fewer)} | ≥ {JOB_BYTES_BOUND} "
                     f"| {verdict(fewer, lambda v: v >= JOB_BYTES_BOUND, indicative)} |")
    checks = [r for run in runs for r in run.jobs.values() if r is not None]
    negatives = sum(r.false_negatives for r in checks)
    within = sum(1 for r in checks if r.fpp_within)
    lines.append("")
    lines.append(f"Every report: {negatives} false negatives; observed FPP within the target + "
                 f"3 sigma in {within} of {len(checks)} reports.")
    return "\n".join(lines)


def blocked_fpp_line(runs):
    values = [run.blocked_fpp for run in runs if run.blocked_fpp is not None]
    if not values:
        return ""
    met = all(v <= BLOCKED_FPP_BOUND for v in values)
    return (f"BLOCKED at (10^7, 10^-2), observed FPP over p (`examples/blocked_fpp`, seeded): "
            f"{fmt_values(values)}; needed ≤ {BLOCKED_FPP_BOUND}: {'met' if met else '**missed**'}.")


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
    runs = [load_run(d) for d in args.run]
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
