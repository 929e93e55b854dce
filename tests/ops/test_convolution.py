"""Convolution-1 and GroupConvolution-1: attributes, shapes with dynamic dims and intervals, and
refusals with the runtime's messages, as OpenVINO 2026.4's `read_model` gives them (measured:
docs/ops/Convolution.md); the live comparison over many configurations is
tests/differential/test_convolution.py."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import irpool
from irpool.check.attributes import read_attributes
from irpool.cpu.refusals import check_refusals
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.convolution import Convolution1, ConvolutionBase, GroupConvolution1, spatial_dim
from irpool.ops.registry import lookup
from irpool.shape import Dim, Shape
from tests.execute.running import quiet_context

F32 = element_type("f32")


def dim(text: str) -> Dim:
    if text.isdigit():
        return Dim.static(int(text))
    if text == "?":
        return Dim.dynamic()
    low, _, high = text.partition("..")
    return Dim(int(low or 0), int(high) if high else None)


def shape(text: str) -> Shape:
    return Shape.dynamic() if text == "..." else Shape(tuple(dim(d) for d in text.split(",")))


def op(kind: type[ConvolutionBase] = Convolution1, **attrs: Any) -> ConvolutionBase:
    lists = {"strides": (), "dilations": (), "pads_begin": (), "pads_end": ()}
    return kind({**lists, "auto_pad": "explicit", **attrs})


def infer(conv: ConvolutionBase, data: str, filters: str, kind: str = "f32") -> str:
    types = element_type(kind)
    inputs = [TensorInfo(types, shape(data)), TensorInfo(types, shape(filters))]
    return str(conv.infer(inputs, quiet_context(frozenset(conv.attrs)))[0].shape)


# data, filters, attributes, output (read_model's), 1-D axis tables from
# docs/ops/Convolution.md#shape-inference
SHAPES = [
    ("1,3,9", "4,3,3", {}, "[1,4,7]"),
    ("1,3,9", "4,3,3", {"pads_begin": (1,), "pads_end": (1,)}, "[1,4,9]"),
    ("1,3,9", "4,3,3", {"strides": (2,), "pads_begin": (1,), "pads_end": (0,)}, "[1,4,4]"),
    ("1,3,9", "4,3,3", {"dilations": (3,)}, "[1,4,3]"),
    ("1,3,9", "4,3,3", {"auto_pad": "valid", "pads_begin": (3,), "pads_end": (3,)}, "[1,4,7]"),
    ("1,3,9", "4,3,5", {"auto_pad": "same_upper", "strides": (2,), "dilations": (3,)}, "[1,4,5]"),
    ("1,3,9", "4,3,3", {"auto_pad": "same_lower", "strides": (4,)}, "[1,4,3]"),
    # dynamic and interval dims: a lower bound that does not fit gives 1
    ("?,3,?", "4,3,3", {}, "[?,4,1..]"),
    ("2,3,1..2", "4,3,3", {}, "[2,4,1]"),
    ("2,3,1..5", "4,3,3", {}, "[2,4,1..3]"),
    ("2,3,2..", "4,3,3", {"strides": (2,), "pads_begin": (1,), "pads_end": (1,)}, "[2,4,1..]"),
    ("2,3,?", "4,3,3", {"auto_pad": "same_upper"}, "[2,4,?]"),
    ("2,3,..5", "4,3,3", {"auto_pad": "same_upper", "strides": (2,)}, "[2,4,..3]"),
    ("2,3,4..9", "4,3,3", {"auto_pad": "same_lower", "strides": (2,)}, "[2,4,2..5]"),
    # a dynamic channel dim is accepted; output channels are the filters' dim 0
    ("1,?,8,8", "6,3,3,3", {}, "[1,6,6,6]"),
    ("1,3,8,8", "?,3,3,3", {}, "[1,?,6,6]"),
    # unknown ranks: the spatial count from the other input, or the lists
    ("...", "4,3,3,3", {}, "[?,4,1..,1..]"),
    ("1,3,8,8", "...", {}, "[1,?,1..8,1..8]"),
    # a kernel dim left dynamic: its dilated size is at least 1
    ("1,3,8,8", "4,3,?,3", {}, "[1,4,1..8,6]"),
    ("1,3,8,8", "4,3,2..5,3", {"dilations": (2, 1)}, "[1,4,1..6,6]"),
    ("...", "...", {"strides": (2, 2, 2)}, "[?,?,1..,1..,1..]"),
    ("...", "...", {}, "[...]"),
    # negative pads (wrapped): a sum of -1 makes the dim dynamic, lower sums count as 0
    ("1,1,9", "1,1,3", {"pads_begin": (2**64 - 1,), "pads_end": (0,)}, "[1,1,7..]"),
    ("1,1,9", "1,1,3", {"pads_begin": (2**64 - 3,), "pads_end": (2**64 - 3,)}, "[1,1,7]"),
    # 3 spatial axes
    ("2,4,5,6,7", "8,4,3,2,1", {"strides": (1, 2, 3)}, "[2,8,3,3,3]"),
]


@pytest.mark.parametrize(("data", "filters", "attrs", "expected"), SHAPES)
def test_convolution_shapes_as_openvino(
    data: str, filters: str, attrs: dict[str, Any], expected: str
) -> None:
    assert infer(op(**attrs), data, filters) == expected


GROUP_SHAPES = [
    ("1,6,8,8", "3,4,2,3,3", {}, "[1,12,6,6]"),
    ("1,32,7,7", "32,1,1,3,3", {"pads_begin": (1, 1), "pads_end": (1, 1)}, "[1,32,7,7]"),
    ("1,32,7,7", "32,2,1,3,3", {"strides": (2, 2), "auto_pad": "same_upper"}, "[1,64,4,4]"),
    # the group dim is merged with data channels / filter input channels
    ("1,6,8,8", "?,4,2,3,3", {}, "[1,12,6,6]"),
    ("1,6..12,8,8", "?,1,3,3,3", {}, "[1,2..4,6,6]"),
    ("1,?,8,8", "3,4,2,3,3", {}, "[1,12,6,6]"),
    ("...", "3,4,2,3,3", {}, "[?,12,1..,1..]"),
]


@pytest.mark.parametrize(("data", "filters", "attrs", "expected"), GROUP_SHAPES)
def test_group_convolution_shapes_as_openvino(
    data: str, filters: str, attrs: dict[str, Any], expected: str
) -> None:
    assert infer(op(GroupConvolution1, **attrs), data, filters) == expected


# kind, data, filters, attributes, the runtime's message (read_model)
REFUSED = [
    (Convolution1, "1,3,8,8", "4,2,3,3", {}, r"Data batch channel count \(3\) does not match "
     r"filter input channel count \(2\)\."),
    (Convolution1, "1,3,8,8", "4,3,3", {}, r"Data batch and filters rank do not match \(data "
     r"batch shape: \[1,3,8,8\], filters shape: \[4,3,3\]\)\."),
    (Convolution1, "1,3", "4,3", {}, r"Expected a 3D, 4D or 5D tensor for the input\. Got: "
     r"\[1,3\]"),
    (Convolution1, "1,3,4", "4,3,5", {}, r"Kernel after dilation has size \(dim: 5\) larger "
     r"than the data shape after padding \(dim: 4\) at axis 0\."),
    (Convolution1, "1,3,4", "4,3,3", {"auto_pad": "valid", "dilations": (2,)},
     r"Kernel after dilation has size \(dim: 5\) larger than the data shape after padding"),
    (Convolution1, "1,3,8,8", "4,3,3,3", {"strides": (1,)}, r"Strides should be defined for "
     r"all and only spatial dimensions\."),
    (Convolution1, "1,3,8,8", "4,3,3,3", {"dilations": (1, 1, 1)}, r"Dilations should be "
     r"defined for all and only spatial dimensions\."),
    (Convolution1, "1,3,8,8", "4,3,3,3", {"pads_end": (0,)}, r"Pads begin and end should be "
     r"defined for all and only spatial dimensions\."),
    (GroupConvolution1, "1,6,8,8", "4,1,2,3,3", {}, r"Input channels dimension of data batch "
     r"is incompatible with filter groups or input channels\."),
    (GroupConvolution1, "1,6,8,8", "3,1,4,3,3", {}, r"Input channels dimension of data batch "
     r"is incompatible"),
    (GroupConvolution1, "1,6,8,8", "3,1,2,3", {}, r"Data batch and filters rank do not match"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "data", "filters", "attrs", "message"), REFUSED)
def test_refusals_have_the_runtimes_messages(
    kind: type[ConvolutionBase], data: str, filters: str, attrs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ShapeError, match=message):
        infer(op(kind, **attrs), data, filters)


@pytest.mark.parametrize(
    ("data", "filters", "message"),
    [
        ("f32", "i32", r"Element types for data batch and filters do not match \(data batch "
         r"element type: f32, filters element type: i32\)\."),
        ("boolean", "boolean", r"Element types must be numeric\. Got: boolean"),
    ],
)  # fmt: skip
def test_element_types_as_openvino(data: str, filters: str, message: str) -> None:
    inputs = [
        TensorInfo(element_type(data), shape("1,3,8,8")),
        TensorInfo(element_type(filters), shape("4,3,3,3")),
    ]
    with pytest.raises(ShapeError, match=message):
        op().infer(inputs, quiet_context())


# attribute text -> (rule, what its message says), as read_model reads it
# (docs/ops/Convolution.md#versions-and-attributes)
ATTRIBUTE_FINDINGS = [
    ({"strides": "2, x"}, "IR204", 'cannot parse "x"'),
    ({"strides": "２, 2"}, "IR204", "ASCII"),
    ({"strides": "2x, 2"}, "IR205", 'read as 2'),
    ({"strides": "2.5, 2"}, "IR205", 'read as 2'),
    ({"strides": "0, 1"}, "IR206", "strides must be at least 1"),
    ({"dilations": "1, 0"}, "IR206", "dilations must be at least 1"),
    ({"pads_begin": "-1, 0"}, "IR205", "wraps around"),
    ({"strides": "-1, 1"}, "IR205", "wraps around"),
    ({"auto_pad": "same"}, "IR204", "not one of explicit"),
    ({"auto_pad": ""}, "IR204", "not one of explicit"),
    ({"auto_pad": "SAME_UPPER"}, "IR211", 'is written "same_upper"'),
    ({"group": "2"}, "IR210", "no attribute group"),
]  # fmt: skip


@pytest.mark.parametrize(("given", "code", "message"), ATTRIBUTE_FINDINGS)
def test_attributes_read_as_openvino_reads_them(
    given: dict[str, str], code: str, message: str
) -> None:
    text = {"strides": "1, 1", "dilations": "1, 1", "pads_begin": "0, 0", "pads_end": "0, 0"}
    for kind in (Convolution1, GroupConvolution1):
        found = read_attributes(kind, tuple({**text, **given}.items())).findings
        assert [(str(f[0]), message in f[1]) for f in found] == [(code, True)], found


def test_both_ops_are_opset1_to_16() -> None:
    for name in ("Convolution", "GroupConvolution"):
        assert lookup(name, "opset1").op is not None
        assert lookup(name, "opset16").op is not None
        assert lookup(name, "opset17").op is None


def reported(conv: ConvolutionBase) -> tuple[str, list[OpReport]]:
    """The output shape of `conv` on f32 [1,3,8,8] by [4,3,3,3], and what it reports."""
    reports: list[OpReport] = []
    context = LayerContext(
        frozenset(conv.attrs), reports.append, lambda offset, size: memoryview(b"")
    )
    inputs = [TensorInfo(F32, shape("1,3,8,8")), TensorInfo(F32, shape("4,3,3,3"))]
    output = str(conv.infer(inputs, context)[0].shape)
    check_refusals(conv, inputs, context)
    return output, reports


def test_declared_pads_that_auto_pad_replaces_are_reported_with_their_fix() -> None:
    conv = op(auto_pad="same_upper", pads_begin=(0, 0), pads_end=(0, 0))
    _, reports = reported(conv)
    assert [(str(r.code), r.attribute, r.fix) for r in reports] == [
        ("IR213", "pads_begin", "1,1"),
        ("IR213", "pads_end", "1,1"),
    ]


def test_a_negative_stride_is_a_compile_crash() -> None:
    output, reports = reported(op(strides=(2**64 - 1, 1)))
    assert output == "[1,4,1,6]"
    assert [str(r.code) for r in reports] == ["IR603"]


def test_explain_has_a_row_per_spatial_axis() -> None:
    conv = op(GroupConvolution1, strides=(2, 1), pads_begin=(1, 0), pads_end=(1, 2),
              auto_pad="same_upper")  # fmt: skip
    data, filters = TensorInfo(F32, shape("1,8,9,?")), TensorInfo(F32, shape("8,1,1,3,3"))
    explanation = conv.explain([data, filters], [])
    assert explanation is not None
    assert explanation.settings == "auto_pad=same_upper groups=8"
    assert [row.cells() for row in explanation.axes] == [
        ("9", "3", "2", "1", "1,1", "5"),
        ("?", "3", "1", "1", "0,0 (declared 0,2)", "?"),
    ]
    assert op().explain([None, filters], []) is None


def test_each_layer_keeps_its_own_prepared_filters() -> None:
    conv = op()
    first, second = conv.for_layer([]), conv.for_layer([])
    first.kernel_cache["filters"] = "prepared"
    assert second.kernel_cache == {} and conv.kernel_cache == {}


MUTANT_MODEL = Path(__file__).parent.parent / "models" / "torchvision" / "resnet18-static-fp32"


def _mutant(tmp_path: Path, old: str, new: str, after: str = "") -> list[irpool.Diagnostic]:
    """The errors of resnet18 (static input, reduced) with `old` replaced by `new`, at its
    first place after `after`."""
    source = (MUTANT_MODEL / "model.xml").read_text()
    start = source.index(old, source.index(after))
    (tmp_path / "model.xml").write_text(source[:start] + new + source[start + len(old) :])
    shutil.copy(MUTANT_MODEL / "model.bin", tmp_path / "model.bin")
    found = irpool.load(tmp_path / "model.xml").validate()
    return [d for d in found if d.severity is irpool.Severity.ERROR]


def test_the_unmutated_model_has_no_error(tmp_path: Path) -> None:
    assert _mutant(tmp_path, "", "") == []


def test_an_unreadable_stride_is_an_error(tmp_path: Path) -> None:
    errors = _mutant(tmp_path, 'strides="2, 2"', 'strides="2, x"', 'type="Convolution"')
    assert [(d.code, d.layer_name) for d in errors] == [("IR204", "Multiply_23051")]


def test_a_wrong_convolution_dim_is_blamed_on_the_convolution(tmp_path: Path) -> None:
    # The first Convolution's output [1,4,32,32]: its third dim declared 99.
    output = '<port id="2" precision="FP32" names="46_1">'
    dims = "<dim>1</dim>\n\t\t\t\t\t<dim>4</dim>\n\t\t\t\t\t<dim>32</dim>"
    wrong = "<dim>1</dim>\n\t\t\t\t\t<dim>4</dim>\n\t\t\t\t\t<dim>99</dim>"
    errors = _mutant(tmp_path, dims, wrong, output)
    assert [(d.code, d.layer_name) for d in errors] == [("IR301", "Multiply_23051")]
    assert "declared 99, inferred 32" in errors[0].message


def test_a_changed_stride_reports_every_stale_dim(tmp_path: Path) -> None:
    # The first 3x3 Convolution of layer1 (stride 1) made stride 2: 16x16 becomes 8x8, so
    # every later dim of that branch is stale until the Add, which then cannot broadcast.
    errors = _mutant(tmp_path, 'strides="1, 1"', 'strides="2, 2"')
    stale = [(d.layer_name, d.message.split(":")[0]) for d in errors if d.code == "IR301"]
    assert stale[:2] == [
        ("Multiply_23058", "output port 2 dim 2"),
        ("Multiply_23058", "output port 2 dim 3"),
    ]
    layers = {name for name, _ in stale}
    assert {"__module.layer1.0.relu/aten::relu_/Relu", "Multiply_23065"} <= layers
    assert len(stale) >= 10
    assert any(d.code == "IR303" and "Add" in (d.layer_name or "") for d in errors)


@pytest.mark.parametrize(
    ("size", "kernel", "dilation", "pads", "stride", "windows"),
    [  # (1 + 3 + 1 = 5 long against 3 + 1 + 0 = 4: one longer) -> 0 windows
        (3, 3, 2, (1, 0), 1, 0),
        (3, 2, 3, (0, 0), 1, 0),
        (1, 2, 1, (0, 0), 1, 0),
        (3, 3, 2, (0, 0), 1, None),  # two longer: the CPU fails too
        (2, 3, 1, (0, 0), 2, None),  # stride 2: the CPU fails too
        (5, 3, 2, (0, 0), 1, 1),  # fits: as ever
    ],
)
def test_a_dilated_kernel_one_past_the_input_at_run_time_gives_no_windows(
    size: int, kernel: int, dilation: int, pads: tuple[int, int], stride: int, windows: int | None
) -> None:
    arguments = (0, Dim.static(size), Dim.static(kernel), stride, dilation, pads, "explicit")
    if windows == 1:
        assert spatial_dim(*arguments) == Dim.static(1)
    else:  # read_model refuses the static dims
        with pytest.raises(ShapeError, match="Kernel after dilation"):
            spatial_dim(*arguments)
    if windows is None:
        with pytest.raises(ShapeError, match="Kernel after dilation"):
            spatial_dim(*arguments, at_run_time=True)
    else:
        assert spatial_dim(*arguments, at_run_time=True) == Dim.static(windows)
