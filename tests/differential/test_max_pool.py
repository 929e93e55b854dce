"""Live differential test of MaxPool-1/-8/-14: `irpool run` against OpenVINO's CPU plugin.

Configuration #n is drawn from a generator seeded with its index (`random_config(n)`): rank
3-5, batch and channels up to 2 and 3, every rounding and auto_pad, dilations, pads that
reach past the kernel (windows entirely in the padding), `axis` over the whole range, i32/i64
indices, seven element types, inputs with few distinct values (ties) and, in a share of the
float inputs, NaN and ±inf; i32 and i64 inputs sit near 0, 2**24, 2**31 or (i64) 2**40, where
the oneDNN path's f32 rounding and the int32 wrap show. About a quarter of the MaxPool-8/14
leave the indices output unused, which sends the CPU plugin down its other (oneDNN) path.
Configurations the builders refuse are skipped. `BATCH_SIZE` pools share one model
(Parameter `in<n>` -> MaxPool -> Results `values<n>` and `indices<n>`), saved with
`ov.save_model`; irpool runs the file, the CPU plugin (f32 inference precision, one thread)
compiles the same file. Values and indices must be equal exactly (NaN where NaN). All
mismatches are reported together.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset8 = pytest.importorskip("openvino.opset8")
opset14 = pytest.importorskip("openvino.opset14")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

CONFIG_COUNT = 1300  # about 1,200 build
SEED = "irpool-differential-max-pool-1"
BATCH_SIZE = 60
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
DTYPES = {
    "f32": (np.float32, 55), "f16": (np.float16, 10), "f64": (np.float64, 5),
    "i32": (np.int32, 10), "i64": (np.int64, 5), "i8": (np.int8, 8), "u8": (np.uint8, 7),
}  # fmt: skip
VERSIONS = {1: 20, 8: 35, 14: 45}
AUTO_PADS = {"explicit": 70, "same_upper": 10, "same_lower": 10, "valid": 10}

Array = NDArray[Any]


@dataclass(frozen=True)
class Config:
    index: int
    version: int
    shape: tuple[int, ...]
    dtype: str
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    rounding: str
    auto_pad: str
    axis: int
    index_type: str
    uses_indices: bool
    non_finite: bool

    def describe(self) -> str:
        return (
            f"#{self.index} MaxPool-{self.version} {self.dtype}{list(self.shape)} "
            f"k={list(self.kernel)} s={list(self.strides)} d={list(self.dilations)} "
            f"pads={list(self.pads_begin)}/{list(self.pads_end)} {self.rounding} "
            f"{self.auto_pad} axis={self.axis} {self.index_type} indices={self.uses_indices}"
        )


def _weighted(rng: random.Random, weights: dict[Any, int]) -> Any:
    return rng.choices(list(weights), list(weights.values()))[0]


def random_config(index: int) -> Config:
    """Configuration #index; the same on every run and platform (string seeds are hashed)."""
    rng = random.Random(f"{SEED}:{index}")
    version = _weighted(rng, VERSIONS)
    spatial = rng.choices([1, 2, 3], [40, 40, 20])[0]
    largest = {1: 9, 2: 7, 3: 5}[spatial]
    sizes = tuple(rng.randint(1, largest) for _ in range(spatial))
    shape = (rng.randint(1, 2), rng.randint(1, 3), *sizes)

    def per_axis(low: int, high: int) -> tuple[int, ...]:
        return tuple(rng.randint(low, high) for _ in range(spatial))

    dilated = version >= 8 and rng.random() < 0.4
    roundings = ["floor", "ceil", "ceil_torch"] if version >= 14 else ["floor", "ceil"]
    return Config(
        index=index,
        version=version,
        shape=shape,
        dtype=_weighted(rng, {name: weight for name, (_, weight) in DTYPES.items()}),
        kernel=per_axis(1, 4),
        strides=per_axis(1, 3),
        dilations=per_axis(1, 3) if dilated else (1,) * spatial,
        pads_begin=per_axis(0, 3),
        pads_end=per_axis(0, 3),
        rounding=rng.choice(roundings),
        auto_pad=_weighted(rng, AUTO_PADS),
        axis=rng.randint(-len(shape), len(shape) - 1),
        index_type=rng.choice(["i32", "i64"]),
        uses_indices=version >= 8 and rng.random() < 0.75,
        non_finite=rng.random() < 0.3,
    )


