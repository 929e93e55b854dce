"""What checking says of a layer whose op irpool does not check: a type or version OpenVINO's
reader refuses (IR216, IR201), an extension's op, which OpenVINO reads only with that
extension loaded (IR229), or a real op irpool does not model (IR202). The last two once per
type, naming how many layers have it."""

from __future__ import annotations

from collections import Counter

from irpool.diagnostics import Collector
from irpool.graph.graph import Graph, Layer
from irpool.ops.opsets import known_versions
from irpool.ops.registry import Lookup
from irpool.parse.xml_reader import Document
from irpool.rules import EXTENSION_OP, UNCHECKED_OP, UNKNOWN_OP_TYPE, UNSUPPORTED_OPSET, Code


class TypeReports:
    def __init__(self, doc: Document, graph: Graph, sink: Collector) -> None:
        self.doc = doc
        self.sink = sink
        self.unchecked_types: set[str] = set()  # reported, in lower case
        self._counts = Counter(layer.type.lower() for layer in graph.layers.values())

    def report(self, layer: Layer, found: Lookup) -> None:
        """What a layer without an op class gets, as `lookup` found it."""
        source = self.doc.source
        if found.extension is not None:
            tokenizers = found.extension == "openvino_tokenizers"
            hint = " (`import openvino_tokenizers` before read_model)" if tokenizers else ""
            self._once(
                layer,
                EXTENSION_OP,
                f": an op of {found.extension}, not of OpenVINO, which reads it only with that "
                f"extension loaded{hint}; not checked by irpool, their declared outputs are "
                "trusted",
            )
        elif found.refused is not None:
            known = layer.version in known_versions()
            where = source.attribute(layer.element, "type" if known else "version")
            self.sink.add(UNKNOWN_OP_TYPE, found.refused, where, layer.ref)
        elif found.canonical_type is not None:
            self.sink.add(
                UNSUPPORTED_OPSET,
                f"{found.canonical_type}: {found.error}",
                source.attribute(layer.element, "version"),
                layer.ref,
            )
        else:
            message = " not checked by irpool; their declared outputs are trusted"
            self._once(layer, UNCHECKED_OP, message)

    def _once(self, layer: Layer, code: Code, what: str) -> None:
        """`code` on the first layer of the type, saying how many there are, then `what`."""
        kind = layer.type.lower()
        if kind in self.unchecked_types:
            return
        self.unchecked_types.add(kind)
        self.sink.add(
            code,
            f"{self._counts[kind]} layer(s) of type {layer.type} ({layer.version}){what}",
            self.doc.source.attribute(layer.element, "type"),
            layer.ref,
        )
