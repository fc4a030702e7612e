"""The native module (sparkbloom._native) against the core's known answers: the golden files of
tests/golden (written by the Rust core, read by the Rust and JVM suites too), round trips through
every byte format, Java's key semantics, errors, pickling and threads sharing a filter.

Run on the installed package: scripts/test-python-native.sh.
"""

import copy
import math
import pickle
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import sparkbloom
from sparkbloom import BloomFilter, CorruptFilterError, CountingBloomFilter

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden"


def manifest(name):
    lines = (GOLDEN / name).read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:] if line]


def keys_of(row):
    lines = (GOLDEN / row["keys"]).read_text(encoding="utf-8").splitlines()
    return [int(line) for line in lines] if row["key_type"] == "long" else lines


def decode(row, data):
    return BloomFilter.from_guava_bytes(data) if row["format"] == "guava" else BloomFilter.from_bytes(data)


def encode(row, f):
    return f.to_guava_bytes() if row["format"] == "guava" else f.to_bytes()


VALID = [r for r in manifest("manifest.tsv") if r["expect"] == "ok"]
CORRUPT = [r for r in manifest("manifest.tsv") if r["expect"] != "ok"]
COUNTING = [r for r in manifest("manifest_counting.tsv") if r["expect"] == "ok"]
COUNTING_CORRUPT = [r for r in manifest("manifest_counting.tsv") if r["expect"] != "ok"]


def test_the_golden_manifests_are_read():
    assert len(VALID) == 20 and len(CORRUPT) == 25
    assert len(COUNTING) == 6 and len(COUNTING_CORRUPT) == 11


@pytest.mark.parametrize("row", VALID, ids=lambda r: r["file"])
def test_golden_file_holds_its_keys_and_reencodes_byte_identically(row):
    data = (GOLDEN / row["file"]).read_bytes()
    f = decode(row, data)
    assert f.strategy == row["strategy"]
    keys = keys_of(row)
    assert all(key in f for key in keys)
    assert all(f.might_contain_all(keys))
    assert f.retain_absent(keys) == []
    assert encode(row, f) == data


@pytest.mark.parametrize("row", VALID, ids=lambda r: r["file"])
def test_putting_the_keys_builds_the_golden_file(row):
    data = (GOLDEN / row["file"]).read_bytes()
    n, fpp = int(row["n"]), float(row["fpp"])
    if row["sizing"] == "helper":  # the Redis helper's m is not Guava's: take the file's shape
        shape = decode(row, data)
        f = BloomFilter.with_shape(shape.bit_size, shape.num_hash_functions, row["strategy"])
    elif row["sizing"] == "guava":  # Guava's create(n, fpp), whatever the strategy
        guava = BloomFilter(n, fpp)
        f = BloomFilter.with_shape(guava.bit_size, guava.num_hash_functions, row["strategy"])
    else:
        f = BloomFilter(n, fpp, row["strategy"])
    keys = keys_of(row)
    if row["key_type"] == "long":
        f.put_all(np.array(keys, dtype=np.int64))
    else:
        f.put_all(keys)
    assert encode(row, f) == data
    one_by_one = BloomFilter.with_shape(f.bit_size, f.num_hash_functions, f.strategy)
    for key in keys:
        one_by_one.put(key)
    assert one_by_one == f


@pytest.mark.parametrize("row", CORRUPT, ids=lambda r: r["file"])
def test_corrupt_golden_file_raises_naming_the_field(row):
    data = (GOLDEN / row["file"]).read_bytes()
    with pytest.raises(CorruptFilterError) as raised:
        decode(row, data)
    assert f": {row['expect']}:" in str(raised.value)
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize("row", COUNTING, ids=lambda r: r["file"])
def test_counting_golden_file_holds_its_keys_and_reencodes(row):
    data = (GOLDEN / row["file"]).read_bytes()
    f = CountingBloomFilter.from_bytes(data)
    keys = keys_of(row)
    assert all(f.count(key) >= 1 for key in keys)
    assert all(f.might_contain_all(keys))
    assert f.to_bytes() == data
    if row["sizing"] == "guava":
        built = CountingBloomFilter(int(row["n"]), float(row["fpp"]), row["strategy"])
        built.add_all(keys)
        assert built.to_bytes() == data


