"""Section 2: the core's shape inference, asked through the Python builders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from ov_builders import opset1, opset3, opset4, opset8, ov

from cnn_ops.probes import (
    Build,
    Row,
    concat,
    const,
    conv_out,
    divide,
    gather8,
    matmul,
    shape_of,
    softmax8,
    table,
    transpose,
    variadic_split,
)


def conv(
    strides: Sequence[int],
    pb: Sequence[int],
    pe: Sequence[int],
    dil: Sequence[int],
    auto_pad: str,
    out_ch: int = 4,
    kernel: Sequence[int] = (3, 3),
) -> Build:
    def build(p: list[ov.Node]) -> ov.Node:
        channels = p[0].get_output_partial_shape(0)[1]
        c = channels.get_length() if channels.is_static else 3
        w = const(np.ones((out_ch, c, *kernel)))
        return opset1.convolution(p[0], w, list(strides), list(pb), list(pe), list(dil), auto_pad)

    return build


def conv_formula_check(rng: np.random.Generator, count: int) -> list[str]:
    """The output-length formula against the builders' shape inference on random 1-D convs."""
    agree, refused_both, cases = 0, 0, 0
    disagreements: list[tuple[Any, ...]] = []
    for _ in range(count):
        d, k, s, dil = (int(v) for v in rng.integers([1, 1, 1, 1], [20, 6, 5, 4]))
        pb, pe = (int(v) for v in rng.integers(0, 4, 2))
        auto_pad = str(rng.choice(["explicit", "valid", "same_upper", "same_lower"]))
        got = shape_of(conv([s], [pb], [pe], [dil], auto_pad, 1, [k]), [f"1,3,{d}"])
        want = conv_out(d, k, s, dil, pb, pe, auto_pad)
        cases += 1
        if got.startswith("error"):
            ok = want is None
            refused_both += ok
        else:
            ok = want is not None and got.startswith(f"[1,1,{want}]")
        agree += ok
        if not ok and len(disagreements) < 8:
            disagreements.append((d, k, s, dil, pb, pe, auto_pad, got, want))
    lines = [
        f"Formula `conv_out` vs shape inference, {cases} random 1-D convolutions (D 1-19, k 1-5,"
        f" s 1-4, d 1-3, pads 0..3, every auto_pad): {agree} agree ({refused_both} refused by"
        " both).",
        "",
    ]
    if disagreements:
        lines += table(
            ["D", "k", "s", "d", "pb", "pe", "auto_pad", "runtime", "formula"], disagreements
        )
    return lines


def broadcast(maker: Callable[..., ov.Node], spec: str = "numpy") -> Build:
    def build(p: list[ov.Node]) -> ov.Node:
        return maker(p[0], p[1], auto_broadcast=spec)

    return build


def shape_dims(x: ov.Node, indices: Sequence[int]) -> ov.Node:
    return opset8.gather(opset3.shape_of(x), const(list(indices), np.int64), const(0, np.int64))


def flatten(p: list[ov.Node]) -> ov.Node:
    """torch's flatten(1) as convert_model writes it: the batch dim from ShapeOf, then -1."""
    target = opset1.concat([shape_dims(p[0], [0]), const([-1], np.int64)], 0)
    return opset1.reshape(p[0], target, False)


def channel_shuffle(p: list[ov.Node]) -> ov.Node:
    """x.view(b, 2, c // 2, h, w): the dims from ShapeOf, c // 2 a Divide with m_pythondiv."""
    half = divide(True)([shape_dims(p[0], [1]), const([2], np.int64)])
    parts = [shape_dims(p[0], [0]), const([2], np.int64), half, shape_dims(p[0], [2, 3])]
    return opset1.reshape(p[0], opset1.concat(parts, 0), False)


class Add(Protocol):
    """Adds a row: a label, the op, its input shapes and (unless f32) their element types."""

    def __call__(
        self, label: str, build: Build, shapes: Sequence[str], types: Sequence[Any] | None = None
    ) -> None: ...


