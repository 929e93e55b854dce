"""Live differential test: ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1
against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is one op with 1 to 3 spatial axes,
batch 1 to 3, groups (1 to 4, or one channel per group), kernel 1 to 4 per axis, strides
and dilations 1 to 3, pads 0 to 3, output_padding (below the stride mostly, absent often),
every auto_pad (explicit, valid, same_upper, same_lower, absent), with no `output_shape`, a
Const one (values around the natural size, sometimes smaller than the pads allow) or a
Parameter one (run-time values), on f32 mostly, f16, f64 and integer types; the filters a
Const, sometimes a Parameter. Some configurations are wrong as users get them wrong:
channels that do not match, lists of another length, an output_shape of another length, or
dims left dynamic or as intervals (shapes only).

Shapes (every configuration): OpenVINO's `read_model` is the oracle. Run (accepted
configurations with static shapes): batches compiled once on the CPU plugin (f32 inference
precision, 1 thread), inputs seeded, a third of the float data holding NaN, ±inf, ±0. NaN
and ±inf must be exactly where the CPU puts them; finite outputs within the measured bound
1e-6 * sum(|x * w|) (docs/ops/ConvolutionBackpropData.md#numerics-and-tolerances; f16
outputs one f16 step more); integer outputs (small values, exact in f32) equal.

IRPOOL_TEST_SCALE scales the number of configurations per op (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from irpool.rules import FAMILIES
from tests import ir
from tests.differential.convolution_values import (
    agrees,
    data_values,
    differing_runs,
    filter_values,
    finite_abs,
)
from tests.differential.harness import (
    MAX_REPORTED,
    const,
    cpu_refusals,
    declared,
    parameter,
)
from tests.differential.harness import write as write_ir
from tests.differential.shape_batches import Batches, Verdict, openvino_dims
from tests.scale import examples

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-convolution-backprop-1"
OPS = ("ConvolutionBackpropData", "GroupConvolutionBackpropData")
PER_OP = examples(300)
BATCH_SIZE = 40
TYPES = ("f32",) * 12 + ("f16", "f64", "i32", "i8", "u8")
AUTO_PADS = ("explicit",) * 5 + ("valid", "same_upper", "same_lower", "SAME_UPPER", "")
# Measured: docs/ops/ConvolutionBackpropData.md#numerics-and-tolerances
BOUND = 1e-6  # of sum(|x * w|) per output


@dataclass(frozen=True)
class Config:
    index: int
    op: str
    element_type: str
    data: str  # the data Parameter's shape attribute ("1,4,?,7" or "..." for a dynamic rank)
    filters: tuple[int, ...]
    filters_input: bool  # the filters are a Parameter, not a Const
    attrs: tuple[tuple[str, str], ...]
    output_shape: tuple[int, ...] | None  # the `output_shape` input's values, if any
    shape_input: bool  # `output_shape` is a Parameter, not a Const
    batch_dynamic: bool  # the data Parameter declares its batch "?" (its values are static)

    def describe(self) -> str:
        source = "Parameter" if self.filters_input else "Const"
        given = ""
        if self.output_shape is not None:
            kind = "Parameter" if self.shape_input else "Const"
            given = f" output_shape {kind} {list(self.output_shape)}"
        return (
            f"#{self.index} {self.op} {dict(self.attrs)} on {self.element_type}[{self.declared}] "
            f"by {source} {list(self.filters)}{given}"
        )

    @property
    def static(self) -> bool:
        return all(d.isdigit() for d in self.data.split(","))

    @property
    def declared(self) -> str:
        """The data Parameter's shape attribute."""
        if not self.batch_dynamic or self.data == "...":
            return self.data
        return ",".join(["?", *self.data.split(",")[1:]])

    @property
    def grouped(self) -> bool:
        return self.op == "GroupConvolutionBackpropData"


