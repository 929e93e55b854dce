"""Generate ``tests/shape_corpus/``: PyTorch shape arithmetic as OpenVINO's frontend writes it.

Issue #18's false errors: ``x.view(x.size(0), -1)`` and ShuffleNet's channel shuffle, converted by
``openvino.convert_model(module, example_input=...)`` and saved by ``ov.save_model`` with and
without fp16 compression. Without ``input=`` every axis is dynamic and the frontend keeps the
shape arithmetic: ShapeOf -> Gather of a scalar index -> Divide -> Floor -> Unsqueeze -> Concat ->
Reshape, whose scalar ports the serializer writes without a <dim>, like a dynamic rank. With a
static shape or a dynamic batch it folds the arithmetic into a Const pattern. Every case is a
directory ``tests/shape_corpus/<case>/`` holding:

* ``model.xml`` + ``model.bin``: exactly what ``ov.save_model`` wrote;
* ``inputs.npz`` and ``outputs.npz``: one input, and the CPU plugin's outputs for the saved file
  read back (``compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})``), keyed as
  ``irpool``'s ``model.run`` keys them.

``index.json`` lists each case: its torch source, how its input was given, whether fp16
compression was on, and the layer types (type and opset) the file holds. The test suite only
reads these files. Regenerate (needs openvino and torch: the ``test`` and ``torch-oracle``
extras) with ``python tools/gen_shape_corpus.py [--out DIR]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from corpus import cpu_request, layer_types, output_keys, run_keyed, write_corpus, write_npz
from ov_builders import ov

try:
    import torch
except ImportError as error:
    raise SystemExit("gen_shape_corpus.py needs torch: pip install -e '.[torch-oracle]'") from error

DEFAULT_OUT = Path("tests/shape_corpus")
EXAMPLE_SHAPE = (2, 4, 6, 6)
# How the input is given to convert_model: none (every axis dynamic, as with example_input
# alone), the example's static shape, or that shape with a dynamic batch.
INPUTS: dict[str, Callable[[tuple[int, ...]], list[int] | None]] = {
    "dynamic": lambda shape: None,
    "static": list,
    "dynamic_batch": lambda shape: [-1, *shape[1:]],
}


class Flatten(torch.nn.Module):
    """A classifier's flatten after pooling."""

    source = "x = MaxPool2d(2)(x); x.view(x.size(0), -1)"

    def __init__(self) -> None:
        super().__init__()
        self.pool = torch.nn.MaxPool2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(x)
        return x.view(x.size(0), -1)


class ChannelShuffle(torch.nn.Module):
    """torchvision's shufflenetv2.channel_shuffle with 2 groups."""

    source = (
        "b, c, h, w = x.size(); x.view(b, 2, c // 2, h, w).transpose(1, 2).contiguous()"
        ".view(b, -1, h, w)"
    )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, channels, height, width = x.size()
        x = x.view(batch, 2, channels // 2, height, width)
        x = torch.transpose(x, 1, 2).contiguous()
        return x.view(batch, -1, height, width)


class SplitLastAxis(torch.nn.Module):
    """The batch size beside a size divided by a constant, as window partitions write it."""

    source = "x.view(x.size(0), -1, x.size(3) // 2)"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(x.size(0), -1, x.size(3) // 2)


MODULES: dict[str, type[torch.nn.Module]] = {
    "flatten": Flatten,
    "channel_shuffle": ChannelShuffle,
    "split_last_axis": SplitLastAxis,
}


@dataclass(frozen=True)
class Case:
    name: str
    module: str
    given: str  # a key of INPUTS
    compress_to_fp16: bool


CASES = [
    Case(f"{module}_{given}_{'fp16' if compress else 'fp32'}", module, given, compress)
    for module in MODULES
    for given in INPUTS
    for compress in (True, False)
]


def run_case(core: ov.Core, case: Case, case_dir: Path) -> dict[str, object]:
    module = MODULES[case.module]()
    example = np.random.default_rng(len(case.name)).standard_normal(EXAMPLE_SHAPE)
    example = example.astype(np.float32)
    shape = INPUTS[case.given](EXAMPLE_SHAPE)
    options = {} if shape is None else {"input": [shape]}
    converted = ov.convert_model(module.eval(), example_input=torch.from_numpy(example), **options)
    case_dir.mkdir(parents=True, exist_ok=True)
    xml_path = case_dir / "model.xml"
    ov.save_model(converted, xml_path, compress_to_fp16=case.compress_to_fp16)
    model = core.read_model(xml_path)
    name = model.get_parameters()[0].get_friendly_name()
    outputs = run_keyed(cpu_request(core, model), output_keys(model), [example])
    write_npz(case_dir / "inputs.npz", {name: example})
    write_npz(case_dir / "outputs.npz", outputs)
    return {
        "name": case.name,
        "source": module.source,
        "input": case.given,
        "compress_to_fp16": case.compress_to_fp16,
        "layer_types": layer_types(xml_path),
    }


def main(argv: Sequence[str] | None = None) -> int:
    versions = {"torch": torch.__version__}
    return write_corpus(argv, __doc__.splitlines()[0], DEFAULT_OUT, CASES, run_case, versions)


if __name__ == "__main__":
    raise SystemExit(main())
