"""Whole models: irpool's `model.run` of full-size resnet18, mobilenet_v2 and vit_b_16 (f32,
224x224, batch 1) against OpenVINO's CPU plugin on one thread (INFERENCE_NUM_THREADS=1, f32
inference precision), time and process peak memory (issue #20: time <= 3x, memory <= 2x;
vit_b_16 time <= 3x). `--models` names a subset.

The models are not committed: make them once with `benchmarks/make_whole_models.py` (it needs
torchvision, in the corpus venv of docs/corpus.md), which writes
build/benchmark-models/<model>-static-fp32/model.xml.

Each runtime runs in a process of its own, started in alternating rounds (`--rounds`, so load
that comes and goes hits both alike): it loads the model, runs it once (irpool's first run
plans and tunes), then times `--runs` runs on one randn input and reports their median (and
the best run, for a loaded machine) and its peak resident memory (VmHWM, the whole process:
interpreter, libraries, weights, buffers).
irpool runs as users run it, `irpool.load(xml).run({name: x})`, on IRPOOL_THREADS=1 (its
default). Where irpool cannot yet run a layer type of the model, both runtimes run the model
cut before the first such layer (OpenVINO cuts it; the table says so). Prints a table and the
ratios (of medians; `best`: of the best runs).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_whole_models import MODELS, model_path

from irpool.execute.engine.tuning import cpu_model

sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]  # no analytics

TIME_TARGET, MEMORY_TARGET = 3.0, 2.0
BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
HOW_TO_MAKE = """\
{missing} is missing. Make the full-size models once (torchvision needs its own torch,
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


def child(runtime: str, xml: Path, runs: int, threads: int) -> dict[str, Any]:
    """One runtime's measurement, in this (fresh) process."""
    import time

    import numpy as np

    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
    if runtime == "irpool":
        import irpool

        model = irpool.load(xml)
        name = model.inputs[0].name

        def infer() -> object:
            return model.run({name: x})
    else:
        import openvino as ov

        core = ov.Core()
        config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": threads}
        compiled = core.compile_model(core.read_model(xml), "CPU", config)
        request = compiled.create_infer_request()

        def infer() -> object:
            return request.infer([x])

    start = time.perf_counter()
    infer()
    first = time.perf_counter() - start
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        infer()
        times.append(time.perf_counter() - start)
    return {
        "median": statistics.median(times), "best": min(times), "first": first,
        "peak": peak_memory(), "kernel": blas_kernel(),
    }  # fmt: skip


def measure(runtime: str, xml: Path, runs: int, threads: int, blas_env: str) -> dict[str, Any]:
    env = dict(os.environ, IRPOOL_THREADS=str(threads))
    if blas_env == "unset":
        for name in BLAS_VARIABLES:
            env.pop(name, None)
    command = [sys.executable, __file__, "--child", runtime, str(xml)]
    done = subprocess.run(
        [*command, "--runs", str(runs), "--threads", str(threads)],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def _row(xml: Path, runs: int, rounds: int, threads: int, blas_env: str) -> dict[str, Any]:
    """Both runtimes in alternating rounds: medians, best-run ratio, peaks, BLAS kernel."""
    found: dict[str, list[dict[str, Any]]] = {"irpool": [], "openvino": []}
    for _ in range(rounds):
        for runtime in found:
            found[runtime].append(measure(runtime, xml, runs, threads, blas_env))
    ours, theirs = (statistics.median(r["median"] for r in found[k]) for k in found)
    our_best, their_best = (min(r["best"] for r in found[k]) for k in found)
    our_peak, their_peak = (max(r["peak"] for r in found[k]) for k in found)
    return {
        "irpool": ours, "openvino": theirs, "best": our_best / their_best,
        "irpool peak": our_peak, "openvino peak": their_peak,
        "kernel": found["irpool"][0]["kernel"],
    }  # fmt: skip


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
    parser.add_argument("--child", nargs=2, metavar=("RUNTIME", "XML"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]), args.runs, args.threads[0])))
        return 0
    missing = [model_path(name) for name in args.models if not model_path(name).exists()]
    if missing:
        print(HOW_TO_MAKE.format(missing=missing[0]), file=sys.stderr)
        return 2
    # The CPU as /proc/cpuinfo names it: figures from one machine kind do not carry over.
    print(f"{cpu_model()} ({cpu_family()}), {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    settings = ", ".join(f"{name}={os.environ.get(name, '(unset)')}" for name in BLAS_VARIABLES)
    print(f"environment: {settings}")
    print(
        f"{'model':<14}{'what':<22}{'env':<8}{'thr':>4}{'kernel':>12}{'irpool ms':>10}"
        f"{'OpenVINO ms':>12}{'ratio':>7}{'best':>6}{'irpool MB':>10}{'OpenVINO MB':>12}"
        f"{'ratio':>7}"
    )
    with tempfile.TemporaryDirectory() as directory:
        for name in args.models:
            xml, what = runnable_cut(model_path(name), Path(directory))
            for blas_env in args.blas_env:
                one_thread: dict[str, float] = {}
                for threads in args.threads:
                    row = _row(xml, args.runs, args.rounds, threads, blas_env)
                    one_thread = one_thread or {k: row[k] for k in ("irpool", "openvino")}
                    print(
                        f"{name:<14}{what[:21]:<22}{blas_env:<8}{threads:>4}{row['kernel']:>12}"
                        f"{row['irpool'] * 1e3:>10.1f}{row['openvino'] * 1e3:>12.1f}"
                        f"{row['irpool'] / row['openvino']:>7.2f}{row['best']:>6.2f}"
                        f"{row['irpool peak'] / 2**20:>10.0f}{row['openvino peak'] / 2**20:>12.0f}"
                        f"{row['irpool peak'] / row['openvino peak']:>7.2f}"
                    )
                    if threads != args.threads[0]:
                        scaling = {k: one_thread[k] / row[k] for k in one_thread}
                        print(
                            f"{'':<14}scaling {args.threads[0]} -> {threads} threads: irpool "
                            f"{scaling['irpool']:.2f}x, OpenVINO {scaling['openvino']:.2f}x"
                        )
    print(f"targets: time ratio <= {TIME_TARGET}, memory ratio <= {MEMORY_TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
