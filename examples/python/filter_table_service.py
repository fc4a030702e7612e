"""A JVM-less dedup service over the filter table a Spark job writes: Parquet rows
``(user, filter BINARY)`` of FORMAT.md bytes (``sparkbloom_build_per_key`` or
``PerKeyFilters.saveAsTable``), read with pyarrow, answered with the Python package alone.

    pip install sparkbloom pyarrow
    python examples/python/filter_table_service.py TABLE_DIR USER ITEM [ITEM ...]

prints the items USER has not seen, in the order given (all of them for a user with no filter).
"""

import sys

import numpy as np
import pyarrow.parquet as pq

from sparkbloom import BloomFilter


class FilterTable:
    """Each user's filter, decoded once when the table is loaded."""

    def __init__(self, path, user_column="user", filter_column="filter"):
        table = pq.read_table(path, columns=[user_column, filter_column])
        users = table.column(user_column).to_pylist()
        blobs = table.column(filter_column).to_pylist()
        self._filters = {
            user: BloomFilter.from_bytes(blob) for user, blob in zip(users, blobs) if blob is not None
        }

    def __len__(self):
        return len(self._filters)

    def fresh(self, user, items):
        """The items ``user`` has certainly not seen, in order."""
        items = np.asarray(items, dtype=np.int64)
        seen = self._filters.get(user)
        return items if seen is None else seen.retain_absent(items)


def main(argv):
    if len(argv) < 3:
        raise SystemExit("usage: filter_table_service.py TABLE_DIR USER ITEM [ITEM ...]")
    try:
        user, items = int(argv[1]), [int(item) for item in argv[2:]]
    except ValueError as e:
        raise SystemExit(f"filter_table_service.py: USER and ITEMs are integers ({e})")
    try:
        table = FilterTable(argv[0])
    except (OSError, ValueError) as e:  # no such table; a cell that is not a filter
        raise SystemExit(f"filter_table_service.py: cannot read the filter table {argv[0]}: {e}")
    print(" ".join(str(item) for item in table.fresh(user, items)))


if __name__ == "__main__":
    main(sys.argv[1:])
