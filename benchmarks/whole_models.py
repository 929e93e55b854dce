"""Whole models: irpool as users call it against OpenVINO's CPU plugin (f32 inference
precision, INFERENCE_NUM_THREADS as irpool's IRPOOL_THREADS), time and process peak memory
(targets: time <= 3x, memory <= 2x). The models are those of
`benchmarks/make_whole_models.py`: torchvision's resnet18, mobilenet_v2 and vit_b_16 (224x224),
ultralytics' yolov8n detect (640x640), NNCF INT8 resnet18 and yolov8n (OpenVINO runs them with
its int8 kernels), the Whisper-tiny encoder (80 x 3000 mel frames), and one decode step of two
stateful LLMs, a tiny Llama (fp16 weights) and a Qwen2-0.5B-sized one (int4, group 64), after a
32-token prompt. `--models` names a subset.

The models are not committed: make them once with `benchmarks/make_whole_models.py` (the
exporters need their own torch: the corpus venv of docs/corpus.md), which writes
build/benchmark-models/ (`--dir` reads another folder).

Each runtime runs in a process of its own, started in alternating rounds (`--rounds`, so load
that comes and goes hits both alike): it loads the model, runs it once (irpool's first run
plans and tunes), then times `--runs` runs and reports their median (and the best run, for a
loaded machine) and its peak resident memory (VmHWM, the whole process: interpreter,
libraries, weights, buffers). irpool runs as users run it: `irpool.load(xml).run(inputs)`, and
for the LLMs `model.create_infer_request().infer(step)` after `infer(prompt)`, as OpenVINO's
InferRequest runs (each timed run is the next decode step: the cache grows by one each run in
both). A model with compressed weights is timed in each IRPOOL_COMPRESSED_WEIGHTS mode
(`--weights-modes`). Where irpool cannot yet run a layer type of a model, both runtimes run
the model cut before the first such layer (OpenVINO cuts it; the table says so).

The ratios are of the medians, of the best runs (`best`) and of the process CPU time of a run
(`cpu t`: what a loaded machine changes least; on several threads it adds theirs up).
`outputs` is a digest of irpool's outputs of the first run (of each round): with several
`--threads`, the benchmark says whether they kept their bits across the counts.
Each row says what the ratio depends on: the CPU (family and model of /proc/cpuinfo), the
kernel NumPy's OpenBLAS loaded (threadpoolctl's `architecture`) and whether OPENBLAS_CORETYPE
or OPENBLAS_L2_SIZE was set (`--blas-env default unset`: as the environment has them, and
without them). With several `--threads`, the scaling from the first count is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from argparse import SUPPRESS
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_whole_models import COMPRESSED, DECODERS, MODELS, OUT, model_path

from irpool.execute.engine.tuning import cpu_model

sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]  # no analytics

TIME_TARGET, MEMORY_TARGET = 3.0, 2.0
BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
HOW_TO_MAKE = """\
{missing} is missing. Make the full-size models once (the exporters need their own torch,
see docs/corpus.md):

    $IRPOOL_CORPUS_VENV/bin/python benchmarks/make_whole_models.py  # e.g. /work/.venv-corpus
"""


def peak_memory() -> int:
    """This process's peak resident memory in bytes (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def runnable_cut(xml: Path, directory: Path) -> tuple[Path, str]:
    """The model itself when irpool runs every layer type of it; else the model cut by
    OpenVINO before the first layer irpool cannot run (its inputs become the outputs), and
    what was cut."""
    import openvino as ov
    from lxml import etree

    from irpool.execute.registry import runnable_types

    runs = set(runnable_types())
    # OpenVINO names some types otherwise (Const is Constant): the file's type per layer name.
    types = {layer.get("name"): layer.get("type") for layer in etree.parse(xml).iter("layer")}
    model = ov.Core().read_model(xml)
    for node in model.get_ordered_ops():
        if types.get(node.get_friendly_name()) not in runs:
            outputs = [port.get_source_output() for port in node.inputs()]
            kept = [o for o in outputs if o.get_node().get_type_name() != "Constant"]
            cut = ov.Model(kept, model.get_parameters(), "cut")
            path = directory / f"{xml.parent.name}-cut.xml"
            ov.save_model(cut, path, compress_to_fp16=False)
            return path, f"cut before {node.get_type_name()} {node.get_friendly_name()}"
    return xml, "whole"


def cpu_family() -> str:
    """'family F model M' of the first CPU in /proc/cpuinfo (empty elsewhere)."""
    fields: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    if "cpu family" not in fields:
        return ""
    return f"family {fields['cpu family']} model {fields.get('model', '?')}"


def blas_kernel() -> str:
    """The kernels NumPy's BLAS loaded in this process (threadpoolctl's `architecture`)."""
    import numpy  # noqa: F401  # loads the BLAS library threadpoolctl looks for

    from irpool.execute.engine.blas import blas_libraries

    return ",".join(str(lib.info().get("architecture")) for lib in blas_libraries()) or "?"


