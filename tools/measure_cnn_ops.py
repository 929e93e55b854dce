"""Measure how OpenVINO reads, shapes and computes the op types of torchvision's CNN classifiers.

Run `python tools/measure_cnn_ops.py > measured.md`: every figure that docs/semantics.md
("CNN classifier ops") states is printed here as Markdown, measured on the installed runtime
(`read_model` of edited IR files, the Python op builders for shape inference, and the CPU plugin
with INFERENCE_PRECISION_HINT=f32 for values). The CPU plugin picks its SIMD kernels per ISA:
re-run the script on another machine (an Intel Xeon with AVX-512) or OpenVINO release and compare.
`--golden DIR` also writes the golden vectors (tests/golden_cnn_ops/: index.json and one .npz
per case, inputs and the CPU's outputs); `--quick` skips the slow accuracy and 1e6-value runs.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from ov_builders import TESTED_OPENVINO, opset1, ov  # first: it keeps telemetry off

from openvino import opset3, opset4, opset5, opset7, opset8

CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
CORE = ov.Core()
NAN, INF = np.nan, np.inf
F32_MAX = float(np.finfo(np.float32).max)
F32_TINY = float(np.finfo(np.float32).tiny)
DENORMAL = float(np.float32(1e-45))
Build = Callable[[list[ov.Node]], ov.Node]


def error_line(error: Exception) -> str:
    """The runtime's own message: the last non-empty line of the exception text."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[-1] if lines else type(error).__name__


def run(
    build: Build, inputs: Sequence[np.ndarray], dynamic: bool = False
) -> list[np.ndarray] | str:
    """The CPU plugin's outputs, or "error: <message>"; `dynamic` leaves every input dim `?`."""
    params = [
        opset1.parameter(
            ov.PartialShape.dynamic(x.ndim) if dynamic else list(x.shape), x.dtype, name=f"in{i}"
        )
        for i, x in enumerate(inputs)
    ]
    try:
        node = build(params)
        model = ov.Model(node.outputs(), params)
        compiled = CORE.compile_model(model, "CPU", CONFIG)
        request = compiled.create_infer_request()
        request.infer({i: x for i, x in enumerate(inputs)})
        return [request.get_output_tensor(i).data.copy() for i in range(len(compiled.outputs))]
    except (RuntimeError, TypeError, ValueError) as error:
        return "error: " + error_line(error)


def single(build: Build, inputs: Sequence[np.ndarray]) -> np.ndarray:
    outputs = run(build, inputs)
    if isinstance(outputs, str):
        raise SystemExit(f"unexpected failure: {outputs}")
    return outputs[0]


def shape_of(build: Build, shapes: Sequence[str], types: Sequence[Any] | None = None) -> str:
    """Shape inference through the Python builders: the output shapes, or the error message."""
    kinds = types or [np.float32] * len(shapes)
    params = [
        opset1.parameter(ov.PartialShape(s), t, name=f"in{i}")
        for i, (s, t) in enumerate(zip(shapes, kinds, strict=True))
    ]
    try:
        node = build(params)
    except (RuntimeError, TypeError, ValueError) as error:
        return "error: " + error_line(error)
    return " ; ".join(
        f"{out.get_partial_shape()} {out.get_element_type().get_type_name()}"
        for out in node.outputs()
    )


def cell(value: Any) -> str:
    """A table cell: arrays as lists (NaN, inf written out), no pipes."""
    if isinstance(value, np.ndarray):
        text = np.array2string(value, separator=",", threshold=40, max_line_width=10_000)
        text = f"{value.dtype}{list(value.shape)} {text}"
    else:
        text = str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return lines + [""]


def first(outputs: list[np.ndarray] | str) -> np.ndarray | str:
    """The first output, or the error text."""
    return outputs if isinstance(outputs, str) else outputs[0]


def const(values: Any, dtype: Any = np.float32) -> ov.Node:
    return opset1.constant(np.array(values, dtype))


# --- 1. what read_model and compile_model refuse in the attributes ------------------------------


@dataclass(frozen=True)
class AttributeProbe:
    label: str
    build: Callable[[], ov.Model]
    edits: Sequence[tuple[str, str | None]]  # (attribute, new value or None to delete)


def conv_model(group: bool = False) -> ov.Model:
    x = opset1.parameter([1, 4, 9, 9], np.float32, name="x")
    if group:
        w = const(np.ones((4, 1, 1, 3, 3)))
        node = opset1.group_convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1], name="op")
    else:
        w = const(np.ones((2, 4, 3, 3)))
        node = opset1.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1], name="op")
    return ov.Model([node], [x])


def unary_model(maker: Callable[..., ov.Node], *args: Any) -> Callable[[], ov.Model]:
    def build() -> ov.Model:
        x = opset1.parameter([2, 3], np.float32, name="x")
        return ov.Model([maker(x, *args, name="op")], [x])

    return build


def binary_model(maker: Callable[..., ov.Node], dtype: Any = np.float32) -> Callable[[], ov.Model]:
    def build() -> ov.Model:
        a = opset1.parameter([2, 3], dtype, name="a")
        b = opset1.parameter([3], dtype, name="b")
        return ov.Model([maker(a, b, name="op")], [a, b])

    return build


def pdpd_model() -> ov.Model:
    a = opset1.parameter([2, 2, 2], np.float32, name="a")
    b = opset1.parameter([2], np.float32, name="b")
    return ov.Model([opset1.add(a, b, auto_broadcast="pdpd", name="op")], [a, b])


def folded_divide_model() -> ov.Model:
    """A Divide of two constants: folded by the core, whose reference honours m_pythondiv."""
    node = opset1.divide(const([-7, 7], np.int64), const([2, -2], np.int64), name="op")
    return ov.Model([node], [])


def concat_model() -> ov.Model:
    a = opset1.parameter([2, 3], np.float32, name="a")
    b = opset1.parameter([2, 4], np.float32, name="b")
    return ov.Model([opset1.concat([a, b], 1, name="op")], [a, b])


def matmul_model() -> ov.Model:
    a = opset1.parameter([2, 3], np.float32, name="a")
    b = opset1.parameter([4, 3], np.float32, name="b")
    return ov.Model([opset1.matmul(a, b, False, True, name="op")], [a, b])


def gather_model() -> ov.Model:
    x = opset1.parameter([2, 5], np.float32, name="x")
    i = opset1.parameter([2, 2], np.int64, name="i")
    return ov.Model([opset8.gather(x, i, const(1, np.int64), 1, name="op")], [x, i])


def shape_of_model(version: int) -> Callable[[], ov.Model]:
    def build() -> ov.Model:
        x = opset1.parameter([2, 5], np.float32, name="x")
        node = (
            opset3.shape_of(x, "i64", name="op") if version == 3 else opset1.shape_of(x, name="op")
        )
        return ov.Model([node], [x])

    return build


def softmax_model() -> ov.Model:
    x = opset1.parameter([2, 5], np.float32, name="x")
    return ov.Model([opset8.softmax(x, -1, name="op")], [x])


def variadic_split_model() -> ov.Model:
    x = opset1.parameter([2, 6], np.float32, name="x")
    node = opset1.variadic_split(x, const(1, np.int64), const([2, -1], np.int64), name="op")
    return ov.Model(node.outputs(), [x])


def transpose_model() -> ov.Model:
    x = opset1.parameter([2, 3, 4], np.float32, name="x")
    return ov.Model([opset1.transpose(x, const([2, 0, 1], np.int64), name="op")], [x])


