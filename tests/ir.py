"""The IR builder of the tests: IR text written the way OpenVINO's serializer writes it.

`layer`, `data`, `port` (`typed_port` by element type), `edge` and `net` write any model;
`parameter`, `avg_pool`, `const` (`typed_const` of any type), `adaptive_pool` and `result`
the common layers, and `pool_model`, `adaptive_model` and `cached_attention_model` (a stateful
LLM's attention with its KV cache, its output projected by int8 weights or not, and its `.bin`)
whole valid models. Dims are ints or written text ("-1"); None writes no `<dim>` (a dynamic
rank). Each builder returns `.xml` text; models with a Const also need their `.bin`
(`weights()` for `const`). Every model here
validates clean unless a test changes it. Hand-written XML is for what this cannot write:
malformed files, source positions and formatting.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from irpool.element_types import PRECISIONS as ELEMENT_TYPES

Shape = Sequence[int]
# Declared dims as written ("-1" or -1 where not static); None: no <dim> (a dynamic rank).
Dims = Sequence[int | str] | None
# A port's precision for each element type (u1 as U1, not BIN).
PRECISIONS = {t: p for p, t in ELEMENT_TYPES.items() if p != "BIN"}


def dims(shape: Dims, indent: str = "\t\t\t\t\t") -> str:
    return "".join(f"{indent}<dim>{d}</dim>\n" for d in shape or ())


def port(port_id: int, shape: Dims, precision: str | None = "FP32", names: str = "") -> str:
    """A port of these dims; `precision` None: a port without the attribute."""
    typed = f' precision="{precision}"' if precision is not None else ""
    named = f' names="{names}"' if names else ""
    return f'\t\t\t\t<port id="{port_id}"{typed}{named}>\n{dims(shape)}\t\t\t\t</port>\n'


def precision(element_type: str) -> str:
    """A port's precision for an element type ("dynamic" or an unknown name: UNSPECIFIED)."""
    return PRECISIONS.get(element_type, "UNSPECIFIED")


def typed_port(port_id: int, element_type: str, shape: Dims, names: str = "") -> str:
    return port(port_id, shape, precision(element_type), names)


def data(attributes: Iterable[tuple[str, str]]) -> str:
    """A `<data>` element with these attributes, in this order (values escaped)."""
    return "<data " + " ".join(f"{name}={quoteattr(value)}" for name, value in attributes) + " />"


def layer(
    layer_id: int,
    name: str,
    type_: str,
    version: str,
    data: str = "",
    inputs: Sequence[str] = (),
    outputs: Sequence[str] = (),
) -> str:
    """Any layer: `data` its `<data>` element (see `data`), `inputs` and `outputs` its ports."""
    body = f"\t\t\t{data}\n" if data else ""
    if inputs:
        body += f"\t\t\t<input>\n{''.join(inputs)}\t\t\t</input>\n"
    if outputs:
        body += f"\t\t\t<output>\n{''.join(outputs)}\t\t\t</output>\n"
    return (
        f'\t\t<layer id="{layer_id}" name="{name}" type="{type_}" version="{version}">\n'
        f"{body}\t\t</layer>\n"
    )


def typed_layer(
    layer_id: int,
    type_: str,
    inputs: Sequence[tuple[str, Shape]],
    out: tuple[str, Shape],
    data: str = "",
) -> str:
    """An opset1 layer named `l<id>`, its ports given as (element type, shape), the output
    last."""
    ports = [typed_port(i, t, s) for i, (t, s) in enumerate(inputs)]
    output = typed_port(len(inputs), *out)
    return layer(layer_id, f"l{layer_id}", type_, "opset1", data, ports, [output])


def parameter(layer_id: int, name: str, shape: Shape, element_type: str = "f32") -> str:
    shape_text = ",".join(map(str, shape))
    attributes = data([("shape", shape_text), ("element_type", element_type)])
    out = typed_port(0, element_type, shape, names=name)
    return layer(layer_id, name, "Parameter", "opset1", attributes, (), [out])


def avg_pool(
    layer_id: int,
    name: str,
    shape: Shape,
    out: Shape,
    kernel: int = 1,
    pad: int = 0,
    names: str = "",
) -> str:
    """AvgPool-1 with the same kernel, stride 1 and pads on every spatial axis; `names` its
    output tensor's names."""
    spatial = len(shape) - 2

    def repeat(value: int) -> str:
        return ", ".join([str(value)] * spatial)

    attributes = data(
        [
            ("kernel", repeat(kernel)),
            ("strides", repeat(1)),
            ("pads_begin", repeat(pad)),
            ("pads_end", repeat(pad)),
            ("exclude-pad", "false"),
            ("auto_pad", "explicit"),
            ("rounding_type", "floor"),
        ]
    )
    outputs = [port(1, out, names=names)]
    return layer(layer_id, name, "AvgPool", "opset1", attributes, [port(0, shape)], outputs)


