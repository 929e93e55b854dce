"""OpenVINO's CPU plugin on the same model and inputs, with each tensor irpool compares made
an output of the model (`ov.Model.add_outputs`), or with the model as it is.

A probed tensor the compiled model does not return is missing from `tensors` (reported as
not produced); the plugin's fusions cannot remove one, since a probe is a model output, but
a probe changes what the plugin computes in lower precision (docs/outputs.md measures it),
which is why the model's outputs are also compared from runs without probes.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.bf16 import bf16_from_bits, bf16_to_bits
from irpool.graph.graph import Layer

Ref = tuple[int, int]  # (layer id, output index)
F32 = {"INFERENCE_PRECISION_HINT": "f32"}
TELEMETRY = "openvino_telemetry"


class OpenVINOError(Exception):
    """OpenVINO refused to read, compile or run the model on these inputs."""


def import_openvino() -> ModuleType:
    """OpenVINO, imported without its telemetry: `import openvino` imports the converter,
    which reports conversions through openvino_telemetry unless that cannot be imported (it
    then uses its no-op stub). The block lasts for the import only, so the user's own
    `import openvino_telemetry` later still works. Raises ImportError without OpenVINO."""
    imported = sys.modules.get("openvino")
    if imported is not None:
        return imported
    blocked = TELEMETRY not in sys.modules
    if blocked:
        sys.modules[TELEMETRY] = None  # type: ignore[assignment]
    try:
        return importlib.import_module("openvino")
    finally:
        if blocked and sys.modules.get(TELEMETRY, 0) is None:
            del sys.modules[TELEMETRY]


@dataclass(frozen=True, slots=True)
class OpenVINORun:
    precision: str  # the inference precision the plugin compiled for ("f32", "bf16", "f16")
    tensors: dict[Ref, NDArray[Any]]  # the probed tensors it returned
    outputs: dict[str, NDArray[Any]]  # the model's outputs, by Result layer name


def run_openvino(
    openvino: ModuleType,
    xml: Path,
    weights: Path | None,
    inputs: dict[str, NDArray[Any]],
    probes: Sequence[tuple[Layer, int]],
    config: dict[str, str],
) -> OpenVINORun:
    """One compile and inference; `inputs` by Parameter layer name, `probes` the tensors to
    return besides the model's outputs (none: the model as it is)."""
    try:
        core = openvino.Core()
        model = core.read_model(str(xml), None if weights is None else str(weights))
        results = {node.get_friendly_name() for node in model.get_results()}
        _add_probes(model, probes)
        compiled = core.compile_model(model, "CPU", config)
        positions = {port.get_node().get_friendly_name(): i for i, port in enumerate(model.inputs)}
        types = [port.get_element_type().get_type_name() for port in model.inputs]
        feed = {positions[name]: array for name, array in inputs.items()}
        # OpenVINO's Python API takes bf16 as float16 arrays of the bits (docs/inputs-outputs.md).
        feed = {i: bf16_to_bits(a) if types[i] == "bf16" else a for i, a in feed.items()}
        returned = compiled.create_infer_request().infer(feed)
        precision = compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name()
    except (RuntimeError, KeyError, TypeError) as error:
        raise OpenVINOError(_message(error)) from None
    tensors: dict[Ref, NDArray[Any]] = {}
    outputs: dict[str, NDArray[Any]] = {}
    wanted = {(layer.name, index): (layer.id, index) for layer, index in probes}
    for result, port in _returned(model, compiled):
        value = result.input_value(0)
        source = (value.get_node().get_friendly_name(), value.get_index())
        array = np.array(returned[port], copy=True)
        if value.get_element_type().get_type_name() == "bf16":  # returned as float16 bits
            array = bf16_from_bits(array)
        if result.get_friendly_name() in results:
            outputs[result.get_friendly_name()] = array
        if source in wanted:  # a model output may be probed too
            tensors[wanted[source]] = array
    return OpenVINORun(precision, tensors, outputs)


def _message(error: Exception) -> str:
    """OpenVINO's message without the lines naming its source files."""
    lines = [line.strip() for line in str(error).splitlines()]
    kept = [line for line in lines if line and not line.startswith("Exception from ")]
    return " ".join(kept) or type(error).__name__


def _returned(model: Any, compiled: Any) -> list[tuple[Any, Any]]:
    """(Result node, compiled output) for each output the compiled model returns: in the
    model's order, or where their counts differ, matched by tensor name."""
    ports = list(model.outputs)
    if len(ports) == len(compiled.outputs):
        return [(port.get_node(), made) for port, made in zip(ports, compiled.outputs, strict=True)]
    by_name = {name: port.get_node() for port in ports for name in port.get_names()}
    matched = []
    for made in compiled.outputs:
        result = next((by_name[name] for name in made.get_names() if name in by_name), None)
        if result is not None:
            matched.append((result, made))
    return matched


def _add_probes(model: Any, probes: Sequence[tuple[Layer, int]]) -> None:
    """Each probed tensor made a model output; a layer name OpenVINO's model holds twice is
    not probed (which tensor is which cannot be told)."""
    nodes: dict[str, Any] = {}
    repeated: set[str] = set()
    for node in model.get_ops():
        name = node.get_friendly_name()
        if name in nodes:
            repeated.add(name)
        nodes[name] = node
    ports = []
    for layer, index in probes:
        node = nodes.get(layer.name)
        if node is not None and layer.name not in repeated and index < node.get_output_size():
            ports.append(node.output(index))
    if ports:
        model.add_outputs(ports)
