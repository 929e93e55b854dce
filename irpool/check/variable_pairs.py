"""Stage 3d: the variables of a stateful model, across the ReadValue and Assign layers that
name them (the ops themselves: irpool/ops/variables.py).

What read_model refuses (docs/ops/ReadValue.md#pairs): an Assign whose variable no ReadValue
it pairs with reads (IR510), an Assign whose data's type (IR511) or shape (IR512) does not fit
the variable. What the CPU plugin refuses at the first inference, a ReadValue or an Assign it
pairs with no partner (IR638), is irpool/cpu/state_pairing.py's. Only the layers OpenVINO
builds count: a ReadValue that no Result needs is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from irpool.check.checked import CheckedLayers
from irpool.cpu.state_pairing import unpaired_layers
from irpool.diagnostics import Collector
from irpool.element_types import DYNAMIC
from irpool.graph.graph import Graph, Layer
from irpool.ops.base import TensorInfo
from irpool.ops.variables import Assign3, AssignBase, ReadValue3, ReadValueBase, compatible
from irpool.parse.xml_reader import Document
from irpool.rules import (
    ASSIGN_WITHOUT_READ_VALUE,
    CPU_UNPAIRED_VARIABLE_LAYER,
    VARIABLE_SHAPE_MISMATCH,
    VARIABLE_TYPE_MISMATCH,
    Code,
)

Report = Callable[[Code, Layer, str], None]


@dataclass
class _Variable:
    """The layers OpenVINO builds that name one variable, in XML order."""

    reads: list[tuple[Layer, ReadValueBase]] = field(default_factory=list)
    writes: list[tuple[Layer, AssignBase]] = field(default_factory=list)


def check_variables(doc: Document, graph: Graph, checked: CheckedLayers, sink: Collector) -> None:
    variables: dict[str, _Variable] = {}
    for layer in graph.layers.values():
        op = checked.ops.get(layer.id)
        named = layer.data_items is not None and "variable_id" in dict(layer.data_items)
        if layer.id not in graph.reachable or op is None or not named:
            continue  # dropped, not modelled, or without a variable (IR215)
        if isinstance(op, ReadValueBase):
            variables.setdefault(op.variable_id, _Variable()).reads.append((layer, op))
        elif isinstance(op, AssignBase):
            variables.setdefault(op.variable_id, _Variable()).writes.append((layer, op))

    def report(code: Code, layer: Layer, message: str) -> None:
        assert layer.data is not None  # it names its variable
        sink.add(code, message, doc.source.attribute(layer.data, "variable_id"), layer.ref)

    for name, variable in variables.items():
        for layer, assign in variable.writes:
            readers = [
                (read, op)
                for read, op in variable.reads
                if not isinstance(assign, Assign3) or isinstance(op, ReadValue3)
            ]
            if not readers:
                report(ASSIGN_WITHOUT_READ_VALUE, layer, _unread(name, assign, variable))
                continue
            reader = readers[0][0].id
            declared = None if reader in checked.trusted else checked.outputs.get(reader)
            data = checked.inputs(graph, layer)[0]
            if declared is not None and data is not None and not data.trusted:
                _compare(name, declared[0], data, layer, report)
        reads = [layer for layer, _ in variable.reads]
        writes = [layer for layer, _ in variable.writes]
        for layer, message in unpaired_layers(name, reads, writes):
            report(CPU_UNPAIRED_VARIABLE_LAYER, layer, message)


def _unread(name: str, assign: AssignBase, variable: _Variable) -> str:
    if variable.reads:
        return (
            f'{assign.label()} takes variable "{name}" from a ReadValue-3 only, and only a '
            "ReadValue-6 reads it: read_model fails (Can't find variable with id = "
            f"{name}); write both in one version"
        )
    return f'no ReadValue reads variable "{name}": read_model fails (map::at)'


def _compare(
    name: str, variable: TensorInfo, data: TensorInfo, layer: Layer, report: Report
) -> None:
    types = {variable.element_type, data.element_type}
    if len(types) > 1 and DYNAMIC not in types:
        report(
            VARIABLE_TYPE_MISMATCH,
            layer,
            f'the Assign writes {data.element_type} data to variable "{name}" of type '
            f"{variable.element_type}: read_model refuses it",
        )
    if not compatible(variable.shape, data.shape):
        report(
            VARIABLE_SHAPE_MISMATCH,
            layer,
            f'the Assign writes data of shape {data.shape} to variable "{name}" of shape '
            f"{variable.shape}: no shape fits both, and read_model refuses it",
        )
