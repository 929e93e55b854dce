"""OpenVINO, imported once for every tool, and the node builders the corpus generators share.

Import OpenVINO's opsets from here, not from openvino: this module keeps its telemetry off first.
Every node built here gets an explicit friendly name, which becomes the XML `name` once saved.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, TypedDict

import numpy as np

# convert_model reports each conversion to an analytics host through openvino_telemetry unless
# it cannot be imported (tests/conftest.py; OPENVINO_TELEMETRY_DISABLED is read by neither).
sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]

try:
    import openvino as ov
    from openvino import opset1, opset3, opset4, opset5, opset7, opset8, opset14, opset16
except ImportError as error:
    raise SystemExit(
        "The corpus generators in tools/ need the real OpenVINO runtime (>= 2026.4), which is "
        "not installed.\n"
        "Install it with: pip install -e '.[oracle]'   (or: pip install 'openvino>=2026.4')"
    ) from error

__all__ = [
    "AVG_POOL_BUILDERS",
    "ELEMENT_TYPES",
    "K3S2P1",
    "TESTED_OPENVINO",
    "PoolWindow",
    "adaptive_avg_pool",
    "adaptive_name",
    "avg_pool",
    "avg_pool_name",
    "chain_three_versions",
    "join",
    "opset1",
    "opset3",
    "opset4",
    "opset5",
    "opset7",
    "opset8",
    "opset14",
    "opset16",
    "output_size_const",
    "ov",
    "parameter",
    "result",
    "shared_input_two_outputs",
    "two_inputs_two_outputs",
]

TESTED_OPENVINO = "2026.4"

ELEMENT_TYPES: dict[str, type[np.generic]] = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "i8": np.int8,
    "u8": np.uint8,
    "i32": np.int32,
    "i64": np.int64,
}
AVG_POOL_BUILDERS: dict[int, Callable[..., ov.Node]] = {
    1: opset1.avg_pool,
    14: opset14.avg_pool,
    16: opset16.avg_pool,
}


class PoolWindow(TypedDict):
    """kernel, strides and pads shared by several AvgPool cases (splatted with **)."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]


K3S2P1: PoolWindow = {"kernel": (3, 3), "strides": (2, 2), "pads_begin": (1, 1), "pads_end": (1, 1)}


def join(values: Sequence[int]) -> str:
    """`2x3x4`, as the generated case names and descriptions write sizes."""
    return "x".join(str(value) for value in values)


def parameter(name: str, shape: str, element_type: str = "f32") -> ov.Node:
    """A Parameter whose shape uses OpenVINO's syntax: "1,3,?,?", "?,3,1..10,4..", "..."."""
    return opset1.parameter(ov.PartialShape(shape), ELEMENT_TYPES[element_type], name=name)


def result(name: str, source: ov.Node) -> ov.Node:
    return opset1.result(source, name=name)


def avg_pool(
    name: str,
    source: ov.Node,
    version: int,
    kernel: Sequence[int],
    strides: Sequence[int],
    pads_begin: Sequence[int] | None = None,
    pads_end: Sequence[int] | None = None,
    *,
    auto_pad: str = "explicit",
    rounding: str = "floor",
    exclude_pad: bool = True,
    dilations: Sequence[int] | None = None,
) -> ov.Node:
    """An AvgPool of the given version (1, 14 or 16); missing pads are zeros."""
    zeros = [0] * len(kernel)

    def ints(values: Sequence[int]) -> list[int]:
        return [int(value) for value in values]

    options: dict[str, Any] = {"dilations": ints(dilations)} if dilations is not None else {}
    return AVG_POOL_BUILDERS[version](
        source,
        strides=ints(strides),
        pads_begin=ints(pads_begin) if pads_begin is not None else zeros,
        pads_end=ints(pads_end) if pads_end is not None else zeros,
        kernel_shape=ints(kernel),
        exclude_pad=exclude_pad,
        rounding_type=rounding,
        auto_pad=auto_pad,
        name=name,
        **options,
    )


