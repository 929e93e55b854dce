"""The pooling shape differentials' configurations (tests/differential/test_avg_pool_shapes.py,
test_reduce_shapes.py): Parameter shapes as converters and people write them, AdaptiveAvgPool's
output_size, and the ports' claims, rendered with tests/ir.py."""

from __future__ import annotations

import random
from dataclasses import dataclass

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


def output_size_layer(size: OutputSize, claim: PortClaim) -> tuple[str, bytes | None]:
    """Layer 1: output_size as a Parameter, or as a Const and its .bin bytes."""
    shape = ",".join(str(d) for d in size.shape)
    outputs = [port(0, claim, output=True)]
    if size.values is None:
        data = ir.data([("shape", shape), ("element_type", size.element_type)])
        return ir.layer(1, "output_size", "Parameter", "opset1", data, outputs=outputs), None
    weights = np.array(size.values).astype(NUMPY_TYPES[size.element_type]).tobytes()
    data = ir.data(
        [
            ("element_type", size.element_type),
            ("shape", shape),
            ("offset", "0"),
            ("size", str(len(weights))),
        ]
    )
    return ir.layer(1, "output_size", "Const", "opset1", data, outputs=outputs), weights
