"""Generate the language exporter corpus: transformers models as optimum-intel exports them, from
tiny random configs and a tokenizer trained here (nothing downloaded).

Each model (Llama, Qwen2, GPT2, Phi3, Mistral, Gemma, Gemma2, Gemma3; BERT, T5, Whisper; OPT in
VARIANTS) is built from a tiny config (width 64, one layer, 4 heads, 2 KV heads) with random
weights seeded per model, given a byte-level BPE tokenizer trained with `tokenizers` on a few
sentences, ``save_pretrained`` to build/language-hf/<model>, then exported as a user exports it:

    optimum-cli export openvino --model build/language-hf/<model> --task <task> <options> OUT

The decoder-only LLMs in fp16 (stateful), int8, int4 with group sizes 64 and 16, and fp16
``--disable-stateful``; BERT, T5 and Whisper in fp16; and VARIANTS, exports of other configs or
options.
Of each export every IR file optimum writes is kept (model, encoder, decoder; the tokenizer and
detokenizer of the fp16 export only, the others' are the same), with the CPU plugin's outputs
(``{"INFERENCE_PRECISION_HINT": "f32"}``) on realistic inputs as ``inputs-<file>-<sample>.npz``
and ``outputs-<file>-<sample>.npz`` (samples: ``prompt``, a tokenized sentence; ``padded``, two
left-padded ones; ``nonfinite`` where a file takes floats; bf16 arrays as OpenVINO's Python API
takes and gives them, float16 arrays of the bits). For each LLM, greedy-<file>.json holds the
16 tokens OpenVINO's InferRequest generates from the prompt (``beam_idx`` 0; a stateful one after
``reset_state()``, a nonstateful one from an empty past, each present fed back). The COMMITTED
exports go to tests/models/language (with index.json), the others to ``--full-out`` (default
build/language-full); inventory.json holds the op type-versions of every export's files ("full")
and of the committed ones ("reduced": the same tiny files, fewer exports).

Run by another Python, the tool re-runs itself with ``$IRPOOL_CORPUS_VENV/bin/python``
(default ``.venv-corpus``: optimum-intel, transformers, openvino-tokenizers, torch). optimum-intel
2.2 exports the Gemma models only under transformers <= 5.0 (the others need 5.5), so the tool
runs itself again with ``$IRPOOL_GEMMA_VENV/bin/python`` (default ``.venv-gemma``: the same
packages with transformers 5.0.0) to make and record those; index.json names both venvs' versions.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from corpus_venv import VENV, rerun_in_corpus_venv

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "models" / "language"
HF = REPO / "build" / "language-hf"
FULL_OUT = REPO / "build" / "language-full"
INVENTORY = OUT / "inventory.json"
DOCS = REPO / "docs" / "corpus.md"
HOW_TO_INSTALL = f"""\
tools/gen_language_corpus.py needs optimum-intel, transformers, openvino-tokenizers and torch in
a venv of their own: python3 -m venv {VENV} && {VENV}/bin/pip install optimum-intel
openvino-tokenizers (IRPOOL_CORPUS_VENV names another venv). See docs/corpus.md."""
# optimum-intel 2.2's Gemma export configs say MAX_TRANSFORMERS_VERSION = "5.0".
GEMMA_TRANSFORMERS = "5.0.0"
GEMMA_VENV = Path(os.environ.get("IRPOOL_GEMMA_VENV", REPO / ".venv-gemma"))
HOW_TO_INSTALL_GEMMA = f"""\
The Gemma exports need optimum-intel 2.2 with transformers {GEMMA_TRANSFORMERS} in a venv of their
own: python3 -m venv {GEMMA_VENV} && {GEMMA_VENV}/bin/pip install optimum-intel==2.2.0
transformers=={GEMMA_TRANSFORMERS} openvino-tokenizers torch torchvision (IRPOOL_GEMMA_VENV names
another venv). See docs/corpus.md."""

sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]
os.environ.setdefault("HF_HUB_OFFLINE", "1")

try:
    import openvino as ov
    import openvino_tokenizers  # noqa: F401  (registers the tokenizer IR's extension ops)
    import torch
    import transformers
    from corpus import COMPILE_CONFIG, layer_types, output_keys, with_nonfinite, write_npz
    from exporter_inventory import replace_table, table
    from optimum.commands.optimum_cli import main as optimum_cli
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
except ImportError as error:
    rerun_in_corpus_venv(error, HOW_TO_INSTALL)

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "OpenVINO reads IR files; irpool checks them layer by layer.",
    "Hello world! 0123456789",
    "A tiny model generates sixteen greedy tokens.",
]
PROMPT = "The quick brown fox"
PADDED = ["Hello world!", "A tiny model generates"]
GREEDY_STEPS = 16
WIDTH, FFN, HEADS, KV_HEADS, LAYERS = 64, 128, 4, 2, 1
# optimum traces Whisper's encoder on 3000 frames whatever the config says, so the encoder is
# whisper's size in time: narrower and with 8 mel bins, its recorded arrays stay small.
WHISPER_WIDTH, MEL_BINS, AUDIO_FRAMES = 32, 8, 3000
SPECIALS = {"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>"}
# Made in GEMMA_VENV: optimum-intel 2.2 refuses them under transformers 5.5 ("Maximum required is
# 5.0"). Gemma2 soft-caps its logits (the export's SDPA drops the attention's soft-cap); Gemma2
# and Gemma3 (one sliding-window layer each) slide a window of 8, which the prompt outgrows.
GEMMAS = ("gemma", "gemma2", "gemma3")
SLIDING_WINDOW = 8
LLMS = ("llama", "qwen2", "gpt2", "phi3", "mistral", *GEMMAS)
LLM_EXPORTS = {  # suffix -> optimum-cli options
    "fp16": ["--weight-format", "fp16"],
    "int8": ["--weight-format", "int8"],
    "int4-g64": ["--weight-format", "int4", "--group-size", "64"],
    "int4-g16": ["--weight-format", "int4", "--group-size", "16"],
    "fp16-nonstateful": ["--weight-format", "fp16", "--disable-stateful"],
}
TASKS = {
    **dict.fromkeys((*LLMS, "opt"), "text-generation-with-past"),
    "bert": "feature-extraction",
    "t5": "text2text-generation-with-past",
    "whisper": "automatic-speech-recognition-with-past",
}
TOKENIZER_FILES = ("openvino_tokenizer", "openvino_detokenizer")
# Exports of other configs or options (model, config changes, options).
# llama-w45-int4-per-row: width 45, 3 heads of 10, one KV head, FFN 99; one scale per row, so
# the CPU quantizes activations per 32 with a shorter last group (K 45 and 99; the int8 lm_head
# too), and the 4-bit rows of odd length (K 45, 99) do not start on a byte.
# llama-int8-nonstateful: int8 weights without state, whose past and present are bf16.
# opt-int8: OPT (learned positions, ReLU MLP, a LayerNorm with no affine left after the tiny
# model's ones and zeros fold); its lm_head shares the embedding table, which a ShapeOf reads
# too, so the CPU leaves that table's decompression unfused (docs/compressed-weights.md);
# weights drawn with a deviation of 0.3 (0.02 by default: the tied head then repeats a token).
VARIANTS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "llama-w45-int4-per-row": (
        "llama",
        dict(
            hidden_size=45, num_attention_heads=3, num_key_value_heads=1, head_dim=10,
            intermediate_size=99, vocab_size=503,
        ),
        ("--weight-format", "int4", "--group-size", "-1"),
    ),
    "llama-int8-nonstateful": ("llama", {}, ("--weight-format", "int8", "--disable-stateful")),
    "opt-int8": ("opt", {"init_std": 0.3}, ("--weight-format", "int8")),
}  # fmt: skip
# The exports committed (about 0.27 MB each): every weight format and mode of Llama and Gemma
# (Gemma's int4 in group 16 only), one of the others' formats each, every model in fp16, and
# Gemma3's int8 (its int8 embedding meets the activation quantization's ties after RMSNorm)
# and every VARIANTS export; the rest go to --full-out.
COMMITTED = frozenset({
    *(f"llama-{suffix}" for suffix in LLM_EXPORTS), "qwen2-fp16", "qwen2-int4-g64", "gpt2-fp16",
    "gpt2-int8", "phi3-fp16", "phi3-fp16-nonstateful", "mistral-fp16", "mistral-int4-g16",
    "bert-fp16", "t5-fp16", "whisper-fp16", "gemma-fp16", "gemma-int8", "gemma-int4-g16",
    "gemma-fp16-nonstateful", "gemma2-fp16", "gemma3-fp16", "gemma3-int8", *VARIANTS,
})  # fmt: skip


def seed(name: str) -> int:
    return zlib.crc32(name.encode())


def tokenizer() -> transformers.PreTrainedTokenizerFast:
    """A byte-level BPE (as GPT2's, Llama 3's and Qwen2's are) trained on SENTENCES."""
    bpe = Tokenizer(models.BPE(unk_token=SPECIALS["unk_token"]))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=list(SPECIALS.values()),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )  # fmt: skip
    bpe.train_from_iterator(SENTENCES * 4, trainer)
    return transformers.PreTrainedTokenizerFast(tokenizer_object=bpe, **SPECIALS)


