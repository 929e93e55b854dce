"""Stage 3b, the per-layer checker: op checks and shape inference in topological order, then
every declared `<dim>` and precision compared with what the runtime will actually produce.
Findings that have a certain fix carry its edit (`--fix` applies them).

What a layer's check finds depends only on its op, its `<data>` and its input tensors, so
layers that repeat all three (the norm in real models) are checked once and their findings
are placed on each layer: validation stays linear in the file, with a small constant.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, replace

from irpool.check.attributes import Attributes, read_attributes
from irpool.check.checked import CheckedLayers
from irpool.check.declarations import LayerFinding, compare, declared_info, refined_by_declaration
from irpool.check.locators import AtLayer, AtOp, AtUnusableFile
from irpool.check.op_types import TypeReports
from irpool.cpu.quantization_refusals import model_refusals
from irpool.cpu.refusals import check_refusals, clamp_fusion_refusal, multiply_fusion_refusal
from irpool.diagnostics import Collector
from irpool.graph.graph import Graph, Layer
from irpool.graph.weights import Weights
from irpool.ops.base import (
    LayerContext,
    NotInferable,
    Op,
    OpReport,
    Role,
    ShapeError,
    TensorInfo,
)
from irpool.ops.registry import Lookup, lookup
from irpool.parse.xml_reader import Document
from irpool.rules import (
    CPU_CLAMP_FUSION_BOUNDS,
    CPU_MATMUL_MULTIPLY_FUSION,
    NON_CANONICAL_SPELLING,
    UNKNOWN_VALUES,
    WRONG_PORT_COUNT,
    Code,
)

# Constant inputs up to this many elements take part in the key of a repeated check; a
# larger constant makes its consumers be checked one by one.
MEMO_VALUE_SIZE = 64


def check_layers(doc: Document, graph: Graph, weights: Weights, sink: Collector) -> CheckedLayers:
    return _Checker(doc, graph, weights, sink).run()


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What one op's shape inference gave: outputs, or None when the layer must be trusted
    (`unknown`: because it needs a value irpool does not know)."""

    outputs: list[TensorInfo] | None
    reports: tuple[OpReport, ...]
    unknown: bool = False


@dataclass(frozen=True, slots=True)
class _LayerOutcome:
    """Everything checking a layer gives: its op, its outputs (None: trust the declared
    ports) and its findings. Layers alike in every input to the check share one."""

    op: Op
    outputs: list[TensorInfo] | None
    findings: tuple[LayerFinding, ...]
    # Keeps the input tensors whose ids are part of the key alive (and so their ids unique).
    inputs: tuple[TensorInfo | None, ...]
    # Whether a declaration went unchecked because it depends on what irpool does not know.
    unchecked: bool = False