def const(layer_id: int, name: str, values: Sequence[int], offset: int = 0) -> str:
    """An i64 vector Const reading `len(values) * 8` bytes at `offset`."""
    attributes = data(
        [
            ("element_type", "i64"),
            ("shape", str(len(values))),
            ("offset", str(offset)),
            ("size", str(8 * len(values))),
        ]
    )
    return layer(layer_id, name, "Const", "opset1", attributes, (), [port(0, [len(values)], "I64")])


def typed_const(
    layer_id: int, name: str, element_type: str, shape: Shape, offset: int, size: int
) -> str:
    """A Const of any element type and static shape, reading `size` bytes at `offset`."""
    attributes = data(
        [
            ("element_type", element_type),
            ("shape", ",".join(map(str, shape))),
            ("offset", str(offset)),
            ("size", str(size)),
        ]
    )
    out = typed_port(0, element_type, shape)
    return layer(layer_id, name, "Const", "opset1", attributes, (), [out])


def adaptive_pool(layer_id: int, name: str, shape: Shape, out: Shape) -> str:
    inputs = [port(0, shape), port(1, [len(out) - 2], "I64")]
    return layer(layer_id, name, "AdaptiveAvgPool", "opset8", "", inputs, [port(2, out)])


def result(layer_id: int, name: str, shape: Dims, precision: str = "FP32") -> str:
    return layer(layer_id, name, "Result", "opset1", "", [port(0, shape, precision)])


def edge(from_layer: int, from_port: int, to_layer: int, to_port: int) -> str:
    return (
        f'\t\t<edge from-layer="{from_layer}" from-port="{from_port}" '
        f'to-layer="{to_layer}" to-port="{to_port}" />\n'
    )


def net(layers: Sequence[str], edges: Sequence[str], name: str = "model", version: int = 11) -> str:
    return (
        f'<?xml version="1.0"?>\n<net name="{name}" version="{version}">\n'
        f"\t<layers>\n{''.join(layers)}\t</layers>\n"
        f"\t<edges>\n{''.join(edges)}\t</edges>\n</net>\n"
    )


def pool_model(shape: Shape = (1, 2, 4, 4), kernel: int = 1, pad: int = 0) -> str:
    """Parameter -> AvgPool -> Result, with the output shape the runtime infers."""
    out = [*shape[:2], *(d + 2 * pad - kernel + 1 for d in shape[2:])]
    return net(
        [
            parameter(0, "input", shape),
            avg_pool(1, "pool", shape, out, kernel, pad),
            result(2, "output", out),
        ],
        [edge(0, 0, 1, 0), edge(1, 1, 2, 0)],
    )


def adaptive_model(shape: Shape = (1, 2, 4, 4), out_size: Shape = (2, 2)) -> str:
    """Parameter, Const output_size -> AdaptiveAvgPool -> Result; needs `weights(out_size)`."""
    out = [*shape[:2], *out_size]
    return net(
        [
            parameter(0, "input", shape),
            const(1, "output_size", out_size),
            adaptive_pool(2, "pool", shape, out),
            result(3, "output", out),
        ],
        [edge(0, 0, 2, 0), edge(1, 0, 2, 1), edge(2, 2, 3, 0)],
    )


def flatten_model(target: Shape) -> tuple[str, bytes]:
    """x [1,2,4,4] -> AvgPool 1x1 -> Reshape (special_zero) to the Const `target` -> Result y,
    and its `.bin`: a model whose target may bake the batch (`(1, 32)`) or follow it."""
    shape = (1, 2, 4, 4)
    reshape = layer(
        3,
        "flatten",
        "Reshape",
        "opset1",
        data([("special_zero", "true")]),
        [port(0, shape), port(1, [len(target)], "I64")],
        [port(2, target)],
    )
    layers = [
        parameter(0, "x", shape),
        avg_pool(1, "pool", shape, shape),
        const(2, "target", target),
        reshape,
        result(4, "y", target),
    ]
    edges = [edge(0, 0, 1, 0), edge(1, 1, 3, 0), edge(2, 0, 3, 1), edge(3, 2, 4, 0)]
    return net(layers, edges), weights(target)


