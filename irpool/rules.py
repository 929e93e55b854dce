"""The rule catalog: the one place that names every rule irpool can report.

`runtime` says what OpenVINO 2026.4 itself does with such a file: it `rejects` it (read or
compile fails), `reinterprets` it (loads, but runs something other than what is written),
`ignores` it (loads and runs as written; the text is noise or an unchecked claim), or
`crashes` (the CPU plugin aborts compiling it). Errors whose runtime is not `rejects` are
irpool's strictness rules: the file loads, but does not say exactly what runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}

Runtime = Literal["rejects", "reinterprets", "ignores", "crashes"]


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: Severity
    runtime: Runtime
    summary: str

    @property
    def is_strictness(self) -> bool:
        """An error that OpenVINO itself would not raise at read time."""
        return self.severity is Severity.ERROR and self.runtime != "rejects"


E, W, N = Severity.ERROR, Severity.WARNING, Severity.INFO

_RULES = (
    # IR1xx: the file, its XML and the IR skeleton
    Rule("IR100", "file-unreadable", E, "rejects", "The file cannot be opened or read."),
    Rule("IR101", "xml-syntax", E, "rejects", "The file is not well-formed XML."),
    Rule(
        "IR102",
        "unsafe-xml",
        E,
        "ignores",
        "A DOCTYPE, entity declaration or external reference, which irpool never resolves.",
    ),
    Rule("IR103", "root-not-net", E, "rejects", "The root element is not <net>."),
    Rule(
        "IR104",
        "unsupported-ir-version",
        E,
        "rejects",
        "The <net> version is missing or not 10 or 11.",
    ),
    Rule(
        "IR105",
        "ir-structure",
        E,
        "rejects",
        "An element or attribute breaks the IR structure (schemas/ir.xsd).",
    ),
    Rule(
        "IR106",
        "duplicate-layer-id",
        E,
        "reinterprets",
        "Two layers share an id; OpenVINO keeps only the last one.",
    ),
    Rule(
        "IR107",
        "duplicate-port-id",
        E,
        "rejects",
        "Two ports of one layer share an id; edges can reach only the first.",
    ),
    Rule(
        "IR108", "no-layers", E, "ignores", "The model has no layers, so nothing to check or run."
    ),
    Rule("IR109", "missing-precision", E, "rejects", "An output port has no precision."),
    Rule("IR110", "invalid-precision", E, "rejects", "A port precision names no element type."),
    Rule(
        "IR111",
        "invalid-dim",
        E,
        "rejects",
        "A <dim> is not an integer >= -1, so OpenVINO refuses the file.",
    ),
    Rule(
        "IR112",
        "reinterpreted-dim",
        E,
        "reinterprets",
        "A <dim> such as 1.5 or 1..10 that OpenVINO reads as a different number.",
    ),
    Rule(
        "IR113",
        "non-canonical-dim",
        W,
        "ignores",
        "A <dim> with surrounding whitespace or a leading + or zero.",
    ),
    # IR2xx: ops and attributes
    Rule(
        "IR201",
        "unsupported-opset",
        E,
        "rejects",
        "The layer's version names no opset that has this op.",
    ),
    Rule(
        "IR202",
        "unchecked-op",
        W,
        "ignores",
        "An op type irpool does not model; its declared outputs are trusted.",
    ),
    Rule(
        "IR203",
        "missing-attribute",
        E,
        "reinterprets",
        "An attribute the specification requires is missing; a default silently applies.",
    ),
    Rule(
        "IR204",
        "invalid-attribute-value",
        E,
        "rejects",
        "An attribute value OpenVINO cannot parse or refuses (bad list, unknown enum, an enum "
        "value from a later op version, bad type).",
    ),
    Rule(
        "IR205",
        "reinterpreted-attribute-value",
        E,
        "reinterprets",
        "An attribute value OpenVINO reads as something else (3x as 3, -1 wrapped, yes ignored).",
    ),
    Rule(
        "IR206",
        "attribute-out-of-range",
        E,
        "rejects",
        "An attribute value outside its allowed range (zero strides or dilations).",
    ),
    Rule(
        "IR207",
        "attribute-length-mismatch",
        E,
        "rejects",
        "List attributes whose lengths disagree with each other or with the input rank.",
    ),
    Rule(
        "IR208",
        "attribute-version-mismatch",
        E,
        "reinterprets",
        "An attribute or value that belongs to another version of the op.",
    ),
    Rule(
        "IR209",
        "misspelled-attribute",
        E,
        "reinterprets",
        "A near miss of a real attribute name; OpenVINO ignores it and uses the default.",
    ),
    Rule("IR210", "unknown-attribute", W, "ignores", "An attribute the op does not read."),
    Rule(
        "IR211",
        "non-canonical-spelling",
        W,
        "ignores",
        "A type name, enum value or list in a spelling OpenVINO accepts but never writes.",
    ),
    Rule(
        "IR212",
        "ignored-attribute",
        N,
        "ignores",
        "An attribute the specification shows but the runtime ignores.",
    ),
    Rule(
        "IR213",
        "overwritten-pads",
        N,
        "ignores",
        "Declared pads under same_*/valid that the runtime replaces with its own.",
    ),
    Rule(
        "IR214",
        "compile-crash",
        E,
        "crashes",
        "A configuration that OpenVINO reads but its CPU plugin cannot compile.",
    ),
    Rule(
        "IR215",
        "missing-mandatory-attribute",
        E,
        "rejects",
        "An attribute (or <data> element) the runtime cannot do without is missing.",
    ),
    # IR3xx: shapes and types
    Rule(
        "IR301",
        "declared-dim-mismatch",
        E,
        "ignores",
        "A declared <dim> differs from the inferred one; OpenVINO silently uses the inferred.",
    ),
    Rule(
        "IR302",
        "declared-rank-mismatch",
        E,
        "ignores",
        "A port declares a different number of dims than the inferred rank.",
    ),
    Rule(
        "IR303",
        "shape-inference-failed",
        E,
        "rejects",
        "The op's shape inference fails on its inputs and attributes.",
    ),
    Rule(
        "IR304",
        "invalid-output-size",
        E,
        "reinterprets",
        "AdaptiveAvgPool output_size is not an i32/i64 1-D tensor of rank-2 values >= 1.",
    ),
    Rule(
        "IR305",
        "declared-precision-mismatch",
        E,
        "ignores",
        "A port precision differs from the element type that actually flows.",
    ),
    # IR4xx: weights
    Rule(
        "IR401",
        "weights-unavailable",
        E,
        "rejects",
        "Const layers need a .bin file that is missing or not a regular file.",
    ),
    Rule(
        "IR402",
        "const-out-of-bounds",
        E,
        "rejects",
        "A Const's offset and size reach past the end of the .bin.",
    ),
    Rule(
        "IR403",
        "const-size-too-small",
        E,
        "rejects",
        "A Const's size is smaller than its shape and element type need.",
    ),
    Rule(
        "IR404",
        "const-size-too-large",
        W,
        "ignores",
        "A Const's size is larger than its shape needs; the extra bytes are ignored.",
    ),
    # IR5xx: the graph
    Rule(
        "IR501", "unknown-edge-layer", E, "rejects", "An edge names a layer id that does not exist."
    ),
    Rule(
        "IR502",
        "unknown-edge-port",
        E,
        "rejects",
        "An edge names a port that is not an output (from) or input (to) port of its layer.",
    ),
    Rule(
        "IR503",
        "input-edge-count",
        E,
        "rejects",
        "An input port has no incoming edge or more than one.",
    ),
    Rule("IR504", "cycle", E, "rejects", "The edges form a cycle."),
    Rule(
        "IR505",
        "unreachable-layer",
        W,
        "ignores",
        "A layer no Result depends on; OpenVINO silently drops it.",
    ),
    Rule(
        "IR506",
        "wrong-port-count",
        E,
        "rejects",
        "A layer has a different number of input or output ports than its op.",
    ),
    Rule("IR507", "no-result", W, "ignores", "The model has no Result, so it has no outputs."),
)

RULES: dict[str, Rule] = {rule.code: rule for rule in _RULES}
RULES_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in _RULES}
