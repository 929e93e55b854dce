"""Stage 3b: per-layer op checks and shape inference in topological order, then every declared
`<dim>` and precision compared with what the runtime will actually produce."""

from __future__ import annotations

from dataclasses import dataclass, field

from irpool.check.attributes import read_attributes
from irpool.diagnostics import Collector
from irpool.graph.model import Graph, Layer, Port
from irpool.graph.shape import Dim, Shape
from irpool.graph.weights import Weights
from irpool.ops.base import LayerContext, NotInferable, Op, ShapeError, TensorInfo
from irpool.ops.registry import lookup
from irpool.parse.values import precision_name
from irpool.parse.xml_reader import Document


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


class _Checker:
    def __init__(self, doc: Document, graph: Graph, weights: Weights, sink: Collector) -> None:
        self.doc = doc
        self.graph = graph
        self.weights = weights
        self.sink = sink
        self.result = Inference()
        self.unchecked_types: set[str] = set()
        self.weights_reported = False

    def run(self) -> Inference:
        for layer_id in self.graph.order:
            self._check_layer(self.graph.layers[layer_id])
        return self.result

    def _check_layer(self, layer: Layer) -> None:
        inputs = [self._input(layer, index) for index in range(len(layer.inputs))]
        found = lookup(layer.type, layer.version)
        if found.op is None:
            self._report_lookup(layer, found.canonical_type, found.error)
            self._trust(layer)
            return
        op_class = found.op
        if found.canonical_type is not None and layer.type != found.canonical_type:
            self.sink.add(
                "IR211",
                f'type "{layer.type}" is written "{found.canonical_type}"',
                self.doc.source.attribute(layer.element, "type"),
                layer.ref,
            )
        attributes = read_attributes(op_class, layer, self.doc.source, self.sink)
        op = op_class(attributes.values)
        self.result.ops[layer.id] = op
        ports_ok = self._check_port_counts(layer, op)
        known_inputs = [info for info in inputs if info is not None]
        if not (attributes.usable and ports_ok and len(known_inputs) == len(inputs)):
            self._trust(layer)
            return
        ctx = LayerContext(
            attributes.present,
            lambda code, message, attribute: self._report(layer, code, message, attribute),
            self.weights.read,
        )
        try:
            outputs = op.infer(known_inputs, ctx)
        except ShapeError as error:
            self._report(layer, error.code, f"{op.label()}: {error}", error.attribute)
            self._trust(layer)
            return
        except NotInferable:
            self._trust(layer)
            return
        self.result.outputs[layer.id] = outputs
        for port, info in zip(layer.outputs, outputs, strict=False):
            self._compare(layer, port, info, "output")

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
            count = sum(
                1
                for other in self.graph.layers.values()
                if other.type.lower() == layer.type.lower()
            )
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

    def _compare(self, layer: Layer, port: Port, info: TensorInfo, side: str) -> None:
        """Report every declared dim (and the precision) that differs from the inferred tensor."""
        declared = port.declared
        where = f"{side} port {port.id}"
        if declared is not None:
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
