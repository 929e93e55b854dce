"""Live differential test: MatMul-1 against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is one MatMul of two inputs of one
element type (sometimes two types, or boolean): ranks 0 to 4 or a dynamic rank, inner dims
mostly equal (else another, dynamic or an interval), batch dims broadcast partners, 1-D inputs,
`transpose_a`/`transpose_b` spelled true, false, 1, 0, True, absent, or `yes` (ignored by
OpenVINO). The second input is a Parameter or a Const (weights).

Shapes (every configuration): OpenVINO's `read_model` is the oracle. When it accepts the file,
irpool must infer the same shape and report no error but strictness rules; when it rejects it,
irpool must report an error of a rule whose runtime "rejects".

Run (accepted configurations with static shapes): batches compiled once on the CPU plugin (f32
inference precision, 1 thread), on seeded inputs holding NaN, ±inf, ±0 and huge values in some
configurations and each 8-bit type's extremes. Non-finite outputs must be where the CPU's are,
and the same; finite float outputs within 1e-6 · Σ|a·b| of the CPU's
(docs/ops/Convolution.md#numerics-and-tolerances; plus one ulp of
an f16 output, rounded after the f32 sum), except where Σ|a·b| reaches 2**127: there partial
sums may overflow to inf in one accumulation order and not in another. Integers are equal (their
sums stay exact in f32).

IRPOOL_TEST_SCALE scales the number of configurations (default 400).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests.differential import arithmetic_cases
from tests.differential.arithmetic_cases import Config, Outcome, check_shapes, write
from tests.differential.harness import CPU_CONFIG, MAX_REPORTED, NUMPY, random_dim
from tests.differential.oracle_batch import run_file
from tests.scale import examples

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-matmul-1"
EXAMPLES = examples(400)
BATCH_SIZE = 60
TYPES = ("f32",) * 8 + ("f16", "f64", "i32", "i64", "i8", "u8", "i16", "u16", "u32")
FLAGS = ("true", "false", "false", "1", "0", "True", "FALSE", "", "yes")
OVERFLOW_PRONE = 2.0**127


def _dims(rng: random.Random, rank: int) -> list[str]:
    return [random_dim(rng) if rng.random() < 0.25 else str(rng.randint(1, 5)) for _ in range(rank)]


def _inner(rng: random.Random, dim: str) -> str:
    """The second input's inner dim for the first's `dim`: mostly the same."""
    return dim if rng.random() < 0.85 else rng.choice((random_dim(rng), str(rng.randint(1, 6))))


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    first = rng.choice(TYPES)
    second = first if rng.random() < 0.97 else rng.choice((*TYPES, "boolean"))
    if rng.random() < 0.02:
        first = second = "boolean"
    rank_a, rank_b = rng.choice((1, 2, 2, 2, 3, 4)), rng.choice((1, 2, 2, 2, 3))
    if rng.random() < 0.02:
        rank_a = 0
    flags = [rng.choice(FLAGS) for _ in range(2)]
    a = _dims(rng, rank_a)
    k = str(rng.randint(1, 40)) if rng.random() < 0.8 else random_dim(rng)
    if rank_a:
        a[-1 if rank_a == 1 or flags[0] not in ("true", "1", "True") else -2] = k
    b = _dims(rng, rank_b)
    if rank_b:
        transposed = rank_b > 1 and flags[1] in ("true", "1", "True")
        b[-1 if rank_b == 1 or transposed else -2] = _inner(rng, k)
    batch_a = a[: max(rank_a - 2, 0)]
    for i in range(rank_b - 2):  # mostly the first input's batch dim, or 1
        j = len(batch_a) - (rank_b - 2) + i
        if j >= 0 and rng.random() < 0.8:
            b[i] = rng.choice((batch_a[j], batch_a[j], "1"))
    shapes = ("..." if rng.random() < 0.03 else ",".join(a), ",".join(b))
    attrs = tuple(
        (name, flag) for name, flag in zip(("transpose_a", "transpose_b"), flags, strict=True)
        if flag or rng.random() < 0.5
    )  # fmt: skip
    constant = all(d.isdigit() for d in b) and rng.random() < 0.35
    return Config(index, "MatMul", (first, second), shapes, constant, attrs)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("matmul")
    return check_shapes(core, directory, [random_config(i) for i in range(EXAMPLES)])


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        counts["accepted" if outcome.output else "rejected"] += 1
        runs = outcome.output is not None and config.static and not ignored_flag(config)
        counts["runs"] += runs
        counts["runs on integers"] += runs and config.types[0] not in ("f32", "f16", "f64")
        counts["Const weights"] += runs and config.constant
        counts["1-D"] += runs and any(s.count(",") == 0 and s for s in config.shapes)
        counts["batched"] += runs and any(s.count(",") >= 2 for s in config.shapes)
        counts["transposed"] += runs and ("transpose_b", "true") in config.attrs
        counts["non-static output"] += outcome.output is not None and "-1" in (
            outcome.output[1] or ["-1"]
        )
    minimum = {"accepted": EXAMPLES // 2, "rejected": EXAMPLES // 20, "runs": EXAMPLES // 3}
    minimum |= {"runs on integers": EXAMPLES // 20, "Const weights": EXAMPLES // 15}
    minimum |= {"1-D": EXAMPLES // 20, "batched": EXAMPLES // 20, "transposed": EXAMPLES // 20}
    minimum |= {"non-static output": EXAMPLES // 8}
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problems]
    shown = "\n".join(f"{o.config.describe()}: {o.problems[0]}" for o in failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"


def matmul_input(seed: int, element_type: str, shape: tuple[int, ...]) -> NDArray[Any]:
    """Normal values; in two configurations of three, a few NaN, ±inf, ±0 and huge values;
    integers small enough for f32 sums to stay exact, 8-bit ones over their whole range."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(NUMPY[element_type])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        wide = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        small = rng.integers(-9 if dtype.kind == "i" else 0, 10, size=shape).astype(dtype)
        if dtype.itemsize == 8:  # the CPU keeps the low 32 bits
            small = small + (rng.integers(0, 2, size=shape) << 40).astype(dtype)
        return np.where(rng.random(shape) < (0.5 if dtype.itemsize == 1 else 0), wide, small)
    if dtype == np.bool_:
        return rng.random(shape) < 0.3
    values = rng.normal(0, rng.choice((1.0, 30.0)), size=shape)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 3e38, -3e38, 1e-42, 7e4])
    share = rng.choice((0.0, 0.01, 0.05))
    picked = specials[rng.integers(0, len(specials), size=shape)]
    with np.errstate(over="ignore"):
        return np.where(rng.random(shape) < share, picked, values).astype(dtype)


