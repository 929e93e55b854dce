"""Runs models on IRPOOL_THREADS=1 and then 2 in this process and prints, as JSON, the
outputs that differ in any bit, with the BLAS kernel NumPy loaded (threadpoolctl's
`architecture`): `python -m tests.thread_bits [--split] MODEL.xml ...`. A model's inputs are
the `inputs-*.npz` beside it. `--split` makes every block of planes a few planes and cuts
every matrix product into spans of a few rows, so even small models go through every way
the threads share work. tests/test_thread_bits.py starts it in a fresh process for each
OPENBLAS_CORETYPE."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from irpool.execute.engine import blas, blocks, costs
from irpool.execute.engine.matmul import Matmul
from irpool.execute.engine.sliding import Sliding
from irpool.execute.engine.whole import Whole
from irpool.execute.kernels import depthwise, max_pool

SMALL_BLOCK_BYTES = 1 << 12


def split_everything(patch: pytest.MonkeyPatch) -> None:
    for strategy in (Whole, Sliding, Matmul):
        patch.setattr(strategy, "chunk_bytes", SMALL_BLOCK_BYTES)
    for module in (depthwise, max_pool):
        patch.setattr(module, "CHUNK_BYTES", SMALL_BLOCK_BYTES)
    patch.setattr(blocks, "PARALLEL_MIN_BYTES", 0)
    patch.setattr(blocks, "TILE_MACS", 1)
    patch.setattr(blocks, "SPAN_MIN", 3)
    patch.setattr(blocks, "CHANNEL_SPAN_MIN", 3)
    patch.setattr(costs, "THREAD_MACS", 1)


def samples(model: Path) -> dict[str, dict[str | int, np.ndarray[Any, Any]]]:
    found: dict[str, dict[str | int, np.ndarray[Any, Any]]] = {}
    for path in sorted(model.parent.glob("inputs-*.npz")):
        with np.load(path) as recorded:
            found[path.stem] = {name: recorded[name] for name in recorded.files}
    return found


def differences(model_path: Path) -> list[str]:
    model = irpool.load(model_path)
    found = []
    for sample, inputs in samples(model_path).items():
        outputs = {}
        for threads in ("1", "2"):
            os.environ["IRPOOL_THREADS"] = threads
            outputs[threads] = model.run(inputs)
        for name, one in outputs["1"].items():
            if one.tobytes() != outputs["2"][name].tobytes():
                found.append(f"{model_path.parent.name}/{sample}/{name}")
    return found


def main(arguments: list[str]) -> int:
    shared: list[int] = []  # the thread counts work was dealt to
    with pytest.MonkeyPatch.context() as patch:
        if arguments[:1] == ["--split"]:
            split_everything(patch)
            arguments = arguments[1:]
        deal = blocks._deal

        def counted(pieces: list[Any], threads: int) -> Iterator[list[Any]]:
            shared.append(threads)
            return deal(pieces, threads)

        patch.setattr(blocks, "_deal", counted)
        differ = [found for path in arguments for found in differences(Path(path))]
    architectures = sorted({lib.info().get("architecture") or "" for lib in blas.blas_libraries()})
    found = {"architectures": architectures, "differ": differ, "models": len(arguments)}
    print(json.dumps({**found, "shared": len(shared)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
