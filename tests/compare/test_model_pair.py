"""`irpool compare A.xml B.xml`: two models of one network on irpool's engine, each of B's
tensors against A's (`b_vs_a`) and what B's layer introduces on A's inputs; the fp32 and fp16
torchvision files and edits built with tests/ir.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli
from irpool.compare.model_pair import compare_models
from tests import ir

TORCHVISION = Path(__file__).resolve().parent.parent / "models" / "torchvision"
FP32, FP16 = (TORCHVISION / f"resnet18-static-{kind}" / "model.xml" for kind in ("fp32", "fp16"))
INPUTS = FP32.parent / "inputs-randn.npz"


def _inputs() -> dict[str | int, np.ndarray]:
    with np.load(INPUTS) as recorded:
        return {name: recorded[name] for name in recorded.files}


def test_fp16_weights_are_introduced_by_the_layers_that_read_them_alone() -> None:
    fp16 = irpool.load(FP16)
    comparison = compare_models(irpool.load(FP32), fp16, _inputs(), 1e-3)
    constants = fp16.execution_plan().constants
    graph = fp16.graph
    assert comparison.unmatched_a == comparison.unmatched_b == []
    assert {row.how for row in comparison.tensors} == {"name", "layer"}  # MatMul has no name
    for row in comparison.tensors:
        assert row.introduced is not None, row.tensor
        sources = [graph.producers[(row.layer.id, i)] for i in range(len(row.layer.inputs))]
        weights = [
            constants[s] for s in sources if s in constants and constants[s].dtype.kind == "f"
        ]
        if weights:  # weights or a bias compressed to fp16: rounded
            assert 0 < row.introduced.max_rel < 1e-3, row.tensor
        else:  # the same op on the same inputs: the same bits
            assert row.introduced.max_abs == 0, row.tensor
    ranked = comparison.ranked()
    assert ranked[0].layer.type == "Convolution"
    assert ranked[0].introduced is not None and ranked[-1].introduced is not None
    assert ranked[0].introduced.max_rel >= ranked[-1].introduced.max_rel
    ((_key, output),) = comparison.outputs
    assert output is not None and 0 < output.max_rel < 1e-2


def test_a_model_against_itself_differs_nowhere() -> None:
    model = irpool.load(FP32)
    comparison = compare_models(model, irpool.load(FP32), _inputs(), 1e-6)
    assert comparison.first_outside() is None
    assert all(row.b_vs_a.max_abs == 0 for row in comparison.tensors)
    assert all(row.introduced and row.introduced.max_abs == 0 for row in comparison.tensors)


def _pool_chain(directory: Path, kernel: int, pool_name: str = "pool") -> Path:
    """x [1,2,4,4] -> AvgPool (kernel k, pads keeping the size) -> ReLU -> Result."""
    shape = (1, 2, 4, 4)
    pad = (kernel - 1) // 2
    layers = [
        ir.parameter(0, "x", shape),
        ir.avg_pool(1, pool_name, shape, shape, kernel, pad),
        ir.layer(2, "relu", "ReLU", "opset1", "", [ir.port(0, shape)], [ir.port(1, shape)]),
        ir.result(3, "y", shape),
    ]
    edges = [ir.edge(0, 0, 1, 0), ir.edge(1, 1, 2, 0), ir.edge(2, 1, 3, 0)]
    directory.mkdir()
    return ir.write(directory, ir.net(layers, edges))


def test_an_edited_layer_introduces_the_difference_and_the_next_passes_it_on(
    tmp_path: Path,
) -> None:
    a = irpool.load(_pool_chain(tmp_path / "a", 1))
    b = irpool.load(_pool_chain(tmp_path / "b", 3))
    x = np.random.default_rng(0).normal(size=(1, 2, 4, 4)).astype(np.float32)
    comparison = compare_models(a, b, {"x": x}, 1e-3)
    pool, relu = comparison.tensors
    assert (pool.layer.type, relu.layer.type) == ("AvgPool", "ReLU")
    assert pool.introduced is not None and pool.introduced.max_abs > 0.1
    assert relu.introduced is not None and relu.introduced.max_abs == 0
    assert relu.b_vs_a.max_abs > 0
    assert comparison.first_outside() is pool


def test_what_has_no_match_is_listed(tmp_path: Path) -> None:
    a = irpool.load(_pool_chain(tmp_path / "a", 1, "pool"))
    b = irpool.load(_pool_chain(tmp_path / "b", 1, "renamed"))
    x = np.ones((1, 2, 4, 4), np.float32)
    comparison = compare_models(a, b, {"x": x}, 1e-3)
    assert [row.tensor for row in comparison.tensors] == ["y"]  # the Result's key
    assert comparison.tensors[0].how == "layer"
    assert comparison.tensors[0].introduced is None  # its input has no match in A
    assert comparison.unmatched_a == ["pool:0"] and comparison.unmatched_b == ["renamed:0"]


def test_the_command_line_json() -> None:
    args = ["compare", str(FP32), str(FP16), "--input", str(INPUTS), "--format", "json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert {"tensors", "first_outside", "outputs"} <= set(document)
    record = document["tensors"][0]
    for key in ("b_vs_a", "introduced"):
        assert {"max_abs", "max_rel", "within"} <= set(record["differences"][key])
    assert document["outputs"][0]["differences"]["b_vs_a"]["within"] is True


@pytest.mark.parametrize(
    ("extra", "code", "said"),
    [
        (["--input", "missing.npy"], 2, "missing.npy"),
        (["--plot", "p.png", "--format", "json"], None, "plot"),
    ],
)
def test_the_command_line_refuses_clearly(
    tmp_path: Path, extra: list[str], code: int | None, said: str
) -> None:
    args = ["compare", str(FP32), str(FP16)]
    args += ["--input", str(INPUTS)] if extra[0] != "--input" else []
    extra = [str(tmp_path / e) if e.endswith((".npy", ".png")) else e for e in extra]
    result = CliRunner().invoke(cli, [*args, *extra])
    try:
        import matplotlib  # noqa: F401

        plots = True
    except ImportError:
        plots = False
    expected = code if code is not None else (0 if plots else 2)
    assert result.exit_code == expected, result.output
    assert said in result.output
    assert "Traceback" not in result.output
