"""The graph reader's fast paths, each behind a switch. Every one must read exactly what the
plain path reads; tests/graph/test_reader_paths.py turns them all off and compares."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class FastPaths:
    # Serialize <layers> and run the schema check on a second thread (lxml releases the GIL).
    second_thread: bool = True
    # Cut every layer's body from one serialization of <layers>, not one per layer.
    cut_bodies: bool = True
    # Read the layers' id, name, type and version with one regular expression over the cut.
    regex_heads: bool = True
    # Find a <layer> element by walking in C from the nearer end, not from a Python list.
    walk_children: bool = True
    # Read each distinct body text once and share it among the layers that write it.
    shared_bodies: bool = True
    # Also share a body among layers whose texts differ only in their ports' tensor names.
    bodies_without_names: bool = True
    # Read each distinct port text once.
    port_memo: bool = True
    # One tuple for ports (and <data> attributes) that read alike: cheap memo keys later.
    shared_tuples: bool = True
    # Read the edges' attributes as four XPath columns, not edge by edge.
    edge_columns: bool = True
    # Read each distinct number text (layer ids, port ids) once.
    number_memo: bool = True

    @classmethod
    def none(cls) -> FastPaths:
        """Every path plain."""
        return cls(**dict.fromkeys((field.name for field in fields(cls)), False))


# What build_graph uses; the equivalence test replaces it.
ENABLED = FastPaths()
