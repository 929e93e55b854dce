"""Swish and Sigmoid right after a convolution take NumPy's exp; elsewhere the CPU's
polynomial (irpool.cpu.convolution_activations)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.cpu.vector_exp import logistic
from irpool.execute import plan
from irpool.execute.kernels.activations import numpy_sigmoid
from irpool.ops.activations import Sigmoid1, Swish4
from tests import ir

DATA, FILTERS = (1, 4, 16, 16), (4, 4, 1, 1)
IDENTITY = np.eye(4, dtype=np.float32).reshape(FILTERS)  # the convolution gives x itself


def _model(tmp_path: Path, activation: str, after_convolution: bool) -> Path:
    """x -> (Convolution by the identity 1x1 filters) -> `activation` -> Result."""
    layers = [ir.parameter(0, "x", DATA), ir.typed_const(1, "filters", "f32", FILTERS, 0, 64)]
    edges = []
    source = (0, 0)
    if after_convolution:
        window = [("strides", "1,1"), ("dilations", "1,1"), ("pads_begin", "0,0")]
        window.append(("pads_end", "0,0"))
        inputs = [ir.port(0, DATA), ir.port(1, FILTERS)]
        layers.append(
            ir.layer(
                2, "conv", "Convolution", "opset1", ir.data(window), inputs, [ir.port(2, DATA)]
            )
        )
        edges += [ir.edge(0, 0, 2, 0), ir.edge(1, 0, 2, 1)]
        source = (2, 2)
    opset = {"Swish": "opset4", "Sigmoid": "opset1"}[activation]
    layers.append(ir.layer(3, "act", activation, opset, "", [ir.port(0, DATA)], [ir.port(1, DATA)]))
    layers.append(ir.result(4, "out", DATA))
    edges += [ir.edge(*source, 3, 0), ir.edge(3, 1, 4, 0)]
    return ir.write(tmp_path, ir.net(layers, edges), IDENTITY.tobytes())


@pytest.mark.parametrize("activation", ["Swish", "Sigmoid"])
@pytest.mark.parametrize("after_convolution", [True, False])
def test_the_exp_depends_on_the_producer(
    tmp_path: Path, activation: str, after_convolution: bool
) -> None:
    model = irpool.load(_model(tmp_path, activation, after_convolution))
    runner_input = plan.RunnerInput(
        model.graph, model.checked, model.document.ir_version, model.weights.read
    )
    (op,) = [s.op for s in plan.plan_execution(runner_input).steps if s.layer.name == "act"]
    assert isinstance(op, (Swish4, Sigmoid1)) and op.after_convolution is after_convolution
    x = np.random.default_rng(0).uniform(-30, 30, DATA).astype(np.float32)
    gates = [numpy_sigmoid(x), logistic(x)]
    if not after_convolution:
        gates.reverse()
    expected, other = (x * gate if activation == "Swish" else gate for gate in gates)
    assert not np.array_equal(expected, other)  # the two exps part on these inputs
    (result,) = model.run({"x": x}).values()
    np.testing.assert_array_equal(result, expected)
