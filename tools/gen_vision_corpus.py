"""Generate the vision exporter corpus: YOLO as ultralytics exports it, NNCF INT8 models, and
torchvision's segmenters as ``openvino.convert_model`` converts them; random weights, nothing
downloaded.

* ultralytics ``YOLO("<cfg>.yaml").export(format="openvino", ...)`` for yolov8n and yolo11n in
  detect, seg, pose, cls and obb: fp32, fp16 (``quantize=16``) and, but for cls, ``nms=True``;
  yolo26n detect with ``nms=False`` (its NMS-free head: a TopK of the scores);
* ``nncf.quantize`` (8 random calibration inputs) of the yolov8n fp32 export and of torchvision's
  resnet18 and mobilenet_v2, then ``ov.save_model``;
* torchvision lraspp_mobilenet_v3_large, deeplabv3_mobilenet_v3_large and fcn_resnet50
  (``weights=None, weights_backbone=None``), ``convert_model`` + ``save_model`` fp32 and fp16.

Two corpora of the same cases ``<case>/`` (model.xml, model.bin, inputs-<sample>.npz keyed by
Parameter name, outputs-<sample>.npz keyed as ``model.run`` keys them, from the CPU plugin with
``{"INFERENCE_PRECISION_HINT": "f32"}``; samples ``randn`` and ``nonfinite``, the same with
+inf, -inf and NaN at two places each) plus index.json:

* full size (never committed), default ``build/vision-full``;
* reduced (committed, tests/models/vision): the same exporters on the same model classes with
  fewer channels and a smaller image (YOLO: the ultralytics yaml with a width eight times
  smaller, reg_max 4, fewer classes and keypoints, image 64; torchvision: channels divided as
  tools/gen_torchvision_corpus.py divides them, image 32); the committed ones are COMMITTED.

inventory.json records each file's op type-versions; generation fails unless each reduced file
holds the op types of its full-size twin. Run by another Python, the tool re-runs itself with
``$IRPOOL_CORPUS_VENV/bin/python`` (default ``.venv-corpus``; ultralytics, nncf, torchvision).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from corpus_venv import VENV, rerun_in_corpus_venv

REPO = Path(__file__).resolve().parent.parent
REDUCED_OUT = REPO / "tests" / "models" / "vision"
FULL_OUT = REPO / "build" / "vision-full"
WORK = REPO / "build" / "vision-work"
INVENTORY = REDUCED_OUT / "inventory.json"
DOCS = REPO / "docs" / "corpus.md"
HOW_TO_INSTALL = f"""\
tools/gen_vision_corpus.py needs ultralytics, nncf, torch, torchvision and openvino in a venv of
their own: python3 -m venv {VENV} && {VENV}/bin/pip install ultralytics nncf torchvision openvino
(IRPOOL_CORPUS_VENV names another venv). See docs/corpus.md."""

sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

try:
    import nncf
    import openvino as ov
    import torch
    import torchvision
    import ultralytics
    import yaml
    from corpus import cpu_request, layer_types, output_keys, run_keyed, with_nonfinite, write_npz
    from exporter_inventory import held_types, replace_table, table
    from gen_torchvision_corpus import channels_divided_by
    from torch import nn
    from torchvision.models.segmentation import fcn
    from ultralytics import YOLO
    from ultralytics.nn.modules import block
except ImportError as error:
    rerun_in_corpus_venv(error, HOW_TO_INSTALL)

SAMPLES = ("randn", "nonfinite")
CALIBRATION_INPUTS = 8
REDUCED_IMAGE = 32
REDUCED_CLASSIFIER_IMAGE = 32
YOLO_WIDTH_DIVISOR = 8
YOLO_TASKS = ("", "-seg", "-pose", "-cls", "-obb")
YOLO_VARIANTS: dict[str, dict[str, Any]] = {
    "fp32": {},
    "fp16": {"quantize": 16},
    "nms": {"nms": True},
    "e2e": {"nms": False},
}
SEGMENTERS = {  # builder -> channel divisor of the reduced model
    "lraspp_mobilenet_v3_large": 8,
    "deeplabv3_mobilenet_v3_large": 8,
    "fcn_resnet50": 16,
}
NNCF_CLASSIFIERS = {"resnet18": 16, "mobilenet_v2": 8}
# The reduced cases committed (about 0.2 MB of XML each): every task and variant of the
# exporters, not every pairing. yolov8n has each task in fp32, yolo11n each in fp16; nms=True
# on detect and obb (whose NMS graph has its own ops); fp32 and fp16 of one segmenter.
COMMITTED = frozenset({
    "yolov8n-fp32", "yolov8n-fp16", "yolov8n-nms", "yolov8n-seg-fp32", "yolov8n-pose-fp32",
    "yolov8n-cls-fp32", "yolov8n-obb-fp32", "yolov8n-obb-nms", "yolo11n-fp32", "yolo11n-nms",
    "yolo11n-seg-fp16", "yolo11n-pose-fp16", "yolo11n-cls-fp16", "yolo11n-obb-fp16",
    "yolov8n-int8", "resnet18-int8", "mobilenet_v2-int8", "lraspp_mobilenet_v3_large-fp32",
    "lraspp_mobilenet_v3_large-fp16", "deeplabv3_mobilenet_v3_large-fp16", "fcn_resnet50-fp16",
    "yolo26n-e2e",
})  # fmt: skip
REDUCED_CLASSES = 10


def seed(name: str) -> int:
    return zlib.crc32(name.encode())


@dataclass(frozen=True)
class Case:
    name: str
    command: str  # the exporter call, for index.json and docs/corpus.md
    # (full size?, case folder) -> model.xml, model.bin there; returns the input shape it took
    write: Callable[[bool, Path], tuple[int, ...]]


def reduced_yolo_yaml(stem: str) -> Path:
    """The ultralytics yaml of `stem` (e.g. yolov8n-seg) with the same layers, a width eight
    times smaller, reg_max at most 4, 4 classes (cls 10, pose 1 with 5 keypoints), 8 mask
    channels."""
    family, _, task = stem.partition("-")
    folder = {"yolov8n": "v8", "yolo11n": "11", "yolo26n": "26"}[family]
    base = Path(ultralytics.__file__).parent / "cfg" / "models" / folder
    config: dict[str, Any] = yaml.safe_load(
        (base / f"{family[:-1]}{'-' + task if task else ''}.yaml").read_text()
    )
    depth, width, max_channels = config["scales"]["n"]
    config["scales"] = {"n": [depth, width / YOLO_WIDTH_DIVISOR, max_channels]}
    config["nc"] = {"cls": REDUCED_CLASSES, "pose": 1}.get(task, 4)
    config["reg_max"] = min(config.get("reg_max", 16), 4)  # yolo26's 1: no DFL
    if "kpt_shape" in config:
        config["kpt_shape"] = [5, 3]
    head = config["head"][-1]
    if head[2] == "Segment":
        head[3] = ["nc", 8, 256]  # masks, prototypes (scaled by the width)
    path = WORK / "cfg" / f"{stem}.yaml"  # the file name gives ultralytics the scale "n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config))
    return path


def at_least_two_heads() -> None:
    """yolo11's C2PSA gives its attention `channels // 64` heads: 0 in the reduced model. Two,
    as yolo11n has, keep the attention's graph."""
    original = block.PSABlock.__init__

    def init(
        self: nn.Module, c: int, attn_ratio: float = 0.5, num_heads: int = 4, shortcut: bool = True
    ) -> None:
        original(self, c, attn_ratio=attn_ratio, num_heads=max(num_heads, 2), shortcut=shortcut)

    block.PSABlock.__init__ = init


