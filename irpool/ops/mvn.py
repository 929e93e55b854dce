"""MVN-6 (opset6-16) and MVN-1 (opset1-5): (x - mean) / sqrt(variance + eps) over some axes,
the shape and element type kept; LayerNorm as OpenVINO's frontends write it.

What OpenVINO 2026.4's `read_model` does (measured, docs/ops/MVN.md):
- MVN-6 takes its axes from a second input, 1-D and integer ("Expected 1D tensor for the
  'axes' input"), no more of them than the rank ("Expected rank for the 'data' input to be
  higher than axes shape."), repeats allowed; an axis outside [-rank, rank - 1] passes
  `read_model` but the CPU plugin cannot compile it ("Axis 2 out of the tensor rank range
  [-2, 1].", IR608); `eps_mode` INSIDE_SQRT or OUTSIDE_SQRT (eps added after the root), matched
  ignoring case. Absent, `eps` is 0, `normalize_variance` false, `eps_mode` INSIDE_SQRT.
- MVN-1 reduces axes 1.. (`across_channels`, or written `reduction_axes` holding 1) or 2..;
  eps inside the root; absent attributes are 0 and false.
Every element type is accepted. The kernel is in irpool.execute.kernels.mvn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import takes_integer_input
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register

NORMALIZE_VARIANCE = Attr("normalize_variance", AttrType.BOOL, default=False, required=True)
EPS = Attr("eps", AttrType.FLOAT32, default=0.0, required=True)


@register
class MVN6(Op):
    type_name = "MVN"
    version = 6
    opsets = range(6, 17)
    attributes: ClassVar[tuple[Attr, ...]] = (
        NORMALIZE_VARIANCE,
        EPS,
        Attr(
            "eps_mode",
            AttrType.ENUM,
            default="INSIDE_SQRT",
            choices=("INSIDE_SQRT", "OUTSIDE_SQRT"),
            required=True,
        ),
    )
    input_names: ClassVar[tuple[str, ...]] = ("data", "axes")

    @property
    def normalize_variance(self) -> bool:
        return bool(self.attrs["normalize_variance"])

    @property
    def eps(self) -> float:
        eps: float = self.attrs["eps"]
        return eps

    @property
    def eps_inside(self) -> bool:
        return bool(self.attrs["eps_mode"] == "INSIDE_SQRT")

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, axes = inputs
        if not takes_integer_input(axes.element_type):
            raise ShapeError(f"Unsupported element type: {axes.element_type}")
        if axes.shape.rank is not None and axes.shape.rank != 1:
            raise ShapeError(f"Expected 1D tensor for the 'axes' input. Got: {axes.shape}")
        rank, count = data.shape.rank, axes.shape.dims[0] if axes.shape.dims else None
        if rank is not None and count is not None and count.low > rank:
            raise ShapeError(
                f"Expected rank for the 'data' input to be higher than axes shape. "
                f"Got: {data.shape}"
            )
        return [TensorInfo(data.type, data.shape)]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        axes = inputs[1] if len(inputs) > 1 else None
        listed = "given at run time" if axes is None or axes.value is None else axes.value
        return Explanation(f"{self.formula()} over axes {listed}", [])

    def formula(self) -> str:
        if not self.normalize_variance:
            return "x - mean"
        root = "sqrt(variance + eps)" if self.eps_inside else "(sqrt(variance) + eps)"
        return f"(x - mean) / {root}, eps={self.eps!r}"


@register
class MVN1(MVN6):
    version = 1
    opsets = range(1, 6)
    attributes = (
        NORMALIZE_VARIANCE,
        EPS,
        Attr("across_channels", AttrType.BOOL, default=False),
        Attr("reduction_axes", AttrType.UINT_LIST, default=()),
    )
    input_names = ("data",)

    @property
    def eps_inside(self) -> bool:
        return True

    def reduced_axes(self, rank: int) -> tuple[int, ...]:
        """Axes 1.. across channels, else 2..; written `reduction_axes` count as across
        channels when they hold 1 (the CPU plugin reduces 2.. for "0" on a 1-D input:
        nothing, measured)."""
        written: tuple[int, ...] = self.attrs["reduction_axes"]
        across = 1 in written if written else bool(self.attrs["across_channels"])
        return tuple(range(1 if across else 2, rank))

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        return [TensorInfo(data.type, data.shape)]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        data = inputs[0] if inputs else None
        if data is None or data.shape.rank is None:
            return None
        return Explanation(f"{self.formula()} over axes {self.reduced_axes(data.shape.rank)}", [])
