"""Measure the two ways `irpool run` holds compressed weights (IRPOOL_COMPRESSED_WEIGHTS keep
and decompress) against OpenVINO's CPU plugin on one thread: the time of one decode step and
the peak memory of the process, each in a fresh process, the engines alternating round by
round (a loaded machine then weighs on each alike); the best of the rounds is reported, as
process CPU time and wall time.

Without `--model`, the model is an LLM's decode step without its attention: x [1, hidden]
through `--layers` pairs of MLP MatMuls ([intermediate, hidden] and [hidden, intermediate],
INT4 with groups of 64 and u4 zero points, as NNCF writes them) and an INT8 per-row lm_head
[vocab, hidden], each weight a decompression subgraph. The defaults are Qwen2-0.5B's MLP and
hidden sizes. It is written to DIR (a new temporary folder by default, kept and named, so
that `--dir` measures it again).

With `--model`, a stateful LLM as `optimum-cli export openvino` writes it: an 8-token prompt,
then `--steps` decode steps through `create_infer_request()` (OpenVINO's InferRequest after
`reset_state()`, `beam_idx` 0), greedy; irpool's tokens must be OpenVINO's.

`--bandwidth` also measures NumPy's f32 GEMV (sgemv, one thread) on [4864, 896] weights that
do not stay in cache: the bytes a second it reads them.

`--products` measures a decode step's products alone, held as `decompress` holds them, without
a model: irpool's MatMul by compressed weights that quantizes its activations as the CPU does
(`product_by_quantized`: the 168 matrices of Qwen2-0.5B's 24 layers u4 in groups of 64 with u4
zero points, held three rows to an f64 word, and its [151936, 896] lm_head u8 per row, held in
f32; each read from memory, as in a step) against its BLAS calls alone (`np.matmul` of the same
held codes by the int8 steps), alternating, best of `--rounds` by process CPU time, one thread.

    python tools/measure_compressed_weights.py [--layers N] [--vocab V] [--dir DIR]
    python tools/measure_compressed_weights.py --model openvino_model.xml [--rounds 3] [--bandwidth]
    python tools/measure_compressed_weights.py --products [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

HIDDEN, INTERMEDIATE, GROUP = 896, 4864, 64
PROMPT = 8
Tensor = tuple[int, str, tuple[int, ...]]  # a layer's id, and its output's precision and shape

# One process's measurement: how to load and run the model; it prints JSON.
RUNNER = """
import json, re, sys, time
import numpy as np

def high_water_mib():  # VmHWM: this process's peak resident memory (ru_maxrss survives exec)
    status = open("/proc/self/status").read()
    return int(re.search(r"VmHWM:\\s+([0-9]+) kB", status).group(1)) / 1024

path, engine, steps, llm = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "llm"
x = np.random.default_rng(0).standard_normal((1, {hidden})).astype(np.float32)

def feed(tokens, past):  # a stateful LLM's inputs for `tokens` after `past` ones
    count = tokens.shape[1]
    return {{"input_ids": tokens, "attention_mask": np.ones((1, past + count), np.int64),
            "position_ids": np.arange(past, past + count, dtype=np.int64)[None],
            "beam_idx": np.zeros(1, np.int32)}}

