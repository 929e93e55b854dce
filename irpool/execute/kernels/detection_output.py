"""DetectionOutput-1 and -8 on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes them
(measured, docs/ops/DetectionOutput.md), in f32 whatever the inputs' type.

Per image: the boxes decoded from the priors (CORNER: prior + variance * offset; CENTER_SIZE:
centre and size moved and scaled, exp the C library's: irpool/cpu/scalar_exp.py), clipped to
[0, 1] with `clip_before_nms` (NaN goes to 1, as the plugin's std::min/std::max take it).
Caffe's style: per class but the background, the priors scoring above `confidence_threshold`,
by score then prior, the first `top_k`, then greedy suppression of each box whose IoU with a
box kept is above `nms_threshold`. MXNet's style (`decrease_label_id`): each prior's best
class from class 1 (scores at or above the threshold and above -1), `top_k` over the image,
suppression within each class, labels one less. Then the `keep_top_k` best of the image
(score, then prior). Rows go out by image, class, then score; after the last, a row starting
with -1 when the output has room, zeros after it. With five inputs the ARM's objectness
(below `objectness_score`: background) replaces the scores and its offsets decode the priors
first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.scalar_exp import expf
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.detection_output import CORNER, DetectionOutputBase

F32 = np.float32
Floats = NDArray[np.float32]


@dataclass(frozen=True)
class Geometry:
    """The counts the plugin derives from the input shapes."""

    images: int
    priors: int
    classes: int

    def rows(self, op: DetectionOutputBase) -> int:
        """The output's rows, as shape inference counts them on static shapes."""
        top_k = int(op.attrs["top_k"])
        if op.keep_top_k > 0:
            return self.images * op.keep_top_k
        if op.keep_top_k == -1 and top_k > 0:
            return self.images * top_k * self.classes
        return self.images * self.priors * self.classes


def _clip(values: Floats) -> Floats:
    """max(0, min(1, x)) as std::min and std::max compute it: NaN gives 1, -0 gives 0."""
    below = np.where(values < F32(1), values, F32(1))
    return np.where(F32(0) < below, below, F32(0)).astype(F32)


def _decode(
    op: DetectionOutputBase, priors: Floats, offsets: Floats, variances: Floats | None
) -> tuple[Floats, Floats]:
    """Boxes [P, 4] (xmin, ymin, xmax, ymax) and their areas [P] from priors [P, 4] and the
    predicted offsets [P, 4], each step in f32 as the plugin's decodeBBoxes."""
    xmin, ymin, xmax, ymax = (priors[:, k].astype(F32) for k in range(4))
    if not op.attrs["normalized"]:
        width, height = F32(op.attrs["input_width"]), F32(op.attrs["input_height"])
        xmin, ymin, xmax, ymax = xmin / width, ymin / height, xmax / width, ymax / height
    scaled = [offsets[:, k] if variances is None else variances[:, k] * offsets[:, k]
              for k in range(4)]  # fmt: skip
    if op.attrs["code_type"] == CORNER:
        corners = [xmin + scaled[0], ymin + scaled[1], xmax + scaled[2], ymax + scaled[3]]
    else:
        width_p, height_p = xmax - xmin, ymax - ymin
        center_x = (xmin + xmax) / F32(2)
        center_y = (ymin + ymax) / F32(2)
        box_x = scaled[0] * width_p + center_x
        box_y = scaled[1] * height_p + center_y
        box_w = expf(np.asarray(scaled[2], F32)) * width_p
        box_h = expf(np.asarray(scaled[3], F32)) * height_p
        half_w, half_h = box_w / F32(2), box_h / F32(2)
        corners = [box_x - half_w, box_y - half_h, box_x + half_w, box_y + half_h]
    boxes = np.stack(corners, axis=1).astype(F32)
    if op.attrs["clip_before_nms"]:
        boxes = _clip(boxes)
    areas = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).astype(F32)
    return boxes, areas


