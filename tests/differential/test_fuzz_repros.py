"""Live differential: the differential fuzz's repros of numeric classes, each a tiny model
built with OpenVINO's op builders, run by irpool and by the CPU plugin (f32 inference
precision, one thread), outputs equal bit for bit (NaN where the CPU has NaN, -0 kept).

Rows hold inf, -inf, NaN, ties and integer extremes. What the CPU does that irpool does not
model is in docs/ops/README.md, with the rows that pin it in tests/execute/.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests.differential.oracle_batch import describe_difference, run_both

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset4 = pytest.importorskip("openvino.opset4.ops")  # Range-4 (openvino.opset4 re-exports v0)
opset4_ops = pytest.importorskip("openvino.opset4")
opset5 = pytest.importorskip("openvino.opset5")
opset8 = pytest.importorskip("openvino.opset8")

pytestmark = pytest.mark.oracle

F32 = np.float32
Build = Callable[[list[Any]], Any]
INF, NAN = float("inf"), float("nan")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def f32_const(values: list[float]) -> Any:
    return opset1.constant(np.array(values, F32))


def _scalars(*values: float, dtype: Any = F32) -> list[NDArray[Any]]:
    return [np.array(value, dtype) for value in values]


SPECIAL = np.array([2, -3, 1e-40, 0.5, -0.0, 0.0, INF, -INF, NAN, -2], F32)

LINEAR = np.array([0.1, 1e8, -3.3, 7.7e-3, 1e-7, 16777215, -INF, NAN], F32)
CLAMPED = np.array([-128, -5, 0, 1, 2, 3, 127, -1])
MATMUL_A = np.array([[0.25, 0, -INF], [0, 0.25, 1]], F32)
MATMUL_B = {  # [3, 3] weights, or their transpose for transpose_b
    False: np.array([[2e38, 0, 1], [0, 1, -3e38], [1, NAN, 0]], F32),
    True: np.array([[2e38, 0, 1], [0, 1, NAN], [1, -3e38, 0]], F32),
}

ROWS: dict[str, tuple[Build, list[NDArray[Any]]]] = {
    # Range-1 (opset1): its inputs' type; Range-4 otherwise
    "range1 f32 accumulates": (lambda p: opset1.range(*p), _scalars(0, 1, 0.1)),
    "range1 f32 step sign ignored": (lambda p: opset1.range(*p), _scalars(5, 0, 1)),
    "range1 f16": (lambda p: opset1.range(*p), _scalars(-9, -6, 0.3, dtype=np.float16)),
    "range1 i64 wraps": (
        lambda p: opset1.range(*p),
        _scalars(2**31 - 3, 2**31 + 2, 1, dtype=np.int64),
    ),
    "range1 u8": (lambda p: opset1.range(*p), _scalars(250, 255, 1, dtype=np.uint8)),
    "range1 i8 extremes": (lambda p: opset1.range(*p), _scalars(-128, 127, 50, dtype=np.int8)),
    "range1 folded f32": (
        lambda p: opset1.add(
            opset1.range(*(opset1.constant(v) for v in _scalars(0, 1, 0.1))), p[0]
        ),
        [np.zeros(10, F32)],
    ),
    # Range-4, f32 to integers: past int32 saturated to 2147483520, then as int32 values
    "range4 f32 to i64 past int32": (
        lambda p: opset4.range(*p, "i64"),
        _scalars(2147482648, 2147484648, 300),
    ),
    "range4 f32 to i16 past int32": (
        lambda p: opset4.range(*p, "i16"),
        _scalars(3e9, 3e9 + 1000, 256),
    ),
    "range4 f32 to u8 inf": (lambda p: opset4.range(*p, "u8"), _scalars(3e38, 0, 1e38)),
    "range4 f32 to i32 -inf": (lambda p: opset4.range(*p, "i32"), _scalars(-3e38, 0, -1e38)),
    "range4 f32 to i64 ties": (lambda p: opset4.range(*p, "i64"), _scalars(-2.5, 3, 1)),
    # Integer chains carry f32 on through activations (16-, 32- and 64-bit; not 8-bit)
    **{
        f"power then {name} {kind}": (
            lambda p, make=make: make(opset1.power(p[0], p[1])),
            [np.array([0, 2, -2, 7]).astype(kind), np.array([-1, 2, -1, 31]).astype(kind)],
        )
        for name, make in {
            "ReLU": opset1.relu,
            "Floor": opset1.floor,
            "Sigmoid": opset1.sigmoid,
            "HSigmoid": opset5.hsigmoid,
            "HSwish": opset4_ops.hswish,
        }.items()
        for kind in ("int32", "int64", "int16", "uint16", "uint32", "int8", "uint8")
    },
    # Clamp computes in integers: not fused (16-bit types left out: the CPU holds them as i32
    # between ops, which irpool does not model,
    # docs/element-types.md#i16-and-u16-tensors-between-ops)
    **{
        f"power then Clamp {kind}": (
            lambda p: opset1.clamp(opset1.power(p[0], p[1]), -5.0, 5.0),
            [np.array([0, 2, -2, 7]).astype(kind), np.array([-1, 2, -1, 31]).astype(kind)],
        )
        for kind in ("int32", "int64", "uint32", "int8", "uint8")
    },
    "power then ReLU then FloorMod i32": (
        lambda p: opset1.floor_mod(opset1.relu(opset1.power(p[0], p[1])), p[2]),
        [
            np.array([0, 2, -2, 7], np.int32),
            np.array([-1, 2, -1, 31], np.int32),
            np.full(4, 2, np.int32),
        ],
    ),
    # Slice-8 with bounds known at run time: wrapped to int32 as the CPU holds i64 tensors
    **{
        f"slice run-time {start} {stop} {step}": (
            lambda p: opset8.slice(p[0], p[1], p[2], p[3], opset1.constant(np.array([1]))),
            [
                np.arange(10, 20, dtype=F32).reshape(2, 5),
                *(np.array([v], np.int64) for v in (start, stop, step)),
            ],
        )
        for start, stop, step in [
            (-1, INT64_MIN, -2),
            (-1, INT64_MIN + 5, -2),
            (-1, -(2**31) - 1, -2),
            (-1, -(2**31), -2),
            (INT64_MIN + 1, -100, -1),
            (INT64_MIN, INT64_MIN, -3),
            (INT64_MAX, INT64_MIN, -3),
            (INT64_MIN, INT64_MAX, 3),
        ]
    },
    "slice constant INT64_MIN INT64_MIN -3": (
        lambda p: opset8.slice(
            p[0], *(opset1.constant(np.array([v], np.int64)) for v in (INT64_MIN, INT64_MIN, -3, 1))
        ),
        [np.arange(10, 20, dtype=F32).reshape(2, 5)],
    ),
    # MatMulMultiplyFusion: a column scale moves onto the weights (b * c overflows first)
    **{
        f"matmul {'tb ' if tb else ''}{'weights ' if weights else ''}times {list(scale.shape)}": (
            lambda p, tb=tb, weights=weights, scale=scale: opset1.multiply(
                opset1.matmul(p[0], p[1] if weights else opset1.constant(MATMUL_B[tb]), False, tb),
                opset1.constant(scale),
            ),
            [MATMUL_A, MATMUL_B[tb]] if weights else [MATMUL_A],
        )
        for tb in (False, True)
        for weights in (False, True)
        for scale in (
            np.array(2, F32),
            np.array([2], F32),
            np.array([2, -0.5, 1], F32),
            np.array([[2, -0.5, 1]], F32),
            np.array([[2], [-0.5]], F32),  # by row: not fused
            np.full((2, 3), 2, F32),  # not fused
            np.array([[[2, -0.5, 1]]], F32),
        )
    },
    # A Clamp after a MatMul or Convolution runs as its post-op: 8-bit bounds as wider types'
    **{
        f"{name} then Clamp {low} {high} {kind}": (
            lambda p, make=make, low=low, high=high: opset1.clamp(make(p[0]), low, high),
            [CLAMPED.astype(kind).reshape(1, 2, 4)],
        )
        for name, make in {
            "MatMul": lambda x: opset1.matmul(
                x, opset1.constant(np.eye(4, dtype=x.get_element_type().to_dtype())), False, False
            ),
            "Convolution": lambda x: opset1.convolution(
                x,
                opset1.constant(np.eye(2, dtype=x.get_element_type().to_dtype()).reshape(2, 2, 1)),
                [1],
                [0],
                [0],
                [1],
            ),
            "MaxPool": lambda x: opset1.max_pool(x, [1], [0], [0], [1]),
        }.items()
        for kind in ("int8", "uint8", "int32")
        for low, high in ((1.7, 5.2), (-1.5, 2.5), (-2.5, -0.5))
    },
    # Constant Add/Subtract/Multiply chains fold their constants first (LinOpSequenceFusion);
    # a Multiply read only by an Add is one FMA
    **{
        f"chain {name}": (lambda p, make=make: make(p[0]), [LINEAR])
        for name, make in {
            "x + c1 + c2": lambda x: opset1.add(opset1.add(x, f32_const([0.7])), f32_const([0.1])),
            "relu(x) + c1 + c2": lambda x: opset1.add(
                opset1.add(opset1.relu(x), f32_const([0.7] * 8)), f32_const([0.1] * 8)
            ),
            "x * c1 * c2": lambda x: opset1.multiply(
                opset1.multiply(x, f32_const([0.7])), f32_const([0.1])
            ),
            "(x + c1) * c2": lambda x: opset1.multiply(
                opset1.add(x, f32_const([0.7])), f32_const([0.1])
            ),
            "x - c1 - c2": lambda x: opset1.subtract(
                opset1.subtract(x, f32_const([0.7])), f32_const([0.1])
            ),
            "x * c1 + c2": lambda x: opset1.add(
                opset1.multiply(x, f32_const([0.1] * 8)), f32_const([0.07] * 8)
            ),
            "x / c1 * c2 + c3": lambda x: opset1.add(
                opset1.multiply(opset1.divide(x, f32_const([320.0])), f32_const([0.0125])),
                f32_const([0.07]),
            ),
            "c2 + (x + c1) * c3 * c4 + c5": lambda x: opset1.add(
                opset1.add(
                    f32_const([0.3]),
                    opset1.multiply(
                        opset1.multiply(opset1.add(x, f32_const([0.7])), f32_const([0.1])),
                        f32_const([1.3]),
                    ),
                ),
                f32_const([-0.2]),
            ),
        }.items()
    },
    # ... and so are a scale and shift varying along one axis but the first, dynamic or not
    "chain x * gamma + beta per channel": (
        lambda p: opset1.add(
            opset1.multiply(p[0], f32_const([0.5 + 0.1 * i for i in range(8)])),
            f32_const([0.07 - 0.03 * i for i in range(8)]),
        ),
        [np.stack([LINEAR, LINEAR[::-1] * F32(0.3), LINEAR * F32(-3.1)]).reshape(1, 3, 8)],
    ),
    "x * y + z": (
        lambda p: opset1.add(opset1.multiply(p[0], p[1]), p[2]),
        [LINEAR, LINEAR[::-1].copy(), np.full(8, 0.07, F32)],
    ),
    "x * y + z extremes": (
        lambda p: opset1.add(opset1.multiply(p[0], p[1]), p[2]),
        [
            np.array([-3.3, 16777215, 1e38, 1e38, NAN, -INF], F32),
            np.array([0.1, 1, 10, 10, 0, 0], F32),
            np.array([0.07, 1, -INF, -1e38, 1, 1], F32),
        ],
    ),
    # Subnormal f32 constants: +0 unless a one-element elementwise operand
    "x ** [1e-40] x 10": (lambda p: opset1.power(p[0], f32_const([1e-40] * 10)), [SPECIAL]),
    "x ** [1e-40]": (lambda p: opset1.power(p[0], f32_const([1e-40])), [SPECIAL]),
    "x * [-1e-42] x 10": (lambda p: opset1.multiply(p[0], f32_const([-1e-42] * 10)), [SPECIAL]),
    "x * [-1e-42]": (lambda p: opset1.multiply(p[0], f32_const([-1e-42])), [SPECIAL]),
    "x + [-1e-40] x 10 then ReLU": (
        lambda p: opset1.relu(opset1.add(p[0], f32_const([-1e-40] * 10))),
        [SPECIAL],
    ),
    "concat [-0, 1e-40, -0]": (
        lambda p: opset1.concat([p[0], f32_const([-0.0, 1e-40, -0.0])], 0),
        [SPECIAL],
    ),
    "concat [-0, 2]": (lambda p: opset1.concat([p[0], f32_const([-0.0, 2.0])], 0), [SPECIAL]),
    "concat [-1e-40]": (lambda p: opset1.concat([p[0], f32_const([-1e-40])], 0), [SPECIAL]),
    "select [-1e-40]": (
        lambda p: opset1.select(
            opset1.constant(np.array([True, False] * 5)), f32_const([-1e-40]), p[0]
        ),
        [SPECIAL],
    ),
    "x * f64 [-1e-42] converted": (
        lambda p: opset1.multiply(
            p[0], opset1.convert(opset1.constant(np.full(10, -1e-42, np.float64)), "f32")
        ),
        [SPECIAL],
    ),
    "matmul subnormal weights": (
        lambda p: opset1.matmul(
            opset1.reshape(p[0], opset1.constant(np.array([5, 2], np.int64)), False),
            f32_const([[1e-40, -1e-40], [3e-39, 1.0]]),
            False,
            False,
        ),
        [SPECIAL],
    ),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_repro_runs_as_the_cpu(name: str, tmp_path: Path) -> None:
    _runs_as_the_cpu(name, tmp_path, dynamic=False)


@pytest.mark.parametrize("name", [name for name in ROWS if name.startswith(("chain ", "x * y"))])
def test_linear_repro_on_dynamic_shapes_runs_as_the_cpu(name: str, tmp_path: Path) -> None:
    """With dynamic shapes the CPU rounds a product before the Add reading it (no FMA), but
    for a constant scale and shift varying along one axis, not the first (a LayerNorm's gamma
    and beta)."""
    _runs_as_the_cpu(name, tmp_path, dynamic=True)


def _runs_as_the_cpu(name: str, tmp_path: Path, *, dynamic: bool) -> None:
    build, inputs = ROWS[name]
    parameters = [
        opset1.parameter([-1] * a.ndim if dynamic else list(a.shape), a.dtype, name=f"in{i}")
        for i, a in enumerate(inputs)
    ]
    model = ov.Model([opset1.result(build(parameters), name="out")], parameters, "repro")
    ours, theirs = run_both(
        ov, ov.Core(), model, tmp_path / "repro.xml", {f"in{i}": a for i, a in enumerate(inputs)}
    )
    ((key, expected),) = theirs.items()
    actual = ours[key]
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, describe_difference(
        actual, expected
    )
    if expected.dtype.kind == "f":
        same = np.array_equal(actual, expected, equal_nan=True) and np.array_equal(
            np.signbit(actual) | np.isnan(actual), np.signbit(expected) | np.isnan(expected)
        )
    else:
        same = np.array_equal(actual, expected)
    assert same, describe_difference(actual, expected)


# A dynamic Convolution/GroupConvolution whose dilated kernel is longer than the padded input
# at run time: (data shape, kernel, dilation, pads begin/end, stride, auto_pad). The CPU runs
# one longer with stride 1 as 0 windows and fails the others' inference, as irpool does.
DILATED_PAST_THE_INPUT = [
    ((1, 2, 3, 3), (2, 2), 3, (0, 0), 1, "explicit"),
    ((1, 2, 3, 3), (3, 3), 2, (1, 0), 1, "explicit"),
    ((1, 2, 4), (3,), 3, (1, 1), 1, "explicit"),
    ((1, 2, 1), (2,), 1, (0, 0), 1, "explicit"),
    ((1, 2, 2), (3,), 1, (0, 0), 1, "valid"),
    ((1, 2, 3, 3), (3, 3), 2, (0, 0), 1, "explicit"),  # two longer: both fail
    ((1, 2, 2), (3,), 1, (0, 0), 2, "explicit"),  # stride 2: both fail
]


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize(
    ("shape", "kernel", "dilation", "pads", "stride", "auto_pad"), DILATED_PAST_THE_INPUT
)
def test_dynamic_convolution_past_the_input(
    shape: tuple[int, ...],
    kernel: tuple[int, ...],
    dilation: int,
    pads: tuple[int, int],
    stride: int,
    auto_pad: str,
    grouped: bool,
    tmp_path: Path,
) -> None:
    spatial = len(kernel)
    data = opset1.parameter(ov.PartialShape([1, 2] + [-1] * spatial), F32, name="in0")
    lists = ([stride] * spatial, [pads[0]] * spatial, [pads[1]] * spatial, [dilation] * spatial)
    if grouped:
        weights = opset1.constant(np.ones((2, 1, 1, *kernel), F32))
        conv = opset1.group_convolution(data, weights, *lists, auto_pad)
    else:
        conv = opset1.convolution(
            data, opset1.constant(np.ones((2, 2, *kernel), F32)), *lists, auto_pad
        )
    path = tmp_path / "conv.xml"
    ov.save_model(ov.Model([opset1.result(conv, name="out")], [data], "conv"), path)
    x = np.arange(np.prod(shape), dtype=F32).reshape(shape)
    core = ov.Core()
    try:
        compiled = core.compile_model(
            core.read_model(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"}
        )
        theirs = next(iter(compiled.create_infer_request().infer([x]).values()))
    except RuntimeError:
        with pytest.raises(irpool.InputError, match="Kernel after dilation"):
            irpool.load(path).run({"in0": x})
        return
    ours = irpool.load(path).run({"in0": x})["out"]
    assert ours.shape == theirs.shape and ours.size == 0