CONV_EDITS: list[tuple[str, str | None]] = [
    ("strides", "2, x"),
    ("strides", "2x, 2"),
    ("strides", "2,2"),
    ("strides", " 2 ,2 "),
    ("strides", "2.5, 2"),
    ("strides", "\uff12, 2"),
    ("strides", "2"),
    ("strides", "2, 2, 2"),
    ("strides", "0, 1"),
    ("strides", "-1, 1"),
    ("strides", ""),
    ("strides", None),
    ("pads_begin", "-1, 0"),
    ("pads_end", "-2, -2"),
    ("pads_begin", "1"),
    ("pads_begin", None),
    ("pads_end", None),
    ("dilations", "0, 1"),
    ("dilations", "2, 2"),
    ("dilations", None),
    ("auto_pad", "SAME_UPPER"),
    ("auto_pad", "same_lower"),
    ("auto_pad", "valid"),
    ("auto_pad", "notset"),
    ("auto_pad", "same"),
    ("auto_pad", ""),
    ("auto_pad", None),
    ("extra", "1"),
]
BROADCAST_EDITS: list[tuple[str, str | None]] = [
    ("auto_broadcast", "none"),
    ("auto_broadcast", "NUMPY"),
    ("auto_broadcast", "pdpd"),
    ("auto_broadcast", "explicit"),
    ("auto_broadcast", "bidirectional"),
    ("auto_broadcast", ""),
    ("auto_broadcast", None),
]
BOOL_VALUES = ["true", "false", "True", "TRUE", "FALSE", "1", "0", "yes", "2", " true", "", None]

ATTRIBUTE_PROBES = [
    AttributeProbe("Convolution-1", conv_model, CONV_EDITS),
    AttributeProbe("GroupConvolution-1", lambda: conv_model(group=True), CONV_EDITS),
    AttributeProbe(
        "Clamp-1",
        unary_model(opset1.clamp, 0.0, 6.0),
        [
            ("min", "5"),
            ("min", "6.5"),
            ("min", "nan"),
            ("min", "-inf"),
            ("max", "inf"),
            ("min", "0x1"),
            ("min", "1e400"),
            ("min", "a"),
            ("min", ""),
            ("min", None),
            ("max", None),
            ("extra", "1"),
        ],
    ),
    AttributeProbe("ReLU-1", unary_model(opset1.relu), [("extra", "1")]),
    AttributeProbe("HSwish-4", unary_model(opset4.hswish), [("extra", "1")]),
    AttributeProbe("Add-1", binary_model(opset1.add), BROADCAST_EDITS + [("extra", "1")]),
    AttributeProbe(
        "Add-1 pdpd",
        pdpd_model,
        [("auto_broadcast.auto_broadcast_axis", v) for v in ("-1", "1", "2", "3", "-4", "x", None)]
        + [("auto_broadcast", "numpy")],
    ),
    AttributeProbe(
        "Divide-1",
        binary_model(opset1.divide, np.int32),
        BROADCAST_EDITS + [("m_pythondiv", v) for v in BOOL_VALUES],
    ),
    AttributeProbe(
        "Divide-1 of constants", folded_divide_model, [("m_pythondiv", v) for v in BOOL_VALUES]
    ),
    AttributeProbe("Mod-1", binary_model(opset1.mod), BROADCAST_EDITS[:2]),
    AttributeProbe("Greater-1", binary_model(opset1.greater), BROADCAST_EDITS[:2]),
    AttributeProbe(
        "Concat-1",
        concat_model,
        [
            ("axis", "-1"),
            ("axis", "0"),
            ("axis", "2"),
            ("axis", "-3"),
            ("axis", "1.0"),
            ("axis", "x"),
            ("axis", ""),
            ("axis", None),
        ],
    ),
    AttributeProbe(
        "MatMul-1",
        matmul_model,
        [("transpose_b", v) for v in BOOL_VALUES] + [("transpose_a", None), ("extra", "1")],
    ),
    AttributeProbe(
        "Gather-8",
        gather_model,
        [
            ("batch_dims", "-1"),
            ("batch_dims", "1"),
            ("batch_dims", "-3"),
            ("batch_dims", "3"),
            ("batch_dims", "x"),
            ("batch_dims", ""),
            ("batch_dims", None),
        ],
    ),
    AttributeProbe(
        "ShapeOf-3",
        shape_of_model(3),
        [
            ("output_type", "i32"),
            ("output_type", "I64"),
            ("output_type", "u64"),
            ("output_type", "f32"),
            ("output_type", "i8"),
            ("output_type", ""),
            ("output_type", None),
        ],
    ),
    AttributeProbe("ShapeOf-1", shape_of_model(1), [("extra", "1")]),
    AttributeProbe(
        "SoftMax-8",
        softmax_model,
        [("axis", "-2"), ("axis", "2"), ("axis", "-3"), ("axis", None)],
    ),
    AttributeProbe("VariadicSplit-1", variadic_split_model, [("extra", "1")]),
    AttributeProbe("Transpose-1", transpose_model, [("extra", "1")]),
]


def edit_layer(xml: str, attribute: str, value: str | None) -> str:
    """The layer named "op" with one <data> attribute set, deleted or (extra) added."""
    match = re.search(r'(<layer [^>]*name="op"[^>]*>\s*)(<data[^>]*?)(\s*/>)', xml)
    if match is None:  # an op saved without <data>: give it one
        start = re.search(r'<layer [^>]*name="op"[^>]*>', xml)
        assert start is not None
        data = f'<data {attribute}="{value}" />' if value is not None else ""
        return xml[: start.end()] + data + xml[start.end() :]
    data = match.group(2)
    pattern = rf'\s{attribute}="[^"]*"'
    if value is None:
        data = re.sub(pattern, "", data)
    elif re.search(pattern, data):
        data = re.sub(pattern, f' {attribute}="{value}"', data)
    else:
        data += f' {attribute}="{value}"'
    return xml[: match.start(2)] + data + xml[match.end(2) :]


def verdict(xml: str, weights: bytes) -> str:
    """ok + output shapes, or where (read/compile) the runtime refused it and its message."""
    try:
        model = CORE.read_model(xml, ov.Tensor(np.frombuffer(weights, np.uint8).copy()))
    except RuntimeError as error:
        return "read_model: " + error_line(error)
    shapes = ", ".join(str(out.get_partial_shape()) for out in model.outputs)
    try:
        compiled = CORE.compile_model(model, "CPU", CONFIG)
    except RuntimeError as error:
        return f"reads ({shapes}); compile_model: " + error_line(error)
    if any(param.get_partial_shape().is_dynamic for param in model.get_parameters()):
        return f"ok {shapes}"
    outputs = compiled.create_infer_request().infer(sample_inputs(model))
    values = [np.asarray(value) for value in outputs.values()]
    if sum(value.size for value in values) > 12:
        return f"ok {shapes}"
    return f"ok {shapes} → " + "; ".join(cell(value) for value in values)


def sample_inputs(model: ov.Model) -> list[np.ndarray]:
    """Fixed inputs: (i - 3) * 3.1 for floats (-9.3 .. 6.2), i - 3 for integer data, i + 2
    (never 0) for second inputs, 0 and 1 for Gather indices."""
    arrays = []
    for number, param in enumerate(model.get_parameters()):
        shape = [int(d) for d in param.get_output_shape(0)]
        dtype = param.get_output_element_type(0).to_dtype()
        size = int(np.prod(shape))
        ramp = np.arange(size) % 2 if param.friendly_name == "i" else np.arange(size) - 3
        if number > 0 and param.friendly_name != "i":
            ramp = np.arange(size) + 2
        scale = 3.1 if np.issubdtype(dtype, np.floating) and number == 0 else 1
        arrays.append((ramp * scale).astype(dtype).reshape(shape))
    return arrays


