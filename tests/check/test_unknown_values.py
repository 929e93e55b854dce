"""Unknown is not dynamic (#24): what irpool cannot know never contradicts a declaration.

A Const whose bytes are unavailable (no `.bin`, a truncated one, a Git LFS pointer), and the
output of a layer irpool does not check (its value, its -1 dims, its rank when the port has no
<dim>), are unknown to irpool but may be known to OpenVINO. Every registered op is checked on
such inputs: no finding beyond the weights error, IR202 and the IR218 info, and no edit.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli
from irpool.ops import registry
from tests import ir

LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 1234\n"
)
# What an unknown may add to a model that is otherwise clean.
ALLOWED = {"IR202", "IR218", "IR401", "IR402"}


@dataclass(frozen=True)
class Input:
    shape: tuple[int, ...]
    values: tuple[int, ...] | None = None  # an i64 Const's values; None: a Parameter's
    parameter_type: tuple[str, str] = ("f32", "FP32")  # a Parameter's element type, precision


@dataclass(frozen=True)
class Case:
    type: str
    opset: int
    data: str
    inputs: tuple[Input, ...]
    outputs: tuple[tuple[tuple[int, ...], str], ...]  # (shape, precision)


POOL = 'kernel="2,2" strides="2,2" pads_begin="0,0" pads_end="0,0" auto_pad="explicit" '
POOL += 'rounding_type="floor"'
IMAGE = Input((1, 2, 4, 4))
POOLED = (((1, 2, 2, 2), "FP32"),)
INDEXED = (((1, 2, 2, 2), "FP32"), ((1, 2, 2, 2), "I64"))
BACKPROP = (
    'strides="2,2" pads_begin="0,0" pads_end="0,0" dilations="1,1" auto_pad="explicit" '
    'output_padding="0,0"'
)

# One valid layer per registered op, with the dims OpenVINO infers declared on every port.
BINARY_OPS = (
    "Add", "Subtract", "Multiply", "Divide", "Mod", "FloorMod", "Power", "Greater", "Equal",
    "NotEqual", "GreaterEqual", "Less", "LessEqual", "Minimum", "Maximum", "SquaredDifference",
    "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseLeftShift", "BitwiseRightShift",
)  # fmt: skip
BOOLEAN_OUT = ("Greater", "Equal", "NotEqual", "GreaterEqual", "Less", "LessEqual")
OPSETS = {"BitwiseAnd": 13, "BitwiseOr": 13, "BitwiseXor": 13}
OPSETS |= {"BitwiseLeftShift": 15, "BitwiseRightShift": 15}
UNARY_MATH = (
    ("Abs", 1), ("Sqrt", 1), ("Exp", 1), ("Log", 1), ("Sin", 1), ("Cos", 1), ("Tan", 1),
    ("Tanh", 1), ("Asin", 1), ("Acos", 1), ("Atan", 1), ("Asinh", 4), ("Acosh", 4),
    ("Atanh", 4), ("Sinh", 1), ("Cosh", 1), ("Ceiling", 1), ("Negative", 1), ("Sign", 1),
    ("SoftPlus", 4), ("SoftSign", 9), ("Mish", 4), ("LogicalNot", 1), ("Round", 5),
)  # fmt: skip
FLAGS = Input((2,), parameter_type=("boolean", "BOOL"))
CASES = {
    "Parameter-1": Case("Parameter", 1, "", (), ()),
    "Const-1": Case("Const", 1, "", (), ()),
    "Result-1": Case("Result", 1, "", (IMAGE,), ()),
    "AvgPool-1": Case("AvgPool", 1, f'{POOL} exclude-pad="true"', (IMAGE,), POOLED),
    "AvgPool-14": Case("AvgPool", 14, f'{POOL} exclude-pad="true"', (IMAGE,), POOLED),
    "AvgPool-16": Case(
        "AvgPool", 16, f'{POOL} exclude-pad="true" dilations="1,1"', (IMAGE,), POOLED
    ),
    "MaxPool-1": Case("MaxPool", 1, POOL, (IMAGE,), POOLED),
    "MaxPool-8": Case(
        "MaxPool",
        8,
        f'{POOL} dilations="1,1" index_element_type="i64" axis="0"',
        (IMAGE,),
        INDEXED,
    ),
    "MaxPool-14": Case(
        "MaxPool",
        14,
        f'{POOL} dilations="1,1" index_element_type="i64" axis="0"',
        (IMAGE,),
        INDEXED,
    ),
    "AdaptiveAvgPool-8": Case("AdaptiveAvgPool", 8, "", (IMAGE, Input((2,), (2, 2))), POOLED),
    "AdaptiveMaxPool-8": Case(
        "AdaptiveMaxPool",
        8,
        'index_element_type="i32"',
        (IMAGE, Input((2,), (2, 2))),
        (((1, 2, 2, 2), "FP32"), ((1, 2, 2, 2), "I32")),
    ),
    "Convert-1": Case("Convert", 1, 'destination_type="f16"', (IMAGE,), (((1, 2, 4, 4), "FP16"),)),
    "Reshape-1": Case(
        "Reshape", 1, 'special_zero="false"', (IMAGE, Input((2,), (1, -1))), (((1, 32), "FP32"),)
    ),
    "Squeeze-1": Case(
        "Squeeze", 1, "", (Input((1, 2, 1, 4)), Input((1,), (2,))), (((1, 2, 4), "FP32"),)
    ),
    "Unsqueeze-1": Case(
        "Unsqueeze", 1, "", (Input((1, 2, 4)), Input((1,), (0,))), (((1, 1, 2, 4), "FP32"),)
    ),
    "ReduceMean-1": Case(
        "ReduceMean", 1, 'keep_dims="true"', (IMAGE, Input((2,), (2, 3))), (((1, 2, 1, 1), "FP32"),)
    ),
    "ReduceMax-1": Case(
        "ReduceMax", 1, 'keep_dims="false"', (IMAGE, Input((2,), (2, 3))), (((1, 2), "FP32"),)
    ),
    **{
        f"{kind}-{opset}": Case(kind, opset, "", (IMAGE,), (((1, 2, 4, 4), "FP32"),))
        for kind, opset in (
            ("ReLU", 1),
            ("Floor", 1),
            ("Sigmoid", 1),
            ("HSwish", 4),
            ("Swish", 4),
            ("HSigmoid", 5),
            ("Gelu", 2),
            ("Gelu", 7),
            *UNARY_MATH,
        )
    },
    "NonZero-3": Case("NonZero", 3, 'output_type="i64"', (IMAGE,), (((4, -1), "I64"),)),
    "Elu-1": Case("Elu", 1, 'alpha="1"', (IMAGE,), (((1, 2, 4, 4), "FP32"),)),
    "PReLU-1": Case("PReLU", 1, "", (IMAGE, Input((2,))), (((1, 2, 4, 4), "FP32"),)),
    "BitwiseNot-13": Case("BitwiseNot", 13, "", (Input((2,), (6, 7)),), (((2,), "I64"),)),
    **{
        f"{kind}-1": Case(kind, 1, 'auto_broadcast="numpy"', (FLAGS, FLAGS), (((2,), "BOOL"),))
        for kind in ("LogicalAnd", "LogicalOr", "LogicalXor")
    },
    "Concat-1": Case("Concat", 1, 'axis="1"', (IMAGE, IMAGE), (((1, 4, 4, 4), "FP32"),)),
    "Transpose-1": Case(
        "Transpose", 1, "", (IMAGE, Input((4,), (0, 2, 3, 1))), (((1, 4, 4, 2), "FP32"),)
    ),
    **{
        f"Gather-{opset}": Case(
            "Gather",
            opset,
            'batch_dims="0"' if opset > 1 else "",
            (IMAGE, Input((2,), (1, 0)), Input((1,), (1,))),
            (((1, 2, 4, 4), "FP32"),),
        )
        for opset in (1, 7, 8)
    },
    "ShapeOf-1": Case("ShapeOf", 1, "", (IMAGE,), (((4,), "I64"),)),
    "ShapeOf-3": Case("ShapeOf", 3, 'output_type="i32"', (IMAGE,), (((4,), "I32"),)),
    "VariadicSplit-1": Case(
        "VariadicSplit",
        1,
        "",
        (IMAGE, Input((1,), (1,)), Input((2,), (1, 1))),
        (((1, 1, 4, 4), "FP32"), ((1, 1, 4, 4), "FP32")),
    ),
    # Clamp on an i64 Const: its value folds, so an unknown input makes an unknown value.
    "Clamp-1": Case("Clamp", 1, 'min="0" max="6.5"', (Input((2,), (6, 7)),), (((2,), "I64"),)),
    "MatMul-1": Case(
        "MatMul",
        1,
        'transpose_a="false" transpose_b="true"',
        (Input((2, 3)), Input((4, 3))),
        (((2, 4), "FP32"),),
    ),
    **{
        f"{kind}-1": Case(
            kind,
            1,
            'strides="1,1" dilations="1,1" pads_begin="0,0" pads_end="0,0" auto_pad="explicit"',
            (IMAGE, Input(filters)),
            ((out, "FP32"),),
        )
        for kind, filters, out in (
            ("Convolution", (3, 2, 3, 3), (1, 3, 2, 2)),
            ("GroupConvolution", (2, 1, 1, 3, 3), (1, 2, 2, 2)),
        )
    },
    "MVN-6": Case(
        "MVN",
        6,
        'normalize_variance="true" eps="1e-05" eps_mode="INSIDE_SQRT"',
        (IMAGE, Input((1,), (3,))),
        (((1, 2, 4, 4), "FP32"),),
    ),
    "MVN-1": Case(
        "MVN",
        1,
        'normalize_variance="true" eps="1e-05" across_channels="true"',
        (IMAGE,),
        (((1, 2, 4, 4), "FP32"),),
    ),
    "FakeQuantize-1": Case(
        "FakeQuantize",
        1,
        'levels="256" auto_broadcast="numpy"',
        (IMAGE, *(Input((), (bound,)) for bound in (0, 1, 0, 1))),
        (((1, 2, 4, 4), "FP32"),),
    ),
    "GridSample-9": Case(
        "GridSample",
        9,
        'align_corners="false" mode="bilinear" padding_mode="zeros"',
        (IMAGE, Input((1, 3, 5, 2))),
        (((1, 2, 3, 5), "FP32"),),
    ),
    "Roll-7": Case(
        "Roll", 7, "", (IMAGE, Input((1,), (1,)), Input((1,), (2,))), (((1, 2, 4, 4), "FP32"),)
    ),
    "ReduceProd-1": Case(
        "ReduceProd", 1, 'keep_dims="false"', (IMAGE, Input((2,), (2, 3))), (((1, 2), "FP32"),)
    ),
    "ScatterNDUpdate-3": Case(
        "ScatterNDUpdate",
        4,
        "",
        (IMAGE, Input((1, 2), (0, 1)), Input((1, 4, 4))),
        (((1, 2, 4, 4), "FP32"),),
    ),
    "Range-1": Case(
        "Range", 1, "", (Input((), (1,)), Input((), (10,)), Input((), (3,))), (((3,), "I64"),)
    ),
    "Range-4": Case(
        "Range",
        4,
        'output_type="i64"',
        (Input((), (1,)), Input((), (10,)), Input((), (3,))),
        (((3,), "I64"),),
    ),
    "StridedSlice-1": Case(
        "StridedSlice",
        1,
        'begin_mask="0,0,1,0" end_mask="0,0,1,0" new_axis_mask="" shrink_axis_mask="" '
        'ellipsis_mask=""',
        (IMAGE, Input((4,), (0, 1, 0, 1)), Input((4,), (1, 2, 0, 3)), Input((4,), (1, 1, 1, 1))),
        (((1, 1, 4, 2), "FP32"),),
    ),
    "ConvolutionBackpropData-1": Case(
        "ConvolutionBackpropData",
        1,
        BACKPROP,
        (IMAGE, Input((2, 3, 2, 2))),
        (((1, 3, 8, 8), "FP32"),),
    ),
    "GroupConvolutionBackpropData-1": Case(
        "GroupConvolutionBackpropData",
        1,
        BACKPROP,
        (IMAGE, Input((2, 1, 3, 2, 2))),
        (((1, 6, 8, 8), "FP32"),),
    ),
    **{
        f"DetectionOutput-{version}": Case(
            "DetectionOutput",
            version,
            'keep_top_k="-1" normalized="true" nms_threshold="0.45"'
            + (' num_classes="3"' if version == 1 else ""),
            (Input((1, 20)), Input((1, 15)), Input((1, 2, 20))),
            (((1, 1, 15, 7), "FP32"),),
        )
        for version in (1, 8)
    },
    **{
        f"NonMaxSuppression-{version}": Case(
            "NonMaxSuppression",
            version,
            'box_encoding="corner" sort_result_descending="true" output_type="i64"',
            (Input((1, 6, 4)), Input((1, 2, 6)), Input((), (3,))),
            (((-1, 3), "I64"), ((-1, 3), "FP32"), ((1,), "I64")),
        )
        for version in (5, 9)
    },
    **{
        f"PriorBox-{version}": Case(
            "PriorBox",
            version,
            'min_size="30" max_size="60" aspect_ratio="2" flip="true" clip="false" step="8" '
            'offset="0.5" variance="0.1,0.1,0.2,0.2" scale_all_sizes="true"',
            (Input((2,), (4, 5)), Input((2,), (300, 300))),
            (((2, 320), "FP32"),),
        )
        for version in (1, 8)
    },
    "PriorBoxClustered-1": Case(
        "PriorBoxClustered",
        1,
        'width="2,6" height="4,3" clip="true" offset="0.5" variance=""',
        (Input((2,), (2, 3)), Input((2,), (8, 12))),
        (((2, 48), "FP32"),),
    ),
    "Slice-8": Case(
        "Slice",
        8,
        "",
        (IMAGE, Input((1,), (3,)), Input((1,), (0,)), Input((1,), (-2,)), Input((1,), (-1,))),
        (((1, 2, 4, 2), "FP32"),),
    ),
    "Split-1": Case(
        "Split",
        1,
        'num_splits="2"',
        (IMAGE, Input((), (1,))),
        (((1, 1, 4, 4), "FP32"), ((1, 1, 4, 4), "FP32")),
    ),
    "ScaledDotProductAttention-13": Case(
        "ScaledDotProductAttention",
        13,
        'causal="false"',
        (Input((1, 2, 3, 4)), Input((1, 2, 5, 4)), Input((1, 2, 5, 6)), Input((3, 5))),
        (((1, 2, 3, 6), "FP32"),),
    ),
    **{
        f"Broadcast-{version}": Case(
            "Broadcast",
            version,
            'mode="numpy"',
            (IMAGE, Input((5,), (2, 1, 2, 4, 4))),
            (((2, 1, 2, 4, 4), "FP32"),),
        )
        for version in (1, 3)
    },
    "Pad-12": Case(
        "Pad",
        12,
        'pad_mode="reflect"',
        (IMAGE, Input((4,), (0, 0, 1, -1)), Input((4,), (0, 0, 2, 1))),
        (((1, 2, 7, 4), "FP32"),),
    ),
    "Interpolate-1": Case(
        "Interpolate",
        1,
        'axes="2,3" mode="nearest"',
        (IMAGE, Input((2,), (8, 8))),
        (((1, 2, 8, 8), "FP32"),),
    ),
    "Interpolate-4": Case(
        "Interpolate",
        4,
        'mode="nearest" shape_calculation_mode="sizes"',
        (
            IMAGE,
            Input((2,), (8, 8)),
            Input((2,), parameter_type=("f32", "FP32")),
            Input((2,), (2, 3)),
        ),
        (((1, 2, 8, 8), "FP32"),),
    ),
    "Interpolate-11": Case(
        "Interpolate",
        11,
        'mode="nearest" shape_calculation_mode="sizes"',
        (IMAGE, Input((2,), (8, 8)), Input((2,), (2, 3))),
        (((1, 2, 8, 8), "FP32"),),
    ),
    "SoftMax-1": Case("SoftMax", 1, 'axis="1"', (IMAGE,), (((1, 2, 4, 4), "FP32"),)),
    "SoftMax-8": Case("SoftMax", 8, 'axis="-1"', (IMAGE,), (((1, 2, 4, 4), "FP32"),)),
    "Select-1": Case(
        "Select",
        1,
        'auto_broadcast="numpy"',
        (Input((1, 2, 4, 4), parameter_type=("boolean", "BOOL")), IMAGE, IMAGE),
        (((1, 2, 4, 4), "FP32"),),
    ),
    **{
        f"{kind}-{opset}": Case(
            kind, opset, 'keep_dims="false"', (IMAGE, Input((2,), (2, 3))), (((1, 2), "FP32"),)
        )
        for kind, opset in (("ReduceSum", 1), ("ReduceMin", 1), ("ReduceL1", 4), ("ReduceL2", 4))
    },
    **{
        f"{kind}-1": Case(
            kind,
            1,
            'keep_dims="true"',
            (Input((1, 2, 4, 4), parameter_type=("boolean", "BOOL")), Input((2,), (2, 3))),
            (((1, 2, 1, 1), "BOOL"),),
        )
        for kind in ("ReduceLogicalAnd", "ReduceLogicalOr")
    },
    "Tile-1": Case("Tile", 1, "", (IMAGE, Input((4,), (1, 1, 1, 2))), (((1, 2, 4, 8), "FP32"),)),
    "CumSum-3": Case(
        "CumSum",
        3,
        'exclusive="false" reverse="false"',
        (IMAGE, Input((), (1,))),
        (((1, 2, 4, 4), "FP32"),),
    ),
    "GatherElements-6": Case(
        "GatherElements",
        6,
        'axis="2"',
        (IMAGE, Input((1, 2, 2, 4), (0,) * 16)),
        (((1, 2, 2, 4), "FP32"),),
    ),
    **{
        f"GatherND-{opset}": Case(
            "GatherND",
            opset,
            'batch_dims="0"',
            (IMAGE, Input((2, 2), (0, 1, 0, 0))),
            (((2, 4, 4), "FP32"),),
        )
        for opset in (5, 8)
    },
    **{
        f"ScatterElementsUpdate-{opset}": Case(
            "ScatterElementsUpdate",
            opset,
            'reduction="sum" use_init_val="true"' if opset == 12 else "",
            (IMAGE, Input((1, 1, 1, 1), (0,)), Input((1, 1, 1, 1)), Input((), (2,))),
            (((1, 2, 4, 4), "FP32"),),
        )
        for opset in (3, 12)
    },
    **{
        f"TopK-{opset}": Case(
            "TopK",
            opset,
            'axis="3" mode="max" sort="value"'
            + (' index_element_type="i32"' if opset > 1 else "")
            + (' stable="false"' if opset == 11 else ""),
            (IMAGE, Input((), (2,))),
            (((1, 2, 4, 2), "FP32"), ((1, 2, 4, 2), "I32")),
        )
        for opset in (1, 3, 11)
    },
    "Einsum-7": Case(
        "Einsum",
        7,
        'equation="ij,jk-&gt;ik"',
        (Input((2, 3)), Input((3, 4))),
        (((2, 4), "FP32"),),
    ),
    # A variable's layers come in pairs (`model` adds the partner), a 2x3 f32 variable "v".
    **{
        f"{kind}-{opset}": Case(kind, opset, data, (Input((2, 3)),), (((2, 3), "FP32"),))
        for kind, opset, data in (
            ("ReadValue", 3, 'variable_id="v"'),
            ("ReadValue", 6, 'variable_id="v" variable_type="f32" variable_shape="2,3"'),
            ("Assign", 3, 'variable_id="v"'),
            ("Assign", 6, 'variable_id="v"'),
        )
    },
    "StringTensorUnpack-15": Case(
        "StringTensorUnpack",
        15,
        "",
        (Input((2,), parameter_type=("string", "STRING")),),
        (((2,), "I32"), ((2,), "I32"), ((-1,), "U8")),
    ),
    "StringTensorPack-15": Case(
        "StringTensorPack",
        15,
        "",
        (
            Input((2,), parameter_type=("i32", "I32")),
            Input((2,), parameter_type=("i32", "I32")),
            Input((6,), parameter_type=("u8", "U8")),
        ),
        (((2,), "STRING"),),
    ),
    # Binary ops on i64 Consts: their values fold, so an unknown operand makes an unknown value.
    **{
        f"{kind}-{OPSETS.get(kind, 1)}": Case(
            kind,
            OPSETS.get(kind, 1),
            'auto_broadcast="numpy"' + (' m_pythondiv="true"' if kind == "Divide" else ""),
            (Input((2,), (6, 7)), Input((2,), (2, 3))),
            (((2,), "BOOL" if kind in BOOLEAN_OUT else "I64"),),
        )
        for kind in BINARY_OPS
    },
}

# The layer `model` adds beside a ReadValue or Assign case, by the case's opset: its type
# and `<data>` attributes.
PARTNERS = {
    "ReadValue": {3: ("Assign", 'variable_id="v"'), 6: ("Assign", 'variable_id="v"')},
    "Assign": {
        3: ("ReadValue", 'variable_id="v"'),
        6: ("ReadValue", 'variable_id="v" variable_type="f32" variable_shape="{shape}"'),
    },
}

# How a producer hides what it knows: "" is the truth; "dynamic" and "no dims" pass each
# input through an op irpool does not check (Erf, ShuffleChannels) that declares -1 for every
# dim, or no <dim> at all (a scalar or a dynamic rank, as the serializer writes both).
HIDINGS = ("", "dynamic", "no dims")


def _layer(layer_id: int, kind: str, version: str, data: str, ins: str, outs: str) -> str:
    """Layer `l<id>`; `data` its `<data>` attributes as written."""
    element = f"<data {data} />" if data else ""
    inputs, outputs = [ins] if ins else [], [outs] if outs else []
    return ir.layer(layer_id, f"l{layer_id}", kind, version, element, inputs, outputs)


def model(case: Case, hiding: str = "") -> tuple[str, bytes]:
    """The case's layer fed by Parameters and i64 Consts (through unchecked layers when
    `hiding`), its outputs read by Results; the `.xml` text and the `.bin`."""
    layers, edges, weights = [], [], b""
    inputs = case.inputs
    if case.type == "Parameter":
        inputs = ()
        layers.append(_layer(0, "Parameter", "opset1", 'shape="1,2" element_type="f32"', "",
                             ir.port(0, (1, 2), "FP32")))  # fmt: skip
        edges.append((0, 0, 1, 0))
        layers.append(_layer(1, "Result", "opset1", "", ir.port(0, (1, 2), "FP32"), ""))
    elif case.type == "Const":
        data = 'element_type="i64" shape="2" offset="0" size="16"'
        layers.append(_layer(0, "Const", "opset1", data, "", ir.port(0, (2,), "I64")))
        layers.append(_layer(1, "Result", "opset1", "", ir.port(0, (2,), "I64"), ""))
        edges.append((0, 0, 1, 0))
        weights = struct.pack("<2q", 3, 4)
    next_id = 10
    ports: list[str] = []
    for index, given in enumerate(inputs):
        precision = given.parameter_type[1] if given.values is None else "I64"
        if given.values is None:
            data = (
                f'shape="{",".join(map(str, given.shape))}" '
                f'element_type="{given.parameter_type[0]}"'
            )
            layers.append(_layer(next_id, "Parameter", "opset1", data, "",
                                 ir.port(0, given.shape, precision)))  # fmt: skip
        else:
            shape = ",".join(map(str, given.shape))  # "" for a scalar
            data = (
                f'element_type="i64" shape="{shape}" offset="{len(weights)}" '
                f'size="{8 * len(given.values)}"'
            )
            weights += struct.pack(f"<{len(given.values)}q", *given.values)
            layers.append(_layer(next_id, "Const", "opset1", data, "",
                                 ir.port(0, given.shape, precision)))  # fmt: skip
        source = next_id
        next_id += 1
        if hiding:
            hidden = None if hiding == "no dims" else [-1] * len(given.shape)
            kind = "Erf" if given.values is None else "ShuffleChannels"
            layers.append(_layer(next_id, kind, "opset1", "", ir.port(0, given.shape, precision),
                                 ir.port(1, hidden, precision)))  # fmt: skip
            edges.append((source, 0, next_id, 0))
            source, next_id = next_id, next_id + 1
            shape: Sequence[int] | None = hidden
        else:
            shape = given.shape
        edges.append((source, 1 if hiding else 0, 1, index))
        ports.append(ir.port(index, shape if hiding else given.shape, precision))
    if inputs:
        outs = "".join(
            ir.port(len(inputs) + i, shape, precision)
            for i, (shape, precision) in enumerate(case.outputs)
        )
        version = f"opset{case.opset}"
        layers.append(_layer(1, case.type, version, case.data, "".join(ports), outs))
        for i, (shape, precision) in enumerate(case.outputs):
            layers.append(_layer(next_id, "Result", "opset1", "", ir.port(0, shape, precision), ""))
            edges.append((1, len(inputs) + i, next_id, 0))
            next_id += 1
    if case.type in PARTNERS:  # the variable's other layer, reading what the case's reads
        source = next(edge[:2] for edge in edges if edge[2:] == (1, 0))
        partner, data = PARTNERS[case.type][case.opset]
        read = None if hiding == "no dims" else [-1, -1] if hiding else [2, 3]
        # A ReadValue-6 declares its variable (its output): "?,?" when the input is hidden.
        given = read if case.opset == 3 else [-1, -1] if hiding else [2, 3]
        data = data.replace("{shape}", "?,?" if hiding else "2,3")
        inputs_, output = ir.port(0, read, "FP32"), ir.port(1, given, "FP32")
        layers.append(_layer(next_id, partner, f"opset{case.opset}", data, inputs_, output))
        edges.append((*source, next_id, 0))
        if partner == "ReadValue":  # feeding a Result, or OpenVINO drops it
            result = ir.port(0, given, "FP32")
            layers.append(_layer(next_id + 1, "Result", "opset1", "", result, ""))
            edges.append((next_id, 1, next_id + 1, 0))
    return ir.net(layers, [ir.edge(*ends) for ends in edges], name="case"), weights


def test_the_table_holds_every_registered_op() -> None:
    registry.lookup("Parameter", "opset1")  # loads every op module
    registered = {cls.label() for family in registry._BY_TYPE.values() for cls in family}
    assert registered == set(CASES)


@pytest.mark.parametrize("label", sorted(CASES))
def test_each_case_is_clean_with_its_weights(tmp_path: Path, label: str) -> None:
    text, weights = model(CASES[label])
    path = _write(tmp_path, text, weights)
    assert [(d.code, d.message) for d in irpool.load(path).validate()] == []


@pytest.mark.parametrize("hiding", HIDINGS)
@pytest.mark.parametrize("weights", ["missing", "truncated", "lfs"])
@pytest.mark.parametrize("label", sorted(CASES))
def test_unknown_inputs_give_no_finding_and_no_edit(
    tmp_path: Path, label: str, weights: str, hiding: str
) -> None:
    text, data = model(CASES[label], hiding)
    path = _write(tmp_path, text, _weights(weights, data))
    found = irpool.load(path).validate()
    assert {d.code for d in found} <= ALLOWED, [(d.code, d.message) for d in found]
    assert [d for d in found if d.edit is not None] == []


def _write(directory: Path, text: str, weights: bytes | None) -> Path:
    path = directory / "model.xml"
    path.write_text(text)
    if weights is not None:
        path.with_suffix(".bin").write_bytes(weights)
    return path


# Issue #24's reproduction: an IR v10 mobilenet tail whose final Reshape reads its target shape
# from a Const (through a Convert, as a decompression or type cast would) without a .bin.
MOBILENET_TAIL = """<?xml version="1.0"?>
<net name="mobilenet_v2" version="10">
<layers>
<layer id="0" name="pool" type="Parameter" version="opset1">
<data shape="1,1001,1,1" element_type="f32" />
<output><port id="0" precision="FP32"><dim>1</dim><dim>1001</dim><dim>1</dim><dim>1</dim></port>
</output></layer>
<layer id="1" name="shape" type="Const" version="opset1">
<data element_type="i32" shape="2" offset="0" size="8" />
<output><port id="0" precision="I32"><dim>2</dim></port></output></layer>
<layer id="2" name="shape/cast" type="Convert" version="opset1">
<data destination_type="i64" />
<input><port id="0" precision="I32"><dim>2</dim></port></input>
<output><port id="1" precision="I64"><dim>2</dim></port></output></layer>
<layer id="3" name="flatten" type="Reshape" version="opset1">
<data special_zero="false" />
<input><port id="0" precision="FP32"><dim>1</dim><dim>1001</dim><dim>1</dim><dim>1</dim></port>
<port id="1" precision="I64"><dim>2</dim></port></input>
<output><port id="2" precision="FP32"><dim>1</dim><dim>1001</dim></port></output></layer>
<layer id="4" name="prob" type="SoftMax" version="opset1">
<data axis="1" />
<input><port id="0" precision="FP32"><dim>1</dim><dim>1001</dim></port></input>
<output><port id="1" precision="FP32"><dim>1</dim><dim>1001</dim></port></output></layer>
<layer id="5" name="prob/sink_port_0" type="Result" version="opset1">
<input><port id="0" precision="FP32"><dim>1</dim><dim>1001</dim></port></input></layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="3" to-port="0" />
<edge from-layer="1" from-port="0" to-layer="2" to-port="0" />
<edge from-layer="2" from-port="1" to-layer="3" to-port="1" />
<edge from-layer="3" from-port="2" to-layer="4" to-port="0" />
<edge from-layer="4" from-port="1" to-layer="5" to-port="0" />
</edges>
</net>
"""


TAIL_WEIGHTS = struct.pack("<2i", 1, 1001)


def _weights(kind: str, data: bytes) -> bytes | None:
    """The `.bin` as `kind` leaves it: missing, cut in half, or a Git LFS pointer."""
    return {"missing": None, "truncated": data[: len(data) // 2], "lfs": LFS_POINTER}[kind]


@pytest.mark.parametrize("weights", ["missing", "truncated", "lfs"])
def test_the_issue_s_mobilenet_tail_keeps_its_dims(tmp_path: Path, weights: str) -> None:
    path = _write(tmp_path, MOBILENET_TAIL, _weights(weights, TAIL_WEIGHTS))
    found = irpool.load(path).validate()
    error = "IR402" if weights == "truncated" else "IR401"
    assert sorted(d.code for d in found) == sorted([error, "IR218"])
    if weights == "lfs":
        assert "this looks like a Git LFS pointer; run `git lfs pull`" in found[0].message
    before = path.read_bytes()
    for flag in ("--fix", "--diff"):
        result = CliRunner().invoke(cli, ["validate", flag, "--isolated", str(path)])
        assert "Would fix 0 problems" in result.output or flag == "--fix", result.output
        assert "<dim>" not in result.output and "IR301" not in result.output, result.output
    assert path.read_bytes() == before


def test_with_its_weights_the_tail_is_checked(tmp_path: Path) -> None:
    """The control: with the .bin the tail is clean, and a wrong pattern is found, so the
    checks are not simply off."""
    path = _write(tmp_path, MOBILENET_TAIL, TAIL_WEIGHTS)
    assert [d.code for d in irpool.load(path).validate()] == []
    path.with_suffix(".bin").write_bytes(struct.pack("<2i", 1, 1000))
    assert "IR303" in {d.code for d in irpool.load(path).validate()}


@pytest.mark.oracle
def test_openvino_infers_the_tail_s_declared_dims(tmp_path: Path) -> None:
    """The dims irpool keeps when the .bin is missing are the ones OpenVINO infers with it."""
    ov = pytest.importorskip("openvino")
    path = _write(tmp_path, MOBILENET_TAIL, TAIL_WEIGHTS)
    model = ov.Core().read_model(path)
    assert str(model.output(0).get_partial_shape()) == "[1,1001]"


def _chain(source: str, unsqueezed: ir.Shape, outer: ir.Shape) -> str:
    """A scalar Parameter -> `source` (layer 1) -> Unsqueeze(axes 0) declaring `unsqueezed`
    -> Unsqueeze(axes 0) declaring `outer` -> Result; the axes are scalar i64 Consts at
    offset 0."""
    axes = ir.data([("element_type", "i64"), ("shape", ""), ("offset", "0"), ("size", "8")])

    def unsqueeze(layer_id: int, inner: ir.Shape, dims: ir.Shape) -> list[str]:
        inputs = [ir.port(0, inner), ir.port(1, [], "I64")]
        return [
            ir.layer(layer_id - 1, f"axes{layer_id - 1}", "Const", "opset1", axes, (),
                     [ir.port(0, [], "I64")]),
            ir.layer(layer_id, f"unsqueeze{layer_id}", "Unsqueeze", "opset1", "", inputs,
                     [ir.port(2, dims)]),
        ]  # fmt: skip

    layers = [
        ir.parameter(0, "x", []),
        SCALAR_SOURCES[source],
        *unsqueeze(3, [], unsqueezed),
        *unsqueeze(5, unsqueezed, outer),
        ir.result(6, "out", outer),
    ]
    edges = [(0, 0, 1, 0), (1, 1, 3, 0), (2, 0, 3, 1), (3, 2, 5, 0), (4, 0, 5, 1), (5, 2, 6, 0)]
    return ir.net(layers, [ir.edge(*ends) for ends in edges], name="chain")


SCALAR_SOURCES = {
    # A Convert irpool infers: the scalar is known, so the Unsqueeze infers rank 1.
    "inferred": ir.layer(1, "scalar", "Convert", "opset1", ir.data([("destination_type", "f32")]),
                         [ir.port(0, [])], [ir.port(1, [])]),
    # An Erf irpool does not check, written without <dim>: its rank is unknown, and the
    # Unsqueeze's declared rank stands.
    "trusted": ir.layer(1, "scalar", "Erf", "opset1", "", [ir.port(0, [])], [ir.port(1, [])]),
}  # fmt: skip
ONE, TWO, THREE = (1,), (1, 1), (1, 1, 1)


@pytest.mark.parametrize(
    ("source", "unsqueezed", "outer", "codes"),
    [
        ("inferred", ONE, TWO, []),
        # The scalar's Unsqueeze is [1], not a scalar (said on both ports that claim it).
        ("inferred", (), TWO, ["IR302", "IR302"]),
        ("inferred", ONE, THREE, ["IR302", "IR302"]),
        ("trusted", ONE, TWO, ["IR202"]),
        ("trusted", TWO, THREE, ["IR202"]),  # a dynamic rank could give [1,1]: it stands
        ("trusted", ONE, THREE, ["IR202", "IR302", "IR302"]),  # [1] carried on: [1,1]
    ],
)
def test_a_port_without_dim_is_a_scalar_or_an_unknown_rank(
    tmp_path: Path, source: str, unsqueezed: ir.Shape, outer: ir.Shape, codes: list[str]
) -> None:
    text = _chain(source, unsqueezed, outer)
    path = _write(tmp_path, text, struct.pack("<q", 0))
    found = irpool.load(path).validate()
    assert sorted(d.code for d in found if d.code != "IR218") == codes, [
        (d.code, d.message) for d in found
    ]
    assert [d for d in found if d.edit is not None] == []


@pytest.mark.oracle
@pytest.mark.parametrize("weights", ["missing", "truncated", "lfs"])
def test_openvino_refuses_what_irpool_calls_a_weights_error(tmp_path: Path, weights: str) -> None:
    """IR401/IR402 are errors because read_model fails on each broken .bin (the pointer's
    text is read as the pattern, which the Reshape refuses)."""
    ov = pytest.importorskip("openvino")
    path = _write(tmp_path, MOBILENET_TAIL, _weights(weights, TAIL_WEIGHTS))
    with pytest.raises(RuntimeError):
        ov.Core().read_model(path)
