"""A `<port>` read from its text alone (side, id, precision, dims), as OpenVINO reads it."""

from __future__ import annotations

from dataclasses import dataclass

from irpool.parse.values import read_dim, read_precision, read_unsigned, trailing_blank
from irpool.rules import (
    INVALID_DIM,
    INVALID_PRECISION,
    IR_STRUCTURE,
    MISSING_PRECISION,
    NON_CANONICAL_DIM,
    REINTERPRETED_DIM,
    Code,
)

# A port as written: its side, id and precision attributes, and the text of each <dim>.
PortText = tuple[str, str, str | None, tuple[str, ...]]
# Where a port finding points: an attribute of the port, one of its dims (by index), or,
# with None, the port element.
Where = str | int | None


@dataclass(frozen=True, slots=True)
class PortReading:
    """A port as the runtime reads it, from its text alone, with every finding."""

    id: int | None  # None: unreadable (the schema check reports it)
    precision: str | None  # the element type the precision names, if it names one
    declared: tuple[int, ...] | None  # dims as the runtime reads them; None if one cannot be
    findings: tuple[tuple[Code, str, Where], ...]  # rule code, message, where


_DIM_CODES = {
    "rejected": INVALID_DIM,
    "reinterpreted": REINTERPRETED_DIM,
    "noncanonical": NON_CANONICAL_DIM,
}


def read_port(
    side: str, id_text: str, precision_text: str | None, dim_texts: tuple[str, ...]
) -> PortReading:
    """A port read from its text alone, with every finding."""
    findings: list[tuple[Code, str, Where]] = []
    precision = None
    if precision_text is None:
        if side == "output":
            findings.append(
                (
                    MISSING_PRECISION,
                    f"output port {id_text} has no precision; OpenVINO requires one",
                    None,
                )
            )
    else:
        reading = read_precision(precision_text)
        precision = reading.value
        # The runtime parses output precisions only; a bad one on an input port is ignored.
        if reading.finding is not None and side == "output":
            message = f"output port {id_text} precision: {reading.finding.message}"
            findings.append((INVALID_PRECISION, message, "precision"))
    values: list[int] = []
    for index, text in enumerate(dim_texts):
        dim = read_dim(text)
        if dim.finding is not None:
            message = f"port {id_text} dim {index}: {dim.finding.message}"
            findings.append((_DIM_CODES[dim.finding.kind], message, index))
        if dim.value is not None:
            values.append(dim.value)
    declared = tuple(values) if len(values) == len(dim_texts) else None
    blank = trailing_blank(id_text)
    if blank is not None:  # one the schema check lets through
        findings.append((IR_STRUCTURE, f"<port> attribute id: {blank}", "id"))
    return PortReading(read_unsigned(id_text), precision, declared, tuple(findings))
