"""What tools/measure_cpu.py's measurements are made of: a registry of behaviours, each a
function that builds a tiny model with OpenVINO's op builders, `observe`, which runs it on
the CPU plugin ({"INFERENCE_PRECISION_HINT": "f32"}) and on irpool, `refusal_rows`, the
verdicts on the CPU refusal rules' fixtures, and `main`, which prints them all."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from ov_builders import opset1, ov  # says how to install OpenVINO where it is missing

import irpool
from irpool.cpu.compressed_weights import quantizes_any_activations
from irpool.rules import CPU_FAILURE_STAGES, FAMILIES, RULES

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the suite's OpenVINO worker and rule fixtures
from tests.differential.openvino_worker import Oracle  # noqa: E402
from tests.rule_fixtures import FIXTURES, fixture_code  # noqa: E402

CPU_CONFIG: dict[str, Any] = {"INFERENCE_PRECISION_HINT": "f32"}
if not quantizes_any_activations():  # as an AVX2 host, also under ONEDNN_MAX_CPU_ISA=AVX2
    CPU_CONFIG["DYNAMIC_QUANTIZATION_GROUP_SIZE"] = 0


@dataclass(frozen=True, slots=True)
class Measurement:
    """One behaviour's outputs: the CPU plugin's and irpool's, output by output."""

    observed: list[NDArray[Any]]
    assumed: list[NDArray[Any]]

    @property
    def same(self) -> bool:
        return len(self.observed) == len(self.assumed) and all(
            _identical(a, b) for a, b in zip(self.observed, self.assumed, strict=True)
        )


@dataclass(frozen=True, slots=True)
class Behaviour:
    """A behaviour of the CPU plugin: its docs/cpu.md section, where irpool holds it, and the
    function that measures it."""

    title: str
    home: str
    measure: Callable[[], Measurement]


BEHAVIOURS: list[Behaviour] = []


def behaviour(title: str, home: str) -> Callable[[Callable[[], Measurement]], Behaviour]:
    """Register the decorated measuring function under `title` (its docs/cpu.md section)."""

    def register(measure: Callable[[], Measurement]) -> Behaviour:
        found = Behaviour(title, home, measure)
        BEHAVIOURS.append(found)
        return found

    return register


def _identical(a: NDArray[Any], b: NDArray[Any]) -> bool:
    """The same dtype, shape and values, NaN where NaN (of any sign), zeros of one sign."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind != "f":
        return bool(np.array_equal(a, b))
    numbers = ~np.isnan(a)
    same_signs = np.array_equal(np.signbit(a[numbers]), np.signbit(b[numbers]))
    return bool(np.array_equal(a, b, equal_nan=True)) and bool(same_signs)


def parameter(name: str, shape: Sequence[int] | str, dtype: type[np.generic] | ov.Type) -> ov.Node:
    """A Parameter; a str shape uses OpenVINO's syntax ("1,1,?,?")."""
    partial = ov.PartialShape(shape) if isinstance(shape, str) else ov.PartialShape(list(shape))
    return opset1.parameter(partial, dtype, name=name)


def constant(values: Any, dtype: type[np.generic]) -> ov.Node:
    return opset1.constant(np.array(values, dtype))


def observe(
    outputs: Sequence[ov.Node], parameters: Sequence[ov.Node], inputs: Sequence[Any]
) -> Measurement:
    """`outputs` of a model on `parameters`, run on `inputs` by the CPU plugin and by irpool
    (on the model as `save_model` writes it)."""
    model = ov.Model(list(outputs), list(parameters))
    arrays = [np.asarray(x) for x in inputs]
    compiled = ov.Core().compile_model(model, "CPU", CPU_CONFIG)
    request = compiled.create_infer_request()
    request.infer(
        [_tensor(x, p.get_element_type()) for x, p in zip(arrays, parameters, strict=True)]
    )
    observed = [_array(request.get_output_tensor(i)) for i in range(len(outputs))]
    names = [output.get_any_name() for output in compiled.outputs]
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "probe.xml"
        ov.save_model(model, path, compress_to_fp16=False)
        ran = irpool.load(path).run(dict(enumerate(arrays)), cast=True)  # bf16 from f32
    return Measurement(observed, [np.asarray(ran[name]) for name in names])


def bf16_values(bits: Sequence[int]) -> NDArray[np.float32]:
    """The f32 values of bf16 bit patterns (as irpool holds bf16)."""
    return (np.array(bits, np.uint32) << 16).view(np.float32)


def _tensor(array: NDArray[Any], element_type: Any) -> ov.Tensor | NDArray[Any]:
    """An input for OpenVINO: a bf16 Parameter takes the upper halves of f32 `array`."""
    if element_type != ov.Type.bf16:
        return array
    tensor = ov.Tensor(ov.Type.bf16, ov.Shape(list(array.shape)))
    tensor.data.view(np.uint16)[...] = (array.view(np.uint32) >> 16).astype(np.uint16)
    return tensor


def _array(tensor: ov.Tensor) -> NDArray[Any]:
    """An output as irpool gives it: bf16 as the f32 values of its bits."""
    if tensor.element_type == ov.Type.bf16:
        return bf16_values(tensor.data.view(np.uint16))
    return np.array(tensor.data)


def fake_quantize(x: ov.Node, ranges: Sequence[float], levels: int, mode: str) -> ov.Node:
    bounds = [constant(value, np.float32) for value in ranges]
    return opset1.fake_quantize(x, *bounds, levels, mode)


