#!/usr/bin/env python3
"""One Markdown table from a criterion run and a JMH run (scripts/bench.sh).

Reads criterion's `<CRITERION_HOME>/**/new/{benchmark,estimates}.json` (median of the samples;
batch groups divided by their `Throughput::Elements` to give ns per key), JMH's `-rf json`
files (median of the measurement iterations; batch benchmarks are already per key through
`@OperationsPerInvocation`), and the byte counts printed by `SerializedSizes`.

Prints, per filter shape, ns/op of every implementation side by side, the ratios
sparkbloom/peer (below 1 = sparkbloom faster), the JNI-to-native ratio for sparkbloom, and then
issue 5's targets, each met or missed with its ratio.

Usage: bench_table.py --criterion DIR --jmh FILE [--jmh FILE ...] [--sizes FILE]
"""

import argparse
import glob
import json
import os
import sys

SHAPES = [("n1e4_p1e-3", "n = 10^4, p = 10^-3"), ("n1e7_p1e-2", "n = 10^7, p = 10^-2")]
BATCHES = [1, 16, 256, 4096]
JVM_IMPLS = ["sparkbloom", "guava", "spark_v1", "spark_v2"]
JVM_PEERS = ["guava", "spark_v1", "spark_v2"]
PEER_LABEL = {"guava": "Guava 33", "spark_v1": "Spark V1", "spark_v2": "Spark V2"}


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
    """{(benchmark method, impl, shape, batch or None): ns per op (median of iterations)}."""
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
            key = (name, params.get("impl"), params.get("shape"), params.get("batch"))
            out[key] = ns
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
        return self.jmh.get((method, impl, shape, None if batch is None else str(batch)))

    def rows(self, shape):
        """(label, rust op key, jmh key) for every row of a shape."""
        rows = []
        for kind in ("u64", "str"):
            for op, label in (("put", "put"), ("hit", "mightContain, hit"),
                              ("miss", "mightContain, miss")):
                rows.append((f"{label} ({'8-byte long' if kind == 'u64' else '32-byte String'})",
                             ("single", f"{op}_{kind}"), ("SingleKeyBench." + f"{op}_{kind}", None)))
        for rust_op, jmh_op, label in (("put_all", "putAll", "putAll"),
                                       ("query_all", "mightContainAll", "mightContainAll, 50/50"),
                                       ("retain_absent", "retainAbsent", "retainAbsent, 50/50")):
            for b in BATCHES:
                rows.append((f"{label}, batch {b} (per key)", ("batch", rust_op, b),
                             ("BatchBench." + jmh_op, b)))
        rows.append(("Java serialization write+read", None,
                     ("SerializationBench.javaSerialization", None)))
        rows.append(("own format write+read", ("serde", ""),
                     ("SerializationBench.ownFormat", None)))
        if shape == "n1e4_p1e-3":
            rows.append(("Java serialization write+read, 200 keys", None,
                         ("SerializationBench.javaSerialization", None, "_sparse")))
            rows.append(("own format write+read, 200 keys", ("serde", "_sparse"),
                         ("SerializationBench.ownFormat", None, "_sparse")))
        return rows

    def rust_value(self, shape, key, impl):
        if key is None:
            return None
        if key[0] == "single":
            return self.c(key[1], shape, impl)
        if key[0] == "batch":
            return self.c(key[1], shape, impl, key[2])
        ser = self.c(f"serialize{key[1]}", shape, impl)
        de = self.c(f"deserialize{key[1]}", shape, impl)
        return None if ser is None or de is None else ser + de

    def jvm_value(self, shape, key, impl):
        method, batch = key[0], key[1]
        suffix = key[2] if len(key) > 2 else ""
        return self.j(method, impl, shape + suffix, batch)

    def table(self, shape):
        head = ("| operation | Rust sparkbloom | Rust fastbloom | sb/fastbloom "
                "| JNI sparkbloom | Guava 33 | Spark V1 | Spark V2 "
                "| sb/Guava | sb/Spark V1 | sb/Spark V2 | JNI/Rust sb |")
        lines = [head, "|" + "---|" * 12]
        for label, rkey, jkey in self.rows(shape):
            rs = self.rust_value(shape, rkey, "sparkbloom")
            rf = self.rust_value(shape, rkey, "fastbloom")
            jv = {impl: self.jvm_value(shape, jkey, impl) for impl in JVM_IMPLS}
            if all(v is None for v in [rs, rf, *jv.values()]):
                continue
            cells = [label, fmt_ns(rs), fmt_ns(rf), fmt_ratio(ratio(rs, rf))]
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

    def targets(self):
        """Issue 5 §4, each as (description, ratio, needed, met)."""
        out = []

        def check(desc, value, needed, at_most):
            if value is None:
                out.append(f"| {desc} | not measured | {'≤' if at_most else '≥'} {needed} | – |")
                return
            met = value <= needed if at_most else value >= needed
            out.append(f"| {desc} | {value:.2f} | {'≤' if at_most else '≥'} {needed} "
                       f"| {'met' if met else '**missed**'} |")

        for shape in ("n1e4_p1e-3", "n1e7_p1e-2"):
            for jop, rop in (("mightContainAll", "query_all"), ("retainAbsent", "retain_absent")):
                for b in (256, 4096):
                    check(f"{shape} `{jop}` batch {b}: JNI ns/key ÷ Rust-native ns/key",
                          ratio(self.j("BatchBench." + jop, "sparkbloom", shape, b),
                                self.c(rop, shape, "sparkbloom", b)), 1.5, True)
        wants = {"n1e4_p1e-3": {"guava": 7, "spark_v1": 3, "spark_v2": 3},
                 "n1e7_p1e-2": {"guava": 8}}
        for shape, peers in wants.items():
            for jop in ("mightContainAll", "retainAbsent"):
                for peer, needed in peers.items():
                    check(f"{shape} `{jop}` batch 4096: {PEER_LABEL[peer]} ns/key ÷ sparkbloom",
                          ratio(self.j("BatchBench." + jop, peer, shape, 4096),
                                self.j("BatchBench." + jop, "sparkbloom", shape, 4096)),
                          needed, False)
        for shape in ("n1e4_p1e-3", "n1e7_p1e-2"):
            check(f"{shape} `putAll` batch 4096: Guava ns/key ÷ sparkbloom",
                  ratio(self.j("BatchBench.putAll", "guava", shape, 4096),
                        self.j("BatchBench.putAll", "sparkbloom", shape, 4096)), 10, False)
        for shape in ("n1e4_p1e-3", "n1e7_p1e-2"):
            for op in ("hit_u64", "miss_u64"):
                for peer in ("spark_v1", "spark_v2"):
                    check(f"{shape} single `mightContain(long)` {op[:4]}: "
                          f"{PEER_LABEL[peer]} ns ÷ sparkbloom ns",
                          ratio(self.j("SingleKeyBench." + op, peer, shape),
                                self.j("SingleKeyBench." + op, "sparkbloom", shape)), 1.0, False)
        for suffix, label in (("", "n keys"), ("_sparse", "200 keys")):
            shape = "n1e4_p1e-3" + suffix
            check(f"n1e4_p1e-3 ({label}) Java serialization write+read: Guava ns ÷ sparkbloom",
                  ratio(self.j("SerializationBench.javaSerialization", "guava", shape),
                        self.j("SerializationBench.javaSerialization", "sparkbloom", shape)),
                  5, False)
            ours = self.sizes.get(f"sparkbloom/{shape}", {}).get("java")
            guava = self.sizes.get(f"guava/{shape}", {}).get("java")
            if ours is not None and guava is not None:
                out.append(f"| n1e4_p1e-3 ({label}) Java serialization bytes: sparkbloom {ours:,} vs "
                           f"Guava {guava:,} | {ours / guava:.3f} | < 1 "
                           f"| {'met' if ours < guava else '**missed**'} |")
        head = ["| target | ratio | needed | |", "|---|---|---|---|"]
        return "\n".join(head + out)


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
