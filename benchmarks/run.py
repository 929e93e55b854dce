"""Pooling workloads: irpool's `model.run` vs OpenVINO's CPU plugin and other single-thread peers.

Run `python benchmarks/run.py` in the environment users have: nothing is pinned (irpool
holds NumPy's BLAS threads itself, and picks its strategies by timing them on this
machine, kept in the user's cache directory). OpenVINO, torch and onnxruntime run on one
thread, as irpool does by default; inputs are already in memory; times are medians; a
separate column runs irpool on two threads. irpool is called as users call it,
`irpool.load(IR).run({...})` on an IR file written for each workload; `first` is the first
run (the one that times strategies unless the cache already holds the choice); the `compute`
column calls the op's kernel alone, to show the per-call overhead. irpool and OpenVINO are
measured in three alternating rounds, so load that comes and goes hits both alike.
`--busy` keeps one other CPU-bound process running throughout, as on a shared CI runner.
Optional peers (openvino, torch, onnxruntime) are skipped when missing. Prints the table of
docs/performance.md and writes benchmarks/results/latest.json (latest-busy.json with --busy),
with the CPU model, the load average and BLAS's threads.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import irpool
from irpool.execute.engine import tuning
from irpool.execute.engine.blas import blas_libraries
from irpool.execute.engine.scratch import release_scratch
from irpool.execute.registry import OutputSpec, kernel_of

RESULTS = Path(__file__).parent / "results"
# One CPU-bound process for --busy: a Python loop that never sleeps.
BUSY_LOOP = "while True: pass"
Bench = Callable[[], object]
# A bench whose call returns the model's outputs by name (irpool's and OpenVINO's).
Run = Callable[[], Mapping[str, Any]]


@dataclass(frozen=True)
class Workload:
    name: str
    shape: tuple[int, ...]
    target: float  # irpool / OpenVINO, at most
    kernel: int = 0  # 0: AdaptiveAvgPool to `output`
    stride: int = 1
    pad: int = 0
    exclude_pad: bool = True
    output: int = 1
    # "avg": AvgPool, or AdaptiveAvgPool when kernel is 0; "max": MaxPool-14 as torch writes
    # it (values used, indices not); "mean": ReduceMean over the spatial axes, keep_dims.
    family: str = "avg"
    # An AvgPool workload whose model also pools, beside the input, a Const of the input's
    # shape stored in f16 with its decompression Convert, as `save_model(compress_to_fp16=
    # True)` writes weights: input-independent, folded by OpenVINO when it compiles and by
    # irpool once per plan (before, irpool converted and pooled it again on every run).
    compressed: bool = False

    @property
    def rank(self) -> int:
        return len(self.shape) - 2

    @property
    def output_shape(self) -> tuple[int, ...]:
        if self.family == "mean":
            spatial = (1,) * self.rank
        elif not self.kernel:
            spatial = (self.output,) * self.rank
        else:
            padded = [size + 2 * self.pad - self.kernel for size in self.shape[2:]]
            spatial = tuple(room // self.stride + 1 for room in padded)
        return (*self.shape[:2], *spatial)

    @property
    def describe(self) -> str:
        sizes = "x".join(map(str, self.shape))
        if self.family == "mean":
            return f"ReduceMean {sizes} axes {','.join(map(str, range(2, 2 + self.rank)))}"
        if self.family == "max":
            return f"MaxPool {sizes} k{self.kernel} s{self.stride} p{self.pad}"
        if not self.kernel:
            return f"AdaptiveAvgPool {'x'.join(map(str, self.shape))} -> {self.output}"
        mode = "excl" if self.exclude_pad else "incl"
        beside = " + f16 Const branch" if self.compressed else ""
        return (
            f"AvgPool {'x'.join(map(str, self.shape))} k{self.kernel} s{self.stride} "
            f"p{self.pad} {mode}{beside}"
        )


WORKLOADS = [
    Workload("W1", (1, 64, 112, 112), 2.0, kernel=3, stride=2, pad=1),
    Workload("W2", (1, 192, 28, 28), 1.5, kernel=3, stride=1, pad=1),
    Workload("W3", (1, 32, 224, 224), 1.5, kernel=7, stride=1, pad=3, exclude_pad=False),
    Workload("W4", (8, 2048, 7, 7), 1.0),
    Workload("W5a", (1, 512, 14, 14), 0.5, output=5),
    Workload("W5b", (1, 256, 13, 13), 0.5, output=6),
    Workload("W6", (1, 64, 16, 56, 56), 2.0, kernel=3, stride=2, pad=1),
    Workload("W7", (32, 64, 56, 56), 1.5, kernel=2, stride=2),
    Workload("W8", (1, 3, 8, 8), 1.0, kernel=2, stride=2),
    Workload("K31", (1, 32, 112, 112), 0.5, kernel=31, stride=1, pad=15),
    # Issue #12: the max and mean family on the shapes above. MP1 and MP6 are k3 s2, as W1
    # and W6, whose target is 2.0; the others 1.5.
    Workload("MP1", (1, 64, 112, 112), 2.0, kernel=3, stride=2, pad=1, family="max"),
    Workload("MP2", (1, 192, 28, 28), 1.5, kernel=3, stride=1, pad=1, family="max"),
    Workload("MP6", (1, 64, 16, 56, 56), 2.0, kernel=3, stride=2, pad=1, family="max"),
    Workload("MP7", (32, 64, 56, 56), 1.5, kernel=2, stride=2, family="max"),
    Workload("RM4", (8, 2048, 7, 7), 1.0, family="mean"),
    Workload("C1", (1, 64, 112, 112), 2.0, kernel=3, stride=2, pad=1, compressed=True),
]
MEMORY_WORKLOADS = ("W3", "W7")


def median_seconds(bench: Bench, budget: float) -> float:
    """Median of repeated calls, after a warm-up, for about `budget` seconds."""
    bench()
    times: list[float] = []
    deadline = time.perf_counter() + budget
    while len(times) < 5 or (time.perf_counter() < deadline and len(times) < 10_000):
        start = time.perf_counter()
        bench()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def alternating_medians(benches: dict[str, Bench], budget: float, rounds: int) -> dict[str, float]:
    """Each bench's median over `rounds` rounds, each taking every bench's median in turn.

    Whole runs in turn, not single calls: each engine keeps its data in cache as it would
    when called back to back, while load that comes and goes on the machine hits all alike.
    """
    found: dict[str, list[float]] = {name: [] for name in benches}
    for _ in range(rounds):
        for name, bench in benches.items():
            found[name].append(median_seconds(bench, budget / rounds))
    return {name: statistics.median(values) for name, values in found.items()}


def on_two_threads(bench: Bench) -> Bench:
    """`bench` with irpool on both cores (IRPOOL_THREADS=2: threads over N×C blocks)."""

    def run() -> object:
        before = os.environ.get("IRPOOL_THREADS")
        os.environ["IRPOOL_THREADS"] = "2"  # read by each run
        try:
            return bench()
        finally:
            if before is None:
                del os.environ["IRPOOL_THREADS"]
            else:
                os.environ["IRPOOL_THREADS"] = before

    return run


def _port(number: int, precision: str, shape: tuple[int, ...], names: str = "") -> str:
    named = f' names="{names}"' if names else ""
    dims = "".join(f"<dim>{n}</dim>" for n in shape)
    return f'<port id="{number}" precision="{precision}"{named}>{dims}</port>'


def _layer(number: int, name: str, kind: str, body: str) -> str:
    return f'<layer id="{number}" name="{name}" type="{kind}" {body}</layer>'


def compressed_weights(w: Workload) -> np.ndarray:
    """The f16 Const of a `compressed` workload."""
    return np.random.default_rng(1).random(w.shape, dtype=np.float32).astype(np.float16)


def _avg_pool(number: int, name: str, w: Workload, window: str, data: str, pooled: str) -> str:
    mode = str(w.exclude_pad).lower()
    return _layer(
        number, name, "AvgPool",
        f'version="opset1"><data {window} exclude-pad="{mode}" auto_pad="explicit" '
        f'rounding_type="floor"/><input>{data}</input><output>{pooled}</output>',
    )  # fmt: skip


def _compressed_branch(
    w: Workload, out_shape: tuple[int, ...], window: str, folder: Path
) -> tuple[list[str], list[tuple[int, int, int, int]]]:
    """Const f16 -> Convert f32 -> the workload's AvgPool -> Result "z", weights written."""
    values = compressed_weights(w)
    values.tofile(folder / f"{w.name}.bin")
    shape = ",".join(map(str, w.shape))
    layers = [
        _layer(
            4, "weights", "Const",
            f'version="opset1"><data element_type="f16" shape="{shape}" offset="0" '
            f'size="{values.nbytes}"/><output>{_port(0, "FP16", w.shape)}</output>',
        ),
        _layer(
            5, "decompress", "Convert",
            f'version="opset1"><data destination_type="f32"/><input>'
            f'{_port(0, "FP16", w.shape)}</input><output>{_port(1, "FP32", w.shape)}</output>',
        ),
        _avg_pool(6, "weights_pool", w, window, _port(0, "FP32", w.shape),
                  _port(1, "FP32", out_shape, "z")),
        _layer(7, "weights_result", "Result",
               f'version="opset1"><input>{_port(0, "FP32", out_shape)}</input>'),
    ]  # fmt: skip
    return layers, [(4, 0, 5, 0), (5, 1, 6, 0), (6, 1, 7, 0)]


