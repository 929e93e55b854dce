"""Live differential test: `irpool run` against OpenVINO's CPU plugin on random configurations.

Every configuration is one pool (AvgPool-1/-14/-16 or AdaptiveAvgPool-8 with a Const
output_size) built with OpenVINO's Python op builders from attributes drawn by a generator seeded
with the configuration's index, so configuration #n can be rebuilt alone with `random_config(n)`.
Configurations the builders refuse (shape inference rejects them) are skipped. To amortize the
compile, up to `BATCH_SIZE` independent pools share one model (Parameter `in<n>` -> pool ->
Result `out<n>` each), written with `ov.save_model` into tmp_path. irpool runs the saved file;
the CPU plugin compiles the same file (f32 inference precision, one thread) and runs it on the same
seeded inputs. Outputs are compared as tests/conformance/index.json says: |irpool − cpu| <=
atol + rtol·|cpu| with the tolerances of the output's element type, and the CPU's NaN for a window
with no real element counts as 0 (irpool finds those windows: they give 0 on an input of 100s).
A share of the f32 and f16 inputs hold a few inf, -inf or NaN (`non_finite_count`): there both
must put NaN and ±inf in the same places. f64 is left out of that family: the CPU converts it to
f32 first, which saturates inf to ±FLT_MAX (notes.f64).

Integer outputs are compared exactly, but only where the CPU plugin is known to round the exact
mean half to even (index.json notes.int): for AdaptiveAvgPool-8 (but see below) and for i32/i64
AvgPool with more than one channel. i8/u8 AvgPool, and i32/i64 AvgPool with one channel, run an
integer kernel computing rint(f32(sum) * f32(1/count)) on AVX-512 (rint(f32(sum) / count) with
at most AVX2, half-to-even over these ranges); such a configuration is compared only
when no count it can divide by makes that differ from half-to-even over the input range
(`kernel_rounds_half_even`), and `test_cpu_integer_kernel_rounds_some_halves_away_from_zero`
records the deviation itself.
Three more integer departures are recorded, each by a test that checks it is still real:
integer AdaptiveAvgPool-8 with output_size all ones becomes a Reduce in the integer type on CPU,
which truncates toward zero (not compared); i32/i64 pooled in f32 write INT32_MIN (their NaN,
converted) for an empty window, where irpool writes 0 (compared as 0); and the CPU cannot compile
some single-channel i32/i64 AvgPools at all ("Supported primitive descriptors list is empty"),
so those configurations are not compared.

All mismatches are gathered and reported together, each with its configuration.
"""

from __future__ import annotations

import json
import random
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.cpu.isa import AVX512_CORE, cpu_isa

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset8 = pytest.importorskip("openvino.opset8")
opset14 = pytest.importorskip("openvino.opset14")
opset16 = pytest.importorskip("openvino.opset16")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

CONFIG_COUNT = 5000  # about 4,400 build; the module takes about 10 s
SEED = "irpool-differential-run-1"
BATCH_SIZE = 50
MAX_DETAILED = 25  # failures shown with their values; every failing configuration is listed
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
INDEX = json.loads((Path(__file__).resolve().parents[1] / "conformance" / "index.json").read_text())
TOLERANCES: dict[str, dict[str, float]] = INDEX["tolerances"]

Array = NDArray[Any]
DTYPES: dict[str, type[np.generic]] = {
    "f32": np.float32, "f16": np.float16, "f64": np.float64,
    "i8": np.int8, "u8": np.uint8, "i32": np.int32, "i64": np.int64,
}  # fmt: skip
INTEGER_TYPES = ("i8", "u8", "i32", "i64")
INT_LOW = {"i8": -10, "u8": 0, "i32": -10, "i64": -10}  # inputs are INT_LOW .. INT_LOW + 20
INT_SPAN = 20
INT32_MIN = -(2**31)
NON_FINITE_TYPES = ("f32", "f16")
NON_FINITE_SHARE = 0.2


