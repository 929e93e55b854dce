"""Generate ``tests/family_corpus/``: pooling models as OpenVINO's own frontends write them.

Issue #12's evidence: real ``torch.nn`` modules and ONNX nodes, converted by
``openvino.convert_model`` (static and dynamic inputs) and saved by ``ov.save_model`` with and
without fp16 compression, with what the CPU plugin computes for them. Every case is a directory
``tests/family_corpus/<case>/`` holding:

* ``model.xml`` + ``model.bin``: exactly what ``ov.save_model`` wrote;
* ``inputs.npz``: one input per Parameter, keyed by the Parameter's name (ties, NaN and ±inf
  where the case is about them; integer inputs where the frontend allows them);
* ``outputs.npz``: the CPU plugin's outputs for the saved file read back
  (``compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})``), keyed by the output
  tensor name OpenVINO reports (``get_any_name()``), as ``irpool``'s ``model.run`` keys them.

``index.json`` lists each case: its source module or node, the layer types (type and opset)
the file holds, whether fp16 compression was on, and its inputs' and outputs' types and shapes.
The test suite only reads these files. Regenerate (needs openvino, torch and onnx: the
``test`` and ``torch-oracle`` extras) with ``python tools/gen_family_corpus.py [--out DIR]``;
inputs come from generators seeded by the case name, so a rerun on the same OpenVINO release
and CPU rewrites the same arrays.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from corpus import (
    Array,
    case_rng,
    cpu_request,
    layer_types,
    output_keys,
    run_keyed,
    write_corpus,
    write_npz,
)
from ov_builders import ov

try:
    import onnx
    import torch
    from onnx import TensorProto, helper
except ImportError as error:
    raise SystemExit(
        "gen_family_corpus.py needs torch and onnx: pip install -e '.[test,torch-oracle]'"
    ) from error

DEFAULT_OUT = Path("tests/family_corpus")
# Float outputs of files holding one of these are compared with a tolerance (the order of a
# float sum is the CPU's choice); everything else, maxima and indices, must be exact.
AVERAGING = {"AvgPool", "AdaptiveAvgPool", "ReduceMean"}
TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
Inputs = Callable[[np.random.Generator], list[Array]]


@dataclass(frozen=True)
class Case:
    name: str
    source: str  # the torch module or ONNX node, as a user would write it
    convert: Callable[[list[Array]], ov.Model]  # gets the example inputs
    inputs: Inputs
    compress_to_fp16: bool = True  # ov.save_model's default


# Inputs: small integers so windows hold ties; NaN and ±inf placed where a case wants them.
def tied(*shape: int, dtype: type[np.generic] = np.float32, low: int = -4, high: int = 5) -> Inputs:
    return lambda rng: [rng.integers(low, high, shape).astype(dtype)]


def specials(*shape: int, dtype: type[np.generic] = np.float32) -> Inputs:
    """Tied values with about one element in eight NaN, +inf or -inf."""

    def make(rng: np.random.Generator) -> list[Array]:
        x: Array = rng.integers(-4, 5, shape).astype(dtype)
        chosen = rng.random(shape) < 0.125
        x[chosen] = rng.choice(np.array([np.nan, np.inf, -np.inf], dtype), chosen.sum())
        return [x]

    return make


# torch.nn modules, converted from an example input (static) or with `input` (dynamic dims).
class Pair(torch.nn.Module):
    """Two modules on one input, both outputs returned (indices come out as a tuple element)."""

    def __init__(self, *modules: torch.nn.Module) -> None:
        super().__init__()
        self.parts = torch.nn.ModuleList(modules)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        outputs: list[torch.Tensor] = []
        for part in self.parts:
            y = part(x)
            outputs.extend(y if isinstance(y, tuple) else (y,))
        return tuple(outputs)


class FoldedPrior(torch.nn.Module):
    """A pooled learned tensor next to a pooled input: OpenVINO folds the first into a float
    Const, which fp16 compression saves as an f16 Const plus a decompression Convert."""

    def __init__(self, *shape: int) -> None:
        super().__init__()
        self.prior = torch.nn.Parameter(torch.linspace(-2, 2, int(np.prod(shape))).reshape(shape))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        functional = torch.nn.functional
        return functional.max_pool2d(x, 2), functional.adaptive_avg_pool2d(self.prior, 1)


class Lambda(torch.nn.Module):
    def __init__(self, function: Callable[[torch.Tensor], torch.Tensor]) -> None:
        super().__init__()
        self.function = function

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.function(x)


def from_torch(module: torch.nn.Module, dynamic: Sequence[int] = ()) -> Callable[..., ov.Model]:
    """convert_model on the module with the example's shape, whose axes in `dynamic` are `?`."""

    def convert(inputs: list[Array]) -> ov.Model:
        example = tuple(torch.from_numpy(x) for x in inputs)
        shape = [-1 if axis in dynamic else size for axis, size in enumerate(inputs[0].shape)]
        return ov.convert_model(module.eval(), example_input=example, input=[shape])

    return convert