def yolo_export(stem: str, variant: str) -> Callable[[bool, Path], tuple[int, ...]]:
    def write(full: bool, out: Path) -> tuple[int, ...]:
        cls = stem.endswith("-cls")
        image = (
            (224 if cls else 640) if full else (REDUCED_CLASSIFIER_IMAGE if cls else REDUCED_IMAGE)
        )
        torch.manual_seed(seed(f"{stem}-{variant}"))
        model = YOLO(f"{stem}.yaml" if full else str(reduced_yolo_yaml(stem)))
        options = YOLO_VARIANTS[variant]
        previous = Path.cwd()
        os.chdir(WORK)  # ultralytics writes <stem>_openvino_model/ there
        try:
            folder = WORK / model.export(format="openvino", imgsz=image, **options)
        finally:
            os.chdir(previous)
        out.mkdir(parents=True, exist_ok=True)
        for suffix in (".xml", ".bin"):
            shutil.move(folder / f"{stem}{suffix}", out / f"model{suffix}")
        shutil.rmtree(folder)
        return (1, 3, image, image)

    return write


def calibration(shape: Sequence[int], name: str) -> list[np.ndarray]:
    rng = np.random.default_rng(seed(f"{name}-calibration"))
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(CALIBRATION_INPUTS)]


def quantize_and_save(
    model: ov.Model, shape: tuple[int, ...], name: str, out: Path
) -> tuple[int, ...]:
    quantized = nncf.quantize(
        model, nncf.Dataset(calibration(shape, name)), subset_size=CALIBRATION_INPUTS
    )
    out.mkdir(parents=True, exist_ok=True)
    ov.save_model(quantized, out / "model.xml")
    return shape


