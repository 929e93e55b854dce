"""Stage 1: reading IR XML (hardened), values as OpenVINO reads them, and source positions.

`xml_reader` reads the bytes into a document, `schema` checks its structure against the
XSD, `values` reads attribute and dim text as the runtime does, `ports` reads a `<port>`
from its text, and `source_map` turns elements and attributes into line and column spans.
"""
