"""The Python half of scripts/test-python-interop.sh: a process with no JVM (no pyspark, no py4j,
no Java started) reads what real Java wrote and answers as the Java originals did.

    check_without_jvm.py streams DIR        Guava 33 and Spark sketch V1/V2 streams (JavaFilters streams)
    check_without_jvm.py redis PORT DIR     bitmaps in a redis-server set by sparkbloom-redis (JavaFilters redis)
    check_without_jvm.py parquet DIR        the Parquet tables of spark_job.py

Each check prints what it compared and how many answers differ, and the process exits 1 when
any differs (or a count is not what the writer wrote), so the suite fails.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np

from sparkbloom import BloomFilter, RedisLayout

failures = []


def check(label, compared, mismatches):
    """Records one comparison: `compared` items, `mismatches` of them differing."""
    print(f"{label}: {compared:,} compared, {mismatches:,} mismatches")
    if mismatches or not compared:
        failures.append(label)


def answers_file(path):
    return np.fromfile(path, dtype=np.uint8).astype(bool)


def meta(path):
    """meta.tsv: name, then key=value fields."""
    rows = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        name, *fields = line.split("\t")
        rows[name] = dict(field.split("=", 1) for field in fields)
    return rows


def string_probes(keys, per_half):
    """The string keys JavaFilters probes with: "k" + key + "é€😀", per_half of each half."""
    half = len(keys) // 2
    chosen = list(keys[:per_half]) + list(keys[half:half + per_half])
    return [f"k{key}é€😀" for key in chosen]


def streams(out):
    keys = np.fromfile(out / "keys.i64", dtype="<i8")
    half = len(keys) // 2
    facts = meta(out / "meta.tsv")
    print(f"Java: {facts['guava']['jar']}, {facts['spark-default']['jar']} "
          f"(its create(n, p) writes version {facts['spark-default']['version']})")
    readers = {
        "guava": (BloomFilter.from_guava_bytes, BloomFilter.to_guava_bytes, "MURMUR128_MITZ_64"),
        "spark-v1": (BloomFilter.from_spark_bytes, BloomFilter.to_spark_bytes, "SPARK_SKETCH_V1"),
        "spark-v2": (BloomFilter.from_spark_bytes, BloomFilter.to_spark_bytes, "SPARK_SKETCH_V2"),
    }
    strings = string_probes(keys, 100_000)
    for name, (read, write, strategy) in readers.items():
        data = (out / f"{name}.bin").read_bytes()
        f = read(data)
        check(f"{name}: strategy {f.strategy}, m = {f.bit_size:,}, k = {f.num_hash_functions}",
              1, int(f.strategy != strategy))
        # the bits: written back, the stream is byte for byte Java's; and the same keys put
        # in Python into an empty filter of that shape set exactly those bits
        check(f"{name}: stream bytes written back", len(data), int(write(f) != data))
        built = BloomFilter.with_shape(f.bit_size, f.num_hash_functions, f.strategy)
        built.put_all(keys[:half])
        differing = np.unpackbits(np.frombuffer(write(built), np.uint8) ^ np.frombuffer(data, np.uint8))
        check(f"{name}: bits of the same {half:,} keys put in Python", f.bit_size, int(differing.sum()))
        java = answers_file(out / f"{name}.answers")
        ours = f.might_contain_all(keys)
        check(f"{name}: answers on {half:,} present + {len(keys) - half:,} absent keys",
              len(keys), int(np.count_nonzero(ours != java)))
        print(f"  (false positives among the absent keys: Java {np.count_nonzero(java[half:]):,}, "
              f"Python {np.count_nonzero(ours[half:]):,})")
        check(f"{name}: no false negatives", half, int(np.count_nonzero(~ours[:half])))

        data = (out / f"{name}-strings.bin").read_bytes()
        fs = read(data)
        check(f"{name}-strings: stream bytes written back", len(data), int(write(fs) != data))
        java = answers_file(out / f"{name}-strings.str.answers")
        ours = fs.might_contain_all(strings)
        check(f"{name}-strings: answers on {len(strings):,} UTF-8 string keys",
              len(strings), int(np.count_nonzero(ours != java)))


def redis_check(port, out):
    import redis  # redis-py, as services read the bitmaps

    client = redis.Redis(host="127.0.0.1", port=port)
    probes = np.fromfile(out / "probes.i64", dtype="<i8")
    strings = [f"k{key}é€😀" for key in list(probes[:1_000]) + list(probes[20_000:21_000])]
    users = answers = mismatches = bitmap_mismatches = 0
    for key, fields in meta(out / "meta.tsv").items():
        bitmap = client.get(key)
        if bitmap is None:
            failures.append(f"redis: {key} missing")
            continue
        m, k = int(fields["numBits"]), int(fields["numHashFunctions"])
        f = BloomFilter.from_redis_bitmap(bitmap, m, k, fields["strategy"])
        # the same keys put in Python into an empty filter of the layout: the same bits
        built = BloomFilter.with_shape(m, k, fields["strategy"])
        built.put_all(probes[:int(fields["items"])])
        built.put_all(strings[:int(fields["strings"])])
        bitmap_mismatches += int(built != f)
        java = answers_file(out / f"{fields['file']}.answers")
        java_strings = answers_file(out / f"{fields['file']}.str.answers")
        ours = f.might_contain_all(probes)
        ours_strings = f.might_contain_all(strings)
        mismatches += int(np.count_nonzero(ours != java)) + int(np.count_nonzero(ours_strings != java_strings))
        # retain_absent over the candidates is the service's call: Java's bulk retainAbsent
        mismatches += int(not np.array_equal(f.retain_absent(probes), probes[~java]))
        answers += len(probes) + len(strings)
        users += 1
    redis_getbit(client, out, probes, strings)
    check(f"redis: {users} bitmaps (50 users x 2 layouts, GET via redis-py) rebuilt from their keys in Python",
          users,
          bitmap_mismatches)
    check(f"redis: answers of {users} bitmaps on {len(probes):,} long + {len(strings):,} string keys each",
          answers, mismatches)


def getbits(client, key, offsets, chunk=2_000):
    """GETBIT key offset for every offset of every row (pipelined, as a service asks), as a
    bool array of the rows' shape."""
    flat = offsets.reshape(-1).tolist()
    bits = []
    step = chunk * offsets.shape[1]
    for start in range(0, len(flat), step):
        pipe = client.pipeline(transaction=False)
        for offset in flat[start:start + step]:
            pipe.getbit(key, offset)
        bits.extend(pipe.execute())
    return np.array(bits, dtype=bool).reshape(offsets.shape)