def _suppressed(boxes: Floats, areas: Floats, threshold: F32) -> NDArray[np.bool_]:
    """[i, j]: candidate i's IoU with candidate j is above `threshold`, as the plugin's
    JaccardOverlap(i, j) computes it: 0 when they are apart or their intersection has no width
    or height (a NaN IoU suppresses nothing)."""
    xmin1, ymin1, xmax1, ymax1 = (boxes[:, k, None] for k in range(4))
    xmin2, ymin2, xmax2, ymax2 = (boxes[None, :, k] for k in range(4))
    apart = (xmin2 > xmax1) | (xmax2 < xmin1) | (ymin2 > ymax1) | (ymax2 < ymin1)
    with np.errstate(all="ignore"):  # inf - inf: NaN, as in the plugin
        width = np.where(xmax2 < xmax1, xmax2, xmax1) - np.where(xmin1 < xmin2, xmin2, xmin1)
        height = np.where(ymax2 < ymax1, ymax2, ymax1) - np.where(ymin1 < ymin2, ymin2, ymin1)
        inter = (width * height).astype(F32)
        iou = (inter / (areas[:, None] + areas[None, :] - inter)).astype(F32)
    empty = apart | (width <= 0) | (height <= 0)
    return np.asarray(~empty & (iou > threshold))


def _greedy(boxes: Floats, areas: Floats, threshold: F32) -> list[int]:
    """The candidates (in order) that no candidate kept before them suppresses."""
    by_kept = np.ascontiguousarray(_suppressed(boxes, areas, threshold).T)  # [kept, candidate]
    removed = np.zeros(len(boxes), np.bool_)
    kept: list[int] = []
    for i in range(len(boxes)):
        if not removed[i]:
            kept.append(i)
            removed |= by_kept[i]
    return kept


