"""Low-bit Const element types, decoded as OpenVINO packs them, and Convert from each, against
tests/golden/low_bit_cpu.json (written by tools/gen_low_bit_golden.py from the CPU plugin):
`packed` is what `ov.save_model` writes for known values, `decoded` what the CPU gives for a
Const of raw bytes through a Convert to each destination (or its refusal, IR602)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.low_bit import NF4_VALUES, packed_size, unpack
from tests import ir
from tests.execute.low_bit_models import DESTINATIONS, as_golden, convert_model

GOLDEN = json.loads(
    (Path(__file__).parent.parent / "golden" / "low_bit_cpu.json").read_text(encoding="utf-8")
)
PACKED: dict[str, dict[str, Any]] = GOLDEN["packed"]
DECODED: dict[str, dict[str, Any]] = GOLDEN["decoded"]
PAIRS = [(t, d) for t in DECODED for d in DESTINATIONS]


@pytest.mark.parametrize("element_type", PACKED)
def test_unpack_reads_what_save_model_writes(element_type: str) -> None:
    row = PACKED[element_type]
    values = np.array(row["values"], np.float64)
    found = unpack(element_type, bytes.fromhex(row["bin"]), len(values)).astype(np.float64)
    if element_type == "nf4":  # written as indices into the table
        found = np.searchsorted(np.array(NF4_VALUES), found).astype(np.float64)
    np.testing.assert_array_equal(found, values)


@pytest.mark.parametrize("element_type", PACKED)
def test_packed_size_is_what_save_model_writes(element_type: str) -> None:
    row = PACKED[element_type]
    assert packed_size(element_type, len(row["values"])) == row["size"]
    assert [packed_size(element_type, n) for n in range(1, 18)] == row["sizes"]


@pytest.mark.parametrize(("element_type", "destination"), PAIRS, ids=[f"{t}-{d}" for t, d in PAIRS])
def test_convert_from_low_bit_const(tmp_path: Path, element_type: str, destination: str) -> None:
    expected = DECODED[element_type][destination]
    row = DECODED[element_type]
    model = convert_model(
        tmp_path, element_type, destination, bytes.fromhex(row["bin"]), row["count"]
    )
    if isinstance(expected, str):  # the CPU's refusal
        assert [d.code for d in model.validate()] == ["IR602"]
        return
    assert model.validate() == []
    (output,) = model.run({}).values()
    assert as_golden(output, destination) == expected


@pytest.mark.parametrize(
    ("element_type", "count", "size", "whole", "cut"), [("u3", 9, 4, 7, 3), ("u6", 5, 4, 63, 15)]
)
def test_blocks_cut_short_read_as_zeros(
    element_type: str, count: int, size: int, whole: int, cut: int
) -> None:
    """read_model takes a u3/u6 `size` of whole bits, short of save_model's last block: the
    bytes past it read as zeros (the last element's high bits)."""
    ones = b"\xff" * packed_size(element_type, count)
    assert unpack(element_type, ones, count)[-1] == whole
    assert unpack(element_type, ones[:size], count)[-1] == cut


def test_run_refuses_a_low_bit_constant_read_by_another_op(tmp_path: Path) -> None:
    """irpool holds u4 values as u8: only a Convert reads them as OpenVINO does."""
    shape = (2, 2)
    layers = [
        ir.typed_const(0, "c", "u4", shape, 0, 2),
        ir.const(1, "pattern", [4], offset=2),
        ir.layer(
            2, "reshape", "Reshape", "opset1", ir.data([("special_zero", "false")]),
            [ir.typed_port(0, "u4", shape), ir.typed_port(1, "i64", (1,))],
            [ir.typed_port(2, "u4", (4,))],
        ),
        ir.result(3, "out", (4,), "U4"),
    ]  # fmt: skip
    edges = [ir.edge(0, 0, 2, 0), ir.edge(1, 0, 2, 1), ir.edge(2, 2, 3, 0)]
    model = irpool.load(ir.write(tmp_path, ir.net(layers, edges), b"\x21\x43" + ir.weights([4])))
    with pytest.raises(irpool.ExecutionError, match="reads a u4 constant: irpool runs u4"):
        model.run({})
