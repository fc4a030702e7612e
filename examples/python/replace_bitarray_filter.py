"""Replacing a hand-written Python Bloom filter (a ``bitarray`` with md5-derived indexes, and its
counting variant with add/remove: ``md5_bitarray_filter.py``) with sparkbloom.

    pip install ./python bitarray      # from the repository root
    python examples/python/replace_bitarray_filter.py

md5 indexes and Guava's are different bits, so an existing filter is not converted: it is
rebuilt from the items it was built from, with one ``put_all``. From then on the filter is the
one Spark, the JVM library, Guava and Redis read and write (scripts/test-python-native.sh runs
this file and fails if an assertion below does).
"""

import numpy as np
from md5_bitarray_filter import Md5BloomFilter, Md5CountingBloomFilter

from sparkbloom import BloomFilter, CountingBloomFilter

watched = list(range(0, 20_000, 2))                  # the items a user has seen
candidates = list(range(1, 20_001, 10)) + watched[:100]

# Before: one md5 per index in Python, one item per call
old = Md5BloomFilter(10_000, 0.001)
for item in watched:
    old.add(item)
old_fresh = [c for c in candidates if c not in old]
old_counting = Md5CountingBloomFilter(10_000, 0.001)
old_counting.add("session-1")
old_counting.remove("session-1")

# After: the same (n, p); whole batches in one native call (a list or a numpy int64 array)
seen = BloomFilter(10_000, 0.001)
seen.put_all(watched)
fresh = seen.retain_absent(candidates)               # certainly unseen, in order
blob = seen.to_bytes()                               # store it; Spark and the JVM read these bytes
assert BloomFilter.from_bytes(blob) == seen
counting = CountingBloomFilter(10_000, 0.001)
counting.add("session-1")
assert "session-1" in counting and counting.count("session-1") == 1
counting.remove("session-1")
assert "session-1" not in counting and "session-1" not in old_counting

# Both keep the unseen candidates and drop the seen ones (false positives aside, p = 0.1 %)
unseen = [c for c in candidates if c % 2 == 1]
assert all(c not in fresh for c in watched[:100]) and all(c not in old_fresh for c in watched[:100])
assert len(unseen) - len(fresh) <= 5 and len(unseen) - len(old_fresh) <= 5
probes = np.arange(1, 2_000_001, 2, dtype=np.int64)  # 10^6 items never added
fpp = np.count_nonzero(seen.might_contain_all(probes)) / len(probes)
assert fpp < 0.002, fpp
print(f"kept {len(fresh)} of {len(candidates)} candidates (bitarray filter: {len(old_fresh)}); "
      f"{len(blob):,} bytes stored (bitarray: {len(old.bits.tobytes()):,}); false positives {fpp:.4%}")
