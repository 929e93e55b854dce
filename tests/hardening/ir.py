"""Small valid IR written the way OpenVINO's serializer writes it, to be made hostile by tests.

Each builder returns the `.xml` text; models with a Const also need `weights()` as their
`.bin`. Every model here validates clean unless a test changes it.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

Shape = Sequence[int]


def dims(shape: Shape, indent: str = "\t\t\t\t\t") -> str:
    return "".join(f"{indent}<dim>{d}</dim>\n" for d in shape)


def port(port_id: int, shape: Shape, precision: str = "FP32", names: str = "") -> str:
    named = f' names="{names}"' if names else ""
    return (
        f'\t\t\t\t<port id="{port_id}" precision="{precision}"{named}>\n'
        f"{dims(shape)}\t\t\t\t</port>\n"
    )


def parameter(layer_id: int, name: str, shape: Shape, element_type: str = "f32") -> str:
    return (
        f'\t\t<layer id="{layer_id}" name="{name}" type="Parameter" version="opset1">\n'
        f'\t\t\t<data shape="{",".join(map(str, shape))}" element_type="{element_type}" />\n'
        f"\t\t\t<output>\n{port(0, shape, names=name)}\t\t\t</output>\n\t\t</layer>\n"
    )


def avg_pool(
    layer_id: int, name: str, shape: Shape, out: Shape, kernel: int = 1, pad: int = 0
) -> str:
    """AvgPool-1 with the same kernel, stride 1 and pads on every spatial axis."""
    spatial = len(shape) - 2

    def repeat(value: int) -> str:
        return ", ".join([str(value)] * spatial)

    return (
        f'\t\t<layer id="{layer_id}" name="{name}" type="AvgPool" version="opset1">\n'
        f'\t\t\t<data kernel="{repeat(kernel)}" strides="{repeat(1)}" '
        f'pads_begin="{repeat(pad)}" pads_end="{repeat(pad)}" exclude-pad="false" '
        'auto_pad="explicit" rounding_type="floor" />\n'
        f"\t\t\t<input>\n{port(0, shape)}\t\t\t</input>\n"
        f"\t\t\t<output>\n{port(1, out)}\t\t\t</output>\n\t\t</layer>\n"
    )


def const(layer_id: int, name: str, values: Sequence[int], offset: int = 0) -> str:
    """An i64 vector Const reading `len(values) * 8` bytes at `offset`."""
    return (
        f'\t\t<layer id="{layer_id}" name="{name}" type="Const" version="opset1">\n'
        f'\t\t\t<data element_type="i64" shape="{len(values)}" offset="{offset}" '
        f'size="{8 * len(values)}" />\n'
        f"\t\t\t<output>\n{port(0, [len(values)], 'I64')}\t\t\t</output>\n\t\t</layer>\n"
    )


def adaptive_pool(layer_id: int, name: str, shape: Shape, out: Shape) -> str:
    return (
        f'\t\t<layer id="{layer_id}" name="{name}" type="AdaptiveAvgPool" version="opset8">\n'
        f"\t\t\t<input>\n{port(0, shape)}{port(1, [len(out) - 2], 'I64')}\t\t\t</input>\n"
        f"\t\t\t<output>\n{port(2, out)}\t\t\t</output>\n\t\t</layer>\n"
    )


def result(layer_id: int, name: str, shape: Shape) -> str:
    return (
        f'\t\t<layer id="{layer_id}" name="{name}" type="Result" version="opset1">\n'
        f"\t\t\t<input>\n{port(0, shape)}\t\t\t</input>\n\t\t</layer>\n"
    )


def edge(from_layer: int, from_port: int, to_layer: int, to_port: int) -> str:
    return (
        f'\t\t<edge from-layer="{from_layer}" from-port="{from_port}" '
        f'to-layer="{to_layer}" to-port="{to_port}" />\n'
    )


def net(layers: Sequence[str], edges: Sequence[str], name: str = "model") -> str:
    return (
        f'<?xml version="1.0"?>\n<net name="{name}" version="11">\n'
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


def weights(values: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(values)}q", *values)


def write(directory: Path, text: str | bytes, data: bytes | None = None) -> Path:
    """`model.xml` (and `model.bin` when `data` is given) in `directory`."""
    path = directory / "model.xml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    if data is not None:
        path.with_suffix(".bin").write_bytes(data)
    return path
