"""The native module (sparkbloom._native) on input it must refuse or take as it is: bytes that
declare a huge filter (the decoders' max_bits), batches with a bad key (nothing changes), and
arguments of the wrong type or range (the error names the argument).

Run on the installed package: scripts/test-python-native.sh.
"""

import inspect
import pickle
import re
import struct
import zlib

import numpy as np
import pytest

from sparkbloom import BloomFilter, CorruptFilterError, CountingBloomFilter, FilterTooLargeError, RedisLayout


def sparse_empty(num_bits, version=1):
    """FORMAT.md bytes of an empty sparse filter of `num_bits` bits (version 3: counters): 37 bytes
    whatever the size, with a valid checksum."""
    payload = struct.pack("<QB", 0, 0)  # no set bit, Rice parameter 0
    body = b"SBLM" + bytes([version, 1, 1, 1]) + struct.pack("<QQ", num_bits, len(payload)) + payload
    return body + struct.pack("<I", zlib.crc32(body))


def guava_header(num_words):
    """The 6 header bytes of a Guava stream (MITZ_64, k = 1) announcing `num_words` words."""
    return struct.pack(">bBi", 1, 1, num_words)


def spark_header(num_words):
    """The 12 header bytes of a Spark V1 stream (k = 1) announcing `num_words` words."""
    return struct.pack(">iii", 1, 1, num_words)


