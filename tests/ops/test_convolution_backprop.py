"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1: shapes with dynamic dims and
intervals, `output_shape`, and refusals with the runtime's messages, as OpenVINO 2026.4's
`read_model` gives them, and what the CPU plugin refuses to compile (measured:
docs/ops/ConvolutionBackpropData.md); the live comparison over many configurations is
tests/differential/test_convolution_backprop.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.convolution_backprop import (
    ConvolutionBackpropBase,
    ConvolutionBackpropData1,
    GroupConvolutionBackpropData1,
)
from irpool.rules import (
    CPU_BACKPROP_DYNAMIC_SHAPE,
    CPU_BACKPROP_ONE_GROUP,
)
from irpool.shape import Shape
from tests.execute.running import _no_weights, quiet_context
from tests.ops.inferring import const, data, parse, shape_of

I64 = element_type("i64")


def op(grouped: bool = False, **attrs: Any) -> ConvolutionBackpropBase:
    lists = {"strides": (), "dilations": (), "pads_begin": (), "pads_end": ()}
    kind = GroupConvolutionBackpropData1 if grouped else ConvolutionBackpropData1
    return kind({**lists, "auto_pad": "explicit", "output_padding": (), **attrs})


def infer(layer: ConvolutionBackpropBase, *inputs: TensorInfo) -> str:
    return str(layer.infer(list(inputs), quiet_context(frozenset(layer.attrs)))[0].shape)


@pytest.mark.parametrize(
    ("x", "w", "attrs", "expected"),
    [  # read_model's shapes (measured)
        ("1,3,4,5", "3,2,3,3", {"strides": (2, 2)}, "[1,2,9,11]"),
        ("1,3,4,5", "3,2,3,3", {"strides": (2, 2), "output_padding": (1, 1)}, "[1,2,10,12]"),
        (
            "1,3,4,5",
            "3,2,3,3",
            {"strides": (2, 3), "pads_begin": (1, 2), "pads_end": (0, 1), "dilations": (2, 1)},
            "[1,2,10,12]",
        ),
        # same_* without output_shape: no pads
        (
            "1,3,4,5",
            "3,2,3,3",
            {"strides": (2, 2), "pads_begin": (1, 1), "pads_end": (1, 1), "auto_pad": "same_upper"},
            "[1,2,9,11]",
        ),
        ("1,3,4,5", "3,2,3,3", {"pads_begin": (3, 3), "pads_end": (3, 3)}, "[1,2,0,1]"),
        ("1,3,4,5", "3,2,3,3", {"pads_begin": (4, 4), "pads_end": (4, 4)}, "[1,2,?,?]"),
        (
            "1,3,2..6,?",
            "3,2,3,3",
            {"strides": (2, 2), "pads_begin": (1, 1), "pads_end": (1, 1)},
            "[1,2,3..11,1..]",
        ),
        (
            "1,3,0..6,2..",
            "3,2,3,3",
            {"strides": (2, 2), "pads_begin": (3, 3), "pads_end": (3, 3)},
            "[1,2,..7,?]",
        ),
        ("...", "3,2,3,3", {}, "[?,2,3..,3..]"),
        ("1,3,?", "3,2,3", {"pads_begin": (1,), "pads_end": (1,)}, "[1,2,1..]"),
        ("...", "...", {"strides": (1, 1, 1)}, "[?,?,1..,1..,1..]"),
        ("...", "...", {}, "[...]"),
    ],
)
def test_shapes(x: str, w: str, attrs: dict[str, Any], expected: str) -> None:
    assert infer(op(**attrs), data(x), data(w)) == expected


@pytest.mark.parametrize(
    ("x", "w", "expected"),
    [
        ("1,6,4,5", "3,2,4,3,3", "[1,12,6,7]"),
        ("1,?,4,5", "3,2,4,3,3", "[1,12,6,7]"),
        ("1,6,4,5", "?,2,4,3,3", "[1,12,6,7]"),  # groups 6 / 2
        ("1,4..8,4,5", "?,2,4,3,3", "[1,8..16,6,7]"),
    ],
)
def test_grouped_shapes(x: str, w: str, expected: str) -> None:
    assert infer(op(grouped=True), data(x), data(w)) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (const([9, 10]), "[1,2,9,10]"),
        (const([-1, 10]), "[1,2,?,10]"),
        (TensorInfo(I64, Shape.of(2)), "[1,2,?,?]"),  # computed at run time
        (TensorInfo(I64, parse("?")), "[1,2,?,?]"),
        (shape_of("2..5,7"), "[1,2,2..5,7]"),  # bounds of a shape subgraph
    ],
)
def test_output_shape(given: TensorInfo, expected: str) -> None:
    assert infer(op(), data("1,3,4,5"), data("3,2,3,3"), given) == expected