def _listed(values: list[int]) -> str:
    return ", ".join(map(str, values))


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    op = OPS[index % len(OPS)]
    spatial = rng.choice((1, 2, 2, 2, 3))
    kernel = [rng.choice((1, 2, 2, 3, 4)) for _ in range(spatial)]
    groups = rng.choice((1, 2, 3, 4, 0)) if op == OPS[1] else 1
    per_group_in = 1 if groups == 0 else rng.randint(1, 3)
    groups = groups or rng.randint(2, 6)
    per_group_out = 1 if per_group_in == 1 and rng.random() < 0.5 else rng.randint(1, 4)
    channels = groups * per_group_in
    if rng.random() < 0.05:
        channels += 1  # do not match the filters
    sizes = [rng.randint(1, 6) for _ in range(spatial)]
    data = [rng.randint(1, 3), channels, *sizes]
    dims = [str(d) for d in data]
    if rng.random() < 0.12:  # dynamic or interval dims: shapes only
        for axis in rng.sample(range(len(dims)), rng.randint(1, len(dims))):
            low = rng.randint(0, data[axis])
            dims[axis] = rng.choice(
                ("?", f"{low}..{data[axis] + 3}", f"{low}..", f"..{data[axis]}")
            )
    shape = "..." if rng.random() < 0.02 else ",".join(dims)
    if op == OPS[1]:
        filters = (groups, per_group_in, per_group_out, *kernel)
    else:
        filters = (per_group_in * groups, per_group_out * groups, *kernel)
    strides = [rng.choice((1, 1, 2, 2, 3)) for _ in range(spatial)]
    lists = {
        "strides": strides,
        "dilations": [rng.choice((1, 1, 1, 2, 3)) for _ in range(spatial)],
        "pads_begin": [rng.choice((0, 0, 1, 2, 3)) for _ in range(spatial)],
        "pads_end": [rng.choice((0, 0, 1, 2, 3)) for _ in range(spatial)],
    }
    if rng.random() < 0.6:
        lists["output_padding"] = [rng.randint(0, max(s, d) - 1) for s, d in
                                   zip(strides, lists["dilations"], strict=True)]  # fmt: skip
        if rng.random() < 0.1:
            lists["output_padding"][0] += rng.randint(1, 3)  # beyond the stride
    if rng.random() < 0.04:  # a list of another length
        name = rng.choice(list(lists))
        lists[name] = lists[name] + [1] if rng.random() < 0.5 else lists[name][1:]
    attrs = [(name, _listed(values)) for name, values in lists.items()]
    auto_pad = rng.choice(AUTO_PADS)
    if auto_pad:
        attrs.append(("auto_pad", auto_pad))
    rng.shuffle(attrs)
    output_shape = None
    if rng.random() < 0.35:
        natural = [
            (size - 1) * s + (k - 1) * d + 1
            for size, s, k, d in zip(sizes, strides, kernel, lists["dilations"], strict=False)
        ]
        output_shape = tuple(max(0, n + rng.randint(-3, 2)) for n in natural)
        if rng.random() < 0.04:
            output_shape = output_shape[1:] if len(output_shape) > 1 else (*output_shape, 4)
    element_type = rng.choice(TYPES)
    shape_input = output_shape is not None and rng.random() < 0.25
    return Config(
        index, op, element_type, shape, filters, rng.random() < 0.08, tuple(attrs),
        output_shape, shape_input, rng.random() < (0.7 if shape_input else 0.1),
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Rendering: ids 2 * base + (data 0, filters 1, op 2, Result 3, output_shape 4)
# --------------------------------------------------------------------------------------------


def shape_values(config: Config) -> NDArray[np.int64]:
    assert config.output_shape is not None
    return np.array(config.output_shape, np.int64)


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    n, kind, first = config.index, config.element_type, 2 * base
    op = first + 2
    filter_shape = ",".join(str(d) for d in config.filters)
    layers = [parameter(first, f"in{n}", kind, config.declared)]
    blob = b""
    if config.filters_input:
        layers.append(parameter(first + 1, f"w{n}", kind, filter_shape))
    else:
        values = filter_values(config)
        blob = values.astype(values.dtype.newbyteorder("<")).tobytes()
        layers.append(const(first + 1, f"c{n}", kind, filter_shape, offset, len(blob)))
    out_type, out_dims = output
    inputs = [
        ir.typed_port(0, kind, declared(config.declared)),
        ir.typed_port(1, kind, config.filters),
    ]
    edges = [ir.edge(first, 0, op, 0), ir.edge(first + 1, 0, op, 1)]
    if config.output_shape is not None:
        count = str(len(config.output_shape))
        if config.shape_input:
            layers.append(parameter(first + 4, f"s{n}", "i64", count))
        else:
            values = shape_values(config).astype("<i8").tobytes()
            layers.append(
                const(first + 4, f"os{n}", "i64", count, offset + len(blob), 8 * int(count))
            )
            blob += values
        inputs.append(ir.typed_port(2, "i64", [count]))
        edges.append(ir.edge(first + 4, 0, op, 2))
    port = len(inputs)
    outputs = [ir.typed_port(port, out_type, out_dims, f"out{n}")]
    attributes = ir.data(config.attrs)
    layers.append(ir.layer(op, f"op{n}", config.op, "opset1", attributes, inputs, outputs))
    layers.append(ir.result(first + 3, f"out{n}", out_dims, ir.precision(out_type)))
    edges.append(ir.edge(op, port, first + 3, 0))
    return "".join(layers), "".join(edges), blob


def write(directory: Path, name: str, configs: list[tuple[Config, Any]]) -> Path:
    return write_ir(directory, name, configs, render_layers)


# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    config: Config
    output: list[str] | None  # OpenVINO's output dims ("-1" where not static), if it accepts
    problems: list[str]
    compiles: bool  # static, accepted, and the CPU compiles it
    errors: set[str]  # irpool's error codes


def check_shapes(core: Any, directory: Path, configs: list[Config]) -> list[Outcome]:
    """OpenVINO's verdict on the shapes and irpool's agreement; `compiles` is left to
    `check_compiles` (it says whether the CPU is to try)."""
    items = [(config, (config.element_type, None)) for config in configs]
    batches = Batches(core, directory, write, openvino_dims, ids_each=8)
    return [
        outcome_of(config, verdict)
        for config, verdict in zip(configs, batches.verdicts(items), strict=True)
    ]


def outcome_of(config: Config, verdict: Verdict) -> Outcome:
    problems = verdict.problems
    errors = {d.code for d in verdict.errors}
    output = None if verdict.claim is None else verdict.claim[1]
    # OpenVINO's dims are dynamic, the run's static
    run_time = config.shape_input or config.batch_dynamic
    if verdict.output is None or not config.static or ("-1" in (output or ["-1"]) and not run_time):
        return Outcome(config, output, problems, compiles=False, errors=errors)
    return Outcome(config, output, problems, compiles=True, errors=errors)


def check_compiles(core: Any, directory: Path, checked: list[Outcome]) -> None:
    """Whether the CPU compiles each configuration `check_shapes` left to it; where it does
    not, irpool must report a CPU refusal (IR214). Those irpool says the CPU refuses are
    compiled alone, the others 16 to a model (`cpu_refusals`: split down to one on failure),
    so each verdict is still a compile of that configuration alone."""
    tried = [o for o in checked if o.compiles]

    def items(predicted: bool) -> list[tuple[Config, tuple[str, list[str] | None]]]:
        return [
            (o.config, (o.config.element_type, o.output))
            for o in tried
            if bool(o.errors & FAMILIES["IR214"]) == predicted
        ]

    refused = cpu_refusals(core, directory, items(True), write, batch_size=1)
    refused |= cpu_refusals(core, directory, items(False), write)
    for outcome in tried:
        if outcome.config.index in refused:
            outcome.compiles = False
            if not outcome.errors & FAMILIES["IR214"]:
                outcome.problems.append(f"compile fails, irpool reports {outcome.errors}")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("convolution_backprop")
    checked = check_shapes(core, directory, [random_config(i) for i in range(PER_OP * len(OPS))])
    check_compiles(core, directory, checked)
    return checked


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        verdict = "accepted" if outcome.output is not None else "rejected"
        counts[f"{config.op} {verdict}"] += 1
        counts[f"{dict(config.attrs).get('auto_pad', 'explicit').lower()} {verdict}"] += 1
        runs = outcome.compiles
        counts["refused by the CPU"] += (
            outcome.output is not None and config.static and not outcome.compiles
        )
        counts["runs"] += runs
        counts["output_shape runs"] += runs and config.output_shape is not None
        counts["run-time output_shape runs"] += runs and config.shape_input
        counts["non-static output"] += "-1" in (outcome.output or [])
    minimum = {f"{op} accepted": PER_OP // 2 for op in OPS}
    minimum |= {f"{op} rejected": PER_OP // 25 for op in OPS}
    minimum |= {f"{pad} accepted": PER_OP // 10 for pad in ("valid", "same_upper", "same_lower")}
    minimum |= {"runs": PER_OP, "output_shape runs": PER_OP // 4, "non-static output": PER_OP // 20}
    minimum |= {"run-time output_shape runs": PER_OP // 20}
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problems]
    shown = "\n".join(f"{o.config.describe()}: {o.problems[0]}" for o in failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"


# --------------------------------------------------------------------------------------------
# Run
# --------------------------------------------------------------------------------------------


def _read(config: Config, rank: int) -> dict[str, list[int]]:
    attrs = dict(config.attrs)
    read = {
        k: [int(v) for v in attrs.get(k, "").split(",") if v.strip()]
        for k in ("strides", "dilations", "pads_begin", "pads_end", "output_padding")
    }
    for name, neutral in (("strides", 1), ("dilations", 1), ("output_padding", 0)):
        read[name] = read[name] or [neutral] * rank
    for name in ("pads_begin", "pads_end"):
        read[name] = read[name] or [0] * rank
    return read


def reference(x: NDArray[Any], w: NDArray[Any], config: Config, out: tuple[int, ...]) -> Any:
    """The transposed convolution in float64, input position by position and tap by tap into
    the full output, then cut at the begin pads (independent of irpool's kernel): with |x|
    and |w| it gives the bound's sum(|x * w|)."""
    rank = x.ndim - 2
    read = _read(config, rank)
    groups = w.shape[0] if config.grouped else 1
    w = w.reshape(groups * w.shape[1], *w.shape[2:]) if config.grouped else w
    per_in, per_out = x.shape[1] // groups, w.shape[1]
    strides, dilations = read["strides"], read["dilations"]
    auto_pad = dict(config.attrs).get("auto_pad", "explicit").lower()
    full = [
        (x.shape[2 + a] - 1) * strides[a] + (w.shape[2 + a] - 1) * dilations[a] + 1
        for a in range(rank)
    ]
    begins = []
    for a in range(rank):
        if auto_pad == "explicit":
            begins.append(read["pads_begin"][a])
        elif auto_pad == "valid" or config.output_shape is None:
            begins.append(0)
        else:
            padding = max(full[a] - out[2 + a] + read["output_padding"][a], 0)
            begins.append(padding - padding // 2 if auto_pad == "same_upper" else padding // 2)
    size = [max(f, b + o) for f, b, o in zip(full, begins, out[2:], strict=True)]
    result = np.zeros((x.shape[0], groups * per_out, *size))
    for taps in product(*(range(k) for k in w.shape[2:])):
        target = tuple(
            slice(j * dilations[a], j * dilations[a] + (x.shape[2 + a] - 1) * strides[a] + 1,
                  strides[a])
            for a, j in enumerate(taps)
        )  # fmt: skip
        for g in range(groups):
            channels = x[:, g * per_in : (g + 1) * per_in]
            weights = w[g * per_in : (g + 1) * per_in, :, *taps]
            result[:, g * per_out : (g + 1) * per_out, *target] += np.einsum(
                "nc...,co->no...", channels, weights
            )
    cut = tuple(slice(b, b + o) for b, o in zip(begins, out[2:], strict=True))
    return result[(slice(None), slice(None), *cut)]


def known_garbage(config: Config, out: tuple[int, ...]) -> bool:
    """Layers whose CPU outputs are partly undefined, not modelled
    (docs/ops/ConvolutionBackpropData.md#known-differences): same_upper or same_lower with an
    output_shape and a nonzero output_padding (NaN and stale values on some borders); i8 or
    u8 data (the plugin's int8 kernels) with an output_shape reaching past the outputs the
    data reaches."""
    if config.output_shape is None:
        return False
    rank = len(out) - 2
    read = _read(config, rank)
    auto_pad = dict(config.attrs).get("auto_pad", "explicit").lower()
    if auto_pad.startswith("same") and any(read["output_padding"]):
        return True
    if config.element_type not in ("i8", "u8"):
        return False
    sizes = [int(d) for d in config.data.split(",")[2:]]
    kernel = config.filters[-rank:]
    begins = read["pads_begin"] if auto_pad == "explicit" else [0] * rank
    reach = [
        (size - 1) * s + (k - 1) * d + 1 - b
        for size, s, k, d, b in zip(sizes, read["strides"], kernel, read["dilations"], begins,
                                    strict=True)
    ]  # fmt: skip
    return any(o > r for o, r in zip(out[2:], reach, strict=True))


def feeds(config: Config) -> dict[str, NDArray[Any]]:
    inputs = {f"in{config.index}": data_values(config)}
    if config.filters_input:
        inputs[f"w{config.index}"] = filter_values(config)
    if config.shape_input:
        inputs[f"s{config.index}"] = shape_values(config)
    return inputs


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    runnable = [o for o in outcomes if o.compiles]

    def judge(config: Config, ours: NDArray[Any], theirs: NDArray[Any]) -> NDArray[np.bool_] | None:
        if known_garbage(config, theirs.shape):
            return None
        x, w = data_values(config), filter_values(config)
        with np.errstate(all="ignore"):  # inf and NaN are values here
            magnitude = reference(finite_abs(x), finite_abs(w), config, theirs.shape)
            return agrees(ours, theirs, BOUND * magnitude)

    failing = differing_runs(runnable, tmp_path, write, feeds, judge, BATCH_SIZE)
    shown = "\n".join(failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(runnable)} runs differ:\n{shown}"
