"""Generate the numeric conformance corpus in ``tests/conformance/`` with the real OpenVINO runtime.

The corpus is the oracle that irpool's NumPy interpreter is tested against. Every case is a
directory ``tests/conformance/<case>/`` holding:

* ``model.xml`` + ``model.bin``: an IR built with OpenVINO's Python op builders (AvgPool-1/-14/-16,
  AdaptiveAvgPool-8, Reshape-1, Squeeze-1, Unsqueeze-1, Convert-1, Parameter, Const,
  Result) and written by
  ``ov.save_model(model, path, compress_to_fp16=False)``.
* ``inputs.npz``: one concrete, seeded random input per Parameter, keyed by the Parameter's friendly
  name (the XML layer ``name``). Models with dynamic or interval shapes are saved as such; the
  recorded input picks one shape inside them.
* ``outputs.npz``: what the CPU plugin computes for those inputs, keyed by the Result's friendly
  name. The model is read back from the saved file and compiled with
  ``compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})``.

``tests/conformance/index.json`` lists every case with a one-line description, its inputs and
outputs (element type, shape) and the tolerances to compare with, plus notes on what the CPU plugin
does that irpool deliberately does not (NaN for empty windows, f32 arithmetic for f64 models, the
reciprocal rounding of integer averages).

The test suite only reads these files, so it runs without OpenVINO installed. Regenerate (needs
``pip install -e '.[oracle]'``) with::

    python tools/gen_conformance.py            # writes tests/conformance/
    python tools/gen_conformance.py --out DIR  # writes DIR/ instead

The output is byte-for-byte deterministic for a given OpenVINO version and machine: inputs are
drawn from a generator seeded by the case name, and the ``.npz`` archives are written with fixed
timestamps. The saved XML and ``index.json`` record the OpenVINO version, so another release
rewrites every case; the committed corpus was produced with OpenVINO 2026.4.1.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
from numpy.typing import NDArray
from ov_builders import (
    ELEMENT_TYPES,
    TESTED_OPENVINO,
    adaptive_avg_pool,
    avg_pool,
    join,
    opset1,
    output_size_const,
    ov,
    parameter,
    result,
    two_inputs_two_outputs,
)

DEFAULT_OUT = Path("tests/conformance")
DEVICE = "CPU"
COMPILE_CONFIG: dict[str, str] = {"INFERENCE_PRECISION_HINT": "f32"}
CASE_FILES = ("model.xml", "model.bin", "inputs.npz", "outputs.npz")
ZIP_DATE = (1980, 1, 1, 0, 0, 0)

Array = NDArray[Any]

# Tolerances per output element type: |irpool - cpu| <= atol + rtol * |cpu|.
TOLERANCES: dict[str, dict[str, Any]] = {
    "f32": {
        "rtol": 1e-5,
        "atol": 1e-6,
        "why": "CPU sums in f32 and divides by the count; only the summation order differs.",
    },
    "f64": {
        "rtol": 1e-5,
        "atol": 1e-6,
        "why": "The CPU plugin converts f64 to f32 on input, pools in f32 and widens the result "
        "back to f64, so the outputs only carry f32 precision (see notes.f64).",
    },
    "f16": {
        "rtol": 1e-3,
        "atol": 1e-3,
        "why": "One f16 ulp (2^-10 relative). CPU converts f16 to f32, pools in f32 and rounds "
        "once at the model output, also across chained pools (see notes.f16); an interpreter "
        "that rounds after every op can be 1 ulp away.",
    },
    "i8": {"rtol": 0.0, "atol": 0.0, "why": "Integer outputs are compared exactly."},
    "u8": {"rtol": 0.0, "atol": 0.0, "why": "Integer outputs are compared exactly."},
    "i32": {"rtol": 0.0, "atol": 0.0, "why": "Integer outputs are compared exactly."},
    "i64": {"rtol": 0.0, "atol": 0.0, "why": "Integer outputs are compared exactly."},
}
NOTES: dict[str, str] = {
    "nan": "A window with no real element (ceil mode, or pads >= kernel) is NaN in some CPU "
    "outputs and 0 or -0 in others; which one depends on the CPU kernel that runs (for example "
    "AvgPool-16 same_upper with zero pads gives NaN, AvgPool-1 rank 5 with exclude-pad=true and "
    "pads gives -0), not only on exclude-pad and pads. outputs.npz keeps the NaN. irpool writes 0 "
    "for every empty window, so compare with NaN == 0; outputs holding NaN list nan_count.",
    "f64": "f64 models are computed in f32 by the CPU plugin: a Convert f64->f32 is inserted "
    "before the first pool (out-of-range values saturate to +-FLT_MAX) and a Convert f32->f64 "
    "after the last, so an f64 output equals the f32 computation widened to f64. Compare with f32 "
    "tolerances.",
    "f16": "f16 models (INFERENCE_PRECISION_HINT=f32): the plugin converts the f16 input to f32, "
    "pools in f32 (sum, then divide), and rounds to f16 once at the output; intermediate tensors "
    "of chained pools stay f32. For a single pool this equals the exact mean rounded to f16.",
    "int": "Integer AvgPool on CPU (AVX-512 machine) takes one of two paths, chosen by layout. "
    "(a) i32/i64 with more than one channel: the input is converted to f32, pooled in f32 "
    "(sum / count) and rounded half to even only at the model output; intermediate tensors of "
    "chained pools stay f32 (not rounded). (b) i8/u8 always, and i32/i64 with one channel: an "
    "integer kernel that sums in the integer type (i32 wraps on overflow; i64 is narrowed to i32 "
    "first), computes rint(f32(sum) * f32(1/count)) and rounds after each op. That is round-half-"
    "to-even of the true mean unless f32(1/count) rounds up (count 14, 26, 28, 30, ...): then "
    "an exact .5 mean rounds away from zero. irpool rounds the exact mean half to even after "
    "each op; cases where CPU departs from that carry known_cpu_deviation.",
    "dynamic_rank": "The CPU plugin rejects Parameters of dynamic rank ('...'), so the corpus "
    "has no dynamic-rank model (tests/golden covers their shape inference).",
}


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


def random_input(rng: np.random.Generator, shape: Sequence[int], element_type: str) -> Array:
    """normal(0, 1) for floats; small integers for integer types, so that .5 means are common."""
    dtype = ELEMENT_TYPES[element_type]
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(tuple(shape)).astype(dtype)
    low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -10
    return rng.integers(low, low + 21, size=tuple(shape)).astype(dtype)


def case_rng(name: str) -> np.random.Generator:
    """A generator seeded by the case name, so a case's inputs do not depend on its position."""
    return np.random.default_rng(zlib.crc32(name.encode()))


