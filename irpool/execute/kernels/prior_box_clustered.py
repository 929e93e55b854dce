"""PriorBoxClustered on NumPy arrays, as OpenVINO 2026.4 computes it (measured,
docs/ops/PriorBoxClustered.md): in f32, each step the attribute given (`step_w`/`step_h`,
else `step`), or, with neither, the image's size over the map's; centres `(w + offset) *
step`; corners `(centre ∓ size / 2) / image size`, clipped to [0, 1] with `clip`; the
variances (0.1 when none, one repeated four times) in the second row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.prior_box_clustered import PriorBoxClustered1

F32 = np.float32


@kernel_for(PriorBoxClustered1)
def run_prior_box_clustered(
    op: PriorBoxClustered1, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    height, width = (int(v) for v in np.asarray(inputs[0]).ravel()[:2])
    image_height, image_width = (int(v) for v in np.asarray(inputs[1]).ravel()[:2])
    step_w = F32(op.attrs["step_w"] or op.attrs["step"])
    step_h = F32(op.attrs["step_h"] or op.attrs["step"])
    if step_w == 0 and step_h == 0:
        step_w, step_h = F32(image_width) / F32(width), F32(image_height) / F32(height)
    offset = F32(op.attrs["offset"])
    sizes_w = np.array(op.attrs["width"], F32)
    sizes_h = np.array(op.attrs["height"], F32)
    with np.errstate(all="ignore"):
        centers_x = (np.arange(width, dtype=F32) + offset) * step_w  # [W]
        centers_y = (np.arange(height, dtype=F32) + offset) * step_h  # [H]
        half_w, half_h = sizes_w / F32(2), sizes_h / F32(2)
        x = centers_x[None, :, None]
        y = centers_y[:, None, None]
        boxes = np.stack(
            np.broadcast_arrays(
                (x - half_w) / F32(image_width),
                (y - half_h) / F32(image_height),
                (x + half_w) / F32(image_width),
                (y + half_h) / F32(image_height),
            ),
            axis=-1,
        ).astype(F32)
    if op.attrs["clip"]:
        boxes = np.minimum(np.maximum(boxes, F32(0)), F32(1))
    variances = list(op.attrs["variance"]) or [0.1]
    if len(variances) == 1:
        variances *= 4
    row = np.broadcast_to(np.array(variances, F32), boxes.shape).ravel()
    return [np.stack([boxes.ravel(), row]).astype(F32)]
