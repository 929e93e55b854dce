"""The pooling shape differentials' configurations (tests/differential/test_avg_pool_shapes.py,
test_reduce_shapes.py): Parameter shapes as converters and people write them, AdaptiveAvgPool's
output_size, and the ports' claims, rendered with tests/ir.py: a configuration alone
(`write_ir`), or several side by side in one file (`write_batch`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from tests import ir

# Rules about what a port claims; OpenVINO never checks the claims, so they never explain a
# rejection (and the declared dims given to irpool for accepted files are OpenVINO's own).
CLAIM_RULES = frozenset({"IR301", "IR302", "IR305"})


NUMPY_TYPES = {"i32": "<i4", "i64": "<i8", "f32": "<f4", "u8": "u1", "i8": "i1", "f16": "<f2"}


Dims = tuple[int, ...] | None  # declared <dim> values; None = no <dim> (dynamic rank)


@dataclass(frozen=True)
class OutputSize:
    """AdaptiveAvgPool's second input: a Const (with `values`) or a Parameter (values None)."""

    element_type: str
    shape: tuple[int, ...]
    values: tuple[float, ...] | None


SPATIAL_DIMS = ("?", "-1", "1..10", "..7", "4..", "3..9", "2..5", "0..3", "0")


def random_dim(rng: random.Random, role: str) -> str:
    if role == "batch":
        return rng.choices(["1", "2", "?", "-1", "1..4", "0"], [40, 20, 15, 10, 10, 5])[0]
    if role == "channels":
        return rng.choices(["3", "1", "16", "?", "2..8", "0"], [40, 20, 15, 10, 10, 5])[0]
    if rng.random() < 0.7:
        return str(rng.randint(1, 12))
    return rng.choice(SPATIAL_DIMS)


def random_shape(rng: random.Random, rank: int | None) -> str:
    """A Parameter shape: `1,3,?,1..10`; `...` for a dynamic rank; `""` for a scalar."""
    if rank is None:
        return rng.choice(["...", "[...]"])
    roles = ["batch", "channels", *["spatial"] * max(rank - 2, 0)][:rank]
    dims = [random_dim(rng, role) for role in roles]
    text = rng.choice([",", ", "]).join(dims)
    return f"[{text}]" if rng.random() < 0.1 else text


def random_output_size(rng: random.Random, spatial: int) -> OutputSize:
    if rng.random() < 0.15:
        shape = rng.choices([(spatial,), (spatial + 1,), ()], [90, 5, 5])[0]
        return OutputSize(rng.choice(["i32", "i64"]), shape, None)
    element_type = rng.choices(["i32", "i64", "f32", "u8", "i8"], [45, 40, 5, 5, 5])[0]
    shape = rng.choices(
        [(spatial,), (spatial + 1,), (max(spatial - 1, 0),), (spatial, 1), ()],
        [88, 3, 3, 3, 3],
    )[0]
    count = int(np.prod(shape, dtype=np.int64))

    def value() -> float:
        roll = rng.random()
        if roll < 0.05:
            return rng.choice([0, -1, -3])
        if roll < 0.08 and element_type == "f32":
            return rng.randint(1, 6) + 0.7
        return rng.randint(1, 9)

    return OutputSize(element_type, shape, tuple(value() for _ in range(count)))


def pick(rng: random.Random, weighted: dict[str, int]) -> str:
    return rng.choices(list(weighted), list(weighted.values()))[0]


@dataclass(frozen=True)
class PortClaim:
    dims: Dims
    precision: str


def naive_dims(shape: str) -> Dims:
    """The <dim>s a Parameter shape suggests: static numbers kept, everything else -1."""
    body = shape.strip().removeprefix("[").removesuffix("]").strip()
    if body == "...":
        return None
    if body == "":
        return ()
    return tuple(int(d) if d.strip().isdigit() else -1 for d in body.split(","))


def port(port_id: int, claim: PortClaim, *, output: bool, names: str = "") -> str:
    """A port claiming these dims; its precision only on an output."""
    return ir.port(port_id, claim.dims, claim.precision if output else None, names)


