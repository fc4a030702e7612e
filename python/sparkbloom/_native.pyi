"""Type stub of sparkbloom._native, the compiled core (rust/python over the Rust crate).

Keys, everywhere one is taken, are hashed as Java's ``BloomFilter.put`` overloads hash them, so a
filter built by Spark or Guava answers here as it answers there:

* ``int`` (or a numpy integer) as ``put(long)``: two's complement; outside [-2**63, 2**63 - 1]
  it is a ``ValueError`` naming the key;
* ``str`` as ``put(String)`` with UTF-8 (``Funnels.stringFunnel(UTF_8)``); a ``str`` with a lone
  surrogate has no UTF-8 form (``ValueError``);
* ``bytes`` / ``bytearray`` as ``put(byte[])``.

A batch (``keys``) is any iterable of keys; a one-dimensional numpy int64 array is read in place
and processed in one call with the GIL released, and so is a batch of only ``str``/``bytes`` keys
(copied a few thousand keys at a time into one buffer; on Python 3.10+ a ``str``'s UTF-8 bytes are
read where CPython keeps them). ``bool``, ``float``, ``None`` and
numpy arrays are not keys, nor is a numpy array of other than one dimension a batch
(``TypeError``). Every key of a batch is checked before the filter changes: a bad key raises,
naming its place (``keys[3]: ...``), and no key of that batch was put, added or removed.

Sizes (``expected_insertions``, ``num_bits``, ``num_hashes``, ``max_bits``) are ints or numpy
integers (any object with ``__index__`` but ``bool``); serialized input (``data``, ``bitmap``)
is any bytes-like object: ``bytes``, ``bytearray``, ``memoryview``.

The decoders take ``max_bits``, the largest filter they accept (default ``2**43``, the largest
filter there is, as on the JVM): a few bytes can declare a filter of 2**43 bits (1 TiB), so a
service reading bytes it does not trust passes the largest size it expects.
:class:`FilterTooLargeError` names the size and the limit; a filter this process cannot
allocate raises it too.
"""

from typing import ClassVar, Iterable, List, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

Key = Union[int, str, bytes, bytearray, np.integer]
Keys = Union[Iterable[Key], npt.NDArray[np.int64]]
BytesLike = Union[bytes, bytearray, memoryview]

#: The strategies the core supports, by their FORMAT.md names.
STRATEGIES: List[str]

class CorruptFilterError(ValueError):
    """Serialized filter bytes are malformed; the message names the first bad field by its
    FORMAT.md name (``magic``, ``version``, ``length``, ``checksum``, ``payload``...)."""

class FilterTooLargeError(CorruptFilterError):
    """Serialized bytes describe a filter of more bits (``numBits``) than the decoder's
    ``max_bits``, or than this process can allocate (the JVM's ``FilterTooLargeException``); the
    message names the size and the limit."""