@pytest.mark.parametrize(
    ("grouped", "x", "w", "attrs", "given", "message"),
    [
        (False, "1,3,4,5", "4,2,3,3", {}, None, r"Data batch channel count \(3\) does not match"),
        (False, "1,3,4,5", "3,2,3", {}, None, "Data batch and filters rank do not match"),
        (False, "1,3,4", "3,2,3", {"output_padding": (1, 1)}, None, "Output padding should"),
        (False, "1,3,4,5", "3,2,3,3", {"strides": (1,)}, None, "Strides should be defined"),
        (False, "1,3,4,5,6,7", "3,2,3,3,3,3", {}, None, "Expected a 3D, 4D or 5D tensor"),
        (False, "1,3,4,5", "3,2,3,3", {}, [9, 10, 11], "Output shape should be defined"),
        (False, "1,3,4,5", "3,2,3,3", {}, [[9, 10]], "Input delivering output shape must have"),
        (True, "1,7,4,5", "3,2,4,3,3", {}, None, "Input channels dimension of data batch"),
        (True, "1,6,4,5", "3,2,4,3", {}, None, "Data and filters rank do not match"),
    ],
)
def test_read_model_refuses(
    grouped: bool, x: str, w: str, attrs: dict[str, Any], given: Any, message: str
) -> None:
    inputs = [data(x), data(w)] + ([] if given is None else [const(given)])
    with pytest.raises(ShapeError, match=message):
        infer(op(grouped, **attrs), *inputs)


def test_types() -> None:
    x, w = data("1,3,4"), data("3,2,3")
    with pytest.raises(ShapeError, match="Element types for data batch and filters do not"):
        infer(op(), x, TensorInfo(element_type("f16"), w.shape))
    floats = TensorInfo(element_type("f32"), Shape.of(1), np.array([9.0], np.float32))
    with pytest.raises(ShapeError, match="Element type for output shape should be of integer"):
        infer(op(), x, w, floats)


def refusals(layer: ConvolutionBackpropBase, *inputs: TensorInfo) -> list[str]:
    reported: list[OpReport] = []
    context = LayerContext(frozenset(), reported.append, _no_weights)
    check_refusals(layer, list(inputs), context)
    return [r.code for r in reported]


@pytest.mark.parametrize(
    ("w", "refused"),
    [  # compile_model (measured): one group compiles only with one channel in and out
        ("1,2,3,4", True),
        ("1,1,3,4", True),
        ("1,2,1,4", True),
        ("1,1,1,4", False),
        ("2,1,1,4", False),
    ],
)
def test_one_group(w: str, refused: bool) -> None:
    x = data(f"1,{int(w.split(',')[0]) * int(w.split(',')[1])},5")
    found = refusals(op(grouped=True), x, data(w))
    assert found == ([CPU_BACKPROP_ONE_GROUP] if refused else [])


@pytest.mark.parametrize(
    ("x", "w", "given", "attrs", "expected"),
    [  # compile_model (measured)
        ("1,3,5", "?,2,3", None, {}, [CPU_BACKPROP_DYNAMIC_SHAPE]),
        ("1,3,5", "3,2,3", TensorInfo(I64, parse("?")), {}, [CPU_BACKPROP_DYNAMIC_SHAPE]),
        ("1,3,5", "3,2,3", TensorInfo(I64, Shape.of(1)), {}, [CPU_BACKPROP_DYNAMIC_SHAPE]),
        ("?,3,5", "3,2,3", TensorInfo(I64, Shape.of(1)), {}, []),  # takes it at run time
        ("1,3,5", "3,2,3", const([9]), {}, []),
        (
            "1,3,5",
            "3,2,3",
            None,
            {"pads_begin": (4,), "pads_end": (4,)},
            [CPU_BACKPROP_DYNAMIC_SHAPE],
        ),
        (
            "?,3,5",
            "3,2,3",
            None,
            {"pads_begin": (4,), "pads_end": (4,)},
            [CPU_BACKPROP_DYNAMIC_SHAPE],
        ),
        ("1,3,?", "3,2,3", None, {"pads_begin": (4,), "pads_end": (4,)}, []),
    ],
)
def test_dynamic_inputs_and_outputs(
    x: str, w: str, given: TensorInfo | None, attrs: dict[str, Any], expected: list[str]
) -> None:
    inputs = [data(x), data(w)] + ([] if given is None else [given])
    assert refusals(op(**attrs), *inputs) == expected
