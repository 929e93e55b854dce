"""MatMul-1 (opset1-16): `numpy.matmul` of two tensors, either of them transposed first.

Shape rules are OpenVINO 2026.4's, measured with `read_model` and the Python builders
(docs/ops/MatMul.md):
- a scalar is refused ("Scalars are not supported as MatMul inputs."); a dynamic rank gives a
  dynamic rank;
- a 1-D input is a row (first input) or a column (second input), its transpose flag ignored,
  and its dim is dropped from the output (`[3]·[3]` is `[]`);
- `transpose_a`/`transpose_b` swap the last two dims;
- the inner dims must be equal when both are static (the error names each input's index
  after the 1-D unsqueeze); an interval or dynamic inner dim is accepted whatever it is;
- batch dims (ranks aligned at the end): two static ones must be equal or one of them 1
  ("Incompatible MatMul batch dimension. Can't merge first input dimension=5 with second input
  dimension=2 at index=0"); otherwise they broadcast as the elementwise ops' numpy rule, and a
  pair that does not (2..3 against 4) gives `?`.
Both inputs must have one element type; every type is accepted (boolean too). The booleans
are read as every IR boolean: any value other than true/false/1/0 silently keeps false (an
error, IR205). The kernel is in irpool.execute.kernels.mat_mul.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.ops.arithmetic import common_type, numpy_dim
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

ONE = Dim.static(1)


def _batch_dim(a: Dim, b: Dim, index: int) -> Dim:
    if a.is_static and b.is_static:
        if a == b or b == ONE:
            return a
        if a == ONE:
            return b
        raise ShapeError(
            f"Incompatible MatMul batch dimension. Can't merge first input dimension={a} with "
            f"second input dimension={b} at index={index}"
        )
    try:
        return numpy_dim(a, b)
    except ShapeError:
        return Dim.dynamic()


def matmul_shape(a: Shape, b: Shape, transpose_a: bool, transpose_b: bool) -> Shape:
    """The output shape of MatMul; ShapeError as OpenVINO refuses the pair."""
    if a.rank == 0 or b.rank == 0:
        raise ShapeError("Scalars are not supported as MatMul inputs.")
    if a.dims is None or b.dims is None:
        return Shape.dynamic()
    left = (ONE, *a.dims) if len(a.dims) == 1 else a.dims
    right = (*b.dims, ONE) if len(b.dims) == 1 else b.dims
    if transpose_a and len(a.dims) > 1:
        left = (*left[:-2], left[-1], left[-2])
    if transpose_b and len(b.dims) > 1:
        right = (*right[:-2], right[-1], right[-2])
    inner_a, inner_b = left[-1], right[-2]
    if inner_a.is_static and inner_b.is_static and inner_a != inner_b:
        raise ShapeError(
            f"Incompatible MatMul matrix dimension. First input dimension={inner_a} at "
            f"COL_INDEX_DIM={len(left) - 1} doesn't match the second input dimension="
            f"{inner_b} at ROW_INDEX_DIM={len(right) - 2}"
        )
    rank = max(len(left), len(right))
    batch_a = (ONE,) * (rank - len(left)) + left[:-2]
    batch_b = (ONE,) * (rank - len(right)) + right[:-2]
    batch = [_batch_dim(x, y, i) for i, (x, y) in enumerate(zip(batch_a, batch_b, strict=True))]
    rows = [left[-2]] if len(a.dims) > 1 else []
    columns = [right[-1]] if len(b.dims) > 1 else []
    return Shape((*batch, *rows, *columns))


@register
class MatMul1(Op):
    type_name = "MatMul"
    version = 1
    opsets = range(1, 17)
    attributes: ClassVar[tuple[Attr, ...]] = (
        Attr("transpose_a", AttrType.BOOL, default=False),
        Attr("transpose_b", AttrType.BOOL, default=False),
    )
    input_names = ("a", "b")
    infers_from_shapes = True  # `infer` reads its inputs' types and shapes only
    # The group along K in which the CPU quantizes `a` to int8 (weights a decompression
    # subgraph): set per layer by irpool.cpu.compressed_weights; None: not quantized.
    activation_group: int | None = None
    # B as a run holds it, when the run decompresses it itself (irpool/execute/compressed.py):
    # the layer then reads `a` alone.
    compressed_weights: Any = None
    # What the CPU's int8 sums change in its f32 result (irpool/cpu/int8_pairs.py), from `a`,
    # on a host whose sums saturate; else None.
    int8_saturation: Callable[[NDArray[np.float32]], NDArray[np.float32]] | None = None

    @property
    def transposes(self) -> tuple[bool, bool]:
        """Whether each input's last two dims are swapped first."""
        return bool(self.attrs["transpose_a"]), bool(self.attrs["transpose_b"])

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        a, b = inputs
        element = common_type(a, b)
        return [TensorInfo(element, matmul_shape(a.shape, b.shape, *self.transposes))]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        left, right = (
            f"transpose({x})" if t else x for x, t in zip("ab", self.transposes, strict=True)
        )
        return Explanation(f"{left} @ {right}, batch dims broadcast", [])
