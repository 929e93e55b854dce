"""Input-independent layers (a large fp16 decompression Convert, what reads it) run once,
when the model is planned, not on every run; their results are what running them gives."""

from __future__ import annotations

import gc
import weakref
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.execute import memory, plan
from irpool.execute.registry import Kernel, kernel_of
from irpool.ops.base import Op
from tests import ir
from tests.execute.running import compute

SMALL = (1, 2, 4, 4)
WEIGHTS = (1, 2, 64, 64)  # 8192 elements: too many for checking to fold


def compressed_model(
    tmp_path: Path, destination: str = "f32", pooled: bool = True
) -> tuple[Path, np.ndarray]:
    """Parameter -> AvgPool -> Result, and beside it a Const f16 -> Convert (-> AvgPool k3)
    -> Result, as `save_model(compress_to_fp16=True)` writes a float Const."""
    values = np.random.default_rng(0).standard_normal(WEIGHTS).astype(np.float16)
    const = ir.typed_const(3, "weights", "f16", WEIGHTS, 0, values.nbytes)
    precision = {"f32": "FP32", "u4": "U4"}[destination]
    convert = ir.layer(
        4, "decompress", "Convert", "opset1", ir.data([("destination_type", destination)]),
        [ir.port(0, WEIGHTS, "FP16")], [ir.port(1, WEIGHTS, precision)],
    )  # fmt: skip
    layers = [ir.parameter(0, "input", SMALL), ir.avg_pool(1, "pool", SMALL, SMALL)]
    layers += [ir.result(2, "output", SMALL), const, convert]
    edges = [ir.edge(0, 0, 1, 0), ir.edge(1, 1, 2, 0), ir.edge(3, 0, 4, 0)]
    if pooled:
        layers.append(ir.avg_pool(5, "weights_pool", WEIGHTS, WEIGHTS, kernel=3, pad=1))
        edges += [ir.edge(4, 1, 5, 0), ir.edge(5, 1, 6, 0)]
    else:
        edges.append(ir.edge(4, 1, 6, 0))
    layers.append(ir.result(6, "pooled_weights", WEIGHTS, precision))
    text = ir.net(layers, edges)
    return ir.write(tmp_path, text, values.tobytes()), values


def counting_kernels(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count every kernel call the runner makes, by op type."""
    calls: Counter[str] = Counter()

    def counted(op: Op) -> Kernel | None:
        kernel = kernel_of(op)
        if kernel is None:
            return None
        inner: Kernel = kernel

        def call(op: Any, inputs: Any, outputs: Any) -> list[Any]:
            calls[op.type_name] += 1
            return inner(op, inputs, outputs)

        return call

    monkeypatch.setattr(plan, "kernel_of", counted)
    return calls


def test_the_decompression_runs_once_not_per_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = counting_kernels(monkeypatch)
    model = irpool.load(compressed_model(tmp_path)[0])
    x = np.ones(SMALL, np.float32)
    first = model.run({"input": x})
    # The Convert is folded by OpenVINO's folding rules when planning, never by its kernel.
    assert calls == {"AvgPool": 2}
    second = model.run({"input": x})
    assert calls == {"AvgPool": 3}  # only the pool of the input ran again
    for name in ("output", "pooled_weights"):
        np.testing.assert_array_equal(first[name], second[name])


def test_folded_results_are_what_running_the_layers_gives(tmp_path: Path) -> None:
    path, values = compressed_model(tmp_path)
    model = irpool.load(path)
    decompressed = compute(model.checked.ops[4], [values])[0]
    assert decompressed is not None
    expected = compute(model.checked.ops[5], [decompressed])[0]
    got = model.run({"input": np.ones(SMALL, np.float32)})["pooled_weights"]
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, expected)
    assert not got.flags.writeable  # shared by every run, as a Const's value is


def test_the_plan_keeps_only_what_runs_read(tmp_path: Path) -> None:
    """The f16 source and the decompressed weights leave the plan: only the pooled
    weights, which a Result returns, stay."""
    model = irpool.load(compressed_model(tmp_path)[0])
    runner_input = plan.RunnerInput(
        model.graph, model.checked, model.document.ir_version, model.weights.read
    )
    planned = plan.plan_execution(runner_input)
    assert list(planned.constants) == [(5, 0)]
    assert [step.layer.name for step in planned.steps] == ["pool"]


@pytest.mark.parametrize(
    ("destination", "pooled", "bytes_free", "message"),
    [
        ("u4", False, 1 << 40, "a Convert to u4 cannot run in irpool"),
        ("f32", True, 4096, "only 4.0 KiB of memory is available"),
    ],
    ids=["kernel refuses", "no memory"],
)
def test_what_cannot_be_folded_fails_at_run_time_as_before(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    destination: str,
    pooled: bool,
    bytes_free: int,
    message: str,
) -> None:
    monkeypatch.setattr(memory, "physical_memory", lambda: bytes_free)
    monkeypatch.setattr(memory, "available_memory", lambda: bytes_free)
    model = irpool.load(compressed_model(tmp_path, destination, pooled)[0])
    assert model.outputs  # planning succeeds
    with pytest.raises(irpool.ExecutionError, match=message):
        model.run({"input": np.ones(SMALL, np.float32)})


def test_a_dropped_model_frees_its_ops_and_weights(tmp_path: Path) -> None:
    """Nothing outside a model keeps its ops, its folded weights or what its kernels
    prepared: once the caller drops the model, they are freed."""
    model = irpool.load(compressed_model(tmp_path)[0])
    model.run({"input": np.ones(SMALL, np.float32)})
    model.run({"input": np.ones(SMALL, np.float32)})  # the kernels' preparations are reused
    ops = list(model.checked.ops.values())
    assert any(op.kernel_cache for op in ops)
    alive = [weakref.ref(op) for op in ops]
    alive += [weakref.ref(value) for value in model._planned().constants.values()]
    del model, ops
    gc.collect()
    assert [ref() for ref in alive] == [None] * len(alive)
