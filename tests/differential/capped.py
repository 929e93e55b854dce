"""Running a model on the CPU plugin and in irpool with the instruction set capped
(ONEDNN_MAX_CPU_ISA, irpool.cpu.isa), in a process of its own: oneDNN and irpool read the
variable once a process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import capped_isa, instruction_set

ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import sys
import numpy as np
import openvino as ov
import irpool
path, inputs, outputs = sys.argv[1:]
with np.load(inputs) as arrays:
    feeds = dict(arrays)
config = {"INFERENCE_PRECISION_HINT": "f32"}
expected = ov.Core().compile_model(path, "CPU", config)(feeds)[0]
(found,) = irpool.load(path).run(feeds).values()
np.savez(outputs, expected=expected, found=found)
"""


def host_can_take(isa: str) -> bool:
    """Whether this host computes as `isa` when capped to it."""
    return capped_isa(instruction_set(), isa) == isa


def run_capped(
    isa: str, path: Path, feeds: dict[str, NDArray[Any]]
) -> tuple[NDArray[Any], NDArray[Any]]:
    """The (CPU, irpool) outputs of the model at `path` with the plugin capped at `isa`."""
    inputs, outputs = path.with_name("inputs.npz"), path.with_name("outputs.npz")
    np.savez(inputs, **feeds)
    env = os.environ | {"ONEDNN_MAX_CPU_ISA": isa.upper()}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, "-c", CHILD, str(path), str(inputs), str(outputs)]
    subprocess.run(command, env=env, check=True, timeout=600)
    with np.load(outputs) as arrays:
        return arrays["expected"], arrays["found"]
