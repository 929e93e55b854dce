"""What OpenVINO and its CPU plugin fuse into a MatMul or Convolution when they compile a
model, where it changes results.

OpenVINO's MatMulMultiplyFusion: a Multiply of a MatMul's output (read by nothing else) by a
constant that scales whole columns becomes a MatMul by the weights times that constant.
Measured (docs/semantics.md §18.3): with a = [[0.25, 0], [0, 0.25]], b = [[2e38, 0], [0, 1]]
and c = [2], the CPU gives [[inf, 0], [NaN, 0.5]] (b * c overflows first), not
[[1e38, 0], [0, 0.5]]; b a Parameter too.

The constant qualifies as the pass says: a scalar; else of no higher rank than the MatMul's
output (nor than the weights', when they are not constant), its next-to-last dim 1, its last
1 or the weights' column count, and not broadcasting both the MatMul's inputs over batch
dims. irpool fuses it for f32 MatMuls with static shapes.

The CPU plugin's Clamp post-op: a Clamp that alone reads a MatMul's or Convolution's output
runs inside it, where 8-bit data rounds the bounds as wider types do (docs/semantics.md §18.2).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from copy import copy
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand as to_f32
from irpool.execute.fold import Candidate, Ref
from irpool.execute.kernels.mat_mul import run_matmul
from irpool.execute.registry import OutputSpec
from irpool.ops.arithmetic import Multiply1
from irpool.ops.base import LayerContext, Op, TensorInfo
from irpool.ops.clamp import Clamp1
from irpool.ops.convolution import Convolution1, GroupConvolution1
from irpool.ops.mat_mul import MatMul1
from irpool.shape import Dim, Shape


class ScaledMatMul(Op):
    """A MatMul whose weights are multiplied by a constant first: inputs a, b, the constant
    (transposed with b when `transpose_b`)."""

    type_name = "MatMulMultiplyFusion"

    def __init__(self, matmul: MatMul1, multiply: Multiply1) -> None:
        super().__init__(matmul.attrs)
        self.matmul = matmul
        self.multiply = multiply

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        a, b, scale = inputs
        if self.matmul.transposes[1]:
            scale = TensorInfo(scale.type, _transposed_shape(scale.shape))
        return self.matmul.infer([a, self.multiply.infer([b, scale], ctx)[0]], ctx)


def fuse_matmul_multiply(
    computed: list[Candidate],
    constants: Mapping[Ref, NDArray[Any]],
    shapes: Mapping[Ref, Shape],
    returned: Collection[Ref],
) -> list[Candidate]:
    """`computed` with each MatMul the pass fuses into the Multiply that reads it as one step."""
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    matmuls = {c.layer.id: c for c in computed if isinstance(c.op, MatMul1)}
    fused: set[int] = set()
    result = []
    for candidate in computed:
        matmul = _fusable(candidate, matmuls, readers, constants, shapes)
        if matmul is not None:
            assert isinstance(matmul.op, MatMul1) and isinstance(candidate.op, Multiply1)
            scale = next(ref for ref in candidate.inputs if ref in constants)
            fused.add(matmul.layer.id)
            candidate = replace(
                candidate,
                op=ScaledMatMul(matmul.op, candidate.op),
                kernel=run_scaled_matmul,
                inputs=(*matmul.inputs, scale),
            )
        result.append(candidate)
    return [c for c in result if c.layer.id not in fused]


def _fusable(
    candidate: Candidate,
    matmuls: Mapping[int, Candidate],
    readers: Counter[Ref],
    constants: Mapping[Ref, NDArray[Any]],
    shapes: Mapping[Ref, Shape],
) -> Candidate | None:
    """The MatMul a Multiply candidate is fused with, or None."""
    op = candidate.op
    if not isinstance(op, Multiply1) or op.auto_broadcast != "numpy":
        return None
    if candidate.produced[0].element_type != "f32":
        return None
    for port in (0, 1):
        source, scale = candidate.inputs[port], candidate.inputs[1 - port]
        matmul = matmuls.get(source[0])
        if matmul is None or readers[source] != 1 or scale not in constants:
            continue
        a, b = (shapes[ref] for ref in matmul.inputs)
        output = shapes[source]
        if not (a.is_static and b.is_static and output.is_static):
            return None
        assert isinstance(matmul.op, MatMul1)
        weights_constant = matmul.inputs[1] in constants
        scale_shape = constants[scale].shape
        if _scales_columns(scale_shape, a.values(), b.values(), output.rank or 0, matmul.op,
                           weights_constant):  # fmt: skip
            return matmul
        return None
    return None


def _scales_columns(
    scale: tuple[int, ...],
    a: tuple[int, ...],
    b: tuple[int, ...],
    output_rank: int,
    matmul: MatMul1,
    weights_constant: bool,
) -> bool:
    """Whether MatMulMultiplyFusion moves a constant of shape `scale` onto the weights."""
    rank = len(scale)
    if rank == 0:
        return True
    if rank > output_rank or (rank > 1 and scale[-2] != 1):
        return False
    if rank > len(b) and not weights_constant:
        return False
    if int(np.prod(scale)) > 1:
        columns = b[-2] if matmul.transposes[1] and len(b) > 1 else b[-1]
        if scale[-1] > 1 and scale[-1] != columns:
            return False
        if rank > 2:
            return not (_broadcasts(scale, b) and _broadcasts(scale, a))
    return True


def _broadcasts(scale: tuple[int, ...], operand: tuple[int, ...]) -> bool:
    """Whether the constant's batch dims (all but its last two) broadcast the operand."""
    if len(operand) < len(scale):
        return True
    return any(scale[-i] != 1 and operand[-i] != scale[-i] for i in range(3, len(scale) + 1))


def _transposed_shape(shape: Shape) -> Shape:
    """A column scale as a row scale ([k] and [..., 1, k] become [..., k, 1])."""
    dims = shape.dims
    if dims is None or len(dims) == 0:
        return shape
    if len(dims) == 1:
        dims = (Dim.static(1), *dims)  # the [1, k] the pass reshapes a 1-D one to
    return Shape((*dims[:-2], dims[-1], dims[-2]))


def run_scaled_matmul(
    op: Op, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    """a @ (b * c) with b * c in f32, as the fused graph computes it."""
    assert isinstance(op, ScaledMatMul)
    a, b, scale = inputs
    scale = to_f32(scale)
    if op.matmul.transposes[1] and scale.size > 1:
        scale = (scale.reshape(1, -1) if scale.ndim == 1 else scale).swapaxes(-1, -2)
    with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN are values here
        weights = to_f32(b) * scale
    return run_matmul(op.matmul, [a, weights], outputs)


PRODUCTS = (MatMul1, ScaledMatMul, Convolution1, GroupConvolution1)


def fuse_product_clamps(computed: list[Candidate], returned: Collection[Ref]) -> list[Candidate]:
    """`computed` with each Clamp that reads a MatMul's or Convolution's output (and is its
    one reader) marked as fused into it: an 8-bit Clamp then rounds its bounds as the wider
    types' (i8 `clamp(x, 1.7, 5.2)` gives 2 below 1.7, where the Clamp alone gives 1)."""
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    products = {c.layer.id for c in computed if isinstance(c.op, PRODUCTS)}
    result = []
    for candidate in computed:
        source = candidate.inputs[0] if candidate.inputs else None
        if (
            isinstance(candidate.op, Clamp1)
            and source is not None
            and source[0] in products
            and readers[source] == 1
        ):
            fused = copy(candidate.op)
            fused.after_product = True
            candidate = replace(candidate, op=fused)
        result.append(candidate)
    return result
