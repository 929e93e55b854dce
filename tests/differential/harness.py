"""The differential harness: what the live comparisons with OpenVINO share.

A differential draws configurations (one op, its attributes, input types and dims), renders
each as layers with ids from a base (`Render`), and `write`s many into one IR. `read_model`
is the shape oracle (`shape_problems` says how irpool disagrees with it; tests/differential/
shape_batches.py reads and loads many configurations a file); the CPU plugin, with
`CPU_CONFIG`, is the run oracle, fed `random_input`. `PER_OP` configurations per op by
default (tests/scale.py scales it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

import irpool
from irpool.cpu.compressed_weights import quantizes_any_activations
from irpool.rules import RULES
from tests import ir
from tests.scale import examples

PER_OP = examples(300)
MAX_REPORTED = 12
CPU_CONFIG: dict[str, Any] = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
if not quantizes_any_activations():  # as an AVX2 host, also under ONEDNN_MAX_CPU_ISA=AVX2
    CPU_CONFIG["DYNAMIC_QUANTIZATION_GROUP_SIZE"] = 0
Item = TypeVar("Item")
Compiled = TypeVar("Compiled")
NUMPY = {
    "f32": np.float32, "f16": np.float16, "f64": np.float64, "i8": np.int8, "i16": np.int16,
    "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
    "u64": np.uint64, "boolean": np.bool_,
}  # fmt: skip


def random_dim(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.7:
        return str(rng.choice((1, 2, 3, 4, 5, 0) if rng.random() < 0.1 else (1, 2, 3, 4, 5)))
    if kind < 0.85:
        return "?"
    low, high = rng.randint(0, 3), rng.randint(3, 8)
    return rng.choice((f"{low}..{high}", f"..{high}", f"{low + 1}..", f"{low}..{low}"))


def declared(shape: str) -> list[str] | None:
    """The `<dim>`s of a Parameter's shape attribute: "-1" where not static, None for "..."."""
    if shape == "...":
        return None
    bounds = [d.partition("..") for d in shape.split(",") if d]
    return [
        low if low.isdigit() and (low == high or not sep) else "-1" for low, sep, high in bounds
    ]


def parameter(layer_id: int, name: str, element_type: str, shape: str, names: str = "") -> str:
    """A Parameter of this shape attribute ("2,?,1..4"; "" a scalar; "..." a dynamic rank),
    its output tensor named `names` (default: `name`)."""
    attributes = ir.data([("shape", shape), ("element_type", element_type)])
    out = ir.typed_port(0, element_type, declared(shape), names or name)
    return ir.layer(layer_id, name, "Parameter", "opset1", attributes, (), [out])


def const(layer_id: int, name: str, element_type: str, shape: str, offset: int, size: int) -> str:
    """A Const of this static shape ("2,3"; "" a scalar), reading `size` bytes at `offset`."""
    attributes = ir.data(
        [
            ("element_type", element_type),
            ("shape", shape),
            ("offset", str(offset)),
            ("size", str(size)),
        ]
    )
    out = ir.typed_port(0, element_type, declared(shape))
    return ir.layer(layer_id, name, "Const", "opset1", attributes, (), [out])


Render = Callable[[Any, tuple[str, Any], int, int], tuple[str, str, bytes]]


def write(
    directory: Path, name: str, configs: list[tuple[Any, tuple[str, Any]]], render: Render
) -> Path:
    """One IR holding each configuration's layers (`render`: 4 ids each) and Const bytes."""
    layers, edges, blob = [], [], b""
    for position, (config, output) in enumerate(configs):
        layer_text, edge_text, more = render(config, output, 4 * position, len(blob))
        layers.append(layer_text)
        edges.append(edge_text)
        blob += more
    path = directory / f"{name}.xml"
    path.write_text(ir.net(layers, edges, name="differential"), encoding="utf-8")
    if blob:
        path.with_suffix(".bin").write_bytes(blob)
    return path