class _Checker:
    def __init__(self, doc: Document, graph: Graph, weights: Weights, sink: Collector) -> None:
        self.doc = doc
        self.graph = graph
        self.weights = weights
        self.sink = sink
        self.result = CheckedLayers()
        self.types = TypeReports(doc, graph, sink)
        # Problems of the model's files reported (code, on a kept layer): a layer the runtime
        # drops reads no weights, so a finding on one cannot stand for the kept layers'.
        self.file_problems: set[tuple[Code, bool]] = set()
        # Work shared by repeated layers (see the module docstring).
        self._lookups: dict[tuple[str, str], Lookup] = {}
        self._configured: dict[Hashable, tuple[Attributes, Op]] = {}
        self._inferred: dict[Hashable, _Outcome] = {}
        self._checked: dict[Hashable, _LayerOutcome] = {}
        self._declared: dict[int, list[TensorInfo] | None] = {}
        self._used = _used_outputs(graph)
        # Layers with a declaration left unchecked for want of a value (see UNKNOWN_VALUES).
        self.unchecked: list[Layer] = []

    def run(self) -> CheckedLayers:
        graph, layers = self.graph, self.graph.layers
        for layer_id in graph.order:
            self._check_layer(layers[layer_id], self.result.inputs(graph, layers[layer_id]))
        self._report_fusions()
        for refused, code, reason in model_refusals(graph, self.result):
            self._place(refused, [(code, reason, AtOp())])
        self._report_unchecked()
        return self.result

    def _report_fusions(self) -> None:
        """What the CPU plugin refuses of a product fused with the Multiply or Clamp after it."""
        graph, checked = self.graph, self.result
        readers = Counter(graph.producers.values())
        for layer_id, op in checked.ops.items():
            if op.type_name not in ("Multiply", "Clamp"):
                continue
            operands = checked.inputs(graph, graph.layers[layer_id])
            for index, operand in enumerate(operands[:2]):
                source = graph.producers.get((layer_id, index))
                producer = None if source is None else checked.ops.get(source[0])
                if source is None or producer is None:
                    continue
                product = graph.layers[source[0]]
                if op.type_name == "Clamp":  # reported on the Clamp, the Multiply's on the MatMul
                    reason = clamp_fusion_refusal(producer, op, operand, readers[source])
                    found = (graph.layers[layer_id], CPU_CLAMP_FUSION_BOUNDS)
                else:
                    product_inputs = checked.inputs(graph, product)
                    reason = multiply_fusion_refusal(producer, product_inputs, operands[1 - index])
                    found = (product, CPU_MATMUL_MULTIPLY_FUSION)
                if reason is not None:
                    self._place(found[0], [(found[1], reason, AtOp())])

    def _check_layer(self, layer: Layer, inputs: tuple[TensorInfo | None, ...]) -> None:
        # The data and ports are shared by the layers written alike (see graph.build), and
        # equal inputs are the same objects along a repeated chain, so identities make a
        # cheap, exact key; the layers keep those objects alive.
        memo_key = (
            layer.type,
            layer.version,
            id(layer.data_items),
            id(layer.inputs),
            id(layer.outputs),
            self._used.get(layer.id, NONE_USED),
            *[id(info) for info in inputs],
        )
        outcome = self._checked.get(memo_key)
        if outcome is None:
            key = (layer.type, layer.version)
            found = self._lookups.get(key) or self._lookups.setdefault(key, lookup(*key))
            if found.op is None:
                findings: list[LayerFinding] = []
                self._compare_inputs(layer, inputs, findings)
                self._place(layer, findings)
                self.types.report(layer, found)
                if found.refused is not None or found.canonical_type is not None:
                    self.result.refused.add(layer.id)
                self._trust(layer)
                return
            outcome = self._checked[memo_key] = self._check_fresh(layer, found, inputs)
        self.result.ops[layer.id] = outcome.op
        if outcome.unchecked:
            self.unchecked.append(layer)
        if outcome.findings:
            self._place(layer, outcome.findings)
        if outcome.outputs is None:
            self._trust(layer)
        else:
            self.result.outputs[layer.id] = outcome.outputs

    def _check_fresh(
        self, layer: Layer, found: Lookup, inputs: tuple[TensorInfo | None, ...]
    ) -> _LayerOutcome:
        assert found.op is not None
        findings: list[LayerFinding] = []
        unchecked = self._compare_inputs(layer, inputs, findings)
        if found.canonical_type is not None and layer.type != found.canonical_type:
            message = f'type "{layer.type}" is written "{found.canonical_type}"'
            findings.append((NON_CANONICAL_SPELLING, message, AtLayer("type")))
        attributes, op = self._configure(found.op, layer.data_items)
        findings.extend(attributes.findings)
        ports_ok = self._check_port_counts(layer, op, findings)
        known_inputs = [info for info in inputs if info is not None]
        if not (attributes.usable and ports_ok and len(known_inputs) == len(inputs)):
            return _LayerOutcome(op, None, tuple(findings), inputs, unchecked)
        used = self._used.get(layer.id, NONE_USED)
        inferred = self._infer(op, attributes, known_inputs, used)
        misspelt = dict(attributes.misspelt)
        for report in inferred.reports:
            name, fix = report.attribute, report.fix
            # An absent attribute's finding goes under the value its misspelling holds.
            where = misspelt.get(name, name) if name and fix is None else name
            place = AtUnusableFile if report.about_file else AtOp
            findings.append((report.code, report.message, place(where, fix)))
        unchecked = unchecked or inferred.unknown
        outputs = inferred.outputs
        if outputs is not None:
            for port, info in zip(layer.outputs, outputs, strict=False):
                unchecked = compare(port, info, "output", findings) or unchecked
            # A layer may declare fewer output ports than its op has (OpenVINO makes them all).
            pairs = zip(outputs, layer.outputs, strict=False)
            refined = [refined_by_declaration(info, port) for info, port in pairs]
            outputs = refined + outputs[len(refined) :]
        return _LayerOutcome(op, outputs, tuple(findings), inputs, unchecked)

    def _configure(
        self, op_class: type[Op], items: tuple[tuple[str, str], ...] | None
    ) -> tuple[Attributes, Op]:
        """The attributes and op of a `<data>`, read once per distinct one. Layers that share
        a configuration share the (immutable) op."""
        key = (op_class, items)
        configured = self._configured.get(key)
        if configured is None:
            attributes = read_attributes(op_class, items)
            configured = self._configured[key] = (attributes, op_class(attributes.values))
        return configured

    def _infer(
        self, op: Op, attributes: Attributes, inputs: list[TensorInfo], used: frozenset[int]
    ) -> _Outcome:
        """Shape inference, run once per op configuration, distinct inputs and used outputs."""
        key = _inference_key(op, inputs, used)
        outcome = None if key is None else self._inferred.get(key)
        if outcome is not None:
            return outcome
        reports: list[OpReport] = []
        ctx = LayerContext(attributes.present, reports.append, self.weights.read, used)
        outputs: list[TensorInfo] | None
        unknown = False
        read = True  # whether read_model takes the layer: only then is the CPU asked
        try:
            folds = op.role is not Role.VARIABLE  # a variable's value is no constant
            outputs = [_marked(info, inputs, folds) for info in op.infer(inputs, ctx)]
        except ShapeError as error:
            read = False
            message = f"{op.label()}: {error}"
            reports.append(
                OpReport(error.code, message, error.attribute, about_file=error.about_file)
            )
            outputs = None
        except NotInferable:
            outputs = None
            unknown = True
        if read:
            check_refusals(op, inputs, ctx)
        outcome = _Outcome(outputs, tuple(reports), unknown)
        if key is not None:
            self._inferred[key] = outcome
        return outcome

    def _compare_inputs(
        self, layer: Layer, inputs: tuple[TensorInfo | None, ...], findings: list[LayerFinding]
    ) -> bool:
        """Each input port's own claim against the tensor it receives; whether one was left
        unchecked."""
        unchecked = False
        for port, info in zip(layer.inputs, inputs, strict=True):
            if info is not None:
                unchecked = compare(port, info, "input", findings) or unchecked
        return unchecked

    def _trust(self, layer: Layer) -> None:
        self.result.trusted.add(layer.id)
        key = id(layer.outputs)
        if key not in self._declared:
            infos = [declared_info(port) for port in layer.outputs]
            known = [info for info in infos if info is not None]
            self._declared[key] = known if len(known) == len(infos) else None
        declared = self._declared[key]
        if declared is not None:
            self.result.outputs[layer.id] = declared

    def _place(self, layer: Layer, findings: Iterable[LayerFinding]) -> None:
        """Report findings on this layer, at the places their locators name."""
        source = self.doc.source
        for code, message, locator in findings:
            if locator.about_file:
                key = (code, layer.id in self.graph.reachable)
                if key in self.file_problems:
                    continue
                self.file_problems.add(key)
            span = locator.span(source, layer)
            self.sink.add(code, message, span, layer.ref, edit=locator.edit(source, layer))

    @staticmethod
    def _check_port_counts(layer: Layer, op: Op, findings: list[LayerFinding]) -> bool:
        ok = True
        inputs = len(op.input_names)
        for side, ports, allowed, variadic in (
            (
                "input",
                layer.inputs,
                range(inputs - op.optional_inputs, inputs + 1),
                op.variadic_inputs,
            ),
            # OpenVINO creates every output of the op whatever is declared, and reads only the
            # declared ones (measured: MaxPool-8 with its values port alone loads and runs).
            (
                "output",
                layer.outputs,
                range(min(op.output_count, 1), op.output_count + 1),
                op.variadic_outputs,
            ),
        ):
            if len(ports) not in allowed and not (variadic and len(ports) >= allowed.start):
                names = ", ".join(op.input_names) if side == "input" and inputs else ""
                detail = f" ({names})" if names else ""
                counts = f"{allowed.start} or more" if variadic else " or ".join(map(str, allowed))
                message = (
                    f"the layer has {len(ports)} {side} port(s); {op.label()} has {counts}{detail}"
                )
                findings.append((WRONG_PORT_COUNT, message, AtLayer()))
                ok = False
        return ok

    def _report_unchecked(self) -> None:
        """Once per file: how many layers have declarations that were not checked."""
        if not self.unchecked:
            return
        first = self.unchecked[0]
        self.sink.add(
            UNKNOWN_VALUES,
            f"{len(self.unchecked)} layer(s) have declared dims that depend on values irpool "
            "does not know (unavailable weights, unfolded constants, unchecked layers' "
            "outputs): they are trusted, not checked",
            self.doc.source.element(first.element),
            first.ref,
        )


