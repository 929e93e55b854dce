"""Stage 2: the graph model built from a parsed document, and the weights file.

`build.build_graph` is the stage: `layers` reads the `<layer>` elements (with `bodies`, what
is inside one, each distinct text read once; `beside` serializes `<layers>` and runs the
schema check on a second thread), `edges` reads the `<edge>` elements and wires them to
ports, `topology` orders the layers and finds what the sinks reach, and `graph_rules`
reports the graph's rules (IR105-106, IR501-507).
`graph` holds Graph, Layer and Port; `weights` the .bin file. Dims and shapes, which every
stage uses, are irpool.shape.
"""