def avg_pool_name(
    version: int,
    kernel: Sequence[int],
    auto_pad: str,
    rounding: str,
    exclude_pad: bool,
    dilations: Sequence[int] | None,
    element_type: str,
    tag: str,
) -> str:
    """A single AvgPool case's name, e.g. ``avgpool14_r4_same_upper_ceil_torch_excl``, followed
    by the dilations, a non-f32 element type and the free-form ``tag``."""
    parts = [
        f"avgpool{version}",
        f"r{len(kernel) + 2}",
        auto_pad,
        rounding,
        "excl" if exclude_pad else "incl",
    ]
    if dilations is not None:
        parts.append(f"dil{join(dilations)}")
    if element_type != "f32":
        parts.append(element_type)
    if tag:
        parts.append(tag)
    return "_".join(parts)


def adaptive_name(output_size: Sequence[int], index_type: str, element_type: str, tag: str) -> str:
    """A single AdaptiveAvgPool case's name, e.g. ``adaptive8_r4_to3x3_size_i64``."""
    parts = [
        "adaptive8",
        f"r{len(output_size) + 2}",
        f"to{join(output_size)}",
        f"size_{index_type}",
    ]
    if element_type != "f32":
        parts.append(element_type)
    if tag:
        parts.append(tag)
    return "_".join(parts)


def adaptive_avg_pool(name: str, source: ov.Node, output_size: ov.Node) -> ov.Node:
    return opset8.adaptive_avg_pool(source, output_size, name=name)


def output_size_const(name: str, values: Sequence[int], index_type: str) -> ov.Node:
    return opset1.constant(np.array(values, dtype=ELEMENT_TYPES[index_type]), name=name)


# Graph cases both corpora share: shapes for the golden set, values for conformance.
def chain_three_versions(output_size: Sequence[int]) -> Callable[[str], ov.Model]:
    """AvgPool-1 -> AvgPool-16 (dilated) -> AdaptiveAvgPool-8 to `output_size` (i32), with
    interval dims."""

    def build(name: str) -> ov.Model:
        data = parameter("in", "1,2,8..40,40")
        first = avg_pool("pool_v1", data, 1, (2, 2), (2, 2), rounding="ceil")
        second = avg_pool(
            "pool_v16", first, 16, (3, 3), (1, 1), (2, 2), (2, 2), exclude_pad=False,
            dilations=(2, 2),
        )  # fmt: skip
        size = output_size_const("output_size", output_size, "i32")
        adaptive = adaptive_avg_pool("adaptive", second, size)
        return ov.Model([result("out", adaptive)], [data], name)

    return build


def shared_input_two_outputs(output_size: Sequence[int]) -> Callable[[str], ov.Model]:
    """One Parameter consumed by an AvgPool-14 and an AdaptiveAvgPool-8 to `output_size`."""

    def build(name: str) -> ov.Model:
        data = parameter("in", "1,4,9,9")
        pool = avg_pool("pool", data, 14, (2, 2), (2, 2), rounding="ceil_torch")
        size = output_size_const("output_size", output_size, "i64")
        adaptive = adaptive_avg_pool("adaptive", data, size)
        outputs = [result("pool_out", pool), result("adaptive_out", adaptive)]
        return ov.Model(outputs, [data], name)

    return build


def two_inputs_two_outputs(name: str) -> ov.Model:
    """Two independent branches of different ranks and element types."""
    image = parameter("image", "2,3,16,16")
    signal = parameter("signal", "2,8,?", "f16")
    image_pool = avg_pool(
        "image_pool", image, 16, (3, 3), (2, 2), auto_pad="same_upper", dilations=(2, 2)
    )
    signal_pool = avg_pool("signal_pool", signal, 1, (4,), (2,), (1,), (1,), exclude_pad=False)
    return ov.Model(
        [result("image_out", image_pool), result("signal_out", signal_pool)],
        [image, signal],
        name,
    )