# The initializer's [[1, 2]] (f32) of `stateful_model`.
STATEFUL_WEIGHTS = struct.pack("<2f", 1, 2)


def stateful_model(
    read_value: str = "opset6",
    initializer: bool = True,
    variable_shape: str = "1,2",
    assign: str = "opset6",
) -> str:
    """x [1,2] f32; ReadValue "v" (an initializer [[1, 2]], needing `STATEFUL_WEIGHTS`, or
    none) + x -> Assign "v" and the Result of tensor "sum"; `variable_shape` "1,2" or "?,2"."""
    declared = [("variable_id", "v")]
    if read_value == "opset6":
        declared += [("variable_type", "f32"), ("variable_shape", variable_shape)]
    dims: list[int | str] = [int(d) if d != "?" else -1 for d in variable_shape.split(",")]
    variable = data([("variable_id", "v")])
    add = data([("auto_broadcast", "numpy")])
    layers = [
        parameter(0, "x", (1, 2)),
        typed_const(1, "init", "f32", (1, 2), 0, 8),
        layer(
            2, "cache", "ReadValue", read_value, data(declared),
            [port(0, [1, 2])] if initializer else [], [port(1, dims)],
        ),
        layer(
            3, "sum", "Add", "opset1", add, [port(0, dims), port(1, [1, 2])],
            [port(2, dims, names="sum")],
        ),
        layer(4, "store", "Assign", assign, variable, [port(0, dims)], [port(1, dims)]),
        result(5, "out", dims),
    ]  # fmt: skip
    edges = [edge(0, 0, 3, 1), edge(2, 1, 3, 0), edge(3, 2, 4, 0), edge(3, 2, 5, 0)]
    if initializer:
        edges.append(edge(1, 0, 2, 0))
    else:
        layers.pop(1)
    return net(layers, edges)


def weights(values: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(values)}q", *values)


def write(directory: Path, text: str | bytes, data: bytes | None = None) -> Path:
    """`model.xml` (and `model.bin` when `data` is given) in `directory`."""
    path = directory / "model.xml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    if data is not None:
        path.with_suffix(".bin").write_bytes(data)
    return path


def _ports(element_type: str, *shapes: Dims) -> list[str]:
    """Ports 0, 1, ... of `element_type`, one per shape."""
    return [typed_port(i, element_type, shape) for i, shape in enumerate(shapes)]


def _cache(base: int, name: str, step: int, dims: Dims) -> tuple[list[str], list[str]]:
    """Layers `base`... of the variable `name` as optimum-intel writes a KV cache: a ReadValue
    initialized empty from the step's shape (`step`: its layer), Gather by beam_idx (layer 3,
    axis Const 4), Concat with the step (the last, `base + 5`), Assign; Consts 5 (1,1,0,1)
    and 6 (0.0) shared."""
    f32 = _ports("f32", dims, dims)
    shapes = _ports("i64", (4,), (4,))
    declared = ",".join("?" if d == -1 else str(d) for d in dims or ())
    variable = data([("variable_id", name), ("variable_type", "f32"), ("variable_shape", declared)])
    gather = [*_ports("f32", dims)[:1], typed_port(1, "i32", (-1,)), typed_port(2, "i64", ())]
    empty = [typed_port(0, "f32", ()), shapes[1]]
    layers = [
        layer(base, f"{name}_shape", "ShapeOf", "opset3", data([("output_type", "i64")]),
              f32[:1], [typed_port(1, "i64", (4,))]),
        layer(base + 1, f"{name}_zero_length", "Multiply", "opset1",
              data([("auto_broadcast", "numpy")]), shapes, [typed_port(2, "i64", (4,))]),
        layer(base + 2, f"{name}_empty", "Broadcast", "opset3", data([("mode", "numpy")]),
              empty, [typed_port(2, "f32", dims)]),
        layer(base + 3, f"{name}_past", "ReadValue", "opset6", variable, f32[:1], f32[1:]),
        layer(base + 4, f"{name}_beams", "Gather", "opset8", data([("batch_dims", "0")]),
              gather, [typed_port(3, "f32", dims)]),
        layer(base + 5, f"{name}_joined", "Concat", "opset1", data([("axis", "2")]),
              f32, [typed_port(2, "f32", dims)]),
        layer(base + 6, f"{name}_store", "Assign", "opset6", data([("variable_id", name)]),
              f32[:1], f32[1:]),
    ]  # fmt: skip
    links = [(step, 0, base, 0), (base, 1, base + 1, 0), (5, 0, base + 1, 1), (6, 0, base + 2, 0),
             (base + 1, 2, base + 2, 1), (base + 2, 2, base + 3, 0), (base + 3, 1, base + 4, 0),
             (3, 0, base + 4, 1), (4, 0, base + 4, 2), (base + 4, 3, base + 5, 0),
             (step, 0, base + 5, 1), (base + 5, 2, base + 6, 0)]  # fmt: skip
    return layers, [edge(*link) for link in links]


