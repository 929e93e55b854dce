"""FakeQuantize-1: shapes and refusals as OpenVINO 2026.4's `read_model` and CPU plugin give
them (measured, docs/ops/FakeQuantize.md)."""

from __future__ import annotations

import numpy as np
import pytest

from irpool.cpu.quantization_refusals import refused_under_low_precision
from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.fake_quantize import FakeQuantize1
from irpool.rules import (
    CPU_FAKE_QUANTIZE_DECOMPOSED_BROADCAST,
    FAKE_QUANTIZE_CROSSED_RANGE,
    FAKE_QUANTIZE_FEW_LEVELS,
)
from irpool.shape import Shape
from tests.execute.running import _no_weights, quiet_context


def _infos(data: tuple[int, ...], ranges: tuple[int, ...], kind: str = "f32") -> list[TensorInfo]:
    return [
        TensorInfo(element_type(kind), Shape.of(*data)),
        *(TensorInfo(element_type("f32"), Shape.of(*ranges)) for _ in range(4)),
    ]


@pytest.mark.parametrize(
    ("mode", "data", "ranges"),
    [  # read_model takes these; the output is the data's shape
        ("numpy", (1, 3, 4, 4), ()),
        ("numpy", (1, 3, 4, 4), (1, 3, 1, 1)),
        ("numpy", (1, 3, 4, 4), (4,)),
        ("numpy", (1, 3, 4, 4), (2, 1, 3, 1, 1)),  # the broadcast grows; the output does not
        ("pdpd", (1, 3, 4, 4), (1, 3)),
        ("pdpd", (1, 3, 4, 4), (1,)),
        ("none", (1, 3, 4, 4), (1, 3, 4, 4)),
        ("explicit", (1, 3, 4, 4), (1, 3, 4, 4)),
    ],
)
def test_shapes(mode: str, data: tuple[int, ...], ranges: tuple[int, ...]) -> None:
    op = FakeQuantize1({"levels": 256, "auto_broadcast": mode})
    (out,) = op.infer(_infos(data, ranges), quiet_context())
    assert out.shape == Shape.of(*data) and out.element_type == "f32"


@pytest.mark.parametrize(
    ("mode", "data", "ranges"),
    [  # read_model refuses: "Argument shapes are inconsistent."
        ("numpy", (1, 3, 4, 4), (1, 2, 1, 1)),
        ("numpy", (1, 3, 4, 4), (3,)),
        ("pdpd", (1, 3, 4, 4), (4,)),
        ("pdpd", (1, 3, 4, 4), (3, 1, 1)),
        ("none", (1, 3, 4, 4), (1, 3, 1, 1)),
        ("explicit", (1, 3, 4, 4), (1, 3, 1, 1)),
    ],
)
def test_read_model_refuses(mode: str, data: tuple[int, ...], ranges: tuple[int, ...]) -> None:
    op = FakeQuantize1({"levels": 256, "auto_broadcast": mode})
    with pytest.raises(ShapeError, match="Argument shapes are inconsistent"):
        op.infer(_infos(data, ranges), quiet_context())


@pytest.mark.parametrize(
    ("mode", "levels", "data", "ranges", "kind", "codes"),
    [
        ("none", 256, (1, 3, 1, 1), (1, 3, 1, 1), "f32", [CPU_FAKE_QUANTIZE_DECOMPOSED_BROADCAST]),
        ("none", 2, (1, 3, 1, 1), (1, 3, 1, 1), "f32", []),
        ("none", 256, (1, 3, 1, 1), (1, 3, 1, 1), "u8", []),
        ("pdpd", 256, (1, 3, 4, 4), (1, 3), "f32", [CPU_FAKE_QUANTIZE_DECOMPOSED_BROADCAST]),
        ("pdpd", 256, (1, 3, 4, 4), (1, 3, 1, 1), "f32", []),
    ],
)
def test_cpu_refusals(
    mode: str, levels: int, data: tuple[int, ...], ranges: tuple[int, ...], kind: str,
    codes: list[str],
) -> None:  # fmt: skip
    reported: list[OpReport] = []
    context = LayerContext(frozenset(), reported.append, _no_weights)
    op = FakeQuantize1({"levels": levels, "auto_broadcast": mode})
    infos = _infos(data, ranges, kind)
    op.infer(infos, context)
    check_refusals(op, infos, context)
    assert [r.code for r in reported] == codes


@pytest.mark.parametrize(
    ("levels", "kind", "refused"),
    [  # in a model whose FakeQuantize layers turn the low-precision pass on (measured)
        (256, "i32", True),
        (3, "i32", True),
        (17, "u16", True),
        (3, "i8", True),
        (2, "i8", True),
        (256, "i8", False),
        (15, "i8", False),
        (0, "i8", False),
        (3, "u8", False),
        (3, "f32", False),
    ],
)
def test_what_the_low_precision_pass_refuses(levels: int, kind: str, refused: bool) -> None:
    assert refused_under_low_precision(levels, kind) is refused


@pytest.mark.parametrize(
    ("levels", "low", "high", "codes"),
    [
        (256, [0.0, 1.0], [1.0, 2.0], []),
        (0, [0.0], [1.0], [FAKE_QUANTIZE_FEW_LEVELS]),
        (1, [0.0], [1.0], [FAKE_QUANTIZE_FEW_LEVELS]),
        (256, [0.0, 2.0], [1.0, 1.0], [FAKE_QUANTIZE_CROSSED_RANGE]),  # one channel crossed
        (3, [1.0], [1.0], [FAKE_QUANTIZE_CROSSED_RANGE]),  # equal: NaN on the CPU
    ],
)
def test_degenerate_layers_are_reported(
    levels: int, low: list[float], high: list[float], codes: list[str]
) -> None:
    reported: list[OpReport] = []
    context = LayerContext(frozenset(), reported.append, _no_weights)
    infos = _infos((1, 2, 2, 2), (1, len(low), 1, 1))
    ranges = [np.array(v, np.float32).reshape(1, -1, 1, 1) for v in (low, high, low, high)]
    infos = [
        infos[0],
        *(TensorInfo(info.type, info.shape, r) for info, r in zip(infos[1:], ranges, strict=True)),
    ]
    FakeQuantize1({"levels": levels, "auto_broadcast": "numpy"}).infer(infos, context)
    assert [r.code for r in reported] == codes
