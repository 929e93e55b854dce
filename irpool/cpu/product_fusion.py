"""What OpenVINO and its CPU plugin fuse into a MatMul or Convolution when they compile a
model, where it changes results, as what runs in the layers' place (`replacements`).

OpenVINO's MatMulMultiplyFusion: a Multiply of a MatMul's output (read by nothing else) by a
constant that scales whole columns becomes a MatMul by the weights times that constant.
Measured (docs/cpu.md "MatMul weights take a constant scale first"): with
a = [[0.25, 0], [0, 0.25]], b = [[2e38, 0], [0, 1]] and c = [2], the CPU gives
[[inf, 0], [NaN, 0.5]] (b * c overflows first), not [[1e38, 0], [0, 0.5]]; b a Parameter too.

The constant qualifies as the pass says: a scalar; else of no higher rank than the MatMul's
output (nor than the weights', when they are not constant), its next-to-last dim 1, its last
1 or the weights' column count, and not broadcasting both the MatMul's inputs over batch
dims. irpool fuses it for f32 MatMuls with static shapes.

The CPU plugin's Clamp post-op: a Clamp that alone reads a MatMul's or Convolution's output
runs inside it, where 8-bit data rounds the bounds as wider types do (docs/cpu.md "A Clamp
fused into a product rounds 8-bit bounds").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from copy import copy
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
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


def scaled_matmuls(
    computed: Sequence[ComputedLayer],
    constants: Mapping[Ref, NDArray[Any]],
    shapes: Mapping[Ref, Shape],
    returned: Collection[Ref],
) -> dict[int, Rewrite | None]:
    """What runs instead of each Multiply of `computed` the pass fuses with the MatMul it reads:
    the MatMul by the scaled weights; None for that MatMul."""
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    matmuls = {c.layer.id: c for c in computed if isinstance(c.op, MatMul1)}
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        matmul = _fusable(candidate, matmuls, readers, constants, shapes)
        if matmul is not None:
            assert isinstance(matmul.op, MatMul1) and isinstance(candidate.op, Multiply1)
            scale = next(ref for ref in candidate.inputs if ref in constants)
            rewrites[matmul.layer.id] = None
            scaled = ScaledMatMul(matmul.op, candidate.op)
            rewrites[candidate.layer.id] = Rewrite(scaled, (*matmul.inputs, scale))
    return rewrites


def _fusable(
    candidate: ComputedLayer,
    matmuls: Mapping[int, ComputedLayer],
    readers: Counter[Ref],
    constants: Mapping[Ref, NDArray[Any]],
    shapes: Mapping[Ref, Shape],
) -> ComputedLayer | None:
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


PRODUCTS = (MatMul1, ScaledMatMul, Convolution1, GroupConvolution1)


def clamps_in_products(
    computed: Sequence[ComputedLayer], returned: Collection[Ref]
) -> dict[int, Rewrite | None]:
    """What runs instead of each Clamp of `computed` that reads a MatMul's or Convolution's
    output (and is its one reader): the Clamp marked as fused into it, where an 8-bit Clamp
    rounds its bounds as the wider types' (i8 `clamp(x, 1.7, 5.2)` gives 2 below 1.7, where
    the Clamp alone gives 1)."""
    readers = Counter(ref for candidate in computed for ref in candidate.inputs)
    readers.update(returned)
    products = {c.layer.id for c in computed if isinstance(c.op, PRODUCTS)}
    rewrites: dict[int, Rewrite | None] = {}
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
            rewrites[candidate.layer.id] = Rewrite(fused, candidate.inputs)
    return rewrites
