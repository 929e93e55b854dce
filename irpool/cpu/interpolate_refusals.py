"""What the CPU plugin refuses of Interpolate-1, -4 and -11 where `read_model` takes the
layer (measured, docs/ops/Interpolate.md#refused-or-undefined-on-the-cpu): IR623 (what it
cannot compile, or pads it puts on other axes), IR624 (Pillow beyond the last two axes),
IR625 (cubic at depth)."""

from __future__ import annotations

from collections.abc import Sequence

from irpool.cpu.declare import refuses
from irpool.ops.base import LayerContext, TensorInfo
from irpool.ops.interpolate import PILLOW, Interpolate, Interpolate1
from irpool.rules import (
    CPU_INTERPOLATE_CUBIC_DEPTH,
    CPU_INTERPOLATE_PILLOW_AXES,
    CPU_INTERPOLATE_UNSUPPORTED,
)


@refuses(Interpolate)
def _interpolate(op: Interpolate, inputs: Sequence[TensorInfo], ctx: LayerContext) -> None:
    mode, rank = op.attrs["mode"], inputs[0].shape.rank
    if isinstance(op, Interpolate1) and (mode == "area" or (mode == "linear" and (rank or 0) > 5)):
        ctx.report(
            CPU_INTERPOLATE_UNSUPPORTED,
            f"Interpolate-1 mode {mode} on rank {rank}: OpenVINO reads the layer, but its CPU "
            "plugin cannot compile it",
            "mode",
        )
    padded: list[int] = []
    if isinstance(op, Interpolate1) and rank is not None:
        first, last = op.pads(rank)
        named = set(op.attrs["axes"])
        padded = [axis for axis in range(rank) if (first[axis] or last[axis]) and axis not in named]
        if padded:
            ctx.report(
                CPU_INTERPOLATE_UNSUPPORTED,
                f"Interpolate-1 pads axis {padded[0]}, which it does not resize: read_model's "
                "shape leaves the pads out, the CPU plugin's kernel writes the padded tensor "
                "past its output (wrong shape, memory corrupted)",
                "pads_begin" if first[padded[0]] else "pads_end",
            )
    if isinstance(op, Interpolate1) and inputs[1].shape.rank not in (1, None):
        ctx.report(
            CPU_INTERPOLATE_UNSUPPORTED,
            f"Interpolate-1's output_shape has rank {inputs[1].shape.rank}: OpenVINO reads the "
            "layer, but its CPU plugin, which rewrites it as Interpolate-4, needs it 1-D",
        )
    if mode in PILLOW and rank is not None and rank not in (2, 3, 4):
        ctx.report(
            CPU_INTERPOLATE_PILLOW_AXES,
            f"{mode} on a rank-{rank} tensor: the CPU plugin's Pillow kernel takes ranks 2 to "
            "4 (it crashes, fails or gives other values)",
            "mode",
        )
    resized = op.resized_axes(inputs)
    if rank is None or resized is None:
        return
    listed = op.axes_of(inputs, rank) or []
    # The outer axes the plugin's 5-D view cannot place when this many axes are listed.
    outer_resized = {0} & {*resized} if rank == 4 else {0, 1} & {*resized}
    if rank in (4, 5) and outer_resized and len(listed) >= rank - 1:
        ctx.report(
            CPU_INTERPOLATE_UNSUPPORTED,
            f"resizes axes {resized} of a rank-{rank} tensor with axes {listed}: the CPU plugin "
            'cannot compile it ("only supports resize on spatial dimensions")',
        )
    begin, end = op.pads(rank)
    outer = {0, 1} & ({*resized} | {a for a in range(min(rank, 2)) if begin[a] or end[a]})
    if any(begin + end) and (rank <= 3 or outer) and not padded:
        ctx.report(
            CPU_INTERPOLATE_UNSUPPORTED,
            f"pads with a resize of axes {resized} of a rank-{rank} tensor: the CPU plugin puts "
            "the pads on other axes (wrong shape and values)",
            "pads_begin",
        )
    nhwc = rank == 4 and listed == [1, 2]
    last_two = set(resized) <= {rank - 2, rank - 1}
    if mode in PILLOW and rank in (2, 3, 4) and not (last_two or nhwc):
        ctx.report(
            CPU_INTERPOLATE_PILLOW_AXES,
            f"{mode} resizes axes {resized} of a rank-{rank} tensor: the CPU plugin's Pillow "
            "kernel resizes only the last two (it fails or gives undefined values)",
            "mode",
        )
    # The axis the plugin's 5-D view puts at depth: 1 of rank 4, 0 of rank 3.
    depth = rank - 3
    if mode == "cubic" and rank in (3, 4) and depth in resized and len(listed) >= rank - 1:
        ctx.report(
            CPU_INTERPOLATE_CUBIC_DEPTH,
            f"cubic resizes axes {resized} of a rank-{rank} tensor: the CPU plugin leaves the "
            "one it places at depth undefined",
            "mode",
        )
