"""Live differential test: Interpolate-1, -4 and -11 against OpenVINO
(tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) resizes data of rank 2 to 5 (rank 4 mostly; static,
dynamic or interval dims) of f32, f16, f64, u8, i8 or i32 in every mode, coordinate
transformation mode, nearest mode, shape calculation mode, with antialias, pads and
cube_coeff drawn, along axes given as a Const (the last two mostly; sometimes none, one or
three) or left out; sizes and scales are Consts of the right type mostly (sometimes a wrong
type, too few, 2-D, an axis out of range) and, in a tenth of the configurations, a Parameter
fed at run time. Interpolate-1 draws its `axes`, `align_corners` and `mode` (`area` too).

Shapes: `read_model` is the oracle; where the CPU plugin cannot compile (or computes
undefined values) irpool must report IR623-IR625. Runs (accepted, static): batches on the
CPU plugin (f32 inference precision) on seeded inputs holding NaN, ±inf, ±0 and huge
values (finite only where the docs page says where NaN goes is not modelled: cubic outside
rank 4, linear_onnx at rank 3, resizes of axis 0 or 1). Nearest must be equal bit for bit;
the weighted modes within 1e-5 of the input's largest magnitude plus one unit in the last
place of the output, u8 and i8 within 1, with NaN and ±inf where the CPU puts them
(docs/ops/Interpolate.md#numerics-and-tolerances).
IRPOOL_TEST_SCALE scales the number of configurations (default 300).
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
from tests.differential.harness import CPU_CONFIG, MAX_REPORTED, PER_OP
from tests.differential.single_layer import (
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

SEED = "irpool-differential-interpolate-1"
BATCH_SIZE = 40
TYPES = ("f32", "f32", "f32", "f32", "f16", "f64", "u8", "i8", "i32")
MODES = {
    "opset1": ("nearest", "linear", "cubic", "nearest", "linear", "area"),
    "opset4": ("nearest", "nearest", "linear", "linear_onnx", "cubic"),
    "opset11": ("nearest", "nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow",
                "bicubic_pillow"),
}  # fmt: skip
COORDINATES = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn",
               "align_corners")  # fmt: skip
NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
SCALES = (0.5, 0.7, 1.0, 1.5, 2.0, 2.0, 2.5, 3.0, 1 / 3, 4 / 3, 0.25)


def _axes(rng: random.Random, rank: int) -> list[int]:
    kind = rng.random()
    if kind < 0.6 or rank < 2:
        return list(range(max(rank - 2, 0), rank))
    if kind < 0.75:
        return [rank - 1] if rng.random() < 0.5 else [rank - 2]
    return sorted(rng.sample(range(rank), rng.randint(1, min(rank, 3))))


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    version = rng.choice(("opset11", "opset11", "opset4", "opset4", "opset1"))
    rank = rng.choice((4, 4, 4, 4, 3, 5, 2))
    dims = random_shape(rng, rank) if rng.random() < 0.3 else [str(rng.randint(1, 6))
                                                                for _ in range(rank)]  # fmt: skip
    data = Source(rng.choice(TYPES), ",".join(dims))
    mode = rng.choice(MODES[version])
    axes = _axes(rng, rank)
    pads = [rng.choice((0, 0, 1, 2)) if rng.random() < 0.2 else 0 for _ in range(rank)]
    pads_end = [rng.choice((0, 1)) if p else 0 for p in pads]
    sizes = [rng.randint(1, 12) for _ in axes]
    if version == "opset1":
        attrs = (("axes", ",".join(map(str, axes))), ("mode", mode),
                 ("align_corners", rng.choice(("false", "false", "true"))),
                 ("antialias", "false"), ("pads_begin", ",".join(map(str, pads))),
                 ("pads_end", ",".join(map(str, pads_end))))  # fmt: skip
        kind = rng.choice(("i64", "i64", "i32", "f32" if rng.random() < 0.1 else "i64"))
        fed = not any(pads + pads_end) and 0 not in axes
        return Config(index, "Interpolate", version, attrs, (data, _control(rng, kind, sizes, fed)))
    by_scales = rng.random() < 0.5
    attrs = (("mode", mode), ("shape_calculation_mode", "scales" if by_scales else "sizes"),
             ("coordinate_transformation_mode", rng.choice(COORDINATES)),
             ("nearest_mode", rng.choice(NEAREST)),
             ("antialias", "true" if rng.random() < 0.2 else "false"),
             ("pads_begin", ",".join(map(str, pads))), ("pads_end", ",".join(map(str, pads_end))),
             ("cube_coeff", rng.choice(("-0.75", "-0.75", "-0.5"))))  # fmt: skip
    with_axes = rng.random() < 0.85
    counted = axes if with_axes else list(range(rank))
    scales = [rng.choice(SCALES) if a in axes else 1.0 for a in counted]
    if not with_axes:
        sizes = [rng.randint(1, 12) if a in axes else -1 for a in counted]
        sizes = [
            s if s >= 0 else int(d) if d.isdigit() else 3 for s, d in zip(sizes, dims, strict=True)
        ]
    too_few = rng.random() < 0.04
    if too_few:
        scales, sizes = scales[:-1], sizes[:-1]
    # Fed only where the CPU runs them: it reads past too few, a run-time resize of axis 0
    # may fail (padded: corrupt memory), pads with one of axis 0 or 1 land on other axes, as
    # IR623 says of Consts.
    padded = any(pads) and min(axes) < 2
    fed = not too_few and not padded and 0 not in axes
    size_type = "i64" if rng.random() < 0.95 else rng.choice(("f32", "i8", "u32"))
    scale_type = "f32" if rng.random() < 0.95 else rng.choice(("i32", "f16"))
    size_source = _control(rng, size_type, sizes, fed)
    scale_source = _control(rng, scale_type, scales, fed)
    controls: list[Source] = (
        [size_source, scale_source] if version == "opset4"
        else [scale_source if by_scales else size_source]
    )  # fmt: skip
    if with_axes:
        if rng.random() < 0.03:
            axes = [*axes[:-1], rank]
        axis_type = "i64" if rng.random() < 0.95 else rng.choice(("i32", "f32"))
        controls.append(Source(axis_type, str(len(axes)), tuple(map(float, axes))))
    return Config(index, "Interpolate", version, attrs, (data, *controls))


def _control(rng: random.Random, kind: str, values: list[Any], fed: bool = True) -> Source:
    """Sizes or scales: a Const (2-D sometimes) or, a tenth of the time, a fed Parameter."""
    numbers = tuple(map(float, values))
    if rng.random() < 0.1 and kind in ("i64", "i32", "f32") and fed:
        return Source(kind, str(len(numbers)), None, numbers)
    shape = f"1,{len(numbers)}" if rng.random() < 0.03 else str(len(numbers))
    return Source(kind, shape, numbers)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("interpolate"), configs, data_type)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        accepted = outcome.outputs is not None and outcome.config.static
        attrs = dict(outcome.config.attrs)
        counts[f"runs {outcome.config.version}"] += accepted
        counts[f"runs {attrs['mode']}"] += accepted
        counts["refused by the CPU"] += outcome.outputs is not None and outcome.strict
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 30, "runs": PER_OP // 4}
    minimum |= {f"runs opset{v}": PER_OP // 20 for v in (1, 4, 11)}
    minimum |= {f"runs {m}": PER_OP // 60 for m in ("nearest", "linear", "cubic", "linear_onnx")}
    minimum |= {"runs bilinear_pillow": 1, "runs bicubic_pillow": 1}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def places_nan(config: Config) -> bool:
    """Whether the docs page says where the CPU puts NaN for this configuration: nearest and
    Pillow always; linear, linear_onnx and cubic when they resize only axes 2 and on of a
    tensor of rank 4 or 5 (cubic: rank 4), or any axis of rank 2."""
    attrs = dict(config.attrs)
    rank = len(config.inputs[0].dims)
    if attrs["mode"] in ("nearest", "bilinear_pillow", "bicubic_pillow"):
        return True
    if config.version == "opset1":
        axes = [int(a) for a in attrs["axes"].split(",") if a]
    elif len(config.inputs) == (4 if config.version == "opset4" else 3):
        axes = [int(a) for a in config.inputs[-1].values or ()]
    else:
        return False
    if attrs["mode"] == "cubic":
        return rank == 4 and set(axes) <= {2, 3}
    return rank == 2 or (rank in (4, 5) and min(axes, default=2) >= 2)


def run_input(config: Config) -> NDArray[Any]:
    """The seeded data input; made finite where NaN placement is not modelled, and below
    1e30 for the weighted modes (a sum that overflows float32 comes out inf or NaN by the
    order of the CPU's multiply-adds)."""
    x = data_input(config, 0)
    if x.dtype.kind == "f" and dict(config.attrs)["mode"] != "nearest":
        x = np.where(np.abs(x.astype(np.float64)) > 1e30, 0, x).astype(x.dtype)
    if x.dtype.kind == "f" and not places_nan(config):
        x = np.where(np.isfinite(x), x, 0).astype(x.dtype)
    return x


def agrees(config: Config, ours: NDArray[Any], theirs: NDArray[Any], x: NDArray[Any]) -> bool:
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    if dict(config.attrs)["mode"] == "nearest":
        return ours.tobytes() == theirs.tobytes()
    a, b = ours.astype(np.float64), theirs.astype(np.float64)
    if x.dtype.kind in "iu" and x.dtype.itemsize == 1:
        return bool(np.all(np.abs(a - b) <= 1))
    if not np.array_equal(np.isnan(a), np.isnan(b)) or not np.array_equal(
        np.where(np.isinf(a), a, 0), np.where(np.isinf(b), b, 0)
    ):
        return False
    finite = np.abs(x[np.isfinite(x)].astype(np.float64))
    scale = max(1.0, float(finite.max()) if finite.size else 1.0)
    both = np.isfinite(a) & np.isfinite(b)
    ulp = np.spacing(np.abs(theirs[both])).astype(np.float64) if ours.dtype.kind == "f" else 0
    return bool(np.all(np.abs(a[both] - b[both]) <= 1e-5 * scale + ulp))


def modelled(config: Config) -> bool:
    """Not run: an empty input resized to a non-empty output (the CPU returns whatever memory
    held) and cubic at rank 5, which the CPU runs in OpenVINO's reference code
    (docs/ops/Interpolate.md#known-differences)."""
    data = config.inputs[0]
    rank5_cubic = dict(config.attrs)["mode"] == "cubic" and len(data.dims) == 5
    return 0 not in data.dims and not rank5_cubic


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    runnable = [
        (o.config, o.outputs)
        for o in outcomes
        if o.outputs is not None and not o.strict and o.config.static and modelled(o.config)
    ]
    core = ov.Core()
    problems: list[str] = []
    for start in range(0, len(runnable), BATCH_SIZE):
        batch = runnable[start : start + BATCH_SIZE]
        problems += _batch_problems(core, write(tmp_path, f"run{start}", batch), batch)
    shown = "\n".join(problems[:MAX_REPORTED])
    assert not problems, f"{len(problems)} of {len(runnable)} runs differ:\n{shown}"


def _batch_problems(core: Any, path: Path, batch: list[tuple[Config, Outputs | None]]) -> list[str]:
    inputs: dict[str, NDArray[Any]] = {}
    for config, _ in batch:
        inputs[f"in0_{config.index}"] = run_input(config)
        for position, source in enumerate(config.inputs[1:], 1):
            if source.values is None:
                inputs[f"in{position}_{config.index}"] = data_input(config, position)
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    results = compiled.create_infer_request().infer(inputs)
    theirs = {port.get_any_name(): value for port, value in results.items()}
    ours = irpool.load(path).run(dict(inputs))
    problems = []
    for config, _ in batch:
        name, x = f"out0_{config.index}", inputs[f"in0_{config.index}"]
        with np.errstate(all="ignore"):
            good = agrees(config, ours[name], theirs[name], x)
        if not good:
            problems.append(
                f"{config.describe()}: irpool {ours[name].ravel()[:6]} {ours[name].shape}, "
                f"CPU {theirs[name].ravel()[:6]} {theirs[name].shape}"
            )
    return problems