def write_ir(w: Workload, out_shape: tuple[int, ...], folder: Path) -> Path:
    """The workload as an IR v11 file: Parameter "x" -> the pool -> Result; "y" its output."""
    parameter = _layer(
        0, "x", "Parameter",
        f'version="opset1"><data shape="{",".join(map(str, w.shape))}" element_type="f32"/>'
        f'<output>{_port(0, "FP32", w.shape, "x")}</output>',
    )  # fmt: skip
    pooled = _port(2, "FP32", out_shape, "y")
    edges = [(0, 0, 2, 0), (2, 2, 3, 0)]
    data = _port(0, "FP32", w.shape)
    each = {"kernel": w.kernel, "strides": w.stride, "pads_begin": w.pad, "pads_end": w.pad}
    window = " ".join(f'{k}="{",".join([str(v)] * w.rank)}"' for k, v in each.items())
    if w.family == "max":
        ones = ",".join(["1"] * w.rank)
        layers = [
            _layer(
                2, "pool", "MaxPool",
                f'version="opset14"><data {window} dilations="{ones}" auto_pad="explicit" '
                f'rounding_type="floor" index_element_type="i64" axis="2"/>'
                f'<input>{data}</input><output>{pooled}{_port(3, "I64", out_shape)}</output>',
            )
        ]  # fmt: skip
    elif w.kernel:
        layers = [_avg_pool(2, "pool", w, window, data, pooled)]
    else:  # a second input from an i64 Const: AdaptiveAvgPool's output_size, ReduceMean's axes
        mean = w.family == "mean"
        values = np.arange(2, 2 + w.rank) if mean else np.full(w.rank, w.output)
        values.astype(np.int64).tofile(folder / f"{w.name}.bin")
        second = _port(1, "I64", (w.rank,))
        kind, body = ("ReduceMean", '<data keep_dims="true"/>') if mean else ("AdaptiveAvgPool", "")
        version = "opset1" if mean else "opset8"
        layers = [
            _layer(
                1, "const", "Const",
                f'version="opset1"><data element_type="i64" shape="{w.rank}" offset="0" '
                f'size="{8 * w.rank}"/><output>{_port(0, "I64", (w.rank,))}</output>',
            ),
            _layer(
                2, "pool", kind,
                f'version="{version}">{body}<input>{data}{second}</input><output>{pooled}</output>',
            ),
        ]  # fmt: skip
        edges.append((1, 0, 2, 1))
    returned = _port(0, "FP32", out_shape)
    layers.append(_layer(3, "result", "Result", f'version="opset1"><input>{returned}</input>'))
    if w.compressed:
        branch, branch_edges = _compressed_branch(w, out_shape, window, folder)
        layers += branch
        edges += branch_edges
    edge_text = "".join(
        f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'
        for a, b, c, d in edges
    )
    path = folder / f"{w.name}.xml"
    path.write_text(
        f'<?xml version="1.0"?><net name="{w.name}" version="11"><layers>{parameter}'
        f"{''.join(layers)}</layers><edges>{edge_text}</edges></net>"
    )
    return path