def _grouped(
    base: int, source: int, kv_heads: int, group: int, depth: int
) -> tuple[list[str], list[str]]:
    """Unsqueeze (axis: Const 7) -> Broadcast (Const 8) -> Reshape (Const 9) of layer
    `source`'s output 2, as optimum-intel widens K or V to every query head."""
    wide = (-1, kv_heads, 1, -1, depth)
    grouped = (-1, kv_heads, group, -1, depth)
    layers = [
        layer(base, f"widen{base}", "Unsqueeze", "opset1", "",
              [typed_port(0, "f32", (-1, kv_heads, -1, depth)), typed_port(1, "i64", ())],
              [typed_port(2, "f32", wide)]),
        layer(base + 1, f"repeat{base}", "Broadcast", "opset3", data([("mode", "bidirectional")]),
              [typed_port(0, "f32", wide), typed_port(1, "i64", (5,))],
              [typed_port(2, "f32", grouped)]),
        layer(base + 2, f"heads{base}", "Reshape", "opset1", data([("special_zero", "true")]),
              [typed_port(0, "f32", grouped), typed_port(1, "i64", (4,))],
              [typed_port(2, "f32", (-1, kv_heads * group, -1, depth))]),
    ]  # fmt: skip
    links = [(source, 2, base, 0), (7, 0, base, 1), (base, 2, base + 1, 0), (8, 0, base + 1, 1),
             (base + 1, 2, base + 2, 0), (9, 0, base + 2, 1)]  # fmt: skip
    return layers, [edge(*link) for link in links]


def cached_attention_model(
    heads: int,
    kv_heads: int,
    depth: int,
    mask: str | None = "f32",
    scale: float | None = None,
    causal: bool = False,
    cache_type: str | None = None,
    projection: int = 0,
) -> tuple[str, bytes]:
    """A layer of a stateful LLM as optimum-intel writes it, which the CPU runs in its
    attention node: q [?,heads,?,depth]; k and v [?,kv_heads,?,depth] each join their cache
    (`_cache`) and reach ScaledDotProductAttention (through `_grouped` when kv_heads <
    heads), with a `mask` [?,1,?,?] of that type (None: no mask input) and the Const
    `scale` (None: none); output tensor "out"; `cache_type` the rt_info KV_CACHE_PRECISION
    (None: none, so u8); `projection` rows: the output projected by int8 weights
    (`_projected`), the Result's. Returns the `.xml` and its `.bin`."""
    query, cached = (-1, heads, -1, depth), (-1, kv_heads, -1, depth)
    group = heads // kv_heads
    constants = struct.pack(
        "<q4qfq5q4q", 0, 1, 1, 0, 1, 0.0, 2, 1, 1, group, 1, 1, 0, heads, -1, depth
    )
    layers = [
        parameter(0, "q", query), parameter(1, "k", cached), parameter(2, "v", cached),
        parameter(3, "beam_idx", (-1,), "i32"), typed_const(4, "axis", "i64", (), 0, 8),
        typed_const(5, "keep", "i64", (4,), 8, 32), typed_const(6, "zero", "f32", (), 40, 4),
    ]  # fmt: skip
    edges = [edge(0, 0, 40, 0)]
    for position, (base, name) in enumerate(((10, "key"), (20, "value")), start=1):
        cache_layers, cache_edges = _cache(base, name, position, cached)
        layers += cache_layers
        edges += cache_edges
        if group == 1:
            edges.append(edge(base + 5, 2, 40, position))
            continue
        grouped_layers, grouped_edges = _grouped(base + 40, base + 5, kv_heads, group, depth)
        layers += grouped_layers
        edges += [*grouped_edges, edge(base + 42, 2, 40, position)]
    if group > 1:
        layers += [typed_const(7, "unsqueezed", "i64", (), 44, 8),
                   typed_const(8, "group", "i64", (5,), 52, 40),
                   typed_const(9, "heads", "i64", (4,), 92, 32)]  # fmt: skip
    constants = _attention(layers, edges, constants, query, query, (-1, 1, -1, -1), mask, scale,
                           causal)  # fmt: skip
    if projection:
        port = 3 + (mask is not None) + (scale is not None)  # the attention's output
        constants = _projected(layers, edges, constants, (heads, depth, port), projection)
    text = net(layers, edges)
    if cache_type is not None:
        option = f'\t\t\t<KV_CACHE_PRECISION value="{cache_type}" />\n'
        info = f"\t<rt_info>\n\t\t<runtime_options>\n{option}\t\t</runtime_options>\n\t</rt_info>\n"
        text = text.replace("</net>", info + "</net>")
    return text, constants