# --------------------------------------------------------------------------------------------
# Configurations
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    index: int
    op: str  # "AvgPool-1", "AvgPool-14", "AvgPool-16" or "AdaptiveAvgPool-8"
    element_type: str
    shape: tuple[int, ...]
    kernel: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()
    pads_begin: tuple[int, ...] = ()
    pads_end: tuple[int, ...] = ()
    dilations: tuple[int, ...] | None = None  # AvgPool-16 only
    auto_pad: str = "explicit"
    rounding: str = "floor"
    exclude_pad: bool = True
    output_size: tuple[int, ...] = ()  # AdaptiveAvgPool-8 only
    size_type: str = "i64"

    @property
    def is_adaptive(self) -> bool:
        return self.op == "AdaptiveAvgPool-8"

    @property
    def version(self) -> int:
        return int(self.op.rsplit("-", 1)[1])

    def describe(self) -> str:
        shape = "x".join(map(str, self.shape))
        head = f"#{self.index} {self.op} {self.element_type} [{shape}]"
        if self.is_adaptive:
            return f"{head} output_size={list(self.output_size)} ({self.size_type} Const)"
        parts = [head, f"kernel={list(self.kernel)}", f"strides={list(self.strides)}"]
        if self.dilations is not None:
            parts.append(f"dilations={list(self.dilations)}")
        parts += [
            f"pads={list(self.pads_begin)}/{list(self.pads_end)}",
            f"auto_pad={self.auto_pad}",
            f"rounding={self.rounding}",
            f"exclude_pad={str(self.exclude_pad).lower()}",
        ]
        return " ".join(parts)

    def features(self) -> set[str]:
        """What the coverage test counts."""
        found = {self.op, f"rank {len(self.shape)}", self.element_type}
        if non_finite_count(self):
            found.add("non-finite")
        if self.shape[0] > 1:
            found.add("batch > 1")
        if self.is_adaptive:
            if any(o > d for o, d in zip(self.output_size, self.shape[2:], strict=True)):
                found.add("upsampling")
            return found
        found |= {f"auto_pad={self.auto_pad}", f"rounding={self.rounding}"}
        found.add(f"exclude_pad={str(self.exclude_pad).lower()}")
        if self.dilations is not None and max(self.dilations) > 1:
            found.add("dilations > 1")
        dilations = self.dilations or (1,) * len(self.kernel)
        axes = zip(self.kernel, dilations, self.pads_begin, self.pads_end, strict=True)
        big_pad = any(max(pb, pe) >= (k - 1) * d + 1 for k, d, pb, pe in axes)
        if self.auto_pad == "explicit" and not self.exclude_pad and big_pad:
            found.add("pads >= kernel, exclude_pad=false")
        return found


def _weighted(rng: random.Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), list(weights.values()))[0]


OPS = {"AvgPool-1": 25, "AvgPool-14": 25, "AvgPool-16": 30, "AdaptiveAvgPool-8": 20}
ELEMENT_TYPES = {"f32": 78, "f16": 7, "f64": 5, "i8": 2, "u8": 2, "i32": 3, "i64": 3}
AUTO_PADS = {"explicit": 55, "valid": 15, "same_upper": 15, "same_lower": 15}
MAX_SPATIAL = {3: 12, 4: 8, 5: 5}


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}:{index}")
    op = _weighted(rng, OPS)
    element_type = _weighted(rng, ELEMENT_TYPES)
    rank = rng.choice((3, 4, 5))
    spatial = tuple(rng.randint(1, MAX_SPATIAL[rank]) for _ in range(rank - 2))
    shape = (rng.choice((1, 1, 2, 3)), rng.choice((1, 2, 3)), *spatial)
    if op == "AdaptiveAvgPool-8":
        output_size = tuple(rng.randint(1, d + 3) for d in spatial)  # > d: upsampling
        size_type = rng.choice(("i32", "i64"))
        return Config(index, op, element_type, shape, output_size=output_size, size_type=size_type)

    kernel = tuple(rng.choices((1, 2, 3, 4), (2, 4, 3, 1))[0] for _ in spatial)
    strides = tuple(rng.choices((1, 2, 3, 4), (4, 4, 2, 1))[0] for _ in spatial)
    dilations = None
    if op == "AvgPool-16":
        dilations = tuple(rng.choices((1, 2, 3), (5, 3, 1))[0] for _ in spatial)
    exclude_pad = rng.random() < 0.5
    dilated = [(k - 1) * d + 1 for k, d in zip(kernel, dilations or [1] * len(kernel), strict=True)]

    def pad(kd: int) -> int:
        if rng.random() < 0.35:
            return 0
        if not exclude_pad and rng.random() < 0.3:
            return rng.randint(kd, kd + 2)  # legal only with exclude-pad=false
        return rng.randint(0, kd - 1)  # exclude-pad=true needs kd > pad

    pads_begin = tuple(pad(kd) for kd in dilated)
    pads_end = tuple(pad(kd) for kd in dilated)
    roundings = ["floor", "ceil"] + (["ceil_torch"] if op != "AvgPool-1" else [])
    return Config(
        index,
        op,
        element_type,
        shape,
        kernel,
        strides,
        pads_begin,
        pads_end,
        dilations,
        auto_pad=_weighted(rng, AUTO_PADS),
        rounding=rng.choice(roundings),
        exclude_pad=exclude_pad,
    )


