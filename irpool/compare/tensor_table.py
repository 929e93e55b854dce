"""`irpool compare`: irpool and OpenVINO's CPU plugin (its default precision, and f32) on the
same model and inputs, tensor by tensor in run order, each against a reference.

The rows are the tensors `model.run(..., intermediates=True)` returns, under the same keys.
When irpool cannot run the model (an op it does not execute), the two OpenVINO runs are
still compared, over every layer that is not constant, keyed by the same rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from numpy.typing import NDArray

from irpool.compare.differences import Difference, difference
from irpool.compare.openvino_runs import F32, OpenVINORun, Ref, run_openvino
from irpool.element_types import BF16
from irpool.execute.bind import ModelInput, bind, model_input
from irpool.execute.errors import ExecutionError
from irpool.execute.kernels.convert import convert
from irpool.execute.tensors import ComputedTensor, computed_tensors
from irpool.graph.graph import Layer
from irpool.graph.tensor_names import output_key, renaming
from irpool.model import Model
from irpool.ops.base import Role

# The pairs compared, each a value and its reference, by the runs' names.
LAYER_PAIRS = (("irpool", "f32"), ("default", "f32"), ("irpool", "default"))
# The model's outputs are also compared from runs without probes: do probes change them?
OUTPUT_PAIRS = (*LAYER_PAIRS, ("probed default", "default"), ("probed f32", "f32"))


@dataclass(frozen=True, slots=True)
class Row:
    """One tensor: its key, layer, output index, and each pair's difference (None where
    one of the two runs did not produce it)."""

    tensor: str
    layer: Layer
    index: int
    shape: tuple[int, ...] | None
    produced: dict[str, bool]
    differences: dict[tuple[str, str], Difference | None]


@dataclass(frozen=True, slots=True)
class Comparison:
    model: str
    openvino_version: str
    tolerance: float
    precisions: dict[str, str]  # run -> the precision it computed in ("bf16", "f32")
    irpool_problem: str | None  # why irpool did not run the model
    layers: list[Row]
    outputs: list[Row]

    def first_outside(self, pair: tuple[str, str]) -> Row | None:
        """The first tensor, in run order, where the pair leaves the tolerance."""
        return next(
            (row for row in self.layers if (d := row.differences.get(pair)) and not d.within),
            None,
        )


@dataclass(frozen=True, slots=True)
class ModelParts:
    """What a comparison needs of a model: its tensors, inputs and outputs (by key), and why
    irpool cannot run it (None: it can)."""

    tensors: list[ComputedTensor]
    inputs: list[ModelInput]
    results: list[tuple[str, Layer]]
    problem: str | None


def model_parts(model: Model) -> ModelParts:
    """Raises InvalidModelError for a model with errors."""
    try:
        results = [(output.name, output.layer) for output in model.outputs]
        return ModelParts(model.tensors, model.inputs, results, None)
    except ExecutionError as error:
        return _unplanned(model, str(error))


def compare_model(
    openvino: ModuleType,
    model: Model,
    parts: ModelParts,
    inputs: Mapping[str | int, Any],
    tolerance: float,
    cast: bool,
    on_cast: Callable[[str], None] | None = None,
) -> Comparison:
    """Raises InputError as `run` does, OpenVINOError when OpenVINO refuses; `on_cast` hears
    of each input cast, once for all three runs."""
    problem = parts.problem
    by_name = {name: parameter for parameter in parts.inputs for name in parameter.names}
    bound = bind(inputs, parts.inputs, by_name, cast, on_cast)
    by_layer = {p.layer.name: bound[(p.layer.id, 0)] for p in parts.inputs}
    tensors: dict[str, dict[Ref, NDArray[Any]]] = {}  # run -> its tensors
    outputs: dict[str, dict[str, NDArray[Any]]] = {}  # run -> the model's outputs by key
    if problem is None:
        try:
            returned, computed = model.run(inputs, cast=cast, intermediates=True)
            tensors["irpool"] = {
                t.ref: _as_probed(model, t, computed[t.name]) for t in parts.tensors
            }
            outputs["irpool"] = returned
        except ExecutionError as error:
            problem = str(error)
    probes = [(t.layer, t.index) for t in parts.tensors]
    path, weights = model.path, model.weights.path
    precisions = {}
    for name, config in (("f32", F32), ("default", {})):
        probed = run_openvino(openvino, path, weights, by_layer, probes, config)
        plain = run_openvino(openvino, path, weights, by_layer, (), config)
        precisions[name] = probed.precision
        tensors[name] = probed.tensors
        outputs[f"probed {name}"] = _by_key(probed, parts.results)
        outputs[name] = _by_key(plain, parts.results)
    layers = [
        _row(t.name, t.layer, t.index, tensors, t.ref, LAYER_PAIRS, tolerance)
        for t in parts.tensors
    ]
    returned_rows = [
        _row(key, result, 0, outputs, key, OUTPUT_PAIRS, tolerance) for key, result in parts.results
    ]
    version = str(openvino.get_version())
    return Comparison(
        model.document.display_path, version, tolerance, precisions, problem, layers, returned_rows
    )


def _as_probed(model: Model, tensor: ComputedTensor, value: NDArray[Any]) -> NDArray[Any]:
    """irpool's tensor as OpenVINO returns it made an output: a bf16 tensor computed in f32
    (irpool.cpu.bf16_in_f32) is rounded as a bf16 output is."""
    declared = model.checked.outputs[tensor.layer.id][tensor.index].type.name
    return convert(value, BF16) if declared == BF16 != tensor.type.name else value


def _by_key(run: OpenVINORun, results: list[tuple[str, Layer]]) -> dict[str, NDArray[Any]]:
    return {key: run.outputs[r.name] for key, r in results if r.name in run.outputs}


def _row(
    key: str,
    layer: Layer,
    index: int,
    runs: Mapping[str, Mapping[Any, NDArray[Any]]],
    ref: Any,
    pairs: tuple[tuple[str, str], ...],
    tolerance: float,
) -> Row:
    """The row of one tensor, found in each run under `ref`."""
    arrays = {name: run[ref] for name, run in runs.items() if ref in run}
    shape = next((tuple(a.shape) for a in arrays.values()), None)
    produced = {name: name in arrays for name in {run for pair in pairs for run in pair}}
    differences = {
        (value, reference): difference(arrays[value], arrays[reference], tolerance)
        if value in arrays and reference in arrays
        else None
        for value, reference in pairs
    }
    return Row(key, layer, index, shape, produced, differences)


def _unplanned(model: Model, problem: str) -> ModelParts:
    """The parts as a plan would give them, for a model irpool cannot plan: every output of
    a reachable layer that is not an input, a Result or constant (a Const, or a layer
    reading only constants, but a ReadValue) is a tensor."""
    graph, checked = model.graph, model.checked
    parameters: list[ModelInput] = []
    produced: list[tuple[Layer, int]] = []
    result_layers: list[Layer] = []
    constant: set[int] = set()
    kept = renaming(graph, model.document.ir_version)
    for layer in (graph.layers[i] for i in graph.order if i in graph.reachable):
        op = checked.ops.get(layer.id)
        sources = [graph.producers[(layer.id, i)][0] for i in range(len(layer.inputs))]
        role = op.role if op is not None else None
        if role is Role.INPUT:
            info = checked.outputs[layer.id][0]
            parameters.append(model_input(layer, info, kept, model.document.ir_version))
        elif role is Role.OUTPUT:
            result_layers.append(layer)
        elif role is Role.CONSTANT or (
            role is not Role.VARIABLE and sources and all(s in constant for s in sources)
        ):
            constant.add(layer.id)
        else:
            produced += [(layer, index) for index in range(len(layer.outputs))]
    results: list[tuple[str, Layer]] = []
    parameters.sort(key=lambda parameter: parameter.layer.position)
    for layer in sorted(result_layers, key=lambda result: result.position):  # OpenVINO's order
        taken = {key for key, _ in results}
        source = graph.producers[(layer.id, 0)]
        key = output_key(graph, model.document.ir_version, layer, source, taken, kept)
        results.append((key, layer))
    returned = [(graph.producers[(result.id, 0)], key) for key, result in results]
    types = {
        (layer.id, index): info.type
        for layer, index in produced
        for info in [checked.outputs[layer.id][index]]
    }
    tensors = computed_tensors(produced, returned, types, kept)
    return ModelParts(tensors, parameters, results, problem)