# --------------------------------------------------------------------------------------------
# Case kinds
# --------------------------------------------------------------------------------------------

ValuesFn = Callable[[np.random.Generator], dict[str, Array]]


@dataclass(frozen=True)
class Case:
    """A model, a description and how to make its inputs.

    Parameters not in ``values`` get ``random_input`` data of the shape in ``input_shapes``
    (required for non-static Parameters) or of their static shape. ``cpu_deviation`` says why
    the CPU output departs from the op semantics irpool implements (index.json:
    ``known_cpu_deviation``; tests should expect a mismatch there).
    """

    name: str
    description: str
    builder: Callable[[str], ov.Model]
    input_shapes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    values: ValuesFn | None = None
    notes: tuple[str, ...] = ()
    cpu_deviation: str = ""

    def build(self) -> ov.Model:
        return self.builder(self.name)

    def make_inputs(self, model: ov.Model) -> dict[str, Array]:
        rng = case_rng(self.name)
        fixed = self.values(rng) if self.values is not None else {}
        inputs: dict[str, Array] = {}
        for param in model.get_parameters():
            name = param.get_friendly_name()
            if name in fixed:
                inputs[name] = fixed[name]
                continue
            partial = param.get_output_partial_shape(0)
            if name in self.input_shapes:
                shape = self.input_shapes[name]
                if not partial.compatible(ov.PartialShape(list(shape))):
                    raise ValueError(f"{self.name}: input shape {shape} is not within {partial}")
            elif partial.is_static:
                shape = tuple(partial.to_shape())
            else:
                raise ValueError(f"{self.name}: Parameter {name!r} is {partial}; give a shape")
            element_type = param.get_element_type().get_type_name()
            inputs[name] = random_input(rng, shape, element_type)
        return inputs


