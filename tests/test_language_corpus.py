"""Language models as optimum-intel exports them: stateful LLMs in fp16, int8 and int4 weights
and without state (OPT's int8 among them), BERT, T5 and Whisper, with their tokenizer and
detokenizer IR.

tests/models/language/<export>/ holds every IR file `optimum-cli export openvino` wrote for a
tiny random model (tools/gen_language_corpus.py), with the CPU plugin's outputs on realistic
inputs, and for each LLM the 16 tokens OpenVINO's InferRequest generates greedily.
Every file must validate without error and without IR202 (the tokenizer's extension ops aside,
which irpool reports but cannot check); `run` must give the CPU plugin's outputs (to 1e-3 of
each output's scale, the same argmax); an LLM's `create_infer_request()` must generate the same
16 tokens (a stateful one again after `reset_state()`, a nonstateful one with each step's
present fed back as its past). The recorded bf16 arrays are OpenVINO's (float16 arrays holding
the bits): the tests convert them with `irpool.bf16_from_bits`. A case holding an op of
tests/exporter_corpus.py's NOT_MODELLED table is a strict xfail naming it. These tests read
committed files only: no OpenVINO needed.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.cpu.isa import AVX512_CORE, cpu_isa
from tests.exporter_corpus import (
    EXTENSION,
    MET_BY_SAMPLE,
    NOT_MODELLED,
    TOLERANCES,
    expect_failure,
    inventory_table,
    layer_types,
    load_npz,
    pending,
    run_differences,
    unmodelled_in_registry,
)
from tests.exporter_corpus import validation_problems as problems

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "models" / "language"
INDEX: dict[str, Any] = json.loads((CORPUS / "index.json").read_text())
INVENTORY: dict[str, Any] = json.loads((CORPUS / "inventory.json").read_text())
FILES = {
    f"{case['name']}/{entry['file']}": entry for case in INDEX["cases"] for entry in case["files"]
}
KINDS = {name: layer_types(CORPUS / name) for name in FILES}
LLM_EXPORTS = ("fp16", "int8", "int4-g64", "int4-g16", "fp16-nonstateful")
# Every weight format and mode of Llama and Gemma (Gemma's int4 in group 16 only), one of the
# others' formats each, every model in fp16, Gemma3's int8, and the exports of other configs
# (tools/gen_language_corpus.py's COMMITTED and VARIANTS); the inventory's full part holds every
# export.
VARIANTS = {"llama-w45-int4-per-row", "llama-int8-nonstateful", "opt-int8"}
EXPORTS = {
    *(f"llama-{suffix}" for suffix in LLM_EXPORTS), "qwen2-fp16", "qwen2-int4-g64", "gpt2-fp16",
    "gpt2-int8", "phi3-fp16", "phi3-fp16-nonstateful", "mistral-fp16", "mistral-int4-g16",
    "bert-fp16", "t5-fp16", "whisper-fp16", "gemma-fp16", "gemma-int8", "gemma-int4-g16",
    "gemma-fp16-nonstateful", "gemma2-fp16", "gemma3-fp16", "gemma3-int8", *VARIANTS,
}  # fmt: skip
LLMS = ("llama", "qwen2", "gpt2", "phi3", "mistral", "gemma", "gemma2", "gemma3")
GENERATING = (*LLMS, "opt")  # OPT: one VARIANTS export
FULL_EXPORTS = {f"{m}-{e}" for m in LLMS for e in LLM_EXPORTS} | {
    "bert-fp16",
    "t5-fp16",
    "whisper-fp16",
    *VARIANTS,
}
TOKENIZER_FILES = ("openvino_tokenizer.xml", "openvino_detokenizer.xml")
MODEL_FILES = {
    "bert-fp16": {"openvino_model.xml"},
    "t5-fp16": {"openvino_encoder_model.xml", "openvino_decoder_model.xml"},
    "whisper-fp16": {"openvino_encoder_model.xml", "openvino_decoder_model.xml"},
}
GREEDY = sorted(name for name, entry in FILES.items() if "greedy" in entry)
PAST = "past_key_values"
MAX_BYTES = 10 * 2**20  # with the vision corpus, about 18.4 MB; 0.6 MB of AVX2 outputs
# Files whose 4-bit weight rows have an odd length: an AVX2 host's products by them are wrong
# (docs/cpu.md#an-avx2-host-quantizes-no-activations), irpool's are the products.
ODD_NIBBLE_ROWS = frozenset({"llama-w45-int4-per-row/openvino_model.xml"})
LAST_AXIS = -1  # logits (batch, tokens, vocabulary), hidden states


def _tokenizer(name: str) -> bool:
    return name.rsplit("/", 1)[1] in TOKENIZER_FILES


def _missing(name: str, sample: str = "") -> list[str]:
    met = MET_BY_SAMPLE.get((name, sample))
    missing = pending(KINDS[name], [met] if met else [])
    if sample and name in ODD_NIBBLE_ROWS and cpu_isa() != AVX512_CORE:
        missing.append("an AVX2 host's wrong products by 4-bit rows of odd length")
    return missing


def _samples(name: str) -> list[str]:
    return sorted(FILES[name]["samples"])


def _recorded(name: str, kind: str, sample: str) -> dict[str, Any]:
    """A recorded sample as irpool takes and gives it: bf16 arrays as float32 values."""
    folder, file = name.rsplit("/", 1)
    path = CORPUS / folder / f"{kind}-{file.removesuffix('.xml')}-{sample}.npz"
    avx2 = path.with_name(f"{path.stem}-avx2.npz")  # an AVX2 host's, where they differ
    arrays = load_npz(avx2 if cpu_isa() != AVX512_CORE and avx2.exists() else path)
    bf16 = _bf16_tensors(name)
    return {key: irpool.bf16_from_bits(a) if key in bf16 else a for key, a in arrays.items()}


@cache
def _bf16_tensors(name: str) -> set[str]:
    """The names of the file's bf16 inputs and outputs."""
    if _tokenizer(name):
        return set()
    model = irpool.load(CORPUS / name)
    inputs = {n for i in model.inputs if i.element_type == "bf16" for n in i.names}
    outputs = {o.name for o in model.outputs if o.layer.inputs[0].precision == "bf16"}
    return inputs | outputs