DECODERS = [
    (BloomFilter.from_bytes, lambda bits: sparse_empty(bits)),
    (CountingBloomFilter.from_bytes, lambda bits: sparse_empty(bits, version=3)),
    (BloomFilter.from_guava_bytes, lambda bits: guava_header(bits // 64)),
    (BloomFilter.from_spark_bytes, lambda bits: spark_header(bits // 64)),
]
DECODER_IDS = ["from_bytes", "counting_from_bytes", "from_guava_bytes", "from_spark_bytes"]


@pytest.mark.parametrize("decode, craft", DECODERS, ids=DECODER_IDS)
def test_a_filter_above_max_bits_is_refused_naming_num_bits_and_the_limit(decode, craft):
    # 2^40 bits (128 GiB) announced in a few bytes; the Guava and Spark streams' word counts
    # stop at 2^31 - 1, so they announce 2^36 bits
    bits = 2**40 if decode in (BloomFilter.from_bytes, CountingBloomFilter.from_bytes) else 2**36
    with pytest.raises(FilterTooLargeError) as raised:
        decode(craft(bits), max_bits=2**30)
    message = str(raised.value)
    assert "numBits" in message and str(bits) in message and f"max_bits={2**30}" in message
    assert isinstance(raised.value, CorruptFilterError) and isinstance(raised.value, ValueError)


@pytest.mark.parametrize("decode, craft", DECODERS[:2], ids=DECODER_IDS[:2])
def test_max_bits_is_inclusive_and_the_default_is_the_largest_filter(decode, craft):
    assert decode(craft(4096), max_bits=4096).bit_size == 4096
    assert decode(craft(4096)).bit_size == 4096
    with pytest.raises(FilterTooLargeError, match="max_bits=4095"):
        decode(craft(4096), max_bits=4095)
    with pytest.raises(FilterTooLargeError, match="max_bits=0"):
        decode(craft(4096), max_bits=np.int64(0))
    # 2^43 bits (1 TiB), the default limit, is beyond this machine's memory: refused as too
    # large, as the JVM refuses it (FilterTooLargeException), not a MemoryError
    with pytest.raises(FilterTooLargeError, match="numBits"):
        decode(craft(2**43))


def test_unpickling_a_huge_filter_is_refused_as_too_large():
    class Crafted:
        def __reduce__(self):  # what a pickled BloomFilter holds: from_bytes and its bytes
            return BloomFilter.from_bytes, (sparse_empty(2**43),)

    with pytest.raises(FilterTooLargeError):
        pickle.loads(pickle.dumps(Crafted()))


def test_guava_and_spark_streams_within_the_limit_still_read():
    f = BloomFilter(1_000, 0.01)
    f.put_all([1, 2, 3])
    assert BloomFilter.from_guava_bytes(f.to_guava_bytes(), max_bits=f.bit_size) == f
    with pytest.raises(FilterTooLargeError):
        BloomFilter.from_guava_bytes(f.to_guava_bytes(), max_bits=f.bit_size - 1)
    s = BloomFilter(1_000, 0.01, "SPARK_SKETCH_V2")
    assert BloomFilter.from_spark_bytes(s.to_spark_bytes(), max_bits=s.bit_size) == s
    # a truncated stream under the limit is corrupt, not too large
    with pytest.raises(CorruptFilterError, match="length") as raised:
        BloomFilter.from_guava_bytes(guava_header(2**20))
    assert not isinstance(raised.value, FilterTooLargeError)


@pytest.mark.parametrize("decode", [d for d, _ in DECODERS], ids=DECODER_IDS)
def test_max_bits_must_be_a_non_negative_int(decode):
    max_bits = inspect.signature(decode).parameters["max_bits"]
    assert max_bits.kind is inspect.Parameter.KEYWORD_ONLY and max_bits.default == 2**43
    with pytest.raises(TypeError, match="max_bits"):
        decode(b"", max_bits="1000")
    with pytest.raises(TypeError, match="max_bits"):
        decode(b"", max_bits=True)
    with pytest.raises(ValueError, match="max_bits"):
        decode(b"", max_bits=-1)


def test_decoders_take_any_bytes_like_object():
    f = BloomFilter(1_000, 0.01, "MURMUR128_MITZ_32")
    f.put_all(["a", "b", 3])
    c = CountingBloomFilter(1_000, 0.01)
    c.add_all(["a", "a", 3])
    for wrap in (bytes, bytearray, memoryview, lambda b: memoryview(bytearray(b))[:]):
        assert BloomFilter.from_bytes(wrap(f.to_bytes())) == f
        assert BloomFilter.from_guava_bytes(wrap(f.to_guava_bytes())) == f
        assert BloomFilter.from_redis_bitmap(wrap(f.to_redis_bitmap()), f.bit_size, f.num_hash_functions) == f
        assert CountingBloomFilter.from_bytes(wrap(c.to_bytes())) == c
    # a strided view is read in its logical order
    data = f.to_bytes()
    doubled = bytes(b for byte in data for b in (byte, 0))
    assert BloomFilter.from_bytes(memoryview(doubled)[::2]) == f
    for bad, name in (("text", "data"), (5, "data"), (None, "data")):
        with pytest.raises(TypeError, match=f"{name} must be a bytes-like object"):
            BloomFilter.from_bytes(bad)
        with pytest.raises(TypeError, match=f"{name} must be a bytes-like object"):
            CountingBloomFilter.from_bytes(bad)
    with pytest.raises(TypeError, match="bitmap must be a bytes-like object"):
        BloomFilter.from_redis_bitmap("text", 64, 1)


# Batches: a bad key anywhere raises before the filter changes, so a retry does nothing twice.
BAD_BATCHES = [
    ([1, None], TypeError, r"keys\[1\]"),
    ([1, 2, 2**63], ValueError, r"keys\[2\]"),
    (["a", None], TypeError, r"keys\[1\]"),
    (["a", b"b", 1.5], TypeError, r"keys\[2\]"),
    ([b"b", "\ud800"], ValueError, r"keys\[1\]"),
    ([np.int64(7), "a", 2**64], ValueError, r"keys\[2\]"),
    (["a", 7, np.array([1, 2])], TypeError, r"keys\[2\]"),
]


@pytest.mark.parametrize("batch, error, where", BAD_BATCHES)
def test_a_batch_with_a_bad_key_puts_nothing(batch, error, where):
    f = BloomFilter(1_000, 0.01)
    with pytest.raises(error) as raised:
        f.put_all(batch)
    assert f.bits_set() == 0
    assert re.match(where, str(raised.value))
    c = CountingBloomFilter(1_000, 0.01)
    with pytest.raises(error) as raised:
        c.add_all(batch)
    assert c.to_bytes() == CountingBloomFilter(1_000, 0.01).to_bytes()
    assert re.match(where, str(raised.value))


@pytest.mark.parametrize("batch, error, where", BAD_BATCHES)
def test_a_batch_with_a_bad_key_removes_nothing(batch, error, where):
    c = CountingBloomFilter(1_000, 0.01)
    good = [k for k in batch if isinstance(k, (int, str, bytes, np.integer)) and not isinstance(k, bool)]
    good = [k for k in good if not isinstance(k, int) or -(2**63) <= k < 2**63]
    good = [k for k in good if not (isinstance(k, str) and "\ud800" in k)]
    c.add_all(good)
    before = c.to_bytes()
    with pytest.raises(error) as raised:
        c.remove_all(batch)
    assert c.to_bytes() == before
    assert all(c.count(k) == 1 for k in good)
    assert re.match(where, str(raised.value))


# Text batches are packed and hashed a few thousand keys at a time: what a batch means must not
# depend on where those chunks end.
LONG_TEXT = [f"id-{i}-\u00e9\u4e2d" if i % 3 else f"id-{i}" for i in range(10_000)]


class Text(str):
    """A str subclass: a key as its str value."""


def test_a_text_batch_longer_than_a_chunk_with_a_bad_key_at_its_end_puts_nothing():
    f = BloomFilter(20_000, 0.01)
    with pytest.raises(ValueError, match=r"keys\[9999\]: key '\\ud800' has no UTF-8 form"):
        f.put_all(LONG_TEXT[:-1] + ["\ud800"])
    assert f.bits_set() == 0
    with pytest.raises(TypeError, match=r"keys\[9999\]"):
        f.put_all(LONG_TEXT[:-1] + [None])
    assert f.bits_set() == 0
    c = CountingBloomFilter(20_000, 0.01)
    empty = c.to_bytes()
    with pytest.raises(ValueError, match=r"keys\[9999\]"):
        c.add_all(LONG_TEXT[:-1] + ["\ud800"])
    assert c.to_bytes() == empty
    assert c.add_all(LONG_TEXT) is True
    full = c.to_bytes()
    with pytest.raises(ValueError, match=r"keys\[9999\]"):
        c.remove_all(LONG_TEXT[:-1] + ["\ud800"])
    assert c.to_bytes() == full
    assert c.remove_all(LONG_TEXT) == len(LONG_TEXT)
    assert c.to_bytes() == empty


def test_long_text_batches_answer_as_key_by_key_queries_whatever_follows_them():
    f = BloomFilter(20_000, 0.01)
    assert f.put_all(LONG_TEXT[::2]) is True
    one_by_one = BloomFilter(20_000, 0.01)
    for key in LONG_TEXT[::2]:
        one_by_one.put(key)
    assert f == one_by_one
    expected = [f.might_contain(k) for k in LONG_TEXT]
    assert all(expected[::2]) and sum(expected[1::2]) < 150  # 5,000 absent at 1 %: mean 50
    assert f.might_contain_all(LONG_TEXT).tolist() == expected
    assert f.might_contain_all([k.encode() for k in LONG_TEXT]).tolist() == expected
    assert f.might_contain_all([Text(k) for k in LONG_TEXT]).tolist() == expected
    # ints after more than a chunk of text: the text in chunks, the rest key by key
    mixed = LONG_TEXT + [7, b"x", "y"]
    assert f.might_contain_all(mixed).tolist() == expected + [f.might_contain(k) for k in mixed[-3:]]
    assert f.retain_absent(mixed)[: -3] == [k for k, e in zip(LONG_TEXT, expected) if not e]
    with pytest.raises(TypeError, match=r"keys\[10000\]"):
        f.might_contain_all(LONG_TEXT + [None])
    c = CountingBloomFilter(20_000, 0.01)
    c.add_all(LONG_TEXT[::2])
    assert c.might_contain_all(mixed).tolist()[:-3] == [c.might_contain(k) for k in LONG_TEXT]


def test_a_saturated_filters_count_stops_at_javas_long_max():
    f = BloomFilter.with_shape(64, 1)
    f.put_all(range(10_000))
    assert f.bits_set() == 64
    assert f.approximate_element_count() == 2**63 - 1


@pytest.mark.parametrize("call, error, message", [
    (lambda: BloomFilter(100, 0.01, 5), TypeError, "strategy must be a str, not int"),
    (lambda: CountingBloomFilter(100, 0.01, b"BLOCKED"), TypeError, "strategy must be a str, not bytes"),
    (lambda: BloomFilter.with_shape(64, 1, 1.0), TypeError, "strategy must be a str, not float"),
    (lambda: BloomFilter.from_redis_bitmap(b"", 64, 1, 0), TypeError, "strategy must be a str, not int"),
    (lambda: RedisLayout(64, 1, 0), TypeError, "strategy must be a str, not int"),
    (lambda: BloomFilter.from_redis_bitmap(b"", RedisLayout(64, 1), 1), TypeError,
     "num_hashes is not taken with a RedisLayout"),
    (lambda: BloomFilter.from_redis_bitmap(b"", RedisLayout(64, 1), strategy="MURMUR128_MITZ_32"), TypeError,
     "strategy is not taken with a RedisLayout"),
    (lambda: BloomFilter.from_redis_bitmap(b"", RedisLayout(64, 1), num_bits=64), TypeError,
     "num_bits is not taken with a RedisLayout"),
    (lambda: BloomFilter.from_redis_bitmap(b"", layout=RedisLayout(64, 1), num_hashes=1), TypeError,
     "num_hashes is not taken"),
    (lambda: BloomFilter.from_redis_bitmap(b"", 64), TypeError, "num_hashes is missing"),
    (lambda: BloomFilter.from_redis_bitmap(b"", num_bits=64), TypeError, "num_hashes is missing"),
    (lambda: BloomFilter.from_redis_bitmap(b""), TypeError, r"pass a layout \(a RedisLayout\), or num_bits"),
    (lambda: BloomFilter.from_redis_bitmap(b"", 64, 1, num_bits=64), TypeError, "num_bits given twice"),
    (lambda: BloomFilter.from_redis_bitmap(b"", "RedisLayout(64, 1)"), TypeError,
     "layout must be a RedisLayout .or num_bits an int., not str"),
    (lambda: BloomFilter.from_redis_bitmap(b"", (64, 1)), TypeError, "layout must be a RedisLayout .* not tuple"),
    (lambda: BloomFilter.from_redis_bitmap(b"", True, 1), TypeError, "layout must be a RedisLayout .* not bool"),
    (lambda: BloomFilter.from_redis_bitmap(b"", 0, 1), ValueError, "num_bits must be a positive int"),
    (lambda: BloomFilter.from_redis_bitmap(bytes(9), RedisLayout(64, 1)), ValueError,
     "bitmap: 9 bytes is longer than the 8 bytes of a 64-bit filter"),
    (lambda: RedisLayout.guava_compatible(10, 0.1, 0), TypeError, "strategy must be a str, not int"),
    (lambda: BloomFilter(100, 0.01, "\ud800"), ValueError, "strategy '\\\\ud800' is not one of"),
    (lambda: BloomFilter(10, 0.1).merge(None), TypeError, "other must be a BloomFilter, not NoneType"),
    (lambda: BloomFilter(10, 0.1).intersect(1), TypeError, "other must be a BloomFilter, not int"),
    (lambda: BloomFilter(10, 0.1).is_compatible("x"), TypeError, "other must be a BloomFilter, not str"),
    (lambda: BloomFilter(10, 0.1).merge(CountingBloomFilter(10, 0.1)), TypeError,
     "other must be a BloomFilter, not CountingBloomFilter"),
    (lambda: CountingBloomFilter(10, 0.1).merge(BloomFilter(10, 0.1)), TypeError,
     "other must be a CountingBloomFilter, not BloomFilter"),
    (lambda: CountingBloomFilter(10, 0.1).subtract(None), TypeError,
     "other must be a CountingBloomFilter, not NoneType"),
    (lambda: BloomFilter(10, 0.1).put(np.array([5])), TypeError, "a key of type ndarray is not supported"),
    (lambda: BloomFilter(10, 0.1).might_contain(np.zeros(3)), TypeError, "a key of type ndarray"),
    (lambda: BloomFilter(10, 0.1).put_all(np.zeros((2, 2), dtype=np.int64)), TypeError,
     "keys must be one-dimensional, not a 2-dimensional array"),
    (lambda: BloomFilter(10, 0.1).might_contain_all(np.zeros((2, 1), dtype=np.int64)), TypeError,
     "one-dimensional"),
    (lambda: CountingBloomFilter(10, 0.1).add_all(np.zeros((1, 2))), TypeError, "one-dimensional"),
    (lambda: RedisLayout(64, 1).offsets_all(np.zeros((1, 1, 1), dtype=np.int64)), TypeError, "one-dimensional"),
    (lambda: BloomFilter(10, 0.1).put(np.uint64(2**63)), ValueError, "outside Java's long range"),
    (lambda: BloomFilter(10, 0.1).put("\ud800"), ValueError, r"key '\\ud800' has no UTF-8 form"),
    (lambda: RedisLayout(64, 1).offsets("\udfff"), ValueError, "UTF-8"),
    (lambda: BloomFilter(2**63, 0.01), ValueError, r"expected_insertions must be a positive int of at most 2\*\*63 - 1"),
    (lambda: CountingBloomFilter(2**63, 0.01), ValueError, r"expected_insertions .* 2\*\*63 - 1"),
    (lambda: BloomFilter(10**12, 1e-9), ValueError, "invalid argument expected_insertions: .* need .* bits"),
    (lambda: BloomFilter.with_shape(2**43 + 64, 1), ValueError, r"num_bits must be a positive int of at most 2\*\*43"),
    (lambda: BloomFilter.with_shape(64, 256), ValueError, "num_hashes must be a positive int of at most 255"),
    (lambda: BloomFilter.with_shape(np.bool_(True), 1), TypeError, "num_bits must be an int, not bool"),
    (lambda: RedisLayout.guava_compatible(10**9, 1e-300), ValueError,
     "expected_insertions, fpp: 1000000000 insertions at fpp 1e-300 need"),
    (lambda: RedisLayout.helper_compatible(10**6, 1e-300), ValueError, "at fpp 1e-300 need"),
    (lambda: BloomFilter(10, 1e300), ValueError, "fpp must lie strictly between 0 and 1, not 1e300$"),
    (lambda: BloomFilter(10, -0.5), ValueError, "not -0.5$"),
])
def test_errors_name_the_argument_and_what_is_wrong(call, error, message):
    with pytest.raises(error, match=message) as raised:
        call()
    assert type(raised.value) is error  # not a UnicodeEncodeError, a subclass naming nothing
    assert len(str(raised.value)) < 300
    assert "expectedInsertions" not in str(raised.value) and "numHashFunctions" not in str(raised.value)


def test_sizes_take_numpy_integers():
    assert BloomFilter(np.int64(1_000), 0.01) == BloomFilter(1_000, 0.01)
    assert CountingBloomFilter(np.uint16(1_000), np.float32(0.25)) == CountingBloomFilter(1_000, np.float32(0.25))
    shaped = BloomFilter.with_shape(np.int32(640), np.uint8(3))
    assert (shaped.bit_size, shaped.num_hash_functions) == (640, 3)
    assert RedisLayout(np.int64(100), np.int64(3)) == RedisLayout(100, 3)
    assert RedisLayout.helper_compatible(np.int64(10_000), 0.001) == RedisLayout.helper_compatible(10_000, 0.001)
    f = BloomFilter.from_redis_bitmap(b"\x80", np.int64(8), np.int64(1))
    assert (f.bit_size, f.bits_set()) == (8, 1)


def test_counting_filters_compare_by_value_and_are_unhashable():
    a, b = CountingBloomFilter(1_000, 0.01), CountingBloomFilter(1_000, 0.01)
    assert a == b and not a != b
    a.add("x")
    assert a != b
    b.add("x")
    assert a == b and pickle.loads(pickle.dumps(a)) == a and a.copy() == a
    b.add("x")
    assert a != b  # same bits set, other counts
    assert a != CountingBloomFilter(1_000, 0.01, "MURMUR128_MITZ_32")
    assert a != a.to_bloom_filter() and a != "x"
    with pytest.raises(TypeError):
        hash(a)


def test_retain_absent_answers_a_numpy_array_of_the_same_dtype_for_any_numpy_array():
    f = BloomFilter(1_000, 0.001)
    f.put_all([2, 4])
    keys = np.arange(6, dtype=np.int64)
    for array in (keys, keys[::-1], np.arange(12, dtype=np.int64)[::2][:6] // 2, keys.astype(np.int32),
                  keys.astype(np.uint64)):
        kept = f.retain_absent(array)
        assert isinstance(kept, np.ndarray) and kept.dtype == array.dtype
        assert sorted(kept.tolist()) == [0, 1, 3, 5]
    empty = f.retain_absent(np.array([], dtype=np.int64))
    assert isinstance(empty, np.ndarray) and empty.dtype == np.int64 and len(empty) == 0
    strings = np.array(["a", "b"])
    f.put("a")
    assert f.retain_absent(strings).tolist() == ["b"] and f.retain_absent(strings).dtype == strings.dtype
    # any other iterable: a list of the keys given, ints, numpy integers and text alike
    assert f.retain_absent([0, 2, 5]) == [0, 5]
    kept = f.retain_absent([np.int64(0), np.int64(2)])
    assert kept == [0] and type(kept[0]) is np.int64
    assert f.retain_absent(iter([2, 3])) == [3]
    c = CountingBloomFilter(1_000, 0.001)
    c.add_all([2, 4])
    assert c.retain_absent(keys[::2]).tolist() == [0]
    assert c.retain_absent(keys.astype(np.int16)).dtype == np.int16