def avg_pool_case(
    version: int,
    shape: str,
    kernel: Sequence[int],
    strides: Sequence[int],
    pads_begin: Sequence[int] | None = None,
    pads_end: Sequence[int] | None = None,
    *,
    auto_pad: str = "explicit",
    rounding: str = "floor",
    exclude_pad: bool = True,
    dilations: Sequence[int] | None = None,
    element_type: str = "f32",
    tag: str = "",
    input_shape: tuple[int, ...] | None = None,
    values: ValuesFn | None = None,
    notes: tuple[str, ...] = (),
    cpu_deviation: str = "",
) -> Case:
    """Parameter "in" -> AvgPool "pool" -> Result "out".

    The name is derived from the attributes, e.g. ``avgpool14_r4_same_upper_ceil_torch_excl``,
    followed by the dilations, a non-f32 element type and the free-form ``tag``.
    """
    rank = len(kernel) + 2
    parts = [
        f"avgpool{version}",
        f"r{rank}",
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
    name = "_".join(parts)

    pads = ""
    if auto_pad == "explicit" or pads_begin is not None or pads_end is not None:
        declared = "" if auto_pad == "explicit" else "declared "
        zeros = [0] * len(kernel)
        pads = f" {declared}pads {join(pads_begin or zeros)}/{join(pads_end or zeros)}"
    description = (
        f"AvgPool-{version} {element_type} [{shape}] k{join(kernel)} s{join(strides)}"
        + (f" d{join(dilations)}" if dilations is not None else "")
        + f"{pads} {auto_pad} {rounding} exclude-pad={str(exclude_pad).lower()}"
        + (f", input {list(input_shape)}" if input_shape is not None else "")
    )

    def build(model_name: str) -> ov.Model:
        data = parameter("in", shape, element_type)
        pool = avg_pool(
            "pool",
            data,
            version,
            kernel,
            strides,
            pads_begin,
            pads_end,
            auto_pad=auto_pad,
            rounding=rounding,
            exclude_pad=exclude_pad,
            dilations=dilations,
        )
        return ov.Model([result("out", pool)], [data], model_name)

    input_shapes = {"in": input_shape} if input_shape is not None else {}
    return Case(name, description, build, input_shapes, values, notes, cpu_deviation)


def adaptive_case(
    shape: str,
    output_size: Sequence[int],
    index_type: str = "i64",
    *,
    element_type: str = "f32",
    tag: str = "",
    input_shape: tuple[int, ...] | None = None,
    notes: tuple[str, ...] = (),
) -> Case:
    """Parameter "in" + Const "output_size" -> AdaptiveAvgPool "pool" -> Result "out"."""
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
    name = "_".join(parts)
    description = (
        f"AdaptiveAvgPool-8 {element_type} [{shape}] -> output_size Const {index_type} "
        f"{list(output_size)}" + (f", input {list(input_shape)}" if input_shape is not None else "")
    )

    def build(model_name: str) -> ov.Model:
        data = parameter("in", shape, element_type)
        size = output_size_const("output_size", output_size, index_type)
        pool = adaptive_avg_pool("pool", data, size)
        return ov.Model([result("out", pool)], [data], model_name)

    input_shapes = {"in": input_shape} if input_shape is not None else {}
    return Case(name, description, build, input_shapes, None, notes)


def fixed_values(**arrays: Array) -> ValuesFn:
    """Inputs given literally instead of drawn at random."""
    return lambda _rng: dict(arrays)


# --------------------------------------------------------------------------------------------
# Hand-written graphs
# --------------------------------------------------------------------------------------------


def adaptive_runtime_size(
    data_shape: str, element_type: str, index_type: str
) -> Callable[[str], ov.Model]:
    """output_size is a second Parameter, so the spatial dims are only known at run time."""

    def build(name: str) -> ov.Model:
        data = parameter("in", data_shape, element_type)
        rank = ov.PartialShape(data_shape).rank.get_length()
        size = parameter("output_size", str(rank - 2), index_type)
        pool = adaptive_avg_pool("pool", data, size)
        return ov.Model([result("out", pool)], [data, size], name)

    return build


def chain_three_versions(name: str) -> ov.Model:
    """AvgPool-1 -> AvgPool-16 (dilated) -> AdaptiveAvgPool-8, with interval dims."""
    data = parameter("in", "1,2,8..40,40")
    first = avg_pool("pool_v1", data, 1, (2, 2), (2, 2), rounding="ceil")
    second = avg_pool(
        "pool_v16", first, 16, (3, 3), (1, 1), (2, 2), (2, 2), exclude_pad=False, dilations=(2, 2)
    )
    size = output_size_const("output_size", (5, 7), "i32")
    adaptive = adaptive_avg_pool("adaptive", second, size)
    return ov.Model([result("out", adaptive)], [data], name)


def chain_two_pools(element_type: str) -> Callable[[str], ov.Model]:
    """AvgPool-14 (same_upper, ceil_torch) -> AvgPool-14 (explicit, exclude-pad=false)."""

    def build(name: str) -> ov.Model:
        data = parameter("in", "2,3,13,11", element_type)
        first = avg_pool(
            "pool_a", data, 14, (3, 3), (2, 2), auto_pad="same_upper", rounding="ceil_torch"
        )
        second = avg_pool("pool_b", first, 14, (2, 2), (1, 1), (1, 0), (1, 1), exclude_pad=False)
        return ov.Model([result("out", second)], [data], name)

    return build


def chain_adaptive_then_pool(name: str) -> ov.Model:
    """AdaptiveAvgPool-8 upsampling (Const size) feeding a dilated AvgPool-16, rank 5."""
    data = parameter("in", "1,2,3,4,5")
    size = output_size_const("output_size", (6, 5, 7), "i64")
    adaptive = adaptive_avg_pool("adaptive", data, size)
    pool = avg_pool(
        "pool",
        adaptive,
        16,
        (2, 2, 3),
        (2, 1, 2),
        (0, 1, 1),
        (1, 0, 1),
        rounding="ceil",
        dilations=(1, 2, 1),
    )
    return ov.Model([result("out", pool)], [data], name)


def chain_int_one_channel(name: str) -> ov.Model:
    """Two i32 AvgPool-1 with one channel, where CPU rounds after each op."""
    data = parameter("in", "2,1,17", "i32")
    first = avg_pool("pool_a", data, 1, (2,), (2,))
    second = avg_pool("pool_b", first, 1, (2,), (1,), (1,), (0,), exclude_pad=False)
    return ov.Model([result("out", second)], [data], name)


def shared_input_two_outputs(name: str) -> ov.Model:
    """One Parameter consumed by an AvgPool-14 and an AdaptiveAvgPool-8."""
    data = parameter("in", "1,4,9,9")
    pool = avg_pool("pool", data, 14, (2, 2), (2, 2), rounding="ceil_torch")
    size = output_size_const("output_size", (4, 4), "i64")
    adaptive = adaptive_avg_pool("adaptive", data, size)
    return ov.Model([result("pool_out", pool), result("adaptive_out", adaptive)], [data], name)


def chain_with_two_taps(name: str) -> ov.Model:
    """AvgPool-1 whose output is both a model output and the input of an AvgPool-16."""
    data = parameter("in", "1,3,12,12")
    first = avg_pool("pool_a", data, 1, (2, 2), (2, 2), (1, 1), (1, 1), rounding="ceil")
    second = avg_pool("pool_b", first, 16, (2, 2), (1, 1), auto_pad="same_lower", dilations=(2, 2))
    return ov.Model([result("first_out", first), result("second_out", second)], [data], name)


def int64_const(name: str, values: Sequence[int]) -> ov.Node:
    import openvino.opset1 as opset1

    node = opset1.constant(np.array(values, dtype=np.int64))
    node.set_friendly_name(name)
    return node


def chain_adaptive_flatten(name: str) -> ov.Model:
    """AdaptiveAvgPool-8 then Reshape [0,-1], as PyTorch's AdaptiveAvgPool2d + Flatten convert."""
    import openvino.opset1 as opset1

    data = parameter("in", "2,3,9,9")
    adaptive = adaptive_avg_pool("adaptive", data, output_size_const("size", (5, 3), "i32"))
    flat = opset1.reshape(adaptive, int64_const("pattern", (0, -1)), special_zero=True)
    return ov.Model([result("out", flat)], [data], name)


def chain_pool_squeeze_unsqueeze(name: str) -> ov.Model:
    """A global AvgPool-1, its 1x1 squeezed away, then a trailing axis added back."""
    import openvino.opset1 as opset1

    data = parameter("in", "1,3,8,8")
    pool = avg_pool("pool", data, 1, (8, 8), (8, 8))
    squeezed = opset1.squeeze(pool, int64_const("squeeze_axes", (2, 3)))
    unsqueezed = opset1.unsqueeze(squeezed, int64_const("unsqueeze_axes", (-1,)))
    return ov.Model([result("out", unsqueezed)], [data], name)


def convert_then_reshape(name: str) -> ov.Model:
    """Convert f32 -> i32 (truncation toward zero) on a dynamic batch, then Reshape [0,-1]."""
    import openvino.opset1 as opset1

    data = parameter("in", "?,4,6")
    converted = opset1.convert(data, "i32")
    flat = opset1.reshape(converted, int64_const("pattern", (0, -1)), special_zero=True)
    return ov.Model([result("out", flat)], [data], name)


RESHAPE_FAMILY_CASES: tuple[Case, ...] = (
    Case(
        "chain_adaptive8_reshape_flatten",
        "AdaptiveAvgPool-8 [2,3,9,9] -> [5,3] then Reshape-1 special_zero [0,-1] -> [2,45]",
        chain_adaptive_flatten,
    ),
    Case(
        "chain_avgpool1_squeeze_unsqueeze",
        "Global AvgPool-1 [1,3,8,8] -> Squeeze-1 axes [2,3] -> Unsqueeze-1 axes [-1] -> [1,3,1]",
        chain_pool_squeeze_unsqueeze,
    ),
    Case(
        "convert_f32_i32_reshape_dynamic",
        "Convert-1 f32 -> i32 on [?,4,6] (input [3,4,6]), then Reshape-1 [0,-1] -> [3,24]",
        convert_then_reshape,
        input_shapes={"in": (3, 4, 6)},
    ),
)


# --------------------------------------------------------------------------------------------
# Window configurations of the systematic AvgPool grid
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """A shape plus kernel/strides/pads (declared, for same_*/valid) and optional dilations."""

    shape: str
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    pads_begin: tuple[int, ...] | None = None
    pads_end: tuple[int, ...] | None = None
    dilations: tuple[int, ...] | None = None


# Chosen so that ceil adds windows that floor drops (some empty: NaN with exclude-pad=true),
# ceil_torch drops a window that starts in the end padding, pads are asymmetric, and axes differ.
PLAIN_WINDOWS: dict[str, dict[int, Window]] = {
    "explicit": {
        3: Window("1,3,9", (3,), (2,), (1,), (2,)),
        4: Window("2,3,7,8", (3, 2), (2, 2), (1, 0), (1, 1)),
        5: Window("1,2,5,6,7", (2, 3, 2), (1, 2, 3), (0, 1, 1), (1, 1, 1)),
    },
    "same": {
        3: Window("1,3,10", (3,), (2,), (1,), (1,)),
        4: Window("2,2,11,9", (2, 3), (4, 2)),
        5: Window("1,2,5,6,7", (3, 2, 3), (1, 2, 3)),
    },
    "valid": {
        3: Window("1,3,12", (3,), (2,), (1,), (1,)),
        4: Window("1,2,9,9", (2, 3), (2, 2)),
        5: Window("1,2,5,6,7", (2, 2, 2), (2, 2, 3), (1, 1, 1), (1, 1, 1)),
    },
}
DILATED_WINDOWS: dict[str, dict[int, Window]] = {
    "explicit": {
        3: Window("1,2,10", (2,), (3,), (1,), (3,), (3,)),
        4: Window("1,3,9,10", (3, 2), (2, 3), (1, 0), (1, 1), (2, 2)),
        5: Window("1,2,6,7,8", (2, 2, 3), (2, 2, 1), (1, 0, 2), (1, 1, 2), (2, 1, 2)),
    },
    "same": {
        3: Window("1,3,12", (2,), (4,), dilations=(2,)),
        4: Window("1,3,10,9", (3, 2), (2, 3), (1, 1), (1, 1), (2, 3)),
        5: Window("1,2,6,7,8", (2, 2, 2), (2, 2, 2), dilations=(2, 2, 2)),
    },
    "valid": {
        3: Window("1,3,12", (3,), (3,), dilations=(2,)),
        4: Window("1,2,10,9", (2, 2), (2, 4), (1, 1), (1, 1), (3, 2)),
        5: Window("1,2,6,7,8", (2, 2, 2), (2, 2, 2), dilations=(2, 1, 3)),
    },
}
AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")
RANKS = (3, 4, 5)


def grid(version: int) -> list[Case]:
    """Every auto_pad x rounding x exclude-pad of one version, spreading the ranks 3/4/5."""
    roundings = ("floor", "ceil") if version == 1 else ("floor", "ceil", "ceil_torch")
    windows = DILATED_WINDOWS if version == 16 else PLAIN_WINDOWS
    cases = []
    for pad_index, auto_pad in enumerate(AUTO_PADS):
        combos = [(r, e) for r in roundings for e in (True, False)]
        for combo_index, (rounding, exclude_pad) in enumerate(combos):
            rank = RANKS[(pad_index + combo_index) % len(RANKS)]
            window = windows[auto_pad.split("_")[0]][rank]
            cases.append(
                avg_pool_case(
                    version,
                    window.shape,
                    window.kernel,
                    window.strides,
                    window.pads_begin,
                    window.pads_end,
                    auto_pad=auto_pad,
                    rounding=rounding,
                    exclude_pad=exclude_pad,
                    dilations=window.dilations,
                )
            )
    return cases


# --------------------------------------------------------------------------------------------
# Integer inputs with known .5 means
# --------------------------------------------------------------------------------------------

# Doc §7 vector 20: [1,2,2,3,3,4,250,255], k2 s2 -> means 1.5, 2.5, 3.5, 252.5.
VECTOR_20 = np.array([[[1, 2, 2, 3, 3, 4, 250, 255]]], dtype=np.int32)


def windows_with_means(
    rng: np.random.Generator, means: Sequence[float], window: int, low: int, high: int
) -> Array:
    """One row of ``window`` random integers in [low, high] per mean, summing to mean * window."""
    rows = []
    for mean in means:
        target = round(mean * window)
        row = rng.integers(low, high + 1, size=window)
        while row.sum() != target:  # nudge single elements toward the target sum
            index = rng.integers(window)
            step = int(np.sign(target - row.sum()))
            if low <= row[index] + step <= high:
                row[index] += step
        rows.append(row)
    return np.stack(rows)


def divisor14_values(rng: np.random.Generator) -> dict[str, Array]:
    """[1,1,2,56] i32 for k2x7 s2x7: 8 windows of 14 elements, each with a .5 mean."""
    means = [6.5, -6.5, 12.5, -12.5, 14.5, -14.5, 2.5, 3.5]
    rows = windows_with_means(rng, means, 14, -20, 20)  # (window, 14)
    blocks = rows.reshape(8, 2, 7)  # window, kernel row, kernel column
    return {"in": blocks.transpose(1, 0, 2).reshape(1, 1, 2, 56).astype(np.int32)}


# --------------------------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------------------------


class PoolWindow(TypedDict):
    """kernel, strides and pads shared by several cases (splatted with **)."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]


K3S2P1: PoolWindow = {"kernel": (3, 3), "strides": (2, 2), "pads_begin": (1, 1), "pads_end": (1, 1)}

EXTRA_AVG_POOL_CASES: tuple[Case, ...] = (
    # Unit dilations. (Leaving them out saves dilations="", on which CPU compile segfaults.)
    avg_pool_case(16, "1,3,9,9", **K3S2P1, exclude_pad=False, dilations=(1, 1)),
    avg_pool_case(1, "2,4,7,7", (7, 7), (1, 1), tag="global"),
    avg_pool_case(14, "1,2,7", (2,), (1,), (3,), (3,), exclude_pad=False, tag="pads_exceed_kernel"),
    # OpenVINO divides the overhanging ceil window by the full kernel (torch would not).
    avg_pool_case(
        14,
        "1,2,6",
        (3,),
        (2,),
        (1,),
        (1,),
        rounding="ceil_torch",
        exclude_pad=False,
        tag="overhang",
    ),
    avg_pool_case(14, "1,2,5", (1,), (3,), rounding="ceil", tag="window_past_end"),
    # Windows with no real element (doc §7 vector 8 and the rank-3 grid window).
    avg_pool_case(14, "1,2,2", (2,), (2,), (0,), (1,), rounding="ceil", tag="empty_window"),
    avg_pool_case(1, "1,3,9", (3,), (2,), (1,), (2,), rounding="ceil", tag="empty_window"),
    avg_pool_case(14, "4,3,20", (3,), (2,), (1,), (1,), tag="batch4"),
    # Element types.
    avg_pool_case(1, "1,3,9,10", **K3S2P1, rounding="ceil", element_type="f16"),
    avg_pool_case(
        14,
        "1,2,5,6,7",
        (3, 2, 3),
        (1, 2, 3),
        auto_pad="same_lower",
        rounding="ceil_torch",
        exclude_pad=False,
        element_type="f16",
    ),
    avg_pool_case(
        16, "2,3,12", (3,), (2,), (2,), (1,), rounding="ceil", dilations=(2,), element_type="f16"
    ),
    avg_pool_case(1, "2,3,9", (3,), (2,), (1,), (1,), exclude_pad=False, element_type="f64"),
    avg_pool_case(14, "1,3,9,10", **K3S2P1, rounding="ceil_torch", element_type="f64"),
    avg_pool_case(
        16,
        "1,2,6,7,8",
        (2, 2, 2),
        (2, 2, 2),
        auto_pad="valid",
        rounding="ceil",
        dilations=(2, 1, 3),
        element_type="f64",
    ),
    # Integers: means ending in .5 are common, showing the rounding.
    avg_pool_case(
        14,
        "1,1,8",
        (2,),
        (2,),
        element_type="i32",
        tag="vector20",
        values=fixed_values(**{"in": VECTOR_20}),
    ),
    avg_pool_case(1, "2,3,8,8", (2, 2), (2, 2), element_type="i32"),
    avg_pool_case(
        16,
        "1,2,9,8",
        (3, 2),
        (2, 2),
        (1, 1),
        (1, 1),
        rounding="ceil",
        exclude_pad=False,
        dilations=(2, 2),
        element_type="i32",
    ),
    avg_pool_case(
        14,
        "1,1,2,56",
        (2, 7),
        (2, 7),
        element_type="i32",
        tag="divisor14",
        values=divisor14_values,
        notes=("Every window mean is an exact .5: 6.5, -6.5, 12.5, -12.5, 14.5, -14.5, 2.5, 3.5.",),
        cpu_deviation="i32 with one channel runs CPU's integer kernel, which rounds "
        "f32(sum) * f32(1/14) half to even; 1/14 rounds up in f32, so 6.5, 12.5, 14.5 and their "
        "negatives move away from zero (7, not 6) instead of to even (see notes.int).",
    ),
    # The same .5 means with three channels take CPU's f32 path: true round-half-to-even.
    avg_pool_case(
        14,
        "1,3,2,56",
        (2, 7),
        (2, 7),
        element_type="i32",
        tag="divisor14_c3",
        values=lambda rng: {"in": np.concatenate([divisor14_values(rng)["in"]] * 3, axis=1)},
    ),
    avg_pool_case(14, "1,3,10", (2,), (2,), (1,), (1,), rounding="ceil", element_type="i64"),
    avg_pool_case(1, "2,2,11", (4,), (3,), auto_pad="same_upper", element_type="i8"),
    avg_pool_case(16, "1,2,8,8", (2, 2), (2, 2), dilations=(1, 2), element_type="u8"),
    # Dynamic shapes: saved dynamic, run with one concrete input.
    avg_pool_case(1, "?,3,16,16", **K3S2P1, tag="dyn_batch", input_shape=(3, 3, 16, 16)),
    avg_pool_case(
        14,
        "?,?,?,?",
        **K3S2P1,
        rounding="ceil",
        exclude_pad=False,
        tag="all_dyn",
        input_shape=(2, 3, 9, 11),
    ),
    avg_pool_case(
        16,
        "1,3,8..20,..16",
        **K3S2P1,
        rounding="ceil_torch",
        dilations=(2, 2),
        tag="intervals",
        input_shape=(1, 3, 13, 10),
    ),
    # same_* pads depend on the run-time size: shape inference only says `?`.
    avg_pool_case(
        14,
        "1,2,?,12",
        (3, 2),
        (2, 3),
        auto_pad="same_upper",
        tag="dyn_height",
        input_shape=(1, 2, 11, 12),
    ),
)

ADAPTIVE_CASES: tuple[Case, ...] = (
    adaptive_case("1,3,10", (4,), "i64"),
    adaptive_case("1,2,5", (8,), "i32", tag="upsample"),
    adaptive_case("1,2,6", (6,), "i64", tag="identity"),
    adaptive_case("2,3,9,7", (4, 5), "i32"),
    adaptive_case("1,2,5,9", (7, 4), "i64", tag="mixed"),
    adaptive_case("2,4,7,7", (1, 1), "i64", tag="global"),
    adaptive_case("1,2,6,8,10", (3, 4, 5), "i32"),
    adaptive_case("1,1,2,3,4", (4, 6, 5), "i64", tag="upsample"),
    adaptive_case("1,2,5", (0,), "i64", tag="empty", notes=("Zero-length output: shape [1,2,0].",)),
    adaptive_case("1,3,9,9", (4, 4), "i32", element_type="f16"),
    adaptive_case("1,3,9,9", (4, 4), "i64", element_type="f64"),
    adaptive_case("1,2,9", (4,), "i64", element_type="i32"),
    adaptive_case("?,3,1..16,16", (5, 3), "i32", tag="dyn", input_shape=(2, 3, 11, 16)),
)


def reduce_case(
    op: str,
    shape: str,
    axes: Sequence[int] | int,
    keep_dims: bool,
    *,
    element_type: str = "f32",
    tag: str = "",
    input_shape: tuple[int, ...] | None = None,
) -> Case:
    """Parameter "in" + Const "axes" (i64; an int is a scalar) -> ReduceMean/ReduceMax "reduce"
    -> Result "out"."""
    written = str(axes) if isinstance(axes, int) else f"[{','.join(map(str, axes))}]"
    parts = [op.lower(), f"r{len(ov.PartialShape(shape))}", f"axes{written.strip('[]') or 'none'}"]
    parts += ["keep"] if keep_dims else []
    parts += [element_type] if element_type != "f32" else []
    parts += [tag] if tag else []
    name = "_".join(parts).replace(",", "_").replace("-", "m")
    description = (
        f"{op}-1 {element_type} [{shape}] axes {written} keep_dims={str(keep_dims).lower()}"
        + (f", input {list(input_shape)}" if input_shape is not None else "")
    )
    builders = {"ReduceMean": opset1.reduce_mean, "ReduceMax": opset1.reduce_max}

    def build(model_name: str) -> ov.Model:
        data = parameter("in", shape, element_type)
        values = np.array(axes, dtype=np.int64)
        constant = (
            opset1.constant(values, name="axes")
            if values.size
            else ov.op.Constant(ov.Type.i64, ov.Shape([0]), [])
        )
        node = builders[op](data, constant, keep_dims, name="reduce")
        return ov.Model([result("out", node)], [data], model_name)

    input_shapes = {"in": input_shape} if input_shape is not None else {}
    return Case(name, description, build, input_shapes)


def adaptive_max_case(
    shape: str,
    output_size: Sequence[int],
    *,
    element_type: str = "f32",
    with_indices: bool = True,
    tag: str = "",
    input_shape: tuple[int, ...] | None = None,
) -> Case:
    """Parameter "in" + Const "output_size" (i32) -> AdaptiveMaxPool "pool" (i32 indices, the
    only kind the CPU plugin compiles) -> Results "values" and, with_indices, "indices"."""
    parts = ["adaptivemax8", f"r{len(output_size) + 2}", f"to{join(output_size)}"]
    parts += [element_type] if element_type != "f32" else []
    parts += [] if with_indices else ["values_only"]
    parts += [tag] if tag else []
    description = (
        f"AdaptiveMaxPool-8 {element_type} [{shape}] -> output_size {list(output_size)}, "
        + ("values and i32 indices" if with_indices else "values only")
        + (f", input {list(input_shape)}" if input_shape is not None else "")
    )

    def build(model_name: str) -> ov.Model:
        data = parameter("in", shape, element_type)
        size = output_size_const("output_size", output_size, "i32")
        pool = ov.opset8.adaptive_max_pool(data, size, index_element_type="i32", name="pool")
        results = [result("values", pool.output(0))]
        if with_indices:
            results.append(result("indices", pool.output(1)))
        return ov.Model(results, [data], model_name)

    input_shapes = {"in": input_shape} if input_shape is not None else {}
    return Case("_".join(parts), description, build, input_shapes)


# What the frontends write for global and adaptive max pooling (issue #12).
REDUCE_AND_ADAPTIVE_MAX_CASES: tuple[Case, ...] = (
    reduce_case("ReduceMean", "1,512,7,7", (2, 3), True, tag="resnet_head"),
    reduce_case("ReduceMean", "2,3,5", -1, False),
    reduce_case("ReduceMean", "2,3,4,5", (0, -2, 3), False),
    reduce_case("ReduceMean", "1,4,6,6", (1, 1), True, element_type="f16"),
    reduce_case("ReduceMean", "2,3,4,5", (2, 3), False, element_type="i32"),
    reduce_case("ReduceMean", "2,3,4", (), True),
    reduce_case("ReduceMean", "?,3,1..8,8", (2, 3), True, tag="dyn", input_shape=(2, 3, 5, 8)),
    reduce_case("ReduceMax", "1,64,7,7", (2, 3), True),
    reduce_case("ReduceMax", "2,5,3", 1, False),
    reduce_case("ReduceMax", "1,2,3,4,5", (-3, -1), True, element_type="f16"),
    reduce_case("ReduceMax", "2,3,9", (2,), False, element_type="i32"),
    reduce_case("ReduceMax", "?,16,1..10", -1, False, tag="dyn", input_shape=(3, 16, 7)),
    adaptive_max_case("2,3,7,9", (5, 3)),
    adaptive_max_case("1,2,5", (8,), tag="upsample"),
    adaptive_max_case("1,2,6,8,10", (3, 4, 5)),
    adaptive_max_case("1,3,9,9", (4, 4), element_type="f16"),
    adaptive_max_case("2,2,9", (4,), element_type="i32"),
    adaptive_max_case("2,4,7,7", (2, 3), with_indices=False),
    adaptive_max_case("?,3,1..16,16", (5, 3), tag="dyn", input_shape=(2, 3, 11, 16)),
)

GRAPH_CASES: tuple[Case, ...] = (
    Case(
        "adaptive8_r4_runtime_size_i64",
        "AdaptiveAvgPool-8 f32 [1,3,16,16] with output_size from a second i64 Parameter = [5,3]",
        adaptive_runtime_size("1,3,16,16", "f32", "i64"),
        values=fixed_values(output_size=np.array([5, 3], dtype=np.int64)),
    ),
    Case(
        "adaptive8_r3_runtime_size_i32_f16_dyn_batch",
        "AdaptiveAvgPool-8 f16 [?,4,10] (input [3,4,10]) with output_size Parameter i32 = [7]",
        adaptive_runtime_size("?,4,10", "f16", "i32"),
        input_shapes={"in": (3, 4, 10)},
        values=fixed_values(output_size=np.array([7], dtype=np.int32)),
    ),
    Case(
        "adaptive8_r5_runtime_size_i32",
        "AdaptiveAvgPool-8 f32 [1,2,6,5,9] with output_size Parameter i32 = [4,5,3]",
        adaptive_runtime_size("1,2,6,5,9", "f32", "i32"),
        values=fixed_values(output_size=np.array([4, 5, 3], dtype=np.int32)),
    ),
    Case(
        "chain_avgpool1_avgpool16_adaptive8",
        "AvgPool-1 ceil -> AvgPool-16 dilated exclude-pad=false -> AdaptiveAvgPool-8 [5,7]; "
        "input [1,2,8..40,40] run as [1,2,19,40]",
        chain_three_versions,
        input_shapes={"in": (1, 2, 19, 40)},
    ),
    Case(
        "chain_avgpool14_avgpool14",
        "AvgPool-14 same_upper ceil_torch -> AvgPool-14 explicit exclude-pad=false, "
        "f32 [2,3,13,11]",
        chain_two_pools("f32"),
    ),
    Case(
        "chain_avgpool14_avgpool14_f16",
        "The same chain in f16 (CPU keeps the intermediate in f32)",
        chain_two_pools("f16"),
    ),
    Case(
        "chain_avgpool14_avgpool14_f64",
        "The same chain in f64 (CPU computes in f32)",
        chain_two_pools("f64"),
    ),
    Case(
        "chain_avgpool14_avgpool14_i32",
        "The same chain in i32",
        chain_two_pools("i32"),
        cpu_deviation="CPU pools this i32 model (C=3) in f32 and keeps the intermediate tensor in "
        "f32, rounding only the final output, so about 1 in 8 outputs differ by 1 from rounding "
        "after each op (see notes.int).",
    ),
    Case(
        "chain_avgpool1_avgpool1_i32_c1",
        "AvgPool-1 k2 s2 -> AvgPool-1 k2 s1 pads 1/0 exclude-pad=false, i32 [2,1,17] (one channel: "
        "CPU's integer kernel, rounded after each op)",
        chain_int_one_channel,
    ),
    Case(
        "chain_adaptive8_avgpool16_r5",
        "AdaptiveAvgPool-8 [1,2,3,4,5] -> [6,5,7] upsampling -> AvgPool-16 ceil dilated",
        chain_adaptive_then_pool,
    ),
    Case(
        "two_inputs_two_outputs",
        "Two branches: f32 [2,3,16,16] AvgPool-16 same_upper d2, f16 [2,8,?] (run as [2,8,15]) "
        "AvgPool-1 exclude-pad=false",
        two_inputs_two_outputs,
        input_shapes={"signal": (2, 8, 15)},
    ),
    Case(
        "shared_input_two_outputs",
        "One Parameter [1,4,9,9] feeding AvgPool-14 ceil_torch and AdaptiveAvgPool-8 [4,4]",
        shared_input_two_outputs,
    ),
    Case(
        "chain_with_intermediate_output",
        "AvgPool-1 ceil (also a model output) -> AvgPool-16 same_lower d2, [1,3,12,12]",
        chain_with_two_taps,
    ),
)

CASES: tuple[Case, ...] = (
    *grid(1),
    *grid(14),
    *grid(16),
    *EXTRA_AVG_POOL_CASES,
    *ADAPTIVE_CASES,
    *GRAPH_CASES,
    *REDUCE_AND_ADAPTIVE_MAX_CASES,
    *RESHAPE_FAMILY_CASES,
)


# --------------------------------------------------------------------------------------------
# Running and writing
# --------------------------------------------------------------------------------------------


def write_npz(path: Path, arrays: Mapping[str, Array]) -> None:
    """Like ``np.savez`` but byte-for-byte reproducible: sorted members, fixed timestamps."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for key in sorted(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(arrays[key]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue())


def unique_names(nodes: Sequence[ov.Node], kind: str, case: str) -> list[str]:
    names = [node.get_friendly_name() for node in nodes]
    if len(set(names)) != len(names):
        raise RuntimeError(f"{case}: {kind} friendly names are not unique: {names}")
    return names


def run_cpu(core: ov.Core, model: ov.Model, inputs: Mapping[str, Array]) -> dict[str, Array]:
    """CPU outputs keyed by Result friendly name; ``model.outputs[i]`` belongs to Result i."""
    compiled = core.compile_model(model, DEVICE, COMPILE_CONFIG)
    request = compiled.create_infer_request()
    feed = {
        index: inputs[param.get_friendly_name()]
        for index, param in enumerate(model.get_parameters())
    }
    request.infer(feed)
    return {
        res.get_friendly_name(): request.get_output_tensor(index).data.copy()
        for index, res in enumerate(model.get_results())
    }


def port_entry(node: ov.Node, array: Array) -> dict[str, Any]:
    """Element type, concrete shape and the model's declared (partial) shape of a Parameter or
    Result."""
    return {
        "element_type": node.get_element_type().get_type_name(),
        "shape": list(array.shape),
        "declared_shape": str(node.get_output_partial_shape(0)),
    }


def run_case(core: ov.Core, case: Case, case_dir: Path) -> dict[str, Any]:
    """Write one case directory and return its index.json entry."""
    case_dir.mkdir(parents=True, exist_ok=True)
    xml_path = case_dir / "model.xml"
    ov.save_model(case.build(), xml_path, compress_to_fp16=False)

    model = core.read_model(xml_path)
    param_names = unique_names(model.get_parameters(), "Parameter", case.name)
    result_names = unique_names(model.get_results(), "Result", case.name)
    if set(param_names) & set(result_names):
        raise RuntimeError(f"{case.name}: a Parameter and a Result share a friendly name")

    inputs = case.make_inputs(model)
    outputs = run_cpu(core, model, inputs)
    write_npz(case_dir / "inputs.npz", inputs)
    write_npz(case_dir / "outputs.npz", outputs)

    entry_inputs = {
        param.get_friendly_name(): port_entry(param, inputs[param.get_friendly_name()])
        for param in model.get_parameters()
    }
    entry_outputs: dict[str, Any] = {}
    notes = list(case.notes)
    for res in model.get_results():
        name = res.get_friendly_name()
        output = port_entry(res, outputs[name])
        tolerance = TOLERANCES[output["element_type"]]
        output.update(rtol=tolerance["rtol"], atol=tolerance["atol"])
        nan_count = int(np.isnan(outputs[name]).sum()) if outputs[name].dtype.kind == "f" else 0
        if nan_count:
            output["nan_count"] = nan_count
            notes.append(
                f"{name}: {nan_count} NaN from CPU for empty windows; irpool writes 0 "
                "(compare NaN == 0)."
            )
        entry_outputs[name] = output
    element_types = {output["element_type"] for output in entry_outputs.values()}
    if "f64" in element_types:
        notes.append("CPU computes this f64 model in f32 (see notes.f64).")
    if "f16" in element_types:
        notes.append("CPU computes in f32 and rounds to f16 once at the output (see notes.f16).")
    entry: dict[str, Any] = {
        "name": case.name,
        "description": case.description,
        "inputs": entry_inputs,
        "outputs": entry_outputs,
        "notes": notes,
    }
    if case.cpu_deviation:
        entry["known_cpu_deviation"] = case.cpu_deviation
    return entry


def remove_stale(out: Path, keep: set[str]) -> None:
    """Delete case directories of cases that no longer exist (only the files this tool writes)."""
    for case_dir in sorted(path for path in out.iterdir() if path.is_dir()):
        if case_dir.name in keep or not (case_dir / "model.xml").exists():
            continue
        for file_name in CASE_FILES:
            (case_dir / file_name).unlink(missing_ok=True)
        if not any(case_dir.iterdir()):
            case_dir.rmdir()


def generate(out: Path, cases: Sequence[Case]) -> dict[str, Any]:
    """Write every case under ``out`` and return the index.json content."""
    counts = Counter(case.name for case in cases)
    duplicates = sorted(name for name, count in counts.items() if count > 1)
    if duplicates:
        raise ValueError(f"duplicate case names: {duplicates}")

    out.mkdir(parents=True, exist_ok=True)
    remove_stale(out, {case.name for case in cases})
    core = ov.Core()
    entries = [run_case(core, case, out / case.name) for case in cases]
    return {
        "generator": "tools/gen_conformance.py",
        "openvino": ov.get_version(),
        "device": DEVICE,
        "config": COMPILE_CONFIG,
        "layout": {
            "model": "<case>/model.xml + model.bin (ov.save_model, compress_to_fp16=False)",
            "inputs": "<case>/inputs.npz, keys = Parameter friendly names",
            "outputs": "<case>/outputs.npz, keys = Result friendly names (CPU plugin outputs)",
            "compare": "|irpool - cpu| <= atol + rtol * |cpu| per output; NaN in cpu == 0",
        },
        "tolerances": TOLERANCES,
        "notes": NOTES,
        "cases": entries,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default: {DEFAULT_OUT})"
    )
    args = parser.parse_args(argv)

    version = ov.get_version()
    if not version.startswith(TESTED_OPENVINO):
        print(
            f"warning: OpenVINO {version} is not the {TESTED_OPENVINO} release the corpus "
            "was made with; expect diffs",
            file=sys.stderr,
        )

    index = generate(args.out, CASES)
    index_path = args.out / "index.json"
    index_path.write_text(json.dumps(index, indent=2) + "\n")
    size = sum(path.stat().st_size for path in args.out.rglob("*") if path.is_file())
    print(f"wrote {len(index['cases'])} cases ({size / 1e6:.2f} MB) and {index_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