def non_finite_count(config: Config) -> int:
    """How many inf, -inf or NaN the configuration's input holds (f32 and f16 only)."""
    rng = random.Random(f"{SEED}:non-finite:{config.index}")
    if config.element_type not in NON_FINITE_TYPES or rng.random() >= NON_FINITE_SHARE:
        return 0
    return rng.randint(1, 3)


def random_input(config: Config) -> Array:
    rng = np.random.default_rng(zlib.crc32(f"{SEED}:{config.index}".encode()))
    dtype = DTYPES[config.element_type]
    if config.element_type in INTEGER_TYPES:
        low = INT_LOW[config.element_type]
        return rng.integers(low, low + INT_SPAN + 1, size=config.shape).astype(dtype)
    data = rng.standard_normal(config.shape).astype(dtype)
    count = non_finite_count(config)
    flat = data.reshape(-1)  # a view: writes land in data
    flat[rng.integers(0, flat.size, count)] = rng.choice([np.inf, -np.inf, np.nan], count)
    return data


# --------------------------------------------------------------------------------------------
# The CPU plugin's integer AvgPool kernel (index.json notes.int)
# --------------------------------------------------------------------------------------------


@cache
def _count_rounds_half_even(count: int, largest_sum: int) -> bool:
    """Whether rint(f32(s) * f32(1/count)) rounds s/count half to even for |s| <= largest_sum."""
    sums = np.arange(-largest_sum, largest_sum + 1)
    kernel = np.rint(sums.astype(np.float32) * (np.float32(1) / np.float32(count)))
    exact = np.array([round(Fraction(int(s), count)) for s in sums])  # round() is half-even
    return bool(np.array_equal(kernel.astype(np.int64), exact))


def reduced_to_integer_mean(config: Config) -> bool:
    """An integer AdaptiveAvgPool-8 with output_size all ones: the CPU plugin rewrites it to a
    Reduce (AdaptivePoolToReduce) run in the integer type, which truncates toward zero."""
    return (
        config.is_adaptive
        and config.element_type in INTEGER_TYPES
        and all(size == 1 for size in config.output_size)
    )


def uses_integer_kernel(config: Config) -> bool:
    """i8/u8 AvgPool always, i32/i64 AvgPool with one channel (otherwise pooled in f32)."""
    if config.is_adaptive or config.element_type not in INTEGER_TYPES:
        return False
    return config.element_type in ("i8", "u8") or config.shape[1] == 1


def kernel_rounds_half_even(config: Config) -> bool:
    """Every divisor of an AvgPool lies in 1..prod(kernel); every sum within ±largest·count."""
    largest = max(abs(INT_LOW[config.element_type]), abs(INT_LOW[config.element_type] + INT_SPAN))
    most = int(np.prod(config.kernel))
    return all(_count_rounds_half_even(c, largest * c) for c in range(1, most + 1))


def cpu_may_refuse(config: Config) -> bool:
    """Known CPU limitation: its integer AvgPool kernel for i32/i64 with one channel has no
    implementation for some geometries ("Supported primitive descriptors list is empty")."""
    return uses_integer_kernel(config) and config.element_type in ("i32", "i64")


