"""Section 4: the binary ops on integers and special values, and the index ops."""

from __future__ import annotations

from typing import Any

import numpy as np
from ov_builders import opset1, opset3, opset4, opset7, opset8, ov

from cnn_ops.probes import (
    INF,
    NAN,
    Row,
    binary,
    cell,
    clamp,
    const,
    divide,
    first,
    gather8,
    int_pairs,
    run,
    table,
)


def _special_values() -> list[str]:
    """The binary ops on integers and float special values, element by element."""
    lines: list[str] = []
    rows: list[Row] = []
    fa = np.array(
        [7, -7, 7, -7, 5.5, -5.5, 1, -1, 0, 0, INF, -INF, NAN, 1, INF, 3e38, 1e-45, -0.0],
        np.float32,
    )
    fb = np.array([2, 2, -2, -2, 2, 2, 0, 0, 0, -0.0, 2, 2, 1, NAN, INF, 0.1, 3, 2], np.float32)
    for dtype in (np.float32, np.int32, np.int64, np.uint8, np.int8):
        a, b = (fa, fb) if dtype == np.float32 else int_pairs(dtype)
        rows.append(("a", dtype.__name__, a))
        rows.append(("b", dtype.__name__, b))
        for label, build in (
            ("Divide pythondiv=true", divide(True)),
            ("Divide pythondiv=false", divide(False)),
            ("Mod", binary(opset1.mod)),
            ("Greater", binary(opset1.greater)),
            ("Add", binary(opset1.add)),
            ("Subtract", binary(opset1.subtract)),
            ("Multiply", binary(opset1.multiply)),
            ("Power", binary(opset1.power)),
        ):
            out = run(build, [a, b])
            rows.append((label, dtype.__name__, first(out)))
    lines += table(["op", "type", "output (element-wise over a, b)"], rows)
    return lines


def _integer_division() -> list[str]:
    """Integer division by zero, of constants and of shape subgraphs."""
    lines: list[str] = []
    rows: list[Row] = []
    for dtype in (np.int32, np.int64):
        for python in (True, False):
            a, b = np.array([7, -7, 0], dtype), np.array([0, 0, 0], dtype)
            out = run(divide(python), [a, b])
            rows.append((dtype.__name__, python, a, b, first(out)))
    # The same division with constant inputs (folded by the core at compile time) and on a
    # ShapeOf output (a dynamic model's shape subgraph), pythondiv true.
    for label, build, inputs in (
        (
            "constants -7/2, 7/-2, -1/3 (folded)",
            lambda p: divide(True)([const([-7, 7, -1], np.int64), const([2, -2, 3], np.int64)]),
            [np.zeros(1, np.float32)],
        ),
        (
            "ShapeOf([7,5,1]) / [-2,2,-3]",
            lambda p: divide(True)([opset3.shape_of(p[0]), const([-2, 2, -3], np.int64)]),
            [np.zeros((7, 5, 1), np.float32)],
        ),
        (
            "ShapeOf([7,5,1]) / [-2,2,-3], pythondiv false",
            lambda p: divide(False)([opset3.shape_of(p[0]), const([-2, 2, -3], np.int64)]),
            [np.zeros((7, 5, 1), np.float32)],
        ),
    ):
        for dynamic in (False, True):
            out = run(build, inputs, dynamic)
            shown = f"{label}, input {'dynamic' if dynamic else 'static'}"
            rows.append(("int64", shown, "", "", first(out)))
    for python in (True, False):
        a, b = np.array([-7, 7, -1], np.int32), np.array([2, -2, 3], np.int32)
        out = run(divide(python), [a, b], dynamic=True)
        rows.append(("int32 dynamic", python, a, b, first(out)))
    lines += ["Integer division by zero, constants, shape subgraphs:", ""]
    lines += table(["type", "pythondiv", "a", "b", "output"], rows)
    return lines


