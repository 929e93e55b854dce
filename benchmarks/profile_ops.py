"""Where the time of one run goes: irpool's time per op type inside `model.run` (for the
stateful LLMs, one decode step through `create_infer_request().infer` after the prompt, as
`benchmarks/whole_models.py` times them), beside OpenVINO's CPU plugin (f32 hint, its own
per-layer counters, PERF_COUNT), and what bounds the matrix products:

    python benchmarks/profile_ops.py MODEL [--runs N] [--dir DIR] [--layers N] [--clock wall]

MODEL is one of `benchmarks/make_whole_models.py`'s. Each step's kernel is timed around the
call the run makes for it (irpool/execute/run.py `_computed`), less Python's garbage
collections that fall in it (counted apart); what the run spends outside kernels (binding
the inputs, shape inference of a dynamic model, storing and freeing tensors, the loop),
divided by the steps, is the Python overhead per layer. Times are means over `--runs` runs
after a first (planning) run, in process CPU time (`--clock wall`: wall time), on
IRPOOL_THREADS threads (OpenVINO on as many; its counters are wall time, so each layer's
share of them is taken of its run's time on the same clock).

The last table is the matrix products' throughput: their multiply-adds (2*M*N*K per MatMul,
2 * output size * weights per output channel per convolution) over irpool's kernel time and
over OpenVINO's time for the same layers (by name; OpenVINO fuses the bias and activation
into the convolution, so its time holds them), against NumPy's own sgemm (`np.matmul` of
f32 512x512 by 512x512, best of 5, BLAS on one thread as irpool holds it) and on each
layer's own shapes (im2col for a convolution), in this process: a kernel near NumPy's rate
on its shapes is bound by NumPy's BLAS, not by irpool's Python.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_whole_models import DECODERS, MODELS, OUT, model_path
from whole_models import blas_kernel, blas_setting, cpu_family, run_inputs

import irpool
from irpool.execute import run as run_module
from irpool.execute.engine import blas
from irpool.execute.engine.blocks import threads_from_environment
from irpool.execute.engine.tuning import cpu_model

sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]  # no analytics

PRODUCTS = ("MatMul", "Convolution", "GroupConvolution")
SGEMM_SIZE = 512
Gemm = tuple[int, int, int, int]  # groups, M, K, N


def gemm_shape(op_type: str, op: Any, arrays: Sequence[Any], output: Any) -> Gemm:
    """A matrix product step as G products of [M, K] by [K, N] (im2col for a convolution)."""
    if op_type == "MatMul":
        a = arrays[0]
        depth = a.shape[-2] if op.attrs["transpose_a"] and a.ndim > 1 else a.shape[-1]
        columns = output.shape[-1] if output.ndim else 1
        return 1, output.size // columns, int(depth), columns
    weights = arrays[1].shape
    groups = 1 if op_type == "Convolution" else weights[0]
    rows = weights[0] if op_type == "Convolution" else weights[1]
    depth = int(np.prod(weights[1:] if op_type == "Convolution" else weights[2:]))
    return groups, rows, depth, output.size // (groups * rows)


def flops(gemm: Gemm) -> int:
    groups, rows, depth, columns = gemm
    return 2 * groups * rows * depth * columns


class KernelClock:
    """Times every step's kernel of the runs made while installed, by op type and layer,
    and Python's garbage collections apart (a collection falls in whichever step allocates
    when a threshold is reached: on a 656-layer LLM, 7 ms inside one Reshape)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.by_type: dict[str, float] = defaultdict(float)
        self.layers: dict[str, int] = defaultdict(int)
        self.by_layer: dict[str, float] = defaultdict(float)
        self.gemms: dict[str, Gemm] = {}
        self.types: dict[str, str] = {}
        self.steps = 0
        self.collecting = 0.0  # seconds in garbage collection
        self.collections = 0
        self.original = run_module._computed
        self.collection_start = 0.0

    def on_collection(self, phase: str, _: dict[str, int]) -> None:
        if phase == "start":
            self.collection_start = self.clock()
        else:
            self.collecting += self.clock() - self.collection_start
            self.collections += 1

    def __enter__(self) -> KernelClock:
        def timed(step: Any, arrays: list[Any], *rest: Any) -> list[Any]:
            collected = self.collecting
            start = self.clock()
            produced: list[Any] = self.original(step, arrays, *rest)
            elapsed = self.clock() - start - (self.collecting - collected)
            kind = step.layer.type
            self.by_type[kind] += elapsed
            self.by_layer[step.layer.name] += elapsed
            self.types[step.layer.name] = kind
            self.steps += 1
            if kind in PRODUCTS and step.layer.name not in self.gemms and produced[0] is not None:
                self.gemms[step.layer.name] = gemm_shape(kind, step.op, arrays, produced[0])
            return produced

        run_module._computed = timed  # type: ignore[assignment]
        gc.callbacks.append(self.on_collection)
        return self

    def __exit__(self, *_: object) -> None:
        run_module._computed = self.original
        gc.callbacks.remove(self.on_collection)

    def count_layers(self, runs: int) -> None:
        """Layers per op type, and steps per run, once the runs are done."""
        for kind in self.types.values():
            self.layers[kind] += 1
        self.steps //= runs


