"""`irpool.load(path).run({name: array})`: results, documented exceptions, one-time work."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.execute import runner

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
POOL = EXAMPLES / "valid" / "avgpool1_4d.xml"
CHAIN = EXAMPLES / "valid" / "chain_avgpool_adaptive.xml"


def test_run_returns_results_by_result_name() -> None:
    x = np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5)
    outputs = irpool.load(POOL).run({"input": x})
    assert list(outputs) == ["output"]
    np.testing.assert_allclose(
        outputs["output"][0, 0], [[3, 4.5, 6], [10.5, 12, 13.5], [18, 19.5, 21]]
    )


def test_inputs_bind_by_tensor_name_too() -> None:
    model = irpool.load(POOL)
    names = model.inputs[0].names
    assert names[0] == "input"
    for name in names:
        assert model.run({name: np.zeros((1, 2, 5, 5), np.float32)})["output"].shape == (1, 2, 3, 3)


def test_plan_is_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    model = irpool.load(CHAIN)
    calls = []
    original = runner.build_plan
    monkeypatch.setattr("irpool.model.build_plan", lambda m: calls.append(1) or original(m))
    x = np.ones((1, 3, 32, 32), np.float32)
    first = model.run({"input": x})
    second = model.run({"input": x})
    assert len(calls) == 1
    np.testing.assert_array_equal(first["output"], second["output"])


@pytest.mark.parametrize(
    ("path", "error"),
    [
        (EXAMPLES / "broken" / "zero_stride.xml", irpool.InvalidModelError),
        (POOL, irpool.InputError),
    ],
)
def test_errors_are_irerror_subclasses(path: Path, error: type[irpool.IRError]) -> None:
    with pytest.raises(error) as caught:
        irpool.load(path).run({})
    assert isinstance(caught.value, irpool.IRError)


def test_invalid_model_error_carries_the_diagnostics() -> None:
    with pytest.raises(irpool.InvalidModelError) as caught:
        irpool.load(EXAMPLES / "broken" / "zero_stride.xml").run({})
    assert [d.code for d in caught.value.diagnostics] == ["IR206"]


def test_unknown_op_on_the_path_is_an_execution_error(tmp_path: Path) -> None:
    text = POOL.read_text().replace(
        'type="AvgPool" version="opset1"', 'type="Relu" version="opset1"'
    )
    path = tmp_path / "relu.xml"
    path.write_text(text)
    model = irpool.load(path)
    assert {d.code for d in model.validate()} <= {"IR202", "IR210"}
    with pytest.raises(irpool.ExecutionError, match=r'layer 1 "pool" \(Relu\).*cannot be executed'):
        model.run({"input": np.zeros((1, 2, 5, 5), np.float32)})


def test_memory_is_checked_before_allocating(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "available_memory", lambda: 250)
    expected = r'"pool".*\[1,2,3,3\] \(f32\) needs 72 bytes,.* only 250 bytes'
    with pytest.raises(irpool.ExecutionError, match=expected):
        irpool.load(POOL).run({"input": np.zeros((1, 2, 5, 5), np.float32)})
