#!/usr/bin/env python3
"""One Markdown table from a criterion run and a JMH run (scripts/bench.sh).

Reads criterion's `<CRITERION_HOME>/**/new/{benchmark,estimates}.json` (median of the samples;
batch groups divided by their `Throughput::Elements` to give ns per key), JMH's `-rf json`
files (median of the measurement iterations; batch benchmarks are already per key through
`@OperationsPerInvocation`), and the byte counts printed by `SerializedSizes`.

Prints, per filter shape, ns/op of every implementation side by side, the ratios
sparkbloom/peer (below 1 = sparkbloom faster), the JNI-to-native ratio for sparkbloom, and then
issue 5's targets (the TARGETS table), each met or missed with its ratio.

Usage: bench_table.py --criterion DIR --jmh FILE [--jmh FILE ...] [--sizes FILE]
"""

import argparse
import glob
import json
import os
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

# Issue 5's targets. They will change: edit this table, not the code below.
TARGETS = [
    Target(BOTH, BATCH_QUERIES, (256, 4096), SB, RUST_SB, "<=", 1.5),
    Target(SMALL, BATCH_QUERIES, (4096,), GUAVA, SB, ">=", 7),
    Target(SMALL, BATCH_QUERIES, (4096,), SPARK_V1, SB, ">=", 3),
    Target(SMALL, BATCH_QUERIES, (4096,), SPARK_V2, SB, ">=", 3),
    Target(LARGE, BATCH_QUERIES, (4096,), GUAVA, SB, ">=", 8),
    Target(BOTH, ("BatchBench.putAll",), (4096,), GUAVA, SB, ">=", 10),
    Target(BOTH, SINGLE_QUERIES, NO_BATCH, SPARK_V1, SB, ">=", 1.0),
    Target(BOTH, SINGLE_QUERIES, NO_BATCH, SPARK_V2, SB, ">=", 1.0),
    Target(SMALL_ALL_AND_SPARSE, JAVA_SERIALIZATION, NO_BATCH, GUAVA, SB, ">=", 5),
    Target(SMALL_ALL_AND_SPARSE, JAVA_SERIALIZATION, NO_BATCH, SB_BYTES, GUAVA_BYTES, "<", 1),
    # Issue 15, item 3: the cache-blocked layout (Strategy.BLOCKED) on the big filter.
    Target(LARGE, BATCH_QUERIES, (4096,), GUAVA, SB_BLOCKED, ">=", 20),
    Target(LARGE, BATCH_QUERIES, (4096,), SPARK_V1, SB_BLOCKED, ">=", 6),
    Target(LARGE, BATCH_QUERIES, (4096,), SPARK_V2, SB_BLOCKED, ">=", 6),
]

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
        rows.append(Row("own format write+read", RustOp("serde"),
                        JvmOp("SerializationBench.ownFormat")))
        if shape == "n1e4_p1e-3":
            rows.append(Row("Java serialization write+read, 200 keys", None,
                            JvmOp("SerializationBench.javaSerialization", suffix="_sparse")))
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

    def targets(self):
        """TARGETS, one line each: the ratio, the bound, met or missed."""
        holds = {"<=": lambda v, b: v <= b, ">=": lambda v, b: v >= b, "<": lambda v, b: v < b}
        shown = {"<=": "≤", ">=": "≥", "<": "<"}
        lines = ["| target | ratio | needed | |", "|---|---|---|---|"]
        for t in TARGETS:
            for shape in t.shapes:
                for method in t.ops:
                    for batch in t.batches:
                        what = method.split(".")[1] + ("" if batch is None else f" batch {batch}")
                        desc = f"{shape} `{what}`: {t.numerator.label} ÷ {t.denominator.label}"
                        needed = f"{shown[t.relation]} {t.bound}"
                        value = ratio(self.side_value(t.numerator, shape, method, batch),
                                      self.side_value(t.denominator, shape, method, batch))
                        if value is None:
                            lines.append(f"| {desc} | not measured | {needed} | – |")
                            continue
                        met = holds[t.relation](value, t.bound)
                        lines.append(f"| {desc} | {value:.2f} | {needed} "
                                     f"| {'met' if met else '**missed**'} |")
        return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--criterion", required=True)
    ap.add_argument("--jmh", action="append", default=[])
    ap.add_argument("--sizes")
    args = ap.parse_args()
    crit = load_criterion(args.criterion)
    jmh = load_jmh(args.jmh)
    sizes = {}
    if args.sizes and os.path.exists(args.sizes):
        with open(args.sizes) as f:
            sizes = json.load(f)
    if not crit and not jmh:
        sys.exit("no results found: run scripts/bench.sh first")
    t = Tables(crit, jmh, sizes)
    print("ns/op, median (batch rows: ns per key). Ratios are sparkbloom/peer: below 1 means "
          "sparkbloom is faster. `JNI/Rust sb` = the JVM call's cost over the Rust core's for "
          "the same operation. Own format: Rust = `format::encode` + `format::decode` "
          "(fastbloom: its words copied to bytes and back); JVM = `toByteArray`+`fromByteArray`, "
          "Guava/Spark `writeTo`+`readFrom`.")
    for shape, title in SHAPES:
        print(f"\n### {title}\n")
        print(t.table(shape))
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
    print("\n### Issue 5 targets\n")
    print(t.targets())


if __name__ == "__main__":
    main()
