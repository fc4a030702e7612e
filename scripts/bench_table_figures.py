"""The measured figures side by side as Markdown: per filter shape, ns/op of every
implementation and the ratios sparkbloom/peer; the string batches, the serialized sizes and
the anatomy rows."""

from collections import namedtuple

from bench_table_results import JmhKey

SHAPES = [("n1e4_p1e-3", "n = 10^4, p = 10^-3"), ("n1e7_p1e-2", "n = 10^7, p = 10^-2")]
BATCHES = [1, 16, 256, 4096]
JVM_IMPLS = ["sparkbloom", "guava", "spark_v1", "spark_v2"]
JVM_PEERS = ["guava", "spark_v1", "spark_v2"]

# One line of a per-shape table: its label, the criterion operation and the JMH one (either None).
Row = namedtuple("Row", "label rust jvm")
# A criterion operation: function id prefix, batch size; "serde" sums serialize+deserialize.
RustOp = namedtuple("RustOp", "op batch suffix", defaults=(None, ""))
# A JMH operation: class.method, batch size, suffix of the shape (e.g. "_sparse").
JvmOp = namedtuple("JvmOp", "method batch suffix", defaults=(None, ""))

# StringBatchBench's methods: the string table's rows, and one of the targets.
STRING_BATCH = ("StringBatchBench.mightContain", "StringBatchBench.put")

# The criterion operation that a JMH batch method measures, for the JNI ÷ Rust targets.
RUST_OP_OF = {"BatchBench.putAll": "put_all", "BatchBench.mightContainAll": "query_all",
              "BatchBench.retainAbsent": "retain_absent"}


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
                 ("put_check_then_fetch_or", "put model: load, `fetch_or` only if clear"),
                 ("put_fetch_or", "put model: always `fetch_or` (fastbloom's atomic filter)"),
                 ("put_plain_or", "put model: branchless load, OR, store (the core's, under its writer lock)")]
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
