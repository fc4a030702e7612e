"""A Bloom filter as Python services often write it by hand: a ``bitarray`` of m bits, k indexes
per item from md5 digests of the item's text and the hash number, and a counting variant (a
counter per position) for items that are added and removed.

This is the "before" of ``replace_bitarray_filter.py`` and the ``bitarray`` baseline of
``python/bench/bench_vs_rbloom.py``; sparkbloom does not use it. Needs ``pip install bitarray``.
"""

import hashlib
import math

from bitarray import bitarray


def shape(expected_items, fpp):
    """The textbook sizing: m = -n ln p / ln² 2 bits, k = m/n ln 2 hashes."""
    m = max(1, int(-expected_items * math.log(fpp) / math.log(2) ** 2))
    return m, max(1, round(m / expected_items * math.log(2)))


class Md5BloomFilter:
    def __init__(self, expected_items, fpp):
        self.size, self.hash_count = shape(expected_items, fpp)
        self.bits = bitarray(self.size)
        self.bits.setall(0)

    def indexes(self, item):
        # one md5 per index: the digest of the item's text with the index number appended
        for i in range(self.hash_count):
            yield int(hashlib.md5(f"{item}:{i}".encode()).hexdigest(), 16) % self.size

    def add(self, item):
        for index in self.indexes(item):
            self.bits[index] = 1

    def __contains__(self, item):
        return all(self.bits[index] for index in self.indexes(item))


class Md5CountingBloomFilter(Md5BloomFilter):
    """The same indexes over a counter per position, so that ``remove`` undoes an ``add``."""

    def __init__(self, expected_items, fpp):
        super().__init__(expected_items, fpp)
        self.counts = [0] * self.size

    def add(self, item):
        for index in self.indexes(item):
            self.counts[index] += 1
            self.bits[index] = 1

    def remove(self, item):
        if item in self:
            for index in self.indexes(item):
                self.counts[index] -= 1
                self.bits[index] = self.counts[index] > 0