def max_pool_node(config: Config, parameter: Any) -> Any | None:
    """The MaxPool of `config` on `parameter`, or None when OpenVINO's builder refuses it."""
    common = (config.pads_begin, config.pads_end, config.kernel, config.rounding, config.auto_pad)
    try:
        if config.version == 1:
            return opset1.max_pool(parameter, config.strides, *common)
        builder = opset8 if config.version == 8 else opset14
        return builder.max_pool(
            parameter, config.strides, config.dilations, *common, config.index_type,
            config.axis,
        )  # fmt: skip
    except Exception:  # the builders run shape inference and raise what it refuses
        return None


def build(config: Config, name: str) -> tuple[Any, list[Any]] | None:
    """The Parameter and the outputs to return, or None when the builder refuses."""
    parameter = opset1.parameter(list(config.shape), DTYPES[config.dtype][0], name=name)
    parameter.output(0).get_tensor().set_names({name})
    pool = max_pool_node(config, parameter)
    if pool is None:
        return None
    outputs = [pool.output(0)]
    if config.uses_indices:
        outputs.append(pool.output(1))
    return parameter, outputs


def sample(config: Config) -> Array:
    rng = np.random.default_rng(config.index)
    dtype = DTYPES[config.dtype][0]
    low = 0 if config.dtype == "u8" else -4
    if config.dtype in ("i32", "i64"):  # values f32 cannot hold, near and beyond int32's top
        tops = [0, 2**24 + 1, 2**31 - 12, *([2**40 + 3] * (config.dtype == "i64"))]
        low += int(rng.choice(tops))
    x = rng.integers(low, low + 8, config.shape).astype(dtype)
    if config.non_finite and np.dtype(dtype).kind == "f":
        roll = rng.random(config.shape)
        x[roll < 0.1] = np.nan
        x[(roll >= 0.1) & (roll < 0.15)] = -np.inf
        x[(roll >= 0.15) & (roll < 0.2)] = np.inf
    return x


@dataclass
class Outcome:
    built: list[Config]
    skipped: int
    mismatches: list[str]


def batches() -> Iterator[list[Config]]:
    configs = [random_config(index) for index in range(CONFIG_COUNT)]
    for start in range(0, CONFIG_COUNT, BATCH_SIZE):
        yield configs[start : start + BATCH_SIZE]


def run_batch(core: Any, directory: Path, configs: list[Config], outcome: Outcome) -> None:
    parameters, results, inputs, built = [], [], {}, []
    for config in configs:
        made = build(config, f"in{config.index}")
        if made is None:
            outcome.skipped += 1
            continue
        parameter, outputs = made
        for kind, output in zip(("values", "indices"), outputs, strict=False):
            output.get_tensor().set_names({f"{kind}{config.index}"})
            results.append(opset1.result(output))
        parameters.append(parameter)
        inputs[f"in{config.index}"] = sample(config)
        built.append(config)
    path = directory / f"batch{configs[0].index}.xml"
    ov.save_model(ov.Model(results, parameters), path, compress_to_fp16=False)
    compiled = core.compile_model(path, "CPU", CPU_CONFIG)
    request = compiled.create_infer_request()
    request.infer({name: value for name, value in inputs.items()})
    expected = {o.get_any_name(): request.get_tensor(o).data.copy() for o in compiled.outputs}
    model = irpool.load(path)
    errors = [d for d in model.validate() if d.severity.value == "error"]
    if errors:
        outcome.mismatches.append(f"{path.name}: irpool reports {errors[:3]}")
        return
    got = model.run(inputs)
    for config in built:
        for kind in ("values", "indices")[: 1 + config.uses_indices]:
            key = f"{kind}{config.index}"
            if not np.array_equal(got[key], expected[key], equal_nan=kind == "values"):
                outcome.mismatches.append(
                    f"{config.describe()}: {kind}\n  irpool {got[key].ravel()[:24]}\n"
                    f"  cpu    {expected[key].ravel()[:24]}"
                )
    outcome.built.extend(built)


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("max_pool")
    result = Outcome([], 0, [])
    for configs in batches():
        run_batch(core, directory, configs, result)
    return result


