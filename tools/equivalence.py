"""Run every IR file in the repository on fixed inputs and compare two runs bit for bit.

The proof that a refactoring of the engine changed no result: record with the old code,
record with the new one, compare. Each runnable model runs on three fixed inputs (seeded
normal values, the same with inf, -inf and NaN planted, and large values), with `cast=True`
so bf16 Parameters take their float32 values; what a model refuses is recorded as its
error's type and message (a crash too), which must not change either.

    python tools/equivalence.py record before.pickle
    python tools/equivalence.py record after.pickle
    python tools/equivalence.py compare before.pickle after.pickle

To record the old code, put its checkout first on the path:
`PYTHONPATH=/tmp/old python tools/equivalence.py record before.pickle`.
"""

from __future__ import annotations

import argparse
import pickle
import re
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import irpool

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ("normal", "non-finite", "large")
# A dynamic dim takes this length when its interval allows it, else its nearest bound.
DYNAMIC_LENGTH = 3

AVAILABLE = re.compile(r"only [0-9.]+ [A-Za-z]+ of memory")
# file -> variant -> ("outputs", {name: (dtype, shape, bytes)}) or ("error", "Type: message")
Record = dict[str, dict[str, tuple[str, Any]]]


def ir_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "*.xml"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return sorted(listed.stdout.split())


def _concrete(shape: Any) -> tuple[int, ...] | None:
    if shape.dims is None:
        return None
    lengths = []
    for dim in shape.dims:
        high = DYNAMIC_LENGTH if dim.high is None else dim.high
        lengths.append(min(max(dim.low, DYNAMIC_LENGTH), high))
    return tuple(lengths)


def _values(element_type: str, shape: tuple[int, ...], variant: str, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    if element_type in ("f32", "f16", "f64", "bf16"):
        floats = np.dtype({"f16": "f2", "f64": "f8"}.get(element_type, "f4"))
        scale = 6e37 if variant == "large" and element_type != "f16" else 1.0
        values = (rng.standard_normal(shape) * scale).astype(floats)
        if variant == "non-finite" and values.size:
            flat = values.reshape(-1)
            picks = rng.integers(0, flat.size, size=max(1, flat.size // 7))
            flat[picks] = rng.choice(np.array([np.inf, -np.inf, np.nan], floats), picks.size)
        return values
    if element_type == "boolean":
        return rng.integers(0, 2, shape).astype(np.bool_)
    if element_type.startswith("u"):
        dtype = np.dtype({"u8": "u1", "u16": "u2", "u32": "u4", "u64": "u8"}[element_type])
    else:
        dtype = np.dtype(
            {"i8": "i1", "i16": "i2", "i32": "i4", "i64": "i8"}.get(element_type, "u1")
        )
    info = np.iinfo(dtype)
    span = (info.min, info.max) if variant == "large" else (max(info.min, -100), 100)
    return rng.integers(span[0], span[1], shape, dtype=dtype, endpoint=True)


def _run(path: Path, variant: str) -> tuple[str, Any] | None:
    try:
        model = irpool.load(path)
    except irpool.IRError:
        return None
    if model.has_errors:
        return None
    try:
        inputs: dict[str | int, Any] = {}
        for number, parameter in enumerate(model.inputs):
            shape = _concrete(parameter.shape)
            if shape is None:
                return ("error", "unknown rank")
            seed = zlib.crc32(f"{path.name}:{variant}:{number}".encode())
            inputs[parameter.name] = _values(parameter.element_type, shape, variant, seed)
        outputs = model.run(inputs, cast=True)
    except Exception as error:  # a crash must stay the same crash
        return ("error", f"{type(error).__name__}: {error}")
    arrays = {name: np.ascontiguousarray(array) for name, array in outputs.items()}
    return ("outputs", {name: (str(a.dtype), a.shape, a.tobytes()) for name, a in arrays.items()})


def record(out: Path) -> None:
    result: Record = {}
    for name in ir_files():
        runs = {variant: _run(ROOT / name, variant) for variant in VARIANTS}
        result[name] = {variant: run for variant, run in runs.items() if run is not None}
    out.write_bytes(pickle.dumps(result))
    ran = sum(1 for runs in result.values() for kind, _ in runs.values() if kind == "outputs")
    print(f"{len(result)} IR files, {ran} runs with outputs recorded to {out}")


def _comparable(run: tuple[str, Any] | None) -> tuple[str, Any] | None:
    """A run as compared: the memory free when it was refused is the machine's, not irpool's."""
    if run is None or run[0] != "error":
        return run
    return run[0], AVAILABLE.sub("only (available) of memory", run[1])


def compare(before: Path, after: Path) -> int:
    old: Record = pickle.loads(before.read_bytes())
    new: Record = pickle.loads(after.read_bytes())
    differences = [f"{name}: only in one record" for name in sorted(set(old) ^ set(new))]
    compared = 0
    for name in sorted(set(old) & set(new)):
        for variant in sorted(set(old[name]) | set(new[name])):
            compared += 1
            if _comparable(old[name].get(variant)) != _comparable(new[name].get(variant)):
                differences.append(f"{name} [{variant}]: differs")
    for line in differences:
        print(line)
    print(f"{compared} runs compared, {len(differences)} differ")
    return 1 if differences else 0


def record_or_compare(
    description: str | None,
    record: Callable[[Path], None],
    compare: Callable[[Path, Path], int],
) -> int:
    """The command line of a record-then-compare tool (this one, validate_equivalence.py)."""
    parser = argparse.ArgumentParser(description=description)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("record").add_argument("out", type=Path)
    comparing = commands.add_parser("compare")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "record":
        record(args.out)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(record_or_compare(__doc__, record, compare))