class Image:
    """One image's decoded boxes and scores, and its detections per class."""

    def __init__(
        self, op: DetectionOutputBase, geometry: Geometry, arrays: Sequence[Floats], n: int
    ) -> None:
        self.op, self.geometry = op, geometry
        priors, classes = geometry.priors, geometry.classes
        locations, proposals = arrays[0], arrays[2]
        row = proposals[n if proposals.shape[0] != 1 else 0]
        size = op.prior_size
        prior_boxes = row[0].reshape(priors, size)[:, size - 4 :]
        self.actual = priors
        if not op.attrs["normalized"]:  # the priors end at the first image id of -1
            ends = np.flatnonzero(row[0].reshape(priors, size)[:, 0] == F32(-1))
            self.actual = int(ends[0]) if ends.size else priors
        variances = None
        if not op.attrs["variance_encoded_in_target"]:
            variances = row[1][: priors * 4].reshape(priors, 4)
        # scores [C, P]; the ARM's background priors scored as background only
        self.scores = arrays[1][n].reshape(priors, classes).T.copy()
        background = op.attrs["background_label_id"]
        if len(arrays) == 5:
            dropped = arrays[3][n].reshape(priors, 2)[:, 1] < F32(op.attrs["objectness_score"])
            fill = (np.arange(classes) == background).astype(F32)
            self.scores[:, dropped] = fill[:, None]
        shared = op.attrs["share_location"]
        per_prior = locations[n].reshape(priors, 1 if shared else classes, 4)
        self.boxes = np.zeros((per_prior.shape[1], priors, 4), F32)
        self.areas = np.zeros((per_prior.shape[1], priors), F32)
        for c in range(per_prior.shape[1]):
            if not shared and c == background:
                continue
            with np.errstate(all="ignore"):
                if len(arrays) == 5:
                    arm = arrays[4][n].reshape(per_prior.shape)[:, c]
                    first, _ = _decode(op, prior_boxes, arm, variances)
                    boxes, areas = _decode(op, first, per_prior[:, c], variances)
                else:
                    boxes, areas = _decode(op, prior_boxes, per_prior[:, c], variances)
            self.boxes[c], self.areas[c] = boxes, areas

    def _location(self, c: int) -> int:
        return 0 if self.op.attrs["share_location"] else c

    def _best(self, candidates: NDArray[np.int64], scores: Floats) -> NDArray[np.int64]:
        """The first `top_k` candidates by score, then index (the plugin's topk)."""
        order = candidates[np.lexsort((candidates, -scores))]
        top_k = int(self.op.attrs["top_k"])
        return order if top_k == -1 else order[: max(top_k, 0)]

    def _kept(self, c: int, priors: NDArray[np.int64]) -> list[int]:
        """The priors of class `c` (candidates in order) that suppression keeps."""
        where = self._location(c)
        boxes, areas = self.boxes[where][priors], self.areas[where][priors]
        threshold = F32(self.op.attrs["nms_threshold"])
        return [int(priors[i]) for i in _greedy(boxes, areas, threshold)]

    def detections(self) -> list[list[int]]:
        """Per class, the priors detected, in output order."""
        classes = self.geometry.classes
        if self.op.attrs["decrease_label_id"]:
            kept = self._mxnet()
        else:
            kept = [[] for _ in range(classes)]
            threshold = F32(self.op.attrs["confidence_threshold"])
            for c in range(classes):
                if c == self.op.attrs["background_label_id"]:
                    continue
                scores = self.scores[c, : self.actual]
                above = np.flatnonzero(scores > threshold)
                kept[c] = self._kept(c, self._best(above, scores[above]))
        return self._keep_top_k(kept)

    def _mxnet(self) -> list[list[int]]:
        priors = self.geometry.priors
        threshold = F32(self.op.attrs["confidence_threshold"])
        scores = self.scores[1:, : self.actual]
        valid = (scores >= threshold) & (scores > F32(-1))
        masked = np.where(valid, scores, -np.inf)
        best = np.argmax(masked, axis=0) + 1 if scores.size else np.zeros(0, np.int64)
        chosen = np.flatnonzero(valid.any(axis=0)) if scores.size else np.zeros(0, np.int64)
        indices = best[chosen] * priors + chosen
        order = self._best(indices.astype(np.int64), self.scores.ravel()[indices])
        classes, chosen_priors = np.divmod(order, priors)
        return [self._kept(c, chosen_priors[classes == c]) for c in range(self.geometry.classes)]

    def _keep_top_k(self, kept: list[list[int]]) -> list[list[int]]:
        keep = self.op.keep_top_k
        total = sum(len(priors) for priors in kept)
        if keep <= -1 or total <= keep:
            return kept
        found = [(float(self.scores[c, p]), c, p) for c, priors in enumerate(kept) for p in priors]
        found.sort(key=lambda item: (-item[0], item[2]))
        trimmed: list[list[int]] = [[] for _ in kept]
        for _, c, prior in found[:keep]:
            trimmed[c].append(prior)
        return trimmed

    def rows(self, n: int) -> list[Floats]:
        decrease = self.op.attrs["decrease_label_id"]
        out = []
        for c, priors in enumerate(self.detections()):
            for prior in priors:
                box = self.boxes[self._location(c), prior]
                if self.op.attrs["clip_after_nms"]:
                    box = _clip(box)
                head = [F32(n), F32(c - 1 if decrease else c), self.scores[c, prior]]
                out.append(np.concatenate([np.array(head, F32), box]).astype(F32))
        return out


@kernel_for(DetectionOutputBase)
def run_detection_output(
    op: DetectionOutputBase, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    arrays = [np.asarray(array).astype(F32) for array in inputs]
    images = arrays[1].shape[0]
    priors = arrays[2].shape[2] // op.prior_size
    geometry = Geometry(images, priors, arrays[1].shape[1] // priors)
    rows = geometry.rows(op)
    result = np.zeros((rows, 7), F32)
    count = 0
    for n in range(images):
        for row in Image(op, geometry, arrays, n).rows(n):
            result[count] = row
            count += 1
    if count < rows:
        result[count, 0] = F32(-1)
    return [result.reshape(1, 1, rows, 7).astype(outputs[0].type.dtype)]
