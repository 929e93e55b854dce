"""What a pooling op proposes for `--fix` (the `fix` of its reports): the pads the runtime uses
where auto_pad replaces declared ones, and nothing where the attributes do not fit or the
input is only a port's claim."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from irpool.element_types import element_type
from irpool.ops.avg_pool import AvgPool1
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.shape import Dim, Shape

DATA = TensorInfo(element_type("f32"), Shape.of(1, 1, 5, 5))


def _pool(**changes: Any) -> AvgPool1:
    attrs = {
        "kernel": (3, 3),
        "strides": (1, 1),
        "pads_begin": (0, 0),
        "pads_end": (0, 0),
        "exclude-pad": True,
        "auto_pad": "same_upper",
        "rounding_type": "floor",
        "dilations": (),
    }
    return AvgPool1({**attrs, **changes})


@pytest.mark.parametrize(
    ("pool", "inputs", "fixes"),
    [
        (_pool(), [DATA], {"pads_begin": "1,1", "pads_end": "1,1"}),
        (_pool(pads_begin=(1, 1)), [DATA], {"pads_end": "1,1"}),
        (_pool(auto_pad="explicit"), [DATA], {}),
        (_pool(auto_pad="valid", pads_end=(0, 0)), [DATA], {}),
        (
            _pool(),
            [TensorInfo(element_type("f32"), Shape((*DATA.shape.dims[:3], Dim.dynamic())))],
            {},
        ),
        (_pool(), [TensorInfo(element_type("f32"), DATA.shape, trusted=True)], {}),
        (_pool(), [TensorInfo(element_type("f32"), Shape.dynamic())], {}),
        # lists that do not fit the input were reported (IR207): nothing to propose
        (_pool(kernel=()), [DATA], {}),
        (_pool(pads_begin=(0,)), [DATA], {}),
        (_pool(), [TensorInfo(element_type("f32"), Shape.of(1, 1, 5))], {}),
    ],
    ids=[
        "same_upper",
        "one right",
        "explicit",
        "valid",
        "dynamic dim",
        "declared input",
        "unknown rank",
        "no kernel",
        "short pads",
        "rank mismatch",
    ],
)
def test_pad_fixes(pool: AvgPool1, inputs: list[TensorInfo], fixes: dict[str, str]) -> None:
    reports: list[OpReport] = []
    ctx = LayerContext(frozenset(pool.attrs), reports.append, lambda offset, size: memoryview(b""))
    with contextlib.suppress(ShapeError):  # lists that do not fit: reported, nothing to write
        pool.infer(inputs, ctx)
    assert {r.attribute: r.fix for r in reports if r.attribute and r.fix} == fixes