def irpool_profile(
    xml: Path, name: str, runs: int, clock: Callable[[], float]
) -> tuple[KernelClock, float]:
    """The kernel times of `runs` runs, and their mean time, on `clock`."""
    model = irpool.load(xml)
    steps = run_inputs(name, runs)
    infer: Callable[[Any], object]
    if name in DECODERS:
        infer = model.create_infer_request().infer
        infer(steps.pop(0))  # the prompt
    else:
        infer = model.run
    infer(steps.pop(0))  # plans and tunes
    kernels = KernelClock(clock)
    walls = []
    with kernels:
        for inputs in steps:
            start = clock()
            infer(inputs)
            walls.append(clock() - start)
    kernels.count_layers(runs)
    return kernels, statistics.mean(walls)


def openvino_profile(
    xml: Path, name: str, runs: int, threads: int, clock: Callable[[], float]
) -> dict[str, Any]:
    """OpenVINO's own counters (wall time) over the same runs: ms by executed type and by
    layer name; and the runs' mean time on `clock`."""
    import openvino as ov

    core = ov.Core()
    config = {
        "INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": threads, "PERF_COUNT": True,
    }  # fmt: skip
    request = core.compile_model(core.read_model(xml), "CPU", config).create_infer_request()
    steps = run_inputs(name, runs)
    if name in DECODERS:
        request.infer(steps.pop(0))
    request.infer(steps.pop(0))
    by_type: dict[str, float] = defaultdict(float)
    by_layer: dict[str, float] = defaultdict(float)
    walls = []
    for inputs in steps:
        start = clock()
        request.infer(inputs)
        walls.append(clock() - start)
        for info in request.get_profiling_info():
            seconds = info.real_time.total_seconds()
            by_type[info.node_type] += seconds / runs
            by_layer[info.node_name] += seconds / runs
    # The counters are wall time, which load stretches: each layer's share of the counted
    # time, of the run's time on `clock`.
    run = statistics.mean(walls)
    scale = run / (sum(by_type.values()) or 1)
    return {
        "by_type": {kind: seconds * scale for kind, seconds in by_type.items()},
        "by_layer": {name: seconds * scale for name, seconds in by_layer.items()},
        "run": run,
    }


def sgemm_time(gemm: Gemm, clock: Callable[[], float], repeats: int = 5) -> float:
    """NumPy's time for the product on one BLAS thread (as irpool holds it), best of
    `repeats`: [G, M, K] @ [G, K, N] in one call."""
    groups, rows, depth, columns = gemm
    rng = np.random.default_rng(0)
    a = rng.standard_normal((groups, rows, depth)).astype(np.float32)
    b = rng.standard_normal((groups, depth, columns)).astype(np.float32)
    best = float("inf")
    blas.hold(1)
    try:
        for _ in range(repeats):
            start = clock()
            np.matmul(a, b)
            best = min(best, clock() - start)
    finally:
        blas.release()
    return best


def table(title: str, rows: Mapping[str, float], total: float, counts: Mapping[str, int]) -> None:
    print(f"\n{title}")
    print(f"{'op type':<28}{'layers':>7}{'ms':>10}{'share':>8}{'us/layer':>10}")
    for kind, seconds in sorted(rows.items(), key=lambda item: -item[1]):
        count = counts.get(kind, 0)
        per_layer = f"{seconds / count * 1e6:>10.0f}" if count else f"{'':>10}"
        print(f"{kind:<28}{count or '':>7}{seconds * 1e3:>10.2f}{seconds / total:>8.1%}{per_layer}")
    print(f"{'total':<28}{'':>7}{total * 1e3:>10.2f}")


