"""`irpool compare A.xml B.xml`: two models of one network (fp32 against fp16, INT8 or INT4, a
file before and after an edit) on the same inputs, tensor by tensor.

- B's tensors are matched to A's by a tensor name, else by layer name and output index, else
  by the layer names in B's `fused_names` rt_info. What stays unmatched on either side is
  listed.
- Each matched tensor gets two differences against A's: B's own value (`b_vs_a`, what the
  models' runs differ by so far), and what B's layer **introduces**: the layer computed by B
  from A's values of its inputs (B's own constants, so B's weights), against A's output.
  The first is the accumulated error, the second the layer's own share of it.
- Memory stays bounded: A's matched tensors go to a temporary folder as they are computed,
  and B's run reads back only those its current layer needs; no run keeps its tensors.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.compare.differences import Difference, difference
from irpool.compare.openvino_runs import F32, run_openvino
from irpool.execute.bind import bind
from irpool.execute.plan import ExecutionPlan, Ref, Step
from irpool.execute.tensors import ComputedTensor
from irpool.graph.graph import Layer
from irpool.model import Model


@dataclass(frozen=True, slots=True)
class PairRow:
    """One of B's tensors matched to A's, in B's run order (`how`: name, layer or fused)."""

    tensor: str  # B's key
    layer: Layer  # B's layer
    index: int
    matched: str  # A's key
    how: str
    shape: tuple[int, ...]
    b_vs_a: Difference
    introduced: Difference | None  # None: an input of the layer has no match in A


@dataclass(frozen=True, slots=True)
class PairComparison:
    model_a: str
    model_b: str
    tolerance: float
    tensors: list[PairRow]
    outputs: list[tuple[str, Difference | None]]  # B's output key, against A's output
    unmatched_a: list[str]
    unmatched_b: list[str]

    def first_outside(self) -> PairRow | None:
        """The first tensor, in B's run order, whose b_vs_a leaves the tolerance."""
        return next((row for row in self.tensors if not row.b_vs_a.within), None)

    def ranked(self) -> list[PairRow]:
        """The layers by the difference they introduce, largest first."""
        known = [row for row in self.tensors if row.introduced is not None]
        return sorted(known, key=lambda row: _rank(row.introduced), reverse=True)


def _rank(found: Difference | None) -> tuple[int, float]:
    if found is None:
        return (0, 0.0)
    return (1 if found.shapes_differ or found.nonfinite_mismatches else 0, found.max_rel)


def match_tensors(a: Model, b: Model) -> dict[Ref, tuple[ComputedTensor, str]]:
    """B's tensor refs -> (A's tensor, how it was matched)."""
    a_tensors = a.execution_plan().tensors
    by_name = {name: t for t in a_tensors for name in t.names}
    by_layer = {(t.layer.name, t.index): t for t in a_tensors}
    by_fused = {
        (name, t.index): t for t in a_tensors for name in (t.layer.name, *_fused_names(t.layer))
    }
    found: dict[Ref, tuple[ComputedTensor, str]] = {}
    for tensor in b.execution_plan().tensors:
        named = next((by_name[n] for n in tensor.names if n in by_name), None)
        if named is not None:
            found[tensor.ref] = (named, "name")
        elif (tensor.layer.name, tensor.index) in by_layer:
            found[tensor.ref] = (by_layer[(tensor.layer.name, tensor.index)], "layer")
        else:
            fused = [by_fused.get((n, tensor.index)) for n in _fused_names(tensor.layer)]
            hit = next((t for t in fused if t is not None), None)
            if hit is not None:
                found[tensor.ref] = (hit, "fused")
    return found


def _fused_names(layer: Layer) -> tuple[str, ...]:
    """The layer names OpenVINO's rt_info `fused_names` lists (Model Optimizer writes it)."""
    for attribute in layer.element.iterfind("rt_info/attribute"):
        if attribute.get("name") == "fused_names":
            return tuple(n for n in (attribute.get("value") or "").split(",") if n)
    return ()


def compare_models(
    a: Model,
    b: Model,
    inputs: Mapping[str | int, Any],
    tolerance: float,
    cast: bool = False,
    on_cast: Callable[[str], None] | None = None,
) -> PairComparison:
    """Run both on irpool's engine and compare (InvalidModelError, InputError and
    ExecutionError as `run` raises them)."""
    matched = match_tensors(a, b)
    wanted = {tensor.ref: tensor for tensor, _ in matched.values()}
    with tempfile.TemporaryDirectory(prefix="irpool-compare-") as folder:
        stored: dict[Ref, Path] = {}

        def store(step: Step, tensors: Mapping[Ref, NDArray[Any]]) -> None:
            for index in step.kept:
                ref = (step.layer.id, index)
                if ref in wanted:
                    stored[ref] = Path(folder) / f"{len(stored)}.npy"
                    np.save(stored[ref], tensors[ref], allow_pickle=False)

        outputs_a = a.run(inputs, cast=cast, on_cast=on_cast, observe=store)
        walk = _BWalk(b.execution_plan(), matched, stored, tolerance)
        outputs_b = b.run(inputs, cast=cast, observe=walk.step)
    outputs = [
        (key, difference(value, outputs_a[key], tolerance) if key in outputs_a else None)
        for key, value in outputs_b.items()
    ]
    return _comparison(a, b, tolerance, walk.rows, outputs, matched)