@pytest.mark.parametrize("row", COUNTING_CORRUPT, ids=lambda r: r["file"])
def test_corrupt_counting_file_raises_naming_the_field(row):
    with pytest.raises(CorruptFilterError) as raised:
        CountingBloomFilter.from_bytes((GOLDEN / row["file"]).read_bytes())
    assert f": {row['expect']}:" in str(raised.value)


def test_the_cores_documented_answers():
    # rust/src/lib.rs's example: 3 keys x k = 10 positions, two shared; 87 sparse bytes
    f = BloomFilter(10_000, 0.001)
    assert (f.bit_size, f.num_hash_functions, f.strategy) == (143_808, 10, "MURMUR128_MITZ_64")
    assert f.put_all([17, 42, 99]) is True
    assert f.bits_set() == 29
    assert len(f.to_bytes()) == 87
    assert len(f.to_guava_bytes()) == 17_982
    assert f.retain_absent([42, 7, 99, 8]) == [7, 8]
    assert f.approximate_element_count() == 3
    assert f.expected_fpp() == pytest.approx((29 / 143_808) ** 10)


def test_strategies_and_their_sizing():
    assert sparkbloom.STRATEGIES == ["MURMUR128_MITZ_32", "MURMUR128_MITZ_64", "SPARK_SKETCH_V1",
                                     "SPARK_SKETCH_V2", "BLOCKED"]
    blocked = BloomFilter(10_000, 0.01, strategy="BLOCKED")
    assert blocked.strategy == "BLOCKED" and blocked.bit_size % 512 == 0
    # ClickHouse-free Guava sizing for 1000 at 1 %: m = 9,600, k = 7 (rust/src/filter/mod.rs)
    assert (BloomFilter(1_000, 0.01).bit_size, BloomFilter(1_000, 0.01).num_hash_functions) == (9_600, 7)


def test_int_keys_are_javas_longs():
    f = BloomFilter(100, 0.01)
    f.put(-1)
    assert np.int64(-1) in f and f.might_contain(np.int64(-1))
    assert f.might_contain_all(np.array([-1], dtype=np.int64)).tolist() == [True]
    for edge in (-(2**63), 2**63 - 1):
        f.put(edge)
        assert edge in f
    for outside in (2**63, -(2**63) - 1, 2**64):
        with pytest.raises(ValueError, match=str(outside)):
            f.put(outside)
        with pytest.raises(ValueError, match=str(outside)):
            f.put_all([1, outside])


def test_str_is_hashed_as_its_utf8_bytes():
    f = BloomFilter(100, 0.01)
    f.put("h\u00e9llo \U0001F600")
    assert "h\u00e9llo \U0001F600".encode("utf-8") in f
    f.put(b"\x00\xff")
    assert bytearray(b"\x00\xff") in f
    assert f.retain_absent(["h\u00e9llo \U0001F600", b"\x00\xff", 7]) in ([7], [])