def compared_exactly(config: Config) -> bool:
    if reduced_to_integer_mean(config):
        return False
    return not uses_integer_kernel(config) or kernel_rounds_half_even(config)


# --------------------------------------------------------------------------------------------
# Building, running, comparing
# --------------------------------------------------------------------------------------------

AVG_POOL_BUILDERS: dict[int, Callable[..., Any]] = {
    1: opset1.avg_pool, 14: opset14.avg_pool, 16: opset16.avg_pool,
}  # fmt: skip


def build_pool(config: Config, slot: int) -> tuple[Any, Any]:
    """(Parameter, Result) for one configuration; raises RuntimeError when OpenVINO refuses it."""
    data = opset1.parameter(list(config.shape), DTYPES[config.element_type], name=f"in{slot}")
    data.output(0).set_names({f"in{slot}"})
    if config.is_adaptive:
        size = np.array(config.output_size, dtype=DTYPES[config.size_type])
        pool = opset8.adaptive_avg_pool(data, opset1.constant(size), name=f"pool{slot}")
    else:
        extra = {"dilations": list(config.dilations)} if config.dilations is not None else {}
        pool = AVG_POOL_BUILDERS[config.version](
            data,
            strides=list(config.strides),
            pads_begin=list(config.pads_begin),
            pads_end=list(config.pads_end),
            kernel_shape=list(config.kernel),
            exclude_pad=config.exclude_pad,
            rounding_type=config.rounding,
            auto_pad=config.auto_pad,
            name=f"pool{slot}",
            **extra,
        )
    pool.output(0).set_names({f"out{slot}"})
    return data, opset1.result(pool, name=f"out{slot}")


def save_single(config: Config, path: Path) -> Path:
    """One configuration alone in a model, as `in0` -> pool -> `out0`."""
    param, result = build_pool(config, 0)
    ov.save_model(ov.Model([result], [param], path.stem), path, compress_to_fp16=False)
    return path


# Problems that stop a whole batch; its pools are then run one by one to find the culprits.
BATCH_WIDE = frozenset({"irpool reports errors", "irpool raised", "CPU refused"})


@dataclass
class Outcome:
    config: Config
    problem: str = ""  # empty: agrees
    detail: str = ""
    compared: bool = True


def empty_windows_as_zero(cpu: Array, empty: Array) -> Array:
    """The CPU's value for a window with no real element (`empty`), widened to f64, made 0.

    Floats: NaN. i32/i64 pooled in f32: that NaN converted to i32, i.e. INT32_MIN (a real mean
    of the small inputs used here is never near it)."""
    wide = cpu.astype(np.float64)
    made_up = np.isnan(wide) | (wide == INT32_MIN if cpu.dtype.kind == "i" else False)
    return np.where(empty & made_up, 0.0, wide)


def differences(actual: Array, expected: Array, empty: Array, element_type: str) -> Array:
    """Where irpool and the CPU differ: beyond tolerance, or in NaN or ±inf placement."""
    tolerance = TOLERANCES[element_type]
    wide_actual, wide_expected = actual.astype(np.float64), empty_windows_as_zero(expected, empty)
    same = (wide_actual == wide_expected) | (np.isnan(wide_actual) & np.isnan(wide_expected))
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, not close; `same` decides
        close = np.isfinite(wide_expected) & (
            np.abs(wide_actual - wide_expected)
            <= tolerance["atol"] + tolerance["rtol"] * np.abs(wide_expected)
        )
    return ~(same | close)


def agrees(actual: Array, expected: Array, empty: Array, element_type: str) -> bool:
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    return not differences(actual, expected, empty, element_type).any()


def mismatch_detail(actual: Array, expected: Array, empty: Array, element_type: str) -> str:
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return (
            f"irpool {actual.dtype}{list(actual.shape)}, cpu {expected.dtype}{list(expected.shape)}"
        )
    differ = differences(actual, expected, empty, element_type)
    gap = np.abs(actual.astype(np.float64) - empty_windows_as_zero(expected, empty))
    gap = np.where(differ, np.nan_to_num(gap, nan=np.inf), 0.0)  # misplaced NaN or inf: worst
    worst = np.unravel_index(int(np.argmax(gap)), gap.shape)
    return (
        f"{int(differ.sum())} of {differ.size} values differ; worst at "
        f"{list(map(int, worst))}: irpool {actual[worst]!r}, cpu {expected[worst]!r}"
    )