def test_generator_covers_the_space(outcome: Outcome) -> None:
    assert len(outcome.built) >= 1000
    seen = Counter[str]()
    for config in outcome.built:
        seen.update(
            {
                f"MaxPool-{config.version}", config.dtype, config.rounding, config.auto_pad,
                f"rank{len(config.shape)}", f"axis{config.axis % len(config.shape)}",
                "batch>1" if config.shape[0] > 1 else "batch1",
                "indices" if config.uses_indices else "values only",
                "dilated" if max(config.dilations) > 1 else "undilated",
                "padding past the kernel"
                if any(p >= k for p, k in zip(config.pads_end, config.kernel, strict=True))
                else "pads inside the kernel",
            }
        )  # fmt: skip
    wanted = [
        "MaxPool-1", "MaxPool-8", "MaxPool-14", *DTYPES, "floor", "ceil", "ceil_torch",
        *AUTO_PADS, "rank3", "rank4", "rank5", "axis0", "axis1", "axis2", "axis3", "axis4",
        "batch>1", "indices", "values only", "dilated", "padding past the kernel",
    ]  # fmt: skip
    rare = {feature: seen[feature] for feature in wanted if seen[feature] < 10}
    assert not rare, f"features drawn fewer than 10 times: {rare}"


def test_irpool_matches_openvino(outcome: Outcome) -> None:
    shown = "\n".join(outcome.mismatches[:20])
    assert not outcome.mismatches, f"{len(outcome.mismatches)} mismatches:\n{shown}"


# --------------------------------------------------------------------------------------------
# Shapes: dynamic dims and intervals, against the builders' (OpenVINO's) shape inference
# --------------------------------------------------------------------------------------------

SHAPE_SEED = "irpool-differential-max-pool-shapes-1"
SHAPE_COUNT = 1500
SHAPE_BATCH = 150
DYNAMIC_DIMS = ("?", "1..10", "..7", "4..", "3..9", "2..5", "0..3")


def random_partial_shape(index: int) -> tuple[Config, str]:
    """Configuration #index with some of its dims made dynamic (the Parameter's shape)."""
    config = random_config(index + CONFIG_COUNT)
    rng = random.Random(f"{SHAPE_SEED}:{index}")
    if rng.random() < 0.05:
        return config, "..."  # dynamic rank
    dims = [rng.choice(DYNAMIC_DIMS) if rng.random() < 0.4 else str(size) for size in config.shape]
    return config, ",".join(dims)


@pytest.fixture(scope="module")
def shape_mismatches(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, list[str]]:
    directory = tmp_path_factory.mktemp("max_pool_shapes")
    checked, mismatches = 0, []
    for start in range(0, SHAPE_COUNT, SHAPE_BATCH):
        parameters, results, expected = [], [], {}
        for index in range(start, start + SHAPE_BATCH):
            config, shape = random_partial_shape(index)
            parameter = opset1.parameter(ov.PartialShape(f"[{shape}]"), np.float32)
            pool = max_pool_node(config, parameter)
            if pool is None:
                continue
            pool.set_friendly_name(f"pool{index}")
            parameters.append(parameter)
            results += [opset1.result(output) for output in pool.outputs()]
            expected[f"pool{index}"] = (
                f"{config.describe()} in [{shape}]",
                [str(output.get_partial_shape()) for output in pool.outputs()],
            )
        path = directory / f"shapes{start}.xml"
        ov.save_model(ov.Model(results, parameters), path, compress_to_fp16=False)
        model = irpool.load(path)
        # A dynamic-rank Parameter is refused by the CPU plugin (IR601), not by read_model.
        errors = [d for d in model.validate() if d.severity.value == "error" and d.code != "IR601"]
        mismatches += [f"{path.name}: {d.code} {d.message}" for d in errors[:5]]
        for layer_id, infos in model.checked.outputs.items():
            layer = model.graph.layers[layer_id]
            if layer.name in expected:
                label, shapes = expected.pop(layer.name)
                got = [str(info.shape) for info in infos]
                if got != shapes:
                    mismatches.append(f"{label}: irpool {got}, OpenVINO {shapes}")
                checked += 1
        mismatches += [f"{label}: irpool inferred nothing" for label, _ in expected.values()]
    return checked, mismatches


def test_shapes_match_openvino(shape_mismatches: tuple[int, list[str]]) -> None:
    checked, mismatches = shape_mismatches
    assert checked >= 1000
    shown = "\n".join(mismatches[:20])
    assert not mismatches, f"{len(mismatches)} mismatches:\n{shown}"
