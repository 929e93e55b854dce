"""Numbers at the edges of what OpenVINO reads (each row checked on OpenVINO 2026.4.1): list
items and Const offsets/sizes are read as signed 64-bit integers first, so 2**63 is refused
where a naive unsigned reader would accept it, and a negative list item wraps around 2**64.
Digit strings of any length are refused without being converted."""

from __future__ import annotations

import pytest

from irpool.parse.values import read_dim, read_integer_list, read_unsigned

WRAP = 1 << 64
INT64_MAX = (1 << 63) - 1


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f"{INT64_MAX},0", (INT64_MAX, 0)),
        (f"{INT64_MAX + 1},0", None),
        (f"{WRAP - 1},0", None),
        (f"{-(1 << 63)},0", (1 << 63, 0)),
        (f"{-(1 << 63) - 1},0", None),
        ("-1,0", (WRAP - 1, 0)),
        ("9" * 10_000, None),
        ("-" + "9" * 10_000, None),
    ],
    ids=["max", "max+1", "2**64-1", "min", "min-1", "-1", "9s", "-9s"],
)
def test_list_items_are_signed_64_bit(text: str, value: tuple[int, ...] | None) -> None:
    reading = read_integer_list(text)
    assert reading.value == value
    if value is None:
        assert reading.finding is not None and len(reading.finding.message) < 300


@pytest.mark.parametrize(
    ("text", "value"),
    [(str(INT64_MAX), INT64_MAX), (str(INT64_MAX + 1), None), ("9" * 10_000, None)],
    ids=["max", "max+1", "9s"],
)
def test_unsigned_stops_below_2_to_the_63(text: str, value: int | None) -> None:
    assert read_unsigned(text) == value


@pytest.mark.parametrize(
    "text", ["9" * 10_000, "-" + "9" * 10_000, "0" * 10_000 + "7"], ids=["9s", "-9s", "0s7"]
)
def test_dims_of_any_length(text: str) -> None:
    reading = read_dim(text)
    assert reading.value == (7 if text.endswith("7") else None)
    assert reading.finding is not None and len(reading.finding.message) < 300