def _marked(info: TensorInfo, inputs: list[TensorInfo], folds: bool) -> TensorInfo:
    """An inferred output, marked unknown when irpool may know less of it than the runtime:
    an unknown input whose unknown part can reach it (dims irpool does not know, or the
    values of an integer or boolean tensor, which OpenVINO's bounds carry into shapes), or
    every input is a constant, known or not, and irpool did not fold the value (nor bound it,
    as it bounds a FloorMod by 0 as OpenVINO's shape inference does). The unknown
    values of a static float tensor (weights too large to fold) reach no shape: a
    Convolution of data by them is known. An op that never `folds` (a ReadValue) gives no
    constant, whatever its inputs."""
    if info.unknown or info.value is not None:
        return info
    reaching = any(i.unknown and (not i.shape.is_static or not i.type.is_float) for i in inputs)
    constant = folds and bool(inputs) and all(i.value is not None or i.unknown for i in inputs)
    if reaching or (constant and info.bounds is None):
        return replace(info, unknown=True)
    return info


NONE_USED: frozenset[int] = frozenset()


def _used_outputs(graph: Graph) -> dict[int, frozenset[int]]:
    """Layer id -> the indices of its outputs some layer reads; layers alike share one set."""
    read: dict[int, set[int]] = {}
    for source, index in graph.producers.values():
        read.setdefault(source, set()).add(index)
    shared: dict[frozenset[int], frozenset[int]] = {}
    return {
        layer: shared.setdefault(frozenset(indices), frozenset(indices))
        for layer, indices in read.items()
    }


def _inference_key(op: Op, inputs: list[TensorInfo], used: frozenset[int]) -> Hashable | None:
    """What an op's inference depends on, or None when an input is too large to key on."""
    parts: list[Hashable] = [op, used]
    for info in inputs:
        value = info.value
        if value is None:
            parts.append((info.element_type, info.shape, info.trusted, info.unknown, info.bounds))
        elif value.size <= MEMO_VALUE_SIZE:
            content = (value.dtype.str, value.shape, value.tobytes())
            parts.append((info.element_type, info.shape, info.trusted, info.unknown, content))
        else:
            return None
    return tuple(parts)
