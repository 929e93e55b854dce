"""Live differential test: ScaledDotProductAttention-13 against OpenVINO
(tests/differential/single_layer.py for the files and the shape verdicts).

Configuration #n (`random_config(n)`) is an attention of query, key and value of rank 3 to 6
(batch dims that broadcast, sometimes wrongly; static, dynamic or interval dims; E and S
sometimes unequal), causal or not, with no mask, a boolean or float mask of rank 0 to 4 (its
dims broadcasting into L and S, sometimes not; rank 1 refused) and sometimes a scale (a scalar
or [1]; [2] refused) of the query's type or another (refused), f32 mostly, f16, f64, bf16 and
integers too. The CPU's verdicts come from `read_model` (a mask widening key's S of 1 from
compiling: IR613).

Runs (static configurations): values randn at three magnitudes, a third of the
configurations with ±inf, NaN and ±0 among them (half of those 3e38 and -1e30 too), scales
among them 0, -1, inf and NaN. NaN and ±inf must be where the CPU has them; elsewhere
|irpool - CPU| at most
BOUND * (eps * (1 + A) * sum_j w_j |v_j| + FLT_MIN * sum_j |v_j|) per element, where w are
the weights of a float64 reference, A the row's largest |score| summed term by term
(scale * sum |q * k| + |mask|), eps 2**-24 (2**-11 for f16, whose intermediate values the
CPU partly keeps in f16), since the CPU's products and irpool's BLAS round differently;
elements whose sums may overflow in one order and not in another are not compared
(docs/ops/ScaledDotProductAttention.md). IRPOOL_TEST_SCALE scales the number of
configurations (default 300).
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
from tests.differential.harness import NUMPY, PER_OP
from tests.differential.single_layer import (
    BATCH_SIZE,
    CPU_CONFIG,
    MAX_REPORTED,
    Config,
    Outcome,
    Outputs,
    Source,
    assert_covers,
    assert_shapes_agree,
    data_input,
    data_type,
    outcomes_of,
    random_shape,
    write,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-sdpa-13"
TYPES = ("f32", "f32", "f32", "f32", "f32", "f16", "f64", "bf16")
EPS32 = 2.0**-24
EPS16 = 2.0**-11  # f16 data: the CPU keeps some intermediate values in f16 (measured)
F32_MAX = float(np.finfo(np.float32).max)
BOUND = 8  # measured: the largest ratio in 3,000 configurations was 3.02 (f32)
FLT_MIN = float(np.finfo(np.float32).tiny)  # the CPU flushes weights below it to 0
NON_FINITE = (np.nan, np.inf, -np.inf, 0.0, -0.0, 70.0, -87.0)
SPECIALS = (*NON_FINITE, 3e38, -1e30)


def _dims(rng: random.Random, sizes: list[int], static: bool) -> str:
    if static:
        return ",".join(map(str, sizes))
    return ",".join(d if rng.random() < 0.5 else str(s) for d, s in zip(
        random_shape(rng, len(sizes)), sizes, strict=True))  # fmt: skip


def _batch(rng: random.Random, batch: list[int]) -> list[int]:
    """Key's or value's batch dims: the query's, some 1, sometimes fewer or one wrong."""
    dims = [b if rng.random() < 0.8 else 1 for b in batch]
    if dims and rng.random() < 0.1:
        dims = dims[rng.randint(0, len(dims)) :]
    if dims and rng.random() < 0.04:
        dims[0] += 1
    return dims


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    static = rng.random() < 0.75
    kind = rng.choice(TYPES) if rng.random() < 0.97 else rng.choice(("i32", "u8"))
    batch = [rng.choice((1, 2, 3)) for _ in range(rng.choice((1, 2, 2, 2, 3, 4)))]
    if rng.random() < 0.03:
        batch = []  # rank 2: refused
    length, keys = rng.choice((1, 2, 3, 5, 7, 17)), rng.choice((1, 2, 3, 4, 6, 33))
    depth, value_depth = rng.choice((1, 2, 3, 8, 64)), rng.choice((1, 2, 3, 5))
    key_depth = depth if rng.random() < 0.95 else depth + 1
    value_keys = keys if rng.random() < 0.95 else keys + 1
    inputs = [
        Source(kind, _dims(rng, [*batch, length, depth], static)),
        Source(kind, _dims(rng, [*_batch(rng, batch), keys, key_depth], static)),
        Source(kind, _dims(rng, [*_batch(rng, batch), value_keys, value_depth], static)),
    ]
    count = rng.choice((3, 3, 4, 4, 4, 5))
    if count > 3:
        inputs.append(_mask(rng, kind, batch, length, keys, static))
    if count > 4:
        scale_type = kind if rng.random() < 0.95 else "f16" if kind != "f16" else "f32"
        shape = rng.choice(("", "", "1", "1", "2", "1,1") if rng.random() < 0.1 else ("", "1"))
        scale = rng.choice((0.125, 0.5, 1.0, 2.0, 0.3, 0.0, -1.0, np.inf, np.nan))
        size = max(1, int(np.prod([int(d) for d in shape.split(",") if d])))
        if rng.random() < 0.5:
            inputs.append(Source(scale_type, shape, None, (scale,) * size))
        else:
            inputs.append(Source(scale_type, shape, (scale,) * size))
    causal = rng.random() < 0.3
    attrs = (("causal", "true" if causal else "false"),) if rng.random() < 0.95 else ()
    return Config(index, "ScaledDotProductAttention", "opset13", attrs, tuple(inputs), 3)