def _convolutions(add: Add) -> None:
    """Convolution and GroupConvolution per auto_pad, on static, dynamic and interval dims."""
    for auto_pad in ("explicit", "valid", "same_upper", "same_lower"):
        for shape in ("1,3,10,11", "?,3,?,?", "1,3,10..20,1..7", "1,3,2..,..5", "1,?,8,8"):
            add(
                f"Conv k3 s2 d1 p1/1 {auto_pad}",
                conv([2, 2], [1, 1], [1, 1], [1, 1], auto_pad),
                [shape],
            )
        add(
            f"Conv k3 s1 d2 p0/0 {auto_pad}",
            conv([1, 1], [0, 0], [0, 0], [2, 2], auto_pad),
            ["1,3,4,5"],
        )
    add("Conv k3 p0 on D=2", conv([1, 1], [0, 0], [0, 0], [1, 1], "explicit"), ["1,3,2,9"])
    add("Conv k3 p0 on D=1..2", conv([1, 1], [0, 0], [0, 0], [1, 1], "explicit"), ["1,3,1..2,9"])
    add("Conv k3 p0 on D=1..5", conv([1, 1], [0, 0], [0, 0], [1, 1], "explicit"), ["1,3,1..5,9"])
    add(
        "Conv pads -1/-1 k1",
        conv([1, 1], [-1, -1], [-1, -1], [1, 1], "explicit", 4, [1, 1]),
        ["1,3,5,5"],
    )
    add(
        "Conv channel mismatch",
        lambda p: opset1.convolution(
            p[0], const(np.ones((4, 2, 3, 3))), [1, 1], [0, 0], [0, 0], [1, 1]
        ),
        ["1,3,8,8"],
    )
    add(
        "Conv data rank 3 / filter rank 4",
        lambda p: opset1.convolution(p[0], const(np.ones((4, 3, 3, 3))), [1], [0], [0], [1]),
        ["1,3,8"],
    )
    add(
        "Conv strides of wrong length",
        lambda p: opset1.convolution(
            p[0], const(np.ones((4, 3, 3, 3))), [1], [0, 0], [0, 0], [1, 1]
        ),
        ["1,3,8,8"],
    )
    add(
        "Conv filter as Parameter ?,?,3,3",
        lambda p: opset1.convolution(p[0], p[1], [1, 1], [0, 0], [0, 0], [1, 1]),
        ["1,3,8,8", "?,?,3,3"],
    )
    add(
        "GroupConv G=3 C=6 (w 3,2,2,1,1) on C=6",
        lambda p: opset1.group_convolution(
            p[0], const(np.ones((3, 2, 2, 1, 1))), [1, 1], [0, 0], [0, 0], [1, 1]
        ),
        ["1,6,5,5"],
    )
    add(
        "GroupConv G=3 on C=5",
        lambda p: opset1.group_convolution(
            p[0], const(np.ones((3, 2, 2, 1, 1))), [1, 1], [0, 0], [0, 0], [1, 1]
        ),
        ["1,5,5,5"],
    )
    add(
        "GroupConv G=3 on C=?",
        lambda p: opset1.group_convolution(
            p[0], const(np.ones((3, 2, 2, 3, 3))), [2, 2], [1, 1], [1, 1], [1, 1], "same_lower"
        ),
        ["1,?,7,7"],
    )


def _broadcasts(add: Add) -> None:
    """The numpy, pdpd and none broadcasts of the binary ops."""
    for spec, pairs in (
        (
            "numpy",
            [
                ("2,3", "3"),
                ("2,1..3,?", "4,1"),
                ("2,?", "3"),
                ("2,3", "4"),
                ("1..4,3", "2,3"),
                ("2..5,3", "6,3"),
                ("?", "2,3,4"),
                ("...", "2,3"),
                ("0,3", "1,3"),
                ("1", "0"),
            ],
        ),
        (
            "pdpd",
            [
                ("2,3,4,5", "3,4"),
                ("2,3,4,5", "4,1"),
                ("2,3", "2,3,4"),
                ("2,3,4,5", "4,5"),
                ("2,3,4,5", "5"),
                ("2,3,4,5", "1,5"),
                ("2,3,4,5", "1"),
                ("2,?,4,5", "3,4,5"),
                ("2,1..3,4", "2..4,4"),
            ],
        ),
        ("none", [("2,3", "2,3"), ("2,3", "3"), ("2,?", "?,3"), ("2,1..4", "2,2..6")]),
    ):
        for a, b in pairs:
            add(f"Add {spec}", broadcast(opset1.add, spec), [a, b])
    add("Greater numpy f32", broadcast(opset1.greater), ["2,3", "3"])
    add("Greater i32 numpy", broadcast(opset1.greater), ["2,3", "3"], [np.int32, np.int32])
    add("Add f32 + i32", broadcast(opset1.add), ["2", "2"], [np.float32, np.int32])


