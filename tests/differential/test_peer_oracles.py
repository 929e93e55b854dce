"""Peer oracles: ONNX's and PyTorch's average pooling, independent of OpenVINO, against irpool.

**ONNX.** The installed `onnx` package's own backend node cases for AveragePool and
GlobalAveragePool (the wheel ships the generators, not the data: `collect_testcases` builds each
model and its expected outputs), plus a few models of ours whose expected outputs come from ONNX's
reference implementation (`onnx.reference.ReferenceEvaluator`). Each model is converted by
OpenVINO's ONNX frontend (`ov.convert_model`), saved as IR with `ov.save_model`, run by irpool and
compared with ONNX's expected outputs at the case's own tolerances; irpool must also match the CPU
plugin on that IR. Where ONNX and OpenVINO disagree the case is listed in `KNOWN_DIFFERENCES`
with the reason; irpool follows OpenVINO there, and the test checks that the difference is still
real, so the list cannot go stale.

**PyTorch.** Random `avg_pool{1,2,3}d` and `adaptive_avg_pool{1,2,3}d` configurations (torch
2.13.0 CPU), each mapped to IR as docs/ops/AvgPool.md#cross-framework-mapping says (AvgPool-14,
`ceil_torch` for
ceil_mode, exclude-pad = !count_include_pad; AdaptiveAvgPool-8 with an i32 output_size Const),
built with OpenVINO's op builders and saved with `ov.save_model`. The known difference: with
count_include_pad=True, some padding and ceil_mode, a last window reaching past the padded end is
divided by its clipped size in torch but by the full kernel in OpenVINO. Such configurations are
detected geometrically; there irpool must equal torch with divisor_override=prod(kernel) (which
is OpenVINO's rule) and the CPU plugin, and must differ from plain torch. Also recorded: with
ceil_mode torch accepts a kernel longer than the padded input, which OpenVINO rejects. A few torch
modules also go through OpenVINO's PyTorch frontend (`ov.convert_model`) to check the mapping
itself; its AdaptiveAvgPool output carries a Reshape that irpool does not execute (recorded).
"""

from __future__ import annotations

import functools
import importlib.util
import math
import random
import warnings
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")
opset8 = pytest.importorskip("openvino.opset8")
opset14 = pytest.importorskip("openvino.opset14")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

Array = NDArray[Any]
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
F32_RTOL, F32_ATOL = 1e-5, 1e-6  # tests/conformance/index.json "tolerances" for f32


def close(actual: Array, expected: Array, rtol: float = F32_RTOL, atol: float = F32_ATOL) -> bool:
    """|actual − expected| <= atol + rtol·|expected|, with a NaN in `expected` counting as 0."""
    if actual.shape != expected.shape:
        return False
    wide = np.nan_to_num(expected.astype(np.float64), nan=0.0)
    return bool(np.all(np.abs(actual.astype(np.float64) - wide) <= atol + rtol * np.abs(wide)))


def run_cpu(core: Any, path: Path, inputs: dict[str, Array]) -> list[Array]:
    """The CPU plugin's outputs, in Result order, for the IR at `path`."""
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    outputs = compiled.create_infer_request().infer(inputs)
    return [outputs[port] for port in compiled.outputs]


def run_irpool(core: Any, path: Path, inputs: dict[str, Array]) -> list[Array]:
    """irpool's outputs, in the Result order OpenVINO reads from the same file, by the
    names OpenVINO gives them (the Result's own name when the tensor has none)."""
    results = irpool.load(path).run(inputs)
    return [
        results[
            output.get_any_name() if output.get_names() else output.get_node().get_friendly_name()
        ]
        for output in core.read_model(path).outputs
    ]


@pytest.fixture(scope="module")
def core() -> Any:
    return ov.Core()


# ============================================================================================
# ONNX
# ============================================================================================


class Known(NamedTuple):
    kind: Literal["values"]
    reason: str