def _inputs(config: Config) -> tuple[NDArray[Any], NDArray[Any]]:
    arrays = []
    for position in (0, 1):
        shape = tuple(int(d) for d in config.shapes[position].split(",") if d)
        seed = config.index + 1_000_000 * position
        arrays.append(matmul_input(seed, config.types[position], shape))
    return arrays[0], arrays[1]


def _oriented(config: Config, a: NDArray[Any], b: NDArray[Any]) -> tuple[NDArray[Any], ...]:
    flags = dict(config.attrs)
    out = []
    for value, name in ((a, "transpose_a"), (b, "transpose_b")):
        flag = flags.get(name, "false").lower() in ("true", "1")
        out.append(np.swapaxes(value, -1, -2) if flag and value.ndim > 1 else value)
    return tuple(out)


def agrees(config: Config, ours: NDArray[Any], theirs: NDArray[Any]) -> bool:
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    if theirs.dtype.kind != "f":
        return bool(np.array_equal(ours, theirs))
    x, y = _oriented(config, *_inputs(config))
    with np.errstate(all="ignore"):  # inf and NaN are values here
        spread = np.matmul(np.abs(x.astype(np.float64)), np.abs(y.astype(np.float64)))
        prone = spread >= OVERFLOW_PRONE
        allowed = 1e-6 * spread
        if theirs.dtype == np.float16:
            allowed += np.abs(np.spacing(theirs.astype(np.float16))).astype(np.float64)
        gap = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
        checked = ~prone
        same_nan = np.isnan(ours) == np.isnan(theirs)
        finite = np.isfinite(theirs)
        close = np.where(finite, gap <= allowed, (ours == theirs) | np.isnan(theirs))
    return bool(np.all((same_nan & close)[checked]))


