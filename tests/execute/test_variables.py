"""ReadValue and Assign run on an infer request (`Model.create_infer_request`): variables carry
from one `infer` to the next, `reset_state` goes back to the first values, `query_state`
shows them, `Model.run` never keeps them, and requests are independent across threads. The
values are OpenVINO 2026.4.1's (measured, docs/ops/ReadValue.md); the live comparison is
tests/differential/test_variables.py."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.bounds import Bounds
from irpool.ops.convert import Convert1
from irpool.ops.mat_mul import MatMul1
from irpool.ops.registry import registered_ops
from irpool.ops.squeeze import Unsqueeze1
from irpool.ops.variables import ReadValueBase
from irpool.shape import Shape
from tests import ir

X = np.array([[1, 1]], np.float32)


def stateful(
    tmp_path: Path,
    read_value: str = "opset6",
    initializer: bool = True,
    variable_shape: str = "1,2",
    assign: str = "opset6",
) -> irpool.Model:
    text = ir.stateful_model(read_value, initializer, variable_shape, assign)
    return irpool.load(ir.write(tmp_path, text, ir.STATEFUL_WEIGHTS))


@pytest.mark.parametrize(
    ("read_value", "initializer", "variable_shape", "steps"),
    [  # OpenVINO's outputs, step after step
        ("opset6", True, "1,2", [[2, 3], [3, 4], [4, 5]]),
        ("opset6", True, "?,2", [[2, 3], [3, 4], [4, 5]]),
        ("opset3", True, "1,2", [[2, 3], [3, 4], [4, 5]]),
        ("opset6", False, "1,2", [[1, 1], [2, 2], [3, 3]]),  # zeros first
    ],
)
def test_steps_carry_the_variable(
    tmp_path: Path, read_value: str, initializer: bool, variable_shape: str, steps: list[list[int]]
) -> None:
    model = stateful(tmp_path, read_value, initializer, variable_shape)
    assert [d.code for d in model.validate()] == []
    request = model.create_infer_request()
    for expected in steps:
        outputs = request.infer({"x": X})
        np.testing.assert_array_equal(outputs["sum"], [expected])
        np.testing.assert_array_equal(request.query_state()["v"], [expected])
    request.reset_state()
    np.testing.assert_array_equal(request.infer({"x": X})["sum"], [steps[0]])


def test_query_state_before_a_run_shows_zeros(tmp_path: Path) -> None:
    """As OpenVINO's: zeros of the variable's shape, though the first run starts from the
    initializer."""
    request = stateful(tmp_path).create_infer_request()
    np.testing.assert_array_equal(request.query_state()["v"], [[0, 0]])
    request.infer({"x": X})
    request.reset_state()
    np.testing.assert_array_equal(request.query_state()["v"], [[0, 0]])


def test_query_state_gives_copies(tmp_path: Path) -> None:
    request = stateful(tmp_path).create_infer_request()
    request.infer({"x": X})
    request.query_state()["v"][...] = 100
    outputs = request.infer({"x": X})
    outputs["sum"][...] = -100  # the caller's own array: the variable is not it
    np.testing.assert_array_equal(request.query_state()["v"], [[3, 4]])


def test_run_is_stateless(tmp_path: Path) -> None:
    model = stateful(tmp_path)
    request = model.create_infer_request()
    request.infer({"x": X})
    for _ in range(3):
        np.testing.assert_array_equal(model.run({"x": X})["sum"], [[2, 3]])
    np.testing.assert_array_equal(request.infer({"x": X})["sum"], [[3, 4]])


def test_a_variable_of_dynamic_dims_starts_empty(tmp_path: Path) -> None:
    """Without an initializer a dynamic dim is 0 (OpenVINO: a [0,2] tensor); x then
    broadcasts into it."""
    model = stateful(tmp_path, initializer=False, variable_shape="?,2")
    request = model.create_infer_request()
    assert request.query_state()["v"].shape == (0, 2)
    assert request.infer({"x": X})["sum"].shape == (0, 2)


def test_requests_are_independent_across_threads(tmp_path: Path) -> None:
    model = stateful(tmp_path)
    requests = [model.create_infer_request() for _ in range(6)]
    steps = [3 + index for index in range(6)]
    failures: list[BaseException] = []
    start = threading.Barrier(len(requests))

    def work(request: irpool.InferRequest, count: int) -> None:
        try:
            start.wait()
            for _ in range(count):
                request.infer({"x": X})
        except BaseException as error:  # reported by the main thread
            failures.append(error)

    threads = [
        threading.Thread(target=work, args=pair) for pair in zip(requests, steps, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for request, count in zip(requests, steps, strict=True):
        np.testing.assert_array_equal(request.query_state()["v"], [[1 + count, 2 + count]])


def test_one_request_shared_by_threads_runs_each_infer_once(tmp_path: Path) -> None:
    request = stateful(tmp_path).create_infer_request()
    threads = [threading.Thread(target=request.infer, args=({"x": X},)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    np.testing.assert_array_equal(request.query_state()["v"], [[9, 10]])


def test_a_model_with_errors_gives_no_request(tmp_path: Path) -> None:
    model = stateful(tmp_path, read_value="opset6", assign="opset3")  # IR510
    assert [d.code for d in model.validate()] == ["IR510"]
    with pytest.raises(irpool.InvalidModelError):
        model.create_infer_request()


LLAMA = Path(__file__).resolve().parent.parent / "models" / "language" / "llama-fp16"


def _decode_inputs(position: int) -> dict[str | int, Any]:
    return {
        "input_ids": np.array([[5 + position]], np.int64),
        "attention_mask": np.ones((1, position + 1), np.int64),
        "position_ids": np.array([[position]], np.int64),
        "beam_idx": np.zeros(1, np.int32),
    }


def test_remembered_inference_gives_the_same_steps() -> None:
    """A decode step re-infers only the layers whose inputs changed (the plan remembers the
    others): every step equals a step inferred from scratch, the plan forgotten before it."""
    model = irpool.load(LLAMA / "openvino_model.xml")
    remembering, forgetting = model.create_infer_request(), model.create_infer_request()
    plan = model.execution_plan()
    for position in range(6):
        inputs = _decode_inputs(position)
        remembered = remembering.infer(inputs)
        plan.inferred.clear()
        fresh = forgetting.infer(inputs)
        assert plan.inferred.by_key  # the run remembered what it inferred
        for key, value in fresh.items():
            np.testing.assert_array_equal(remembered[key], value)


def test_requests_at_other_lengths_in_turn_give_what_each_gives_alone() -> None:
    """A run starts from the last whole run's inferences, another request's at another
    length (and a first run's, whose variables are not held yet) included: requests taking
    turns give what each gives alone."""
    model, alone = irpool.load(LLAMA / "openvino_model.xml"), {}
    for name in "ab":
        reference = irpool.load(LLAMA / "openvino_model.xml").create_infer_request()
        alone[name] = [reference.infer(_decode_inputs(position)) for position in range(4)]
    requests = {name: model.create_infer_request() for name in "ab"}
    turns = [("a", 0), ("a", 1), ("b", 0), ("a", 2), ("b", 1), ("b", 2), ("a", 3), ("b", 3)]
    for name, position in turns:
        outputs = requests[name].infer(_decode_inputs(position))
        for key, value in alone[name][position].items():
            np.testing.assert_array_equal(outputs[key], value)


def test_each_run_infers_a_variables_read_at_the_length_it_holds() -> None:
    """A ReadValue's value is no input of it: a run infers it at the held value's shape
    (the KV length before the token), though its initializer did not change."""
    model = irpool.load(LLAMA / "openvino_model.xml")
    request, plan = model.create_infer_request(), model.execution_plan()
    reads = [step.layer.id for step in plan.steps if isinstance(step.op, ReadValueBase)]
    for position in range(3):
        request.infer(_decode_inputs(position))
        lengths = {plan.inferred.previous.infos[(read, 0)].shape.values()[2] for read in reads}
        assert lengths == {position}


def _counted_inferences(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The positions of the steps each run infers from here on, in order."""
    from irpool.execute import reinfer

    inferred: list[int] = []
    real = reinfer._inferred

    def counted(runner: Any, planned: Any, position: int, *rest: Any) -> Any:
        inferred.append(position)
        return real(runner, planned, position, *rest)

    monkeypatch.setattr(reinfer, "_inferred", counted)
    return inferred


def test_a_decode_step_infers_again_only_what_its_length_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new length infers again the steps it reaches, not all of them, and a step of a
    group that infers alike once for the group (the decoder blocks' cache joins); inputs
    seen in the last runs infer nothing again, those of runs before are forgotten; what the
    plan remembers holds none of the caller's arrays."""
    from irpool.execute import reinfer

    model = irpool.load(LLAMA / "openvino_model.xml")
    request, plan = model.create_infer_request(), model.execution_plan()
    inferred = _counted_inferences(monkeypatch)
    request.infer(_decode_inputs(0))
    first = len(inferred)
    assert len(set(plan.inference_groups)) <= first < len(plan.steps)
    inputs = _decode_inputs(1)
    request.infer(inputs)
    held = [info for read, _, _ in plan.inferred.last.values() for info in read if info]
    assert not any(info.value is given for info in held for given in inputs.values())
    again = len(inferred) - first
    assert 0 < again < len(plan.steps) / 2
    model.create_infer_request().infer(_decode_inputs(0))
    assert len(inferred) == first + again
    for position in range(2, 3 + reinfer.REMEMBERED_RUNS):
        request.infer(_decode_inputs(position))
    tables = [plan.inferred.by_key, *plan.inferred.older]
    assert len(tables) == 1 + reinfer.REMEMBERED_RUNS
    assert all(len(table) <= len(plan.steps) for table in tables)
    seen = len(inferred)
    model.create_infer_request().infer(_decode_inputs(0))
    assert len(inferred) > seen


def test_runs_holding_every_variable_skip_what_only_initializers_read() -> None:
    """Once a request holds every variable a ReadValue initializes, the steps that compute
    only initializers (the KV caches' first zeros and their shapes) are not run: the same
    outputs and states as with every step run, and a first run after `reset_state` runs
    them again."""
    model, every = (irpool.load(LLAMA / "openvino_model.xml") for _ in range(2))
    plan, everything = model.execution_plan(), every.execution_plan()
    held = plan.held_steps
    assert held is not None
    left = {step.layer.id for step in held.steps}
    skipped = [step for step in plan.steps if step.layer.id not in left]
    assert skipped and all(s.reads_variable is None and s.assign is None for s in skipped)
    assert held.variables == {s.reads_variable for s in plan.steps if s.reads_variable}
    object.__setattr__(everything, "held_steps", None)
    request, reference = model.create_infer_request(), every.create_infer_request()
    for position in [0, 1, 2, 3, 0, 1]:
        if position == 0:
            request.reset_state()
            reference.reset_state()
        inputs = _decode_inputs(position)
        outputs, expected = request.infer(inputs), reference.infer(inputs)
        for key, value in expected.items():
            np.testing.assert_array_equal(outputs[key], value)
        states = request.query_state()
        for name, value in reference.query_state().items():
            np.testing.assert_array_equal(states[name], value)


def test_a_shape_of_the_token_ids_and_a_product_are_not_inferred_again_at_each_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ShapeOf reads its input's shape alone: it is remembered by it, not by the token's
    value, while the token's other readers are inferred again; a MatMul (the rotary angles'
    product by the positions) reads the types and shapes alone."""

    model = irpool.load(LLAMA / "openvino_model.xml")
    request, plan = model.create_infer_request(), model.execution_plan()
    inferred = _counted_inferences(monkeypatch)
    for position in range(3):
        request.infer(_decode_inputs(position))
    inferred.clear()
    inputs = _decode_inputs(3)
    request.infer({**inputs, "attention_mask": inputs["attention_mask"][:, 1:]})  # same shape
    ids = next(p for p in plan.parameters if "input_ids" in p.names).layer.id
    readers = [i for i, step in enumerate(plan.steps) if (ids, 0) in step.inputs]
    shapes = [i for i in readers if plan.steps[i].op.infers_from_shapes]
    assert shapes and set(readers) - set(shapes)
    assert not set(shapes) & set(inferred) and set(readers) - set(shapes) <= set(inferred)
    products = [i for i, step in enumerate(plan.steps) if isinstance(step.op, MatMul1)]
    assert products and not set(products) & set(inferred)


def _described(infos: list[TensorInfo]) -> list[tuple[Any, ...]]:
    return [
        (i.type.name, str(i.shape), None if i.value is None else i.value.tobytes(), i.bounds)
        for i in infos
    ]


@pytest.mark.parametrize(
    "cls", [cls for cls in registered_ops() if cls.reads_values_of_all], ids=lambda c: c.__name__
)
def test_an_op_reading_values_of_all_infers_alike_beside_an_input_of_no_value(
    cls: type[Op],
) -> None:
    """Where one input has neither value nor bounds, a flagged op infers the same whatever the
    other's value or bounds (re-inference keys it by the shapes alone): a wrong flag differs."""
    ctx = LayerContext(frozenset(), lambda report: None, lambda offset, size: memoryview(b""))
    op = cls({"auto_broadcast": "numpy"})
    inferred = 0
    for name in ("i64", "i32", "boolean"):
        kind = element_type(name)
        unknown = TensorInfo(kind, Shape.of(2, 3))
        others = [TensorInfo(kind, Shape.of(3), np.array(v).astype(kind.held_dtype)) for v in
                  ([1, 2, 3], [0, 5, 7], [4, 4, 4])]  # fmt: skip
        if kind.is_integer:
            others.append(TensorInfo(kind, Shape.of(3), bounds=Bounds((3,), (0, 1, 2), (5, 6, 7))))
        for order in (1, -1):
            try:
                found = {repr(_described(op.infer([unknown, o][::order], ctx))) for o in others}
            except ShapeError:
                continue
            inferred += 1
            assert len(found) == 1, (name, found)
    assert inferred


def _inferred_at_the_fourth_token(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[int]]:
    """The plan of four decode steps in turn and the positions of the steps the fourth infers."""
    model = irpool.load(LLAMA / "openvino_model.xml")
    request, plan = model.create_infer_request(), model.execution_plan()
    inferred = _counted_inferences(monkeypatch)
    for position in range(4):
        inferred.clear()
        request.infer(_decode_inputs(position))
    return plan, inferred


def test_a_binary_op_beside_an_input_of_no_value_is_not_inferred_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mask's index Multiply reads the length's value and a tensor of none: the same
    shapes at the next token find its inference, the length's other readers do not (the
    mask's chain planned layer by layer, not as one step: irpool/execute/mask_chain.py)."""
    from irpool.execute import plan as planning

    monkeypatch.setattr(planning, "causal_masks", lambda *args: {})
    plan, inferred = _inferred_at_the_fourth_token(monkeypatch)
    names = [plan.steps[i].layer.name for i in inferred]
    assert "__module.model/aten::index/Multiply" not in names
    assert "__module.model/aten::index/Add" in names


def test_what_only_a_product_reads_of_the_positions_is_remembered_by_shapes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the rotary product (a MatMul: it infers from types and shapes) reads what the
    positions' Unsqueeze and Convert infer: they are remembered by their input's type and
    shape, kept without its value, and not inferred again at each token; the token ids'
    Convert, whose value the embedding's Gather reads, is."""
    plan, inferred = _inferred_at_the_fourth_token(monkeypatch)

    def reader(ref: tuple[int, int], kind: type[Op]) -> int:
        steps = enumerate(plan.steps)
        return next(i for i, s in steps if s.inputs[:1] == (ref,) and isinstance(s.op, kind))

    def parameter(name: str) -> tuple[int, int]:
        return next(p for p in plan.parameters if name in p.names).layer.id, 0

    unsqueeze = reader(parameter("position_ids"), Unsqueeze1)
    convert = reader((plan.steps[unsqueeze].layer.id, 0), Convert1)
    assert not {unsqueeze, convert} & set(inferred)
    assert plan.inferred.previous.infos[(plan.steps[convert].layer.id, 0)].value is None
    assert reader(parameter("input_ids"), Convert1) in inferred
