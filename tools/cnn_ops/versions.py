"""Section 7: the op types and versions convert_model writes for the classifiers' patterns."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from ov_builders import ov

from cnn_ops.probes import Row, table


def versions_section() -> list[str]:
    """Op types and versions in the IR of a small torch module with the classifiers' patterns
    (conv, depthwise conv, relu, relu6, sigmoid gating, silu, hardswish, hardsigmoid, channel
    shuffle, chunk, cat, pooling, linear, softmax), converted with static, dynamic-batch and
    dynamic inputs."""
    try:
        import torch
    except ImportError:
        return ["## 7. Op versions written by convert_model: torch is not installed, skipped", ""]
    from collections import Counter

    class Patterns(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, 2, 1)
            self.depthwise = torch.nn.Conv2d(8, 8, 3, 1, 1, groups=8)
            self.fc = torch.nn.Linear(8, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            functional = torch.nn.functional
            y = functional.relu6(torch.relu(self.conv(x)))
            y = y * torch.sigmoid(y) + functional.silu(y)
            y = functional.hardswish(self.depthwise(y)) + functional.hardsigmoid(y)
            b, c, h, w = y.shape
            y = y.view(b, 2, c // 2, h, w).transpose(1, 2).contiguous().view(b, -1, h, w)
            first, second = y.chunk(2, dim=1)
            y = torch.cat([first, second * 2], 1) / (y.shape[2] * 1.0)
            logits: torch.Tensor = self.fc(functional.adaptive_avg_pool2d(y, 1).flatten(1))
            return logits.softmax(-1)

    module, example = Patterns().eval(), torch.randn(1, 3, 16, 16)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.xml"
        for label, shape in (
            ("static", None),
            ("dynamic batch", [-1, 3, 16, 16]),
            ("dynamic", [-1, 3, -1, -1]),
        ):
            options = {"input": shape} if shape else {}
            ov.save_model(ov.convert_model(module, example_input=example, **options), path)
            xml = path.read_text()
            found = Counter(re.findall(r'type="(\w+)" version="(\w+)"', xml))
            pythondiv = sorted(set(re.findall(r'm_pythondiv="(\w+)"', xml)))
            listed = ", ".join(
                f"{t}-{v.removeprefix('opset')} ×{n}" for (t, v), n in sorted(found.items())
            )
            rows.append((label, listed, pythondiv))
    return [
        "## 7. Op versions written by convert_model (torch " + torch.__version__ + ")",
        "",
        *table(["input", "types and versions", "m_pythondiv"], rows),
    ]
