"""Stage 3b: per-layer op checks and shape inference in topological order, then every declared
`<dim>` and precision compared with what the runtime will actually produce.

What a layer's check finds depends only on its op, its `<data>` and its input tensors, so
layers that repeat all three (the norm in real models) are checked once and their findings
are placed on each layer: validation stays linear in the file, with a small constant.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import cached_property

from irpool.check.attributes import Attributes, read_attributes
from irpool.diagnostics import Collector
from irpool.graph.model import Graph, Layer, Port
from irpool.graph.shape import Dim, Shape
from irpool.graph.weights import Weights
from irpool.ops.base import LayerContext, NotInferable, Op, ShapeError, TensorInfo
from irpool.ops.registry import Lookup, lookup
from irpool.parse.values import precision_name
from irpool.parse.xml_reader import Document

# Constant inputs up to this many elements take part in the key of a repeated check; a
# larger constant makes its consumers be checked one by one.
MEMO_VALUE_SIZE = 64


@dataclass(slots=True)
class Inference:
    """What checking learned: an op per checked layer and the tensors on every output."""

    ops: dict[int, Op] = field(default_factory=dict)
    outputs: dict[int, list[TensorInfo]] = field(default_factory=dict)
    # Layers whose outputs come from their declared ports, not from inference.
    trusted: set[int] = field(default_factory=set)


def declared_info(port: Port) -> TensorInfo | None:
    """A port's own claim, used where irpool cannot infer (unknown ops, failed inference)."""
    if port.declared is None:
        return None
    # No <dim> at all is how the serializer writes both scalars and dynamic ranks.
    dims = tuple(Dim.dynamic() if v == -1 else Dim.static(v) for v in port.declared)
    shape = Shape(dims) if dims else Shape.dynamic()
    return TensorInfo(port.precision or "dynamic", shape, trusted=True)


def infer_graph(doc: Document, graph: Graph, weights: Weights, sink: Collector) -> Inference:
    return _Checker(doc, graph, weights, sink).run()


# A finding of an op's checks: rule code, message, and the attribute it is about.
Report = tuple[str, str, str | None]


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What one op's shape inference gave: outputs, or None when the layer must be trusted."""

    outputs: list[TensorInfo] | None
    reports: tuple[Report, ...]