def config(name: str, vocab: int) -> Any:
    """The tiny config of `name`; token ids 1, 2, 3 are <s>, </s>, <pad>."""
    ids = {"bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 3}
    t = transformers
    decoder = dict(
        vocab_size=vocab, hidden_size=WIDTH, intermediate_size=FFN, num_hidden_layers=LAYERS,
        num_attention_heads=HEADS, num_key_value_heads=KV_HEADS, max_position_embeddings=128, **ids,
    )  # fmt: skip
    # Untied: with the head tied to random embeddings, Gemma's greedy run repeats one token 16
    # times (GPT2 keeps a tied head in the corpus).
    gemma = dict(decoder, head_dim=WIDTH // HEADS, tie_word_embeddings=False)
    built: dict[str, Callable[[], Any]] = {
        "llama": lambda: t.LlamaConfig(**decoder),
        "qwen2": lambda: t.Qwen2Config(**decoder),
        "mistral": lambda: t.MistralConfig(**decoder, sliding_window=None),
        "phi3": lambda: t.Phi3Config(**decoder),
        "gemma": lambda: t.GemmaConfig(**gemma),
        "gemma2": lambda: t.Gemma2Config(**gemma, sliding_window=SLIDING_WINDOW),
        "gemma3": lambda: t.Gemma3TextConfig(**gemma, sliding_window=SLIDING_WINDOW),
        "gpt2": lambda: t.GPT2Config(
            vocab_size=vocab, n_embd=WIDTH, n_layer=LAYERS, n_head=HEADS, n_positions=128, **ids
        ),
        "opt": lambda: t.OPTConfig(
            vocab_size=vocab,
            hidden_size=WIDTH,
            ffn_dim=FFN,
            num_hidden_layers=LAYERS,
            num_attention_heads=HEADS,
            word_embed_proj_dim=WIDTH,
            max_position_embeddings=128,
            **ids,
        ),
        "bert": lambda: t.BertConfig(
            vocab_size=vocab,
            hidden_size=WIDTH,
            num_hidden_layers=LAYERS,
            num_attention_heads=HEADS,
            intermediate_size=FFN,
            max_position_embeddings=128,
            pad_token_id=3,
        ),
        "t5": lambda: t.T5Config(
            vocab_size=vocab,
            d_model=WIDTH,
            d_kv=WIDTH // HEADS,
            d_ff=FFN,
            num_layers=LAYERS,
            num_heads=HEADS,
            decoder_start_token_id=3,
            pad_token_id=3,
            eos_token_id=2,
        ),
        "whisper": lambda: t.WhisperConfig(
            vocab_size=vocab,
            d_model=WHISPER_WIDTH,
            encoder_layers=LAYERS,
            decoder_layers=LAYERS,
            encoder_attention_heads=HEADS,
            decoder_attention_heads=HEADS,
            encoder_ffn_dim=FFN,
            decoder_ffn_dim=FFN,
            num_mel_bins=MEL_BINS,
            max_source_positions=AUDIO_FRAMES // 2,
            max_target_positions=64,
            decoder_start_token_id=1,
            **ids,
        ),
    }
    return built[name]()


MODEL_CLASSES = {
    "llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM", "mistral": "MistralForCausalLM",
    "phi3": "Phi3ForCausalLM", "gemma": "GemmaForCausalLM", "gemma2": "Gemma2ForCausalLM",
    "gemma3": "Gemma3ForCausalLM", "gpt2": "GPT2LMHeadModel", "opt": "OPTForCausalLM",
    "bert": "BertModel", "t5": "T5ForConditionalGeneration",
    "whisper": "WhisperForConditionalGeneration",
}  # fmt: skip


def save_pretrained(name: str) -> Path:
    """The tiny random model (a model's, or a VARIANTS config's) and its tokenizer in
    build/language-hf/<name> (fresh)."""
    folder = HF / name
    shutil.rmtree(folder, ignore_errors=True)
    words = tokenizer()
    base, changes, _ = VARIANTS.get(name, (name, {}, ()))
    built = config(base, len(words))
    built.update(changes)
    torch.manual_seed(seed(name))
    model = getattr(transformers, MODEL_CLASSES[base])(built).eval()
    model.save_pretrained(folder)
    words.save_pretrained(folder)
    if name == "whisper":
        extractor = transformers.WhisperFeatureExtractor(feature_size=MEL_BINS)
        extractor.save_pretrained(folder)
    return folder


@dataclass(frozen=True)
class Export:
    name: str  # <model>-<suffix>
    model: str
    options: tuple[str, ...]
    source: str  # the folder in build/language-hf: the model's, or a VARIANTS name

    def command(self) -> list[str]:
        task = ["--task", TASKS[self.model]]
        return ["export", "openvino", "--model", str(HF / self.source), *task, *self.options]


def exports() -> list[Export]:
    found = [Export(f"{m}-{s}", m, tuple(o), m) for m in LLMS for s, o in LLM_EXPORTS.items()]
    found += [
        Export(f"{m}-fp16", m, ("--weight-format", "fp16"), m) for m in ("bert", "t5", "whisper")
    ]
    found += [Export(name, m, options, name) for name, (m, _, options) in VARIANTS.items()]
    return found


def run_optimum_cli(arguments: Sequence[str]) -> None:
    """optimum-cli, as its console script runs it, in this process (one import for all)."""
    saved = sys.argv
    sys.argv = ["optimum-cli", *arguments]
    try:
        optimum_cli()
    finally:
        sys.argv = saved


def token_ids(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """input_ids and attention_mask of the texts, left-padded as generation pads them."""
    words = tokenizer()
    words.padding_side = "left"
    encoded = words(list(texts), padding=True, return_tensors="np")
    return encoded["input_ids"].astype(np.int64), encoded["attention_mask"].astype(np.int64)


def feed(
    model: ov.Model, ids: np.ndarray, mask: np.ndarray, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """An input for each Parameter (keyed by its tensor's name) for a batch of token ids: no
    past, but 3 random positions of past_key_values for a non-stateful LLM."""
    batch, length = ids.shape
    names = [parameter.get_output_tensor(0).get_any_name() for parameter in model.get_parameters()]
    past = 3 if any(name.startswith("past_key_values") for name in names) else 0
    arrays: dict[str, np.ndarray] = {}
    for parameter, name in zip(model.get_parameters(), names, strict=True):
        dims = parameter.get_partial_shape()
        if name in ("input_ids", "decoder_input_ids"):
            array = ids
        elif name == "attention_mask":
            array = np.concatenate([np.ones((batch, past), np.int64), mask], axis=1)
        elif name == "position_ids":
            array = np.maximum(np.cumsum(mask, axis=1) - 1, 0) + past
        elif name == "token_type_ids":
            array = np.zeros_like(ids)
        elif name == "beam_idx":
            array = np.arange(batch)
        elif name == "cache_position":
            array = np.arange(past, past + length)
        elif name.startswith("past_key_values"):
            array = rng.standard_normal([batch, dims[1].get_length(), past, dims[3].get_length()])
        elif name == "encoder_hidden_states":
            array = rng.standard_normal((batch, 5, dims[2].get_length()))
        elif name == "encoder_attention_mask":
            array = np.ones((batch, 5))
        elif name == "input_features":
            array = rng.standard_normal((batch, dims[1].get_length(), AUDIO_FRAMES))
        else:
            raise SystemExit(f"no input made for Parameter {name} {dims}")
        arrays[name] = array.astype(dtype_of(parameter))
    return arrays


def dtype_of(parameter: Any) -> np.dtype[Any]:
    """The dtype of the values made for a Parameter: float32 for bf16 (NumPy has none)."""
    kind = parameter.get_element_type()
    return np.dtype(np.float32) if kind == ov.Type.bf16 else np.dtype(kind.to_dtype())


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """What OpenVINO's Python API takes for bf16: float16 arrays holding the bf16 bits, here
    of float32 values rounded to the nearest bf16 (ties to even; a NaN stays a quiet NaN)."""
    words = np.ascontiguousarray(values, np.float32).view(np.uint32)
    rounded = (words + np.uint32(0x7FFF) + ((words >> 16) & np.uint32(1))) >> 16
    quiet_nan = (words >> 16) | np.uint32(0x40)
    bits = np.where(np.isnan(values), quiet_nan, rounded).astype(np.uint16)
    return bits.view(np.float16)


def as_openvino_takes(model: ov.Model, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays with the values of each bf16 Parameter as bits (`bf16_bits`)."""
    bf16 = {
        parameter.get_output_tensor(0).get_any_name()
        for parameter in model.get_parameters()
        if parameter.get_element_type() == ov.Type.bf16
    }
    return {key: bf16_bits(array) if key in bf16 else array for key, array in arrays.items()}


def nonfinite_sample(
    arrays: dict[str, np.ndarray], rng: np.random.Generator
) -> dict[str, np.ndarray] | None:
    """The arrays with +inf, -inf and NaN at two places each of every float one; None when
    none is float."""
    if not any(array.dtype.kind == "f" for array in arrays.values()):
        return None
    return {
        key: with_nonfinite(array, rng) if array.dtype.kind == "f" else array
        for key, array in arrays.items()
    }


def outputs_of(
    request: ov.InferRequest, keys: Sequence[str], arrays: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    request.infer(arrays)
    found = {}
    for i, key in enumerate(keys):
        tensor = request.get_output_tensor(i)
        strings = tensor.get_element_type() == ov.Type.string
        found[key] = np.array(tensor.str_data) if strings else tensor.data.copy()
    return found


def samples(
    model: ov.Model, file: str, rng: np.random.Generator
) -> dict[str, dict[str, np.ndarray]]:
    """The recorded inputs of a file: token ids, strings for a tokenizer, ids for a detokenizer."""
    prompt, padded = token_ids([PROMPT]), token_ids(PADDED)
    (parameter,) = model.get_parameters()[:1]
    key = parameter.get_output_tensor(0).get_any_name()
    if file == "openvino_tokenizer":
        return {"prompt": {key: np.array([PROMPT])}, "padded": {key: np.array(PADDED)}}
    if file == "openvino_detokenizer":
        return {"prompt": {key: prompt[0]}, "padded": {key: padded[0]}}
    found = {"prompt": feed(model, *prompt, rng)}
    if "input_features" not in model.input(0).get_names():  # audio: one batch is enough
        found["padded"] = feed(model, *padded, rng)
    nonfinite = nonfinite_sample(found["prompt"], rng)
    found = found if nonfinite is None else {**found, "nonfinite": nonfinite}
    return {sample: as_openvino_takes(model, arrays) for sample, arrays in found.items()}


def empty_past(parameter: Any) -> np.ndarray:
    """A past_key_values input of no positions: [1, heads, 0, head size]."""
    dims = parameter.get_partial_shape()
    return np.zeros((1, dims[1].get_length(), 0, dims[3].get_length()), dtype_of(parameter))


def greedy(request: ov.InferRequest, model: ov.Model) -> dict[str, Any]:
    """GREEDY_STEPS tokens of an LLM from PROMPT: the prompt, then each step's argmax fed back,
    beam_idx 0; a stateful one after reset_state(), a nonstateful one from an empty past with
    each step's present fed back as its past (OpenVINO's own arrays); with the least gap between
    a step's top two logits, of that step's largest |logit| (a gap within rounding could let two
    right runs differ)."""
    ids, mask = token_ids([PROMPT])
    request.reset_state()
    tokens: list[int] = []
    gaps: list[float] = []
    parameters = {p.get_output_tensor(0).get_any_name(): p for p in model.get_parameters()}
    pasts = [name for name in parameters if name.startswith("past_key_values")]
    empty = {name: empty_past(parameters[name]) for name in pasts}
    step = {
        "input_ids": ids,
        "attention_mask": mask,
        "position_ids": np.arange(ids.shape[1])[None],
        "beam_idx": np.zeros(1, np.int32),
        **as_openvino_takes(model, empty),
    }
    step = {key: array for key, array in step.items() if key in parameters}
    for _ in range(GREEDY_STEPS):
        request.infer(step)
        last = request.get_tensor("logits").data[0, -1].astype(np.float64)
        tokens.append(int(last.argmax()))
        top_two = np.sort(last)[-2:]
        gaps.append(float((top_two[1] - top_two[0]) / np.abs(last).max()))
        length = step["attention_mask"].shape[1]
        presents = {
            name: request.get_tensor(name.replace("past_key_values", "present")).data.copy()
            for name in pasts
        }
        step = {
            **step,
            "input_ids": np.array([[tokens[-1]]]),
            "attention_mask": np.ones((1, length + 1), np.int64),
            **({"position_ids": np.array([[length]])} if "position_ids" in step else {}),
            **presents,
        }
    return {"prompt": PROMPT, "tokens": tokens, "least_top_two_gap": min(gaps)}


def record(core: ov.Core, folder: Path, file: str) -> dict[str, Any]:
    """Run one IR file of an export on the CPU plugin (f32) on its samples; write the npz files
    (and the greedy tokens of a stateful LLM); return its index entry."""
    model = core.read_model(folder / f"{file}.xml")
    keys = output_keys(model)
    request = core.compile_model(model, "CPU", COMPILE_CONFIG).create_infer_request()
    rng = np.random.default_rng(seed(f"{folder.name}/{file}"))
    entry: dict[str, Any] = {"file": f"{file}.xml", "samples": {}}
    for sample, arrays in samples(model, file, rng).items():
        request.reset_state()
        outputs = outputs_of(request, keys, arrays)
        write_npz(folder / f"inputs-{file}-{sample}.npz", arrays)
        write_npz(folder / f"outputs-{file}-{sample}.npz", outputs)
        entry["samples"][sample] = {key: list(array.shape) for key, array in outputs.items()}
    stateful = bool(model.get_sinks()) and "beam_idx" in {
        p.get_friendly_name() for p in model.get_parameters()
    }
    with_past = any(
        p.get_output_tensor(0).get_any_name().startswith("past_key_values")
        for p in model.get_parameters()
    )
    if (stateful or with_past) and file == "openvino_model":
        generated = greedy(request, model)
        (folder / f"greedy-{file}.json").write_text(json.dumps(generated) + "\n")
        entry["greedy"] = generated
    return entry


def generate(export: Export, core: ov.Core, folder: Path) -> dict[str, Any]:
    """Export into `folder` (fresh), keep the IR files, record them; return the index entry."""
    shutil.rmtree(folder, ignore_errors=True)
    run_optimum_cli([*export.command(), str(folder)])
    files = sorted(path.stem for path in folder.glob("*.xml"))
    if not export.name.endswith("-fp16"):  # the fp16 export's tokenizer files are the same
        files = [file for file in files if file not in TOKENIZER_FILES]
    for path in folder.iterdir():
        if path.suffix not in (".xml", ".bin") or path.stem not in files:
            path.unlink()
    command = " ".join(["optimum-cli", *export.command(), export.name]).replace(str(REPO) + "/", "")
    return {
        "name": export.name,
        "command": command,
        "files": [record(core, folder, file) for file in files],
    }


def versions() -> dict[str, str]:
    """The versions of what made the exports in this process."""
    return {
        "optimum_intel": metadata.version("optimum-intel"),
        "transformers": transformers.__version__,
        "torch": torch.__version__,
    }


def make(
    chosen: Sequence[Export], core: ov.Core, full_out: Path
) -> tuple[list[dict[str, Any]], dict[str, Path]]:
    """Export and record the chosen exports; their committed index entries and every file."""
    for source in dict.fromkeys(export.source for export in chosen):
        save_pretrained(source)
    cases: list[dict[str, Any]] = []
    files: dict[str, Path] = {}
    for export in chosen:
        folder = (OUT if export.name in COMMITTED else full_out) / export.name
        case = generate(export, core, folder)
        for entry in case["files"]:
            files[f"{export.name}/{entry['file']}"] = folder / entry["file"]
        if export.name in COMMITTED:
            cases.append(case)
    return cases, files


def make_gemmas(full_out: Path) -> dict[str, Any]:
    """Run this tool in GEMMA_VENV on the Gemma exports; what its --gemma-part wrote."""
    python = GEMMA_VENV / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"no {python}\n\n{HOW_TO_INSTALL_GEMMA}")
    with tempfile.TemporaryDirectory() as scratch:
        part = Path(scratch) / "gemma.json"
        arguments = ["--full-out", str(full_out), "--gemma-part", str(part)]
        subprocess.run([str(python), __file__, *arguments], check=True)
        found: dict[str, Any] = json.loads(part.read_text())
    return found


def write_gemma_part(part: Path, full_out: Path) -> int:
    """Make the Gemma exports here (GEMMA_VENV) and write their cases, files and versions."""
    if transformers.__version__ != GEMMA_TRANSFORMERS:
        raise SystemExit(f"transformers {transformers.__version__}\n\n{HOW_TO_INSTALL_GEMMA}")
    chosen = [export for export in exports() if export.model in GEMMAS]
    cases, files = make(chosen, ov.Core(), full_out)
    found = {"cases": cases, "files": {n: str(p) for n, p in files.items()}, **versions()}
    part.write_text(json.dumps(found))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--full-out", type=Path, default=FULL_OUT, help="the exports not committed")
    parser.add_argument("--gemma-part", type=Path, help="(in GEMMA_VENV) the Gemma exports only")
    args = parser.parse_args(argv)
    if args.gemma_part:
        return write_gemma_part(args.gemma_part, args.full_out)
    OUT.mkdir(parents=True, exist_ok=True)
    for stale in {path.parent for path in OUT.glob("*/*.xml")} - {OUT / name for name in COMMITTED}:
        shutil.rmtree(stale)
    chosen = [export for export in exports() if export.model not in GEMMAS]
    cases, files = make(chosen, ov.Core(), args.full_out)
    gemmas = make_gemmas(args.full_out)
    cases += gemmas["cases"]
    files |= {name: Path(path) for name, path in gemmas["files"].items()}
    order = [export.name for export in exports()]
    index = {
        "generator": "tools/gen_language_corpus.py",
        "openvino": ov.get_version(),
        **versions(),
        "gemma": {key: gemmas[key] for key in versions()},
        "config": COMPILE_CONFIG,
        "cases": sorted(cases, key=lambda case: order.index(case["name"])),
    }
    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    by_export = sorted(files, key=lambda name: order.index(name.split("/")[0]))
    layers = {name: layer_types(files[name]) for name in by_export}
    committed = {name: kinds for name, kinds in layers.items() if name.split("/")[0] in COMMITTED}
    inventory = {"generator": "tools/gen_language_corpus.py", "full": layers, "reduced": committed}
    INVENTORY.write_text(json.dumps(inventory, indent=1) + "\n")
    DOCS.write_text(replace_table(DOCS.read_text(), "language", table(inventory)))
    print(f"wrote {len(cases)} exports to {OUT}, {len(exports()) - len(cases)} to {args.full_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
