"""`irpool explain --dot`: the graph in Graphviz DOT, so a person can look at the model.

One node per layer (id, name, op), coloured by the worst severity of its findings; one edge
per connection, labelled with the shape irpool inferred for it (or the declared one, where
irpool does not model the producer). Constants may be folded into the nodes they feed (their
shapes on a line of the label). Edge labels are `xlabel`s, placed after the layout: a `label`
makes Graphviz rank each label as a node, and network simplex bounded (`nslimit`) keeps a
500-layer model in seconds; densenet121's long Concat edges took minutes without.

Every name is quoted: a quote, a backslash or a line break in a layer name cannot end a
string or become a Graphviz escape such as `\\N`, and non-ASCII text is written as UTF-8,
DOT's default charset."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from irpool.rules import Severity

# Fill and border per worst severity; layers without findings stay white.
COLOURS = {
    Severity.ERROR: ("#ffd6d6", "#c00000"),
    Severity.WARNING: ("#fff1c2", "#b36b00"),
    Severity.INFO: ("#dde9ff", "#2457a6"),
}


@dataclass(frozen=True, slots=True)
class Node:
    id: int
    name: str
    op: str
    findings: Sequence[Severity]  # the severity of each finding on the layer
    constants: str = ""  # the shapes of the folded constants it takes


def _worst(findings: Sequence[Severity]) -> Severity | None:
    return max(findings, key=lambda severity: severity.rank, default=None)


def _counts(findings: Sequence[Severity]) -> str:
    counted = [(s, sum(f is s for f in findings)) for s in Severity]
    return ", ".join(f"{n} {s.value}{'s' if n != 1 else ''}" for s, n in counted if n)


@dataclass(frozen=True, slots=True)
class Edge:
    source: int
    target: int
    shape: str


def quote(text: str) -> str:
    """A DOT double-quoted string whose label shows exactly `text` (line breaks as breaks)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return f'"{escaped}"'


def _node(node: Node) -> str:
    lines = [
        f"{node.id} {node.name}",
        node.op,
        *[f"constants {node.constants}"] * bool(node.constants),
    ]
    attributes = [f"label={quote(chr(10).join(lines))}"]
    worst = _worst(node.findings)
    if worst is not None:
        fill, border = COLOURS[worst]
        attributes += ['style="filled"', f'fillcolor="{fill}"', f'color="{border}"']
        attributes.append(f"tooltip={quote(_counts(node.findings))}")
    return f"  n{node.id} [{', '.join(attributes)}];"


def render(title: str, nodes: Sequence[Node], edges: Sequence[Edge]) -> str:
    lines = [
        f"digraph {quote(title)} {{",
        "  rankdir=TB;",
        "  nslimit=2;",
        '  node [shape=box, fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
        *(_node(node) for node in nodes),
        *(f"  n{e.source} -> n{e.target} [xlabel={quote(e.shape)}];" for e in edges),
        "}",
    ]
    return "\n".join(lines) + "\n"
