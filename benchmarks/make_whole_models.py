"""Write the full-size models `benchmarks/whole_models.py` times, each as users export it, from
random weights (seeded; nothing downloaded), into build/benchmark-models/<directory>/ (not
committed; about 1.5 GB with every model; `--out` writes elsewhere):

- resnet18, mobilenet_v2, vit_b_16: torchvision, `openvino.convert_model` with a static input
  [1, 3, 224, 224] (vit_b_16 through `torch.export`, as tracing cannot convert it), saved with
  `compress_to_fp16=False` (f32 weights). `mobilenet_v2_relu` is mobilenet_v2 with its ReLU6
  (Clamp in the IR) as ReLU: the same convolutions; against it the real model shows what its
  Clamps cost.
- yolov8n: ultralytics `YOLO("yolov8n.yaml").export(format="openvino", imgsz=640)` (f32 detect).
- resnet18_int8, yolov8n_int8: `nncf.quantize` of the f32 model above with 8 randn
  calibration samples (`subset_size=8`), saved as NNCF writes it.
- whisper_tiny_encoder: a random WhisperConfig of whisper-tiny's sizes (d_model 384, 4 encoder
  and decoder layers, 6 heads, ffn 1536, 80 mel bins, 1500 source positions, vocab 51865),
  `optimum-cli export openvino --task automatic-speech-recognition-with-past` with optimum's
  default weight format (f32 below a billion parameters); the encoder IR.
- llama_tiny_decode: a random LlamaConfig (hidden 256, 4 layers, 8 heads, 4 KV heads, ffn 1024,
  vocab 32000 as Llama 2's tokenizer has) exported stateful with `--task
  text-generation-with-past --weight-format fp16`, as tests/models/language/llama-fp16 is.
- qwen2_0p5b_int4: a random Qwen2Config of Qwen2-0.5B's sizes (hidden 896, ffn 4864, 24
  layers, 14 heads, 2 KV heads, vocab 151936, tied embeddings) exported stateful with
  `--weight-format int4 --group-size 64` (4,495 layers, a 329 MB .bin).

The exporters need their own torch, so this runs in the corpus venv of docs/corpus.md (name
models to make only those; each is made from the f32 models it quantizes if they are missing):

    /work/.venv-corpus/bin/python benchmarks/make_whole_models.py [MODEL ...] [--out DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]  # no analytics
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("YOLO_OFFLINE", "1")

OUT = Path(__file__).resolve().parent.parent / "build" / "benchmark-models"
SIZE, YOLO_SIZE = 224, 640
CALIBRATION_SAMPLES = 8
TORCHVISION = ("resnet18", "mobilenet_v2", "mobilenet_v2_relu", "vit_b_16")
# model -> its IR inside OUT (the directory names other tools use: corpus-style for the new ones)
FILES = {
    **{name: f"{name}-static-fp32/model.xml" for name in TORCHVISION},
    "yolov8n": "yolov8n/yolov8n.xml",
    "resnet18_int8": "resnet18_int8/model.xml",
    "yolov8n_int8": "yolov8n_int8/model.xml",
    "whisper_tiny_encoder": "whisper_tiny/openvino_encoder_model.xml",
    "llama_tiny_decode": "llama_tiny/openvino_model.xml",
    "qwen2_0p5b_int4": "qwen2-0.5b-int4-g64/openvino_model.xml",
}
MODELS = tuple(FILES)
# The stateful LLMs, timed as one decode step through an InferRequest.
DECODERS = ("llama_tiny_decode", "qwen2_0p5b_int4")
# The models whose weights IRPOOL_COMPRESSED_WEIGHTS keeps compressed or decompresses.
COMPRESSED = ("qwen2_0p5b_int4",)


def model_path(name: str, out: Path = OUT) -> Path:
    return out / FILES[name]


def make_torchvision(name: str, path: Path) -> None:
    import openvino as ov
    import torch
    import torchvision

    torch.manual_seed(1 if name == "mobilenet_v2_relu" else TORCHVISION.index(name))
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
    ov.save_model(converted, path, compress_to_fp16=False)


def make_yolo(path: Path) -> None:
    import torch
    from ultralytics import YOLO

    torch.manual_seed(0)
    # ultralytics writes beside the working directory
    with tempfile.TemporaryDirectory() as work, contextlib.chdir(work):
        exported = Path(YOLO("yolov8n.yaml").export(format="openvino", imgsz=YOLO_SIZE))
        shutil.rmtree(path.parent, ignore_errors=True)
        shutil.copytree(exported, path.parent)


def make_int8(source: Path, size: int, path: Path) -> None:
    import nncf
    import numpy as np
    import openvino as ov

    rng = np.random.default_rng(0)
    shape = (1, 3, size, size)
    data = [rng.standard_normal(shape).astype(np.float32) for _ in range(CALIBRATION_SAMPLES)]
    model = ov.Core().read_model(source)
    quantized = nncf.quantize(model, nncf.Dataset(data), subset_size=CALIBRATION_SAMPLES)
    ov.save_model(quantized, path)


def optimum_export(hf_model: object, task: str, options: list[str], path: Path) -> None:
    """save_pretrained the random model, then `optimum-cli export openvino` it into path's
    directory, as a user runs it."""
    with tempfile.TemporaryDirectory() as folder:
        hf_model.save_pretrained(folder)  # type: ignore[attr-defined]
        cli = Path(sys.executable).parent / "optimum-cli"
        command = [str(cli), "export", "openvino", "--model", folder, "--task", task, *options]
        subprocess.run([*command, str(path.parent)], check=True)


def make_whisper(path: Path) -> None:
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.WhisperConfig(
        vocab_size=51865, d_model=384, encoder_layers=4, decoder_layers=4,
        encoder_attention_heads=6, decoder_attention_heads=6, encoder_ffn_dim=1536,
        decoder_ffn_dim=1536, num_mel_bins=80, max_source_positions=1500,
        max_target_positions=448, decoder_start_token_id=50258, pad_token_id=50257,
        eos_token_id=50257, bos_token_id=50257,
    )  # fmt: skip
    model = transformers.WhisperForConditionalGeneration(config).eval()
    optimum_export(model, "automatic-speech-recognition-with-past", [], path)


def make_llama(path: Path) -> None:
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=32000, hidden_size=256, intermediate_size=1024, num_hidden_layers=4,
        num_attention_heads=8, num_key_value_heads=4, max_position_embeddings=2048,
        bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    model = transformers.LlamaForCausalLM(config).eval()
    options = ["--weight-format", "fp16"]
    optimum_export(model, "text-generation-with-past", options, path)


def make_qwen2(path: Path) -> None:
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.Qwen2Config(
        vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
        num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
        tie_word_embeddings=True, bos_token_id=151643, eos_token_id=151643,
    )  # fmt: skip
    model = transformers.Qwen2ForCausalLM(config).eval()
    options = ["--weight-format", "int4", "--group-size", "64"]
    optimum_export(model, "text-generation-with-past", options, path)


def maker(name: str, out: Path) -> Callable[[Path], None]:
    """How to write the model `name` (making the f32 model an INT8 one quantizes first)."""
    if name in TORCHVISION:
        return lambda path: make_torchvision(name, path)
    if name.endswith("_int8"):
        source_name = name.removesuffix("_int8")
        size = YOLO_SIZE if source_name == "yolov8n" else SIZE
        source = model_path(source_name, out)
        if not source.exists():
            make(source_name, out)
        return lambda path: make_int8(source, size, path)
    makers = {
        "yolov8n": make_yolo,
        "whisper_tiny_encoder": make_whisper,
        "llama_tiny_decode": make_llama,
        "qwen2_0p5b_int4": make_qwen2,
    }
    return makers[name]


def make(name: str, out: Path) -> None:
    path = model_path(name, out)
    path.parent.mkdir(parents=True, exist_ok=True)
    maker(name, out)(path)
    print(f"wrote {path}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", metavar="MODEL", help=", ".join(MODELS))
    parser.add_argument("--out", type=Path, default=OUT, help=f"default {OUT}")
    args = parser.parse_args()
    unknown = sorted(set(args.models) - set(MODELS))
    if unknown:
        parser.error(f"no model {', '.join(unknown)}; the models: {', '.join(MODELS)}")
    for name in args.models or MODELS:
        make(name, args.out.resolve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