PROMPT_TOKENS = 32
SHAPES = {  # the input of each model run as one (batch 1); the others take [1, 3, 224, 224]
    "yolov8n": (1, 3, 640, 640),
    "yolov8n_int8": (1, 3, 640, 640),
    "whisper_tiny_encoder": (1, 80, 3000),
}


def token_inputs(past: int, length: int, rng: Any) -> dict[str, Any]:
    """A stateful LLM's inputs (optimum's names) for `length` new tokens after `past`."""
    import numpy as np

    return {
        "input_ids": rng.integers(3, 1000, (1, length), dtype=np.int64),
        "attention_mask": np.ones((1, past + length), np.int64),
        "position_ids": np.arange(past, past + length, dtype=np.int64)[None],
        "beam_idx": np.zeros(1, np.int32),
    }


def run_inputs(name: str, runs: int) -> list[dict[Any, Any]]:
    """The inputs of a first run and `runs` timed ones; for a decoder, first the prompt."""
    import numpy as np

    rng = np.random.default_rng(0)
    if name in DECODERS:
        steps = [token_inputs(0, PROMPT_TOKENS, rng)]
        return steps + [token_inputs(PROMPT_TOKENS + n, 1, rng) for n in range(runs + 1)]
    x = rng.standard_normal(SHAPES.get(name, (1, 3, 224, 224))).astype(np.float32)
    return [{0: x}] * (runs + 1)


def child(runtime: str, name: str, xml: Path, runs: int, threads: int) -> dict[str, Any]:
    """One runtime's measurement, in this (fresh) process."""
    import hashlib
    import time

    import numpy as np

    decoder = name in DECODERS
    steps = run_inputs(name, runs)
    if runtime == "irpool":
        import irpool

        model = irpool.load(xml)
        if decoder:
            request = model.create_infer_request()
            infer: Callable[[Any], object] = request.infer
        else:
            infer = model.run
    else:
        import openvino as ov

        core = ov.Core()
        config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": threads}
        compiled = core.compile_model(core.read_model(xml), "CPU", config)
        ov_request = compiled.create_infer_request()
        ov_request.reset_state()
        infer = ov_request.infer

    start = time.perf_counter()
    for inputs in steps[: 2 if decoder else 1]:  # the prompt and the first step (or a run)
        outputs = infer(inputs)
    first = time.perf_counter() - start
    digest = hashlib.sha256()
    for key in sorted(outputs) if runtime == "irpool" else ():  # type: ignore[call-overload]
        digest.update(np.ascontiguousarray(outputs[key]).tobytes())  # type: ignore[index]
    times, cpu_times = [], []
    for inputs in steps[2 if decoder else 1 :]:
        start, cpu_start = time.perf_counter(), time.process_time()
        infer(inputs)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    return {
        "median": statistics.median(times), "best": min(times), "first": first,
        "cpu time": statistics.median(cpu_times), "peak": peak_memory(),
        "kernel": blas_kernel(), "cpu": cpu_family(), "digest": digest.hexdigest()[:12],
    }  # fmt: skip


def blas_setting(environment: dict[str, str]) -> str:
    """OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE as a run had them ('-': unset)."""
    return "/".join(environment.get(variable, "-") for variable in BLAS_VARIABLES)


def environment(threads: int, blas_env: str, weights: str) -> dict[str, str]:
    env = dict(os.environ, IRPOOL_THREADS=str(threads))
    if weights != "-":
        env["IRPOOL_COMPRESSED_WEIGHTS"] = weights
    if blas_env == "unset":
        for variable in BLAS_VARIABLES:
            env.pop(variable, None)
    return env


def measure(
    runtime: str, name: str, xml: Path, runs: int, threads: int, env: dict[str, str]
) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", runtime, name, str(xml)]
    done = subprocess.run(
        [*command, "--runs", str(runs), "--threads", str(threads)],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"{runtime} on {name} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def _row(
    name: str, xml: Path, runs: int, rounds: int, threads: int, env: dict[str, str]
) -> dict[str, Any]:
    """Both runtimes in alternating rounds: medians, best-run ratio, peaks, BLAS kernel."""
    found: dict[str, list[dict[str, Any]]] = {"irpool": [], "openvino": []}
    for _ in range(rounds):
        for runtime in found:
            found[runtime].append(measure(runtime, name, xml, runs, threads, env))
    ours, theirs = (statistics.median(r["median"] for r in found[k]) for k in found)
    our_best, their_best = (min(r["best"] for r in found[k]) for k in found)
    our_peak, their_peak = (max(r["peak"] for r in found[k]) for k in found)
    our_cpu, their_cpu = (statistics.median(r["cpu time"] for r in found[k]) for k in found)
    return {
        "irpool": ours, "openvino": theirs, "best": our_best / their_best,
        "cpu ratio": our_cpu / their_cpu,
        "irpool peak": our_peak, "openvino peak": their_peak,
        "kernel": found["irpool"][0]["kernel"], "cpu": found["irpool"][0]["cpu"],
        "digests": {r["digest"] for r in found["irpool"]},
    }  # fmt: skip