def negative_pads_section() -> list[str]:
    """Negative pads only reach the runtime through a file (the builders take them unsigned)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.xml"
        for spatial in ("9", "?"):
            x = opset1.parameter(ov.PartialShape(f"1,1,{spatial}"), np.float32, name="x")
            w = const(np.ones((1, 1, 3)))
            node = opset1.convolution(x, w, [1], [0], [0], [1], name="op")
            ov.save_model(ov.Model([node], [x]), path, compress_to_fp16=False)
            xml, weights = path.read_text(), path.with_suffix(".bin").read_bytes()
            for stride in (1, 2):
                for pb, pe in (
                    (-1, 0),
                    (0, -1),
                    (-1, -1),
                    (-2, -2),
                    (-3, -3),
                    (-4, 0),
                    (-7, 0),
                    (-8, 0),
                    (2, -1),
                    (-3, 4),
                ):
                    edited = edit_layer(xml, "pads_begin", str(pb))
                    edited = edit_layer(edited, "pads_end", str(pe))
                    edited = edit_layer(edited, "strides", str(stride))
                    model_verdict = verdict(edited, weights)
                    formula = conv_out(9, 3, stride, 1, pb, pe, "explicit")
                    rows.append((spatial, stride, pb, pe, formula, model_verdict))
    return ["Negative pads (read_model of a 1-D Convolution k3 of ones, D = 9 or ?):", ""] + table(
        ["D", "s", "pb", "pe", "formula", "runtime"], rows
    )


def attribute_section() -> list[str]:
    lines = ["## 1. Attributes: what read_model and CPU compile_model do with edits", ""]
    with tempfile.TemporaryDirectory() as tmp:
        for probe in ATTRIBUTE_PROBES:
            path = Path(tmp) / "m.xml"
            ov.save_model(probe.build(), path, compress_to_fp16=False)
            xml = path.read_text()
            weights = path.with_suffix(".bin").read_bytes()
            written = re.search(r'<layer [^>]*name="op"[^>]*>\s*(<data[^>]*/>)?', xml)
            assert written is not None
            lines.append(
                f"### {probe.label}: save_model writes `{written.group(1) or '(no data)'}`"
            )
            rows = [("(as written)", "", verdict(xml, weights))]
            for attribute, value in probe.edits:
                shown = "(deleted)" if value is None else repr(value)
                rows.append((attribute, shown, verdict(edit_layer(xml, attribute, value), weights)))
            lines += table(["attribute", "value", "result"], rows)
    return lines + negative_pads_section()


# --- 2. shape inference ------------------------------------------------------------------------


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


def conv_out(d: int, k: int, s: int, dil: int, pb: int, pe: int, auto_pad: str) -> int | None:
    """The output length the runtime computes (None where it refuses)."""
    kd = (k - 1) * dil + 1
    if auto_pad in ("same_upper", "same_lower"):
        return -(-d // s)
    if auto_pad == "valid":
        pb = pe = 0
    padded = d + pb + pe
    return None if padded < kd else (padded - kd) // s + 1


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


def shape_section(rng: np.random.Generator) -> list[str]:
    lines = ["## 2. Shape inference (Python builders = the core's shape inference)", ""]
    rows: list[tuple[str, str, str]] = []

    def add(label: str, build: Build, shapes: Sequence[str], types: Sequence[Any] | None = None):
        rows.append((label, " , ".join(shapes), shape_of(build, shapes, types)))

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
        add(f"Concat axis {axis}", lambda p, axis=axis: opset1.concat(p, axis), [a, b])
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
            lambda p, ta=ta, tb=tb: opset1.matmul(p[0], p[1], bool(ta), bool(tb)),
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
            lambda p, order=order: opset1.transpose(p[0], const(order, np.int64)),
            [shape],
        )
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
            lambda p, axis=axis, bd=bd: opset8.gather(p[0], p[1], const(axis, np.int64), bd),
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
            lambda p, axis=axis, lengths=lengths: opset1.variadic_split(
                p[0], const(axis, np.int64), const(lengths, np.int64)
            ),
            [shape],
        )
    for axis in (-1, 1, 2):
        add(f"SoftMax-8 axis {axis}", lambda p, axis=axis: opset8.softmax(p[0], axis), ["2,?"])
    add("Mod i32", broadcast(opset1.mod), ["2,1", "3"], [np.int32, np.int32])
    add("Floor i32", lambda p: opset1.floor(p[0]), ["2"], [np.int32])
    add("Swish-4 beta scalar", lambda p: opset4.swish(p[0], const(1.5)), ["2,3"])
    add("Swish-4 beta [1]", lambda p: opset4.swish(p[0], const([1.5])), ["2,3"])
    add("Clamp i32", lambda p: opset1.clamp(p[0], 0.5, 5.5), ["2"], [np.int32])
    lines += table(["case", "input shapes", "output (or error)"], rows)
    return lines + conv_formula_check(rng, 3000)


# --- 3. element-wise numerics ------------------------------------------------------------------


def ordered(x: np.ndarray) -> np.ndarray:
    """f32 bit patterns mapped to integers that count ulps across zero."""
    bits = x.astype(np.float32).view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(ordered(a) - ordered(b))


def probe_values(rng: np.random.Generator, count: int) -> np.ndarray:
    """1e6 f32 values: a dense ramp over [-30, 30], log-uniform magnitudes up to f32 max,
    subnormals, and the specials (±0, ±inf, NaN, max, tiny)."""
    specials = [
        0.0,
        -0.0,
        INF,
        -INF,
        NAN,
        F32_MAX,
        -F32_MAX,
        F32_TINY,
        -F32_TINY,
        DENORMAL,
        -DENORMAL,
        3.0,
        -3.0,
        88.72,
        -88.72,
        87.0,
        -87.0,
        89.0,
        -104.0,
        -103.9,
        1e-7,
    ]
    ramp = np.linspace(-30, 30, count // 2, dtype=np.float32)
    rest = count - len(ramp) - len(specials)
    magnitude = 10.0 ** rng.uniform(-45, 38.5, rest)
    wide = (magnitude * rng.choice([-1.0, 1.0], rest)).astype(np.float32)
    return np.concatenate([ramp, wide, np.array(specials, np.float32)]).astype(np.float32)


def _f32(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32)


def sigmoid_np(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _f32(np.float32(1) / (np.float32(1) + np.exp(-x)))


def sigmoid_signed(x: np.ndarray) -> np.ndarray:
    """exp of -|x| only (no overflow), mirrored."""
    e = np.exp(-np.abs(x))
    positive = np.float32(1) / (np.float32(1) + e)
    return _f32(np.where(x >= 0, positive, e / (np.float32(1) + e)))


def hswish_np(x: np.ndarray) -> np.ndarray:
    return _f32(x * np.minimum(np.maximum(x + np.float32(3), 0), np.float32(6)) / np.float32(6))


def hswish_mul(x: np.ndarray) -> np.ndarray:
    """x * relu6(x+3) * (1/6), the multiplication by the reciprocal."""
    r6 = np.minimum(np.maximum(x + np.float32(3), 0), np.float32(6))
    return _f32(x * r6 * np.float32(1 / 6))


SIXTH_DOWN = np.frombuffer(np.uint32(0x3E2AAAAA).tobytes(), np.float32)[0]  # 1/6 rounded down


def hswish_cpu(x: np.ndarray) -> np.ndarray:
    """x * min(max(x * f32(1/6) + 0.5, 0), 1): a multiply then an add, no fma; max and min
    drop a NaN (x86 MAXPS/MINPS with the bound second)."""
    h = np.fmin(np.fmax(x * np.float32(1 / 6) + np.float32(0.5), 0), np.float32(1))
    return _f32(x * h)


def hsigmoid_cpu(x: np.ndarray) -> np.ndarray:
    """min(max(x + 3, 0), 6) * 0x3E2AAAAA (1/6 rounded down)."""
    return _f32(np.fmin(np.fmax(x + np.float32(3), 0), np.float32(6)) * SIXTH_DOWN)


def hsigmoid_np(x: np.ndarray) -> np.ndarray:
    return _f32(np.minimum(np.maximum(x + np.float32(3), 0), np.float32(6)) / np.float32(6))


def hsigmoid_mul(x: np.ndarray) -> np.ndarray:
    return _f32(np.minimum(np.maximum(x + np.float32(3), 0), np.float32(6)) * np.float32(1 / 6))


def swish_np(beta: float) -> Callable[[np.ndarray], np.ndarray]:
    def formula(x: np.ndarray) -> np.ndarray:
        return _f32(x * sigmoid_np(_f32(x * np.float32(beta))))

    return formula


def swish_signed(beta: float) -> Callable[[np.ndarray], np.ndarray]:
    def formula(x: np.ndarray) -> np.ndarray:
        return _f32(x * sigmoid_signed(_f32(x * np.float32(beta))))

    return formula


def sigmoid_f64(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _f32(1.0 / (1.0 + np.exp(-x.astype(np.float64))))


@dataclass(frozen=True)
class Unary:
    label: str
    build: Build
    formulas: dict[str, Callable[[np.ndarray], np.ndarray]] = field(default_factory=dict)


UNARY = [
    Unary(
        "ReLU",
        lambda p: opset1.relu(p[0]),
        {
            "np.maximum(x, 0)": lambda x: np.maximum(x, 0),
            "where(x > 0, x, 0)": lambda x: np.where(x > 0, x, np.float32(0)),
        },
    ),
    Unary(
        "Clamp 0..6",
        lambda p: opset1.clamp(p[0], 0.0, 6.0),
        {
            "np.clip(x, 0, 6)": lambda x: np.clip(x, np.float32(0), np.float32(6)),
            "min(max(x, 0), 6) NaN-dropping": lambda x: np.fmin(np.fmax(x, 0), np.float32(6)),
        },
    ),
    Unary(
        "Sigmoid",
        lambda p: opset1.sigmoid(p[0]),
        {"1/(1+exp(-x)) f32": sigmoid_np, "signed f32": sigmoid_signed, "f64 rounded": sigmoid_f64},
    ),
    Unary(
        "Swish-4 (no beta)",
        lambda p: opset4.swish(p[0]),
        {
            "x*sigmoid(x) f32": swish_np(1.0),
            "signed": swish_signed(1.0),
            "x/(1+exp(-x)) f32": lambda x: _f32(x / (np.float32(1) + np.exp(-x))),
        },
    ),
    Unary(
        "Swish-4 beta 1.5",
        lambda p: opset4.swish(p[0], const(1.5)),
        {"x*sigmoid(1.5x) f32": swish_np(1.5), "signed": swish_signed(1.5)},
    ),
    Unary(
        "HSwish-4",
        lambda p: opset4.hswish(p[0]),
        {
            "x*relu6(x+3)/6": hswish_np,
            "x*relu6(x+3)*(1/6)": hswish_mul,
            "x*min(max(x*f32(1/6)+0.5,0),1)": hswish_cpu,
        },
    ),
    Unary(
        "HSigmoid-5",
        lambda p: opset5.hsigmoid(p[0]),
        {
            "relu6(x+3)/6": hsigmoid_np,
            "relu6(x+3)*(1/6)": hsigmoid_mul,
            "relu6(x+3)*0x3E2AAAAA": hsigmoid_cpu,
        },
    ),
    Unary("Floor-1", lambda p: opset1.floor(p[0]), {"np.floor": np.floor}),
    Unary("Sqrt-1", lambda p: opset1.sqrt(p[0]), {"np.sqrt": np.sqrt}),
]


def zero_from(build: Build) -> float:
    """The largest negative f32 whose output is 0 (bisection on the bit patterns in [-100, -50])."""
    low, high = (
        ordered(np.array([-100.0], np.float32))[0],
        ordered(np.array([-50.0], np.float32))[0],
    )
    candidates = np.arange(low, high + 1, dtype=np.int64)
    as_float = np.where(candidates < 0, (-candidates) | np.int64(0x80000000), candidates)
    x = as_float.astype(np.uint32).view(np.float32)
    zero = single(build, [x]) == 0
    return float(x[zero].max())


def unary_section(rng: np.random.Generator, count: int) -> list[str]:
    x = probe_values(rng, count)
    lines = [
        "## 3. Element-wise f32 numerics vs NumPy float32 formulas",
        "",
        f"{len(x)} values: a ramp over [-30, 30], log-uniform magnitudes 1e-45..3e38 of both signs,"
        " and the specials. `bad` counts elements whose non-finite pattern or sign of zero differs"
        " (NaN = NaN); ulps are counted where the formula's result is a normal"
        " number or 0 (`CPU 0, formula ≠ 0` counts the rest).",
        "",
    ]
    rows = []
    with np.errstate(all="ignore"):
        for op in UNARY:
            cpu = single(op.build, [x])
            for label, formula in op.formulas.items():
                want = formula(x)
                finite = np.isfinite(cpu) & np.isfinite(want)
                flushed = int(np.sum((cpu == 0) & (want != 0) & finite))
                finite &= (np.abs(want) >= F32_TINY) | (want == 0)  # ulps of normal results
                finite &= ~((cpu == 0) & (want != 0))
                ulp = ulp_distance(cpu[finite], want[finite])
                same_kind = (np.isnan(cpu) == np.isnan(want)) & (
                    np.isfinite(cpu) == np.isfinite(want)
                )
                same_inf = np.where(np.isinf(cpu), cpu == want, True)
                zero_sign = np.where(
                    (cpu == 0) & (want == 0), np.signbit(cpu) == np.signbit(want), True
                )
                bad = int(np.sum(~(same_kind & same_inf & zero_sign)))
                worst = int(np.argmax(ulp)) if ulp.size else 0
                at = float(x[finite][worst]) if ulp.size else NAN
                abs_err = float(np.max(np.abs(cpu[finite] - want[finite]))) if ulp.size else 0.0
                rows.append(
                    (
                        op.label,
                        label,
                        int(ulp.max()) if ulp.size else 0,
                        int(np.sum(ulp > 0)),
                        f"{abs_err:.3g}",
                        f"{at:.9g}",
                        flushed,
                        bad,
                    )
                )
    lines += table(
        [
            "op",
            "NumPy formula",
            "max ulp",
            "elements ≠",
            "max abs",
            "worst x",
            "CPU 0, formula ≠ 0",
            "bad",
        ],
        rows,
    )
    for op in UNARY[2:5]:
        lines.append(
            f"{op.label}: the CPU gives 0 (of the sign of x) for x ≤ {zero_from(op.build):.9g},"
            " the largest such f32."
        )
    lines.append("")
    specials = np.array(
        [
            NAN,
            -NAN,
            INF,
            -INF,
            0.0,
            -0.0,
            F32_MAX,
            -F32_MAX,
            DENORMAL,
            -DENORMAL,
            -3.0,
            3.0,
            -88.0,
            88.0,
            -89.0,
            89.0,
            -104.0,
            104.0,
        ],
        np.float32,
    )
    rows = [("x", specials)]
    for op in UNARY:
        rows.append((op.label, single(op.build, [specials])))
    lines += ["Special values (CPU output):", ""]
    lines += table(["op", "values"], rows)
    return lines + softmax_lines(rng)


def softmax_lines(rng: np.random.Generator) -> list[str]:
    """SoftMax-8 over the last axis: random rows against exp(x - max) / sum in f64, then rows
    holding non-finite values."""
    rows = []
    for classes, scale in ((10, 1.0), (1000, 5.0), (1000, 30.0), (37, 100.0)):
        x = (rng.standard_normal((200, classes)) * scale).astype(np.float32)
        cpu = single(lambda p: opset8.softmax(p[0], -1), [x])
        wide = x.astype(np.float64)
        e = np.exp(wide - wide.max(axis=-1, keepdims=True))
        want = _f32(e / e.sum(axis=-1, keepdims=True))
        normal = (np.abs(want) >= F32_TINY) & (cpu != 0)
        rows.append(
            (
                f"200 rows of {classes}, randn*{scale:g}",
                int(ulp_distance(cpu[normal], want[normal]).max()),
                f"{float(np.abs(cpu - want).max()):.3g}",
                int(np.sum((cpu == 0) & (want != 0))),
            )
        )
    lines = ["SoftMax-8 (last axis) against exp(x − max) / Σ in f64 rounded to f32:", ""]
    lines += table(["rows", "max ulp (normal results)", "max abs", "CPU 0, formula ≠ 0"], rows)
    specials = np.array(
        [
            [NAN, 1, 2],
            [1, NAN, 2],
            [INF, 1, 2],
            [INF, INF, 1],
            [-INF, 1, 2],
            [-INF, -INF, -INF],
            [F32_MAX, 0, -F32_MAX],
            [1e30, 1e30, 0],
            [0, 0, 0],
        ],
        np.float32,
    )
    out = single(lambda p: opset8.softmax(p[0], -1), [specials])
    lines += table(
        ["row", "CPU"], [(row, result) for row, result in zip(specials, out, strict=True)]
    )
    return lines


# --- 4. integer and special cases of the binary ops and the index ops -------------------------


def binary(maker: Callable[..., ov.Node], **kwargs: Any) -> Build:
    def build(p: list[ov.Node]) -> ov.Node:
        return maker(p[0], p[1], **kwargs)

    return build


def divide(python: bool) -> Build:
    """Divide-1 with m_pythondiv set (the Python builder has no argument for it)."""

    def build(p: list[ov.Node]) -> ov.Node:
        node = opset1.divide(p[0], p[1])
        node.set_attribute("m_pythondiv", python)
        return node

    return build


def int_pairs(dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    a = [7, -7, 7, -7, 6, -6, 0, 1, -1, 5, info.max, info.min, info.min, info.max, 3]
    b = [2, 2, -2, -2, 3, 3, 5, 0, 0, 0, 1, -1, 2, -1, 1]
    if info.min == 0:
        a = [abs(v) if v >= 0 else 0 for v in a]
        b = [abs(v) for v in b]
    return np.array(a, dtype), np.array(b, dtype)


def binary_section() -> list[str]:
    lines = ["## 4. Binary ops, integers, index ops", ""]
    rows: list[tuple[Any, ...]] = []
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

    # Divide by zero alone (the integer rows above include it in a larger tensor).
    rows = []
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

    # Mod/Divide of large integers (through f32?).
    rows = []
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

    # Floor / Clamp / ReLU of integers.
    rows = []
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

    # Clamp with NaN bounds / min > max.
    rows = []
    x = np.array([NAN, -INF, INF, -1, 0.5, 3, 7, -0.0], np.float32)
    for lo, hi in ((0.0, 6.0), (5.0, 1.0), (NAN, 1.0), (0.0, NAN), (-INF, INF), (1.0, 1.0)):
        out = run(lambda p, lo=lo, hi=hi: opset1.clamp(p[0], lo, hi), [x])
        rows.append((lo, hi, x, first(out)))
    lines += ["Clamp bounds:", ""]
    lines += table(["min", "max", "x", "output"], rows)

    # Gather-8 / Gather-7 / Gather-1 indices.
    rows = []
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

    rows = []
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
            lambda p, axis=axis, bd=bd: opset8.gather(p[0], p[1], const(axis, np.int64), bd),
            [data3, indices],
        )
        rows.append((axis, bd, indices, first(out)))
    lines += ["Gather-8 batch_dims on arange(24).reshape(2,3,4):", ""]
    lines += table(["axis", "batch_dims", "indices", "output"], rows)

    # Greater output type; Concat/Transpose/VariadicSplit with non-finite and ints.
    rows = []
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


# --- 8. binary ops on random pairs against NumPy models ------------------------------------------

INT32_MIN = np.int32(-(2**31))


def to_int32(f: np.ndarray) -> np.ndarray:
    """f32 → i32 as CVTTPS2DQ: truncation; NaN and out-of-range give INT32_MIN."""
    bad = ~np.isfinite(f) | (f >= 2.0**31) | (f < -(2.0**31))
    return np.where(bad, INT32_MIN, np.trunc(np.where(bad, 0, f))).astype(np.int32)


def wrap32(x: np.ndarray) -> np.ndarray:
    """i64 → i32 by keeping the low 32 bits."""
    return x.astype(np.int64).astype(np.int32)


def f32_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _f32(a - np.trunc(a / b) * b)


def int_model(op: str, a: np.ndarray, b: np.ndarray, dtype: Any) -> np.ndarray:
    """The integer result as measured: i64 wrapped to i32; Divide/Mod/Power through f32 and
    CVTTPS2DQ; Add/Subtract/Multiply wrap in i32; i8/u8 results saturate, and an i8 Subtract
    adds the saturated negation (-51 - -128 = -51 + 127 = 76)."""
    a32, b32 = wrap32(a), wrap32(b)
    fa, fb = a32.astype(np.float32), b32.astype(np.float32)
    if op == "Divide":
        out = to_int32(_f32(fa / fb))
    elif op == "Mod":
        out = to_int32(f32_mod(fa, fb))
    elif op == "Power":
        out = to_int32(_f32(np.power(fa, fb)))
    elif np.dtype(dtype).itemsize == 1:  # i8/u8: exact in i32, saturated below
        info = np.iinfo(dtype)
        negated = np.clip(-b32, info.min, info.max) if info.min < 0 else -b32  # i8: sat(-b)
        out = {"Add": a32 + b32, "Subtract": a32 + negated, "Multiply": a32 * b32}[op]
    else:
        wide = {
            "Add": a32.astype(np.int64) + b32,
            "Subtract": a32.astype(np.int64) - b32,
            "Multiply": a32.astype(np.int64) * b32,
        }[op]
        out = wrap32(wide)
    if np.dtype(dtype).itemsize == 1:
        info = np.iinfo(dtype)
        return np.clip(out, info.min, info.max).astype(dtype)
    return out.astype(dtype)


FLOAT_MODELS: dict[str, tuple[Callable[..., ov.Node], Callable[..., np.ndarray], str]] = {
    "Add": (opset1.add, np.add, "a + b"),
    "Subtract": (opset1.subtract, np.subtract, "a - b"),
    "Multiply": (opset1.multiply, np.multiply, "a * b"),
    "Divide": (opset1.divide, lambda a, b: _f32(a * _f32(np.float32(1) / b)), "a * (1 / b)"),
    "Divide ": (opset1.divide, np.divide, "a / b"),
    "Mod": (opset1.mod, f32_mod, "a - trunc(a / b) * b, in f32"),
    "Power": (opset1.power, np.power, "np.power (f32)"),
    "Greater": (opset1.greater, lambda a, b: ~(a <= b), "not (a <= b): NaN on either side is True"),
}


def random_pairs_section(rng: np.random.Generator, count: int) -> list[str]:
    lines = ["## 8. Binary ops on random pairs: CPU vs NumPy models", ""]
    rows = []
    specials = np.array(
        [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 2.0, 0.5, F32_MAX, DENORMAL], np.float32
    )
    a = np.concatenate([probe_values(rng, count), rng.choice(specials, count // 4)])
    b = np.concatenate(
        [rng.permutation(probe_values(rng, count)), rng.choice(specials, count // 4)]
    )
    small = (rng.standard_normal(count) * 4).astype(np.float32)
    with np.errstate(all="ignore"):
        for name, (maker, formula, text) in FLOAT_MODELS.items():
            for label, (x, y) in (
                ("wide + specials", (a, b)),
                ("randn*4", (small, small[::-1].copy())),
            ):
                cpu = single(binary(maker), [x, y])
                want = np.asarray(formula(x, y))
                if cpu.dtype == np.bool_:
                    differ = cpu != want
                    worst = "-"
                else:
                    same = (cpu == want) | (np.isnan(cpu) & np.isnan(want))
                    same &= np.where(cpu == 0, np.signbit(cpu) == np.signbit(want), True)
                    differ = ~same
                    finite = np.isfinite(cpu) & np.isfinite(want)
                    worst = (
                        int(ulp_distance(cpu[finite], want[finite]).max()) if finite.any() else 0
                    )
                example = ""
                if differ.any():
                    i = int(np.argmax(differ))
                    example = f"{x[i]!r} op {y[i]!r}: CPU {cpu[i]!r}, model {want[i]!r}"
                rows.append(
                    (name, "f32 " + label, text, f"{int(differ.sum())} / {len(x)}", worst, example)
                )
    for dtype in (np.int32, np.int64, np.int8, np.uint8):
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)
        y = rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)
        few = rng.integers(-40 if info.min < 0 else 0, 40, count).astype(dtype)
        for name in ("Add", "Subtract", "Multiply", "Divide", "Mod", "Power"):
            second = few if name in ("Power",) else np.where(rng.random(count) < 0.5, few, y)
            cpu = single(binary(FLOAT_MODELS[name][0]), [x, second])
            want = int_model(name, x, second, dtype)
            differ = cpu != want
            example = ""
            if differ.any():
                i = int(np.argmax(differ))
                example = f"{x[i]} op {second[i]}: CPU {cpu[i]}, model {want[i]}"
            rows.append(
                (
                    name,
                    np.dtype(dtype).name,
                    "int_model",
                    f"{int(differ.sum())} / {count}",
                    "-",
                    example,
                )
            )
    lines += table(
        ["op", "inputs", "NumPy model", "differ", "max ulp (finite)", "first difference"], rows
    )
    return lines


# --- 9. auto_pad at run time, declared pads, integer inputs ---------------------------------------


def auto_pad_section(rng: np.random.Generator) -> list[str]:
    lines = ["## 9. Convolution auto_pad at run time; declared pads; integer inputs", ""]
    rows = []
    x = rng.standard_normal((1, 2, 7, 8)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 2)).astype(np.float32)
    for auto_pad in ("same_upper", "same_lower", "valid"):
        for stride, dil in ((1, 1), (2, 1), (2, 2), (3, 1)):

            def build(
                p: list[ov.Node], a: str = auto_pad, s: int = stride, d: int = dil
            ) -> ov.Node:
                return opset1.convolution(p[0], const(w), [s, s], [0, 0], [0, 0], [d, d], a)

            static = single(build, [x])
            dynamic = run(build, [x], dynamic=True)
            # The NumPy reference: explicit pads computed as the spec says (same_upper puts the
            # odd one at the end), then the plain convolution.
            pads = []
            for size, k in zip(x.shape[2:], w.shape[2:], strict=True):
                out = -(-size // stride) if auto_pad != "valid" else 0
                total = max(0, (out - 1) * stride + (k - 1) * dil + 1 - size) if out else 0
                low = total // 2 if auto_pad == "same_upper" else total - total // 2
                pads.append((low, total - low))
            begin, end = [low for low, _ in pads], [high for _, high in pads]
            explicit = single(
                lambda p, s=stride, b=begin, e=end, d=dil: opset1.convolution(
                    p[0], const(w), [s, s], b, e, [d, d]
                ),
                [x],
            )
            same_dynamic = not isinstance(dynamic, str) and np.array_equal(static, dynamic[0])
            rows.append(
                (
                    auto_pad,
                    stride,
                    dil,
                    list(static.shape),
                    pads,
                    np.array_equal(static, explicit),
                    same_dynamic,
                )
            )
    lines += [
        "x 1x2x7x8, w 3x2x3x2; `pads` = the spec's same_upper/same_lower split;"
        " `= explicit` compares with a Convolution given those pads explicitly;"
        " `= dynamic` compares with the same model whose input dims are all `?`:",
        "",
    ]
    lines += table(["auto_pad", "s", "d", "output", "pads (H, W)", "= explicit", "= dynamic"], rows)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.xml"
        param = opset1.parameter([1, 2, 7, 8], np.float32, name="x")
        node = opset1.convolution(
            param, const(w), [2, 2], [0, 0], [0, 0], [1, 1], "same_upper", name="op"
        )
        ov.save_model(ov.Model([node], [param]), path, compress_to_fp16=False)
        xml, weights = path.read_text(), path.with_suffix(".bin").read_bytes()
        written = re.search(r'<layer [^>]*name="op"[^>]*>\s*(<data[^>]*/>)', xml)
        assert written is not None
        base = verdict(xml, weights)
        edited = edit_layer(edit_layer(xml, "pads_begin", "3, 3"), "pads_end", "0, 5")
        model = CORE.read_model(edited, ov.Tensor(np.frombuffer(weights, np.uint8).copy()))
        values = CORE.compile_model(model, "CPU", CONFIG)({0: x})[0]
        original = CORE.compile_model(
            CORE.read_model(xml, ov.Tensor(np.frombuffer(weights, np.uint8).copy())), "CPU", CONFIG
        )({0: x})[0]
        rows.append(("save_model writes", written.group(1), base))
        rows.append(
            (
                "pads_begin 3,3, pads_end 0,5 under same_upper",
                "",
                f"{verdict(edited, weights)}; values equal: {np.array_equal(values, original)}",
            )
        )
    lines += table(["case", "data", "result"], rows)

    rows = []
    for dtype in (np.int32, np.int8, np.uint8, np.float16):
        xi = np.arange(2 * 4 * 4).reshape(1, 2, 4, 4).astype(dtype)
        wi = np.ones((1, 2, 3, 3), dtype)
        rows.append(
            (
                "Convolution",
                np.dtype(dtype).name,
                first(
                    run(
                        lambda p: opset1.convolution(p[0], p[1], [1, 1], [0, 0], [0, 0], [1, 1]),
                        [xi, wi],
                    )
                ),
            )
        )
        mi = np.arange(6).reshape(2, 3).astype(dtype)
        rows.append(
            (
                "MatMul",
                np.dtype(dtype).name,
                first(run(lambda p: opset1.matmul(p[0], p[1], False, True), [mi, mi])),
            )
        )
    lines += ["Integer and f16 inputs (x = arange, w = ones; MatMul a · aᵀ of arange(6)):", ""]
    lines += table(["op", "type", "CPU"], rows)
    return lines


# --- 5. Convolution / MatMul accuracy and non-finite windows -----------------------------------


def im2col_conv(
    x: np.ndarray, w: np.ndarray, stride: int, pad: int, groups: int, accumulate: Any
) -> np.ndarray:
    """A plain NumPy convolution (NCHW, OIHW or G,O,I,H,W flattened to O,I,H,W), im2col + matmul
    with the products summed in `accumulate` (float32 or float64) and rounded to f32."""
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))).astype(accumulate)
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    windows = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    windows = windows[:, :, ::stride, ::stride][:, :, :oh, :ow]  # n, c, oh, ow, kh, kw
    out = np.empty((n, o, oh, ow), accumulate)
    per_group = o // groups
    for g in range(groups):
        cols = windows[:, g * ci : (g + 1) * ci].transpose(0, 2, 3, 1, 4, 5).reshape(n, oh, ow, -1)
        wg = w[g * per_group : (g + 1) * per_group].reshape(per_group, -1).astype(accumulate)
        out[:, g * per_group : (g + 1) * per_group] = np.einsum(
            "nhwk,ok->nohw", cols, wg, optimize=True
        )
    return out.astype(np.float32)


def conv_build(w: np.ndarray, stride: int, pad: int, groups: int) -> Build:
    def build(p: list[ov.Node]) -> ov.Node:
        s, pads = [stride, stride], [pad, pad]
        if groups == 1:
            return opset1.convolution(p[0], const(w), s, pads, pads, [1, 1])
        shaped = w.reshape(groups, w.shape[0] // groups, *w.shape[1:])
        return opset1.group_convolution(p[0], const(shaped), s, pads, pads, [1, 1])

    return build


CONV_SIZES = [  # label, N, C, H, O, k, stride, pad, groups
    ("resnet 3x3 64->64 56x56", 1, 64, 56, 64, 3, 1, 1, 1),
    ("stem 7x7 s2 3->64 224x224", 1, 3, 224, 64, 7, 2, 3, 1),
    ("1x1 256->64 56x56", 1, 256, 56, 64, 1, 1, 0, 1),
    ("1x1 64->256 56x56", 1, 64, 56, 256, 1, 1, 0, 1),
    ("3x3 s2 128->256 28x28", 1, 128, 28, 256, 3, 2, 1, 1),
    ("depthwise 3x3 C=32 112x112", 1, 32, 112, 32, 3, 1, 1, 32),
    ("depthwise 3x3 s2 C=96 56x56", 1, 96, 56, 96, 3, 2, 1, 96),
    ("grouped 3x3 G=8 64->64 28x28", 1, 64, 28, 64, 3, 1, 1, 8),
    ("3x3 512->512 7x7 batch 2", 2, 512, 7, 512, 3, 1, 1, 1),
]


def error_stats(cpu: np.ndarray, ref: np.ndarray, bound: np.ndarray) -> tuple[str, str, str]:
    """Max abs error, max error relative to max|cpu|, max error relative to sum|x*w|."""
    diff = np.abs(cpu.astype(np.float64) - ref.astype(np.float64))
    scale = float(np.max(np.abs(cpu)))
    return (
        f"{diff.max():.3g}",
        f"{diff.max() / scale:.3g}",
        f"{float(np.max(diff / np.maximum(bound, 1e-30))):.3g}",
    )


def accuracy_section(rng: np.random.Generator) -> list[str]:
    lines = [
        "## 5. Convolution and MatMul accuracy: NumPy vs CPU (f32 hint)",
        "",
        "Inputs randn, weights randn * sqrt(2 / fan_in) (kaiming). `vs sum|xw|`: error over"
        " the sum of |products| of that output (the condition of the dot product).",
        "",
    ]
    rows = []
    for label, n, c, h, o, k, stride, pad, groups in CONV_SIZES:
        x = rng.standard_normal((n, c, h, h)).astype(np.float32)
        fan_in = c // groups * k * k
        w = (rng.standard_normal((o, c // groups, k, k)) * np.sqrt(2 / fan_in)).astype(np.float32)
        cpu = single(conv_build(w, stride, pad, groups), [x])
        exact = im2col_conv(x, w, stride, pad, groups, np.float64)
        bound = im2col_conv(np.abs(x), np.abs(w), stride, pad, groups, np.float64)
        f32 = im2col_conv(x, w, stride, pad, groups, np.float32)
        rows.append((label, "f64 accumulate → f32", *error_stats(cpu, exact, bound)))
        rows.append((label, "f32 einsum", *error_stats(cpu, f32, bound)))
    for m, kdim, nout in ((1, 512, 1000), (1, 2048, 1000), (4, 1280, 1000), (8, 9216, 4096)):
        a = rng.standard_normal((m, kdim)).astype(np.float32)
        b = (rng.standard_normal((nout, kdim)) / np.sqrt(kdim)).astype(np.float32)
        cpu = single(lambda p, b=b: opset1.matmul(p[0], const(b), False, True), [a])
        exact = (a.astype(np.float64) @ b.T.astype(np.float64)).astype(np.float32)
        bound = np.abs(a).astype(np.float64) @ np.abs(b).T.astype(np.float64)
        label = f"MatMul {m}x{kdim} · ({nout}x{kdim})ᵀ"
        rows.append((label, "f64 accumulate → f32", *error_stats(cpu, exact, bound)))
        rows.append((label, "f32 a @ b.T", *error_stats(cpu, a @ b.T, bound)))
    lines += table(["case", "NumPy", "max abs", "vs max\\|out\\|", "vs sum\\|xw\\|"], rows)
    return lines


def nonfinite_section() -> list[str]:
    lines = ["## 6. Non-finite values inside convolution windows", ""]
    rows = []

    def footprint(out: np.ndarray) -> str:
        nan = np.argwhere(np.isnan(out[0, 0]))
        inf = np.argwhere(np.isinf(out[0, 0]))
        return f"NaN at {nan.tolist()}; inf at {inf.tolist()}"

    ones3 = np.ones((1, 1, 3, 3), np.float32)
    for label, x, w, pad in (
        (
            "NaN at (2,2) of 5x5, k3 ones, p1",
            np.where(np.arange(25).reshape(1, 1, 5, 5) == 12, NAN, 1).astype(np.float32),
            ones3,
            1,
        ),
        (
            "inf at (0,0) of 5x5, k3 ones, p1",
            np.where(np.arange(25).reshape(1, 1, 5, 5) == 0, INF, 1).astype(np.float32),
            ones3,
            1,
        ),
        (
            "inf at (2,2), weight centre 0, k3, p1",
            np.where(np.arange(25).reshape(1, 1, 5, 5) == 12, INF, 1).astype(np.float32),
            np.where(np.arange(9).reshape(1, 1, 3, 3) == 4, 0, 1).astype(np.float32),
            1,
        ),
        (
            "ones 5x5, weight (0,0) = inf, p1 (padding × inf)",
            np.ones((1, 1, 5, 5), np.float32),
            np.where(np.arange(9).reshape(1, 1, 3, 3) == 0, INF, 1).astype(np.float32),
            1,
        ),
        (
            "+inf and -inf in one window",
            np.where(
                np.isin(np.arange(25), [6, 7]).reshape(1, 1, 5, 5),
                np.array([INF, -INF] * 13)[1:26].reshape(1, 1, 5, 5),
                1,
            ).astype(np.float32),
            ones3,
            0,
        ),
    ):
        out = single(conv_build(w, 1, pad, 1), [x])
        rows.append((label, out[0, 0]))
    lines += table(["case", "output"], rows)

    # A NaN in a large, realistic conv (oneDNN may use other algorithms there).
    rows = []
    rng = np.random.default_rng(5)
    for label, n, c, h, o, k, stride, pad, groups in CONV_SIZES[:3] + CONV_SIZES[5:6]:
        x = rng.standard_normal((n, c, h, h)).astype(np.float32)
        x[0, 0, h // 2, h // 2] = NAN
        x[0, 1 % c, 0, 0] = INF
        w = (rng.standard_normal((o, c // groups, k, k)) * 0.1).astype(np.float32)
        cpu = single(conv_build(w, stride, pad, groups), [x])
        want = im2col_conv(x, w, stride, pad, groups, np.float64)
        same = np.array_equal(np.isnan(cpu), np.isnan(want)) and np.array_equal(
            np.isinf(cpu), np.isinf(want)
        )
        rows.append(
            (
                label,
                int(np.isnan(cpu).sum()),
                int(np.isnan(want).sum()),
                int(np.isinf(cpu).sum()),
                int(np.isinf(want).sum()),
                same,
            )
        )
    lines += [
        "NaN at the centre of channel 0 and +inf at (0,0) of channel 1; NumPy = im2col in f64"
        " (NaN and inf where IEEE puts them):",
        "",
    ]
    lines += table(["case", "CPU NaN", "NumPy NaN", "CPU inf", "NumPy inf", "same positions"], rows)

    rows = []
    a = np.array([[1, NAN, 1], [INF, 1, 1], [INF, -INF, 0]], np.float32)
    b = np.array([[1, 0, 0], [0, 0, 1]], np.float32)
    out = single(lambda p: opset1.matmul(p[0], const(b), False, True), [a])
    rows.append(("a = [[1,nan,1],[inf,1,1],[inf,-inf,0]], b = [[1,0,0],[0,0,1]]ᵀ", out))
    lines += ["MatMul with zeros against non-finite values:", ""]
    lines += table(["case", "output"], rows)
    return lines


# --- 7. which versions convert_model writes ---------------------------------------------------


def versions_section() -> list[str]:
    """Op types and versions in the IR of a small torch module with the classifiers' patterns
    (conv, depthwise conv, relu, relu6, sigmoid gating, silu, hardswish, hardsigmoid, channel
    shuffle, chunk, cat, pooling, linear, softmax), converted with static, dynamic-batch and
    dynamic inputs."""
    try:
        import torch
    except ImportError:
        return ["## 7. Op versions written by convert_model: torch is not installed, skipped", ""]
    from collections import Counter

    class Patterns(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, 2, 1)
            self.depthwise = torch.nn.Conv2d(8, 8, 3, 1, 1, groups=8)
            self.fc = torch.nn.Linear(8, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            functional = torch.nn.functional
            y = functional.relu6(torch.relu(self.conv(x)))
            y = y * torch.sigmoid(y) + functional.silu(y)
            y = functional.hardswish(self.depthwise(y)) + functional.hardsigmoid(y)
            b, c, h, w = y.shape
            y = y.view(b, 2, c // 2, h, w).transpose(1, 2).contiguous().view(b, -1, h, w)
            first, second = y.chunk(2, dim=1)
            y = torch.cat([first, second * 2], 1) / (y.shape[2] * 1.0)
            return self.fc(functional.adaptive_avg_pool2d(y, 1).flatten(1)).softmax(-1)

    module, example = Patterns().eval(), torch.randn(1, 3, 16, 16)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.xml"
        for label, shape in (
            ("static", None),
            ("dynamic batch", [-1, 3, 16, 16]),
            ("dynamic", [-1, 3, -1, -1]),
        ):
            options = {"input": shape} if shape else {}
            ov.save_model(ov.convert_model(module, example_input=example, **options), path)
            xml = path.read_text()
            found = Counter(re.findall(r'type="(\w+)" version="(\w+)"', xml))
            pythondiv = sorted(set(re.findall(r'm_pythondiv="(\w+)"', xml)))
            listed = ", ".join(
                f"{t}-{v.removeprefix('opset')} ×{n}" for (t, v), n in sorted(found.items())
            )
            rows.append((label, listed, pythondiv))
    return ["## 7. Op versions written by convert_model (torch " + torch.__version__ + ")", ""] + (
        table(["input", "types and versions", "m_pythondiv"], rows)
    )


# --- golden vectors ----------------------------------------------------------------------------


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


def golden_cases(rng: np.random.Generator) -> list[Golden]:
    cases: list[Golden] = []
    x8 = special_grid((1, 4, 7, 7), rng)
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
                    lambda p, w=w, s=stride, d=dil, a=auto_pad, pb=pb, pe=pe: opset1.convolution(
                        p[0], p[1], [s, s], pb, pe, [d, d], a
                    ),
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
                    lambda p, a=auto_pad: opset1.group_convolution(
                        p[0], p[1], [2, 1], [1, 1], [1, 1], [1, 1], a
                    ),
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
    a4 = special_grid((2, 3, 4), rng)
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
                lambda p, ta=ta, tb=tb: opset1.matmul(p[0], p[1], ta, tb),
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
                lambda p, axis=axis, bd=bd: opset8.gather(p[0], p[1], const(axis, np.int64), bd),
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
                lambda p, axis=axis, lengths=lengths: opset1.variadic_split(
                    p[0], const(axis, np.int64), const(lengths, np.int64)
                ),
                [data],
            )
        )
    for axis in (-1, 1):
        cases.append(
            Golden(
                f"softmax8_axis{axis}",
                "SoftMax-8",
                {"axis": axis},
                lambda p, axis=axis: opset8.softmax(p[0], axis),
                [data],
            )
        )
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
        np.savez_compressed(directory / f"{case.name}.npz", **arrays)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", type=Path, help="also write the golden vectors here")
    parser.add_argument("--quick", action="store_true", help="skip the slow sections (3, 5)")
    parser.add_argument("--section", type=int, action="append", help="only these sections")
    args = parser.parse_args()
    if not ov.__version__.startswith(TESTED_OPENVINO):
        print(
            f"note: measured on OpenVINO {TESTED_OPENVINO}, running {ov.__version__}",
            file=sys.stderr,
        )
    rng = np.random.default_rng(20)
    print(f"# CNN op measurements, OpenVINO {ov.__version__}, CPU, {CONFIG}\n")
    sections: dict[int, Callable[[], list[str]]] = {
        1: attribute_section,
        2: lambda: shape_section(np.random.default_rng(2)),
        3: lambda: unary_section(np.random.default_rng(3), 1_000_000),
        4: binary_section,
        5: lambda: accuracy_section(np.random.default_rng(5)),
        6: nonfinite_section,
        7: versions_section,
        8: lambda: random_pairs_section(np.random.default_rng(8), 100_000),
        9: lambda: auto_pad_section(np.random.default_rng(9)),
    }
    chosen = args.section or [n for n in sections if not (args.quick and n in (3, 5))]
    for number in chosen:
        print("\n".join(sections[number]()), flush=True)
    if args.golden:
        write_golden(args.golden, rng)


if __name__ == "__main__":
    main()
