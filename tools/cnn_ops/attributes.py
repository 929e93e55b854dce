"""Section 1: what read_model and the CPU's compile_model do with edited attributes: each probe
model is saved, one <data> attribute of its layer "op" set, deleted or added, and read back."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from ov_builders import opset1, opset3, opset4, opset8, ov

from cnn_ops.probes import CONFIG, CORE, Row, cell, const, conv_out, error_line, table


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
    AttributeProbe("Add-1", binary_model(opset1.add), [*BROADCAST_EDITS, ("extra", "1")]),
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
    rows: list[Row] = []
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
    return [
        "Negative pads (read_model of a 1-D Convolution k3 of ones, D = 9 or ?):",
        "",
        *table(["D", "s", "pb", "pe", "formula", "runtime"], rows),
    ]


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