def test_the_corpus_is_every_export_with_every_file_optimum_writes() -> None:
    assert {case["name"] for case in INDEX["cases"]} == EXPORTS
    assert {name.split("/")[0] for name in INVENTORY["full"]} == FULL_EXPORTS
    assert set(INVENTORY["reduced"]) == set(FILES)
    for export in EXPORTS:
        expected = MODEL_FILES.get(export, {"openvino_model.xml"})
        if export.endswith("-fp16"):  # the others' tokenizer files are the same
            expected = expected | set(TOKENIZER_FILES)
        assert {p.name for p in (CORPUS / export).glob("*.xml")} == expected, export
        assert {n.split("/")[1] for n in FILES if n.startswith(f"{export}/")} == expected, export


def test_every_llm_has_its_greedy_tokens() -> None:
    assert set(GREEDY) == {
        f"{export}/openvino_model.xml" for export in EXPORTS if export.startswith(GENERATING)
    }
    for name in GREEDY:
        tokens = FILES[name]["greedy"]["tokens"]
        assert len(tokens) == 16 and len(set(tokens)) > 1, name


def test_every_weight_compressed_sample_has_an_avx2_hosts_outputs() -> None:
    """Their AVX2 outputs leave the AVX-512 ones beyond the tolerance (docs/corpus.md)."""
    for name in RUNNABLE:
        folder, file = name.rsplit("/", 1)
        if "-int8" in folder or "-int4" in folder:
            for sample in _samples(name):
                stem = f"outputs-{file.removesuffix('.xml')}-{sample}-avx2.npz"
                assert (CORPUS / folder / stem).is_file(), f"{folder}/{stem}"


def test_the_committed_corpus_stays_small() -> None:
    size = sum(path.stat().st_size for path in CORPUS.rglob("*") if path.is_file())
    assert size <= MAX_BYTES, f"{size / 2**20:.1f} MB"


def test_the_not_modelled_table_names_every_op_irpool_lacks() -> None:
    held = {kind for layers in INVENTORY["full"].values() for kind in layers}
    assert unmodelled_in_registry(held) <= set(NOT_MODELLED)


