"""Reading one benchmark run: criterion's and JMH's result files, the serialized sizes, the
example job's reports and BLOCKED's FPP, as scripts/bench.sh wrote them."""

import glob
import json
import os
import re
import statistics
from collections import namedtuple

# A JMH result: benchmark class.method, @Param impl, shape and batch (None where not a param).
JmhKey = namedtuple("JmhKey", "method impl shape batch")


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


def load_run(directory, job_names):
    """A Run from a directory bench.sh wrote; `job_names` are the example-job reports to read
    (`job-<name>.txt`)."""
    def read(name):
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return f.read()
    jobs = {}
    for name in job_names:
        text = read(f"job-{name}.txt")
        if text is not None:
            jobs[name] = parse_job(text)
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
