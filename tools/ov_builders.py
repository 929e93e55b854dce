"""OpenVINO node builders shared by the corpus generators (tools/gen_*.py).

Every node gets an explicit friendly name, which becomes the XML `name` once saved.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# convert_model reports each conversion to an analytics host through openvino_telemetry unless
# it cannot be imported (tests/conftest.py; OPENVINO_TELEMETRY_DISABLED is read by neither).
sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]

try:
    import openvino as ov
    from openvino import opset1, opset8, opset14, opset16
except ImportError as error:
    raise SystemExit(
        "The corpus generators in tools/ need the real OpenVINO runtime (>= 2026.4), which is "
        "not installed.\n"
        "Install it with: pip install -e '.[oracle]'   (or: pip install 'openvino>=2026.4')"
    ) from error

__all__ = [
    "AVG_POOL_BUILDERS",
    "ELEMENT_TYPES",
    "TESTED_OPENVINO",
    "adaptive_avg_pool",
    "avg_pool",
    "join",
    "opset1",
    "output_keys",
    "output_size_const",
    "ov",
    "parameter",
    "result",
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


def adaptive_avg_pool(name: str, source: ov.Node, output_size: ov.Node) -> ov.Node:
    return opset8.adaptive_avg_pool(source, output_size, name=name)


def output_size_const(name: str, values: Sequence[int], index_type: str) -> ov.Node:
    return opset1.constant(np.array(values, dtype=ELEMENT_TYPES[index_type]), name=name)


# A graph case both corpora share: shapes for the golden set, values for conformance.
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


def output_keys(model: ov.Model) -> list[str]:
    """Each output's key as irpool's README defines it: the tensor's `get_any_name()`, or the
    Result's name for a tensor without names (torch's outputs) or one already keyed."""
    keys: list[str] = []
    for output, result in zip(model.outputs, model.get_results(), strict=True):
        named = output.get_names() and output.get_any_name() not in keys
        keys.append(output.get_any_name() if named else result.get_friendly_name())
    if len(set(keys)) != len(keys):
        raise RuntimeError(f"output keys are not unique: {keys}")
    return keys
