"""How the measurements ask OpenVINO: build a model around Parameters, compile it for the CPU
(f32 inference precision) and run it, or ask the builders' shape inference; and how they print
what they found as Markdown tables."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from ov_builders import opset1, opset8, ov  # first: it keeps telemetry off

Array = NDArray[Any]
Row = tuple[Any, ...]  # a Markdown table row

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
    return [*lines, ""]


def first(outputs: list[np.ndarray] | str) -> np.ndarray | str:
    """The first output, or the error text."""
    return outputs if isinstance(outputs, str) else outputs[0]


def const(values: Any, dtype: Any = np.float32) -> ov.Node:
    return opset1.constant(np.array(values, dtype))


def conv_out(d: int, k: int, s: int, dil: int, pb: int, pe: int, auto_pad: str) -> int | None:
    """The output length the runtime computes (None where it refuses)."""
    kd = (k - 1) * dil + 1
    if auto_pad in ("same_upper", "same_lower"):
        return -(-d // s)
    if auto_pad == "valid":
        pb = pe = 0
    padded = d + pb + pe
    return None if padded < kd else (padded - kd) // s + 1


def ordered(x: np.ndarray) -> np.ndarray:
    """f32 bit patterns mapped to integers that count ulps across zero."""
    bits = x.astype(np.float32).view(np.int32).astype(np.int64)
    return np.asarray(np.where(bits < 0, -(bits & 0x7FFFFFFF), bits))


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray(np.abs(ordered(a) - ordered(b)))


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


def as_f32(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32)


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


# Builders of one op whose attributes a loop varies: a lambda there needs them bound.
def clamp(low: float, high: float) -> Build:
    return lambda p: opset1.clamp(p[0], low, high)


def concat(axis: int) -> Build:
    return lambda p: opset1.concat(p, axis)


def matmul(transpose_a: bool, transpose_b: bool) -> Build:
    return lambda p: opset1.matmul(p[0], p[1], transpose_a, transpose_b)


def transpose(order: Sequence[int]) -> Build:
    return lambda p: opset1.transpose(p[0], const(order, np.int64))


def gather8(axis: int, batch_dims: int) -> Build:
    return lambda p: opset8.gather(p[0], p[1], const(axis, np.int64), batch_dims)


def variadic_split(axis: int, lengths: Sequence[int]) -> Build:
    return lambda p: opset1.variadic_split(p[0], const(axis, np.int64), const(lengths, np.int64))


def softmax8(axis: int) -> Build:
    return lambda p: opset8.softmax(p[0], axis)


def convolution(
    strides: list[int],
    pads_begin: list[int],
    pads_end: list[int],
    dilations: list[int],
    auto_pad: str = "explicit",
    weights: Array | None = None,
) -> Build:
    """Convolution-1 of p[0] by `weights`, or by p[1] when none are given."""

    def build(p: list[ov.Node]) -> ov.Node:
        filters = p[1] if weights is None else const(weights)
        return opset1.convolution(p[0], filters, strides, pads_begin, pads_end, dilations, auto_pad)

    return build
