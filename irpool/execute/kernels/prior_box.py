"""PriorBox-1 and -8 on NumPy arrays, as OpenVINO 2026.4 computes them (measured,
docs/ops/PriorBox.md): OpenVINO's reference prior by prior, in f32, each cell's priors in its
order (fixed sizes with their densities and ratios, then per min_size its square box, the box
of sqrt(min * max) and the aspect ratios' boxes, in the order `min_max_aspect_ratios_order`
says), computed for every cell at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.prior_box import PriorBoxBase, aspect_ratios

F32 = np.float32
Box = tuple[NDArray[np.float32], NDArray[np.float32], Any, Any, bool]


@kernel_for(PriorBoxBase)
def run_prior_box(
    op: PriorBoxBase, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    a = op.attrs
    height, width = (int(v) for v in np.asarray(inputs[0]).ravel()[:2])
    image_height, image_width = (int(v) for v in np.asarray(inputs[1]).ravel()[:2])
    ratios = [F32(r) for r in aspect_ratios([float(F32(r)) for r in a["aspect_ratio"]], a["flip"])]
    step = F32(a["step"])
    min_sizes = [F32(size) for size in a["min_size"]]
    if not a["scale_all_sizes"]:  # mxnet-like
        step = F32(F32(image_height) / F32(height)) if step == -1 else F32(step * image_height)
        min_sizes = [F32(size * image_height) for size in min_sizes]
    inverse_w, inverse_h = F32(1) / F32(image_width), F32(1) / F32(image_height)
    columns, rows = np.arange(width, dtype=F32), np.arange(height, dtype=F32)
    if step == 0:
        step_x, step_y = F32(image_width) / F32(width), F32(image_height) / F32(height)
        cx = (columns + F32(0.5)) * step_x
        cy = (rows + F32(0.5)) * step_y
    else:
        cx = (F32(a["offset"]) + columns) * step
        cy = (F32(a["offset"]) + rows) * step
    cx, cy = np.broadcast_arrays(cx[None, :], cy[:, None])
    boxes: list[Box] = []
    for s, fixed in enumerate(a["fixed_size"]):
        boxes += _fixed(a, s, F32(fixed), cx, cy, ratios)
    for index, size in enumerate(min_sizes):
        half = F32(size * F32(0.5))
        square = [(cx, cy, half, half, False)]
        larger: list[Box] = []
        if len(a["max_size"]) > index:
            side = F32(np.sqrt(F32(size * F32(a["max_size"][index]))) * F32(0.5))
            larger = [(cx, cy, side, side, False)]
        shaped: list[Box] = []
        if a["scale_all_sizes"] or index == len(min_sizes) - 1:
            base = min_sizes[index if a["scale_all_sizes"] else 0]
            for ratio in ratios:
                if abs(float(ratio) - 1.0) < 1e-6:
                    continue
                root = F32(np.sqrt(ratio))
                shaped.append(
                    (cx, cy, F32(base * F32(0.5) * root), F32(base * F32(0.5) / root), False)
                )
        ordered = larger + shaped if a.get("min_max_aspect_ratios_order", True) else shaped + larger
        boxes += square + ordered
    corners = [_corners(box, inverse_w, inverse_h) for box in boxes]
    data = np.stack(corners, axis=2).reshape(-1) if corners else np.zeros(0, F32)
    if a["clip"]:
        data = np.minimum(np.maximum(data, F32(0)), F32(1))
    variances = list(a["variance"]) or [0.1]
    if len(variances) == 1:
        variances *= 4
    row = np.broadcast_to(np.array(variances, F32), (data.size // 4, 4)).ravel()
    return [np.stack([data.astype(F32), row]).astype(F32)]


def _fixed(
    a: dict[str, Any], s: int, fixed: np.float32, cx: Any, cy: Any, ratios: list[np.float32]
) -> list[Box]:
    """The priors of fixed size `s`: by density and ratio, each box clipped alone."""
    whole = int(fixed)  # static_cast<size_t>
    half = F32(F32(whole) * F32(0.5))
    boxes: list[Box] = []

    def spread(density: int, bw: Any, bh: Any) -> None:
        shift = int(fixed / F32(density))
        for r in range(density):
            for c in range(density):
                x = cx - F32(whole // 2) + F32(shift / 2) + F32(c * shift)
                y = cy - F32(whole // 2) + F32(shift / 2) + F32(r * shift)
                boxes.append((x.astype(F32), y.astype(F32), bw, bh, True))

    density = int(a["density"][s]) if a["density"] else 0
    if a["fixed_ratio"]:
        for ratio in a["fixed_ratio"]:
            root = F32(np.sqrt(F32(ratio)))
            spread(density, F32(fixed * F32(0.5) * root), F32(fixed * F32(0.5) / root))
        return boxes
    if a["density"]:
        spread(density, half, half)
    for ratio in ratios:
        if abs(float(ratio) - 1.0) < 1e-6:
            continue
        root = F32(np.sqrt(ratio))
        spread(density, F32(fixed * F32(0.5) * root), F32(fixed * F32(0.5) / root))
    return boxes


def _corners(box: Box, inverse_w: np.float32, inverse_h: np.float32) -> NDArray[np.float32]:
    x, y, half_w, half_h, clipped = box
    with np.errstate(all="ignore"):
        xmin, ymin = (x - half_w) * inverse_w, (y - half_h) * inverse_h
        xmax, ymax = (x + half_w) * inverse_w, (y + half_h) * inverse_h
    if clipped:
        xmin, ymin = np.maximum(xmin, F32(0)), np.maximum(ymin, F32(0))
        xmax, ymax = np.minimum(xmax, F32(1)), np.minimum(ymax, F32(1))
    return np.stack(np.broadcast_arrays(xmin, ymin, xmax, ymax), axis=-1).astype(F32)