def _large_integers() -> list[str]:
    """Mod and Divide of integers beyond f32's 24 bits: exact, or through f32?"""
    lines: list[str] = []
    rows: list[Row] = []
    for dtype in (np.int32, np.int64):
        a = np.array([2**24 + 1, 2**31 - 1, -(2**31) + 1, 123456789, 2**30 + 3], dtype)
        b = np.array([2, 2, 3, 10, 7], dtype)
        for label, build in (
            ("Mod", binary(opset1.mod)),
            ("Divide py", divide(True)),
            ("Divide c", divide(False)),
        ):
            out = run(build, [a, b])
            rows.append((label, dtype.__name__, a, b, first(out)))
        if dtype == np.int64:
            a = np.array([2**40 + 3, -(2**40) - 3, 2**53 + 1], dtype)
            b = np.array([2, 2, 2], dtype)
            for label, build in (
                ("Mod", binary(opset1.mod)),
                ("Divide py", divide(True)),
                ("Add", binary(opset1.add)),
            ):
                out = run(build, [a, b])
                rows.append((label, "int64", a, b, first(out)))
    lines += ["Large integers (exact, or through f32?):", ""]
    lines += table(["op", "type", "a", "b", "output"], rows)
    return lines


def _unary_on_integers() -> list[str]:
    """The unary ops on integer inputs."""
    lines: list[str] = []
    rows: list[Row] = []
    ints = np.array([-7, -1, 0, 1, 7, 2**31 - 1, -(2**31)], np.int32)
    for label, build in (
        ("Floor", lambda p: opset1.floor(p[0])),
        ("ReLU", lambda p: opset1.relu(p[0])),
        ("Clamp 0.5..5.5", lambda p: opset1.clamp(p[0], 0.5, 5.5)),
        ("Clamp -1.5..1.5", lambda p: opset1.clamp(p[0], -1.5, 1.5)),
        ("Sigmoid", lambda p: opset1.sigmoid(p[0])),
        ("HSwish", lambda p: opset4.hswish(p[0])),
        ("Sqrt", lambda p: opset1.sqrt(p[0])),
    ):
        for dtype in (np.int32, np.int64, np.uint8):
            x = ints.astype(dtype) if dtype != np.uint8 else np.array([0, 1, 7, 200, 255], dtype)
            out = run(build, [x])
            rows.append((label, dtype.__name__, x, first(out)))
    lines += ["Unary ops on integers:", ""]
    lines += table(["op", "type", "x", "output"], rows)
    return lines


def _clamp_bounds() -> list[str]:
    """Clamp with NaN or infinite bounds, and min > max."""
    lines: list[str] = []
    rows: list[Row] = []
    x = np.array([NAN, -INF, INF, -1, 0.5, 3, 7, -0.0], np.float32)
    for lo, hi in ((0.0, 6.0), (5.0, 1.0), (NAN, 1.0), (0.0, NAN), (-INF, INF), (1.0, 1.0)):
        out = run(clamp(lo, hi), [x])
        rows.append((lo, hi, x, first(out)))
    lines += ["Clamp bounds:", ""]
    lines += table(["min", "max", "x", "output"], rows)
    return lines


def _gather_indices() -> list[str]:
    """Gather-1, -7 and -8 with negative and out-of-range indices."""
    lines: list[str] = []
    rows: list[Row] = []
    data = np.arange(10, dtype=np.float32).reshape(2, 5)
    for version, maker in ((8, opset8.gather), (7, opset7.gather), (1, opset1.gather)):
        for idx in ([0, 4, -1, -5], [5, -6, 100, -100], [2**31, -(2**31) - 1]):
            for itype in (np.int64, np.int32):
                values = np.array(idx, np.int64)
                if itype == np.int32 and (values.max() > 2**31 - 1 or values.min() < -(2**31)):
                    continue
                indices = values.astype(itype)

                def build(p: list[ov.Node], maker: Any = maker, version: int = version) -> ov.Node:
                    axis = const(1, np.int64)
                    return maker(p[0], p[1], axis) if version == 1 else maker(p[0], p[1], axis, 0)

                out = run(build, [data, indices])
                rows.append((version, itype.__name__, indices, first(out)))
    lines += [f"Gather along axis 1 of {data.tolist()}:", ""]
    lines += table(["version", "index type", "indices", "output"], rows)
    return lines


