"""Generate the torchvision classifier corpus (issues #20, #23) with torchvision and OpenVINO.

Twelve torchvision CNN classifiers (#20) and three transformer ones (#23: convnext_tiny, swin_t,
vit_b_16), random weights from a seed fixed per model, converted as a user converts them
(``openvino.convert_model(model, example_input=x)``; vit_b_16, which tracing cannot convert,
through ``torch.export``), then ``ov.save_model`` with its default fp16 compression and with
``compress_to_fp16=False``; resnet18 and shufflenet_v2_x0_5 also with a static and a
dynamic-batch input. An all-zero weight of a Linear or Conv2d (vit's classification head, which
torchvision zeroes without pretrained weights) is redrawn, so that every model's outputs tell
a right run from a wrong one. For every file the CPU plugin's outputs
(``{"INFERENCE_PRECISION_HINT": "f32"}``) on two inputs are recorded: ``randn``
(standard normal) and ``nonfinite`` (the same with +inf, -inf and NaN at a few places).

Two corpora, each a folder of cases ``<model>-<input>-<fp16|fp32>/`` (model.xml, model.bin,
inputs-<sample>.npz keyed by Parameter name, outputs-<sample>.npz keyed by output as
``model.run`` keys them) plus index.json:

* full size (the real models, about 2 GB; never committed), default ``build/torchvision-full``;
  from its files the inventory (tests/models/torchvision/inventory.json and the table in
  docs/corpus.md) is computed;
* reduced (committed, tests/models/torchvision): the same architectures with every channel count
  divided by a factor or the constructor's width setting lowered, on smaller inputs; the CNNs
  keep their depth and graph, the transformers have fewer blocks and heads (every kind of block
  kept). Generation fails unless the reduced files hold every op type, version, attribute
  combination and port element type of the full-size ones, and each reduced file the same op
  types as its full-size twin and (same depth) the same number of layers of each.

torchvision needs its matching torch, so this tool runs in its own venv (docs/corpus.md):

    python3 -m venv .venv-corpus
    .venv-corpus/bin/pip install torch torchvision openvino
    .venv-corpus/bin/python tools/gen_torchvision_corpus.py            # both corpora
    .venv-corpus/bin/python tools/gen_torchvision_corpus.py --reduced-only

Run by any other Python, it re-runs itself with ``$IRPOOL_CORPUS_VENV/bin/python`` (default
``.venv-corpus``) when that exists. tools/check_torchvision_corpus.py checks irpool against
either corpus.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from torchvision_inventory import different_counts, inventory, missing, replace_table

REPO = Path(__file__).resolve().parent.parent
REDUCED_OUT = REPO / "tests" / "models" / "torchvision"
FULL_OUT = REPO / "build" / "torchvision-full"
INVENTORY = REDUCED_OUT / "inventory.json"
DOCS = REPO / "docs" / "corpus.md"
VENV = Path(os.environ.get("IRPOOL_CORPUS_VENV", REPO / ".venv-corpus"))
PRECISIONS = {"fp16": True, "fp32": False}  # case suffix -> save_model's compress_to_fp16
REDUCED_CLASSES = 10
SAMPLES = ("randn", "nonfinite")
HOW_TO_INSTALL = f"""\
tools/gen_torchvision_corpus.py needs torch, torchvision (the release matching that torch) and
openvino, in a venv of their own (torchvision is not in irpool's extras):

    python3 -m venv {VENV}
    {VENV}/bin/pip install torch torchvision openvino

then run it again: it runs itself with {VENV}/bin/python
(IRPOOL_CORPUS_VENV names another venv). See docs/corpus.md."""

# convert_model reports each conversion to an analytics host through openvino_telemetry unless
# it cannot be imported (tests/conftest.py; OPENVINO_TELEMETRY_DISABLED is read by neither).
sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]

try:
    import openvino as ov
    import torch
    import torchvision
    from corpus import COMPILE_CONFIG, cpu_request, output_keys, run_keyed, write_npz
    from torch import nn
    from torchvision.models import convnext, efficientnet, regnet
    from torchvision.models import swin_transformer as swin
    from torchvision.models import vision_transformer as vit
except ImportError as error:
    python = VENV / "bin" / "python"
    # sys.prefix, not the executable: a venv's python is a symlink to the base interpreter.
    if python.exists() and Path(sys.prefix).resolve() != VENV.resolve():
        os.execv(python, [str(python), __file__, *sys.argv[1:]])
    raise SystemExit(f"{error}\n\n{HOW_TO_INSTALL}") from error


def _init_of(cls: type[nn.Module]) -> Callable[..., None]:
    """The class's __init__ function, as `channels_divided_by` replaces and restores it."""
    init: Callable[..., None] = inspect.getattr_static(cls, "__init__")
    return init


@contextmanager
def channels_divided_by(factor: int) -> Iterator[None]:
    """Build torchvision models with every channel count (Conv2d, BatchNorm2d and Linear sizes,
    the classifier's included) divided by `factor`, the image's 3 channels kept.

    The constructor's own arithmetic runs on the real counts, so the module tree, and hence the
    converted graph, is the real model's; depthwise convolutions stay depthwise. A count that
    does not divide is an error, never rounded.
    """

    def divided(count: int) -> int:
        if count == 3:  # the RGB input of the stem
            return count
        if count % factor:
            raise ValueError(f"{count} channels do not divide by {factor}")
        return count // factor

    def conv(arguments: dict[str, Any]) -> None:
        groups, channels = arguments["groups"], arguments["in_channels"]
        if groups not in (1, channels):
            raise ValueError(f"grouped convolution ({groups} groups) is not divided")
        arguments["in_channels"] = divided(channels)
        arguments["out_channels"] = divided(arguments["out_channels"])
        arguments["groups"] = 1 if groups == 1 else arguments["in_channels"]

    def features(*names: str) -> Callable[[dict[str, Any]], None]:
        def resize(arguments: dict[str, Any]) -> None:
            for name in names:
                arguments[name] = divided(arguments[name])

        return resize

    changes = {
        nn.Conv2d: conv,
        nn.BatchNorm2d: features("num_features"),
        nn.Linear: features("in_features", "out_features"),
    }
    originals = {cls: _init_of(cls) for cls in changes}

    def patched(cls: type[nn.Module], change: Callable[[dict[str, Any]], None]) -> Any:
        original, signature = originals[cls], inspect.signature(originals[cls])

        def init(self: nn.Module, *args: Any, **kwargs: Any) -> None:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            del arguments["self"]
            change(arguments)
            original(self, **arguments)

        return init

    try:
        for cls, change in changes.items():
            type.__setattr__(cls, "__init__", patched(cls, change))
        yield
    finally:
        for cls, original in originals.items():
            type.__setattr__(cls, "__init__", original)


def divided(builder: str, factor: int, **kwargs: Any) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        with channels_divided_by(factor):
            model: nn.Module = getattr(torchvision.models, builder)(
                weights=None, num_classes=REDUCED_CLASSES * factor, **kwargs
            )
        return model

    return build


# Narrower stage widths, multiples of 8 (torchvision rounds to those), each stage's input and
# output widths apart as in the real model (so no residual appears or vanishes); an exact
# division fails on both models (efficientnet's squeeze widths 4, 6, 10; regnet's group width).
EFFICIENTNET_B0_WIDTHS = {32: 16, 16: 8, 24: 16, 40: 8, 80: 16, 112: 24, 192: 16, 320: 24}
REGNET_Y_400MF_WIDTHS = [16, 24, 32, 40]  # for [48, 104, 208, 440]; group width 8 kept


def efficientnet_b0_narrow() -> nn.Module:
    """efficientnet_b0's stage table (expansion, kernel, stride, depth) with narrower widths."""
    setting, last_channel = efficientnet._efficientnet_conf(
        "efficientnet_b0", width_mult=1.0, depth_mult=1.0
    )
    for stage in setting:
        stage.input_channels = EFFICIENTNET_B0_WIDTHS[stage.input_channels]
        stage.out_channels = EFFICIENTNET_B0_WIDTHS[stage.out_channels]
    model: nn.Module = efficientnet.EfficientNet(
        setting, dropout=0.2, num_classes=REDUCED_CLASSES, last_channel=last_channel
    )
    return model


def regnet_y_400mf_narrow() -> nn.Module:
    """regnet_y_400mf's block parameters (depths, group width 8, SE ratio 0.25) with narrower
    widths and a stem of 8 for 32."""
    real = regnet.BlockParams.from_init_params(  # as torchvision's regnet_y_400mf
        depth=16, w_0=48, w_a=27.89, w_m=2.09, group_width=8, se_ratio=0.25
    )
    params = regnet.BlockParams(
        real.depths, REGNET_Y_400MF_WIDTHS, real.group_widths, real.bottleneck_multipliers,
        real.strides, real.se_ratio,
    )  # fmt: skip
    norm = partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1)  # as regnet_y_400mf builds it
    model: nn.Module = regnet.RegNet(
        params, num_classes=REDUCED_CLASSES, stem_width=8, norm_layer=norm
    )
    return model


