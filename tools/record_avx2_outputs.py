"""Record an AVX2 host's outputs of committed corpus cases, where they leave the AVX-512 ones
beyond the tests' bound (docs/corpus.md): on a host whose CPU is AVX2 (an AMD EPYC Zen2 or Zen3),
each case's recorded inputs through its files on the CPU plugin with the f32 hint, into
outputs-<...>-avx2.npz beside the AVX-512 ones, and an LLM's greedy tokens into
greedy-<file>-avx2.json where they differ.

    python tools/record_avx2_outputs.py language gpt2-int8 opt-int8

It refuses any other host, an AVX-512 one under ONEDNN_MAX_CPU_ISA=AVX2 too: the plugin's MVN,
RMS and attention nodes ignore that cap (docs/cpu.md#instruction-sets), so such a host's
outputs are not an AVX2 host's bits.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import numpy as np
from corpus_venv import REPO, VENV, rerun_in_corpus_venv

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


def isa_module() -> ModuleType:
    """irpool/cpu/isa.py (standard library only), loaded alone: the corpus venv lacks irpool."""
    spec = importlib.util.spec_from_file_location("irpool_isa", REPO / "irpool" / "cpu" / "isa.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record(folder: Path, single_file: bool) -> None:
    """Each recorded input of the case `folder` (its files' samples; `single_file`: model.xml
    and inputs-<sample>.npz) run again, its outputs written as outputs-<...>-avx2.npz."""
    core = ov.Core()
    for recorded in sorted(folder.glob("inputs-*.npz")):
        named = recorded.stem.removeprefix("inputs-")
        file, sample = ("model", named) if single_file else named.rsplit("-", 1)
        model = core.read_model(folder / f"{file}.xml")
        request = core.compile_model(model, "CPU", COMPILE_CONFIG).create_infer_request()
        with np.load(recorded) as archive:
            arrays = {key: archive[key] for key in archive.files}
        outputs = outputs_of(request, output_keys(model), arrays)
        write_npz(folder / f"outputs-{named}-avx2.npz", outputs)
        tokens = folder / f"greedy-{file}.json"
        if sample == "prompt" and tokens.exists():
            generated = greedy(request, model)
            avx2 = folder / f"greedy-{file}-avx2.json"
            if generated["tokens"] != json.loads(tokens.read_text())["tokens"]:
                avx2.write_text(json.dumps(generated) + "\n")
            else:
                avx2.unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpus", choices=sorted(CORPORA))
    parser.add_argument("cases", nargs="+", metavar="CASE")
    args = parser.parse_args(argv)
    isa = isa_module()
    if isa.instruction_set() != isa.AVX2 or isa.capped_below_host():
        found = f"{isa.instruction_set()}, its CPU {isa.host_cpu_isa()}"
        raise SystemExit(f"run on an AVX2 host without ONEDNN_MAX_CPU_ISA: this one is {found}")
    for case in args.cases:
        record(CORPORA[args.corpus] / case, args.corpus == "vision")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