def kv_cache_model(depth: int, heads: int = 1) -> ov.Model:
    """A KV cache as optimum-intel writes it, `heads` heads of `depth`: for K and V, ReadValue
    -> Gather(beam_idx) -> Concat(past, this step's) -> Assign, and ->
    ScaledDotProductAttention of the parameter q; inputs q, k, v [1, heads, tokens, depth] and
    beam_idx [1]."""
    o6, o13 = ov.opset6, ov.opset13
    caches, assigns = [], []
    q, k, v = (o13.parameter([1, heads, -1, depth], np.float32, name=n) for n in "qkv")
    beams = o13.parameter([1], np.int32, name="beam_idx")
    for name, step in (("key", k), ("value", v)):
        info = ov.op.util.VariableInfo()
        info.data_shape, info.data_type = ov.PartialShape([-1, heads, -1, depth]), ov.Type.f32
        info.variable_id = name
        variable = ov.op.util.Variable(info)
        shape = o13.constant(np.array([1, heads, 0, depth]))
        empty = o13.broadcast(o13.constant(np.float32(0)), shape)
        past = o13.gather(o6.read_value(empty, variable), beams, o13.constant(np.array(0)))
        caches.append(o13.concat([past, step], -2))
        assigns.append(o6.assign(caches[-1], variable))
    attention = o13.scaled_dot_product_attention(q, *caches, causal=False)
    return ov.Model([o13.result(attention)], assigns, [q, k, v, beams])


def observe_steps(model: ov.Model, steps: Sequence[dict[str, NDArray[Any]]]) -> Measurement:
    """The first output of each of `steps`, run in turn by one infer request of a stateful
    model on the CPU plugin and one of irpool (on the model as `save_model` writes it)."""
    request = ov.Core().compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
    observed = [request.infer(feeds)[0].copy() for feeds in steps]
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "probe.xml"
        ov.save_model(model, path, compress_to_fp16=False)
        ours = irpool.load(path).create_infer_request()
        assumed = [next(iter(ours.infer(dict(feeds.items())).values())) for feeds in steps]
    return Measurement(observed, assumed)


def refusal_rows() -> list[tuple[str, str, str]]:
    """(verdict, rule, what the plugin did) for each CPU refusal rule, over its fixtures."""
    oracle = Oracle()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as directory:
            for code in sorted(FAMILIES["IR214"]):
                claim = RULES[code].runtime
                paths = [path for path in FIXTURES if fixture_code(path) == code]
                stages = [
                    oracle.judge(path, run=Path(directory) / "run.npz").stage for path in paths
                ]
                held = bool(paths) and all(stage in CPU_FAILURE_STAGES[claim] for stage in stages)
                seen = ", ".join(
                    f"{p.stem}: {s or 'runs'}" for p, s in zip(paths, stages, strict=True)
                )
                rows.append(
                    ("same" if held else "CHANGED", f"{code} ({claim})", seen or "no fixture")
                )
    finally:
        oracle.close()
    return rows


def shown(arrays: Sequence[NDArray[Any]]) -> str:
    return "; ".join(str(array.tolist()) for array in arrays)


def main() -> int:
    print(f"OpenVINO {ov.__version__}, CPU plugin, INFERENCE_PRECISION_HINT f32")
    changed = 0
    rows = []
    for found in BEHAVIOURS:
        measured = found.measure()
        verdict = "same" if measured.same else "CHANGED"
        changed += not measured.same
        rows.append(
            (verdict, found.title, found.home, shown(measured.observed), shown(measured.assumed))
        )
    width = max(len(row[1]) for row in rows)
    for verdict, title, home, observed, assumed in rows:
        print(f"{verdict:8} {title:{width}}  {home}")
        if verdict != "same":
            print(f"{'':8} CPU: {observed}\n{'':8} irpool: {assumed}")
    refusals = refusal_rows()
    for verdict, rule, seen in refusals:
        print(f"{verdict:8} {rule:{width}}  {seen if verdict != 'same' else ''}".rstrip())
    changed += sum(verdict != "same" for verdict, _, _ in refusals)
    print(f"{len(rows)} behaviours and {len(refusals)} refusal rules, {changed} changed")
    return 1 if changed else 0


def rotary_embedding(
    values: Sequence[Sequence[float]],
) -> tuple[list[ov.Node], list[ov.Node], list[NDArray[Any]]]:
    """What `observe` takes for x * cos + Concat(-x[h:], x[:h]) * sin as the transformers'
    exporters write it (Slices of the last axis, a Multiply by -1), on x, cos and sin
    [1, 1, 1, n] holding `values`."""
    depth = len(values[0])
    x, cos, sin = (parameter(name, [1, 1, 1, depth], np.float32) for name in ("x", "cos", "sin"))
    half, end, one, last, zero = (constant([v], np.int64) for v in (depth // 2, 2**62, 1, -1, 0))
    second = ov.opset8.slice(x, half, end, one, last)
    negated = opset1.multiply(second, constant(np.float32(-1), np.float32))
    rotated = opset1.concat([negated, ov.opset8.slice(x, zero, half, one, last)], -1)
    embedded = opset1.add(opset1.multiply(x, cos), opset1.multiply(rotated, sin))
    inputs = [np.array(v, np.float32).reshape(1, 1, 1, depth) for v in values]
    return [embedded], [x, cos, sin], inputs