def convnext_tiny_narrow() -> nn.Module:
    """convnext_tiny's four stages (a downsampling LayerNorm and convolution between them) with
    widths [16, 32, 48, 64] for [96, 192, 384, 768] and one block each for [3, 3, 9, 3]."""
    stage = convnext.CNBlockConfig
    setting = [stage(16, 32, 1), stage(32, 48, 1), stage(48, 64, 1), stage(64, None, 1)]
    model: nn.Module = convnext.ConvNeXt(
        setting, stochastic_depth_prob=0.1, num_classes=REDUCED_CLASSES
    )
    return model


def swin_t_narrow() -> nn.Module:
    """swin_t with embedding width 8 for 96, heads [2, 2, 4, 4] for [3, 6, 12, 24], two blocks
    per stage for [2, 2, 6, 2] (a plain and a shifted window each) and window 2 for 7: on the
    64x64 input each stage sees as many windows as swin_t's on 224x224 (8, 4, 2, 1 a side), so
    the shifts, the attention masks and the last stage's shift dropped (window = feature size)
    are traced as in the real model."""
    model: nn.Module = swin.SwinTransformer(
        patch_size=[4, 4], embed_dim=8, depths=[2, 2, 2, 2], num_heads=[2, 2, 4, 4],
        window_size=[2, 2], stochastic_depth_prob=0.2, num_classes=REDUCED_CLASSES,
    )  # fmt: skip
    return model