class BloomFilter:
    """A Bloom filter whose bits sit where Guava's ``BloomFilter`` (``MURMUR128_MITZ_64``,
    ``MURMUR128_MITZ_32``) or Spark's ``BloomFilter`` (``SPARK_SKETCH_V1``/``V2``) puts them, or
    ``BLOCKED`` (one 512-bit block per key; ours only). No false negatives; false positives at
    about ``fpp`` when filled with ``expected_insertions`` keys. Thread-safe: one filter can be
    filled and queried from several threads at once (writers take turns, readers never wait).

    >>> import numpy as np
    >>> from sparkbloom import BloomFilter
    >>> seen = BloomFilter(10_000, 0.001)              # Guava's create(10_000, 0.001): m and k
    >>> seen.bit_size, seen.num_hash_functions
    (143808, 10)
    >>> seen.put_all(np.array([17, 42, 99], dtype=np.int64))
    True
    >>> 42 in seen, 7 in seen
    (True, False)
    >>> seen.retain_absent([42, 7, 99, 8])             # certainly unseen, in order
    [7, 8]
    >>> BloomFilter.from_guava_bytes(seen.to_guava_bytes()) == seen
    True
    """

    def __init__(self, expected_insertions: int, fpp: float, strategy: str = "MURMUR128_MITZ_64") -> None:
        """A filter sized for ``expected_insertions`` keys at false-positive probability ``fpp``
        (strictly between 0 and 1): Guava's ``create(n, fpp)`` shape for MITZ_64, Guava 14's for
        MITZ_32, Spark's for the sketch strategies. ``ValueError`` names a bad argument."""
    @staticmethod
    def with_shape(num_bits: int, num_hashes: int, strategy: str = "MURMUR128_MITZ_64") -> "BloomFilter":
        """An empty filter of exactly ``num_bits`` bits and ``num_hashes`` (1..255) hashes."""
    def put(self, key: Key) -> bool:
        """Adds ``key``; whether any bit changed."""
    def put_all(self, keys: Keys) -> bool:
        """Adds every key; whether any bit changed."""
    def might_contain(self, key: Key) -> bool:
        """``False``: ``key`` was certainly never put; ``True``: it probably was."""
    def __contains__(self, key: Key) -> bool: ...
    def might_contain_all(self, keys: Keys) -> npt.NDArray[np.bool_]:
        """``might_contain`` of every key, in order, as a numpy bool array (a list of bool where
        numpy is not installed)."""
    def retain_absent(self, keys: Keys) -> Union[npt.NDArray[np.generic], List[Key]]:
        """The keys certainly not in the filter, in order: a numpy array of the same dtype for a
        numpy array, else a list of the keys given."""
    def approximate_element_count(self) -> int:
        """Guava's ``approximateElementCount``: -m/k * ln(1 - bits set/m), rounded; at most
        2**63 - 1 (Java's ``Long.MAX_VALUE``), what a saturated filter answers."""
    def expected_fpp(self) -> float:
        """Probability that a key never put is reported present: (bits set / m)^k."""
    def bits_set(self) -> int:
        """Number of bits set."""
    @property
    def bit_size(self) -> int:
        """Bits in the array (m)."""
    @property
    def num_hash_functions(self) -> int:
        """Bit positions per key (k)."""
    @property
    def strategy(self) -> str:
        """The strategy's name (one of :data:`STRATEGIES`)."""
    def is_compatible(self, other: "BloomFilter") -> bool:
        """Whether ``merge``/``intersect`` accept ``other``: same m, k and strategy (``TypeError``
        if ``other`` is not a :class:`BloomFilter`)."""
    def merge(self, other: "BloomFilter") -> None:
        """ORs ``other`` into this filter (union); ``ValueError`` names what differs."""
    def intersect(self, other: "BloomFilter") -> None:
        """ANDs ``other`` into this filter; ``ValueError`` names what differs."""
    def copy(self) -> "BloomFilter":
        """An independent copy."""
    def __copy__(self) -> "BloomFilter": ...
    def __deepcopy__(self, memo: object) -> "BloomFilter": ...
    def __sizeof__(self) -> int:
        """Bytes held, the bit array included (``sys.getsizeof``)."""
    def clear(self) -> None:
        """Clears every bit."""
    def to_bytes(self) -> bytes:
        """The filter in sparkbloom's format (FORMAT.md): what the JVM library and Spark
        functions write; sparse when few bits are set."""
    @staticmethod
    def from_bytes(data: BytesLike, *, max_bits: int = 2**43) -> "BloomFilter":
        """The filter ``data`` (FORMAT.md) holds; :class:`CorruptFilterError` names a bad field,
        :class:`FilterTooLargeError` a filter of more than ``max_bits`` bits."""
    def to_guava_bytes(self) -> bytes:
        """Guava's ``BloomFilter.writeTo`` stream (MITZ_32 and MITZ_64 only)."""
    @staticmethod
    def from_guava_bytes(data: BytesLike, *, max_bits: int = 2**43) -> "BloomFilter":
        """The filter of a Guava ``writeTo`` stream (``readFrom``'s input), of at most
        ``max_bits`` bits."""
    def to_spark_bytes(self) -> bytes:
        """Spark's ``BloomFilter.writeTo`` stream (SPARK_SKETCH_V1 / V2 filters only)."""
    @staticmethod
    def from_spark_bytes(data: BytesLike, *, max_bits: int = 2**43) -> "BloomFilter":
        """The filter of a Spark ``BloomFilter.writeTo`` stream (V1 or V2), of at most
        ``max_bits`` bits."""
    def to_redis_bitmap(self) -> bytes:
        """The bits as a Redis bitmap string (``SETBIT`` order: bit 0 is byte 0's top bit)."""
    @overload
    @staticmethod
    def from_redis_bitmap(bitmap: BytesLike, layout: "RedisLayout") -> "BloomFilter":
        """The filter whose Redis bitmap (``GET key``) is ``bitmap``, in ``layout``'s shape and
        strategy (the writer's layout, e.g. ``RedisLayout.helper_compatible(n, p)``)."""
    @overload
    @staticmethod
    def from_redis_bitmap(
        bitmap: BytesLike, num_bits: int, num_hashes: int, strategy: str = "MURMUR128_MITZ_32"
    ) -> "BloomFilter":
        """The filter of ``num_bits`` bits and ``num_hashes`` hashes whose Redis bitmap (``GET
        key``) is ``bitmap``; a shorter bitmap is zero-extended, a longer one (or one with a bit
        set at or above ``num_bits``) is a ``ValueError``. The size is the caller's (or the
        layout's), not the bitmap's: no ``max_bits``. A layout with ``num_hashes`` or ``strategy``,
        or ``num_bits`` without ``num_hashes``, is a ``TypeError`` naming the argument."""
    def __reduce__(self) -> object:
        """Pickles as ``BloomFilter.from_bytes(self.to_bytes())`` (so unpickling refuses a filter
        above the default ``max_bits``)."""
    def __eq__(self, other: object) -> bool:
        """Same strategy, shape and bits."""
    __hash__: ClassVar[None]  # type: ignore[assignment]

