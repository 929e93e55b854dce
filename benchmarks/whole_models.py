"""Whole models: irpool's `model.run` of full-size resnet18, mobilenet_v2 and vit_b_16 (f32,
224x224, batch 1) against OpenVINO's CPU plugin on one thread (INFERENCE_NUM_THREADS=1, f32
inference precision), time and process peak memory (issue #20: time <= 3x, memory <= 2x;
issue #23: vit_b_16 time <= 3x). `--models` names a subset.

The models are not committed: make them once with `benchmarks/make_whole_models.py` (it needs
torchvision, in the corpus venv of docs/corpus.md), which writes
build/benchmark-models/<model>-static-fp32/model.xml.

Each runtime runs in a process of its own, started in alternating rounds (`--rounds`, so load
that comes and goes hits both alike): it loads the model, runs it once (irpool's first run
plans and tunes), then times `--runs` runs on one randn input and reports their median (and
the best run, for a loaded machine) and its peak resident memory (VmHWM, the whole process: interpreter, libraries, weights, buffers).
irpool runs as users run it, `irpool.load(xml).run({name: x})`, on IRPOOL_THREADS=1 (its
default). Where irpool cannot yet run a layer type of the model, both runtimes run the model
cut before the first such layer (OpenVINO cuts it; the table says so). Prints a table and the
ratios (of medians; `best`: of the best runs).
"""

from __future__ import annotations

import argparse
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
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
HOW_TO_MAKE = """\
{missing} is missing. Make the full-size models once (torchvision needs its own torch,
see docs/corpus.md):

    /work/.venv-corpus/bin/python benchmarks/make_whole_models.py   # or $IRPOOL_CORPUS_VENV/bin/python
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


def child(runtime: str, xml: Path, runs: int) -> dict[str, Any]:
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
        compiled = core.compile_model(core.read_model(xml), "CPU", CPU_CONFIG)
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
        "peak": peak_memory(),
    }  # fmt: skip


def measure(runtime: str, xml: Path, runs: int) -> dict[str, Any]:
    env = dict(os.environ, IRPOOL_THREADS="1")
    done = subprocess.run(
        [sys.executable, __file__, "--child", runtime, str(xml), "--runs", str(runs)],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs per process")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--models", nargs="+", choices=MODELS, default=MODELS, metavar="MODEL")
    parser.add_argument("--child", nargs=2, metavar=("RUNTIME", "XML"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]), args.runs)))
        return 0
    missing = [model_path(name) for name in args.models if not model_path(name).exists()]
    if missing:
        print(HOW_TO_MAKE.format(missing=missing[0]), file=sys.stderr)
        return 2
    # The CPU as /proc/cpuinfo names it: figures from one machine kind do not carry over.
    print(f"{cpu_model()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(
        f"{'model':<18}{'what':<34}{'irpool ms':>10}{'OpenVINO ms':>12}{'ratio':>7}"
        f"{'best':>6}{'irpool MB':>10}{'OpenVINO MB':>12}{'ratio':>7}"
    )
    with tempfile.TemporaryDirectory() as directory:
        for name in args.models:
            xml, what = runnable_cut(model_path(name), Path(directory))
            found: dict[str, list[dict[str, Any]]] = {"irpool": [], "openvino": []}
            for _ in range(args.rounds):
                for runtime in found:
                    found[runtime].append(measure(runtime, xml, args.runs))
            ours, theirs = (
                statistics.median(r["median"] for r in found[k]) for k in ("irpool", "openvino")
            )
            our_best, their_best = (min(r["best"] for r in found[k]) for k in found)
            our_peak, their_peak = (max(r["peak"] for r in found[k]) for k in found)
            print(
                f"{name:<18}{what[:33]:<34}{ours * 1e3:>10.1f}{theirs * 1e3:>12.1f}"
                f"{ours / theirs:>7.2f}{our_best / their_best:>6.2f}{our_peak / 2**20:>10.0f}"
                f"{their_peak / 2**20:>12.0f}{our_peak / their_peak:>7.2f}"
            )
    print(f"targets: time ratio <= {TIME_TARGET}, memory ratio <= {MEMORY_TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
