"""GridSample-9 (opset9-16): data [N, C, H, W] sampled at the points of grid
[N, H_out, W_out, 2] (x then y, normalized to [-1, 1]), giving [N, C, H_out, W_out] in the
data's type.

What OpenVINO 2026.4 checks (measured, docs/ops/GridSample.md#refused-by-read_model): the
grid is a floating-point type ("The element type of the grid input tensor must be a floating
point type."), data and grid are 4-D ("The supported shape of the input data tensor is 4D.",
"... of the grid tensor is 4D."), the grid's last dim admits 2 ("The last dimension of grid
tensor's shape has to be equal to 2.") and the batch dims overlap ("The batch dimension in the
input data tensor's shape doesn't match the batch dimension in the grid tensor's shape.").
The kernel is in irpool.execute.kernels.grid_sample.
"""

from __future__ import annotations

from collections.abc import Sequence

from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

DATA_NOT_4D = "The supported shape of the input data tensor is 4D."
GRID_NOT_4D = "The supported shape of the grid tensor is 4D."
BATCH_MISMATCH = (
    "The batch dimension in the input data tensor's shape doesn't match the batch dimension in "
    "the grid tensor's shape."
)


@register
class GridSample9(Op):
    type_name = "GridSample"
    version = 9
    opsets = range(9, 17)
    input_names = ("data", "grid")
    attributes = (
        Attr("align_corners", AttrType.BOOL, default=False),
        Attr("mode", AttrType.ENUM, default="bilinear", choices=("bilinear", "bicubic", "nearest")),
        Attr(
            "padding_mode",
            AttrType.ENUM,
            default="zeros",
            choices=("zeros", "border", "reflection"),
        ),
    )

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data, grid = inputs
        if not grid.type.is_float and not grid.type.is_dynamic:
            raise ShapeError(
                "The element type of the grid input tensor must be a floating point type."
            )
        if data.shape.rank is not None and data.shape.rank != 4:
            raise ShapeError(DATA_NOT_4D)
        if grid.shape.rank is not None and grid.shape.rank != 4:
            raise ShapeError(GRID_NOT_4D)
        batch = channels = height = width = Dim.dynamic()
        if grid.shape.dims is not None:
            if not grid.shape[3].admits(2):
                raise ShapeError("The last dimension of grid tensor's shape has to be equal to 2.")
            batch, height, width = grid.shape[0], grid.shape[1], grid.shape[2]
        if data.shape.dims is not None:
            merged = batch.overlap(data.shape[0])
            if merged is None:
                raise ShapeError(BATCH_MISMATCH)
            batch, channels = merged, data.shape[1]
        return [TensorInfo(data.type, Shape((batch, channels, height, width)))]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        corners = "corner pixels' centres" if self.attrs["align_corners"] else "image edges"
        return Explanation(
            f"{self.attrs['mode']} sampling at grid points, -1 and 1 the {corners}, "
            f"{self.attrs['padding_mode']} outside",
            [],
        )