def vit_b_16_narrow() -> nn.Module:
    """vit_b_16's patch 16 on a 32x32 image (4 patches and the class token for 196 and one),
    two encoder blocks for 12, width 16, 2 heads and an MLP of 64 for 768, 12 and 3072."""
    model: nn.Module = vit.VisionTransformer(
        image_size=32, patch_size=16, num_layers=2, num_heads=2, hidden_dim=16, mlp_dim=64,
        num_classes=REDUCED_CLASSES,
    )  # fmt: skip
    return model


@dataclass(frozen=True)
class Classifier:
    name: str  # the torchvision.models builder
    size: int  # the real model's input height and width
    reduced: Callable[[], nn.Module]
    reduced_size: int  # small, but every stage keeps a spatial extent the real model has
    reduction: str  # how the reduced model differs, for index.json
    kwargs: dict[str, Any] = field(default_factory=dict)
    inputs: tuple[str, ...] = ("default",)
    same_depth: bool = True  # False: the reduced model has fewer blocks (other layer counts)
    export: bool = False  # convert through torch.export (tracing fails on the model)


NO_AUX = {"aux_logits": False, "init_weights": True}
# fmt: off
CLASSIFIERS = (
    Classifier("resnet18", 224, divided("resnet18", 16), 64, "channels / 16",
               inputs=("default", "static", "dynamic_batch")),
    Classifier("resnet50", 224, divided("resnet50", 16), 64, "channels / 16"),
    Classifier("mobilenet_v2", 224, divided("mobilenet_v2", 8), 64, "channels / 8"),
    Classifier("mobilenet_v3_small", 224, divided("mobilenet_v3_small", 8), 64, "channels / 8"),
    # 64x64 keeps a ceil_mode pool whose last window starts in the padding, as at 224.
    Classifier("squeezenet1_0", 224, divided("squeezenet1_0", 16), 64, "channels / 16"),
    Classifier("densenet121", 224, divided("densenet121", 8), 64, "channels / 8"),
    Classifier("googlenet", 224, divided("googlenet", 8, **NO_AUX), 64, "channels / 8",
               kwargs=NO_AUX),
    Classifier("inception_v3", 299, divided("inception_v3", 16, **NO_AUX), 75,
               "channels / 16, input 75 (its smallest)", kwargs=NO_AUX),
    # 224: AdaptiveAvgPool2d((7, 7)) sees 7x7, as in the real model.
    Classifier("vgg11", 224, divided("vgg11", 32), 224, "channels / 32"),
    Classifier("efficientnet_b0", 224, efficientnet_b0_narrow, 64,
               "stage widths [16, 8, 16, 8, 16, 24, 16, 24]"),
    Classifier("shufflenet_v2_x0_5", 224, divided("shufflenet_v2_x0_5", 8), 64, "channels / 8",
               inputs=("default", "static", "dynamic_batch")),
    Classifier("regnet_y_400mf", 224, regnet_y_400mf_narrow, 64,
               "widths [16, 24, 32, 40], stem 8"),
)
TRANSFORMERS = (
    Classifier("convnext_tiny", 224, convnext_tiny_narrow, 32,
               "widths [16, 32, 48, 64], 1 block per stage", same_depth=False),
    Classifier("swin_t", 224, swin_t_narrow, 64,
               "embedding 8, heads [2, 2, 4, 4], depths [2, 2, 2, 2], window 2, input 64",
               same_depth=False),
    Classifier("vit_b_16", 224, vit_b_16_narrow, 32,
               "2 blocks, width 16, 2 heads, MLP 64, input 32", same_depth=False, export=True),
)
# fmt: on