def redis_getbit(client, out, probes, strings):
    """RedisLayout's offsets: equal to the Java module's for every probe, and asked with real
    GETBITs of the fullest user's bitmap of each layout, they answer as from_redis_bitmap and as
    the Java client did."""
    rows = meta(out / "meta.tsv")
    for name in ("helper", "guava"):
        users = [(key, fields) for key, fields in rows.items() if fields["layout"] == name]
        fields = users[0][1]
        layout = RedisLayout(int(fields["numBits"]), int(fields["numHashFunctions"]), fields["strategy"])
        java = np.fromfile(out / f"{name}.offsets.i64", dtype="<i8").astype(np.uint64)
        ours = np.concatenate([layout.offsets_all(probes), layout.offsets_all(strings)]).reshape(-1)
        one_by_one = [o for key in list(probes[:500]) + strings[:500] for o in layout.offsets(key)]
        java_one_by_one = np.concatenate([java[:500 * layout.num_hash_functions],
                                          java[len(probes) * layout.num_hash_functions:][:500 * layout.num_hash_functions]])
        check(f"redis: {layout} offsets of {len(probes):,} long + {len(strings):,} string keys "
              f"vs the Java module's RedisLayout.offsets", len(java),
              int(len(ours) != len(java)) or int(np.count_nonzero(ours != java))
              + int(one_by_one != java_one_by_one.tolist()))
        key, fields = max(users, key=lambda user: int(user[1]["items"]))
        f = BloomFilter.from_redis_bitmap(client.get(key), layout.bit_size, layout.num_hash_functions,
                                          layout.strategy)
        for label, batch in (("long", probes), ("string", strings)):
            by_getbit = getbits(client, key, layout.offsets_all(batch)).all(axis=1)
            suffix = ".answers" if label == "long" else ".str.answers"
            java_answers = answers_file(out / f"{fields['file']}{suffix}")
            present = int(fields["items"]) if label == "long" else int(fields["strings"])
            check(f"redis: {key}, GETBIT of the offsets of {len(batch):,} {label} keys ({present:,} put) "
                  f"vs from_redis_bitmap's might_contain", len(batch),
                  int(np.count_nonzero(by_getbit != f.might_contain_all(batch))))
            check(f"redis: {key}, the same vs the Java client's answers "
                  f"(positives: {int(by_getbit.sum()):,})", len(batch),
                  int(np.count_nonzero(by_getbit != java_answers)))