def load_checked(w: Workload, folder: Path) -> irpool.Model:
    """The workload's IR file, loaded as an application would, with nothing to report."""
    model = irpool.load(write_ir(w, w.output_shape, folder))
    problems = [d for d in model.validate() if d.severity.value != "info"]
    if problems:
        raise SystemExit(f"{w.name}: the benchmark's IR has findings: {problems}")
    return model


def irpool_bench(model: irpool.Model, x: np.ndarray) -> Run:
    """`model.run` on the workload's IR file, as users call irpool."""
    inputs: dict[str | int, Any] = {"x": x}
    return lambda: model.run(inputs)


def compute_bench(model: irpool.Model, x: np.ndarray) -> Callable[[], list[Any]]:
    """The pool layer's kernel alone, on the op irpool checked (what `model.run` adds is the
    per-call overhead); only its first output is read, as in the IR."""
    pool = model.layer("pool")
    op = model.checked.ops[pool.id]
    kernel = kernel_of(op)
    if kernel is None:
        raise SystemExit(f"irpool has no kernel for {pool.type}")
    # A second input is the Const "const": AdaptiveAvgPool's output_size, ReduceMean's axes.
    inputs = [x]
    if len(pool.inputs) > 1:
        value = model.checked.outputs[model.layer("const").id][0].value
        if value is None:
            raise SystemExit("the Const of the benchmark's IR has no value")
        inputs.append(value)
    outputs = [
        OutputSpec.of(info.element_type, used=index == 0)
        for index, info in enumerate(model.checked.outputs[pool.id])
    ]
    return lambda: kernel(op, inputs, outputs)