def _projected(
    layers: list[str],
    edges: list[str],
    constants: bytes,
    attention: tuple[int, int, int],
    rows: int,
) -> bytes:
    """Replaces the Result of `_attention`'s output (`attention`: its heads, depth and output
    port) with Transpose (layer 42) -> Reshape (43)
    -> MatMul (44) by u8 weights [rows, heads * depth] with zero points and one scale a row
    (random, seeded), decompressed as NNCF writes them (Const 45 -> Convert f16 -> Subtract
    -> Multiply -> Convert f32), and its Result (41; tensor "projected"): an LLM's o_proj,
    whose activations the CPU quantizes to int8. Returns the constants."""
    heads, depth, port = attention
    width = heads * depth
    rng = np.random.default_rng(width + rows)
    blobs = [
        np.array([0, 2, 1, 3], np.int64).tobytes(),
        np.array([0, 0, width], np.int64).tobytes(),
        rng.integers(0, 256, (rows, width), np.uint8).tobytes(),
        rng.integers(120, 136, (rows, 1), np.uint8).tobytes(),
        (rng.random((rows, 1)) * 0.01).astype(np.float16).tobytes(),
    ]
    offsets = [len(constants) + sum(map(len, blobs[:i])) for i in range(len(blobs))]
    merged, weights, one = (-1, -1, heads, depth), (rows, width), (rows, 1)
    f16, f32 = (data([("destination_type", t)]) for t in ("f16", "f32"))
    transposes = data([("transpose_a", "false"), ("transpose_b", "true")])
    layers.pop()  # _attention's Result
    edges.pop()
    layers += [
        typed_const(45, "perm", "i64", (4,), offsets[0], 32),
        typed_const(46, "pattern", "i64", (3,), offsets[1], 24),
        typed_const(47, "codes", "u8", weights, offsets[2], rows * width),
        typed_const(48, "zero_point", "u8", one, offsets[3], rows),
        typed_const(49, "scale", "f16", one, offsets[4], rows * 2),
        typed_layer(42, "Transpose", [("f32", (-1, heads, -1, depth)), ("i64", (4,))],
                    ("f32", merged)),
        layer(43, "merge", "Reshape", "opset1", data([("special_zero", "true")]),
              [typed_port(0, "f32", merged), typed_port(1, "i64", (3,))],
              [typed_port(2, "f32", (-1, -1, width))]),
        typed_layer(50, "Convert", [("u8", weights)], ("f16", weights), f16),
        typed_layer(51, "Convert", [("u8", one)], ("f16", one), f16),
        typed_layer(52, "Subtract", [("f16", weights), ("f16", one)], ("f16", weights)),
        typed_layer(53, "Multiply", [("f16", weights), ("f16", one)], ("f16", weights)),
        typed_layer(54, "Convert", [("f16", weights)], ("f32", weights), f32),
        layer(44, "o_proj", "MatMul", "opset1", transposes,
              [typed_port(0, "f32", (-1, -1, width)), typed_port(1, "f32", weights)],
              [typed_port(2, "f32", (-1, -1, rows), names="projected")]),
        result(41, "output", (-1, -1, rows)),
    ]  # fmt: skip
    links = [(40, port, 42, 0), (45, 0, 42, 1), (42, 2, 43, 0), (46, 0, 43, 1), (47, 0, 50, 0),
             (48, 0, 51, 0), (50, 1, 52, 0), (51, 1, 52, 1), (52, 2, 53, 0), (49, 0, 53, 1),
             (53, 2, 54, 0), (43, 2, 44, 0), (54, 1, 44, 1), (44, 2, 41, 0)]  # fmt: skip
    edges += [edge(*link) for link in links]
    return constants + b"".join(blobs)


