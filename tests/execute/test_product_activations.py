"""Swish and Sigmoid right after a product whose sums BLAS computes take NumPy's exp;
elsewhere the CPU's polynomial (irpool.cpu.product_activations)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import irpool
from irpool.cpu.product_activations import activations_after_blas_products
from irpool.cpu.vector_exp import logistic
from irpool.execute import plan
from irpool.execute.kernels.activations import numpy_sigmoid
from irpool.ops.activations import Sigmoid1, Swish4
from irpool.ops.mat_mul import MatMul1
from tests import ir

DATA, FILTERS = (1, 4, 16, 16), (4, 4, 1, 1)
IDENTITY = np.eye(4, dtype=np.float32)  # the product gives x itself


def _model(tmp_path: Path, activation: str, producer: str) -> Path:
    """x -> (`producer`: "Convolution" by 1x1 identity filters, "MatMul" by the identity, or
    "Parameter": none) -> `activation` -> Result."""
    shape = (1, 4, 16, 4) if producer == "MatMul" else DATA
    layers = [ir.parameter(0, "x", shape)]
    edges = []
    source = (0, 0)
    if producer == "Convolution":
        layers.append(ir.typed_const(1, "filters", "f32", FILTERS, 0, 64))
        window = [("strides", "1,1"), ("dilations", "1,1"), ("pads_begin", "0,0")]
        window.append(("pads_end", "0,0"))
        inputs = [ir.port(0, shape), ir.port(1, FILTERS)]
        attributes = ir.data(window)
        layers.append(ir.layer(2, "p", producer, "opset1", attributes, inputs, [ir.port(2, shape)]))
    elif producer == "MatMul":
        layers.append(ir.typed_const(1, "weights", "f32", (4, 4), 0, 64))
        inputs = [ir.port(0, shape), ir.port(1, (4, 4))]
        layers.append(ir.layer(2, "p", producer, "opset1", "", inputs, [ir.port(2, shape)]))
    if producer != "Parameter":
        edges += [ir.edge(0, 0, 2, 0), ir.edge(1, 0, 2, 1)]
        source = (2, 2)
    opset = {"Swish": "opset4", "Sigmoid": "opset1"}[activation]
    layers.append(
        ir.layer(3, "act", activation, opset, "", [ir.port(0, shape)], [ir.port(1, shape)])
    )
    layers.append(ir.result(4, "out", shape))
    edges += [ir.edge(*source, 3, 0), ir.edge(3, 1, 4, 0)]
    return ir.write(tmp_path, ir.net(layers, edges), IDENTITY.tobytes())


@pytest.mark.parametrize("activation", ["Swish", "Sigmoid"])
@pytest.mark.parametrize(
    ("producer", "by_numpy"), [("Convolution", True), ("MatMul", True), ("Parameter", False)]
)
def test_the_exp_depends_on_the_producer(
    tmp_path: Path, activation: str, producer: str, by_numpy: bool
) -> None:
    model = irpool.load(_model(tmp_path, activation, producer))
    runner_input = plan.RunnerInput(
        model.graph, model.checked, model.document.ir_version, model.weights.read
    )
    (op,) = [s.op for s in plan.plan_execution(runner_input).steps if s.layer.name == "act"]
    assert isinstance(op, (Swish4, Sigmoid1)) and op.after_blas_product is by_numpy
    rng = np.random.default_rng(0)
    x = rng.uniform(-30, 30, model.inputs[0].shape.values()).astype(np.float32)
    gates = [numpy_sigmoid(x), logistic(x)]
    if not by_numpy:
        gates.reverse()
    expected, other = (x * gate if activation == "Swish" else gate for gate in gates)
    assert not np.array_equal(expected, other)  # the two exps part on these inputs
    (result,) = model.run({"x": x}).values()
    np.testing.assert_array_equal(result, expected)


@pytest.mark.usefixtures("vnni_host")  # an AVX2 host chains every compressed product
@pytest.mark.parametrize(
    ("activation_group", "group", "by_numpy"),
    [(None, None, True), (32, None, False), (None, 16, False), (None, 64, True)],
)
def test_a_matmul_whose_sums_are_emulated_keeps_the_polynomial(
    activation_group: int | None, group: int | None, by_numpy: bool
) -> None:
    """A MatMul whose activations the CPU quantizes, or whose held u4 weights in groups of 16
    it sums as one FMA chain, is summed to the CPU's bits: the Swish after it keeps the CPU's
    exp (weights in groups of 64 quantize the activations instead, which plan_execution marks
    by `activation_group`)."""
    product = MatMul1({})
    product.activation_group = activation_group
    if group is not None:
        product.compressed_weights = SimpleNamespace(element_type="u4", depth=128, group=group)
    layers = [
        SimpleNamespace(layer=SimpleNamespace(id=1, type="MatMul"), op=product, inputs=()),
        SimpleNamespace(layer=SimpleNamespace(id=2, type="Swish"), op=Swish4({}), inputs=((1, 0),)),
    ]
    rewrites = activations_after_blas_products(layers)
    assert (2 in rewrites) is by_numpy