def floor_bench(w: Workload, x: np.ndarray, out_size: int) -> Bench:
    """Reading the input once and writing the output once."""
    out = np.empty(out_size, np.float32)

    def floor() -> None:
        np.add.reduce(x, axis=None)
        out.fill(1.0)

    return floor


def openvino_bench(w: Workload, x: np.ndarray) -> Run | None:
    try:
        ov = importlib.import_module("openvino")
        ops = importlib.import_module("openvino.opset14")
    except ImportError:
        return None
    param = ops.parameter(list(x.shape), np.float32)
    pads = [w.pad] * w.rank
    if w.family == "max":
        node = ops.max_pool(
            param, [w.stride] * w.rank, [1] * w.rank, pads, pads, [w.kernel] * w.rank
        ).output(0)  # values only, as in the IR: the indices output has no consumer
    elif w.family == "mean":
        node = ops.reduce_mean(param, ops.constant(np.arange(2, 2 + w.rank)), keep_dims=True)
    elif w.kernel:

        def avg_pool(data: Any) -> Any:
            window = [w.stride] * w.rank, pads, pads, [w.kernel] * w.rank
            return ops.avg_pool(data, *window, w.exclude_pad, "floor")

        node = avg_pool(param)
    else:
        size = ops.constant(np.full(w.rank, w.output, np.int64))
        node = importlib.import_module("openvino.opset8").adaptive_avg_pool(param, size)
    results = [node]
    if w.compressed:
        results.append(avg_pool(ops.convert(ops.constant(compressed_weights(w)), "f32")))
    config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
    request = ov.Core().compile_model(ov.Model(results, [param]), "CPU", config)
    request = request.create_infer_request()
    request.set_input_tensor(ov.Tensor(x, shared_memory=True))
    return lambda: request.infer()


def torch_bench(w: Workload, x: np.ndarray) -> Bench | None:
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        return None
    torch.set_num_threads(1)
    functional = torch.nn.functional
    tensor = torch.from_numpy(x)
    if w.family == "max":
        max_pool = getattr(functional, f"max_pool{w.rank}d")
        return lambda: max_pool(tensor, w.kernel, w.stride, w.pad)
    if w.family == "mean":
        axes = tuple(range(2, 2 + w.rank))
        return lambda: tensor.mean(axes, keepdim=True)
    if not w.kernel:
        adaptive = getattr(functional, f"adaptive_avg_pool{w.rank}d")
        return lambda: adaptive(tensor, w.output)
    pool = getattr(functional, f"avg_pool{w.rank}d")
    include = not w.exclude_pad
    return lambda: pool(tensor, w.kernel, w.stride, w.pad, count_include_pad=include)


