"""sparkbloom against the Python Bloom filters people install, side by side in one process:
rbloom (Rust-backed), pybloom-live (pure Python) and a hand-written ``bitarray`` filter with md5
indexes (examples/python/md5_bitarray_filter.py), at (10^4, 10^-3) and (10^7, 10^-2).

    scripts/bench-python.sh            # a fresh virtualenv with all four, then this script
    python python/bench/bench_vs_rbloom.py [--queries 1000000] [--repeats 5] [--smoke]

Per case and library: ``put`` of the n keys and a query of ``--queries`` keys (half of them put)
in ns per key, each library its fastest way (sparkbloom: ``put_all`` / ``might_contain_all`` over
a numpy int64 array, the default layout and ``strategy="BLOCKED"`` (one cache line per key, a few
more bits for the same p); rbloom: ``update`` over a list, and the faster of an ``in`` loop and
``map(__contains__)``, it has no batch query; both also over lists of ``str`` ids, the same
objects each run and new ones (rbloom hashes with Python's hash, cached in a str); pybloom-live and the bitarray filter: one key per
call). The median of ``--repeats`` runs, puts of at least 10^6 keys in all (the pure-Python
filters, one run over ``--slow-keys`` keys: their cost per key does not depend on n). Then sparkbloom's speedup over each, and the
memory per filter: the bit array each allocates, and the resident memory measured per filter
(many small filters, one large). The CPU and the load average are printed before and after:
compare only runs under the same load. ``--smoke`` runs tiny sizes once (checks the script runs;
its figures mean nothing).
"""

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import sparkbloom

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))


