"""Convert's kernel against what OpenVINO's CPU plugin gave (tests/golden/convert_cpu.json,
written by tools/gen_convert_golden.py with the real runtime): every source and destination
type, on each type's edge cases, bit for bit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from irpool.ops.base import numpy_dtype
from irpool.ops.conversion import convert

GOLDEN = json.loads((Path(__file__).parent.parent / "golden" / "convert_cpu.json").read_text())
TABLE: dict[str, dict[str, list[Any]]] = GOLDEN["conversions"]
# Rounding to bf16 from these differs on the CPU in ways irpool does not reproduce
# (docs/semantics.md, Convert-1).
NOT_REPRODUCED = {("f64", "bf16"), ("u32", "bf16"), ("u64", "bf16")}
PAIRS = [
    (source, destination)
    for source, row in TABLE.items()
    for destination in row
    if destination != "input" and (source, destination) not in NOT_REPRODUCED
]


def decoded(values: list[Any], element_type: str) -> NDArray[Any]:
    if element_type in ("f32", "f16", "f64", "bf16"):
        floats = np.array([float(v) for v in values])
        return floats.astype(np.float32 if element_type == "bf16" else numpy_dtype(element_type))
    return np.array(values, dtype=numpy_dtype(element_type))


@pytest.mark.parametrize(("source", "destination"), PAIRS, ids=[f"{s}-{d}" for s, d in PAIRS])
def test_convert_matches_the_cpu_plugin(source: str, destination: str) -> None:
    row = TABLE[source]
    given = decoded(row["input"], source)
    expected = decoded(row[destination], destination)
    got = convert(given, destination)
    assert got.dtype == expected.dtype
    assert np.array_equal(got, expected, equal_nan=got.dtype.kind == "f"), (
        f"{source}->{destination}: input {given.tolist()}\n got {got.tolist()}\n"
        f"cpu {expected.tolist()}"
    )


def test_the_exceptions_are_still_real() -> None:
    """f64 -> bf16 rounds 3e9 down on the CPU, where nearest-even rounds it up."""
    row = TABLE["f64"]
    position = [float(v) for v in row["input"]].index(3e9)
    assert float(row["bf16"][position]) == 2986344448.0
    assert convert(np.array([3e9]), "bf16")[0] == 3003121664.0


def test_scalars_keep_their_rank() -> None:
    assert convert(np.array(True), "bf16").shape == ()