def test_the_inventory_is_the_committed_files() -> None:
    for name in FILES:
        assert set(INVENTORY["reduced"][name]) == KINDS[name], name


def test_docs_show_the_committed_inventory() -> None:
    assert inventory_table(INVENTORY) in (ROOT / "docs" / "corpus.md").read_text()


@pytest.mark.parametrize("name", [expect_failure(n, missing=_missing(n)) for n in sorted(FILES)])
def test_validates_without_error_or_unchecked_op(name: str) -> None:
    assert problems(CORPUS / name, extension_ops_warn=_tokenizer(name)) == []


RUNNABLE = sorted(name for name in FILES if not _tokenizer(name))


@pytest.mark.parametrize(
    ("name", "sample"),
    [expect_failure(n, s, missing=_missing(n, s)) for n in RUNNABLE for s in _samples(n)],
)
def test_run_gives_the_cpu_plugins_outputs(name: str, sample: str) -> None:
    model = irpool.load(CORPUS / name)
    outputs = model.run(_recorded(name, "inputs", sample))
    expected = _recorded(name, "outputs", sample)
    assert sorted(outputs) == sorted(expected)
    assert run_differences(outputs, expected, TOLERANCES["float"], LAST_AXIS) == {}


@pytest.mark.parametrize(
    "name", [expect_failure(n, missing=_missing(n)) for n in sorted(FILES) if _tokenizer(n)]
)
def test_run_refuses_a_tokenizer_file_with_a_clear_message(name: str) -> None:
    """The extension ops (openvino_tokenizers) have no kernel: `run` says so, no traceback."""
    model = irpool.load(CORPUS / name)
    extension = {kind.rsplit("-", 1)[0] for kind in KINDS[name] if kind.endswith(EXTENSION)}
    with pytest.raises(irpool.IRError) as raised:
        model.run(_recorded(name, "inputs", "prompt"))
    assert any(kind in str(raised.value) for kind in extension), str(raised.value)


def _greedy(request: Any, prompt: dict[str, np.ndarray], steps: int) -> list[int]:
    """`steps` greedy tokens: the prompt, then each argmax fed back (beam_idx 0), and each
    step's present as the next one's past."""
    tokens: list[int] = []
    step = dict(prompt)
    for _ in range(steps):
        outputs = request.infer(step)
        tokens.append(int(np.asarray(outputs["logits"])[0, -1].argmax()))
        length = step["attention_mask"].shape[1]
        step = {
            **step,
            "input_ids": np.array([[tokens[-1]]], np.int64),
            "attention_mask": np.ones((1, length + 1), np.int64),
            "position_ids": np.array([[length]], np.int64),
            **{k: outputs[k.replace(PAST, "present")] for k in step if k.startswith(PAST)},
        }
    return tokens


def _greedy_prompt(name: str) -> dict[str, np.ndarray]:
    """The recorded prompt, with no past positions for a nonstateful LLM (its recorded prompt
    follows 3 random ones)."""
    prompt = _recorded(name, "inputs", "prompt")
    if not any(key.startswith(PAST) for key in prompt):
        return prompt
    length = prompt["input_ids"].shape[1]
    return {
        **{key: array[:, :, :0] for key, array in prompt.items() if key.startswith(PAST)},
        "input_ids": prompt["input_ids"],
        "attention_mask": np.ones((1, length), np.int64),
        "position_ids": np.arange(length, dtype=np.int64)[None],
    }


@pytest.mark.parametrize("name", [expect_failure(n, missing=_missing(n)) for n in GREEDY])
def test_greedy_decoding_gives_openvinos_tokens_and_reset_state_restarts(name: str) -> None:
    recorded = FILES[name]["greedy"]["tokens"]
    folder, file = name.rsplit("/", 1)
    avx2 = CORPUS / folder / f"greedy-{file.removesuffix('.xml')}-avx2.json"
    if cpu_isa() != AVX512_CORE and avx2.exists():  # an AVX2 host's, where they differ
        recorded = json.loads(avx2.read_text())["tokens"]
    prompt = _greedy_prompt(name)
    request = irpool.load(CORPUS / name).create_infer_request()
    request.reset_state()
    assert _greedy(request, prompt, len(recorded)) == recorded
    request.reset_state()
    assert _greedy(request, prompt, 1) == recorded[:1]