def ignored_flag(config: Config) -> bool:
    """A flag OpenVINO ignores (`yes`, ""): an error irpool refuses to run (IR205)."""
    return any(value.lower() not in ("true", "false", "1", "0") for _, value in config.attrs)


def uncompiled(config: Config) -> bool:
    """The known gap: the CPU plugin cannot compile some MatMuls with an empty input and a
    transpose flag set ("object is not initialized"; which ones depends on whether an input is
    a Const), which irpool validates and runs: such configurations are checked for shapes."""
    flagged = any(value.lower() in ("true", "1") for _, value in config.attrs)
    return flagged and any("0" in shape.split(",") for shape in config.shapes)


def test_runs_match_openvino(
    outcomes: list[Outcome], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    core = ov.Core()
    # The weights written as Consts: this test's values, not the elementwise ops'.
    monkeypatch.setattr(arithmetic_cases, "second_input", lambda config: _inputs(config)[1])
    runnable = [
        (o.config, o.output)
        for o in outcomes
        if o.output is not None
        and o.config.static
        and set(o.config.types) <= set(NUMPY)
        and not ignored_flag(o.config)
        and not uncompiled(o.config)
    ]
    failing: list[str] = []
    for start in range(0, len(runnable), BATCH_SIZE):
        batch = runnable[start : start + BATCH_SIZE]
        path = write(tmp_path, f"run{start}", batch)
        inputs: dict[str, NDArray[Any]] = {}
        for config, _ in batch:
            a, b = _inputs(config)
            inputs[f"in0_{config.index}"] = a
            if not config.constant:
                inputs[f"in1_{config.index}"] = b
        ours, theirs = run_file(core, path, inputs)
        failing += [
            f"{config.describe()}: irpool {ours[f'out{config.index}'].ravel()[:4]}, "
            f"CPU {theirs[f'out{config.index}'].ravel()[:4]}"
            for config, _ in batch
            if not agrees(config, ours[f"out{config.index}"], theirs[f"out{config.index}"])
        ]
    shown = "\n".join(failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(runnable)} runs differ:\n{shown}"


@pytest.mark.parametrize("seed", range(3))
def test_decompressed_weights_match_openvino(seed: int, tmp_path: Path) -> None:
    """Weights as `save_model` writes them by default, an f16 Const behind a decompression
    Convert, here holding inf and NaN (its own compression saturates them to ±65504 and
    drops NaN, so the Const is built in f16); batched, 1-D and transposed products."""
    from openvino import opset13

    rng = np.random.default_rng(seed)
    weights = rng.normal(0, 10, (6, 24, 10)).astype(np.float16)
    weights[1, 3, 4], weights[4, 7, 2], weights[2, 9, 9] = np.inf, -np.inf, np.nan
    for shape, transpose in (((6, 3, 24), False), ((24,), False), ((2, 6, 10, 24), True)):
        parameter = opset13.parameter(shape, np.float32)
        used = weights if not transpose else np.swapaxes(weights, -1, -2).copy()
        decompressed = opset13.convert(opset13.constant(used), "f32")
        node = opset13.matmul(parameter, decompressed, False, transpose)
        model = ov.Model([node], [parameter])
        path = tmp_path / f"linear{len(shape)}.xml"
        ov.save_model(model, path, compress_to_fp16=False)
        x = rng.normal(0, 1, shape).astype(np.float32)
        x.reshape(-1)[rng.integers(0, x.size)] = np.nan
        name = model.input(0).get_any_name()
        (ours,) = irpool.load(path).run({name: x}).values()
        theirs = ov.Core().compile_model(path, "CPU", CPU_CONFIG)({name: x})[0]
        y = np.swapaxes(used, -1, -2) if transpose else used
        with np.errstate(all="ignore"):
            expected = np.matmul(x.astype(np.float64), y.astype(np.float64))
            bound = 1e-6 * np.matmul(np.abs(x.astype(np.float64)), np.abs(y.astype(np.float64)))
        assert np.array_equal(np.isnan(ours), np.isnan(theirs))
        assert np.array_equal(np.isnan(ours), np.isnan(expected))
        assert np.array_equal(ours[np.isinf(theirs)], theirs[np.isinf(theirs)])
        finite = np.isfinite(theirs)
        gap = np.abs(ours[finite] - theirs[finite].astype(np.float64))
        assert np.all(gap <= bound[finite])