def run_batch(core: Any, path: Path, configs: Sequence[Config]) -> list[Outcome]:
    """Save the pools as one model, run it with irpool and the CPU plugin, compare each pool."""
    nodes = [build_pool(config, slot) for slot, config in enumerate(configs)]
    model = ov.Model([result for _, result in nodes], [param for param, _ in nodes], path.stem)
    ov.save_model(model, path, compress_to_fp16=False)
    inputs = {f"in{slot}": random_input(config) for slot, config in enumerate(configs)}

    irpool_model = irpool.load(path)
    errors = [d for d in irpool_model.validate() if d.severity is irpool.Severity.ERROR]
    if errors:
        detail = "; ".join(f"{d.code} {d.message}" for d in errors)
        return [Outcome(c, "irpool reports errors", detail) for c in configs]
    try:
        ours = irpool_model.run(inputs)
        # Windows with no real element: 0 on an input of 100s, where any other window gives at
        # least 100/64 (kernels hold at most 64 taps), so even integer means stay above 0.
        full = irpool_model.run({name: np.full_like(value, 100) for name, value in inputs.items()})
    except Exception as error:
        return [Outcome(c, "irpool raised", f"{type(error).__name__}: {error}") for c in configs]
    try:
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        theirs = {
            port.get_any_name(): value
            for port, value in compiled.create_infer_request().infer(inputs).items()
        }
    except RuntimeError as error:
        reason = next((line for line in str(error).splitlines() if "Supported" in line), "")
        return [Outcome(c, "CPU refused", reason or str(error)) for c in configs]

    outcomes = []
    for slot, config in enumerate(configs):
        actual, expected = ours[f"out{slot}"], theirs[f"out{slot}"]
        empty = full[f"out{slot}"] == 0
        if not compared_exactly(config):
            outcomes.append(Outcome(config, compared=False))
        elif agrees(actual, expected, empty, config.element_type):
            outcomes.append(Outcome(config))
        else:
            detail = mismatch_detail(actual, expected, empty, config.element_type)
            outcomes.append(Outcome(config, "values differ", detail))
    return outcomes