OVERHANG_DIVISOR = Known(
    "values",
    "count_include_pad=1 with ceil_mode=1 and a last window reaching past the padded end: ONNX "
    "divides by the window clipped at the padded end, OpenVINO (AvgPool-16 ceil_torch, "
    "exclude-pad=false) by the full kernel (docs/ops/AvgPool.md#upstream-issues); irpool "
    "follows OpenVINO.",
)
KNOWN_DIFFERENCES: dict[str, Known] = {
    "reference_count_include_pad_ceil_overhang_1d": OVERHANG_DIVISOR,
    "reference_count_include_pad_ceil_overhang_2d": OVERHANG_DIVISOR,
}


@dataclass(frozen=True)
class OnnxCase:
    name: str
    model: Any  # onnx.ModelProto
    inputs: tuple[Array, ...]
    outputs: tuple[Array, ...]
    rtol: float
    atol: float


def backend_cases() -> list[OnnxCase]:
    """ONNX's own AveragePool and GlobalAveragePool node cases, built by its generators."""
    try:
        from onnx.backend.test.case.node import collect_testcases
    except ImportError:
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # other ops' generators overflow on purpose
        collected = collect_testcases()
    wanted = {"AveragePool", "GlobalAveragePool"}
    cases = []
    for case in collected:
        if case.model is None or not case.data_sets:
            continue
        if {node.op_type for node in case.model.graph.node} <= wanted:
            inputs, outputs = case.data_sets[0]
            cases.append(
                OnnxCase(case.name, case.model, tuple(inputs), tuple(outputs), case.rtol, case.atol)
            )
    return cases


# Models of ours for what the backend cases leave out; ONNX's reference implementation gives
# the expected outputs. name -> (input shape, AveragePool attributes).
REFERENCE_MODELS: dict[str, tuple[tuple[int, ...], dict[str, Any]]] = {
    "reference_count_include_pad_ceil_overhang_1d": (
        (1, 1, 6), {"kernel_shape": [3], "strides": [2], "pads": [1, 1], "ceil_mode": 1,
                    "count_include_pad": 1}),
    "reference_count_include_pad_ceil_overhang_2d": (
        (2, 3, 8, 9), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 0],
                       "ceil_mode": 1, "count_include_pad": 1}),
    "reference_count_include_pad_ceil_no_overhang": (
        (1, 2, 7), {"kernel_shape": [3], "strides": [2], "pads": [1, 1], "ceil_mode": 1,
                    "count_include_pad": 1}),
    "reference_ceil_last_window_starts_in_padding": (
        (1, 1, 5, 5), {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 1, 1, 1],
                       "ceil_mode": 1}),
    "reference_same_lower_count_include_pad": (
        (1, 2, 7, 6), {"kernel_shape": [3, 4], "strides": [2, 1], "auto_pad": "SAME_LOWER",
                       "count_include_pad": 1}),
    "reference_dilations_count_include_pad_ceil": (
        (1, 1, 8, 9), {"kernel_shape": [2, 3], "strides": [2, 2], "dilations": [2, 1],
                       "pads": [1, 1, 2, 1], "ceil_mode": 1, "count_include_pad": 1}),
}  # fmt: skip