@pytest.mark.parametrize("strategy", sparkbloom.STRATEGIES)
def test_text_batches_answer_as_one_key_at_a_time(strategy):
    # all-str / all-bytes batches take the packed byte batch path; mixed ones go key by key
    words = [""] + [f"w{i}-\u00e9\U0001F600" + "x" * (i % 5) for i in range(1, 20_000)]
    raw = [w.encode("utf-8") for w in words]
    batch = BloomFilter(10_000, 0.01, strategy)
    assert batch.put_all(words[::2]) is True
    one_by_one = BloomFilter(10_000, 0.01, strategy)
    for word in words[::2]:
        one_by_one.put(word)
    assert batch == one_by_one
    assert batch.put_all(raw[::2]) is False  # the same keys as bytes: nothing new
    expected = [batch.might_contain(w) for w in words]
    assert batch.might_contain_all(words).tolist() == expected
    assert batch.might_contain_all(raw).tolist() == expected
    assert batch.might_contain_all(words[:10] + [7] + raw[10:]).tolist()[:10] == expected[:10]
    assert all(expected[::2]) and sum(expected[1::2]) < 300  # 10,000 absent keys at about 1 %
    kept = batch.retain_absent(words)
    assert kept == [w for w, e in zip(words, expected) if not e] and all(type(k) is str for k in kept)
    with pytest.raises(ValueError, match=r"keys\[1\]: key '\\ud800' has no UTF-8 form"):
        batch.might_contain_all(["ok", "\ud800"])  # a lone surrogate has no UTF-8


def test_might_contain_all_answers_a_bool_array_in_order():
    f = BloomFilter(1_000, 0.001)
    f.put_all(np.arange(0, 1_000, 2, dtype=np.int64))
    answers = f.might_contain_all(np.arange(1_000, dtype=np.int64))
    assert isinstance(answers, np.ndarray) and answers.dtype == np.bool_
    assert answers[::2].all()
    assert answers[1::2].sum() <= 10  # 500 absent keys at 0.1 %: mean 0.5
    strided = np.arange(1_000, dtype=np.int64)[::2]  # not contiguous: converted, same answers
    assert f.might_contain_all(strided).all()
    assert f.might_contain_all([]).tolist() == []


def test_retain_absent_keeps_the_callers_types():
    f = BloomFilter(1_000, 0.001)
    f.put_all([1, 2, 3])
    kept = f.retain_absent(np.array([3, 4, 1, 5], dtype=np.int64))
    assert isinstance(kept, np.ndarray) and kept.dtype == np.int64 and kept.tolist() == [4, 5]
    assert f.retain_absent([3, 4, 1, 5]) == [4, 5]
    assert f.retain_absent(x for x in [5, 1]) == [5]
    f.put("seen")
    assert f.retain_absent(["seen", "new", 2]) == ["new"]


def test_bad_arguments_raise_naming_them():
    cases = [
        ((0, 0.01), ValueError, "expected_insertions"),
        ((-5, 0.01), ValueError, "expected_insertions"),
        ((True, 0.01), TypeError, "expected_insertions"),
        (("10", 0.01), TypeError, "expected_insertions"),
        ((10, 0.0), ValueError, "fpp"),
        ((10, 1.0), ValueError, "fpp"),
        ((10, float("nan")), ValueError, "fpp"),
        ((10, "0.1"), TypeError, "fpp"),
        ((10, 0.01, "NOPE"), ValueError, "strategy"),
        ((10**12, 1e-9), ValueError, "bits"),  # more than 2^43 bits
        ((2**63, 0.01), ValueError, "expected_insertions"),
    ]
    for args, error, needle in cases:
        with pytest.raises(error, match=needle):
            BloomFilter(*args)
        with pytest.raises(error, match=needle):
            CountingBloomFilter(*args)
    f = BloomFilter(10, 0.01)
    for key, error in ((1.5, TypeError), (True, TypeError), (None, TypeError), ([1], TypeError)):
        with pytest.raises(error, match="key"):
            f.put(key)
        with pytest.raises(error, match="key"):
            f.might_contain(key)
    with pytest.raises(TypeError, match="keys"):
        f.put_all("abc")
    with pytest.raises(TypeError, match="keys"):
        f.might_contain_all(5)
    with pytest.raises(TypeError):
        BloomFilter.from_bytes("not bytes")
    with pytest.raises(ValueError, match="num_hashes"):
        BloomFilter.with_shape(64, 0)
    with pytest.raises(ValueError, match="num_hashes"):
        BloomFilter.with_shape(64, 256)


