"""OpenVINO's LinOpSequenceFusion, which runs when the CPU plugin compiles a model: a chain of
f32 Adds, Subtracts, Multiplies and Divides by constants, each read only by the next, becomes
one Multiply and one Add by constants folded in f32 (measured, docs/cpu.md "Constant Add and
Multiply chains fold"). Both rewrites are what runs in the layers' place (`replacements`).

`(x + c1) + c2` is `x + (c1 + c2)`, `(x * c1) * c2` is `x * (c1 * c2)`, `(x + c1) * c2` is
`x * c2 + c1 * c2`, `x - c` is `x + (-c)` and `x / c` is `x * (1 / c)` (ConvertDivide) first.
So the chain computes `x * M + A` with M and A folded in the order the ops come, which rounds
otherwise than op after op:
`(x * 0.7) * 0.1` for x = 7.7e-3 is 5.3899997e-4, not 5.3900003e-4.

The CPU plugin then computes an f32 Multiply that only an Add reads, constants or not, as one
fused multiply-add (x86 FMA, one rounding) where the layers' shapes are static: `-3.3 * 0.1 +
0.07` is -0.26, not -0.26000002 (docs/cpu.md "A Multiply read only by an Add is one FMA");
with a dynamic input or output it rounds the product first, a folded chain too, unless its M
and A each vary along one axis other than the first (a LayerNorm's gamma and beta).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
from irpool.ops.arithmetic import Add1, Divide1, Multiply1, Subtract1
from irpool.ops.base import LayerContext, Op, TensorInfo
from irpool.shape import Shape


@dataclass(frozen=True, slots=True)
class Link:
    kind: str  # "add" or "multiply"; a Subtract is an "add" of the negated constant
    negated: bool
    inverted: bool = False  # a Divide: a "multiply" by the constant's f32 reciprocal


class LinearChain(Op):
    """A chain of constant Adds and Multiplies as one step: inputs x, then each link's
    constant; `infer` runs the ops' own inference."""

    type_name = "LinOpSequenceFusion"

    def __init__(self, ops: tuple[Op, ...], links: tuple[Link, ...], fma: bool = True) -> None:
        super().__init__(ops[-1].attrs)
        self.ops = ops
        self.links = links
        self.fma = fma  # x * M + A in one rounding: the CPU's FMA, on static shapes only

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        current = inputs[0]
        for op, constant in zip(self.ops, inputs[1:], strict=True):
            current = op.infer([current, constant], ctx)[0]
        return [current]


@dataclass(frozen=True, slots=True)
class _Chain:
    ops: tuple[Op, ...]
    links: tuple[Link, ...]
    inputs: tuple[Ref, ...]  # x, then each link's constant
    layers: tuple[int, ...]  # the layers before the last, which the chain replaces


def folded_linear_chains(
    computed: Sequence[ComputedLayer],
    constants: Mapping[Ref, NDArray[Any]],
    returned: Collection[Ref],
    shapes: Mapping[Ref, Shape],
) -> dict[int, Rewrite | None]:
    """What runs instead of the last op of each chain of two or more f32 constant Adds,
    Multiplies and Divides in `computed`: the chain as one step; None for the ops before it."""
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    chains: dict[int, _Chain] = {}
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        link = _link(candidate, constants)
        if link is None:
            continue
        data, constant = link[1], link[2]
        before = chains.get(data[0])
        if before is not None and data[1] == 0 and readers[data] == 1:
            chain = _Chain(
                (*before.ops, candidate.op),
                (*before.links, link[0]),
                (*before.inputs, constant),
                (*before.layers, data[0]),
            )
            rewrites.update(dict.fromkeys(chain.layers))
            static = _static(candidate, shapes) and _all_static(chain.inputs, shapes)
            rank = candidate.produced[0].shape.rank
            fma = static or _per_channel(chain, constants, rank)
            rewrites[candidate.layer.id] = Rewrite(
                LinearChain(chain.ops, chain.links, fma), chain.inputs
            )
        else:
            chain = _Chain((candidate.op,), (link[0],), (data, constant), ())
        chains[candidate.layer.id] = chain
    return rewrites