def nncf_yolo(full: bool, out: Path) -> tuple[int, ...]:
    source = out.parent / "yolov8n-fp32" / "model.xml"  # written before (CASES' order)
    image = 640 if full else REDUCED_IMAGE
    shape = (1, 3, image, image)
    return quantize_and_save(ov.Core().read_model(source), shape, "yolov8n-int8", out)


def torchvision_module(
    builder: Callable[..., nn.Module], divisor: int, full: bool, **kwargs: Any
) -> nn.Module:
    if full:
        return builder(weights=None, **kwargs).eval()
    with channels_divided_by(divisor):
        return builder(weights=None, num_classes=REDUCED_CLASSES * divisor, **kwargs).eval()


def nncf_classifier(name: str) -> Callable[[bool, Path], tuple[int, ...]]:
    def write(full: bool, out: Path) -> tuple[int, ...]:
        torch.manual_seed(seed(name))
        module = torchvision_module(getattr(torchvision.models, name), NNCF_CLASSIFIERS[name], full)
        image = 224 if full else REDUCED_IMAGE
        example = torch.from_numpy(calibration((1, 3, image, image), name)[0])
        with torch.no_grad():
            converted = ov.convert_model(module, example_input=example)
        return quantize_and_save(converted, (1, 3, image, image), f"{name}-int8", out)

    return write


def reduced_fcn_resnet50() -> nn.Module:
    """fcn_resnet50 as torchvision builds it (a dilated resnet50 backbone and FCN's head), with
    channels divided by 16; built here because fcn_resnet50 gives the backbone the ImageNet
    classifier's 1000 outputs (then drops it), which 16 does not divide."""
    divisor = SEGMENTERS["fcn_resnet50"]
    with channels_divided_by(divisor):
        backbone = torchvision.models.resnet50(
            weights=None, replace_stride_with_dilation=[False, True, True], num_classes=divisor
        )
        model: nn.Module = fcn._fcn_resnet(backbone, REDUCED_CLASSES * divisor, False)
    return model.eval()


def segmenter(name: str, compress: bool) -> Callable[[bool, Path], tuple[int, ...]]:
    def write(full: bool, out: Path) -> tuple[int, ...]:
        torch.manual_seed(seed(name))
        builder = getattr(torchvision.models.segmentation, name)
        if full or name != "fcn_resnet50":
            module = torchvision_module(builder, SEGMENTERS[name], full, weights_backbone=None)
        else:
            module = reduced_fcn_resnet50()
        image = 520 if full else REDUCED_IMAGE
        example = torch.from_numpy(calibration((1, 3, image, image), name)[0])
        with torch.no_grad():
            converted = ov.convert_model(module, example_input=example)
        out.mkdir(parents=True, exist_ok=True)
        ov.save_model(converted, out / "model.xml", compress_to_fp16=compress)
        return (1, 3, image, image)

    return write


def yolo_cases() -> list[Case]:
    cases = []
    for family in ("yolov8n", "yolo11n"):
        for task in YOLO_TASKS:
            stem = f"{family}{task}"
            image = 224 if task == "-cls" else 640
            call = f'YOLO("{stem}.yaml").export(format="openvino", imgsz={image}'
            variants = {"fp32": ")", "fp16": ", quantize=16)", "nms": ", nms=True)"}
            for variant, tail in variants.items():
                if not (task == "-cls" and variant == "nms"):
                    cases.append(Case(f"{stem}-{variant}", call + tail, yolo_export(stem, variant)))
    return cases


def other_cases() -> list[Case]:
    quantize = "nncf.quantize(model, nncf.Dataset(8 randn inputs), subset_size=8); ov.save_model"
    cases = [Case("yolov8n-int8", f"{quantize} (model: the yolov8n-fp32 export)", nncf_yolo)]
    for name in NNCF_CLASSIFIERS:
        convert = f"ov.convert_model(torchvision.models.{name}(weights=None), example_input=x)"
        cases.append(Case(f"{name}-int8", f"{quantize} (model: {convert})", nncf_classifier(name)))
    for name in SEGMENTERS:
        for precision, compress in (("fp32", False), ("fp16", True)):
            call = (
                f"ov.save_model(ov.convert_model(segmentation.{name}(weights=None, "
                f"weights_backbone=None), example_input=x), compress_to_fp16={compress})"
            )
            cases.append(Case(f"{name}-{precision}", call, segmenter(name, compress)))
    # Last: the node names of the files written before it keep their numbers.
    call = 'YOLO("yolo26n.yaml").export(format="openvino", imgsz=640, nms=False)'
    cases.append(Case("yolo26n-e2e", call, yolo_export("yolo26n", "e2e")))
    return cases


