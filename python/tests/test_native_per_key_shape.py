"""``sparkbloom.per_key_shape`` is the core's per-key rule: every row of tests/golden's table (the
JVM's ``Sizing.perKeyCount`` and the CLI check the same rows), and bad arguments raise."""

from pathlib import Path

import pytest

import sparkbloom
from sparkbloom import BloomFilter

TABLE = Path(__file__).resolve().parents[2] / "tests" / "golden" / "per_key_shapes.tsv"


def test_every_row_of_the_cores_table():
    lines = TABLE.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "distinct_items\tfpp\tnum_bits\tnum_hashes"
    for line in lines[1:]:
        n, p, bits, hashes = line.split("\t")
        assert sparkbloom.per_key_shape(int(n), float(p)) == (int(bits), int(hashes)), line
    assert len(lines) > 100
    assert BloomFilter.with_shape(*sparkbloom.per_key_shape(200, 0.001)).bit_size == 3136


@pytest.mark.parametrize("n, p", [(10, 0.0), (10, 1.0), (10, float("nan")), (-1, 0.01), (1 << 40, 1e-6)])
def test_bad_arguments_raise_value_error(n, p):
    with pytest.raises(ValueError):
        sparkbloom.per_key_shape(n, p)
