"""ns per key of a batch membership query from Python: sparkbloom's might_contain_all over a numpy
int64 array against rbloom and pybloom-live (from PyPI), which answer one key per call.

    pip install ./python numpy rbloom pybloom-live
    python python/bench/bench_vs_rbloom.py [--n 10000] [--fpp 0.001] [--queries 1000000]

Each filter holds n keys and answers `queries` keys, half of them put. Prints the median and the
fastest of `--repeats` timed runs per library, with the load average: on a shared machine only
runs under the same load compare.
"""

import argparse
import os
import statistics
import time

import numpy as np

import sparkbloom


def timed(run, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        run()
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times), min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--fpp", type=float, default=0.001)
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    rng = np.random.default_rng(20_240_601)
    keys = rng.integers(-(2**63), 2**63 - 1, size=args.n, dtype=np.int64)
    absent = rng.integers(-(2**63), 2**63 - 1, size=args.queries - args.queries // 2, dtype=np.int64)
    queries = np.concatenate([rng.choice(keys, args.queries // 2), absent])
    rng.shuffle(queries)
    query_list = queries.tolist()

    results = {}
    f = sparkbloom.BloomFilter(args.n, args.fpp)
    f.put_all(keys)
    results["sparkbloom might_contain_all(ndarray)"] = timed(lambda: f.might_contain_all(queries), args.repeats)
    results["sparkbloom might_contain_all(list)"] = timed(lambda: f.might_contain_all(query_list), args.repeats)
    results["sparkbloom `in`, one key per call"] = timed(lambda: [k in f for k in query_list], args.repeats)
    try:
        import rbloom

        r = rbloom.Bloom(args.n, args.fpp)
        r.update(keys.tolist())
        results["rbloom `in`, one key per call"] = timed(lambda: [k in r for k in query_list], args.repeats)
    except ImportError:
        print("rbloom not installed: skipped")
    try:
        import pybloom_live

        p = pybloom_live.BloomFilter(args.n, args.fpp)
        for k in keys.tolist():
            p.add(k)
        results["pybloom-live `in`, one key per call"] = timed(
            lambda: [k in p for k in query_list], max(1, args.repeats // 3))
    except ImportError:
        print("pybloom-live not installed: skipped")

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"n={args.n} fpp={args.fpp} queries={args.queries} (half present), {os.cpu_count()} CPUs, "
          f"load average {load}")
    for name, (median, best) in results.items():
        print(f"{name:42s} median {median / args.queries:8.1f} ns/key   fastest {best / args.queries:8.1f} ns/key")


if __name__ == "__main__":
    main()
