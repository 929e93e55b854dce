"""NonMaxSuppression-5 and -9 on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes them
(measured, docs/ops/NonMaxSuppression.md): in f32, per batch and class, the boxes scoring
above `score_threshold` taken by score (then index); hard suppression drops a box whose IoU
with a box already selected is at least `iou_threshold`; soft suppression (`soft_nms_sigma`
above 0) multiplies a box's score by exp(-0.5 / sigma * IoU²) for each box selected since it
was last scored, the newest first and in the plugin's groups of 16, drops it at or below
`score_threshold` and scores it again if it changed. The selections go out by batch and
class, or, with `sort_result_descending`, by score (then batch, class, box), as many rows as
there are: the outputs' first dim is the count.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.non_max_suppression import NonMaxSuppressionBase

F32 = np.float32
# The plugin's soft suppression weighs the selected boxes 16 at a time (AVX-512 vectors).
LANES = 16


def _corners(boxes: NDArray[np.float32], center: bool) -> NDArray[np.float32]:
    """[ymin, xmin, ymax, xmax] per box, in f32 as the plugin computes them."""
    if center:
        x, y, w, h = boxes.T
        half_w, half_h = w / F32(2), h / F32(2)
        return np.stack([y - half_h, x - half_w, y + half_h, x + half_w], axis=1)
    y1, x1, y2, x2 = boxes.T
    return np.stack([_min(y1, y2), _min(x1, x2), _max(y1, y2), _max(x1, x2)], axis=1)


def _min(a: Any, b: Any) -> NDArray[Any]:
    """std::min: `a` unless `b` is less (a NaN compares false)."""
    return np.asarray(np.where(b < a, b, a))


def _max(a: Any, b: Any) -> NDArray[Any]:
    return np.asarray(np.where(a < b, b, a))


def _iou(box: NDArray[np.float32], others: NDArray[np.float32]) -> NDArray[np.float32]:
    """The IoU of one box ([4] corners) with others ([K, 4]), in f32: 0 when either has no
    area."""
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    height = _max(_min(box[2], others[:, 2]) - _max(box[0], others[:, 0]), F32(0))
    width = _max(_min(box[3], others[:, 3]) - _max(box[1], others[:, 1]), F32(0))
    inter = height * width
    with np.errstate(all="ignore"):
        iou = inter / (area + areas - inter)
    return np.where((area <= 0) | (areas <= 0), F32(0), iou).astype(F32)


def _hard(
    corners: NDArray[np.float32], order: list[int], iou_threshold: np.float32, limit: int
) -> list[int]:
    selected: list[int] = []
    for index in order:
        if len(selected) >= limit:
            break
        if selected and bool(np.any(_iou(corners[index], corners[selected]) >= iou_threshold)):
            continue
        selected.append(index)
    return selected


def _soft(
    corners: NDArray[np.float32],
    scores: NDArray[np.float32],
    order: list[int],
    scale: np.float32,
    threshold: np.float32,
    limit: int,
) -> list[tuple[float, int]]:
    # (-score, index, first selected box not yet weighed): the highest score first
    queue = [(-float(scores[i]), i, 0) for i in order]
    heapq.heapify(queue)
    negative, index, _ = heapq.heappop(queue)
    selected = [(-negative, index)]
    while len(selected) < limit and queue:
        negative, index, begin = heapq.heappop(queue)
        original = score = F32(-negative)
        others = np.array([i for _, i in selected[begin:]], np.int64)
        weights = np.exp(scale * _iou(corners[index], corners[others]) ** 2).astype(F32)
        suppressed = False
        end = len(weights)
        while end > 0:  # the newest first: groups of 16 from the end, then one by one
            start = end - LANES if end >= LANES else end - 1
            score = F32(score * _product(weights[start:end]))
            end = start
            if score <= threshold:
                suppressed = True
                break
        if suppressed:
            continue
        if score == original:
            selected.append((float(score), index))
        else:
            heapq.heappush(queue, (-float(score), index, len(selected)))
    return selected


def _product(weights: NDArray[np.float32]) -> np.float32:
    """The product of one group's weights in the plugin's order (one weight alone as is)."""
    if len(weights) == 1:
        return F32(weights[0])
    a, b, c, d = weights.reshape(4, 4)
    lanes = (d * c) * (a * b)
    return F32((lanes[0] * lanes[1]) * (lanes[2] * lanes[3]))


@kernel_for(NonMaxSuppressionBase)
def run_non_max_suppression(
    op: NonMaxSuppressionBase, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    boxes = np.asarray(inputs[0], F32)
    scores = np.asarray(inputs[1], F32)
    batches, classes, count = scores.shape
    limit = _limit(inputs[2] if len(inputs) > 2 else None, count)
    iou_threshold, score_threshold, sigma = (
        F32(np.asarray(inputs[i], F32).ravel()[0]) if len(inputs) > i else F32(0) for i in (3, 4, 5)
    )
    scale = F32(-0.5) / sigma if sigma > 0 else F32(0)
    center = op.attrs["box_encoding"] == "center"
    found: list[tuple[float, int, int, int]] = []  # score, batch, class, box
    for batch in range(batches if limit else 0):
        corners = _corners(boxes[batch], center)
        for klass in range(classes):
            row = scores[batch, klass]
            kept = [i for i in range(count) if row[i] > score_threshold]
            order = sorted(kept, key=lambda i: (-row[i], i))
            if not order:
                continue
            if sigma == 0:
                picks = [(float(row[i]), i) for i in _hard(corners, order, iou_threshold, limit)]
            else:
                picks = _soft(corners, row, order, scale, score_threshold, limit)
            found += [(score, batch, klass, box) for score, box in picks]
    if op.attrs["sort_result_descending"]:
        found.sort(key=lambda item: (-item[0], item[1], item[2], item[3]))
    index_type = outputs[0].dtype or np.dtype(np.int64)
    indices = np.array([[b, c, i] for _, b, c, i in found], index_type).reshape(-1, 3)
    chosen = np.array([[b, c, s] for s, b, c, _ in found], F32).reshape(-1, 3)
    return [indices, chosen, np.array([len(found)], index_type)]


def _limit(given: NDArray[Any] | None, count: int) -> int:
    """max_output_boxes_per_class as the plugin takes it: an int32 (0 when absent, a 64-bit
    one saturated), nothing selected at 0 or below, at most the box count."""
    if given is None:
        return 0
    value = int(np.clip(int(np.asarray(given).ravel()[0]), -(2**31), 2**31 - 1))
    return max(0, min(value, count))