def compare_models_on_openvino(
    openvino: ModuleType,
    a: Model,
    b: Model,
    inputs: Mapping[str | int, Any],
    tolerance: float,
    cast: bool = False,
    on_cast: Callable[[str], None] | None = None,
) -> PairComparison:
    """Both models on OpenVINO's CPU plugin (f32 inference precision), the matched tensors
    probed: B vs A per tensor. A layer cannot be run there on other inputs, so nothing is
    `introduced`. OpenVINOError when OpenVINO refuses a model or the inputs."""
    matched = match_tensors(a, b)
    runs = []
    for model, probes in (
        (a, [(tensor.layer, tensor.index) for tensor, _ in matched.values()]),
        (b, [(t.layer, t.index) for t in b.execution_plan().tensors if t.ref in matched]),
    ):
        plan = model.execution_plan()
        bound = bind(inputs, plan.parameters, plan.by_name, cast, on_cast)
        by_layer = {p.layer.name: bound[(p.layer.id, 0)] for p in plan.parameters}
        runs.append(run_openvino(openvino, model.path, model.weights.path, by_layer, probes, F32))
    run_a, run_b = runs
    rows = []
    for tensor in b.execution_plan().tensors:
        if tensor.ref not in matched:
            continue
        a_tensor, how = matched[tensor.ref]
        ours, theirs = run_b.tensors.get(tensor.ref), run_a.tensors.get(a_tensor.ref)
        if ours is None or theirs is None:
            continue
        found = difference(ours, theirs, tolerance)
        rows.append(
            PairRow(
                tensor.name, tensor.layer, tensor.index, a_tensor.name, how, ours.shape, found, None
            )
        )
    a_results = {output.name: output.layer.name for output in a.outputs}
    outputs = []
    for output in b.outputs:
        theirs = run_a.outputs.get(a_results.get(output.name, ""))
        ours = run_b.outputs[output.layer.name]
        outputs.append(
            (output.name, None if theirs is None else difference(ours, theirs, tolerance))
        )
    return _comparison(a, b, tolerance, rows, outputs, matched)


def _comparison(
    a: Model,
    b: Model,
    tolerance: float,
    rows: list[PairRow],
    outputs: list[tuple[str, Difference | None]],
    matched: Mapping[Ref, tuple[ComputedTensor, str]],
) -> PairComparison:
    a_keys = {tensor.name for tensor, _ in matched.values()}
    unmatched_a = [t.name for t in a.execution_plan().tensors if t.name not in a_keys]
    unmatched_b = [t.name for t in b.execution_plan().tensors if t.ref not in matched]
    shown_a, shown_b = a.document.display_path, b.document.display_path
    return PairComparison(shown_a, shown_b, tolerance, rows, outputs, unmatched_a, unmatched_b)


class _BWalk:
    """Follows B's run: each step's matched outputs against A's, and the step again on A's
    values of its inputs."""

    def __init__(
        self,
        plan: ExecutionPlan,
        matched: Mapping[Ref, tuple[ComputedTensor, str]],
        stored: Mapping[Ref, Path],
        tolerance: float,
    ) -> None:
        self.keys = {tensor.ref: tensor.name for tensor in plan.tensors}
        self.computed = set(self.keys)
        self.matched = matched
        self.stored = stored
        self.tolerance = tolerance
        self.rows: list[PairRow] = []

    def step(self, step: Step, tensors: Mapping[Ref, NDArray[Any]]) -> None:
        refs = [(step.layer.id, i) for i in step.kept if (step.layer.id, i) in self.matched]
        if not refs:
            return
        again = self._on_a_inputs(step, tensors)
        for ref in refs:
            a_tensor, how = self.matched[ref]
            theirs = np.load(self.stored[a_tensor.ref], allow_pickle=False)
            ours = tensors[ref]
            redone = None if again is None else again[ref[1]]
            introduced = None if redone is None else difference(redone, theirs, self.tolerance)
            self.rows.append(
                PairRow(
                    self.keys[ref],
                    step.layer,
                    ref[1],
                    a_tensor.name,
                    how,
                    tuple(ours.shape),
                    difference(ours, theirs, self.tolerance),
                    introduced,
                )
            )

    def _on_a_inputs(
        self, step: Step, tensors: Mapping[Ref, NDArray[Any]]
    ) -> list[NDArray[Any] | None] | None:
        """The step computed by B on A's values of the inputs B computes (its constants and
        the model's inputs as they are); None when one has no match in A."""
        arrays: list[NDArray[Any]] = []
        for ref in step.inputs:
            held = tensors[ref]  # alive: the step frees what it read last only after this
            if ref not in self.computed:  # a constant or an input of the model: B's own
                arrays.append(held)
                continue
            match = self.matched.get(ref)
            if match is None or match[0].ref not in self.stored:
                return None
            value = np.load(self.stored[match[0].ref], allow_pickle=False)
            arrays.append(value.astype(held.dtype, copy=False))
        return step.kernel(step.op, arrays, step.outputs)
