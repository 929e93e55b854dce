"""Port checks an op steers: IR506 port counts (optional trailing inputs included) and
IR305 precisions (a tensor written as another type)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

import irpool
from irpool.ops.adaptive_avg_pool import AdaptiveAvgPool8
from irpool.ops.base import LayerContext, TensorInfo
from irpool.ops.const import Constant
from tests import ir


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


def _const_to_result(tmp_path: Path, precision: str) -> Path:
    """An f32 Const returned by a Result, both ports saying `precision`."""
    text = ir.net(
        [
            ir.const(0, "value", [1, 2]).replace("i64", "f32").replace('"16"', '"8"'),
            ir.result(1, "output", [2]),
        ],
        [ir.edge(0, 0, 1, 0)],
    )
    text = text.replace('precision="I64"', f'precision="{precision}"')
    text = text.replace('precision="FP32"', f'precision="{precision}"')
    path = tmp_path / "const.xml"
    path.write_text(text)
    (tmp_path / "const.bin").write_bytes(b"\0" * 8)
    return path


def _precision_findings(path: Path) -> list[str]:
    return [d.code for d in irpool.load(path).validate() if d.code == "IR305"]


def test_a_tensor_written_as_another_type_matches_ports_saying_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _const_to_result(tmp_path, "FP16")
    assert _precision_findings(path) == ["IR305", "IR305"]  # output and input port
    infer = Constant.infer

    def written_as_f16(
        self: Constant, inputs: Sequence[TensorInfo], ctx: LayerContext
    ) -> list[TensorInfo]:
        return [replace(info, written_as="f16") for info in infer(self, inputs, ctx)]

    monkeypatch.setattr(Constant, "infer", written_as_f16)
    assert _precision_findings(path) == []
    assert _precision_findings(_const_to_result(tmp_path, "FP32")) == []
