"""IR written by OpenVINO's own serializer: it validates clean, and irpool infers its shapes.

The corpus is produced by tools/gen_golden.py with the real runtime; rerun it to regenerate.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import irpool
from irpool.rules import FAMILIES, Severity

GOLDEN = Path(__file__).resolve().parent / "golden"
EXPECTED: dict[str, dict[str, dict[str, dict[str, list[str]]]]] = json.loads(
    (GOLDEN / "expected.json").read_text()
)


def _cannot_run_on_cpu(model: irpool.Model) -> bool:
    """What the serializer can write but the CPU plugin cannot compile: AvgPool-16 with empty
    dilations, or an input of dynamic rank."""
    return any(
        (layer.type == "AvgPool" and layer.data is not None and layer.data.get("dilations") == "")
        or (
            layer.type == "Parameter"
            and layer.data is not None
            and layer.data.get("shape") == "..."
        )
        for layer in model.graph.layers.values()
    )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_serializer_output_validates_clean(name: str) -> None:
    model = irpool.load(GOLDEN / "models" / name)
    problems = [d for d in model.validate() if d.severity is not Severity.INFO]
    if _cannot_run_on_cpu(model):
        # The one exception: a file OpenVINO reads but its CPU plugin cannot compile.
        assert {d.code for d in problems} <= FAMILIES["IR214"]
    else:
        assert problems == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_inferred_shapes_match_openvino(name: str) -> None:
    model = irpool.load(GOLDEN / "models" / name)
    for layer_name, expected in EXPECTED[name]["layers"].items():
        layer = model.layer(layer_name)
        if expected["type"] == "Result":  # a Result's shape is that of its input
            source, index = model.graph.producers[(layer.id, 0)]
            infos = [model.checked.outputs[source][index]]
        else:
            infos = model.outputs_of(layer) or []
            assert layer.id not in model.checked.trusted, f"{layer_name} was not inferred"
        assert [str(info.shape) for info in infos] == expected["shapes"], layer_name
        assert [info.element_type for info in infos] == expected["element_types"], layer_name