def test_counting_filters_refuse_the_strategies_they_lack():
    with pytest.raises(ValueError, match="BLOCKED"):
        CountingBloomFilter(100, 0.01, "BLOCKED")


def test_truncated_and_empty_bytes_are_corrupt_not_a_crash():
    data = BloomFilter(100, 0.03).to_bytes()
    for cut in range(len(data)):
        with pytest.raises(CorruptFilterError):
            BloomFilter.from_bytes(data[:cut])
    for decoder in (BloomFilter.from_guava_bytes, BloomFilter.from_spark_bytes, CountingBloomFilter.from_bytes):
        with pytest.raises(CorruptFilterError):
            decoder(b"")


def test_round_trips_through_every_format():
    keys = np.arange(-500, 500, dtype=np.int64)
    for strategy in sparkbloom.STRATEGIES:
        f = BloomFilter(1_000, 0.01, strategy)
        f.put_all(keys)
        assert BloomFilter.from_bytes(f.to_bytes()) == f
        assert f.might_contain_all(keys).all()
    mitz = BloomFilter(1_000, 0.01, "MURMUR128_MITZ_32")
    mitz.put_all(keys)
    assert BloomFilter.from_guava_bytes(mitz.to_guava_bytes()) == mitz
    back = BloomFilter.from_redis_bitmap(mitz.to_redis_bitmap(), mitz.bit_size, mitz.num_hash_functions)
    assert back == mitz
    for strategy in ("SPARK_SKETCH_V1", "SPARK_SKETCH_V2"):
        spark = BloomFilter(1_000, 0.01, strategy)
        spark.put_all(keys)
        assert BloomFilter.from_spark_bytes(spark.to_spark_bytes()) == spark
    blocked = BloomFilter(1_000, 0.01, "BLOCKED")
    for refused in (blocked.to_guava_bytes, blocked.to_redis_bitmap, blocked.to_spark_bytes):
        with pytest.raises(ValueError):
            refused()


def test_pickling_and_copies_are_equal_and_independent():
    f = BloomFilter(1_000, 0.01)
    f.put_all(range(100))
    for clone in (pickle.loads(pickle.dumps(f)), f.copy(), copy.copy(f), copy.deepcopy(f)):
        assert type(clone) is sparkbloom.BloomFilter and clone == f
        clone.put(10**6)
        assert 10**6 not in f or f.bits_set() == clone.bits_set()
    c = CountingBloomFilter(1_000, 0.01)
    c.add_all([1, 1, 2])
    back = pickle.loads(pickle.dumps(c))
    assert back.to_bytes() == c.to_bytes() and back.count(1) == 2
    with pytest.raises(TypeError):
        hash(f)


def test_getsizeof_counts_the_array():
    # (10^4, 10^-3) takes Guava's 143,808 bits: 2,247 words; a counting filter 4 bits each.
    f = BloomFilter(10_000, 0.001)
    assert f.__sizeof__() == type(f).__basicsize__ + 2_247 * 8
    assert sys.getsizeof(f) >= f.__sizeof__()
    c = CountingBloomFilter(10_000, 0.001)
    assert c.__sizeof__() == type(c).__basicsize__ + 143_808 * 4 // 8


def test_merge_and_intersect():
    a, b = BloomFilter(1_000, 0.001), BloomFilter(1_000, 0.001)
    a.put_all(range(0, 200))
    b.put_all(range(100, 300))
    union = a.copy()
    union.merge(b)
    assert union.might_contain_all(range(300)).all()
    both = a.copy()
    both.intersect(b)
    assert both.might_contain_all(range(100, 200)).all()
    assert both.bits_set() <= min(a.bits_set(), b.bits_set())
    with pytest.raises(ValueError, match="incompatible"):
        a.merge(BloomFilter(2_000, 0.001))
    assert not a.is_compatible(BloomFilter(1_000, 0.001, "BLOCKED"))


