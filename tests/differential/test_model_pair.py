"""Live differential test: `irpool compare A.xml B.xml` on irpool's engine against the same
comparison on OpenVINO's CPU plugin (`--openvino`), over the fp32/fp16 pairs of the committed
torchvision corpus: each tensor's B-vs-A difference agrees, and so does the first tensor
beyond the tolerance."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.compare.model_pair import compare_models, compare_models_on_openvino

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

TORCHVISION = Path(__file__).resolve().parent.parent / "models" / "torchvision"
PAIRS = sorted(
    (case, case.with_name(case.name.removesuffix("fp32") + "fp16"))
    for case in TORCHVISION.glob("*-fp32")
    if case.name.startswith(("resnet18", "mobilenet_v2", "vit_b_16"))
)


@pytest.mark.parametrize("pair", PAIRS, ids=[a.name.removesuffix("-fp32") for a, _ in PAIRS])
def test_differences_agree_with_the_cpu_plugins(pair: tuple[Path, Path]) -> None:
    a, b = (irpool.load(case / "model.xml") for case in pair)
    with np.load(pair[0] / "inputs-randn.npz") as recorded:
        inputs: dict[str | int, np.ndarray] = {k: recorded[k] for k in recorded.files}
    ours = compare_models(a, b, inputs, 1e-3)
    theirs = compare_models_on_openvino(ov, a, b, inputs, 1e-3)
    by_tensor = {row.tensor: row for row in theirs.tensors}
    assert len(by_tensor) >= len(ours.tensors) * 0.9
    for row in ours.tensors:
        other = by_tensor.get(row.tensor)
        if other is None:
            continue
        gap = abs(row.b_vs_a.max_abs - other.b_vs_a.max_abs)
        assert gap <= 0.05 * other.b_vs_a.max_abs + 1e-6 * other.b_vs_a.scale, row.tensor
    for (key, found), (other_key, other) in zip(ours.outputs, theirs.outputs, strict=True):
        assert key == other_key and found is not None and other is not None
        assert abs(found.max_abs - other.max_abs) <= 0.05 * other.max_abs + 1e-6 * other.scale
