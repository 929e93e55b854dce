"""OpenVINO's RMSFusion, which the CPU plugin applies when it compiles a model: an RMSNorm as
exporters write it,

    x -> Power(x, 2) -> ReduceMean(one constant axis, the last; keep_dims)
      -> Add(constant eps) -> Sqrt -> Divide(1, .) -> Multiply(x, .) [-> Multiply(constant gamma)]

all f32, runs as one RMS kernel, which sums the squares otherwise than ReduceMean does
(`irpool/execute/kernels/rms.py`: the kernel's FMA lanes, 16 on AVX-512, 8 on AVX2). The
normalised values then differ in their last bits, which decides the int8 step of an
activation on a rounding tie where a MatMul by compressed weights quantizes it (an LLM's int8
embedding rows, whose values are integer multiples of one scale, normalised: an element half
the row's largest gives 63.5 steps). Measured 2026-12-06 on AMD EPYC family 25 model 17
(AVX-512) and 2026-12-07 on AMD EPYC family 25 model 1 (AVX2), OpenVINO 2026.4.1, docs/cpu.md
"RMSNorm runs as one kernel".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
from irpool.ops.base import LayerContext, Op, TensorInfo
from irpool.ops.reduce import Reduce

# The chain from x's square to the reciprocal root: (layer type, the constant's port, value).
_CHAIN = (("Power", 1, 2.0), ("ReduceMean", 1, None), ("Add", 1, None), ("Sqrt", None, None))


class RMSNorm(Op):
    """The fused RMSNorm. Inputs: x, the Power's exponent, the ReduceMean's axes, eps, the
    Divide's 1, then gamma when the chain ends in a Multiply by it; `infer` runs the replaced
    ops' inference (a run re-infers dynamic models)."""

    type_name = "RMS"

    def __init__(self, ops: tuple[Op, ...]) -> None:
        super().__init__(ops[-1].attrs)
        self.ops = ops  # Power, ReduceMean, Add, Sqrt, Divide, Multiply [, Multiply by gamma]

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        x, exponent, axes, eps, one, *gamma = inputs
        power, mean, add, sqrt, divide, multiply, *scaled = self.ops
        squares = power.infer([x, exponent], ctx)
        root = sqrt.infer(add.infer([*mean.infer([*squares, axes], ctx), eps], ctx), ctx)
        current = multiply.infer([x, *divide.infer([one, *root], ctx)], ctx)
        for op in scaled:
            current = op.infer([*current, *gamma], ctx)
        return current


def fused_rms_norms(
    computed: Sequence[ComputedLayer],
    constants: Mapping[Ref, NDArray[Any]],
    returned: Collection[Ref],
) -> dict[int, Rewrite | None]:
    """What runs instead of each RMSNorm chain's last Multiply: the RMS step; None for the
    chain's layers before it that only the next one reads."""
    by_id = {candidate.layer.id: candidate for candidate in computed}
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    consumers: dict[Ref, list[ComputedLayer]] = {}
    for candidate in computed:
        for ref in candidate.inputs:
            consumers.setdefault(ref, []).append(candidate)
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        found = _chain_ending(candidate, by_id, constants)
        if found is None:
            continue
        chain, x = found
        power, mean, add, _, divide = chain[:5]
        inputs: tuple[Ref, ...] = (
            x,
            power.inputs[1],
            mean.inputs[1],
            add.inputs[1],
            divide.inputs[0],
        )
        gamma = _gamma(candidate, consumers, constants, readers)
        if gamma is not None:
            chain.append(gamma)
            inputs = (*inputs, _other(gamma, (candidate.layer.id, 0)))
        rewrites[chain[-1].layer.id] = Rewrite(RMSNorm(tuple(link.op for link in chain)), inputs)
        for link in reversed(chain[:-1]):
            if readers[(link.layer.id, 0)] != 1:
                break
            rewrites[link.layer.id] = None
    return rewrites


def _chain_ending(
    multiply: ComputedLayer,
    by_id: Mapping[int, ComputedLayer],
    constants: Mapping[Ref, NDArray[Any]],
) -> tuple[list[ComputedLayer], Ref] | None:
    """The chain Power .. Divide, Multiply(x, Divide) ending at `multiply`, and x; or None."""
    if not _f32(multiply, "Multiply"):
        return None
    for port in (0, 1):
        x, reciprocal = multiply.inputs[port], multiply.inputs[1 - port]
        divide = by_id.get(reciprocal[0])
        if (
            divide is None
            or not _f32(divide, "Divide")
            or not _is(constants, divide.inputs[0], 1.0)
        ):
            continue
        links = [divide]
        current = by_id.get(divide.inputs[1][0])
        for kind, constant_port, value in reversed(_CHAIN):
            if current is None or not _f32(current, kind):
                break
            if constant_port is not None:
                constant = current.inputs[constant_port]
                if constant not in constants or (
                    value is not None and not _is(constants, constant, value)
                ):
                    break
            links.insert(0, current)
            if kind != "Power":
                current = by_id.get(current.inputs[0][0])
        else:
            power, mean = links[0], links[1]
            if power.inputs[0] == x and _last_axis(mean, constants):
                return [*links, multiply], x
    return None


def _last_axis(mean: ComputedLayer, constants: Mapping[Ref, NDArray[Any]]) -> bool:
    op = mean.op
    axes = constants[mean.inputs[1]].reshape(-1)
    rank = mean.produced[0].shape.rank
    if not isinstance(op, Reduce) or not op.keep_dims or axes.size != 1:
        return False
    return int(axes[0]) == -1 or (rank is not None and int(axes[0]) == rank - 1)


def _gamma(
    multiply: ComputedLayer,
    consumers: Mapping[Ref, list[ComputedLayer]],
    constants: Mapping[Ref, NDArray[Any]],
    readers: Counter[Ref],
) -> ComputedLayer | None:
    """The f32 Multiply of the chain's result by an f32 constant (gamma), when it alone reads it."""
    out: Ref = (multiply.layer.id, 0)
    if readers[out] != 1 or len(consumers.get(out, [])) != 1:
        return None
    (reader,) = consumers[out]
    other = _other(reader, out)
    if _f32(reader, "Multiply") and other in constants and constants[other].dtype == np.float32:
        return reader
    return None


def _other(multiply: ComputedLayer, ref: Ref) -> Ref:
    first, second = multiply.inputs
    return second if first == ref else first


def _f32(candidate: ComputedLayer, kind: str) -> bool:
    return candidate.layer.type == kind and candidate.produced[0].element_type == "f32"


def _is(constants: Mapping[Ref, NDArray[Any]], ref: Ref, value: float) -> bool:
    held = constants.get(ref)
    return held is not None and held.size == 1 and float(held.reshape(-1)[0]) == value