before = high_water_mib()
start = time.perf_counter()
if engine == "openvino":
    import openvino as ov
    config = {{"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}}
    compiled = ov.Core().compile_model(path, "CPU", config)
    request = compiled.create_infer_request()
    if llm:
        request.reset_state()
    infer = lambda inputs: {{k.get_any_name(): v for k, v in request.infer(inputs).items()}}
else:
    import irpool
    model = irpool.load(path)
    request = model.create_infer_request()
    infer = request.infer
tokens = []
if llm:
    prompt = np.random.default_rng(0).integers(4, 1000, (1, {prompt}))
    greedy = lambda logits: tokens.append(int(logits[0, -1].argmax()))
    greedy(infer(feed(prompt, 0))["logits"])
    next_input = lambda: feed(np.array([[tokens[-1]]]), {prompt} + len(tokens) - 1)
    step = lambda: greedy(infer(next_input())["logits"])
else:
    step = lambda: infer({{0: x}})
    step()
ready = time.perf_counter() - start
times, cpu = [], []
for _ in range(steps):
    start, start_cpu = time.perf_counter(), time.process_time()
    step()
    times.append(time.perf_counter() - start)
    cpu.append(time.process_time() - start_cpu)
print(json.dumps({{"ready_s": ready, "step_ms": 1e3 * min(times), "step_cpu_ms": 1e3 * min(cpu),
                  "peak_mib": high_water_mib(), "imports_mib": before, "tokens": tokens}}))
"""


def nibbles(values: NDArray[np.integer[Any]]) -> bytes:
    """u4 values packed as OpenVINO packs them: the first in the low nibble."""
    flat = values.ravel().astype(np.uint8)
    return (flat[0::2] | (flat[1::2] << 4)).tobytes()


def whole_bytes(values: NDArray[np.integer[Any]]) -> bytes:
    return values.astype(np.uint8).tobytes()


class Writer:
    """IR text and `.bin` bytes of the model, layer by layer."""

    def __init__(self) -> None:
        self.layers: list[str] = []
        self.edges: list[str] = []
        self.data = bytearray()
        self.next_id = 0
        self.ports: dict[int, int] = {}  # each layer's output port id

    def layer(
        self,
        kind: str,
        data: str,
        inputs: list[Tensor],
        out: tuple[str, tuple[int, ...]] | None,
    ) -> Tensor:
        """A layer reading `inputs`, with one output (`out`: its precision and shape; None for
        a Result)."""
        layer_id = self.next_id
        self.next_id += 1
        ports = "".join(
            f'<port id="{i}" precision="{p}">{"".join(f"<dim>{d}</dim>" for d in s)}</port>'
            for i, (_, p, s) in enumerate(inputs)
        )
        port = len(inputs)
        output = ""
        if out is not None:
            dims = "".join(f"<dim>{d}</dim>" for d in out[1])
            output = f'<output><port id="{port}" precision="{out[0]}">{dims}</port></output>'
        self.layers.append(
            f'<layer id="{layer_id}" name="l{layer_id}" type="{kind}" version="opset1">{data}'
            + (f"<input>{ports}</input>" if inputs else "")
            + f"{output}</layer>\n"
        )
        for index, (source, _, _) in enumerate(inputs):
            self.edges.append(
                f'<edge from-layer="{source}" from-port="{self.ports[source]}" '
                f'to-layer="{layer_id}" to-port="{index}"/>\n'
            )
        self.ports[layer_id] = port
        precision, shape = out if out is not None else ("", ())
        return layer_id, precision, shape

    def const(self, element: str, precision: str, shape: tuple[int, ...], raw: bytes) -> Tensor:
        offset = len(self.data)
        self.data += raw
        data = (
            f'<data element_type="{element}" shape="{",".join(map(str, shape))}" '
            f'offset="{offset}" size="{len(raw)}"/>'
        )
        return self.layer("Const", data, [], (precision, shape))

    def convert(self, source: Tensor, element: str, precision: str) -> Tensor:
        return self.layer(
            "Convert", f'<data destination_type="{element}"/>', [source], (precision, source[2])
        )

    def weights(self, rows: int, depth: int, group: int, rng: np.random.Generator) -> Tensor:
        """NNCF's decompression subgraph: INT4 in groups, or INT8 per row when group is 0."""
        grouped = (rows, depth // group, group) if group else (rows, depth)
        one = (*grouped[:-1], 1)
        element, precision, pack = ("u4", "U4", nibbles) if group else ("u8", "U8", whole_bytes)
        top = 16 if group else 256
        quantized = self.convert(
            self.const(element, precision, grouped, pack(rng.integers(0, top, grouped))),
            "f16",
            "FP16",
        )
        points = self.convert(
            self.const(element, precision, one, pack(rng.integers(0, top, one))), "f16", "FP16"
        )
        scale = self.const(
            "f16", "FP16", one, (rng.random(one) * 0.01).astype(np.float16).tobytes()
        )
        values = self.layer("Subtract", "", [quantized, points], ("FP16", grouped))
        values = self.layer("Multiply", "", [values, scale], ("FP16", grouped))
        if group:
            pattern = self.const("i64", "I64", (2,), np.array([rows, depth], np.int64).tobytes())
            values = self.layer(
                "Reshape",
                '<data special_zero="false"/>',
                [values, pattern],
                ("FP16", (rows, depth)),
            )
        return self.convert(values, "f32", "FP32")

    def matmul(self, x: Tensor, weights: Tensor) -> Tensor:
        data = '<data transpose_a="false" transpose_b="true"/>'
        return self.layer("MatMul", data, [x, weights], ("FP32", (1, weights[2][0])))

    def write(self, path: Path) -> None:
        path.write_text(
            '<?xml version="1.0"?>\n<net name="decode" version="11"><layers>\n'
            + "".join(self.layers)
            + "</layers><edges>\n"
            + "".join(self.edges)
            + "</edges></net>\n",
            encoding="utf-8",
        )
        path.with_suffix(".bin").write_bytes(bytes(self.data))


def write_model(path: Path, layers: int, vocab: int) -> None:
    rng = np.random.default_rng(0)
    writer = Writer()
    x = writer.layer(
        "Parameter", '<data shape="1,896" element_type="f32"/>', [], ("FP32", (1, HIDDEN))
    )
    h = x
    for _ in range(layers):
        up = writer.matmul(h, writer.weights(INTERMEDIATE, HIDDEN, GROUP, rng))
        h = writer.matmul(up, writer.weights(HIDDEN, INTERMEDIATE, GROUP, rng))
    logits = writer.matmul(h, writer.weights(vocab, HIDDEN, 0, rng))
    writer.layer("Result", "", [logits], None)
    writer.write(path)


def sgemv_bandwidth(rounds: int = 3) -> float:
    """Bytes a second NumPy's f32 GEMV (x @ W.T, one thread) reads of weights larger than the
    caches: 64 MiB of [4864, 896] matrices, best of `rounds`, by process CPU time."""
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal((INTERMEDIATE, HIDDEN), np.float32) for _ in range(4)]
    x = rng.standard_normal((1, HIDDEN), np.float32)
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for matrix in weights:
            x @ matrix.T
        best = min(best, time.process_time() - start)
    return sum(matrix.nbytes for matrix in weights) / best


def step_products(rounds: int) -> dict[str, float]:
    """Milliseconds of process CPU time of a Qwen2-0.5B-size decode step's products held as
    `decompress` holds them (activations quantized per 32, as the CPU's), best of `rounds`:
    irpool's product and its BLAS calls alone on the same held codes, in alternating rounds."""
    from irpool.execute.compressed import CompressedWeights
    from irpool.execute.engine import blas
    from irpool.execute.kernels.mat_mul import activation_steps, product_by_quantized

    rng = np.random.default_rng(0)
    layer = [(HIDDEN, HIDDEN), (128, HIDDEN), (128, HIDDEN), (HIDDEN, HIDDEN)]
    layer += [(INTERMEDIATE, HIDDEN)] * 2 + [(HIDDEN, INTERMEDIATE)]
    held: list[CompressedWeights] = []
    for rows, depth in layer * 24 + [(151936, HIDDEN)]:
        element, group = ("u4", GROUP) if rows < 151936 else ("u8", depth)
        levels = 16 if element == "u4" else 256
        packed = rng.integers(0, 256, rows * depth // (2 if element == "u4" else 1), np.uint8)
        quantized = packed.data if element == "u4" else packed.reshape(rows, depth)
        points = rng.integers(0, levels, (rows, depth // group)).astype(np.float32)
        scale = (rng.random((rows, depth // group), np.float32) * 0.01).astype(np.float16)
        weights = CompressedWeights(
            element, quantized, rows, depth, group, points, scale.astype(np.float32)
        )
        held.append(weights.held())
    x = {depth: rng.standard_normal((1, 1, depth), np.float32) for depth in (HIDDEN, INTERMEDIATE)}
    steps = {
        (depth, dtype): np.ascontiguousarray(
            activation_steps(values.reshape(1, depth), 32)[0].transpose(1, 2, 0), dtype
        )
        for depth, values in x.items()
        for dtype in (np.float32, np.float64)
    }

    def blas_calls(weights: CompressedWeights) -> object:
        codes = weights.held_codes
        assert codes is not None
        return np.matmul(codes, steps[weights.depth, codes.dtype.type])

    ways: dict[str, Callable[[CompressedWeights], object]] = {
        "irpool": lambda w: product_by_quantized(x[w.depth], 32, w),
        "its BLAS calls": blas_calls,
    }
    best = dict.fromkeys(ways, float("inf"))
    blas.hold(1)
    try:
        for _ in range(rounds):
            for name, product in ways.items():
                start = time.process_time()
                for weights in held:
                    product(weights)
                best[name] = min(best[name], 1e3 * (time.process_time() - start))
    finally:
        blas.release()
    return best


def one_thread(command: list[str], mode: str = "") -> str:
    """The last line `command` prints, run with irpool and BLAS on one thread."""
    environment = {"IRPOOL_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    if mode:
        environment["IRPOOL_COMPRESSED_WEIGHTS"] = mode
    found = subprocess.run(
        command, capture_output=True, text=True, check=True, env={**os.environ, **environment}
    )
    return found.stdout.splitlines()[-1]


def measured(path: Path, engine: str, mode: str, steps: int, llm: bool) -> dict[str, Any]:
    """One fresh process's figures."""
    runner = RUNNER.format(hidden=HIDDEN, prompt=PROMPT)
    command = [sys.executable, "-c", runner, str(path), engine, str(steps), "llm" if llm else "x"]
    figures: dict[str, Any] = json.loads(one_thread(command, mode))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--vocab", type=int, default=151936)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--model", type=Path, default=None, help="a stateful LLM's .xml")
    parser.add_argument("--bandwidth", action="store_true")
    parser.add_argument("--products", action="store_true")
    parser.add_argument("--sgemv", action="store_true", help=argparse.SUPPRESS)  # one process's
    arguments = parser.parse_args()
    if arguments.sgemv:
        print(sgemv_bandwidth())
        return
    if arguments.products:
        figures = step_products(max(arguments.rounds, 2))
        print(", ".join(f"{name} {ms:.1f} ms" for name, ms in figures.items()))
        print(f"load average {os.getloadavg()[0]:.1f}")
        return
    path = arguments.model
    if path is None:
        directory = arguments.dir or Path(tempfile.mkdtemp())
        path = directory / "decode.xml"
        if not path.exists():
            write_model(path, arguments.layers, arguments.vocab)
    print(f"{path}: .bin {path.with_suffix('.bin').stat().st_size / 2**20:.0f} MiB")
    if arguments.bandwidth:
        bandwidth = float(one_thread([sys.executable, __file__, "--sgemv"]))
        print(f"sgemv: {bandwidth / 1e9:.1f} GB/s of f32 weights (CPU time, 1 thread)")
    engines = (("openvino", ""), ("irpool", "keep"), ("irpool", "decompress"))
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for _ in range(arguments.rounds):
        for engine, mode in engines:
            found = measured(path, engine, mode, arguments.steps, arguments.model is not None)
            kept = best.setdefault((engine, mode), found)
            for key in ("ready_s", "step_ms", "step_cpu_ms", "peak_mib"):
                kept[key] = min(kept[key], found[key])
    reference = best[("openvino", "")]
    for (engine, mode), figures in best.items():
        ratio = figures["step_cpu_ms"] / reference["step_cpu_ms"]
        same = figures["tokens"] == reference["tokens"]
        print(
            engine,
            mode or "-",
            {k: round(v, 2) for k, v in figures.items() if k != "tokens"},
            f"step CPU {ratio:.1f}x",
            "tokens equal" if same else f"tokens {figures['tokens']}",
        )
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