def cpu():
    """The CPU model and whether it has AVX-512 (sparkbloom's fastest kernel needs avx512f)."""
    model, flags = "unknown CPU", ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and model == "unknown CPU":
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = line
    except OSError:
        pass
    avx = "avx512f" if " avx512f" in flags else "avx2" if " avx2" in flags else "no AVX2"
    return f"{model}, {avx}, {os.cpu_count()} CPUs"


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def rss():
    """Resident memory of this process, bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def median_ns(run, repeats, setup=lambda: None):
    """The median time of `repeats` runs of run(setup()), nanoseconds (setup not timed)."""
    times = []
    for _ in range(repeats):
        state = setup()
        start = time.perf_counter_ns()
        run(state)
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times)


def fresh(strings):
    """Equal str objects made anew (a str caches its Python hash, which rbloom uses)."""
    return [(s + ".")[:-1] for s in strings]


def libraries():
    """The competitors installed here: name -> (new(n, p), put(f, key list), query(f, key list), bits(f))."""
    found = {}
    try:
        import rbloom

        def rbloom_query(f, keys):
            return [k in f for k in keys]

        found["rbloom"] = (rbloom.Bloom, lambda f, keys: f.update(keys), rbloom_query,
                           lambda f: f.size_in_bits)
        found["rbloom map(__contains__)"] = (rbloom.Bloom, lambda f, keys: f.update(keys),
                                             lambda f, keys: list(map(f.__contains__, keys)),
                                             lambda f: f.size_in_bits)
    except ImportError:
        print("rbloom not installed: skipped (pip install rbloom)")
    try:
        import pybloom_live

        def pybloom_put(f, keys):
            for k in keys:
                f.add(k)

        found["pybloom-live"] = (pybloom_live.BloomFilter, pybloom_put,
                                 lambda f, keys: [k in f for k in keys], lambda f: f.num_bits)
    except ImportError:
        print("pybloom-live not installed: skipped (pip install pybloom-live)")
    try:
        from md5_bitarray_filter import Md5BloomFilter

        def md5_put(f, keys):
            for k in keys:
                f.add(k)

        found["bitarray + md5"] = (Md5BloomFilter, md5_put, lambda f, keys: [k in f for k in keys],
                                   lambda f: f.size)
    except ImportError:
        print("bitarray not installed: the bitarray filter skipped (pip install bitarray)")
    return found


SLOW = ("pybloom-live", "bitarray + md5")


def case(n, p, args, others):
    rng = np.random.default_rng(20_261_125)
    keys = rng.integers(-(2**63), 2**63 - 1, size=n, dtype=np.int64)
    absent = rng.integers(-(2**63), 2**63 - 1, size=args.queries - args.queries // 2, dtype=np.int64)
    queries = np.concatenate([rng.choice(keys, args.queries // 2), absent])
    rng.shuffle(queries)
    key_list, query_list = keys.tolist(), queries.tolist()
    slow = min(args.slow_keys, n, args.queries)
    # A put of n keys into a new filter is one call: at n = 10^4 a tenth of a millisecond, so
    # it is timed over enough runs (10^6 keys in all) for its median to hold still.
    put_repeats = max(args.repeats, 10**6 // n)
    rows = {}  # name -> (put ns/key, query ns/key, bits)

    filled = sparkbloom.BloomFilter(n, p)
    filled.put_all(keys)
    put = median_ns(lambda f: f.put_all(keys), put_repeats, lambda: sparkbloom.BloomFilter(n, p))
    query = median_ns(lambda _: filled.might_contain_all(queries), args.repeats)
    rows["sparkbloom (numpy int64)"] = (put / n, query / len(queries), filled.bit_size)
    blocked = sparkbloom.BloomFilter(n, p, strategy="BLOCKED")
    blocked.put_all(keys)
    put = median_ns(lambda f: f.put_all(keys), put_repeats,
                    lambda: sparkbloom.BloomFilter(n, p, strategy="BLOCKED"))
    query = median_ns(lambda _: blocked.might_contain_all(queries), args.repeats)
    rows["sparkbloom BLOCKED (numpy)"] = (put / n, query / len(queries), blocked.bit_size)
    del blocked
    put = median_ns(lambda f: f.put_all(key_list), put_repeats, lambda: sparkbloom.BloomFilter(n, p))
    query = median_ns(lambda _: filled.might_contain_all(query_list), args.repeats)
    rows["sparkbloom (list of int)"] = (put / n, query / len(queries), filled.bit_size)
    query = median_ns(lambda _: [k in filled for k in query_list], args.repeats)
    rows["sparkbloom `in` loop"] = (float("nan"), query / len(queries), filled.bit_size)
    # string ids (hashed as UTF-8, one packed batch), at most 10^6 of them: str objects are large
    strings = [f"item-{k}" for k in key_list[:1_000_000]]
    string_queries = [f"item-{k}" for k in query_list[:1_000_000]]
    put = median_ns(lambda f: f.put_all(strings), put_repeats, lambda: sparkbloom.BloomFilter(n, p))
    query = median_ns(lambda _: filled.might_contain_all(string_queries), args.repeats)
    rows["sparkbloom (list of str)"] = (put / len(strings), query / len(string_queries), filled.bit_size)
    # the same ids as new str objects each run, as a service parses them from each request:
    # rbloom's hash is Python's, which a str caches, so the first rows favour it
    put = median_ns(lambda s: s[0].put_all(s[1]), put_repeats,
                    lambda: (sparkbloom.BloomFilter(n, p), fresh(strings)))
    query = median_ns(filled.might_contain_all, args.repeats, lambda: fresh(string_queries))
    rows["sparkbloom (new str)"] = (put / len(strings), query / len(string_queries), filled.bit_size)

    for name, (new, put_keys, query_keys, bits) in others.items():
        if name in SLOW:  # one run over a slice: minutes per run otherwise at n = 10^7
            f = new(n, p)
            put = median_ns(lambda f: put_keys(f, key_list[:slow]), 1, lambda: new(n, p)) / slow
            put_keys(f, key_list[:slow])
            query = median_ns(lambda _: query_keys(f, query_list[:slow]), 1) / slow
        else:
            f = new(n, p)
            put_keys(f, key_list)
            put = median_ns(lambda g: put_keys(g, key_list), put_repeats, lambda: new(n, p)) / n
            query = median_ns(lambda _: query_keys(f, query_list), args.repeats) / len(queries)
        rows[name] = (put, query, bits(f))
        if name == "rbloom":  # its str keys (hashed by Python's hash of the str)
            put = median_ns(lambda g: g.update(strings), put_repeats, lambda: new(n, p)) / len(strings)
            query = median_ns(lambda _: [k in f for k in string_queries], args.repeats) / len(string_queries)
            rows["rbloom (str)"] = (put, query, bits(f))
            put = median_ns(lambda s: s[0].update(s[1]), put_repeats,
                            lambda: (new(n, p), fresh(strings))) / len(strings)
            query = median_ns(lambda keys: [k in f for k in keys], args.repeats,
                              lambda: fresh(string_queries)) / len(string_queries)
            rows["rbloom (new str)"] = (put, query, bits(f))
        del f
        gc.collect()
    return rows


def resident_child(name, n, p, count):
    """In a fresh process (no freed memory to reuse): the resident bytes each filter of (n, p),
    with n keys put, adds: the growth over the second half of `count` filters (at least one
    filter in each half), so that what the process holds once (the heap's free top, the first
    filters' scratch) is not counted."""
    keys = np.arange(n, dtype=np.int64)
    key_list = keys.tolist()

    def filled():
        if name == "sparkbloom":
            f = sparkbloom.BloomFilter(n, p)
            f.put_all(keys)
        else:
            import rbloom

            f = rbloom.Bloom(n, p)
            f.update(key_list)
        return f

    first_half = [filled() for _ in range(max(1, count // 2))]
    gc.collect()
    before = rss()
    second_half = [filled() for _ in range(max(1, count - count // 2))]
    print((rss() - before) / len(second_half))
    del first_half, second_half


def resident_per_filter(n, p, count, others):
    measured = {}
    for name in ["sparkbloom"] + (["rbloom"] if "rbloom" in others else []):
        child = subprocess.run([sys.executable, __file__, "--resident", name, str(n), str(p), str(count)],
                               check=True, capture_output=True, text=True)
        measured[name] = float(child.stdout)
    return measured


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--slow-keys", type=int, default=100_000,
                        help="keys timed for the pure-Python filters (pybloom-live, bitarray)")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one run: the script works")
    parser.add_argument("--resident", nargs=4, help=argparse.SUPPRESS)  # the memory child process
    args = parser.parse_args()
    if args.resident:
        name, n, p, count = args.resident
        resident_child(name, int(n), float(p), int(count))
        return
    cases = [(10_000, 0.001), (10_000_000, 0.01)]
    if args.smoke:
        args.queries, args.repeats, args.slow_keys = 2_000, 1, 1_000
        cases = [(1_000, 0.001), (20_000, 0.01)]

    print(f"CPU: {cpu()}; load average {load()} (1, 5, 15 min)")
    print(f"sparkbloom {sparkbloom.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}")
    others = libraries()
    for n, p in cases:
        rows = case(n, p, args, others)
        print(f"\n(n = {n:,}, p = {p}): put n keys, query {args.queries:,} keys (half present); "
              f"pybloom-live and bitarray over {min(args.slow_keys, n, args.queries):,} keys")
        print(f"{'':28s} {'put ns/key':>11s} {'query ns/key':>13s} {'bits':>12s}")
        for name, (put, query, bits) in rows.items():
            put_text = "-" if put != put else f"{put:.1f}"
            print(f"{name:28s} {put_text:>11s} {query:13.1f} {bits:12,}")
        ours_put, ours_query, _ = rows["sparkbloom (numpy int64)"]
        for name in others:
            if name == "rbloom map(__contains__)":
                continue
            put, query, _ = rows[name]
            if name == "rbloom":  # its fastest query of the two ways
                query = min(query, rows["rbloom map(__contains__)"][1])
            print(f"sparkbloom numpy vs {name}: put_all {put / ours_put:.1f}x, might_contain_all "
                  f"{query / ours_query:.1f}x faster per key")
            blocked_put, blocked_query, _ = rows["sparkbloom BLOCKED (numpy)"]
            print(f"  BLOCKED numpy vs {name}: put_all {put / blocked_put:.1f}x, might_contain_all "
                  f"{query / blocked_query:.1f}x faster per key")
            if name == "rbloom":
                (put, query, _), (ours_s_put, ours_s_query, _) = rows["rbloom (str)"], rows["sparkbloom (list of str)"]
                print(f"sparkbloom str list vs rbloom str: put_all {put / ours_s_put:.1f}x, "
                      f"might_contain_all {query / ours_s_query:.1f}x faster per key")
                (put, query, _), (ours_s_put, ours_s_query, _) = rows["rbloom (new str)"], rows["sparkbloom (new str)"]
                print(f"  the same as new str objects: put_all {put / ours_s_put:.1f}x, "
                      f"might_contain_all {query / ours_s_query:.1f}x faster per key")
    count = 100 if args.smoke else 4000
    for n, p, filters in [(cases[0][0], cases[0][1], count), (cases[1][0], cases[1][1], 2)]:
        measured = resident_per_filter(n, p, filters, others)
        text = ", ".join(f"{name} {size:,.0f} bytes" for name, size in measured.items())
        print(f"\nresident memory per filter of (n = {n:,}, p = {p}), the last {filters - filters // 2} "
              f"of {filters} filled: {text}")
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