def concat_attention_model(
    heads: int,
    kv_heads: int,
    depth: int,
    mask: str | None = "f32",
    scale: float | None = None,
    causal: bool = False,
    static: tuple[int, int, int] | None = None,
) -> tuple[str, bytes]:
    """A layer of a non-stateful LLM (optimum-intel's --disable-stateful), which the CPU runs
    as its fused attention snippet: q [?,heads,?,depth]; k and v [?,kv_heads,?,depth] each
    joined after past_key and past_value (Concat, axis 2; outputs "present_key",
    "present_value") and reaching ScaledDotProductAttention through `_grouped` when kv_heads
    < heads, with a `mask` [?,1,?,?] of that type (None: no mask input) and the Const `scale`
    (None: none); output tensor "out". `static`: (batch, past, tokens) makes every shape
    static. Returns the `.xml` and its `.bin`."""
    batch, past, tokens = static or (-1, -1, -1)
    total = -1 if static is None else past + tokens
    query, step = (batch, heads, tokens, depth), (batch, kv_heads, tokens, depth)
    before, joined = (batch, kv_heads, past, depth), (batch, kv_heads, total, depth)
    group = heads // kv_heads
    constants = struct.pack(
        "<q4qfq5q4q", 0, 1, 1, 0, 1, 0.0, 2, 1, 1, group, 1, 1, 0, heads, -1, depth
    )
    layers = [parameter(0, "q", query), parameter(1, "k", step), parameter(2, "v", step),
              parameter(3, "past_key", before), parameter(4, "past_value", before)]  # fmt: skip
    edges = [edge(0, 0, 40, 0)]
    for position, (base, name) in enumerate(((10, "key"), (20, "value")), start=1):
        layers += [
            layer(base, f"present_{name}", "Concat", "opset1", data([("axis", "2")]),
                  [typed_port(0, "f32", before), typed_port(1, "f32", step)],
                  [typed_port(2, "f32", joined, names=f"present_{name}")]),
            result(base + 1, f"present_{name}_output", joined),
        ]  # fmt: skip
        edges += [edge(2 + position, 0, base, 0), edge(position, 0, base, 1),
                  edge(base, 2, base + 1, 0)]  # fmt: skip
        if group == 1:
            edges.append(edge(base, 2, 40, position))
            continue
        grouped_layers, grouped_edges = _grouped(base + 40, base, kv_heads, group, depth)
        layers += grouped_layers
        edges += [*grouped_edges, edge(base + 42, 2, 40, position)]
    if group > 1:
        layers += [typed_const(7, "unsqueezed", "i64", (), 44, 8),
                   typed_const(8, "group", "i64", (5,), 52, 40),
                   typed_const(9, "heads", "i64", (4,), 92, 32)]  # fmt: skip
    keys, mask_shape = (batch, heads, total, depth), (batch, 1, tokens, total)
    constants = _attention(layers, edges, constants, query, keys, mask_shape, mask, scale, causal)
    return net(layers, edges), constants


def _attention(
    layers: list[str],
    edges: list[str],
    constants: bytes,
    query: Shape,
    keys: Shape,
    mask_shape: Shape,
    mask: str | None,
    scale: float | None,
    causal: bool,
) -> bytes:
    """Adds ScaledDotProductAttention (layer 40; query from layer 0, key and value linked by
    the caller) with a Parameter `mask` (36: None, none) and the Const `scale` (37, appended
    to `constants`: None, none), and its Result (41; tensor "out"). Returns the constants."""
    inputs = _ports("f32", query, keys, keys)
    if mask is not None:
        layers.append(parameter(36, "mask", mask_shape, mask))
        inputs.append(typed_port(3, mask, mask_shape))
        edges.append(edge(36, 0, 40, 3))
    if scale is not None:
        constants += struct.pack("<f", scale)
        layers.append(typed_const(37, "scale", "f32", (), len(constants) - 4, 4))
        inputs.append(typed_port(len(inputs), "f32", ()))
        edges.append(edge(37, 0, 40, len(inputs) - 1))
    output = typed_port(len(inputs), "f32", query, names="out")
    attributes = data([("causal", "true" if causal else "false")])
    layers += [
        layer(40, "attention", "ScaledDotProductAttention", "opset13", attributes, inputs,
              [output]),
        result(41, "output", query),
    ]  # fmt: skip
    edges.append(edge(40, len(inputs), 41, 0))
    return constants