def _thread_rows(
    name: str, xml: Path, what: str, args: argparse.Namespace, blas_env: str, weights: str
) -> None:
    """The rows of one model in one environment, a row per thread count: the scaling from
    the first count, and whether irpool's outputs kept their bits across the counts."""
    first: dict[str, float] = {}
    every: set[str] = set()  # irpool's output digests on every thread count
    for threads in args.threads:
        env = environment(threads, blas_env, weights)
        row = _row(name, xml, args.runs, args.rounds, threads, env)
        first = first or {k: row[k] for k in ("irpool", "openvino")}
        digests = row["digests"]
        every |= digests
        print(
            f"{name:<21}{what[:11]:<12}{weights:<11}{blas_setting(env):<14}"
            f"{threads:>4}{row['kernel']:>10}{row['cpu']:>19}"
            f"{row['irpool'] * 1e3:>10.1f}{row['openvino'] * 1e3:>12.1f}"
            f"{row['irpool'] / row['openvino']:>7.2f}{row['best']:>6.2f}{row['cpu ratio']:>6.2f}"
            f"{row['irpool peak'] / 2**20:>10.0f}{row['openvino peak'] / 2**20:>12.0f}"
            f"{row['irpool peak'] / row['openvino peak']:>7.2f}  {'/'.join(sorted(digests))}",
            flush=True,
        )
        if threads != args.threads[0]:
            scaling = {k: first[k] / row[k] for k in first}
            print(
                f"{'':<21}scaling {args.threads[0]} -> {threads} threads: irpool "
                f"{scaling['irpool']:.2f}x, OpenVINO {scaling['openvino']:.2f}x"
            )
    if len(args.threads) > 1:
        verdict = "the same bits" if len(every) == 1 else "DIFFERENT bits"
        print(f"{'':<21}irpool's outputs on {', '.join(map(str, args.threads))} threads: {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs per process")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--models", nargs="+", choices=MODELS, default=MODELS, metavar="MODEL")
    parser.add_argument("--threads", nargs="+", type=int, default=[1], metavar="N")
    parser.add_argument(
        "--blas-env", nargs="+", choices=("default", "unset"), default=["default"],
        help="the environment as it is, and/or without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE",
    )  # fmt: skip
    parser.add_argument(
        "--weights-modes", nargs="+", choices=("auto", "keep", "decompress"),
        default=["keep", "decompress"], metavar="MODE",
        help="IRPOOL_COMPRESSED_WEIGHTS for the models with compressed weights",
    )  # fmt: skip
    parser.add_argument("--dir", type=Path, default=OUT, help=f"the models (default {OUT})")
    parser.add_argument("--child", nargs=3, metavar=("RUNTIME", "NAME", "XML"), help=SUPPRESS)
    args = parser.parse_args()
    if args.child:
        runtime, name, xml = args.child
        print(json.dumps(child(runtime, name, Path(xml), args.runs, args.threads[0])))
        return 0
    paths = {name: model_path(name, args.dir) for name in args.models}
    missing = [path for path in paths.values() if not path.exists()]
    if missing:
        print(HOW_TO_MAKE.format(missing=missing[0]), file=sys.stderr)
        return 2
    # The CPU as /proc/cpuinfo names it: figures from one machine kind do not carry over.
    print(f"{cpu_model()} ({cpu_family()}), {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(
        f"{'model':<21}{'what':<12}{'weights':<11}{'OPENBLAS_*':<14}{'thr':>4}{'kernel':>10}"
        f"{'cpu':>19}{'irpool ms':>10}{'OpenVINO ms':>12}{'ratio':>7}{'best':>6}{'cpu t':>6}"
        f"{'irpool MB':>10}{'OpenVINO MB':>12}{'ratio':>7}  outputs"
    )
    with tempfile.TemporaryDirectory() as directory:
        for name, path in paths.items():
            xml, what = runnable_cut(path, Path(directory))
            if name in DECODERS and xml != path:  # a cut stateful model is another model
                print(f"{name:<21}not timed: irpool cannot run it ({what})")
                continue
            modes = args.weights_modes if name in COMPRESSED else ["-"]
            for blas_env, weights in itertools.product(args.blas_env, modes):
                _thread_rows(name, xml, what, args, blas_env, weights)
    print(f"targets: time ratio <= {TIME_TARGET}, memory ratio <= {MEMORY_TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
