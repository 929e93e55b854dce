"""What OpenVINO's CPU plugin gave for every Convert (tests/golden/convert_cpu.json, written by
tools/gen_convert_golden.py with the real runtime): each source type's edge cases converted to
every destination, as OpenVINO folds Consts, and as bare Consts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.element_types import element_type

GOLDEN = json.loads((Path(__file__).parent.parent / "golden" / "convert_cpu.json").read_text())


TABLE: dict[str, dict[str, list[Any]]] = GOLDEN["conversions"]


FOLDED: dict[str, dict[str, list[Any]]] = GOLDEN["folded"]


CONSTANTS: dict[str, list[Any]] = GOLDEN["constants"]


PAIRS = [
    (source, destination)
    for source, row in TABLE.items()
    for destination in row
    if destination != "input"
]


def decoded(values: list[Any], type_name: str) -> NDArray[Any]:
    """The golden file's values (floats as text) as an array of the type."""
    if element_type(type_name).is_float:
        floats = np.array([float(v) for v in values])
        return floats.astype(element_type(type_name).held_dtype)
    return np.array(values, dtype=element_type(type_name).dtype)