def samples(name: str, shape: Sequence[int]) -> dict[str, np.ndarray]:
    """randn, and randn with +inf, -inf and NaN at two places each."""
    rng = np.random.default_rng(seed(name))
    randn = rng.standard_normal(shape).astype(np.float32)
    nonfinite = with_nonfinite(randn, rng)
    return {"randn": randn, "nonfinite": nonfinite}


def record(core: ov.Core, case: Case, out: Path, shape: tuple[int, ...]) -> dict[str, Any]:
    """Run the saved file on the CPU plugin (f32) on each sample; write the npz files."""
    model = core.read_model(out / "model.xml")
    (parameter,) = model.get_parameters()
    request, keys = cpu_request(core, model), output_keys(model)
    recorded: dict[str, Any] = {}
    for sample, array in samples(case.name, shape).items():
        outputs = run_keyed(request, keys, [array])
        write_npz(out / f"inputs-{sample}.npz", {parameter.get_friendly_name(): array})
        write_npz(out / f"outputs-{sample}.npz", outputs)
        recorded[sample] = {
            "outputs": {k: list(a.shape) for k, a in outputs.items()},
            "finite_outputs": {k: int(np.isfinite(a).sum()) for k, a in outputs.items()},
        }
    return {
        "name": case.name,
        "command": case.command,
        "input_shape": list(shape),
        "samples": recorded,
    }


def generate(full: bool, out: Path) -> dict[str, Path]:
    """Write every case (full size) or the committed ones (reduced) into `out` (fresh folders,
    those of other cases removed); return {case: model.xml}."""
    core = ov.Core()
    WORK.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    cases = [case for case in yolo_cases() + other_cases() if full or case.name in COMMITTED]
    for stale in {path.parent for path in out.glob("*/model.xml")} - {out / c.name for c in cases}:
        shutil.rmtree(stale)
    entries = []
    for case in cases:
        print(f"  {case.name}", flush=True)
        shutil.rmtree(out / case.name, ignore_errors=True)
        shape = case.write(full, out / case.name)
        entries.append({**record(core, case, out / case.name, shape), "full_size": full})
    index = {
        "generator": "tools/gen_vision_corpus.py",
        "openvino": ov.get_version(),
        "ultralytics": ultralytics.__version__,
        "nncf": nncf.__version__,
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "config": {"INFERENCE_PRECISION_HINT": "f32"},
        "samples": list(SAMPLES),
        "cases": entries,
    }
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    return {entry["name"]: out / entry["name"] / "model.xml" for entry in entries}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=REDUCED_OUT, help="the reduced corpus")
    parser.add_argument("--full-out", type=Path, default=FULL_OUT, help="the full-size corpus")
    parser.add_argument(
        "--reduced-only", action="store_true", help="keep the committed inventory's full-size part"
    )
    args = parser.parse_args(argv)
    at_least_two_heads()
    reduced = {case: layer_types(xml) for case, xml in generate(False, args.out).items()}
    if args.reduced_only:
        full = json.loads(INVENTORY.read_text())["full"] if INVENTORY.exists() else {}
    else:
        full = {case: layer_types(xml) for case, xml in generate(True, args.full_out).items()}
    inventory = {"generator": "tools/gen_vision_corpus.py", "full": full, "reduced": reduced}
    INVENTORY.write_text(json.dumps(inventory, indent=1) + "\n")
    DOCS.write_text(replace_table(DOCS.read_text(), "vision", table(inventory)))
    lacking = {case: held_types(full[case]) - held_types(reduced[case]) for case in reduced}
    gaps = [
        f"{case}: the reduced file lacks {sorted(kinds)}"
        for case, kinds in lacking.items()
        if kinds
    ]
    everywhere = {kind for layers in reduced.values() for kind in layers}
    uncovered = {kind for layers in full.values() for kind in layers} - everywhere
    gaps += [f"no committed file holds {kind}" for kind in sorted(uncovered)]
    if gaps:
        raise SystemExit("\n".join(gaps))
    print(f"wrote {len(reduced)} cases to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