def _per_channel(chain: _Chain, constants: Mapping[Ref, NDArray[Any]], rank: int | None) -> bool:
    """Whether the folded M and A of `x * M + A` each vary along one axis but the first (a
    LayerNorm's gamma and beta): the CPU computes that as one FMA on dynamic shapes too, where
    it rounds the product of scalars, or of constants varying along the first axis or along
    two (measured, docs/cpu.md)."""
    if rank is None:
        return False
    scale: tuple[int, ...] | None = None
    shift: tuple[int, ...] | None = None
    for link, ref in zip(chain.links, chain.inputs[1:], strict=True):
        shape = constants[ref].shape
        if link.kind == "add":
            shift = shape if shift is None else np.broadcast_shapes(shift, shape)
        else:
            scale = shape if scale is None else np.broadcast_shapes(scale, shape)
            shift = None if shift is None else np.broadcast_shapes(shift, shape)
    return (
        scale is not None
        and shift is not None
        and all(_along_one_axis(shape, rank) for shape in (scale, shift))
    )


def _along_one_axis(shape: tuple[int, ...], rank: int) -> bool:
    aligned = (1,) * (rank - len(shape)) + shape
    varying = [axis for axis, size in enumerate(aligned) if size != 1]
    return len(varying) == 1 and varying[0] != 0


def _link(
    candidate: ComputedLayer, constants: Mapping[Ref, NDArray[Any]]
) -> tuple[Link, Ref, Ref] | None:
    """The op as a link (and its data and constant inputs), for an f32 Add or Multiply with
    one constant input, or a Subtract or Divide by a constant; else None."""
    op = candidate.op
    if not isinstance(op, Add1 | Multiply1 | Subtract1 | Divide1) or op.auto_broadcast != "numpy":
        return None
    if candidate.produced[0].element_type != "f32":
        return None
    ports = (1,) if isinstance(op, Subtract1 | Divide1) else (1, 0)
    for port in ports:
        constant, data = candidate.inputs[port], candidate.inputs[1 - port]
        if constant in constants and data not in constants:
            if constants[constant].dtype != np.float32:
                return None
            kind = "multiply" if isinstance(op, Multiply1 | Divide1) else "add"
            return Link(kind, isinstance(op, Subtract1), isinstance(op, Divide1)), data, constant
    return None


class MultiplyAdd(Op):
    """An f32 Multiply read only by an Add, as the CPU plugin computes it: one FMA. Inputs:
    the Multiply's two, then the Add's other."""

    type_name = "MulAdd"

    def __init__(self, multiply: Multiply1, add: Add1) -> None:
        super().__init__(add.attrs)
        self.multiply = multiply
        self.add = add

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        product = self.multiply.infer(inputs[:2], ctx)[0]
        return self.add.infer([product, inputs[2]], ctx)


def multiply_adds(
    computed: Sequence[ComputedLayer], returned: Collection[Ref], shapes: Mapping[Ref, Shape]
) -> dict[int, Rewrite | None]:
    """What runs instead of each f32 Add of static shape in `computed` that reads a Multiply
    nothing else reads: the pair as one FMA step; None for the Multiply."""
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    products = {c.layer.id: c for c in computed if f32_numpy(c, Multiply1)}
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        if not f32_numpy(candidate, Add1) or not _static(candidate, shapes):
            continue
        for port in (0, 1):
            source = candidate.inputs[port]
            product = products.get(source[0])
            if product is None or readers[source] != 1 or not _static(product, shapes):
                continue
            assert isinstance(product.op, Multiply1) and isinstance(candidate.op, Add1)
            rewrites[source[0]] = None
            inputs = (*product.inputs, candidate.inputs[1 - port])
            rewrites[candidate.layer.id] = Rewrite(MultiplyAdd(product.op, candidate.op), inputs)
            break
    return rewrites


def f32_numpy(candidate: ComputedLayer, kind: type[Op]) -> bool:
    """Whether the layer is an f32 Add or Multiply of `kind`, numpy broadcast."""
    op = candidate.op
    return (
        isinstance(op, kind)
        and isinstance(op, Add1 | Multiply1)
        and op.auto_broadcast == "numpy"
        and candidate.produced[0].element_type == "f32"
    )


def _static(candidate: ComputedLayer, shapes: Mapping[Ref, Shape]) -> bool:
    """Whether the layer's inputs and outputs have static shapes: the CPU runs an eltwise node
    with a dynamic one without FMA (measured)."""
    produced = all(info.shape.is_static for info in candidate.produced)
    return produced and _all_static(candidate.inputs, shapes)


def _all_static(refs: Sequence[Ref], shapes: Mapping[Ref, Shape]) -> bool:
    return all(shapes[ref].is_static for ref in refs if ref in shapes)