def _combining(add: Add) -> None:
    """Concat, MatMul and Transpose."""
    for a, b, axis in (
        ("2,3", "2,4", 1),
        ("2,1..3", "2,2..4", 1),
        ("2,3", "?,4", 1),
        ("2,3", "3,3", 1),
        ("2,3", "2,4", -1),
        ("2,3", "2,4", 2),
        ("1..5,3", "2..8,3", 0),
        ("?,3", "2..6,?", 1),
    ):
        add(f"Concat axis {axis}", concat(axis), [a, b])
    for a, b, ta, tb in (
        ("2,3", "3,4", 0, 0),
        ("3", "3", 0, 0),
        ("3", "3,4", 0, 0),
        ("2,3", "3", 0, 0),
        ("5,1,2,3", "4,3,6", 0, 0),
        ("2,3", "4,3", 0, 1),
        ("?,3", "3,?", 0, 0),
        ("2,1..4", "2..3,5", 0, 0),
        ("2,3", "4,5", 0, 0),
        ("3", "4,3", 0, 1),
        ("3", "3", 1, 1),
    ):
        add(
            f"MatMul ta={ta} tb={tb}",
            matmul(bool(ta), bool(tb)),
            [a, b],
        )
    for order, shape in (
        ([2, 0, 1], "2,3,4"),
        ([0, 0, 1], "2,3,4"),
        ([0, 1], "2,3,4"),
        ([-1, 0, 1], "2,3,4"),
        ([3, 0, 1], "2,3,4"),
        ([1, 0], "?,1..4"),
    ):
        add(
            f"Transpose order {order}",
            transpose(order),
            [shape],
        )


def _shape_arithmetic(add: Add) -> None:
    """Gather-8, and the shape subgraphs torch's flatten and channel shuffle write."""
    for data, idx, axis, bd in (
        ("2,5", "3", 1, 0),
        ("2,5", "2,3", 1, 1),
        ("2,5", "", 0, 0),
        ("?,5", "4", 0, 0),
        ("2,5", "2,3", 1, -1),
        ("2,5", "3,4", 1, 1),
        ("2,5", "2", 2, 0),
        ("2,5,3", "2,4", -1, 1),
        ("2,5", "2,3", 0, 2),
    ):
        add(
            f"Gather-8 axis {axis} batch_dims {bd}",
            gather8(axis, bd),
            [data, idx],
            [np.float32, np.int64],
        )
    add(
        "Gather-8 on ShapeOf values",
        lambda p: opset8.gather(opset3.shape_of(p[0]), const([0, 2], np.int64), const(0, np.int64)),
        ["?,3,1..8"],
    )
    for shape in ("?,3,4,5", "1..8,3,2..4,5", "?,3,?,5"):
        add("flatten: Reshape to Concat(ShapeOf[0], -1)", flatten, [shape])
    for shape in ("?,8,?,?", "1..4,8,7,2..9", "?,6..10,7,7"):
        add("channel shuffle g=2: Reshape to [N, 2, C // 2, H, W]", channel_shuffle, [shape])
    for shape in ("?,3,?,?", "?,1..4"):
        add("ShapeOf-3 i32", lambda p: opset3.shape_of(p[0], "i32"), [shape])
        add("ShapeOf-1", lambda p: opset1.shape_of(p[0]), [shape])


def _others(add: Add) -> None:
    """VariadicSplit, SoftMax-8 and the unary ops on other element types."""
    for shape, axis, lengths in (
        ("2,6", 1, [2, -1]),
        ("2,6", 1, [2, 4]),
        ("2,6", -1, [1, 2, 3]),
        ("2,6", 1, [2, 3]),
        ("2,6", 1, [-1, -1]),
        ("2,?", 1, [2, -1]),
        ("2,4..8", 1, [2, -1]),
        ("2,6", 2, [2, 4]),
        ("2,6", 1, [0, 6]),
        ("2,6", 1, [-2, 8]),
    ):
        add(
            f"VariadicSplit axis {axis} lengths {lengths}",
            variadic_split(axis, lengths),
            [shape],
        )
    for axis in (-1, 1, 2):
        add(f"SoftMax-8 axis {axis}", softmax8(axis), ["2,?"])
    add("Mod i32", broadcast(opset1.mod), ["2,1", "3"], [np.int32, np.int32])
    add("Floor i32", lambda p: opset1.floor(p[0]), ["2"], [np.int32])
    add("Swish-4 beta scalar", lambda p: opset4.swish(p[0], const(1.5)), ["2,3"])
    add("Swish-4 beta [1]", lambda p: opset4.swish(p[0], const([1.5])), ["2,3"])
    add("Clamp i32", lambda p: opset1.clamp(p[0], 0.5, 5.5), ["2"], [np.int32])


def shape_section(rng: np.random.Generator) -> list[str]:
    rows: list[Row] = []

    def add(
        label: str, build: Build, shapes: Sequence[str], types: Sequence[Any] | None = None
    ) -> None:
        rows.append((label, " , ".join(shapes), shape_of(build, shapes, types)))

    for part in (_convolutions, _broadcasts, _combining, _shape_arithmetic, _others):
        part(add)
    return [
        "## 2. Shape inference (Python builders = the core's shape inference)",
        "",
        *table(["case", "input shapes", "output (or error)"], rows),
        *conv_formula_check(rng, 3000),
    ]