def test_counting_add_remove_count():
    c = CountingBloomFilter(1_000, 0.01)
    assert c.add(7) and c.add("seven") and c.add(7)
    assert c.count(7) == 2 and c.count("seven") == 1
    assert c.remove(7) and c.count(7) == 1
    assert c.remove_all([7, "seven"]) == 2
    assert 7 not in c and "seven" not in c
    c.add_all(np.arange(100, dtype=np.int64))
    plain = BloomFilter(1_000, 0.01)
    plain.put_all(range(100))
    assert c.to_bloom_filter() == plain  # no counter saturated: the same bits
    assert c.might_contain_all(np.arange(100, dtype=np.int64)).all()
    assert c.retain_absent([1, 10**9]) in ([10**9], [])
    assert c.remove_all(np.arange(100, dtype=np.int64)) == 100


def test_threads_sharing_a_filter_lose_no_key():
    f = BloomFilter(400_000, 0.01)
    chunks = [np.arange(i * 100_000, (i + 1) * 100_000, dtype=np.int64) * 7919 for i in range(4)]
    barrier = threading.Barrier(len(chunks))
    errors = []

    def fill(chunk):
        try:
            barrier.wait()
            for part in np.array_split(chunk, 20):
                f.put_all(part)
        except Exception as e:  # reported below: an exception in a thread would pass silently
            errors.append(e)

    threads = [threading.Thread(target=fill, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for chunk in chunks:
        assert f.might_contain_all(chunk).all()
    # 400,000 keys in a filter sized for them at 1 %: the estimate is within a few percent
    assert math.isclose(f.approximate_element_count(), 400_000, rel_tol=0.05)


NO_NUMPY = r"""
import sys

class NoNumpy:
    # makes numpy unimportable, as after `pip install --no-deps`
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "numpy":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoNumpy())
import sparkbloom
f = sparkbloom.BloomFilter(100, 0.01)
f.put_all([1, 2, "three"])
print(f.might_contain_all([1, 2, "three"]), f.retain_absent([2, 7]), 3 in f)
"""


def test_without_numpy_batches_answer_lists():
    import subprocess
    import sys
    import tempfile

    # run outside the repository, so that the installed package is the one imported
    child = subprocess.run([sys.executable, "-c", NO_NUMPY], capture_output=True, text=True, timeout=120,
                           cwd=tempfile.gettempdir())
    assert child.returncode == 0, child.stderr
    assert child.stdout.split() == ["[True,", "True,", "True]", "[7]", "False"]


def set_bits(redis_bitmap):
    """Bit positions of a Redis bitmap (bit b: byte b >> 3, mask 0x80 >> (b & 7))."""
    return {i * 8 + j for i, byte in enumerate(redis_bitmap) for j in range(8) if byte & (0x80 >> j)}


@pytest.mark.parametrize("strategy, bits", [
    # put(1) / putLong(1) into create(100, 0.03) (m = 768, k = 5): Guava 31's bits, and Spark's
    # V1 (checked on the 3.5.9 jar) and V2 (checked on 4.1.3): the core's unit tests' answers
    ("MURMUR128_MITZ_64", {330, 592, 86, 604, 98}),
    ("SPARK_SKETCH_V1", {673, 257, 603, 440, 490}),
    ("SPARK_SKETCH_V2", {25, 630, 467, 304, 141}),
])
def test_put_1_sets_the_bits_guava_and_spark_set(strategy, bits):
    f = BloomFilter.with_shape(768, 5, strategy)
    f.put(1)
    assert set_bits(f.to_redis_bitmap()) == bits


def test_a_filter_beyond_the_memory_limit_is_a_memory_error_before_allocating():
    # 2^43 bits (1 TiB) is the largest shape, beyond this machine's memory: refused, not attempted
    with pytest.raises(MemoryError, match="bit array"):
        BloomFilter.with_shape(2**43, 1)
    with pytest.raises(ValueError, match="num_bits"):
        BloomFilter.with_shape(2**43 + 64, 1)
