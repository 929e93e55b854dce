"""Live differential test: IR310, a Pad's `pad_value` the CPU plugin reads only at compile time.

Each case pads data (f32 or i32; static `[2,3]` or dynamic `[?,3]`) in constant mode by
pads_begin Const and pads_end Const or Parameter, with a `pad_value` from one of the sources
below (constant when the CPU compiles the model or not), and runs three inferences on one
compiled model whose data shape, value and value's source shape change. irpool must report
IR310 exactly when the CPU's outputs differ from what the file says (irpool's run with IR310
suppressed) in at least one of them (docs/ops/Pad.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from tests.differential.single_layer import CPU_CONFIG

ov = pytest.importorskip("openvino")
from openvino import opset1, opset3, opset8, opset12  # noqa: E402

pytestmark = pytest.mark.oracle

# Three inferences: the data's rows, the value a Parameter feeds, the rows of `y`, a
# Parameter whose shape some values are computed from.
ROWS = (2, 2, 4)
VALUES = (7, 9, 11)
Y_ROWS = (4, 6, 8)

Node = Any
# A source builds pad_value (of the element type) over the extra Parameters it adds.
Source = Callable[[np.dtype[Any], list[Node]], Node]


def _const(value: Any, dtype: Any = np.int64) -> Node:
    return opset1.constant(np.array(value, dtype))


def _of_shape(dtype: np.dtype[Any], extra: list[Node], dims: list[int], index: int) -> Node:
    y = opset1.parameter(dims, np.float32, name="y")
    extra.append(y)
    return opset1.convert(opset8.gather(opset3.shape_of(y), _const(index), _const(0)), dtype)


def _parameter(dtype: np.dtype[Any], extra: list[Node]) -> Node:
    value = opset1.parameter([], dtype, name="fill")
    extra.append(value)
    return value


SOURCES: dict[str, tuple[Source, bool]] = {
    # name: (builder, constant when the CPU compiles the model)
    "Const": (lambda t, e: _const(7, t), True),
    "Convert of an f16 Const": (lambda t, e: opset1.convert(_const(7, np.float16), t), True),
    "Add of Consts": (lambda t, e: opset1.add(_const(3, t), _const(4, t)), True),
    "ShapeOf of a static shape": (lambda t, e: _of_shape(t, e, [2, 5], 1), True),
    "Parameter": (_parameter, False),
    "Multiply of a Parameter": (
        lambda t, e: opset1.multiply(_parameter(t, e), _const(1, t)),
        False,
    ),
    "ShapeOf of a dynamic dim": (lambda t, e: _of_shape(t, e, [-1, 5], 0), False),
    "ShapeOf of a static dim of a dynamic shape": (lambda t, e: _of_shape(t, e, [-1, 5], 1), False),
}

CASES = list(itertools.product(SOURCES, (np.float32, np.int32), (True, False), (True, False)))


def _build(source: str, dtype: Any, static: bool, constant_pads: bool, path: Path) -> None:
    data = opset1.parameter([2 if static else -1, 3], dtype, name="x")
    extra: list[Node] = []
    value = SOURCES[source][0](np.dtype(dtype), extra)
    if constant_pads:
        end = _const([0, 1])
    else:
        end = opset1.parameter([2], np.int64, name="pads_end")
        extra.append(end)
    pad = opset12.pad(data, _const([0, 0]), end, "constant", value)
    ov.save_model(ov.Model([pad], [data, *extra]), path, compress_to_fp16=False)


def _feeds(model: Any, static: bool, dtype: Any, run: int) -> dict[str, np.ndarray]:
    rows = 2 if static else ROWS[run]
    given = {
        "x": np.arange(rows * 3).reshape(rows, 3).astype(dtype) + 1,
        "fill": np.array(VALUES[run], dtype),
        "y": np.ones((Y_ROWS[run], 5), np.float32),  # a static y's own shape below
        "pads_end": np.array([0, 1], np.int64),
    }
    feeds = {p.get_any_name(): given[p.get_any_name()] for p in model.inputs}
    y = next((p for p in model.inputs if p.get_any_name() == "y"), None)
    if y is not None and y.get_partial_shape().is_static:
        feeds["y"] = np.ones(y.get_shape(), np.float32)
    return feeds


@pytest.mark.parametrize(
    ("source", "dtype", "static", "constant_pads"),
    CASES,
    ids=[
        f"{s}-{np.dtype(t).name}-{'static' if st else 'dynamic'}-{'const' if c else 'param'}"
        for s, t, st, c in CASES
    ],
)
def test_ir310_exactly_where_the_cpu_pads_otherwise(
    source: str, dtype: Any, static: bool, constant_pads: bool, tmp_path: Path
) -> None:
    path = tmp_path / "pad.xml"
    _build(source, dtype, static, constant_pads, path)
    reported = [d for d in irpool.load(path).validate() if d.code == "IR310"]
    suppressed = tmp_path / "suppressed.xml"
    text = path.read_text().replace("<net ", "<!-- irpool: ignore IR310 -->\n<net ", 1)
    suppressed.write_text(text)
    suppressed.with_suffix(".bin").write_bytes(path.with_suffix(".bin").read_bytes())
    ours = irpool.load(suppressed)
    model = ov.Core().read_model(path)
    request = ov.Core().compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
    differs = []
    for run in range(3):
        feeds = _feeds(model, static, dtype, run)
        cpu = request.infer(feeds)[0]
        expected = next(iter(ours.run(feeds).values()))
        differs.append(not np.array_equal(cpu, expected))
    assert bool(reported) == any(differs), (reported, differs)
    if not constant_pads:
        assert not any(differs)  # run-time pads: the CPU reads the value on every run
    elif not SOURCES[source][1]:
        assert reported  # a run-time value with constant pads is misread
