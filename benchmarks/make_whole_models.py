"""Write the full-size models `benchmarks/whole_models.py` times: torchvision's resnet18 and
mobilenet_v2 with random weights (seeded), converted by `openvino.convert_model` with a static
input [1, 3, 224, 224] and saved with `compress_to_fp16=False` (f32 weights), into
build/benchmark-models/<model>-static-fp32/model.xml (not committed; about 60 MB). A third,
`mobilenet_v2_relu`, is mobilenet_v2 with its ReLU6 (Clamp in the IR) as ReLU: the same
convolutions; against it the real model shows what its Clamps cost.

torchvision needs its own torch, so this runs in the corpus venv of docs/corpus.md:

    /work/.venv-corpus/bin/python benchmarks/make_whole_models.py     # or $IRPOOL_CORPUS_VENV
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]  # no analytics

MODELS = ("resnet18", "mobilenet_v2", "mobilenet_v2_relu")
OUT = Path(__file__).resolve().parent.parent / "build" / "benchmark-models"
SIZE = 224


def model_path(name: str) -> Path:
    return OUT / f"{name}-static-fp32" / "model.xml"


def main() -> int:
    import openvino as ov
    import torch
    import torchvision

    for number, name in enumerate(MODELS):
        torch.manual_seed(number if number < 2 else 1)  # the ReLU variant: mobilenet's
        module = getattr(torchvision.models, name.removesuffix("_relu"))(weights=None).eval()
        if name.endswith("_relu"):
            for parent in module.modules():
                for child, layer in parent.named_children():
                    if isinstance(layer, torch.nn.ReLU6):
                        setattr(parent, child, torch.nn.ReLU())
        example = torch.randn(1, 3, SIZE, SIZE)
        with torch.no_grad():
            converted = ov.convert_model(module, example_input=example, input=[1, 3, SIZE, SIZE])
        path = model_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        ov.save_model(converted, path, compress_to_fp16=False)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