def seed(name: str) -> int:
    return zlib.crc32(name.encode())


HEAD_INIT_STD = 0.02  # as torchvision draws vit's position embedding (BERT's init)


def informative_heads(module: nn.Module, name: str) -> list[str]:
    """Redraw every all-zero weight of a Linear or Conv2d from a normal of std 0.02, seeded per
    model; return their names.

    Without pretrained weights torchvision zeroes vit's classification head (and its bias), so
    every output would be 0 and equal for any model ending in that head. Only such weights are
    redrawn, from a generator of their own: every other parameter, and every other model, keeps
    the values its seed gives.
    """
    generator = torch.Generator().manual_seed(seed(name))
    redrawn = []
    for path, layer in module.named_modules():
        if isinstance(layer, nn.Linear | nn.Conv2d) and not layer.weight.detach().any():
            with torch.no_grad():
                nn.init.normal_(layer.weight, std=HEAD_INIT_STD, generator=generator)
            redrawn.append(f"{path}.weight")
    return redrawn


def samples(name: str, batch: int, size: int) -> dict[str, np.ndarray]:
    """The two inputs of a case: randn, and randn with +inf, -inf and NaN at two places each."""
    rng = np.random.default_rng(seed(name))
    randn = rng.standard_normal((batch, 3, size, size)).astype(np.float32)
    nonfinite = randn.copy()
    flat = nonfinite.reshape(-1)
    places = rng.choice(flat.size, 6, replace=False)
    flat[places] = [np.inf, np.inf, -np.inf, -np.inf, np.nan, np.nan]
    return {"randn": randn, "nonfinite": nonfinite}


def input_spec(kind: str, size: int) -> dict[str, Any]:
    """convert_model's `input` argument for an input variant (default: none, as a user writes)."""
    shapes = {"static": [1, 3, size, size], "dynamic_batch": [-1, 3, size, size]}
    return {"input": ov.PartialShape(shapes[kind])} if kind in shapes else {}


def write_case(
    core: ov.Core, converted: ov.Model, compress: bool, inputs: dict[str, np.ndarray], out: Path
) -> dict[str, Any]:
    """Save, read back, run on CPU (f32); write the case folder; return what index.json says."""
    out.mkdir(parents=True, exist_ok=True)
    xml = out / "model.xml"
    ov.save_model(converted, xml, compress_to_fp16=compress)
    model = core.read_model(xml)
    (parameter,) = [p.get_friendly_name() for p in model.get_parameters()]
    request = cpu_request(core, model)
    keys = output_keys(model)
    recorded: dict[str, Any] = {}
    for sample, array in inputs.items():
        outputs = run_keyed(request, keys, [array])
        write_npz(out / f"inputs-{sample}.npz", {parameter: array})
        write_npz(out / f"outputs-{sample}.npz", outputs)
        recorded[sample] = {
            "input_shape": list(array.shape),
            "outputs": {k: list(a.shape) for k, a in outputs.items()},
            "top1": {k: a.argmax(axis=-1).tolist() for k, a in outputs.items()},
            "finite_outputs": {k: int(np.isfinite(a).sum()) for k, a in outputs.items()},
        }
    return {
        "compress_to_fp16": compress,
        "declared_input": str(model.get_parameters()[0].get_output_partial_shape(0)),
        "layers": len(model.get_ordered_ops()),
        "samples": recorded,
    }


