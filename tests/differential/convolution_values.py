"""What the live comparisons of the convolution families share: seeded filters and data
(a third of the float data NaN, ±inf, ±0; integer values small, exact in f32), the magnitudes
a bound is taken of, and the per-output agreement with the CPU (NaN and ±inf exactly, finite
values within a bound), and the batched run of both runtimes that compares them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests.differential.harness import CPU_CONFIG, NUMPY

F32_MAX = float(np.finfo(np.float32).max)


class Convolved(Protocol):
    """A configuration of data and filters (any of the convolution families')."""

    index: int
    element_type: str
    data: str
    filters: tuple[int, ...]

    def describe(self) -> str: ...


class Run(Protocol):
    """A configuration that compiles, and the output shape its layer declares."""

    @property
    def config(self) -> Any: ...

    @property
    def output(self) -> list[str] | None: ...


# The writer of a batch's IR file, a configuration's feeds (by input name), and the judge of
# one output: a mask of agreeing elements, or None where the CPU's values are no reference.
Write = Callable[[Path, str, list[tuple[Any, Any]]], Path]
Feeds = Callable[[Any], dict[str, NDArray[Any]]]
Judge = Callable[[Any, NDArray[Any], NDArray[Any]], "NDArray[np.bool_] | None"]


def filter_values(config: Convolved) -> NDArray[Any]:
    rng = np.random.default_rng(config.index + 1_000_000)
    dtype = np.dtype(NUMPY[config.element_type])
    if dtype.kind in "iu":
        low = -5 if dtype.kind == "i" else 0
        return rng.integers(low, 6, size=config.filters).astype(dtype)
    values = rng.normal(0, 1, size=config.filters)
    if rng.random() < 0.2:  # a non-finite weight, multiplied with data and padding alike
        values.ravel()[rng.integers(0, values.size)] = rng.choice((np.inf, -np.inf, np.nan))
    return values.astype(dtype)


def data_values(config: Convolved) -> NDArray[Any]:
    shape = tuple(int(d) for d in config.data.split(","))
    rng = np.random.default_rng(config.index)
    dtype = np.dtype(NUMPY[config.element_type])
    if dtype.kind in "iu":
        low = -20 if dtype.kind == "i" else 0
        return rng.integers(low, 21, size=shape).astype(dtype)
    values = rng.normal(0, rng.choice((1.0, 10.0)), size=shape)
    if rng.random() < 0.35:
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])
        picked = specials[rng.integers(0, len(specials), size=shape)]
        values = np.where(rng.random(shape) < 0.05, picked, values)
    return values.astype(dtype)


def finite_abs(values: NDArray[Any]) -> NDArray[np.float64]:
    """|values| as the CPU computes with them (f64 saturated to the f32 range, inf and NaN
    as 0: a finite output has only finite products)."""
    wide = values.astype(np.float64)
    if values.dtype == np.float64:
        wide = np.clip(wide, -F32_MAX, F32_MAX)
    wide = wide.astype(np.float32).astype(np.float64)
    return np.where(np.isfinite(wide), np.abs(wide), 0.0)


def agrees(ours: NDArray[Any], theirs: NDArray[Any], bound: NDArray[Any]) -> NDArray[np.bool_]:
    """Per output: irpool's value is the CPU's (NaN, ±inf exactly; finite within `bound`)."""
    if theirs.dtype.kind in "iu":
        return np.asarray(ours == theirs)
    a, b = ours.astype(np.float64), theirs.astype(np.float64)
    finite = np.isfinite(b)
    if theirs.dtype == np.float16:  # the CPU rounds its f32 sums to f16, as irpool does
        bound = bound + np.abs(np.spacing(theirs)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        close = finite & np.isfinite(a) & (np.abs(a - b) <= bound)
    same = ~finite & ((np.isnan(a) & np.isnan(b)) | (a == b))
    return np.asarray(close | same)


def differing_runs(
    runnable: Sequence[Run], directory: Path, write: Write, feeds: Feeds, judge: Judge,
    batch_size: int,
) -> list[str]:  # fmt: skip
    """Run the configurations in batches (one model each) on irpool and on the CPU plugin;
    a line for each output that differs in shape, type or (by `judge`) values."""
    ov = pytest.importorskip("openvino")
    core = ov.Core()
    failing: list[str] = []
    for start in range(0, len(runnable), batch_size):
        batch = runnable[start : start + batch_size]
        path = write(
            directory, f"run{start}", [(r.config, (r.config.element_type, r.output)) for r in batch]
        )
        inputs: dict[str, NDArray[Any]] = {}
        for run in batch:
            inputs.update(feeds(run.config))
        ours = irpool.load(path).run(dict(inputs))
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        results = compiled.create_infer_request().infer(inputs)
        theirs = {port.get_any_name(): value for port, value in results.items()}
        for run in batch:
            config, name = run.config, f"out{run.config.index}"
            mine, cpu = ours[name], theirs[name]
            if mine.shape != cpu.shape or mine.dtype != cpu.dtype:
                failing.append(
                    f"{config.describe()}: {mine.shape} {mine.dtype}, CPU {cpu.shape} {cpu.dtype}"
                )
                continue
            good = judge(config, mine, cpu)
            if good is not None and not good.all():
                wrong = ~good
                failing.append(
                    f"{config.describe()}: {wrong.sum()} of {wrong.size} differ: irpool "
                    f"{mine[wrong][:4]}, CPU {cpu[wrong][:4]}"
                )
    return failing