# ONNX graphs of one node, written with onnx.helper and read by OpenVINO's ONNX frontend.
ONNX_TYPES: dict[type[np.generic], int] = {
    np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16, np.uint8: TensorProto.UINT8,
    np.int8: TensorProto.INT8, np.int32: TensorProto.INT32,
}  # fmt: skip


def from_onnx(
    op: str,
    outputs: int = 1,
    opset: int = 13,
    dims: Sequence[int | str] | None = None,
    dtype: type[np.generic] = np.float32,
    axes_input: Sequence[int] | None = None,
    **attributes: Any,
) -> Callable[..., ov.Model]:
    """One ONNX node on input "x"; `dims` may name symbolic axes; `axes_input`: opset 18 Reduce."""

    def convert(inputs: list[Array]) -> ov.Model:
        shape = list(dims) if dims is not None else list(inputs[0].shape)
        names = ["y", "indices"][:outputs]
        initializers = []
        node_inputs = ["x"]
        if axes_input is not None:
            initializers.append(
                helper.make_tensor("axes", TensorProto.INT64, [len(axes_input)], list(axes_input))
            )
            node_inputs.append("axes")
        node = helper.make_node(op, node_inputs, names, name=op.lower(), **attributes)
        types = dict(zip(names, [ONNX_TYPES[dtype], TensorProto.INT64], strict=False))
        graph = helper.make_graph(
            [node], f"{op.lower()}_graph",
            [helper.make_tensor_value_info("x", ONNX_TYPES[dtype], shape)],
            [helper.make_tensor_value_info(n, t, None) for n, t in types.items()],
            initializer=initializers,
        )  # fmt: skip
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        model = onnx.shape_inference.infer_shapes(model, strict_mode=True)  # fills output shapes
        onnx.checker.check_model(model)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "model.onnx"
            onnx.save(model, path)
            return ov.convert_model(path)

    return convert


nn = torch.nn
RESNET_HEAD = "nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())"


def resnet_head() -> torch.nn.Module:
    """A ResNet's head before its classifier: global average pooling, then Flatten."""
    return nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())