def _mask(
    rng: random.Random, kind: str, batch: list[int], length: int, keys: int, static: bool
) -> Source:
    mask_type = "boolean" if rng.random() < 0.5 else kind if rng.random() < 0.95 else "i32"
    rank = rng.choice((0, 2, 2, 3, 4, 4)) if rng.random() < 0.97 else 1
    full = [*batch, length, keys]
    sizes = [d if rng.random() < 0.75 else 1 for d in full[len(full) - rank :]] if rank else []
    if sizes and rng.random() < 0.04:
        sizes[-1] += 1  # wider than key's S: refused, or IR613 where S is 1
    dims = _dims(rng, sizes, static)
    if mask_type == "boolean" and all(d.isdigit() for d in dims.split(",") if d):
        size = int(np.prod([int(d) for d in dims.split(",") if d], dtype=np.int64))
        return Source(mask_type, dims, None, tuple(float(rng.random() < 0.8) for _ in range(size)))
    return Source(mask_type, dims)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("sdpa"), configs, data_type)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        ok, inputs = outcome.outputs is not None, outcome.config.inputs
        counts["masked"] += ok and len(inputs) > 3
        counts["boolean mask"] += ok and len(inputs) > 3 and inputs[3].type == "boolean"
        counts["scaled"] += ok and len(inputs) > 4
        counts["causal"] += ok and ("causal", "true") in outcome.config.attrs
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 3}
    minimum |= {"masked": PER_OP // 5, "boolean mask": PER_OP // 10, "scaled": PER_OP // 20}
    assert_covers(outcomes, counts, minimum | {"causal": PER_OP // 10})


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def attention_input(config: Config, position: int) -> NDArray[Any]:
    """randn at one of three magnitudes; a third of the configurations hold specials, half
    of those not the huge finite ones (whose rows can overflow in one order only)."""
    source = config.inputs[position]
    if source.feed is not None or source.type not in ("f32", "f16", "f64"):
        return data_input(config, position)
    rng = np.random.default_rng(config.index * 8 + position)
    values = rng.normal(0, rng.choice((1.0, 3.0, 30.0)), size=source.dims)
    if config.index % 3 == 0:
        specials = SPECIALS if config.index % 6 == 0 else NON_FINITE
        picked = np.array(specials)[rng.integers(0, len(specials), size=source.dims)]
        values = np.where(rng.random(source.dims) < 0.05, picked, values)
    with np.errstate(over="ignore"):
        return values.astype(NUMPY[source.type])


def reference(
    arrays: list[NDArray[Any]], causal: bool
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
    """sum_j w_j |v_j|, the row magnitude A, sum_j |v_j| and whether a score's finite terms
    may overflow (float64, f32-saturated inputs)."""
    q, k, v = (np.clip(a.astype(np.float64), -3.4e38, 3.4e38) for a in arrays[:3])
    scale = float(arrays[4].reshape(-1)[0]) if len(arrays) > 4 else 1 / np.sqrt(q.shape[-1])
    with np.errstate(all="ignore"):
        terms = np.abs(scale) * (np.abs(q) @ np.abs(np.swapaxes(k, -1, -2)))
        scores = (q @ np.swapaxes(k, -1, -2)) * scale
        bias = np.zeros(scores.shape[-2:])
        masked = -F32_MAX if arrays[0].dtype == np.float64 else -np.inf  # as the CPU
        if causal:
            bias = np.where(np.triu(np.ones_like(bias, bool), 1), masked, 0.0)
        elif len(arrays) > 3:
            mask = arrays[3]
            bias = np.where(mask, 0.0, masked) if mask.dtype == bool else mask.astype(np.float64)
        if arrays[0].dtype == np.float64:
            bias = np.clip(bias, -F32_MAX, F32_MAX)
        scores = (scores + bias).astype(np.float32).astype(np.float64)  # -FLT_MAX absorbs
        open_ = np.isfinite(scores)
        size = np.where(open_, terms + np.abs(np.where(np.isfinite(bias), bias, 0)), 0)
        magnitude = np.max(size, axis=-1, keepdims=True, initial=0.0)
        shifted = scores - np.max(scores, axis=-1, keepdims=True)
        weights = np.exp(shifted)
        weights /= np.sum(weights, axis=-1, keepdims=True)
        spread = weights @ np.abs(v)
        finite = [  # the finite values the CPU multiplies (f64's inf is FLT_MAX to it)
            np.where(~np.isnan(a) if a.dtype == np.float64 else np.isfinite(a), np.abs(b), 0.0)
            for a, b in ((arrays[0], q), (arrays[1], k))
        ]
        factor = max(1.0, abs(scale)) if np.isfinite(scale) else 1.0  # before or after
        risk = factor * (finite[0] @ finite[1].swapaxes(-1, -2))
    overflows = np.max(risk, axis=-1, keepdims=True) >= F32_MAX / 2
    return spread, magnitude, np.sum(np.abs(v), axis=-2, keepdims=True), overflows


def agrees(
    ours: NDArray[Any], theirs: NDArray[Any], arrays: list[NDArray[Any]], causal: bool
) -> bool:
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    return bool(np.all(gaps(ours, theirs, arrays, causal) <= BOUND))


def gaps(
    ours: NDArray[Any], theirs: NDArray[Any], arrays: list[NDArray[Any]], causal: bool
) -> NDArray[np.float64]:
    """Each element's gap in units of the allowed error (inf: non-finite values differ; 0
    where a sum may overflow in one order and not in another, which is not compared)."""
    spread, magnitude, flushed, overflows = reference(arrays, causal)
    eps = EPS16 if theirs.dtype == np.float16 else EPS32
    with np.errstate(all="ignore"):
        unit = eps * (1 + magnitude) * spread + FLT_MIN * flushed
        if theirs.dtype == np.float16:  # and the final rounding's half ulp
            unit = unit + np.abs(np.spacing(theirs)).astype(np.float64) / BOUND
        gap = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
        gap = np.where(gap == 0, 0.0, gap / unit)
        ambiguous = np.broadcast_to(overflows | (spread >= F32_MAX / 2), gap.shape)
    differ = np.zeros(gap.shape, np.bool_)
    for where in (np.isnan, np.isposinf, np.isneginf):
        differ |= where(ours) != where(theirs)
    gap = np.where(np.isfinite(ours) & np.isfinite(theirs), gap, 0.0)
    return np.where(ambiguous, 0.0, np.where(differ, np.inf, gap))


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    core = ov.Core()
    runnable = [
        (o.config, o.outputs)
        for o in outcomes
        if o.outputs is not None and not o.strict and o.config.static
        and o.config.inputs[0].type in ("f32", "f16", "f64")
    ]  # fmt: skip
    problems: list[str] = []
    for start in range(0, len(runnable), BATCH_SIZE):
        batch = runnable[start : start + BATCH_SIZE]
        problems += _run_batch(core, tmp_path, start, batch)  # type: ignore[arg-type]
    shown = "\n".join(problems[:MAX_REPORTED])
    assert not problems, f"{len(problems)} of {len(runnable)} runs differ:\n{shown}"


def _run_batch(
    core: Any, directory: Path, start: int, runs: list[tuple[Config, Outputs]]
) -> list[str]:
    path = write(directory, f"run{start}", runs)
    batch = [config for config, _ in runs]
    arrays = {c.index: [attention_input(c, p) for p in range(len(c.inputs))] for c in batch}
    feed = {
        f"in{p}_{c.index}": arrays[c.index][p]
        for c in batch
        for p, source in enumerate(c.inputs)
        if source.values is None
    }
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    theirs = {
        port.get_any_name(): value
        for port, value in compiled.create_infer_request().infer(feed).items()
    }
    ours = irpool.load(path).run(dict(feed))
    problems = []
    for config in batch:
        name = f"out0_{config.index}"
        causal = ("causal", "true") in config.attrs
        values = [
            a if s.values is None else np.array(s.values, a.dtype).reshape(s.dims)
            for a, s in zip(arrays[config.index], config.inputs, strict=True)
        ]
        if not agrees(ours[name], theirs[name], values, causal):
            gap = np.abs(ours[name].astype(np.float64) - theirs[name]).ravel()
            problems.append(
                f"{config.describe()}: irpool {ours[name].ravel()[:4]}, CPU "
                f"{theirs[name].ravel()[:4]}, largest gap {np.nanmax(gap, initial=0)}"
            )
    return problems
