"""Record an AVX2 host's outputs of committed corpus cases, where they leave the AVX-512 ones
beyond the tests' bound (docs/corpus.md): run under ONEDNN_MAX_CPU_ISA=AVX2, each case's
recorded inputs through its files on the CPU plugin (f32 hint, DYNAMIC_QUANTIZATION_GROUP_SIZE 0:
an AVX2 host quantizes no activations of compressed products, and this VNNI host, capped, would
ask oneDNN to), into outputs-<...>-avx2.npz beside the AVX-512 ones, and an LLM's greedy tokens
into greedy-<file>-avx2.json where they differ.

    ONEDNN_MAX_CPU_ISA=AVX2 python tools/record_avx2_outputs.py language gpt2-int8 opt-int8
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from corpus_venv import VENV, rerun_in_corpus_venv

sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]

try:
    import openvino as ov
    from corpus import COMPILE_CONFIG, output_keys, write_npz
    from gen_language_corpus import OUT as LANGUAGE
    from gen_language_corpus import greedy, outputs_of
    from gen_vision_corpus import REDUCED_OUT as VISION
except ImportError as error:
    rerun_in_corpus_venv(error, f"tools/record_avx2_outputs.py needs the corpus venv {VENV}.")

CORPORA = {"vision": VISION, "language": LANGUAGE}


def record(folder: Path, single_file: bool) -> None:
    """Each recorded input of the case `folder` (its files' samples; `single_file`: model.xml
    and inputs-<sample>.npz) run again, its outputs written as outputs-<...>-avx2.npz."""
    core = ov.Core()
    config = {**COMPILE_CONFIG, "DYNAMIC_QUANTIZATION_GROUP_SIZE": 0}
    for recorded in sorted(folder.glob("inputs-*.npz")):
        named = recorded.stem.removeprefix("inputs-")
        file, sample = ("model", named) if single_file else named.rsplit("-", 1)
        model = core.read_model(folder / f"{file}.xml")
        request = core.compile_model(model, "CPU", config).create_infer_request()
        with np.load(recorded) as archive:
            arrays = {key: archive[key] for key in archive.files}
        outputs = outputs_of(request, output_keys(model), arrays)
        write_npz(folder / f"outputs-{named}-avx2.npz", outputs)
        tokens = folder / f"greedy-{file}.json"
        if sample == "prompt" and tokens.exists():
            generated = greedy(request, model)
            if generated["tokens"] != json.loads(tokens.read_text())["tokens"]:
                (folder / f"greedy-{file}-avx2.json").write_text(json.dumps(generated) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpus", choices=sorted(CORPORA))
    parser.add_argument("cases", nargs="+", metavar="CASE")
    args = parser.parse_args(argv)
    if os.environ.get("ONEDNN_MAX_CPU_ISA", "").lower() != "avx2":
        raise SystemExit("run under ONEDNN_MAX_CPU_ISA=AVX2")
    for case in args.cases:
        record(CORPORA[args.corpus] / case, args.corpus == "vision")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