def chunks(items: Sequence[Config], size: int) -> Iterator[Sequence[Config]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    directory = tmp_path_factory.mktemp("differential_run")
    buildable = []
    for config in map(random_config, range(CONFIG_COUNT)):
        try:
            build_pool(config, 0)
        except RuntimeError:
            continue  # OpenVINO refuses this configuration
        buildable.append(config)
    core = ov.Core()
    # Pools the CPU may refuse to compile run alone, so that they do not break a batch.
    results = [
        run_batch(core, directory / f"single{config.index}.xml", [config])[0]
        for config in buildable
        if cpu_may_refuse(config)
    ]
    batchable = [config for config in buildable if not cpu_may_refuse(config)]
    for number, batch in enumerate(chunks(batchable, BATCH_SIZE)):
        batch_outcomes = run_batch(core, directory / f"batch{number}.xml", batch)
        if any(o.problem in BATCH_WIDE for o in batch_outcomes) and len(batch) > 1:
            # Run each pool alone, so that one bad pool does not hide the others' verdicts.
            batch_outcomes = [
                run_batch(core, directory / f"single{config.index}.xml", [config])[0]
                for config in batch
            ]
        results += batch_outcomes
    return results


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    """Guard against a generator that drifts into testing nothing interesting."""
    compared = [o for o in outcomes if o.compared and o.problem != "CPU refused"]
    assert len(compared) >= 1000, f"only {len(compared)} configurations compared"
    counts: Counter[str] = Counter(f for o in compared for f in o.config.features())
    wanted = [
        *OPS, "rank 3", "rank 4", "rank 5", "batch > 1", "upsampling",
        *(f"auto_pad={auto_pad}" for auto_pad in AUTO_PADS),
        "rounding=floor", "rounding=ceil", "rounding=ceil_torch", "exclude_pad=false",
        "exclude_pad=true", "dilations > 1", "pads >= kernel, exclude_pad=false", "non-finite",
    ]  # fmt: skip
    assert [f for f in wanted if counts[f] < 20] == [], counts
    assert [t for t in ELEMENT_TYPES if counts[t] < 10] == [], counts
    integer_kernel = [o for o in compared if uses_integer_kernel(o.config)]
    assert len(integer_kernel) >= 10, "no AvgPool compared on the CPU's integer kernel"


def test_cpu_plugin_compiles_every_buildable_configuration(outcomes: list[Outcome]) -> None:
    refused = [o for o in outcomes if o.problem == "CPU refused"]
    unexpected = [o for o in refused if not cpu_may_refuse(o.config)]
    assert not unexpected, "\n".join(f"{o.config.describe()}: {o.detail}" for o in unexpected)
    assert len(refused) <= 0.02 * len(outcomes), f"{len(refused)} configurations not compiled"


def test_irpool_matches_the_cpu_plugin(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problem and o.problem != "CPU refused"]
    if not failing:
        return
    kinds = Counter(o.problem for o in failing)
    summary = ", ".join(f"{count} {kind}" for kind, count in kinds.most_common())
    listed = "\n".join(
        f"  {o.config.describe()}\n      {o.problem}: {o.detail}"
        if n < MAX_DETAILED
        else f"  {o.config.describe()} ({o.problem})"
        for n, o in enumerate(failing)
    )
    pytest.fail(
        f"{len(failing)} of {len(outcomes)} configurations disagree with the CPU plugin of "
        f"OpenVINO {ov.__version__} ({summary}); rebuild one with random_config(index):\n{listed}",
        pytrace=False,
    )


@pytest.mark.parametrize(
    ("element_type", "channels", "avx512_value"),
    [("i8", 1, 7), ("u8", 2, 7), ("i32", 1, 7), ("i64", 1, 7), ("i32", 2, 6), ("i64", 3, 6)],
)
def test_cpu_integer_kernel_rounds_some_halves_away_from_zero(
    tmp_path: Path, element_type: str, channels: int, avx512_value: int
) -> None:
    """The recorded deviation: a mean of 91/14 = 6.5 is 6 half-to-even (irpool), but the CPU's
    integer kernel computes rint(91 * f32(1/14)) = 7 on AVX-512, f32(1/14) being rounded up.
    i32/i64 with more than one channel are pooled in f32 instead and give 6; with at most AVX2
    the integer kernel divides, rint(f32(91) / 14), and gives 6 too, and refuses i32/i64 with
    one channel (measured)."""
    config = Config(0, "AvgPool-14", element_type, (1, channels, 14), (14,), (14,), (0,), (0,))
    assert uses_integer_kernel(config) == (avx512_value == 7)
    assert compared_exactly(config) == (avx512_value == 6)
    avx512 = cpu_isa() == AVX512_CORE
    cpu_value = avx512_value if avx512 else 6
    data = np.broadcast_to(np.array([7] * 13 + [0]), config.shape).astype(DTYPES[element_type])
    path = save_single(config, tmp_path / "model.xml")
    core = ov.Core()
    if not avx512 and cpu_may_refuse(config):
        with pytest.raises(RuntimeError, match="Supported primitive descriptors list is empty"):
            core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        return
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    cpu = compiled.create_infer_request().infer({"in0": data})[compiled.output(0)]
    ours = irpool.load(path).run({"in0": data})["out0"]
    assert ours.dtype == cpu.dtype == DTYPES[element_type]
    assert ours.ravel().tolist() == [6] * channels
    assert cpu.ravel().tolist() == [cpu_value] * channels


@pytest.mark.parametrize("element_type", ["i32", "i64"])
def test_cpu_writes_int32_min_for_empty_integer_windows(tmp_path: Path, element_type: str) -> None:
    """Recorded: ceil mode on D=6, k1 s2 gives a 4th window past the end with no element.
    i32/i64 with two channels are pooled in f32, whose NaN becomes INT32_MIN; irpool writes 0."""
    config = Config(
        0, "AvgPool-1", element_type, (1, 2, 6), (1,), (2,), (0,), (0,), rounding="ceil"
    )
    path = save_single(config, tmp_path / "model.xml")
    data = np.arange(12).reshape(config.shape).astype(DTYPES[element_type])
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    cpu = compiled.create_infer_request().infer({"in0": data})[compiled.output(0)]
    ours = irpool.load(path).run({"in0": data})["out0"]
    assert ours.tolist() == [[[0, 2, 4, 0], [6, 8, 10, 0]]]
    assert cpu.tolist() == [[[0, 2, 4, INT32_MIN], [6, 8, 10, INT32_MIN]]]
    assert agrees(ours, cpu, np.arange(4) == 3, element_type)


@pytest.mark.parametrize("element_type", ["i32", "i64"])
def test_cpu_cannot_compile_some_single_channel_integer_pools(
    tmp_path: Path, element_type: str
) -> None:
    """Recorded: the same pool with one channel goes to the CPU's integer kernel, which has no
    implementation for it; irpool runs it (and `cpu_may_refuse` covers such configurations)."""
    config = Config(
        0, "AvgPool-1", element_type, (1, 1, 6), (1,), (2,), (0,), (0,), rounding="ceil"
    )
    assert cpu_may_refuse(config)
    path = save_single(config, tmp_path / "model.xml")
    core = ov.Core()
    with pytest.raises(RuntimeError, match="Supported primitive descriptors list is empty"):
        core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    data = np.arange(6).reshape(config.shape).astype(DTYPES[element_type])
    assert irpool.load(path).run({"in0": data})["out0"].tolist() == [[[0, 2, 4, 0]]]


@pytest.mark.parametrize("element_type", ["i8", "i32", "i64"])
def test_cpu_truncates_integer_global_adaptive_pooling(tmp_path: Path, element_type: str) -> None:
    """Recorded: AdaptiveAvgPool-8 to output_size [1] on integers runs as an integer Reduce on
    CPU, truncating the means 1.5, -1.75, 2.5 to 1, -1, 2; irpool rounds half to even: 2, -2, 2.
    With output_size [2] the CPU pools in f32 and agrees with irpool."""
    data = np.array([[[1, 2, 1, 2], [-1, -2, -2, -2], [2, 3, 2, 3]]], dtype=DTYPES[element_type])
    config = Config(0, "AdaptiveAvgPool-8", element_type, data.shape, output_size=(1,))
    assert reduced_to_integer_mean(config) and not compared_exactly(config)
    path = save_single(config, tmp_path / "model.xml")
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    cpu = compiled.create_infer_request().infer({"in0": data})[compiled.output(0)]
    ours = irpool.load(path).run({"in0": data})["out0"]
    assert ours.ravel().tolist() == [2, -2, 2]
    assert cpu.ravel().tolist() == [1, -1, 2]

    halves = Config(0, "AdaptiveAvgPool-8", element_type, data.shape, output_size=(2,))
    assert compared_exactly(halves)
    path = save_single(halves, tmp_path / "halves.xml")
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    cpu = compiled.create_infer_request().infer({"in0": data})[compiled.output(0)]
    assert agrees(irpool.load(path).run({"in0": data})["out0"], cpu, np.False_, element_type)


BIG = 3e38  # three of them overflow an f32 sum


def run_both(tmp_path: Path, config: Config, data: Array) -> tuple[Array, Array]:
    """(irpool, CPU) outputs of one configuration on `data`."""
    path = save_single(config, tmp_path / "model.xml")
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    cpu = compiled.create_infer_request().infer({"in0": data})[compiled.output(0)]
    return irpool.load(path).run({"in0": data})["out0"], cpu


@pytest.mark.parametrize(
    ("op", "values", "element_type", "want"),
    [
        ("AvgPool-14", [BIG] * 3, "f32", [np.inf]),
        ("AvgPool-14", [-BIG] * 3, "f32", [-np.inf]),
        ("AvgPool-14", [BIG] * 4 + [-BIG], "f32", [np.inf] * 3),  # running sum: BIG + BIG = inf
        ("AvgPool-14", [-BIG, BIG, BIG], "f32", [1e38]),
        ("AvgPool-14", [6e4, 6e4, -6e4], "f16", [2e4]),  # f16 sums in f32
        ("AvgPool-14", [np.inf, -np.inf, 1, 2, np.nan], "f32", [np.nan, -np.inf, np.nan]),
        ("AvgPool-14", [-BIG, -BIG, np.inf, 1, 2], "f32", [np.nan, np.inf, np.inf]),
        ("AdaptiveAvgPool-8", [BIG] * 4, "f32", [np.inf, np.inf]),
        ("AdaptiveAvgPool-8", [np.inf, 1, 2, 3, 4], "f32", [np.inf, 2, 3.5]),
    ],
)
def test_overflow_and_non_finite_follow_the_cpu(
    tmp_path: Path, op: str, values: list[float], element_type: str, want: list[float]
) -> None:
    """Window sums run in f32 on the CPU: beyond its range they give ±inf, in every type."""
    data = np.array(values, DTYPES[element_type]).reshape(1, 1, -1)
    if op == "AdaptiveAvgPool-8":
        config = Config(0, op, element_type, data.shape, output_size=(len(want),))
    else:
        config = Config(0, op, element_type, data.shape, (3,), (1,), (0,), (0,))
    ours, cpu = run_both(tmp_path, config, data)
    expected = np.array(want, DTYPES[element_type]).reshape(cpu.shape)
    np.testing.assert_allclose(cpu, expected, rtol=1e-3)
    assert agrees(ours, cpu, np.False_, element_type)


def test_cpu_overflows_running_sums_that_end_in_range(tmp_path: Path) -> None:
    """Recorded: the CPU adds taps in order, so [BIG, BIG, -BIG] is inf (BIG + BIG first) while
    [-BIG, BIG, BIG] is 1e38. irpool follows that order only in planes that hold a mean beyond
    f32max / taps or a non-finite one; here it gives the window's mean, 1e38
    (docs/ops/AvgPool.md#non-finite-values-and-overflow)."""
    data = np.array([[[BIG, BIG, -BIG]]], np.float32)
    config = Config(0, "AvgPool-14", "f32", data.shape, (3,), (1,), (0,), (0,))
    ours, cpu = run_both(tmp_path, config, data)
    assert cpu.tolist() == [[[np.inf]]]
    np.testing.assert_allclose(ours, [[[1e38]]], rtol=1e-6)


def bf16_tensor(values: Array) -> Any:
    """An OpenVINO bf16 tensor holding float32 `values` that bf16 represents exactly."""
    bits = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return ov.Tensor(bits, list(values.shape), ov.Type.bf16)


@pytest.mark.parametrize(
    ("values", "kernel", "stride"),
    [([np.inf, 1, 2, 3, 4, 5, 6, 7], 2, 2), ([1, 2, np.nan, 3, -np.inf], 3, 1), ([BIG] * 3, 3, 1)],
)
def test_bf16_non_finite_and_overflow_follow_the_cpu(
    tmp_path: Path, values: list[float], kernel: int, stride: int
) -> None:
    """bf16 runs as f32 in irpool (float32 arrays holding bf16 values), as on the CPU."""
    data = np.array(values, np.float32).reshape(1, 1, -1)
    data = ((data.view(np.uint32) >> 16) << 16).view(np.float32)  # BIG rounded to bf16
    param = opset1.parameter(list(data.shape), ov.Type.bf16, name="in0")
    pool = opset14.avg_pool(param, [stride], [0], [0], [kernel], True, "floor")
    path = tmp_path / "model.xml"
    ov.save_model(ov.Model([opset1.result(pool)], [param], "bf16"), path, compress_to_fp16=False)
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)
    request = compiled.create_infer_request()
    request.infer({0: bf16_tensor(data)})
    bits = np.array(request.get_output_tensor(0).data, copy=True).view(np.uint16)
    cpu = (bits.astype(np.uint32) << 16).view(np.float32)
    [ours] = irpool.load(path).run({"in0": data}, cast=True).values()
    assert agrees(ours, cpu, np.False_, "f32")
    assert not np.isfinite(cpu).all()
