"""OpenVINO in a worker process, as an oracle that survives its crashes: `Oracle.judge(path)`
reads and compiles a file (and, when asked, runs it) in the worker, and a crash or a hang
rejects the file and restarts the worker. The worker needs openvino; this module does not."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ORACLE_TIMEOUT = 60.0


WORKER = """
import json, sys
import numpy as np
import openvino as ov
core = ov.Core()
# The CPU's default thread count, as users run it: with INFERENCE_NUM_THREADS=1 a MaxPool-8
# without dilations runs, with the default it fails at inference (issue #18).
CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}

def small_input(parameter, rng):
    # Dynamic dims take 5 within their bounds; values are multiples of 1/4 (exact in f16).
    dims = [d.get_length() if d.is_static else min(max(d.get_min_length(), 5),
            d.get_max_length() if d.get_max_length() >= 0 else 5)
            for d in parameter.get_output_partial_shape(0)]
    dtype = parameter.get_element_type().to_dtype()
    if dtype.kind == "f":
        return (rng.integers(-40, 40, dims) / 4).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, dims).astype(dtype)
    low = 0 if dtype.kind == "u" else -20
    return rng.integers(low, 40, dims).astype(dtype)

def shapes(model):
    # Each op's name -> its inputs' and outputs' shapes and element types, as OpenVINO infers.
    described = {}
    for op in model.get_ordered_ops():
        ports = [(str(p.get_partial_shape()), p.get_element_type().get_type_name())
                 for p in list(op.inputs()) + list(op.outputs())]
        described.setdefault(op.get_friendly_name(), []).append(ports)
    return described

def tensor_name(port):
    try:
        return port.get_any_name()
    except RuntimeError:
        return port.get_node().get_friendly_name()

def run(compiled, model, npz):
    rng = np.random.default_rng(0)
    # Bound by a tensor name where the input has one: OpenVINO renames a Parameter named "".
    inputs = {tensor_name(p.output(0)): small_input(p, rng) for p in model.get_parameters()}
    results = compiled.create_infer_request().infer(list(inputs.values()))
    outputs = {"out:" + tensor_name(port): value for port, value in results.items()}
    np.savez(npz, **{"in:" + k: v for k, v in inputs.items()}, **outputs)

for line in sys.stdin:
    request = json.loads(line)
    path, npz = (request, None) if isinstance(request, str) else (request["path"], request["run"])
    answer = {"stage": None, "message": ""}
    try:
        model = core.read_model(path)
    except Exception as error:
        answer = {"stage": "read", "message": str(error)}
    else:
        if npz is not None:
            answer["shapes"] = shapes(model)
            answer["outputs"] = len(model.outputs)
        stage = "compile"
        try:
            compiled = core.compile_model(model, "CPU", CONFIG)
            if npz is not None and all(p.get_element_type().is_static() and
                    p.get_element_type() != ov.Type.string for p in model.get_parameters()):
                stage = "infer"
                run(compiled, model, npz)
                answer["ran"] = True
        except Exception as error:
            answer.update(stage=stage, message=str(error))
    print(json.dumps(answer), flush=True)
"""


@dataclass(frozen=True)
class Verdict:
    stage: str | None  # None: accepted; "read", "compile", "infer", "crash", "timeout": rejected
    message: str
    # Asked to run (`Oracle.judge(path, run=...)`), once read: each op's name -> for each op
    # of that name, its input and output ports as (partial shape, element type); the number
    # of model outputs; whether it ran (the inputs and outputs are then in the .npz).
    shapes: dict[str, list[list[tuple[str, str]]]] = field(default_factory=dict)
    outputs: int = 0
    ran: bool = False

    @property
    def rejected(self) -> bool:
        return self.stage is not None


class Oracle:
    """OpenVINO's verdict on a file; a crash or a hang rejects it and restarts the worker."""

    def __init__(self, worker: str = WORKER) -> None:
        self._worker = worker
        self._process: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-c", self._worker],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        return self._process

    def judge(self, path: Path, run: Path | None = None) -> Verdict:
        """Read and compile `path`; with `run`, also describe the model and, when it
        compiles, infer on small inputs saved with the outputs to the .npz `run`.

        A crash is confirmed in a fresh worker: one that left the worker unsound (freeing
        what an earlier file built) must not be charged to this file."""
        verdict = self._ask(path, run)
        return self._ask(path, run) if verdict.stage == "crash" else verdict

    def _ask(self, path: Path, run: Path | None) -> Verdict:
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        request = str(path) if run is None else {"path": str(path), "run": str(run)}
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
        except BrokenPipeError:
            return self._lost("crash")
        ready, _, _ = select.select([process.stdout], [], [], ORACLE_TIMEOUT)
        line = process.stdout.readline() if ready else ""
        if not line:
            return self._lost("crash" if ready else "timeout")
        answer = json.loads(line)
        shapes = {
            name: [[(shape, element) for shape, element in ports] for ports in ops]
            for name, ops in answer.get("shapes", {}).items()
        }
        return Verdict(
            answer["stage"], answer["message"], shapes, answer.get("outputs", 0), "ran" in answer
        )

    def _lost(self, stage: str) -> Verdict:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None
        return Verdict(stage, f"the OpenVINO worker {'hung' if stage == 'timeout' else 'died'}")

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
