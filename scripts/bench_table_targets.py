"""The performance targets (TARGETS, JOB_TARGETS, the BLOCKED FPP bound) and their verdicts:
each target's ratio in every run, "met" when it holds in a majority of the runs."""

from collections import namedtuple

from bench_table_figures import STRING_BATCH, ratio

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
