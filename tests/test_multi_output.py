"""An op with two outputs runs end to end: plan, output names, element types, bf16 rounding,
unused outputs and the memory check. The op is a stand-in registered through the public
registries (`register`, `kernel_for`) for this module's tests only."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.element_types import element_type
from irpool.execute import memory
from irpool.execute import registry as kernels
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops import registry
from irpool.ops.base import LayerContext, Op, TensorInfo
from irpool.ops.registry import register
from tests.ir import edge, layer, net, parameter, port

SHAPE = (1, 2, 3, 4)


class TwoOutputs(Op):
    """Stands in for MaxPool-8: values (the input's type) and i32 indices, same shape."""

    # a two-output type OpenVINO's reader knows that irpool does not model
    type_name = "CTCGreedyDecoderSeqLen"
    version = 11
    opsets = range(11, 17)
    input_names = ("data",)
    output_count = 2
    checked_with: ClassVar[list[frozenset[int]]] = []  # each check's `ctx.used_outputs`

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        self.checked_with.append(ctx.used_outputs)
        data = inputs[0]
        return [TensorInfo(data.type, data.shape), TensorInfo(element_type("i32"), data.shape)]


Calls = list[tuple[OutputSpec, ...]]


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    """Register the stand-in and its kernel; the registries are restored afterwards."""
    registry.lookup("Parameter", "opset1")  # load every op before copying the registries
    kernels.kernel_of(TwoOutputs({}))
    monkeypatch.setattr(registry, "_BY_TYPE", {k: list(v) for k, v in registry._BY_TYPE.items()})
    monkeypatch.setattr(kernels, "_KERNELS", dict(kernels._KERNELS))
    monkeypatch.setattr(TwoOutputs, "checked_with", [])
    seen: Calls = []
    register(TwoOutputs)

    @kernel_for(TwoOutputs)
    def run_two_outputs(
        op: TwoOutputs, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
    ) -> list[NDArray[Any] | None]:
        seen.append(tuple(outputs))
        x = inputs[0]
        indices = np.broadcast_to(np.arange(x.shape[-1]), x.shape).astype(outputs[1].dtype)
        return [(x * 1.001).astype(outputs[0].dtype), indices if outputs[1].used else None]

    yield seen


def _model(
    tmp_path: Path,
    *,
    element_type: str = "f32",
    results: Sequence[int] = (1, 2),
    version: int = 11,
    dynamic: bool = False,
) -> irpool.Model:
    precision = {"f32": "FP32", "bf16": "BF16"}[element_type]
    names = ("values", "indices") if version == 11 else ("", "")
    outputs = [port(1, SHAPE, precision, names[0]), port(2, SHAPE, "I32", names[1])]
    top = layer(
        1, "top", "CTCGreedyDecoderSeqLen", "opset11", "", [port(0, SHAPE, precision)], outputs
    )
    layers = [parameter(0, "input", SHAPE, element_type), top]
    edges = [edge(0, 0, 1, 0)]
    for index, output_port in enumerate(results):
        output_precision = precision if output_port == 1 else "I32"
        inputs = [port(0, SHAPE, output_precision)]
        layers.append(layer(2 + index, f"result_{output_port}", "Result", "opset1", "", inputs))
        edges.append(edge(1, output_port, 2 + index, 0))
    text = net(layers, edges, version=version)
    if dynamic:  # axis 2, the only dim of 3
        text = text.replace('shape="1,2,3,4"', 'shape="1,2,?,4"').replace(">3<", ">-1<")
    path = tmp_path / "two.xml"
    path.write_text(text)
    model = irpool.load(path)
    assert not model.has_errors, model.validate()
    return model


def _input(dtype: str = "float32") -> dict[str, NDArray[Any]]:
    return {"input": np.arange(np.prod(SHAPE), dtype=dtype).reshape(SHAPE) / 7}


def test_both_outputs_are_returned_by_their_tensor_names(tmp_path: Path, calls: Calls) -> None:
    outputs = _model(tmp_path).run(_input())
    assert list(outputs) == ["values", "indices"]
    np.testing.assert_allclose(outputs["values"], _input()["input"] * 1.001, rtol=1e-6)
    assert outputs["indices"].dtype == np.int32
    np.testing.assert_array_equal(outputs["indices"][0, 1, 2], [0, 1, 2, 3])
    assert [spec.used for spec in calls[0]] == [True, True]
    assert [spec.element_type for spec in calls[0]] == ["f32", "i32"]


def test_ir_v10_names_each_output_by_layer_and_index(tmp_path: Path, calls: Calls) -> None:
    model = _model(tmp_path, version=10)
    assert [o.name for o in model.outputs] == ["top.0", "top.1"]


@pytest.mark.parametrize("results", [(1,), (2,)], ids=["values only", "indices only"])
def test_an_unread_output_may_be_skipped(
    tmp_path: Path, calls: Calls, results: tuple[int, ...]
) -> None:
    model = _model(tmp_path, results=results)
    assert TwoOutputs.checked_with == [frozenset({results[0] - 1})]  # checking knows it too
    outputs = model.run(_input())
    assert list(outputs) == [("values", "indices")[results[0] - 1]]
    assert [spec.used for spec in calls[0]] == [1 in results, 2 in results]


def test_bf16_rounding_applies_per_output(tmp_path: Path, calls: Calls) -> None:
    outputs = _model(tmp_path, element_type="bf16").run(_input(), cast=True)
    values = outputs["values"]
    assert values.dtype == np.float32
    assert not np.any(values.view(np.uint32) & 0xFFFF)  # rounded to bf16
    assert outputs["indices"].dtype == np.int32
    np.testing.assert_array_equal(outputs["indices"][0, 0, 0], [0, 1, 2, 3])


def test_dynamic_shapes_are_inferred_again_for_each_output(tmp_path: Path, calls: Calls) -> None:
    outputs = _model(tmp_path, dynamic=True).run(_input())
    assert outputs["values"].shape == outputs["indices"].shape == SHAPE


def test_the_memory_check_counts_every_output(
    tmp_path: Path, calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _model(tmp_path)
    monkeypatch.setattr(memory, "physical_memory", lambda: 0)  # check every run
    monkeypatch.setattr(memory, "available_memory", lambda: 1000)
    with pytest.raises(irpool.ExecutionError) as raised:
        model.run(_input())
    # 24 f32 values and 24 i32 indices: 96 bytes each
    assert "[1,2,3,4] (f32), [1,2,3,4] (i32) needs 192 bytes" in str(raised.value)


def test_an_op_has_one_kernel(calls: Calls) -> None:
    with pytest.raises(ValueError, match="TwoOutputs already has a kernel"):
        kernel_for(TwoOutputs)(lambda op, inputs, outputs: [])
