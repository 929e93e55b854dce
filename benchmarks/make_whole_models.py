"""Write the full-size models `benchmarks/whole_models.py` times: torchvision's resnet18,
mobilenet_v2 and vit_b_16 with random weights (seeded), converted by `openvino.convert_model`
with a static input [1, 3, 224, 224] (vit_b_16 through `torch.export`, as tracing cannot
convert it) and saved with `compress_to_fp16=False` (f32 weights), into
build/benchmark-models/<model>-static-fp32/model.xml (not committed; about 400 MB, vit_b_16's
346 MB of it). A fourth, `mobilenet_v2_relu`, is mobilenet_v2 with its ReLU6 (Clamp in the
IR) as ReLU: the same convolutions; against it the real model shows what its Clamps cost.

torchvision needs its own torch, so this runs in the corpus venv of docs/corpus.md (name
models to make only those):

    /work/.venv-corpus/bin/python benchmarks/make_whole_models.py [MODEL ...]  # $IRPOOL_CORPUS_VENV
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]  # no analytics

MODELS = ("resnet18", "mobilenet_v2", "mobilenet_v2_relu", "vit_b_16")
OUT = Path(__file__).resolve().parent.parent / "build" / "benchmark-models"
SIZE = 224


def model_path(name: str) -> Path:
    return OUT / f"{name}-static-fp32" / "model.xml"


def main() -> int:
    import openvino as ov
    import torch
    import torchvision

    for number, name in enumerate(MODELS):
        if sys.argv[1:] and name not in sys.argv[1:]:
            continue
        torch.manual_seed(1 if name == "mobilenet_v2_relu" else number)  # as mobilenet_v2
        module = getattr(torchvision.models, name.removesuffix("_relu"))(weights=None).eval()
        if name.endswith("_relu"):
            for parent in module.modules():
                for child, layer in parent.named_children():
                    if isinstance(layer, torch.nn.ReLU6):
                        setattr(parent, child, torch.nn.ReLU())
        example = torch.randn(1, 3, SIZE, SIZE)
        shape = [1, 3, SIZE, SIZE]
        with torch.no_grad():
            if name == "vit_b_16":  # tracing fails ("Graphs differed across invocations")
                exported = torch.export.export(module, (example,))
                converted = ov.convert_model(exported, input=shape)
            else:
                converted = ov.convert_model(module, example_input=example, input=shape)
        path = model_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        ov.save_model(converted, path, compress_to_fp16=False)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