def reference_cases() -> list[OnnxCase]:
    try:
        from onnx import TensorProto, helper
        from onnx.reference import ReferenceEvaluator
    except ImportError:
        return []
    cases = []
    for name, (shape, attributes) in REFERENCE_MODELS.items():
        node = helper.make_node("AveragePool", ["x"], ["y"], **attributes)
        graph = helper.make_graph(
            [node],
            name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        x = rng.standard_normal(shape).astype(np.float32)
        (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
        cases.append(OnnxCase(name, model, (x,), (np.asarray(expected),), F32_RTOL, F32_ATOL))
    return cases


@functools.cache
def onnx_cases() -> dict[str, OnnxCase]:
    """Built when a test needs them, not at collection: every pytest-xdist worker collects
    this file, and ONNX's generators cost about 10 s of CPU here."""
    return {case.name: case for case in backend_cases() + reference_cases()}


requires_onnx = pytest.mark.skipif(
    importlib.util.find_spec("onnx") is None, reason="onnx is not installed"
)


@dataclass
class Converted:
    """An ONNX case after OpenVINO's frontend: the IR, its inputs and the CPU's outputs."""

    path: Path
    inputs: dict[str, Array]
    cpu: list[Array]
    op_types: list[str]


def convert(core: Any, case: OnnxCase, directory: Path) -> Converted:
    import onnx

    onnx_path = directory / f"{case.name}.onnx"
    onnx.save(case.model, onnx_path)
    xml_path = directory / f"{case.name}.xml"
    ov.save_model(ov.convert_model(onnx_path), xml_path, compress_to_fp16=False)
    names = [value.name for value in case.model.graph.input]
    inputs = dict(zip(names, case.inputs, strict=True))
    op_types = [op.get_type_name() for op in core.read_model(xml_path).get_ordered_ops()]
    return Converted(xml_path, inputs, run_cpu(core, xml_path, inputs), op_types)


def onnx_case_problems(case: OnnxCase, core: Any, directory: Path) -> list[str]:
    """How irpool's run of `case`'s converted IR differs from the CPU plugin's, or from ONNX's
    expected outputs where no known difference says it must."""
    converted = convert(core, case, directory)
    known = KNOWN_DIFFERENCES.get(case.name)
    if case.name.startswith("test_globalaveragepool") and "ReduceMean" not in converted.op_types:
        # OpenVINO's ONNX frontend lowers GlobalAveragePool to ReduceMean over the spatial axes.
        return [f"{case.name}: no ReduceMean in {converted.op_types}"]
    ours = run_irpool(core, converted.path, converted.inputs)
    problems = []
    for actual, cpu, expected in zip(ours, converted.cpu, case.outputs, strict=True):
        agrees_with_onnx = close(actual, expected, case.rtol, case.atol)
        if not actual.dtype == cpu.dtype == expected.dtype:
            problems.append(f"{case.name}: {actual.dtype}, CPU {cpu.dtype}, ONNX {expected.dtype}")
        elif not close(actual, cpu):
            problems.append(f"irpool differs from the CPU plugin on {case.name}")
        elif known is not None and known.kind == "values":
            if agrees_with_onnx or close(cpu, expected, case.rtol, case.atol):
                problems.append(f"{case.name} no longer differs from ONNX: {known.reason}")
        elif not agrees_with_onnx:
            problems.append(f"irpool differs from ONNX's expected output on {case.name}")
    return problems


@requires_onnx
@pytest.mark.parametrize("name", sorted(REFERENCE_MODELS))
def test_onnx_reference_case(name: str, core: Any, tmp_path: Path) -> None:
    assert onnx_case_problems(onnx_cases()[name], core, tmp_path) == []


@requires_onnx
def test_onnx_backend_cases(core: Any, tmp_path: Path) -> None:
    """Every AveragePool and GlobalAveragePool case the installed ONNX generates (one test:
    their names are known only once ONNX's generators have run)."""
    backend = {name: case for name, case in onnx_cases().items() if name.startswith("test_")}
    assert len([n for n in backend if n.startswith("test_averagepool_")]) >= 20
    assert len([n for n in backend if n.startswith("test_globalaveragepool")]) >= 2
    problems = [p for case in backend.values() for p in onnx_case_problems(case, core, tmp_path)]
    assert problems == []


def test_known_differences_are_cases() -> None:
    assert set(KNOWN_DIFFERENCES) <= set(REFERENCE_MODELS)


# ============================================================================================
# PyTorch
# ============================================================================================

# Imported by the tests that use it, not at collection: every pytest-xdist worker collects
# this file, and importing torch costs about 4 s of CPU here.
requires_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="torch is not installed"
)

SEED = "irpool-peer-oracles-torch-1"
AVG_CONFIGS_PER_RANK = 200
ADAPTIVE_CONFIGS_PER_RANK = 60
MAX_SPATIAL = {1: 14, 2: 9, 3: 7}


@dataclass(frozen=True)
class TorchAvgPool:
    index: int
    shape: tuple[int, ...]
    kernel: tuple[int, ...]
    stride: tuple[int, ...] | None  # None: torch's default, the kernel
    padding: tuple[int, ...]
    ceil_mode: bool
    count_include_pad: bool

    @property
    def strides(self) -> tuple[int, ...]:
        return self.stride if self.stride is not None else self.kernel

    def describe(self) -> str:
        return (
            f"#{self.index} avg_pool{len(self.kernel)}d input {list(self.shape)} "
            f"kernel_size={self.kernel} stride={self.stride} padding={self.padding} "
            f"ceil_mode={self.ceil_mode} count_include_pad={self.count_include_pad}"
        )

    def output_sizes(self) -> list[int]:
        """PyTorch's rule (docs/ops/AvgPool.md#cross-framework-mapping)."""
        sizes = []
        for d, k, s, p in zip(self.shape[2:], self.kernel, self.strides, self.padding, strict=True):
            out = (d + 2 * p - k + (s - 1 if self.ceil_mode else 0)) // s + 1
            if self.ceil_mode and (out - 1) * s >= d + p:
                out -= 1
            sizes.append(out)
        return sizes

    def kernel_beyond_padded_input(self) -> bool:
        axes = zip(self.shape[2:], self.kernel, self.padding, strict=True)
        return any(k > d + 2 * p for d, k, p in axes)

    def overhangs(self) -> bool:
        """The known difference: count_include_pad, some padding, and a window past D + p."""
        if not (self.count_include_pad and self.ceil_mode and any(self.padding)):
            return False
        axes = zip(
            self.shape[2:],
            self.kernel,
            self.strides,
            self.padding,
            self.output_sizes(),
            strict=True,
        )
        return any((out - 1) * s - p + k > d + p for d, k, s, p, out in axes)


@dataclass(frozen=True)
class TorchAdaptive:
    index: int
    shape: tuple[int, ...]
    output_size: tuple[int, ...]

    def describe(self) -> str:
        rank = len(self.output_size)
        return (
            f"#{self.index} adaptive_avg_pool{rank}d input {list(self.shape)} -> {self.output_size}"
        )


def _batch_and_channels(rng: random.Random) -> tuple[int, int]:
    return rng.choice((1, 1, 2, 3)), rng.choice((1, 2, 3))


def random_avg_pool(rank: int, index: int) -> TorchAvgPool:
    rng = random.Random(f"{SEED}:avg{rank}:{index}")
    spatial = tuple(rng.randint(1, MAX_SPATIAL[rank]) for _ in range(rank))
    # Mostly k <= D; now and then D + 1, which torch accepts only with ceil_mode and stride > 1.
    kernel = tuple(d + 1 if rng.random() < 0.08 else rng.randint(1, min(4, d)) for d in spatial)
    stride = None if rng.random() < 0.2 else tuple(rng.randint(1, 3) for _ in spatial)
    padding = tuple(0 if rng.random() < 0.3 else rng.randint(0, k // 2) for k in kernel)
    return TorchAvgPool(
        index,
        (*_batch_and_channels(rng), *spatial),
        kernel,
        stride,
        padding,
        ceil_mode=rng.random() < 0.6,
        count_include_pad=rng.random() < 0.6,
    )


def random_adaptive(rank: int, index: int) -> TorchAdaptive:
    rng = random.Random(f"{SEED}:adaptive{rank}:{index}")
    spatial = tuple(rng.randint(1, MAX_SPATIAL[rank]) for _ in range(rank))
    output_size = tuple(rng.randint(1, d + 3) for d in spatial)  # > d: upsampling
    return TorchAdaptive(index, (*_batch_and_channels(rng), *spatial), output_size)


def torch_input(label: str, shape: Sequence[int]) -> Array:
    rng = np.random.default_rng(zlib.crc32(f"{SEED}:{label}".encode()))
    return rng.standard_normal(tuple(shape)).astype(np.float32)


def torch_avg_pool(config: TorchAvgPool, x: Array, divisor_override: int | None = None) -> Array:
    import torch

    if len(config.kernel) == 1 and divisor_override is not None:
        # avg_pool1d has no divisor_override; pool a trailing axis of size 1 in 2-D instead.
        return torch_avg_pool(as_2d(config), x[..., None], divisor_override)[..., 0]
    pool = getattr(torch.nn.functional, f"avg_pool{len(config.kernel)}d")
    options = {} if divisor_override is None else {"divisor_override": divisor_override}
    output = pool(
        torch.from_numpy(x),
        config.kernel,
        config.stride,
        config.padding,
        config.ceil_mode,
        config.count_include_pad,
        **options,
    )
    return np.asarray(output.numpy())


def as_2d(config: TorchAvgPool) -> TorchAvgPool:
    stride = None if config.stride is None else (*config.stride, 1)
    return TorchAvgPool(
        config.index,
        (*config.shape, 1),
        (*config.kernel, 1),
        stride,
        (*config.padding, 0),
        config.ceil_mode,
        config.count_include_pad,
    )


def avg_pool_ir(config: TorchAvgPool, path: Path) -> Path:
    """The mapping of docs/ops/AvgPool.md#cross-framework-mapping: AvgPool-14, ceil_torch for
    ceil_mode, exclude-pad = !count_include_pad."""
    data = opset1.parameter(list(config.shape), np.float32, name="x")
    pool = opset14.avg_pool(
        data,
        strides=list(config.strides),
        pads_begin=list(config.padding),
        pads_end=list(config.padding),
        kernel_shape=list(config.kernel),
        exclude_pad=not config.count_include_pad,
        rounding_type="ceil_torch" if config.ceil_mode else "floor",
        auto_pad="explicit",
    )
    result = opset1.result(pool, name="y")
    ov.save_model(ov.Model([result], [data], path.stem), path, compress_to_fp16=False)
    return path


def adaptive_ir(config: TorchAdaptive, path: Path) -> Path:
    data = opset1.parameter(list(config.shape), np.float32, name="x")
    size = opset1.constant(np.array(config.output_size, dtype=np.int32))
    result = opset1.result(opset8.adaptive_avg_pool(data, size), name="y")
    ov.save_model(ov.Model([result], [data], path.stem), path, compress_to_fp16=False)
    return path


def report(failures: list[str], total: int, what: str) -> None:
    if failures:
        listed = "\n".join(f"  {failure}" for failure in failures)
        pytest.fail(
            f"{len(failures)} of {total} {what} configurations fail:\n{listed}", pytrace=False
        )


@dataclass
class AvgPoolOutcome:
    """What happened to one configuration; the arrays are set when `status` is "run"."""

    config: TorchAvgPool
    status: Literal["run", "torch rejects", "openvino refuses", "failure"]
    detail: str = ""
    ours: Array = field(default_factory=lambda: np.empty(0))
    torch_plain: Array = field(default_factory=lambda: np.empty(0))
    openvino_rule: Array = field(default_factory=lambda: np.empty(0))  # OpenVINO's divisor


def check_avg_pool(config: TorchAvgPool, directory: Path) -> AvgPoolOutcome:
    x = torch_input(f"avg:{config.describe()}", config.shape)
    try:
        plain = torch_avg_pool(config, x)
    except RuntimeError as error:  # an empty output; OpenVINO rejects those too
        return AvgPoolOutcome(config, "torch rejects", str(error))
    if list(plain.shape[2:]) != config.output_sizes():
        sizes = f"torch gives {list(plain.shape)}, not the mapping's sizes"
        return AvgPoolOutcome(config, "failure", sizes)
    try:
        path = avg_pool_ir(config, directory / f"avg{len(config.kernel)}d_{config.index}.xml")
    except RuntimeError as error:
        return AvgPoolOutcome(config, "openvino refuses", str(error).strip().splitlines()[-1])
    ours = irpool.load(path).run({"x": x})["y"]
    includes_padding = config.count_include_pad and any(config.padding)
    rule = torch_avg_pool(config, x, math.prod(config.kernel)) if includes_padding else plain
    return AvgPoolOutcome(config, "run", "", ours, plain, rule)


@pytest.fixture(scope="module")
def avg_pool_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[int, list[AvgPoolOutcome]]:
    directory = tmp_path_factory.mktemp("torch_avg_pool")
    return {
        rank: [
            check_avg_pool(random_avg_pool(rank, i), directory) for i in range(AVG_CONFIGS_PER_RANK)
        ]
        for rank in (1, 2, 3)
    }


@requires_torch
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_avg_pool_matches_torch(
    rank: int, avg_pool_outcomes: dict[int, list[AvgPoolOutcome]]
) -> None:
    """irpool equals torch, except in the known difference, where it equals OpenVINO's rule."""
    outcomes = avg_pool_outcomes[rank]
    run = [o for o in outcomes if o.status == "run"]
    assert len(run) >= 0.75 * len(outcomes), Counter(o.status for o in outcomes)
    failures = [f"{o.config.describe()}: {o.detail}" for o in outcomes if o.status == "failure"]
    for outcome in run:
        expected = outcome.openvino_rule if outcome.config.overhangs() else outcome.torch_plain
        if not close(outcome.ours, expected):
            failures.append(
                f"{outcome.config.describe()}: irpool {outcome.ours.ravel()[:6]}…, "
                f"expected {expected.ravel()[:6]}…"
            )
    report(failures, len(outcomes), f"avg_pool{rank}d")


@requires_torch
def test_count_include_pad_ceil_overhang_is_a_known_difference(
    avg_pool_outcomes: dict[int, list[AvgPoolOutcome]], core: Any, tmp_path: Path
) -> None:
    """Known difference 1: where the overhang rule predicts it (and only there), plain torch
    differs from irpool, and irpool equals the CPU plugin."""
    run = [o for outcomes in avg_pool_outcomes.values() for o in outcomes if o.status == "run"]
    overhanging = [o for o in run if o.config.overhangs()]
    assert len(overhanging) >= 20, f"only {len(overhanging)} overhang configurations"
    failures = []
    for outcome in run:
        differs = not close(outcome.ours, outcome.torch_plain)
        if differs != outcome.config.overhangs():
            failures.append(
                f"{outcome.config.describe()}: torch differs={differs}, "
                f"overhang predicted={outcome.config.overhangs()}"
            )
    for outcome in overhanging:
        path = avg_pool_ir(outcome.config, tmp_path / f"overhang_{outcome.config.index}.xml")
        x = torch_input(f"avg:{outcome.config.describe()}", outcome.config.shape)
        (cpu,) = run_cpu(core, path, {"x": x})
        if not close(outcome.ours, cpu):
            failures.append(f"{outcome.config.describe()}: irpool differs from the CPU plugin")
    report(failures, len(run), "avg_pool")


@requires_torch
def test_kernel_beyond_padded_input_is_a_known_difference(
    avg_pool_outcomes: dict[int, list[AvgPoolOutcome]],
) -> None:
    """Known difference 2: with ceil_mode torch accepts a kernel longer than the padded input
    (D + 2p < k; the one window is clipped), while OpenVINO's shape inference rejects it
    ("Kernel after dilation has size ... larger than the data shape after padding"); see also
    `test_pytorch_frontend_model_fails_on_kernel_beyond_padded_input`. Every refusal must be of
    this kind."""
    outcomes = [o for group in avg_pool_outcomes.values() for o in group]
    refused = [o for o in outcomes if o.status == "openvino refuses"]
    assert len(refused) >= 5, "the generator no longer reaches this difference"
    wrong = [
        f"{o.config.describe()}: {o.detail}"
        for o in refused
        if not (o.config.kernel_beyond_padded_input() and "larger than the data" in o.detail)
    ]
    assert not wrong, "\n".join(wrong)
    accepted = [o for o in outcomes if o.status == "run" and o.config.kernel_beyond_padded_input()]
    assert not accepted, [o.config.describe() for o in accepted]


@requires_torch
def test_documented_overhang_example(core: Any, tmp_path: Path) -> None:
    """docs/ops/AvgPool.md#upstream-issues: [0..5], k3 s2 p1, ceil_mode, count_include_pad: torch
    ends 2.5, OpenVINO 5/3."""
    config = TorchAvgPool(0, (1, 1, 6), (3,), (2,), (1,), ceil_mode=True, count_include_pad=True)
    x = np.arange(6, dtype=np.float32).reshape(config.shape)
    path = avg_pool_ir(config, tmp_path / "doc_example.xml")
    ours = irpool.load(path).run({"x": x})["y"]
    np.testing.assert_allclose(ours.ravel(), [1 / 3, 2, 4, 5 / 3], rtol=F32_RTOL)
    np.testing.assert_allclose(run_cpu(core, path, {"x": x})[0], ours, rtol=F32_RTOL)
    np.testing.assert_allclose(torch_avg_pool(config, x).ravel(), [1 / 3, 2, 4, 2.5], rtol=F32_RTOL)
    assert config.overhangs()


@requires_torch
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_adaptive_avg_pool_matches_torch(rank: int, tmp_path: Path) -> None:
    import torch

    configs = [random_adaptive(rank, i) for i in range(ADAPTIVE_CONFIGS_PER_RANK)]
    upsampling = [
        c for c in configs if any(o > d for o, d in zip(c.output_size, c.shape[2:], strict=True))
    ]
    assert len(upsampling) >= 10
    pool = getattr(torch.nn.functional, f"adaptive_avg_pool{rank}d")
    failures = []
    for config in configs:
        x = torch_input(f"adaptive:{config.describe()}", config.shape)
        expected = np.asarray(pool(torch.from_numpy(x), config.output_size).numpy())
        path = adaptive_ir(config, tmp_path / f"adaptive_{config.index}.xml")
        ours = irpool.load(path).run({"x": x})["y"]
        if not close(ours, expected):
            failures.append(
                f"{config.describe()}: irpool {ours.ravel()[:6]}…, torch {expected.ravel()[:6]}…"
            )
    report(failures, len(configs), f"adaptive_avg_pool{rank}d")


# The PyTorch frontend itself: torch modules through ov.convert_model.

FRONTEND_CASES: dict[str, TorchAvgPool] = {
    "1d_ceil_count_include_pad_overhang": TorchAvgPool(
        0, (1, 2, 6), (3,), (2,), (1,), ceil_mode=True, count_include_pad=True),
    "2d_ceil_exclude_pad": TorchAvgPool(
        0, (2, 3, 7, 6), (3, 2), (2, 1), (1, 0), ceil_mode=True, count_include_pad=False),
    "2d_floor_count_include_pad": TorchAvgPool(
        0, (1, 2, 9, 8), (3, 3), (2, 3), (1, 1), ceil_mode=False, count_include_pad=True),
    "3d_default_stride": TorchAvgPool(
        0, (1, 2, 5, 4, 6), (2, 2, 2), None, (0, 0, 0), ceil_mode=False, count_include_pad=True),
    "3d_ceil_count_include_pad": TorchAvgPool(
        0, (1, 1, 5, 6, 7), (2, 3, 2), (2, 2, 3), (1, 1, 0), ceil_mode=True,
        count_include_pad=True),
}  # fmt: skip


class TorchPool:
    """A torch.nn.Module calling one functional pool, for ov.convert_model."""

    @staticmethod
    def module(function: Callable[..., Any], **options: Any) -> Any:
        import torch

        class Pool(torch.nn.Module):
            def forward(self, x: Any) -> Any:
                return function(x, **options)

        return Pool()


@requires_torch
@pytest.mark.parametrize("name", sorted(FRONTEND_CASES))
def test_pytorch_frontend_mapping(name: str, core: Any, tmp_path: Path) -> None:
    """The frontend emits the mapping of docs/ops/AvgPool.md#cross-framework-mapping; irpool runs
    its IR like the CPU plugin."""
    import torch

    config = FRONTEND_CASES[name]
    x = torch_input(f"frontend:{name}", config.shape)
    function = getattr(torch.nn.functional, f"avg_pool{len(config.kernel)}d")
    module = TorchPool.module(
        function,
        kernel_size=config.kernel,
        stride=config.stride,
        padding=config.padding,
        ceil_mode=config.ceil_mode,
        count_include_pad=config.count_include_pad,
    )
    converted = ov.convert_model(module, example_input=torch.from_numpy(x))
    path = tmp_path / "frontend.xml"
    ov.save_model(converted, path, compress_to_fp16=False)
    pools = [op for op in converted.get_ordered_ops() if op.get_type_name() == "AvgPool"]
    assert len(pools) == 1 and pools[0].get_type_info().version_id == "opset14"
    attributes = pools[0].get_attributes()
    assert attributes["rounding_type"] == ("ceil_torch" if config.ceil_mode else "floor")
    if any(config.padding):  # without padding the frontend sets exclude-pad=true (same result)
        assert attributes["exclude-pad"] is not config.count_include_pad

    parameter = converted.get_parameters()[0].get_friendly_name()
    (ours,) = run_irpool(core, path, {parameter: x})
    (cpu,) = run_cpu(core, path, {parameter: x})
    assert close(ours, cpu)
    plain = torch_avg_pool(config, x)
    if config.overhangs():
        assert not close(ours, plain), "torch no longer differs"
        assert close(ours, torch_avg_pool(config, x, math.prod(config.kernel)))
    else:
        assert close(ours, plain)


@requires_torch
def test_pytorch_frontend_adaptive_pool_and_its_reshape_run_as_torch(tmp_path: Path) -> None:
    """The frontend follows AdaptiveAvgPool-8 with a Reshape-1; irpool runs both and gives
    torch's output."""
    import torch

    module = TorchPool.module(torch.nn.functional.adaptive_avg_pool2d, output_size=(3, 7))
    x = torch_input("frontend:adaptive", (1, 2, 5, 4))
    converted = ov.convert_model(module, example_input=torch.from_numpy(x))
    op_types = [op.get_type_name() for op in converted.get_ordered_ops()]
    assert "AdaptiveAvgPool" in op_types and "Reshape" in op_types, op_types
    path = tmp_path / "adaptive.xml"
    ov.save_model(converted, path, compress_to_fp16=False)
    model = irpool.load(path)
    assert model.validate() == []
    (actual,) = model.run({converted.get_parameters()[0].get_friendly_name(): x}).values()
    assert close(actual, module(torch.from_numpy(x)).numpy())


@requires_torch
def test_pytorch_frontend_model_fails_on_kernel_beyond_padded_input(core: Any) -> None:
    """Known difference 2 through the frontend: the module converts (with dynamic shapes) and
    compiles, but OpenVINO never gives torch's one clipped window. With the default CPU config
    inference raises the shape-inference error; with INFERENCE_NUM_THREADS=1 it returns an empty
    [0, 0, 0] tensor instead, silently."""
    import torch

    module = TorchPool.module(
        torch.nn.functional.avg_pool1d, kernel_size=3, stride=3, ceil_mode=True
    )
    x = np.array([[[1.0, 3.0]]], dtype=np.float32)
    config = TorchAvgPool(0, x.shape, (3,), (3,), (0,), ceil_mode=True, count_include_pad=True)
    assert config.kernel_beyond_padded_input()
    assert torch_avg_pool(config, x).tolist() == [[[2.0]]]
    converted = ov.convert_model(module, example_input=torch.from_numpy(x))
    default = core.compile_model(converted, "CPU").create_infer_request()
    with pytest.raises(RuntimeError, match="larger than the data shape after padding"):
        default.infer({0: x})
    single_thread = core.compile_model(converted, "CPU", CPU_CONFIG).create_infer_request()
    (output,) = single_thread.infer({0: x}).values()
    assert output.shape == (0, 0, 0)
