"""RedisLayout: the GETBIT offsets of keys in a Redis bitmap (the layout from_redis_bitmap reads),
held to the bitmaps the core writes. The same offsets against a real redis-server and the Java
module's own are in the interop suite (scripts/test-python-interop.sh). Also the examples in the
class docstrings (RedisLayout, BloomFilter, CountingBloomFilter), in the module and in the stub.

Run on the installed package: scripts/test-python-native.sh.
"""

import ast
import doctest
import pickle
from pathlib import Path

import numpy as np
import pytest

import sparkbloom
from sparkbloom import BloomFilter, RedisLayout

STUB = Path(__file__).resolve().parents[1] / "sparkbloom" / "_native.pyi"
CLASSIC = ["MURMUR128_MITZ_32", "MURMUR128_MITZ_64", "SPARK_SKETCH_V1", "SPARK_SKETCH_V2"]


def getbit(bitmap, offset):
    """Redis's GETBIT on a value: byte offset >> 3, mask 0x80 >> (offset & 7), 0 past the end."""
    byte = offset >> 3
    return int(byte < len(bitmap) and bitmap[byte] & (0x80 >> (offset & 7)) != 0)


def set_offsets(bitmap):
    """The offsets GETBIT answers 1 for."""
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8))  # big-endian within bytes, as Redis
    return set(np.flatnonzero(bits).tolist())


def run_doctest(text, name):
    test = doctest.DocTestParser().get_doctest(text, {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    return runner.summarize(verbose=False)


# The classes whose docstrings hold an example, and how many statements each example runs at least.
EXAMPLES = {"RedisLayout": 10, "BloomFilter": 7, "CountingBloomFilter": 6}


@pytest.mark.parametrize("name,statements", EXAMPLES.items())
def test_the_class_docstring_example_runs(name, statements):
    result = run_doctest(getattr(sparkbloom, name).__doc__, name)
    assert result.attempted >= statements and result.failed == 0


@pytest.mark.parametrize("name,statements", EXAMPLES.items())
def test_the_stub_docstring_example_runs(name, statements):
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    (cls,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name]
    result = run_doctest(ast.get_docstring(cls), f"_native.pyi {name}")
    assert result.attempted >= statements and result.failed == 0


@pytest.mark.parametrize("strategy", CLASSIC)
@pytest.mark.parametrize("num_bits,num_hashes", [(1, 3), (9, 2), (64, 5), (143_775, 10), (143_808, 7)])
def test_offsets_are_the_set_bits_of_a_filter_holding_only_that_key(strategy, num_bits, num_hashes):
    layout = RedisLayout(num_bits, num_hashes, strategy)
    rng = np.random.default_rng(num_bits * 31 + num_hashes)
    keys = [int(k) for k in rng.integers(-2**63, 2**63 - 1, size=40, dtype=np.int64)]
    keys += [np.int64(7), -1, 0, 2**63 - 1, -2**63, "", "user-42", "é€😀", b"\x00\xff", bytearray(b"ab")]
    for key in keys:
        offsets = layout.offsets(key)
        assert len(offsets) == num_hashes and all(isinstance(o, int) for o in offsets)
        f = BloomFilter.with_shape(num_bits, num_hashes, strategy)
        f.put(key)
        bitmap = f.to_redis_bitmap()
        assert set(offsets) == set_offsets(bitmap), key
        # the filter read back from that bitmap agrees
        assert BloomFilter.from_redis_bitmap(bitmap, num_bits, num_hashes, strategy).might_contain(key)


@pytest.mark.parametrize("layout", [
    RedisLayout.helper_compatible(10_000, 0.001),
    RedisLayout.guava_compatible(1_000, 0.01),
    RedisLayout.guava_compatible(1_000, 0.01, "SPARK_SKETCH_V2"),
    RedisLayout(9, 2, "MURMUR128_MITZ_64"),
], ids=repr)
def test_from_redis_bitmap_reads_a_bitmap_in_a_layout(layout):
    """from_redis_bitmap(bitmap, layout): the shape and strategy are the layout's, and the filter
    is the one the explicit (num_bits, num_hashes, strategy) form reads."""
    f = BloomFilter.with_shape(layout.bit_size, layout.num_hash_functions, layout.strategy)
    f.put_all([7, -1, "user-42", b"\x00\xff"])
    bitmap = f.to_redis_bitmap()
    explicit = BloomFilter.from_redis_bitmap(bitmap, layout.bit_size, layout.num_hash_functions, layout.strategy)
    by_keyword = BloomFilter.from_redis_bitmap(bitmap=bitmap, num_bits=layout.bit_size,
                                               num_hashes=layout.num_hash_functions, strategy=layout.strategy)
    for read in (BloomFilter.from_redis_bitmap(bitmap, layout), BloomFilter.from_redis_bitmap(bitmap, layout=layout)):
        assert read == f == explicit == by_keyword
        assert (read.bit_size, read.num_hash_functions, read.strategy) == (
            layout.bit_size, layout.num_hash_functions, layout.strategy)
        assert read.might_contain_all([7, -1, "user-42", b"\x00\xff"]).all()
    # a value shorter than the layout's reads too (SETBIT grows a key only up to the highest bit set)
    short = BloomFilter.from_redis_bitmap(bitmap.rstrip(b"\0"), layout)
    assert short == f


def test_getbit_over_the_offsets_answers_as_from_redis_bitmap():
    layout = RedisLayout.helper_compatible(10_000, 0.001)
    rng = np.random.default_rng(11)
    present = rng.integers(-2**63, 2**63 - 1, size=10_000, dtype=np.int64)
    absent = rng.integers(-2**63, 2**63 - 1, size=10_000, dtype=np.int64)
    f = BloomFilter.with_shape(layout.bit_size, layout.num_hash_functions, layout.strategy)
    f.put_all(present)
    f.put_all([f"s{i}" for i in range(2_000)])
    bitmap = f.to_redis_bitmap()
    read = BloomFilter.from_redis_bitmap(bitmap, layout.bit_size, layout.num_hash_functions)
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8))
    probes = np.concatenate([present, absent])
    by_getbit = bits[layout.offsets_all(probes)].all(axis=1)
    expected = read.might_contain_all(probes)
    assert np.array_equal(by_getbit, expected)
    assert by_getbit[:10_000].all()
    false_positives = int(by_getbit[10_000:].sum())
    assert 0 < false_positives < 100  # about 1 % at twice the design load
    strings = [f"s{i}" for i in range(4_000)]
    assert [all(getbit(bitmap, o) for o in layout.offsets(s)) for s in strings] == read.might_contain_all(strings).tolist()