def products(
    kernels: KernelClock, theirs: Mapping[str, float], runs: int, clock: Callable[[], float]
) -> None:
    """GFLOP/s of each runtime on the matrix products, and of NumPy's sgemm on their shapes."""
    cube = (1, SGEMM_SIZE, SGEMM_SIZE, SGEMM_SIZE)
    peak = flops(cube) / sgemm_time(cube, clock) / 1e9
    print(f"\nmatrix products (NumPy sgemm, 1 BLAS thread, {SGEMM_SIZE}^3: {peak:.1f} GFLOP/s)")
    print(f"{'op type':<18}{'GFLOP':>7}{'irpool ms':>10}{'GF/s':>6}", end="")
    print(f"{'OpenVINO ms':>12}{'GF/s':>6}{'NumPy ms':>9}{'GF/s':>6}  (same shapes)")
    for kind in PRODUCTS:
        names = [n for n, k in kernels.types.items() if k == kind and n in kernels.gemms]
        if not names:
            continue
        total = sum(flops(kernels.gemms[n]) for n in names) / 1e9
        ours = sum(kernels.by_layer[n] for n in names) / runs
        numpy_time = sum(sgemm_time(kernels.gemms[n], clock) for n in names)
        matched = [n for n in names if n in theirs]
        their_time = sum(theirs[n] for n in matched)
        their_flops = sum(flops(kernels.gemms[n]) for n in matched) / 1e9
        their_rate = their_flops / their_time if their_time else 0
        unmatched = len(names) - len(matched)
        note = f"  (OpenVINO: {unmatched} layer(s) renamed)" if unmatched else ""
        print(
            f"{kind:<18}{total:>7.2f}{ours * 1e3:>10.2f}{total / ours:>6.1f}"
            f"{their_time * 1e3:>12.2f}{their_rate:>6.1f}"
            f"{numpy_time * 1e3:>9.2f}{total / numpy_time:>6.1f}{note}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=MODELS, metavar="MODEL", help=", ".join(MODELS))
    parser.add_argument("--runs", type=int, default=5, help="timed runs (after a first)")
    parser.add_argument("--dir", type=Path, default=OUT, help=f"the models (default {OUT})")
    parser.add_argument("--no-openvino", action="store_true", help="irpool's profile only")
    parser.add_argument("--layers", type=int, default=0, metavar="N", help="the N slowest layers")
    parser.add_argument(
        "--clock", choices=("cpu", "wall"), default="cpu",
        help="process CPU time (default: what a loaded machine changes least) or wall time",
    )  # fmt: skip
    args = parser.parse_args()
    xml = model_path(args.model, args.dir)
    if not xml.exists():
        print(f"{xml} is missing: make it with benchmarks/make_whole_models.py", file=sys.stderr)
        return 2
    if not hasattr(run_module, "_computed"):  # the one call the profile times each step by
        print("irpool/execute/run.py no longer has _computed: update KernelClock", file=sys.stderr)
        return 2
    threads = threads_from_environment()
    print(
        f"{args.model}: {cpu_model()} ({cpu_family()}), BLAS kernel {blas_kernel()}, "
        f"OPENBLAS_* {blas_setting(dict(os.environ))}, {threads} thread(s), "
        f"load {os.getloadavg()[0]:.1f}, mean of {args.runs} runs, {args.clock} time"
    )
    timer = time.process_time if args.clock == "cpu" else time.perf_counter
    clock, wall = irpool_profile(xml, args.model, args.runs, timer)
    rows = {kind: seconds / args.runs for kind, seconds in clock.by_type.items()}
    rows["(garbage collection)"] = clock.collecting / args.runs
    overhead = wall - sum(rows.values())
    rows["(outside kernels)"] = overhead
    table(f"irpool ({clock.steps} steps)", rows, wall, clock.layers)
    print(f"Python overhead per layer: {overhead / clock.steps * 1e6:.1f} us outside kernels")
    print(f"garbage collections: {clock.collections / args.runs:.1f} a run")
    slowest = sorted(clock.by_layer.items(), key=lambda item: -item[1])[: args.layers]
    for layer, seconds in slowest:
        print(f"  {seconds / args.runs * 1e3:8.2f} ms  {clock.types[layer]:<12} {layer}")
    theirs: dict[str, float] = {}
    if not args.no_openvino:
        found = openvino_profile(xml, args.model, args.runs, threads, timer)
        theirs = found["by_layer"]
        counted = sum(found["by_type"].values())
        title = "OpenVINO (by executed type: its counters' shares of its run)"
        table(title, found["by_type"], counted, {})
        ratio = wall / found["run"]
        print(f"OpenVINO run {found['run'] * 1e3:.2f} ms; irpool / OpenVINO {ratio:.2f}")
    products(clock, theirs, args.runs, timer)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