class _Checker:
    def __init__(self, doc: Document, graph: Graph, weights: Weights, sink: Collector) -> None:
        self.doc = doc
        self.graph = graph
        self.weights = weights
        self.sink = sink
        self.result = Inference()
        self.unchecked_types: set[str] = set()
        self.weights_reported = False
        # Work shared by repeated layers (see the module docstring).
        self._lookups: dict[tuple[str, str], Lookup] = {}
        self._configured: dict[Hashable, tuple[Attributes, Op]] = {}
        self._inferred: dict[Hashable, _Outcome] = {}

    def run(self) -> Inference:
        for layer_id in self.graph.order:
            self._check_layer(self.graph.layers[layer_id])
        return self.result

    def _check_layer(self, layer: Layer) -> None:
        inputs = [self._input(layer, index) for index in range(len(layer.inputs))]
        key = (layer.type, layer.version)
        found = self._lookups.get(key) or self._lookups.setdefault(key, lookup(*key))
        if found.op is None:
            self._report_lookup(layer, found.canonical_type, found.error)
            self._trust(layer)
            return
        if found.canonical_type is not None and layer.type != found.canonical_type:
            self.sink.add(
                "IR211",
                f'type "{layer.type}" is written "{found.canonical_type}"',
                self.doc.source.attribute(layer.element, "type"),
                layer.ref,
            )
        attributes, op = self._configure(found.op, layer)
        self.result.ops[layer.id] = op
        ports_ok = self._check_port_counts(layer, op)
        known_inputs = [info for info in inputs if info is not None]
        if not (attributes.usable and ports_ok and len(known_inputs) == len(inputs)):
            self._trust(layer)
            return
        outcome = self._infer(op, attributes, known_inputs)
        for code, message, attribute in outcome.reports:
            self._report(layer, code, message, attribute)
        if outcome.outputs is None:
            self._trust(layer)
            return
        self.result.outputs[layer.id] = outcome.outputs
        for port, info in zip(layer.outputs, outcome.outputs, strict=False):
            self._compare(layer, port, info, "output")

    def _configure(self, op_class: type[Op], layer: Layer) -> tuple[Attributes, Op]:
        """The layer's attributes and op, read once per distinct `<data>`; findings placed
        on this layer. Layers that share a configuration share the (immutable) op."""
        data = layer.data
        items = None if data is None else tuple(data.items())
        key = (op_class, items)
        configured = self._configured.get(key)
        if configured is None:
            attributes = read_attributes(op_class, items)
            configured = self._configured[key] = (attributes, op_class(attributes.values))
        attributes = configured[0]
        source = self.doc.source
        for code, message, attribute in attributes.findings:
            if data is None:
                span = source.element(layer.element)
            else:
                span = source.attribute(data, attribute) if attribute else source.element(data)
            self.sink.add(code, message, span, layer.ref)
        return configured

    def _infer(self, op: Op, attributes: Attributes, inputs: list[TensorInfo]) -> _Outcome:
        """Shape inference, run once per op configuration and distinct inputs."""
        key = _inference_key(op, inputs)
        outcome = None if key is None else self._inferred.get(key)
        if outcome is not None:
            return outcome
        reports: list[Report] = []
        ctx = LayerContext(
            attributes.present,
            lambda code, message, attribute: reports.append((code, message, attribute)),
            self.weights.read,
        )
        outputs: list[TensorInfo] | None
        try:
            outputs = op.infer(inputs, ctx)
        except ShapeError as error:
            reports.append((error.code, f"{op.label()}: {error}", error.attribute))
            outputs = None
        except NotInferable:
            outputs = None
        outcome = _Outcome(outputs, tuple(reports))
        if key is not None:
            self._inferred[key] = outcome
        return outcome

    def _input(self, layer: Layer, index: int) -> TensorInfo | None:
        """The producer's tensor for one input, after checking the input port's own claim."""
        source = self.graph.producers.get((layer.id, index))
        if source is None:
            return None
        produced = self.result.outputs.get(source[0])
        if produced is None or source[1] >= len(produced):
            return None
        info = produced[source[1]]
        self._compare(layer, layer.inputs[index], info, "input")
        return info

    def _trust(self, layer: Layer) -> None:
        infos = [declared_info(port) for port in layer.outputs]
        self.result.trusted.add(layer.id)
        if all(info is not None for info in infos):
            self.result.outputs[layer.id] = [info for info in infos if info is not None]

    def _report_lookup(self, layer: Layer, canonical: str | None, error: str | None) -> None:
        if canonical is not None:
            self.sink.add(
                "IR201",
                f"{canonical}: {error}",
                self.doc.source.attribute(layer.element, "version"),
                layer.ref,
            )
        elif layer.type.lower() not in self.unchecked_types:
            self.unchecked_types.add(layer.type.lower())
            count = self._type_counts[layer.type.lower()]
            self.sink.add(
                "IR202",
                f"{count} layer(s) of type {layer.type} ({layer.version}) not checked by irpool; "
                "their declared outputs are trusted",
                self.doc.source.attribute(layer.element, "type"),
                layer.ref,
            )

    def _check_port_counts(self, layer: Layer, op: Op) -> bool:
        ok = True
        for side, ports, expected in (
            ("input", layer.inputs, len(op.input_names)),
            ("output", layer.outputs, op.output_count),
        ):
            if len(ports) != expected:
                names = ", ".join(op.input_names) if side == "input" and expected else ""
                detail = f" ({names})" if names else ""
                self.sink.add(
                    "IR506",
                    f"{layer.describe()} has {len(ports)} {side} port(s); {op.label()} has "
                    f"{expected}{detail}",
                    self.doc.source.element(layer.element),
                    layer.ref,
                )
                ok = False
        return ok

    def _report(self, layer: Layer, code: str, message: str, attribute: str | None) -> None:
        if code == "IR401":
            if self.weights_reported:
                return  # one missing .bin is one problem, however many Consts need it
            self.weights_reported = True
        data = layer.data
        span = (
            self.doc.source.attribute(data, attribute)
            if data is not None and attribute
            else self.doc.source.element(layer.element)
        )
        self.sink.add(code, message, span, layer.ref)

    @cached_property
    def _type_counts(self) -> Counter[str]:
        return Counter(layer.type.lower() for layer in self.graph.layers.values())

    def _compare(self, layer: Layer, port: Port, info: TensorInfo, side: str) -> None:
        """Report every declared dim (and the precision) that differs from the inferred tensor."""
        declared = port.declared
        where = f"{side} port {port.id}"
        if declared is not None and declared != _claim(info.shape):
            inferred = info.shape
            if inferred.dims is None or (declared == () and inferred.rank == 0):
                if declared and inferred.dims is None:
                    self._mismatch_rank(layer, port, where, len(declared), "a dynamic rank")
            elif len(declared) != len(inferred.dims):
                self._mismatch_rank(layer, port, where, len(declared), f"rank {inferred.rank}")
            else:
                dims = port.element.findall("dim")
                for index, (value, dim) in enumerate(zip(declared, inferred.dims, strict=True)):
                    expected = dim.value if dim.is_static else -1
                    if value != expected:
                        hint = "" if dim.is_static else " (write -1 for a non-static dim)"
                        self.sink.add(
                            "IR301",
                            f"{where} dim {index}: declared {value}, inferred {dim}{hint} "
                            f"(shape {inferred})",
                            self.doc.source.element_text(dims[index]),
                            layer.ref,
                        )
        if port.precision is not None and info.element_type not in ("dynamic", port.precision):
            self.sink.add(
                "IR305",
                f"{where} precision says {port.element.get('precision')}, but the tensor is "
                f"{info.element_type} (write {precision_name(info.element_type)})",
                self.doc.source.attribute(port.element, "precision"),
                layer.ref,
            )

    def _mismatch_rank(
        self, layer: Layer, port: Port, where: str, count: int, inferred: str
    ) -> None:
        self.sink.add(
            "IR302",
            f"{where} declares {count} dim(s), but the inferred shape has {inferred}",
            self.doc.source.element(port.element),
            layer.ref,
        )


def _claim(shape: Shape) -> tuple[int, ...] | None:
    """The `<dim>` values that declare exactly this shape (None: a dynamic rank)."""
    if shape.dims is None:
        return None
    return tuple(d.low if d.low == d.high else -1 for d in shape.dims)


def _inference_key(op: Op, inputs: list[TensorInfo]) -> Hashable | None:
    """What an op's inference depends on, or None when an input is too large to key on."""
    parts: list[Hashable] = [op]
    for info in inputs:
        value = info.value
        if value is None:
            parts.append((info.element_type, info.shape, info.trusted))
        elif value.size <= MEMO_VALUE_SIZE:
            content = (value.dtype.str, value.shape, value.tobytes())
            parts.append((info.element_type, info.shape, info.trusted, content))
        else:
            return None
    return tuple(parts)
