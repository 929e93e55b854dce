"""Planning a run replaces the ops the CPU plugin fuses or rewrites by copies: layers written
alike may share one op object (and later plans, and `validate`, read it), so no rewrite may
change an op that checking made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import irpool
from irpool.execute import plan

MODELS = Path(__file__).resolve().parents[1] / "models"
CORPUS = sorted(path for path in MODELS.glob("*/*/*.xml") if "tokenizer" not in path.name)


def _state(op: object) -> dict[str, Any]:
    return dict(vars(op))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_planning_changes_no_op_that_checking_made(path: Path) -> None:
    model = irpool.load(path)
    before = {layer_id: (op, _state(op)) for layer_id, op in model.checked.ops.items()}
    runner_input = plan.RunnerInput(
        model.graph, model.checked, model.document.ir_version, model.weights.read
    )
    plan.plan_execution(runner_input)
    for layer_id, (op, state) in before.items():
        assert model.checked.ops[layer_id] is op
        after = _state(op)
        assert after.keys() == state.keys(), model.graph.layers[layer_id].name
        changed = [key for key in state if after[key] is not state[key]]
        assert not changed, (model.graph.layers[layer_id].name, changed)