def test_offsets_all_is_offsets_row_by_row():
    layout = RedisLayout.guava_compatible(1_000, 0.01)
    keys = np.arange(-500, 500, dtype=np.int64) * 7_919
    table = layout.offsets_all(keys)
    assert table.dtype == np.uint64 and table.shape == (1_000, layout.num_hash_functions)
    assert table.tolist() == [layout.offsets(int(k)) for k in keys]
    # a strided array, a list of ints and a mixed list give the same rows
    assert np.array_equal(layout.offsets_all(keys[::2]), table[::2])
    assert np.array_equal(layout.offsets_all(keys.tolist()), table)
    mixed = [3, "three", b"three"]
    assert layout.offsets_all(mixed).tolist() == [layout.offsets(k) for k in mixed]
    assert layout.offsets_all(np.array([], dtype=np.int64)).shape == (0, layout.num_hash_functions)
    assert layout.offsets_all([]).shape == (0, layout.num_hash_functions)


def test_layouts_mirror_the_java_module():
    helper = RedisLayout.helper_compatible(10_000, 0.001)
    assert (helper.bit_size, helper.num_hash_functions, helper.strategy) == (143_775, 10, "MURMUR128_MITZ_32")
    assert helper.bitmap_bytes == 17_972
    assert helper == RedisLayout(143_775, 10) and hash(helper) == hash(RedisLayout(143_775, 10))
    assert helper != RedisLayout(143_775, 10, "MURMUR128_MITZ_64")
    guava = RedisLayout.guava_compatible(10_000, 0.001)
    shaped = BloomFilter(10_000, 0.001)
    assert (guava.bit_size, guava.num_hash_functions, guava.strategy) == (
        shaped.bit_size, shaped.num_hash_functions, shaped.strategy)
    assert RedisLayout.guava_compatible(500_000, 0.01, "MURMUR128_MITZ_32").num_hash_functions == 6
    assert pickle.loads(pickle.dumps(helper)) == helper
    assert repr(helper) == 'RedisLayout(bit_size=143775, num_hash_functions=10, strategy="MURMUR128_MITZ_32")'


def test_offsets_stay_within_the_largest_redis_string():
    layout = RedisLayout(2**32, 7, "MURMUR128_MITZ_64")
    table = layout.offsets_all(np.arange(10_000, dtype=np.int64))
    assert int(table.max()) < 2**32 and int(table.max()) >= 2**31
    assert RedisLayout(1, 4).offsets("anything") == [0, 0, 0, 0]


@pytest.mark.parametrize("call,error,name", [
    (lambda: RedisLayout(0, 3), ValueError, "num_bits"),
    (lambda: RedisLayout(2**32 + 1, 3), ValueError, "num_bits"),
    (lambda: RedisLayout("64", 3), TypeError, "num_bits"),
    (lambda: RedisLayout(64, 0), ValueError, "num_hashes"),
    (lambda: RedisLayout(64, 256), ValueError, "num_hashes"),
    (lambda: RedisLayout(64, 3.0), TypeError, "num_hashes"),
    (lambda: RedisLayout(512, 3, "BLOCKED"), ValueError, "strategy"),
    (lambda: RedisLayout(512, 3, "MURMUR"), ValueError, "strategy"),
    (lambda: RedisLayout.helper_compatible(2**31, 0.01), ValueError, "expected_insertions"),
    (lambda: RedisLayout.helper_compatible(0, 0.01), ValueError, "expected_insertions"),
    (lambda: RedisLayout.helper_compatible(10, 1.0), ValueError, "fpp"),
    (lambda: RedisLayout.helper_compatible(10, "0.1"), TypeError, "fpp"),
    (lambda: RedisLayout.helper_compatible(1, 0.9), ValueError, "fpp"),
    (lambda: RedisLayout.helper_compatible(1_000_000_000, 1e-9), ValueError, "fpp"),
    (lambda: RedisLayout.guava_compatible(10_000, 0.01, "BLOCKED"), ValueError, "strategy"),
    (lambda: RedisLayout(64, 3).offsets(1.5), TypeError, "key"),
    (lambda: RedisLayout(64, 3).offsets(None), TypeError, "key"),
    (lambda: RedisLayout(64, 3).offsets(True), TypeError, "key"),
    (lambda: RedisLayout(64, 3).offsets(2**63), ValueError, "key"),
    (lambda: RedisLayout(64, 3).offsets_all("abc"), TypeError, "keys"),
    (lambda: RedisLayout(64, 3).offsets_all(5), TypeError, "keys"),
    (lambda: RedisLayout(64, 3).offsets_all([1, 2.5]), TypeError, "key"),
])
def test_bad_arguments_are_named(call, error, name):
    with pytest.raises(error, match=name):
        call()