def parquet(out):
    import pyarrow.parquet as pq

    filters = {}
    for table in ("filters", "string_filters"):
        rows = pq.read_table(out / table).to_pylist()
        filters[table] = {row["user"]: BloomFilter.from_bytes(row["filter"]) for row in rows}
        print(f"{table}: {len(rows):,} users' filters read with pyarrow ({sum(len(r['filter']) for r in rows):,} bytes)")
    # no false negatives: every history item is in its user's filter
    history = pq.read_table(out / "history").to_pydict()
    missing = 0
    by_user = {}
    for user, item in zip(history["user"], history["item"]):
        by_user.setdefault(user, []).append(item)
    for user, items in by_user.items():
        f = filters["filters"][user]
        missing += int(np.count_nonzero(~f.might_contain_all(np.array(items, dtype=np.int64))))
        s = filters["string_filters"][user]
        missing += int(np.count_nonzero(~s.might_contain_all([f"i{item}" for item in items])))
    check(f"parquet: {len(history['item']):,} history items (as longs and as strings) in their users' filters",
          2 * len(history["item"]), missing)
    # Spark's sparkbloom_retain_absent per user, against retain_absent here
    rows = pq.read_table(out / "answers").to_pylist()
    users = candidates = kept = mismatches = differing = without_filter = 0
    for row in rows:
        items = np.array(row["items"], dtype=np.int64)
        strings = row["string_items"]
        f = filters["filters"].get(row["user"])
        s = filters["string_filters"].get(row["user"])
        if f is None:  # no history: Spark keeps every candidate, so does a service
            without_filter += 1
            ours, ours_strings = items.tolist(), strings
        else:
            ours, ours_strings = f.retain_absent(items).tolist(), s.retain_absent(strings)
        mismatches += int(ours != row["kept"] or ours_strings != row["kept_strings"])
        differing += len(set(ours) ^ set(row["kept"])) + len(set(ours_strings) ^ set(row["kept_strings"]))
        users += 1
        candidates += len(items) + len(strings)
        kept += len(row["kept"]) + len(row["kept_strings"])
    check(f"parquet: retain_absent per user vs Spark's sparkbloom_retain_absent, users ({without_filter} "
          f"without a filter)", users, mismatches)
    check(f"parquet: candidates (longs and strings; Spark kept {kept:,})", candidates, differing)


def main():
    # the point of this process: no JVM anywhere
    for module in ("pyspark", "py4j"):
        if importlib.util.find_spec(module) is not None:
            sys.exit(f"{module} is importable here: this check must run without a JVM")
    mode = sys.argv[1]
    if mode == "streams":
        streams(Path(sys.argv[2]))
    elif mode == "redis":
        redis_check(int(sys.argv[2]), Path(sys.argv[3]))
    elif mode == "parquet":
        parquet(Path(sys.argv[2]))
    else:
        sys.exit(f"unknown mode {mode!r}")
    if failures:
        sys.exit("FAILED: " + "; ".join(failures))


if __name__ == "__main__":
    main()
