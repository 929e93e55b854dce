"""The golden vectors (tests/golden_cnn_ops/): inputs and the CPU's outputs per case."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from ov_builders import opset1, opset3, opset4, opset5, ov

from cnn_ops.probes import (
    CONFIG,
    DENORMAL,
    INF,
    NAN,
    Array,
    Build,
    binary,
    convolution,
    divide,
    gather8,
    int_pairs,
    matmul,
    probe_values,
    run,
    softmax8,
    variadic_split,
)


@dataclass(frozen=True)
class Golden:
    name: str
    op: str
    attributes: dict[str, Any]
    build: Build
    inputs: list[np.ndarray]


def special_grid(shape: Sequence[int], rng: np.random.Generator) -> np.ndarray:
    """randn*4 with NaN, ±inf, ±0, large and subnormal values sprinkled in."""
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    flat = x.reshape(-1)
    picks = rng.choice(flat.size, size=min(flat.size, 12), replace=False)
    values = [NAN, INF, -INF, 0.0, -0.0, 3e38, -3e38, DENORMAL, -3.0, 3.0, 1e-30, -1e20]
    flat[picks] = np.array(values[: len(picks)], np.float32)
    return x


def group_convolution(strides: list[int], auto_pad: str) -> Build:
    """GroupConvolution-1 of p[0] by p[1], pads 1, no dilation."""
    return lambda p: opset1.group_convolution(p[0], p[1], strides, [1, 1], [1, 1], [1, 1], auto_pad)


def _convolutions(rng: np.random.Generator, x8: Array, cases: list[Golden]) -> None:
    """Convolution-1 per auto_pad, stride and dilation; GroupConvolution-1 per group count."""
    for auto_pad in ("explicit", "same_upper", "same_lower", "valid"):
        for stride, dil in ((1, 1), (2, 1), (2, 2)):
            w = (rng.standard_normal((3, 4, 3, 3)) * 0.3).astype(np.float32)
            pb, pe = [1, 0], [2, 1]
            attrs = {
                "strides": [stride] * 2,
                "dilations": [dil] * 2,
                "pads_begin": pb,
                "pads_end": pe,
                "auto_pad": auto_pad,
            }
            cases.append(
                Golden(
                    f"convolution_{auto_pad}_s{stride}_d{dil}",
                    "Convolution-1",
                    attrs,
                    convolution([stride] * 2, pb, pe, [dil] * 2, auto_pad),
                    [x8, w],
                )
            )
    finite = (rng.standard_normal((2, 6, 9, 9))).astype(np.float32)
    for groups, per in ((6, 1), (3, 2), (2, 3)):
        w = (rng.standard_normal((groups, per, 6 // groups, 3, 3)) * 0.3).astype(np.float32)
        for auto_pad in ("explicit", "same_upper"):
            attrs = {
                "strides": [2, 1],
                "dilations": [1, 1],
                "pads_begin": [1, 1],
                "pads_end": [1, 1],
                "auto_pad": auto_pad,
            }
            cases.append(
                Golden(
                    f"group_convolution_g{groups}_{auto_pad}",
                    "GroupConvolution-1",
                    attrs,
                    group_convolution([2, 1], auto_pad),
                    [finite, w],
                )
            )
    cases.append(
        Golden(
            "group_convolution_depthwise_nonfinite",
            "GroupConvolution-1",
            {
                "strides": [1, 1],
                "dilations": [1, 1],
                "pads_begin": [1, 1],
                "pads_end": [1, 1],
                "auto_pad": "explicit",
            },
            lambda p: opset1.group_convolution(p[0], p[1], [1, 1], [1, 1], [1, 1], [1, 1]),
            [x8, (rng.standard_normal((4, 1, 1, 3, 3))).astype(np.float32)],
        )
    )


def _unary(rng: np.random.Generator, cases: list[Golden]) -> None:
    """The activations on the probe values, Floor and Clamp on integers."""
    values = probe_values(rng, 600)
    for name, op, attrs, build in (
        ("relu", "ReLU-1", {}, lambda p: opset1.relu(p[0])),
        ("clamp_0_6", "Clamp-1", {"min": 0.0, "max": 6.0}, lambda p: opset1.clamp(p[0], 0.0, 6.0)),
        (
            "clamp_neg",
            "Clamp-1",
            {"min": -1.5, "max": 0.25},
            lambda p: opset1.clamp(p[0], -1.5, 0.25),
        ),
        ("sigmoid", "Sigmoid-1", {}, lambda p: opset1.sigmoid(p[0])),
        ("swish", "Swish-4", {}, lambda p: opset4.swish(p[0])),
        ("hswish", "HSwish-4", {}, lambda p: opset4.hswish(p[0])),
        ("hsigmoid", "HSigmoid-5", {}, lambda p: opset5.hsigmoid(p[0])),
        ("floor", "Floor-1", {}, lambda p: opset1.floor(p[0])),
        ("sqrt", "Sqrt-1", {}, lambda p: opset1.sqrt(p[0])),
    ):
        cases.append(Golden(name, op, attrs, build, [values]))
    cases.append(
        Golden(
            "swish_beta",
            "Swish-4",
            {},
            lambda p: opset4.swish(p[0], p[1]),
            [values, np.array(0.75, np.float32)],
        )
    )
    for dtype in (np.int32, np.int64):
        ints = np.array([-7, -1, 0, 1, 7, 2**31 - 1, -(2**31)], dtype)
        cases.append(
            Golden(f"floor_{dtype.__name__}", "Floor-1", {}, lambda p: opset1.floor(p[0]), [ints])
        )
        cases.append(
            Golden(
                f"clamp_{dtype.__name__}",
                "Clamp-1",
                {"min": 0.5, "max": 5.5},
                lambda p: opset1.clamp(p[0], 0.5, 5.5),
                [ints],
            )
        )


def _binary(rng: np.random.Generator, a4: Array, cases: list[Golden]) -> None:
    """The binary ops per broadcast, on special values and on integers."""
    for spec, b in (("numpy", special_grid((3, 1), rng)), ("none", special_grid((2, 3, 4), rng))):
        for name, op, maker in (
            ("add", "Add-1", opset1.add),
            ("multiply", "Multiply-1", opset1.multiply),
            ("subtract", "Subtract-1", opset1.subtract),
            ("greater", "Greater-1", opset1.greater),
            ("divide", "Divide-1", opset1.divide),
            ("mod", "Mod-1", opset1.mod),
            ("power", "Power-1", opset1.power),
        ):
            attrs = {"auto_broadcast": spec} | ({"m_pythondiv": True} if name == "divide" else {})
            cases.append(
                Golden(f"{name}_{spec}", op, attrs, binary(maker, auto_broadcast=spec), [a4, b])
            )
    cases.append(
        Golden(
            "add_pdpd",
            "Add-1",
            {"auto_broadcast": "pdpd"},
            binary(opset1.add, auto_broadcast="pdpd"),
            [a4, special_grid((2, 3), rng)],
        )
    )
    for dtype in (np.int32, np.int64, np.uint8):
        a, b = int_pairs(dtype)
        keep = b != 0
        a, b = a[keep], b[keep]
        for python in (True, False):
            cases.append(
                Golden(
                    f"divide_{dtype.__name__}_pythondiv_{str(python).lower()}",
                    "Divide-1",
                    {"m_pythondiv": python},
                    divide(python),
                    [a, b],
                )
            )
        for name, op, maker in (
            ("mod", "Mod-1", opset1.mod),
            ("greater", "Greater-1", opset1.greater),
            ("add", "Add-1", opset1.add),
            ("multiply", "Multiply-1", opset1.multiply),
        ):
            cases.append(Golden(f"{name}_{dtype.__name__}", op, {}, binary(maker), [a, b]))


def _shaping(rng: np.random.Generator, a4: Array, cases: list[Golden]) -> None:
    """Concat, MatMul and Transpose."""
    cases.append(
        Golden(
            "concat_axis1",
            "Concat-1",
            {"axis": 1},
            lambda p: opset1.concat(p, 1),
            [a4, special_grid((2, 2, 4), rng)],
        )
    )
    cases.append(
        Golden(
            "concat_axis_neg1",
            "Concat-1",
            {"axis": -1},
            lambda p: opset1.concat(p, -1),
            [a4, a4[..., :1].copy()],
        )
    )
    for ta, tb, sa, sb in (
        (False, False, (2, 3, 4), (4, 5)),
        (False, True, (3, 8), (6, 8)),
        (True, False, (2, 1, 4, 3), (3, 4, 2)),
        (False, False, (4,), (4, 3)),
        (False, False, (2, 4), (4,)),
        (True, True, (5, 2), (3, 5)),
    ):
        cases.append(
            Golden(
                f"matmul_{'x'.join(map(str, sa))}_{'x'.join(map(str, sb))}_ta{int(ta)}_tb{int(tb)}",
                "MatMul-1",
                {"transpose_a": ta, "transpose_b": tb},
                matmul(ta, tb),
                [special_grid(sa, rng), special_grid(sb, rng)],
            )
        )
    for order in ([2, 0, 1], [0, 2, 1], [1, 0, 2]):
        cases.append(
            Golden(
                f"transpose_{''.join(map(str, order))}",
                "Transpose-1",
                {},
                lambda p: opset1.transpose(p[0], p[1]),
                [a4, np.array(order, np.int64)],
            )
        )


def _indexing(rng: np.random.Generator, cases: list[Golden]) -> None:
    """Gather-8, ShapeOf, VariadicSplit and SoftMax-8 on one tensor."""
    data = special_grid((2, 3, 5), rng)
    for idx, axis, bd in (
        ([0, 4, -1, -5, 2], 2, 0),
        ([[1, -1], [0, 2]], 1, 0),
        ([[0, -1, 3], [4, 1, -5]], 2, 1),
        ([1, 0], 0, 0),
    ):
        cases.append(
            Golden(
                f"gather8_axis{axis}_bd{bd}_{len(cases)}",
                "Gather-8",
                {"batch_dims": bd, "axis (Const)": axis},
                gather8(axis, bd),
                [data, np.array(idx, np.int64)],
            )
        )
    cases.append(
        Golden(
            "shapeof3_i32",
            "ShapeOf-3",
            {"output_type": "i32"},
            lambda p: opset3.shape_of(p[0], "i32"),
            [data],
        )
    )
    cases.append(
        Golden(
            "shapeof3_i64",
            "ShapeOf-3",
            {"output_type": "i64"},
            lambda p: opset3.shape_of(p[0], "i64"),
            [data],
        )
    )
    cases.append(Golden("shapeof1", "ShapeOf-1", {}, lambda p: opset1.shape_of(p[0]), [data]))
    for axis, lengths in ((2, [2, -1, 1]), (-1, [0, 5]), (1, [1, 2])):
        cases.append(
            Golden(
                f"variadic_split_axis{axis}_{len(cases)}",
                "VariadicSplit-1",
                {"axis (Const)": axis, "split_lengths (Const)": lengths},
                variadic_split(axis, lengths),
                [data],
            )
        )
    for axis in (-1, 1):
        cases.append(
            Golden(
                f"softmax8_axis{axis}",
                "SoftMax-8",
                {"axis": axis},
                softmax8(axis),
                [data],
            )
        )


def golden_cases(rng: np.random.Generator) -> list[Golden]:
    """Every case, its inputs drawn from `rng` in this order (the committed files' order)."""
    cases: list[Golden] = []
    _convolutions(rng, special_grid((1, 4, 7, 7), rng), cases)
    _unary(rng, cases)
    a4 = special_grid((2, 3, 4), rng)
    _binary(rng, a4, cases)
    _shaping(rng, a4, cases)
    _indexing(rng, cases)
    return cases


def write_golden(directory: Path, rng: np.random.Generator) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    index: dict[str, Any] = {
        "openvino": ov.__version__,
        "config": CONFIG,
        "generator": "tools/measure_cnn_ops.py --golden",
        "cases": [],
    }
    for case in golden_cases(rng):
        outputs = run(case.build, case.inputs)
        if isinstance(outputs, str):
            raise SystemExit(f"{case.name}: {outputs}")
        arrays = {f"input{i}": x for i, x in enumerate(case.inputs)}
        arrays |= {f"output{i}": y for i, y in enumerate(outputs)}
        np.savez_compressed(directory / f"{case.name}.npz", allow_pickle=False, **arrays)
        index["cases"].append(
            {
                "name": case.name,
                "op": case.op,
                "attributes": case.attributes,
                "inputs": [{"shape": list(x.shape), "dtype": str(x.dtype)} for x in case.inputs],
                "outputs": [{"shape": list(y.shape), "dtype": str(y.dtype)} for y in outputs],
            }
        )
    (directory / "index.json").write_text(json.dumps(index, indent=1) + "\n")