def _gather_batch_dims() -> list[str]:
    """Gather-8 with batch_dims."""
    lines: list[str] = []
    rows: list[Row] = []
    data3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for idx, axis, bd in (
        ([[0, 3], [1, -1]], 2, 1),
        ([[0, 2], [1, 1]], 1, 1),
        ([[1], [0]], 2, -1),
        ([[[0, 1]] * 3, [[2, 3]] * 3], 2, 2),
        ([[0, 4]] * 2, 2, 1),
    ):
        indices = np.array(idx, np.int64)
        out = run(
            gather8(axis, bd),
            [data3, indices],
        )
        rows.append((axis, bd, indices, first(out)))
    lines += ["Gather-8 batch_dims on arange(24).reshape(2,3,4):", ""]
    lines += table(["axis", "batch_dims", "indices", "output"], rows)
    return lines


def _on_non_finite() -> list[str]:
    """The index ops and Greater on NaN, -0 and inf, and with axes from a Parameter."""
    lines: list[str] = []
    rows: list[Row] = []
    x = np.array([[NAN, -0.0, INF], [1, 2, 3]], np.float32)
    for label, build in (
        ("Transpose [1,0]", lambda p: opset1.transpose(p[0], const([1, 0], np.int64))),
        (
            "VariadicSplit axis 1 [1,-1]",
            lambda p: opset1.variadic_split(p[0], const(1, np.int64), const([1, -1], np.int64)),
        ),
        (
            "VariadicSplit axis -1 [0,3]",
            lambda p: opset1.variadic_split(p[0], const(-1, np.int64), const([0, 3], np.int64)),
        ),
        ("Concat axis -1 with itself", lambda p: opset1.concat([p[0], p[0]], -1)),
        ("ShapeOf-3 i32", lambda p: opset3.shape_of(p[0], "i32")),
        ("ShapeOf-1", lambda p: opset1.shape_of(p[0])),
        ("Greater than 1", lambda p: opset1.greater(p[0], const(1.0))),
        ("SoftMax-8 axis -1", lambda p: opset8.softmax(p[0], -1)),
    ):
        out = run(build, [x])
        outs = out if isinstance(out, str) else " ; ".join(cell(o) for o in out)
        rows.append((label, outs))
    for label, build, extra in (
        (
            "Gather-8, axis a Parameter (= 1)",
            lambda p: opset8.gather(p[0], const([0], np.int64), p[1], 0),
            np.array(1, np.int64),
        ),
        (
            "VariadicSplit, lengths a Parameter (= [1, 2])",
            lambda p: opset1.variadic_split(p[0], const(1, np.int64), p[1]),
            np.array([1, 2], np.int64),
        ),
        (
            "Transpose, order a Parameter (= [1, 0])",
            lambda p: opset1.transpose(p[0], p[1]),
            np.array([1, 0], np.int64),
        ),
    ):
        out = run(build, [x, extra])
        rows.append((label, out if isinstance(out, str) else " ; ".join(cell(o) for o in out)))
    lines += [f"On x = {x.tolist()}:", ""]
    lines += table(["op", "outputs"], rows)
    return lines


def binary_section() -> list[str]:
    parts = (
        _special_values, _integer_division, _large_integers, _unary_on_integers,
        _clamp_bounds, _gather_indices, _gather_batch_dims, _on_non_finite,
    )  # fmt: skip
    return ["## 4. Binary ops, integers, index ops", ""] + [
        line for part in parts for line in part()
    ]