def generate(full: bool, out: Path) -> dict[str, Path]:
    """Write every case of one corpus into `out`; return {case: model.xml}."""
    core = ov.Core()
    cases: list[dict[str, Any]] = []
    for classifier in CLASSIFIERS + TRANSFORMERS:
        torch.manual_seed(seed(classifier.name))
        if full:
            build = getattr(torchvision.models, classifier.name)
            module = build(weights=None, **classifier.kwargs).eval()
        else:
            module = classifier.reduced().eval()
        for weight in informative_heads(module, classifier.name):
            print(f"  {classifier.name}: all-zero {weight} redrawn", flush=True)
        size = classifier.size if full else classifier.reduced_size
        for kind in classifier.inputs:
            batch = 2 if kind == "dynamic_batch" else 1
            inputs = samples(f"{classifier.name}-{kind}", batch, size)
            example = torch.from_numpy(inputs["randn"])
            with torch.no_grad():
                if classifier.export:
                    converted = ov.convert_model(torch.export.export(module, (example,)))
                else:
                    converted = ov.convert_model(
                        module, example_input=example, **input_spec(kind, size)
                    )
            # fp32 first: compression must not reach a file saved after it.
            for precision in ("fp32", "fp16"):
                name = f"{classifier.name}-{kind}-{precision}"
                print(f"  {name}", flush=True)
                entry = write_case(core, converted, PRECISIONS[precision], inputs, out / name)
                cases.append({
                    "name": name, "model": classifier.name, "input": kind,
                    "precision": precision, "input_size": size,
                    "reduction": None if full else classifier.reduction,
                    "torchvision_kwargs": classifier.kwargs, **entry,
                })  # fmt: skip
    index = {
        "generator": "tools/gen_torchvision_corpus.py",
        "full_size": full,
        "openvino": ov.get_version(),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "config": COMPILE_CONFIG,
        "samples": list(SAMPLES),
        "cases": sorted(cases, key=lambda case: case["name"]),
    }
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    return {case["name"]: out / case["name"] / "model.xml" for case in cases}


def describe() -> dict[str, Any]:
    return {
        "generator": "tools/gen_torchvision_corpus.py",
        "openvino": ov.get_version(),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "layer_count_cases": [f"{c.name}-default-fp16" for c in CLASSIFIERS + TRANSFORMERS],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REDUCED_OUT, help="the reduced corpus")
    parser.add_argument("--full-out", type=Path, default=FULL_OUT, help="the full-size corpus")
    parser.add_argument(
        "--reduced-only", action="store_true",
        help="skip the full-size models; check coverage against the committed inventory",
    )  # fmt: skip
    args = parser.parse_args(argv)
    os.environ.setdefault("OPENVINO_TELEMETRY_DISABLED", "1")
    # The reduced models first: OpenVINO numbers unnamed nodes per process, so a full run
    # writes the same reduced files (names included) as a --reduced-only one.
    print(f"reduced models -> {args.out}")
    reduced_inventory = inventory(generate(False, args.out), describe())
    if args.reduced_only:
        full_inventory = json.loads(INVENTORY.read_text())
    else:
        print(f"full-size models -> {args.full_out}")
        full_inventory = inventory(generate(True, args.full_out), describe())
        INVENTORY.parent.mkdir(parents=True, exist_ok=True)
        INVENTORY.write_text(json.dumps(full_inventory, indent=1) + "\n")
    DOCS.write_text(replace_table(DOCS.read_text(), full_inventory))
    fewer_blocks = {
        case for case in reduced_inventory["cases"]
        for c in TRANSFORMERS if not c.same_depth and case.startswith(f"{c.name}-")
    }  # fmt: skip
    gaps = missing(full_inventory, reduced_inventory) + different_counts(
        full_inventory, reduced_inventory, fewer_blocks
    )
    if gaps:
        raise SystemExit("the reduced models differ from the full-size ones:\n" + "\n".join(gaps))
    print("the reduced models hold the full-size ones' layers, attributes and element types")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