# fmt: off
CASES: tuple[Case, ...] = (
    # MaxPool-14 from torch (axis=2 indices), ceil_mode -> ceil_torch, dilation, 1-D/2-D/3-D.
    Case("torch_maxpool1d_k3s2p1", "nn.MaxPool1d(3, 2, 1)",
         from_torch(nn.MaxPool1d(3, 2, 1)), specials(2, 3, 9)),
    Case("torch_maxpool2d_ceil_indices",
         "nn.MaxPool2d(3, 2, 1, ceil_mode=True, return_indices=True)",
         from_torch(nn.MaxPool2d(3, 2, 1, ceil_mode=True, return_indices=True)),
         specials(2, 2, 6, 7)),
    Case("torch_maxpool2d_dilation2", "nn.MaxPool2d(3, 1, 1, dilation=2)",
         from_torch(nn.MaxPool2d(3, 1, 1, dilation=2)), tied(1, 2, 8, 8)),
    Case("torch_maxpool3d_ceil_indices", "nn.MaxPool3d(2, ceil_mode=True, return_indices=True)",
         from_torch(nn.MaxPool3d(2, ceil_mode=True, return_indices=True)), specials(2, 2, 3, 4, 5)),
    Case("torch_maxpool2d_dynamic", "nn.MaxPool2d(2), input [?,3,?,?]",
         from_torch(nn.MaxPool2d(2), dynamic=(0, 2, 3)), tied(2, 3, 5, 6)),
    Case("torch_maxpool2d_flatten", "nn.Sequential(nn.MaxPool2d(2), nn.Flatten())",
         from_torch(nn.Sequential(nn.MaxPool2d(2), nn.Flatten())), tied(2, 3, 4, 4)),
    Case("torch_maxpool2d_f16", "nn.MaxPool2d(2, 1, 1) on float16",
         from_torch(nn.MaxPool2d(2, 1, 1)), specials(1, 2, 5, 5, dtype=np.float16)),
    Case("torch_maxpool2d_uncompressed", "nn.MaxPool2d(3, 2, 1, return_indices=True), fp16 off",
         from_torch(nn.MaxPool2d(3, 2, 1, return_indices=True)), specials(1, 3, 7, 7),
         compress_to_fp16=False),
    Case("torch_folded_prior_fp16", "F.max_pool2d(x, 2) and F.adaptive_avg_pool2d(parameter, 1)",
         from_torch(FoldedPrior(1, 4, 6, 6)), tied(1, 4, 6, 6)),
    # Global pooling: ReduceMean / ReduceMax with an axes Const; the ResNet head with Flatten.
    Case("torch_resnet_head", RESNET_HEAD, from_torch(resnet_head()), specials(2, 8, 7, 7)),
    Case("torch_resnet_head_dynamic", f"{RESNET_HEAD}, input [?,8,?,?], fp16 off",
         from_torch(resnet_head(), dynamic=(0, 2, 3)),
         tied(3, 8, 5, 6), compress_to_fp16=False),
    Case("torch_mean_keepdim", "x.mean((2, 3), keepdim=True)",
         from_torch(Lambda(lambda x: x.mean((2, 3), keepdim=True))), tied(2, 4, 3, 5)),
    Case("torch_adaptive_max_1", "nn.AdaptiveMaxPool2d(1)",
         from_torch(nn.AdaptiveMaxPool2d(1)), tied(2, 4, 3, 3)),
    Case("torch_amax_last", "x.amax(-1)", from_torch(Lambda(lambda x: x.amax(-1))),
         specials(2, 3, 5)),
    # AdaptiveAvgPool-8 / AdaptiveMaxPool-8 + Reshape (and Convert of the indices).
    Case("torch_adaptive_avg_5x3", "nn.AdaptiveAvgPool2d((5, 3))",
         from_torch(nn.AdaptiveAvgPool2d((5, 3))), tied(2, 3, 7, 9)),
    Case("torch_adaptive_max_5x3_indices", "nn.AdaptiveMaxPool2d((5, 3), return_indices=True)",
         from_torch(nn.AdaptiveMaxPool2d((5, 3), return_indices=True)), specials(2, 3, 7, 9)),
    Case("torch_adaptive_max_5x3", "nn.AdaptiveMaxPool2d((5, 3))",
         from_torch(nn.AdaptiveMaxPool2d((5, 3))), tied(1, 2, 11, 4)),
    Case("torch_adaptive_max1d_indices", "nn.AdaptiveMaxPool1d(4, return_indices=True)",
         from_torch(nn.AdaptiveMaxPool1d(4, return_indices=True)), specials(2, 3, 10)),
    Case("torch_adaptive_avg3d", "nn.AdaptiveAvgPool3d((2, 3, 2))",
         from_torch(nn.AdaptiveAvgPool3d((2, 3, 2))), tied(1, 2, 5, 6, 7)),
    Case("torch_adaptive_max3d_dynamic", "nn.AdaptiveMaxPool3d((2, 2, 3)), input [?,2,?,?,?]",
         from_torch(nn.AdaptiveMaxPool3d((2, 2, 3)), dynamic=(0, 2, 3, 4)), tied(2, 2, 4, 5, 6)),
    Case("torch_avgpool2d", "nn.AvgPool2d(3, 2, 1) (reference: AvgPool)",
         from_torch(nn.AvgPool2d(3, 2, 1)), tied(1, 3, 8, 8)),
    Case("torch_pools_two_outputs", "MaxPool2d(2, return_indices=True), AvgPool2d(2) on one x",
         from_torch(Pair(nn.MaxPool2d(2, return_indices=True), nn.AvgPool2d(2))),
         specials(2, 2, 4, 6)),
    # ONNX: MaxPool -> MaxPool-8 (axis=0 indices) or MaxPool-1; Global*Pool, Reduce*, AveragePool.
    Case("onnx_maxpool_indices", "ONNX MaxPool with Indices, k3 s2 pads 1 (opset 13)",
         from_onnx("MaxPool", 2, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
         specials(2, 2, 6, 7)),
    Case("onnx_maxpool_values", "ONNX MaxPool, k2 s1 (opset 18)",
         from_onnx("MaxPool", 1, 18, kernel_shape=[2, 2]), specials(1, 3, 5, 5)),
    Case("onnx_maxpool_ceil", "ONNX MaxPool ceil_mode=1, k2 s2 pads 1, with Indices",
         from_onnx("MaxPool", 2, kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1],
                   ceil_mode=1), tied(1, 2, 5, 5)),
    Case("onnx_maxpool_dilation_same_upper", "ONNX MaxPool dilations 2, auto_pad SAME_UPPER",
         from_onnx("MaxPool", 1, kernel_shape=[3, 3], dilations=[2, 2], auto_pad="SAME_UPPER"),
         tied(1, 2, 7, 6)),
    Case("onnx_maxpool_opset7", "ONNX MaxPool (opset 7, one output), 1-D",
         from_onnx("MaxPool", 1, 7, kernel_shape=[3], strides=[2]), specials(2, 2, 9)),
    Case("onnx_maxpool_dynamic", "ONNX MaxPool with Indices, input [N,3,H,W]",
         from_onnx("MaxPool", 2, dims=["N", 3, "H", "W"], kernel_shape=[2, 2], strides=[2, 2]),
         specials(2, 3, 4, 6)),
    Case("onnx_maxpool_uint8", "ONNX MaxPool on uint8 (opset 12)",
         from_onnx("MaxPool", 1, 12, dtype=np.uint8, kernel_shape=[2, 2], pads=[0, 0, 1, 1]),
         tied(1, 3, 5, 5, dtype=np.uint8, low=0, high=256)),
    Case("onnx_maxpool_int8", "ONNX MaxPool on int8 with Indices (opset 12)",
         from_onnx("MaxPool", 2, 12, dtype=np.int8, kernel_shape=[3], strides=[2], pads=[1, 1]),
         tied(2, 2, 8, dtype=np.int8, low=-128, high=128)),
    Case("onnx_global_average_pool", "ONNX GlobalAveragePool",
         from_onnx("GlobalAveragePool"), specials(2, 4, 3, 3)),
    Case("onnx_global_max_pool", "ONNX GlobalMaxPool", from_onnx("GlobalMaxPool"),
         tied(2, 4, 5, 5)),
    Case("onnx_global_average_pool_dynamic", "ONNX GlobalAveragePool, input [N,C,H,W]",
         from_onnx("GlobalAveragePool", dims=["N", "C", "H", "W"]), specials(3, 2, 4, 5),
         compress_to_fp16=False),
    Case("onnx_average_pool", "ONNX AveragePool k3 s2 pads 1 (reference: AvgPool)",
         from_onnx("AveragePool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
         tied(1, 2, 7, 7)),
    Case("onnx_reduce_mean_13", "ONNX ReduceMean axes=[-1] keepdims=0 (opset 13)",
         from_onnx("ReduceMean", axes=[-1], keepdims=0), specials(2, 3, 6)),
    Case("onnx_reduce_mean_18", "ONNX ReduceMean axes input [1, 2] (opset 18)",
         from_onnx("ReduceMean", opset=18, axes_input=[1, 2]), tied(2, 3, 4, 5)),
    Case("onnx_reduce_max_18_int32", "ONNX ReduceMax int32, axes input [2] keepdims=0 (opset 18)",
         from_onnx("ReduceMax", opset=18, dtype=np.int32, axes_input=[2], keepdims=0),
         tied(2, 3, 7, dtype=np.int32, low=-1000, high=1000)),
    Case("onnx_reduce_mean_int32", "ONNX ReduceMean on int32 axes=[1] (opset 13)",
         from_onnx("ReduceMean", dtype=np.int32, axes=[1]),
         tied(2, 5, 3, dtype=np.int32, low=-50, high=50), compress_to_fp16=False),
)
# fmt: on


def run_case(core: ov.Core, case: Case, case_dir: Path) -> dict[str, Any]:
    """Convert, save, read back, run on CPU; write the case directory; return its index entry."""
    example = case.inputs(case_rng(case.name))
    case_dir.mkdir(parents=True, exist_ok=True)
    xml_path = case_dir / "model.xml"
    ov.save_model(case.convert(example), xml_path, compress_to_fp16=case.compress_to_fp16)
    model = core.read_model(xml_path)
    parameters = [p.get_friendly_name() for p in model.get_parameters()]
    inputs = dict(zip(parameters, example, strict=True))
    outputs = run_keyed(cpu_request(core, model), output_keys(model), list(inputs.values()))
    write_npz(case_dir / "inputs.npz", inputs)
    write_npz(case_dir / "outputs.npz", outputs)
    types = layer_types(xml_path)
    averages = any(kind.split("-")[0] in AVERAGING for kind in types)

    def compare(array: Array) -> dict[str, Any]:
        return TOLERANCE if averages and array.dtype.kind == "f" else {"exact": True}

    return {
        "name": case.name,
        "source": case.source,
        "layer_types": types,
        "compress_to_fp16": case.compress_to_fp16,
        "inputs": {
            name: {"element_type": str(a.dtype), "shape": list(a.shape),
                   "declared_shape": str(p.get_output_partial_shape(0))}
            for (name, a), p in zip(inputs.items(), model.get_parameters(), strict=True)
        },
        "outputs": {name: {"element_type": str(a.dtype), "shape": list(a.shape), **compare(a)}
                    for name, a in outputs.items()},
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    versions = {"torch": torch.__version__, "onnx": onnx.__version__}
    return write_corpus(argv, __doc__.splitlines()[0], DEFAULT_OUT, CASES, run_case, versions)


if __name__ == "__main__":
    raise SystemExit(main())