def output_size_layer(
    size: OutputSize, claim: PortClaim, layer_id: int = 1, suffix: str = "", offset: int = 0
) -> tuple[str, bytes | None]:
    """Layer 1 (`layer_id`): output_size (named with `suffix`) as a Parameter, or as a Const
    (its bytes at `offset`) and its .bin bytes."""
    shape = ",".join(str(d) for d in size.shape)
    outputs = [port(0, claim, output=True)]
    name = f"output_size{suffix}"
    if size.values is None:
        data = ir.data([("shape", shape), ("element_type", size.element_type)])
        return ir.layer(layer_id, name, "Parameter", "opset1", data, outputs=outputs), None
    weights = np.array(size.values).astype(NUMPY_TYPES[size.element_type]).tobytes()
    data = ir.data(
        [
            ("element_type", size.element_type),
            ("shape", shape),
            ("offset", str(offset)),
            ("size", str(len(weights))),
        ]
    )
    return ir.layer(layer_id, name, "Const", "opset1", data, outputs=outputs), weights


class PoolConfig(Protocol):
    """A pooling configuration, as tests/differential/test_avg_pool_shapes.py draws it."""

    index: int
    op_type: str
    opset: str
    shape: str  # the data Parameter's `shape` attribute, verbatim
    element_type: str
    attrs: tuple[tuple[str, str], ...]  # the pool's <data> attributes, verbatim, in order
    output_size: OutputSize | None


@dataclass(frozen=True)
class Claims:
    """What the ports declare: the data input, output_size (AdaptiveAvgPool), the pool output."""

    data: PortClaim
    size: PortClaim | None
    out: PortClaim


def naive_claims(config: PoolConfig) -> Claims:
    """Claims good enough for a first read by OpenVINO, which never checks them."""
    precision = ir.PRECISIONS.get(config.element_type, "FP32")
    data = PortClaim(naive_dims(config.shape), precision)
    size = None
    if config.output_size is not None:
        size = PortClaim(config.output_size.shape, ir.PRECISIONS[config.output_size.element_type])
    return Claims(data, size, data)


def render_layers(
    config: PoolConfig, claims: Claims, position: int | None = None, offset: int = 0
) -> tuple[list[str], list[str], bytes | None]:
    """The layers and edges (and .bin bytes, at `offset`, if any) of Parameter
    [+ output_size] -> pool -> Result: ids 0 to 3, or from 4 * `position` in a batch, where
    each layer's name ends with the position (tests/differential/shape_batches.py)."""
    base, suffix = (0, "") if position is None else (4 * position, str(position))
    parameter_data = ir.data([("shape", config.shape), ("element_type", config.element_type)])
    layers = [
        ir.layer(base, f"in{suffix}", "Parameter", "opset1", parameter_data,
              outputs=[port(0, claims.data, output=True, names=f"in{suffix}")]),
    ]  # fmt: skip
    pool_inputs = [port(0, claims.data, output=False)]
    edges = [(0, 0, 2, 0), (2, 9, 3, 0)]  # (from-layer, from-port, to-layer, to-port)
    weights = None
    if config.output_size is not None and claims.size is not None:
        size = output_size_layer(config.output_size, claims.size, base + 1, suffix, offset)
        layers.append(size[0])
        weights = size[1]
        pool_inputs.append(port(1, claims.size, output=False))
        edges.append((1, 0, 2, 1))
    layers += [
        ir.layer(base + 2, f"pool{suffix}", config.op_type, config.opset, ir.data(config.attrs),
              inputs=pool_inputs, outputs=[port(9, claims.out, output=True, names=f"out{suffix}")]),
        ir.layer(base + 3, f"out{suffix}", "Result", "opset1",
              inputs=[port(0, claims.out, output=False)]),
    ]  # fmt: skip
    return layers, [ir.edge(a + base, b, c + base, d) for a, b, c, d in edges], weights


def render_ir(config: PoolConfig, claims: Claims) -> tuple[str, bytes | None]:
    """The .xml text (and .bin bytes, if any) of the configuration alone."""
    layers, edges, weights = render_layers(config, claims)
    return ir.net(layers, edges, f"config{config.index}"), weights


def write_ir(directory: Path, config: PoolConfig, claims: Claims) -> Path:
    xml, weights = render_ir(config, claims)
    path = directory / f"config{config.index}.xml"
    path.write_text(xml)
    if weights is not None:
        path.with_suffix(".bin").write_bytes(weights)
    return path


def write_batch(directory: Path, batch: Sequence[tuple[PoolConfig, Claims]]) -> Path:
    """The configurations side by side in one file, each at its position."""
    layers, edges, blob = [], [], b""
    for position, (config, claims) in enumerate(batch):
        more, joins, weights = render_layers(config, claims, position, len(blob))
        layers += more
        edges += joins
        blob += weights or b""
    path = directory / f"batch{batch[0][0].index}_{len(batch)}.xml"
    path.write_text(ir.net(layers, edges, path.stem))
    if blob:
        path.with_suffix(".bin").write_bytes(blob)
    return path