def split_compiles(
    items: list[Item], compile_batch: Callable[[list[Item]], Compiled]
) -> Iterator[tuple[list[Item], Compiled | RuntimeError]]:
    """`compile_batch(items)` (items that share no node, compiled as one model); where the CPU
    plugin refuses (a RuntimeError), each half in turn, down to one item: each batch with what
    compiled, or a single item with the CPU's error. A batch that compiles compiles each of its
    items, so each refusal is a compile of that item alone."""
    try:
        compiled = compile_batch(items)
    except RuntimeError as error:
        if len(items) == 1:
            yield items, error
            return
        middle = len(items) // 2
        yield from split_compiles(items[:middle], compile_batch)
        yield from split_compiles(items[middle:], compile_batch)
        return
    yield items, compiled


def cpu_refusals(
    core: Any,
    directory: Path,
    items: list[tuple[Any, tuple[str, Any]]],
    write: Callable[[Path, str, list[tuple[Any, tuple[str, Any]]]], Path],
    batch_size: int = 16,
) -> set[int]:
    """The indices of the configurations (with their outputs, as `write` takes them) the CPU
    plugin cannot compile alone, compiled `batch_size` to a model and split on a refusal
    (`split_compiles`). (16: the compile of a model grows faster than its size for some ops,
    and a refused configuration costs a split.)"""

    def compile_batch(batch: list[tuple[Any, tuple[str, Any]]]) -> object:
        path = write(directory, f"compile{batch[0][0].index}_{len(batch)}", batch)
        return core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)

    return {
        batch[0][0].index
        for start in range(0, len(items), batch_size)
        for batch, compiled in split_compiles(items[start : start + batch_size], compile_batch)
        if isinstance(compiled, RuntimeError)
    }


def inferred_shape(loaded: irpool.Model, layer_id: int) -> str:
    """irpool's shape of the layer's first output ("nothing": not inferred)."""
    inferred = loaded.checked.outputs.get(layer_id)
    return str(inferred[0].shape) if inferred else "nothing"


def shape_problems(errors: list[irpool.Diagnostic], theirs: str | None, ours: str) -> list[str]:
    """How irpool's `errors` and inferred shape (`ours`) disagree with OpenVINO's output
    shape (`theirs`; None: `read_model` refused the file)."""
    if theirs is None:
        if any(RULES[d.code].runtime == "rejects" for d in errors):
            return []
        return [f"accepts what OpenVINO rejects: {[d.code for d in errors]}"]
    problems = []
    if ours != theirs:
        problems.append(f"disagrees: irpool infers {ours}, OpenVINO {theirs}")
    problems += [
        f"rejects what OpenVINO accepts: {d.code} {d.message}"
        for d in errors
        if not RULES[d.code].is_strictness
    ]
    return problems


def random_input(
    seed: int, element_type: str, shape: tuple[int, ...], nan: bool = True
) -> NDArray[Any]:
    """Seeded values: floats with NaN (unless `nan` is false), ±inf, ±0, huge values and the
    ops' kinks; integers wide and small, their extremes included."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(NUMPY[element_type])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        wide = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        small = rng.integers(-10 if dtype.kind == "i" else 0, 10, size=shape).astype(dtype)
        return np.where(rng.random(shape) < 0.4, wide, small)
    values = rng.normal(0, rng.choice((1.0, 4.0, 40.0)), size=shape)
    specials = np.array(
        [np.nan, np.inf, -np.inf, 0.0, -0.0, -3.0, 3.0, -87.0, -86.98997, 89.0, 3e38, 1e300, 7e4]
    )
    if not nan:  # ReLU and Clamp take another path without one
        specials[0] = -0.0
    picked = specials[rng.integers(0, len(specials), size=shape)]
    with np.errstate(over="ignore"):
        return np.where(rng.random(shape) < 0.3, picked, values).astype(dtype)
