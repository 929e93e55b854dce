"""Steps that infer alike share their remembered shape inference
(irpool/execute/inference_groups.py)."""

from __future__ import annotations

from collections import defaultdict
from copy import copy
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.execute.inference_groups import inference_groups
from irpool.execute.plan import Step

LLAMA = Path(__file__).resolve().parent.parent / "models" / "language" / "llama-fp16"


def _cache_steps(steps: list[Step]) -> list[int]:
    """The KV caches' reads, joins and stores."""
    return [
        position
        for position, step in enumerate(steps)
        if step.layer.type == "ReadValue" or getattr(step.op, "cache_type", None) is not None
    ]


@pytest.mark.parametrize("kind", ["Concat", "ReadValue", "Assign"])
def test_a_decoder_blocks_k_and_v_caches_infer_alike(kind: str) -> None:
    """The K and V caches' joins, reads and stores (of different variables) share a group;
    every group holds one op type."""
    plan = irpool.load(LLAMA / "openvino_model.xml").execution_plan()
    steps_of: dict[int, list[Step]] = defaultdict(list)
    for step, group in zip(plan.steps, plan.inference_groups, strict=True):
        steps_of[group].append(step)
    assert all(len({type(step.op) for step in steps}) == 1 for steps in steps_of.values())
    caches = [p for p in _cache_steps(plan.steps) if plan.steps[p].layer.type == kind]
    assert len(caches) == 2 and len({plan.inference_groups[p] for p in caches}) == 1


def test_an_op_holding_more_than_plain_values_is_a_group_of_its_own() -> None:
    model = irpool.load(LLAMA / "openvino_model.xml")
    plan = model.execution_plan()
    steps = list(plan.steps)
    first, second = [p for p in _cache_steps(steps) if steps[p].layer.type == "Concat"]
    for position in (first, second):
        op = copy(steps[position].op)
        op.held = np.zeros(2)  # type: ignore[attr-defined]
        steps[position] = replace(steps[position], op=op)
    groups = inference_groups(
        model._runner_input(), steps, plan.inference_sources, plan.run_sources,
        plan.constant_infos,
    )  # fmt: skip
    assert groups[first] != groups[second]
    others = [p for p in range(len(steps)) if p not in (first, second)]
    assert _partition(groups, others) == _partition(plan.inference_groups, others)


def _partition(groups: list[int], positions: list[int]) -> set[frozenset[int]]:
    members: dict[int, set[int]] = defaultdict(set)
    for position in positions:
        members[groups[position]].add(position)
    return {frozenset(group) for group in members.values()}
