"""The CPU plugin's fusion of elementwise chains (FuseEltwiseAndSimple), where it changes
integer results: a chain fused into one Eltwise node keeps each intermediate in f32, unstored.

Integer (16-, 32- and 64-bit) FloorMod, Mod and Power compute in f32 on the CPU and store
the result in int32, where NaN (a division by 0) gives INT32_MIN. Fused, a NaN goes on:
`(5 floormod 0) floormod 2` is INT32_MIN, not `INT32_MIN floormod 2` = 0; so does a Power's
fraction, rounded to nearest where the chain stores its result. Measured
(docs/graph-rewrites.md#eltwise-fusion-and-a-division-by-a-computed-0): the CPU fuses such an op
into the op it feeds when that is FloorMod, Mod, Power, Greater, GreaterEqual, Less or
LessEqual reading it at input 0, Equal, NotEqual, Minimum or Maximum at either input (the
last two with the chain's value first: `min(5, 5 floormod 0)` is 5; they start a chain
too), or ReLU, Floor, Sigmoid, HSwish, HSigmoid, Elu, Exp, Tanh, Sqrt or Ceiling
(`relu(0 ** -1)` is INT32_MIN, not 0; Clamp computes in integers and does not fuse, nor do
Abs, Negative, Log, Sign and the Math node's trigonometric and hyperbolic ops; PReLU does,
with its slope, which irpool does not model); nothing else reads it; the other input is not
already an input of the chain (nor a Split's output); and the chain then has at most 7
inputs. 8-bit types store each result. Add, Subtract, Multiply and Divide of i32 compute in
integers and never fuse with them.
OpenVINO removes `x - 0`, `x + 0`, `x * 1` and `x / 1` by a Const first (EliminateEltwise),
where that leaves the shape as it is and, for an op a Result reads, its input is no
Parameter: such an op passes its input on unchanged (an i32 `x / 1` is not rounded through
f32, `-0 + 0` stays -0), and a chain goes on through it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
from irpool.ops import arithmetic
from irpool.ops.activations import (
    Activation,
    Elu1,
    Floor1,
    HSigmoid5,
    HSwish4,
    Relu1,
    Sigmoid1,
)
from irpool.ops.arithmetic import Binary
from irpool.ops.base import LayerContext, Op, TensorInfo
from irpool.ops.binary_math import BY_TYPE as BINARY_MATH
from irpool.ops.comparison import Equal1, Greater1, GreaterEqual1, Less1, LessEqual1, NotEqual1
from irpool.ops.unary_math import BY_TYPE as UNARY_MATH
from irpool.shape import Shape

# Ops the CPU computes in f32 for integers, whose results a fused chain carries.
CARRIED = (arithmetic.FloorMod1, arithmetic.Mod1, arithmetic.Power1)
# The integer types whose chains carry f32 (8-bit ones store each op's result: measured).
CARRYING_TYPES = ("i16", "u16", "i32", "u32", "i64", "u64")
# Activations a chain goes on through, computing on the carried f32 value (measured).
ACTIVATIONS: tuple[type[Activation], ...] = (Relu1, Floor1, Sigmoid1, HSwish4, HSigmoid5, Elu1)
ACTIVATIONS += tuple(UNARY_MATH[name] for name in ("Exp", "Tanh", "Sqrt", "Ceiling"))
# Ops that take a chain at either input; Minimum and Maximum compute with it first.
CHAIN_FIRST = (BINARY_MATH["Minimum"], BINARY_MATH["Maximum"])
COMMUTATIVE = (Equal1, NotEqual1, *CHAIN_FIRST)
# Comparisons that take a chain at input 0 only (measured: `0 <= x floormod 0` is not fused).
ORDERED = (Greater1, GreaterEqual1, Less1, LessEqual1)
MAX_ELTWISE_INPUTS = 7
SPLITS = ("Split", "VariadicSplit")


class FusedEltwise(Op):
    """A fused chain as one step: its inputs are the first op's two, then each later binary
    op's other input (`swapped`: the chain enters that op at input 1; False for an
    activation, which reads only the chain)."""

    type_name = "EltwiseFusion"

    def __init__(self, ops: tuple[Binary | Activation, ...], swapped: tuple[bool, ...]) -> None:
        super().__init__(ops[-1].attrs)
        self.ops = ops
        self.swapped = swapped

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        current = self.ops[0].infer(inputs[:2], ctx)[0]
        others = iter(inputs[2:])
        for op, swapped in zip(self.ops[1:], self.swapped, strict=True):
            if isinstance(op, Activation):
                current = op.infer([current], ctx)[0]
                continue
            other = next(others)
            current = op.infer([other, current] if swapped else [current, other], ctx)[0]
        return [current]


class RemovedEltwise(Op):
    """An op OpenVINO removes: its input at `port` passed on (inference is the op's own)."""

    type_name = "EltwiseRemoved"

    def __init__(self, op: Binary, port: int) -> None:
        super().__init__(op.attrs)
        self.op = op
        self.port = port

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        return self.op.infer(inputs, ctx)


@dataclass(frozen=True, slots=True)
class _Chain:
    ops: tuple[Binary | Activation, ...]
    swapped: tuple[bool, ...]
    inputs: tuple[Ref, ...]
    layers: tuple[int, ...]  # the layers a fusion into a later op replaces


def fused_eltwise_chains(
    computed: Sequence[ComputedLayer],
    layer_types: dict[int, str],
    returned: Collection[Ref],
    constants: Mapping[Ref, NDArray[Any]],
    shapes: Mapping[Ref, Shape],
) -> dict[int, Rewrite | None]:
    """What runs instead of each layer of `computed` that the CPU fuses into a chain (where
    fusing changes the result) or removes: the chain or the removed op with its inputs; None
    for a layer fused into a later one."""
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    chains: dict[int, _Chain] = {}
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        op, inputs, layer_id = candidate.op, candidate.inputs, candidate.layer.id
        port = _removed_input(op, inputs, constants, shapes, candidate.produced[0].shape)
        if port is not None and (layer_id, 0) in returned:
            # OpenVINO keeps it where a Result would then read a Parameter (measured)
            port = None if layer_types.get(inputs[port][0]) == "Parameter" else port
        if port is not None:
            assert isinstance(op, Binary)
            passed = inputs[port]
            if passed[0] in chains and readers[passed] == 1:
                through = chains[passed[0]]
                chains[layer_id] = replace(through, layers=(*through.layers, layer_id))
            rewrites[layer_id] = Rewrite(RemovedEltwise(op, port), inputs)
            continue
        chain = _fused(op, inputs, chains, readers, layer_types)
        if chain is not None:
            for fused in chains[inputs[1 if chain.swapped[-1] else 0][0]].layers:
                rewrites[fused] = None
            rewrites[layer_id] = Rewrite(FusedEltwise(chain.ops, chain.swapped), chain.inputs)
        elif _carries(op, candidate.produced):
            assert isinstance(op, Binary)
            chain = _Chain((op,), (), inputs, ())
        if chain is not None and isinstance(op, (*CARRIED, *ACTIVATIONS, *CHAIN_FIRST)):
            chains[layer_id] = replace(chain, layers=(*chain.layers, layer_id))
    return rewrites


def _removed_input(
    op: Op,
    inputs: Sequence[Ref],
    constants: Mapping[Ref, NDArray[Any]],
    shapes: Mapping[Ref, Shape],
    shape: Shape,
) -> int | None:
    """The input port of what an op OpenVINO removes passes on (EliminateEltwise): `x - 0`,
    `x + 0`, `0 + x`, `x * 1`, `1 * x`, `x / 1` by a Const of one value, where the shape
    stays as it is."""
    if (
        not isinstance(
            op, arithmetic.Add1 | arithmetic.Subtract1 | arithmetic.Multiply1 | arithmetic.Divide1
        )
        or op.auto_broadcast == "pdpd"
    ):
        return None
    neutral = 0 if isinstance(op, arithmetic.Add1 | arithmetic.Subtract1) else 1
    for port in (1, 0) if isinstance(op, arithmetic.Add1 | arithmetic.Multiply1) else (1,):
        value = constants.get(inputs[port])
        if value is not None and value.size and np.all(value == neutral):
            return 1 - port if shapes.get(inputs[1 - port]) == shape else None
    return None


def _carries(op: Op, produced: Sequence[TensorInfo]) -> bool:
    """An integer op that starts a chain: one whose f32 result a fused chain would carry
    unstored, or a Minimum or Maximum, which the CPU fuses its readers into (measured:
    `min(x, a) floormod b` then `floormod a` stores before the second, which reads a again)."""
    return (
        isinstance(op, (*CARRIED, *CHAIN_FIRST))
        and op.auto_broadcast != "pdpd"
        and produced[0].element_type in CARRYING_TYPES
    )


def _fused(
    op: Op,
    inputs: Sequence[Ref],
    chains: dict[int, _Chain],
    readers: Counter[Ref],
    layer_types: dict[int, str],
) -> _Chain | None:
    """The chain `op` extends, or None when the CPU does not fuse it with its inputs."""
    if isinstance(op, ACTIVATIONS):
        chain = chains.get(inputs[0][0])
        if chain is None or inputs[0][1] != 0 or readers[inputs[0]] != 1:
            return None
        return _Chain((*chain.ops, op), (*chain.swapped, False), chain.inputs, chain.layers)
    if not isinstance(op, (*CARRIED, *ORDERED, *COMMUTATIVE)) or op.auto_broadcast == "pdpd":
        return None
    for port in (0, 1) if isinstance(op, COMMUTATIVE) else (0,):
        chain = chains.get(inputs[port][0])
        other = inputs[1 - port]
        if chain is None or inputs[port][1] != 0 or readers[inputs[port]] != 1:
            continue
        producers = {ref[0] for ref in chain.inputs}
        if other[0] in producers or layer_types.get(other[0]) in SPLITS:
            return None  # the CPU avoids a node reading one input twice, and Split outputs
        if len(chain.inputs) + 1 > MAX_ELTWISE_INPUTS:
            return None
        ops, swapped = (*chain.ops, op), (*chain.swapped, port == 1)
        return _Chain(ops, swapped, (*chain.inputs, other), chain.layers)
    return None