class RedisLayout:
    """Where keys' bits sit in a Redis bitmap: m bits, k hash functions and a strategy, as
    sparkbloom-redis's ``RedisLayout``. :meth:`offsets` gives the k bit offsets ``GETBIT`` reads
    (Redis numbers bits from the top bit of byte 0, as :meth:`BloomFilter.to_redis_bitmap` writes
    them); a key is possibly present iff all k bits are 1, as
    ``BloomFilter.from_redis_bitmap(bitmap, layout)`` answers.

    >>> from sparkbloom import BloomFilter, RedisLayout
    >>> layout = RedisLayout.helper_compatible(10_000, 0.001)
    >>> layout
    RedisLayout(bit_size=143775, num_hash_functions=10, strategy="MURMUR128_MITZ_32")
    >>> layout.offsets(42)
    [31031, 21787, 74606, 136845, 84026, 112567, 21611, 46065, 6753, 59572]
    >>> f = BloomFilter.with_shape(layout.bit_size, layout.num_hash_functions, layout.strategy)
    >>> f.put("user-42")
    True
    >>> bitmap = f.to_redis_bitmap()               # what GET returns; GETBIT reads one bit of it
    >>> all(bitmap[o >> 3] & (0x80 >> (o & 7)) for o in layout.offsets("user-42"))
    True
    >>> BloomFilter.from_redis_bitmap(bitmap, layout) == f   # the filter of a GET, in this layout
    True
    >>> layout.offsets_all([42, "user-42"]).shape   # a numpy uint64 array, one row per key
    (2, 10)
    """

    def __init__(self, num_bits: int, num_hashes: int, strategy: str = "MURMUR128_MITZ_32") -> None:
        """The layout of an explicit shape (Java's ``RedisLayout.of``): ``num_bits`` in 1..2**32,
        ``num_hashes`` in 1..255, any strategy but BLOCKED; ``ValueError`` names a bad argument."""
    @staticmethod
    def helper_compatible(expected_insertions: int, fpp: float) -> "RedisLayout":
        """The "BloomFilterHelper" layout (Java's ``helperCompatible``): m = int(-n*ln fpp/ln(2)**2),
        not rounded to whole words, k = max(1, round(m/n*ln 2)), MURMUR128_MITZ_32 offsets."""
    @staticmethod
    def guava_compatible(expected_insertions: int, fpp: float, strategy: str = "MURMUR128_MITZ_64") -> "RedisLayout":
        """The shape of ``BloomFilter(expected_insertions, fpp, strategy)`` (Java's ``guavaCompatible``)."""
    @property
    def bit_size(self) -> int:
        """Bits in the bitmap (m): offsets are below it."""
    @property
    def num_hash_functions(self) -> int:
        """Offsets per key (k)."""
    @property
    def strategy(self) -> str: ...
    @property
    def bitmap_bytes(self) -> int:
        """The longest value a key of this layout holds: ceil(bit_size / 8) bytes."""
    def offsets(self, key: Key) -> List[int]:
        """The k ``GETBIT`` offsets of ``key``, in the order the strategy visits them (repeats
        are possible)."""
    def offsets_all(self, keys: Keys) -> npt.NDArray[np.uint64]:
        """The offsets of every key, one row of k per key: shape (len(keys), k); a numpy int64
        array is read in place with the GIL released."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> object: ...

class CountingBloomFilter:
    """A counting Bloom filter: a 4-bit counter per position (saturating at 15), so keys can be
    removed. Strategies MURMUR128_MITZ_64 (default) and MURMUR128_MITZ_32; sized as
    :class:`BloomFilter`. Removing a key that was never added can cause false negatives.

    >>> from sparkbloom import CountingBloomFilter
    >>> window = CountingBloomFilter(10_000, 0.001)
    >>> window.add_all([1, 2, 3])
    True
    >>> window.remove(2)
    True
    >>> window.might_contain_all([1, 2, 3]).tolist()
    [True, False, True]
    >>> window.count(1)
    1
    """

    def __init__(self, expected_insertions: int, fpp: float, strategy: str = "MURMUR128_MITZ_64") -> None: ...
    def add(self, key: Key) -> bool:
        """Increments ``key``'s counters; whether any changed."""
    def add_all(self, keys: Keys) -> bool:
        """Adds every key; whether any counter changed."""
    def remove(self, key: Key) -> bool:
        """Removes one occurrence; ``False`` (nothing changed) when ``key`` is certainly absent."""
    def remove_all(self, keys: Keys) -> int:
        """Removes every key; how many were possibly present, hence removed. A bad key raises
        before any key is removed, so a retry removes none twice."""
    def count(self, key: Key) -> int:
        """The smallest of ``key``'s counters: an upper bound on how often it was added (0..15)."""
    def might_contain(self, key: Key) -> bool: ...
    def __contains__(self, key: Key) -> bool: ...
    def __sizeof__(self) -> int:
        """Bytes held, the counter words included (``sys.getsizeof``)."""
    def might_contain_all(self, keys: Keys) -> npt.NDArray[np.bool_]: ...
    def retain_absent(self, keys: Keys) -> Union[npt.NDArray[np.generic], List[Key]]: ...
    @property
    def bit_size(self) -> int:
        """Counters (m)."""
    @property
    def num_hash_functions(self) -> int: ...
    @property
    def strategy(self) -> str: ...
    def saturated_counters(self) -> int:
        """Counters stuck at 15."""
    def merge(self, other: "CountingBloomFilter") -> None:
        """Adds ``other``'s counters (saturating)."""
    def subtract(self, other: "CountingBloomFilter") -> None:
        """Subtracts ``other``'s counters."""
    def copy(self) -> "CountingBloomFilter": ...
    def to_bloom_filter(self) -> BloomFilter:
        """The plain filter with a bit set where a counter is nonzero: byte-identical to a
        :class:`BloomFilter` holding the keys still present while no counter saturated."""
    def to_bytes(self) -> bytes:
        """The counting filter in sparkbloom's format (FORMAT.md, counting version)."""
    @staticmethod
    def from_bytes(data: BytesLike, *, max_bits: int = 2**43) -> "CountingBloomFilter":
        """The counting filter ``data`` holds; :class:`CorruptFilterError` names a bad field,
        :class:`FilterTooLargeError` a filter of more than ``max_bits`` counters."""
    def __reduce__(self) -> object: ...
    def __eq__(self, other: object) -> bool:
        """Same strategy, shape and counters, as :class:`BloomFilter` compares."""
    __hash__: ClassVar[None]  # type: ignore[assignment]

def per_key_shape(distinct_items: int, fpp: float) -> Tuple[int, int]:
    """``(num_bits, num_hashes)`` of the per-key filter for ``distinct_items`` distinct items (0
    counts as 1) whose measured false-positive rate is at most ``fpp``: the shape Spark's
    ``Sizing.perKeyCount(p)`` and the CLI's ``--sizing per-key`` give, from the same core code.

    >>> from sparkbloom import BloomFilter, per_key_shape
    >>> per_key_shape(200, 0.001)
    (3136, 8)
    >>> BloomFilter.with_shape(*per_key_shape(200, 0.001)).bit_size
    3136
    """