def onnxruntime_bench(w: Workload, x: np.ndarray) -> Bench | None:
    try:
        ort = importlib.import_module("onnxruntime")
        onnx = importlib.import_module("onnx")
    except ImportError:
        return None
    helper = onnx.helper
    if w.family == "max":
        node = helper.make_node(
            "MaxPool", ["x"], ["y"], kernel_shape=[w.kernel] * w.rank,
            strides=[w.stride] * w.rank, pads=[w.pad] * (2 * w.rank),
        )  # fmt: skip
    elif w.kernel:
        node = helper.make_node(
            "AveragePool", ["x"], ["y"], kernel_shape=[w.kernel] * w.rank,
            strides=[w.stride] * w.rank, pads=[w.pad] * (2 * w.rank),
            count_include_pad=int(not w.exclude_pad),
        )  # fmt: skip
    elif w.family == "mean" or w.output == 1:
        node = helper.make_node("GlobalAveragePool", ["x"], ["y"])
    else:
        return None  # ONNX has no adaptive pooling
    graph = helper.make_graph(
        [node], "pool",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return lambda: session.run(None, {"x": x})


COLUMNS = ("irpool", "compute", "openvino", "torch", "onnxruntime", "floor", "irpool_2t")


def _cell(microseconds: float) -> str:
    if not np.isfinite(microseconds):
        return "–"
    return f"{microseconds:.1f}" if microseconds < 10 else f"{microseconds:.0f}"


def performance_table(rows: list[dict[str, Any]], geomean: float) -> str:
    """The table of docs/performance.md, as measured."""
    lines = [
        "| | workload | irpool | compute | OpenVINO | torch | ort | floor | ratio | target | |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        us = r["microseconds"]
        cells = " | ".join(_cell(us[k]) for k in COLUMNS[:-1])
        verdict = "met" if r["ratio"] <= r["target"] else "miss"
        workload = r["workload"].replace(" -> ", " → ")
        lines.append(
            f"| {r['name']} | {workload} | {cells} | {r['ratio']:.2f} | ≤ {r['target']:g} "
            f"| {verdict} |"
        )
    lines.append(f"\nGeometric mean of the ratios: **{geomean:.2f}** (target ≤ 1.0).")
    return "\n".join(lines)


def geometric_mean(ratios: list[float]) -> float:
    finite = [r for r in ratios if np.isfinite(r)]
    return float(np.exp(np.mean(np.log(finite)))) if finite else float("nan")


def peak_memory(bench: Bench) -> int:
    """Peak traced allocation of one call, its kept buffers included."""
    release_scratch()
    tracemalloc.start()
    tracemalloc.reset_peak()
    bench()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def versions() -> dict[str, str]:
    found = {"python": platform.python_version(), "numpy": np.__version__}
    for name in ("irpool", "openvino", "torch", "onnxruntime", "threadpoolctl"):
        try:
            found[name] = importlib.import_module(name).__version__
        except ImportError:
            found[name] = "missing"
    return found


def machine() -> str:
    model = tuning.cpu_model()
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def conditions(busy: bool) -> dict[str, Any]:
    """What the machine was doing: the load average, BLAS's threads, irpool's settings."""
    blas = [
        {key: lib.info()[key] for key in ("internal_api", "num_threads", "architecture")}
        for lib in blas_libraries()
    ]
    return {
        "load_average": list(os.getloadavg()),
        "busy": busy,
        "blas": blas,
        "IRPOOL_THREADS": os.environ.get("IRPOOL_THREADS", "unset"),
        "IRPOOL_TUNE": os.environ.get("IRPOOL_TUNE", "unset"),
        "choices_file": str(tuning.cache_file()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--only", nargs="*", help="workload names to run")
    parser.add_argument(
        "--busy", action="store_true", help="keep one other CPU-bound process running"
    )
    args = parser.parse_args()
    busy = subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) if args.busy else None
    try:
        measure(args.budget, args.only, busy is not None)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()


def measure(budget: float, only: list[str] | None, busy: bool) -> None:
    rng = np.random.default_rng(0)
    rows: list[dict[str, Any]] = []
    peers = {"torch": torch_bench, "onnxruntime": onnxruntime_bench}
    print(f"{machine()}\n{versions()}\n{conditions(busy)}\n")
    names = ("irpool", "compute", "openvino", "torch", "ort", "floor", "irpool2T")
    header = f"{'':5} " + " ".join(f"{n:>9}" for n in names)
    print(f"{header} {'ratio':>6} {'target':>6} {'2T':>5}  (microseconds, medians)")
    folder = tempfile.TemporaryDirectory(prefix="irpool-bench-")
    for w in WORKLOADS:
        if only and w.name not in only:
            continue
        x = rng.random(w.shape, dtype=np.float32)
        model = load_checked(w, Path(folder.name))
        ours, kernel = irpool_bench(model, x), compute_bench(model, x)
        start = time.perf_counter()
        out = next(iter(ours().values()))
        first = time.perf_counter() - start
        np.testing.assert_array_equal(out, kernel()[0])
        # irpool and OpenVINO take turns (the ratio); the others are measured one by one.
        paired = {"irpool": ours, "irpool_2t": on_two_threads(ours)}
        reference = openvino_bench(w, x)
        if reference is not None:
            paired["openvino"] = reference
            expected = next(iter(reference().values()))
            exact = w.family == "max"  # a maximum is exact; sums differ in order only
            np.testing.assert_allclose(out, expected, 0 if exact else 1e-5, 0 if exact else 1e-6)
        times = alternating_medians(paired, 3 * budget, rounds=3)
        times.setdefault("openvino", float("nan"))
        times["compute"] = median_seconds(kernel, budget)
        times["floor"] = median_seconds(floor_bench(w, x, out.size), budget)
        for name, make in peers.items():
            bench = make(w, x)
            times[name] = median_seconds(bench, budget) if bench else float("nan")
        times["first"] = first
        ratio = times["irpool"] / times["openvino"]
        ratio_2t = times["irpool_2t"] / times["openvino"]
        row: dict[str, Any] = {
            "name": w.name, "workload": w.describe, "target": w.target, "ratio": ratio,
            "ratio_2_threads": ratio_2t,
            "microseconds": {k: v * 1e6 for k, v in times.items()},
        }  # fmt: skip
        if w.name in MEMORY_WORKLOADS:
            row["peak_bytes"] = peak_memory(ours)
            row["input_output_bytes"] = x.nbytes + out.nbytes
        rows.append(row)
        us = row["microseconds"]
        cells = " ".join(f"{us[k]:9.1f}" for k in COLUMNS)
        verdict = "ok" if ratio <= w.target else "MISS"
        print(
            f"{w.name:5} {cells} {ratio:6.2f} {w.target:6.1f} {ratio_2t:5.2f}  {verdict:4}  "
            f"{w.describe}; first run {first * 1e3:.1f} ms"
        )
    folder.cleanup()
    geomean = geometric_mean([r["ratio"] for r in rows])
    geomean_2t = geometric_mean([r["ratio_2_threads"] for r in rows])
    print(f"\ngeometric mean irpool/openvino: {geomean:.2f} (target 1.0); ", end="")
    print(f"irpool on 2 threads: {geomean_2t:.2f}")
    for r in rows:
        if "peak_bytes" in r:
            factor = r["peak_bytes"] / r["input_output_bytes"]
            print(
                f"peak memory {r['name']}: {r['peak_bytes'] / 2**20:.1f} MiB, "
                f"{factor:.2f}x input+output"
            )
    print("\nThe table of docs/performance.md:\n")
    print(performance_table(rows, geomean))
    RESULTS.mkdir(exist_ok=True)
    report = {
        "machine": machine(), "versions": versions(), "conditions": conditions(busy),
        "geomean": geomean, "geomean_2_threads": geomean_2t, "rows": rows,
    }  # fmt: skip
    (RESULTS / ("latest-busy.json" if busy else "latest.json")).write_text(
        json.dumps(report, indent=2)
    )


if __name__ == "__main__":
    main()
