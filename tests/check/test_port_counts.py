"""IR506: a layer's port counts against its op, optional trailing inputs included."""

from __future__ import annotations

from pathlib import Path

import pytest

import irpool
from irpool.ops.adaptive_avg_pool import AdaptiveAvgPool8
from tests.hardening import ir


def _with_input_ports(tmp_path: Path, count: int) -> Path:
    """The adaptive model with its pool given `count` input ports (the first two connected)."""
    text = ir.adaptive_model()
    extra = "".join(ir.port(10 + i, [2], "I64") for i in range(count - 2))
    text = text.replace("</port>\n\t\t\t</input>", f"</port>\n{extra}\t\t\t</input>", 1)
    path = tmp_path / "pool.xml"
    path.write_text(text)
    (tmp_path / "pool.bin").write_bytes(ir.weights([2, 2]))
    return path


def _port_findings(path: Path) -> list[str]:
    return [d.message for d in irpool.load(path).validate() if d.code == "IR506"]


@pytest.mark.parametrize(
    ("optional", "ports", "message"),
    [
        (0, 2, None),
        (0, 3, "the layer has 3 input port(s); AdaptiveAvgPool-8 has 2 (data, output_size)"),
        (1, 3, "the layer has 3 input port(s); AdaptiveAvgPool-8 has 1 or 2 (data, output_size)"),
    ],
)
def test_optional_inputs_widen_the_accepted_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, optional: int, ports: int, message: str | None
) -> None:
    monkeypatch.setattr(AdaptiveAvgPool8, "optional_inputs", optional)
    assert _port_findings(_with_input_ports(tmp_path, ports)) == ([message] if message else [])
