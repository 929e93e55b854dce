"""Live differential test: Convolution-1 and GroupConvolution-1 against OpenVINO.

Configuration #n (rebuilt alone with `random_config(n)`) is one op with 1 to 3 spatial axes,
batch 1 to 3, groups (GroupConvolution: 1 to 4 or depthwise, with channel multipliers), kernel
1 to 4 per axis, strides and dilations 1 to 3, pads 0 to 3, every auto_pad (explicit, valid,
same_upper, same_lower, upper case, absent), on f32 mostly, f16, f64 and integer types; the
filters are a Const, sometimes a Parameter. Some configurations are wrong as users get them
wrong: channels that do not match, lists of another length, a zero stride or dilation, kernels
larger than the padded input, or dims left dynamic or as intervals (shapes only).

Shapes (every configuration): OpenVINO's `read_model` is the oracle. When it accepts the file
irpool must infer its intervals and report no error but strictness rules; when it rejects it,
irpool must report an error of a rule whose runtime "rejects".

Run (accepted configurations with static shapes): batches compiled once on the CPU plugin (f32
inference precision, 1 thread), inputs seeded, a third of the float data holding NaN, ±inf,
±0. NaN and ±inf must be exactly where the CPU puts them; finite outputs within the measured
bound 1e-6 * sum(|x * w|) (docs/ops/Convolution.md#numerics-and-tolerances; f16 outputs one f16 step
more, the CPU
rounds its f32 sums); integer outputs (small values, exact in f32) equal.

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

import irpool
from irpool.execute.engine import tuning
from irpool.execute.kernels import convolution
from irpool.execute.kernels.convolution_winograd import winograd
from tests import ir
from tests.differential.convolution_values import (
    F32_MAX,
    agrees,
    data_values,
    differing_runs,
    filter_values,
    finite_abs,
)
from tests.differential.harness import (
    CPU_CONFIG,
    MAX_REPORTED,
    const,
    declared,
    parameter,
)
from tests.differential.harness import write as write_ir
from tests.differential.shape_batches import Batches, openvino_dims
from tests.scale import examples

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-convolution-1"
OPS = ("Convolution", "GroupConvolution")
PER_OP = examples(300)
BATCH_SIZE = 40
TYPES = ("f32",) * 10 + ("f16", "f64", "i32", "i64", "i8", "u8", "i16", "u16", "u32")
AUTO_PADS = ("explicit",) * 5 + ("valid", "valid", "same_upper", "same_lower", "SAME_UPPER", "")
# Measured: docs/ops/Convolution.md#numerics-and-tolerances
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

    def describe(self) -> str:
        source = "Parameter" if self.filters_input else "Const"
        return (
            f"#{self.index} {self.op} {dict(self.attrs)} on {self.element_type}[{self.data}] "
            f"by {source} {list(self.filters)}"
        )

    @property
    def static(self) -> bool:
        return all(d.isdigit() for d in self.data.split(","))


def _listed(values: list[int]) -> str:
    return ", ".join(map(str, values))


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    op = OPS[index % len(OPS)]
    spatial = rng.choice((1, 2, 2, 2, 3))
    kernel = [rng.choice((1, 1, 2, 3, 3, 4)) for _ in range(spatial)]
    groups = 1
    if op == "GroupConvolution":
        groups = rng.choice((1, 2, 3, 4, 0, 0))  # 0: depthwise
    per_group_in = 1 if groups == 0 else rng.randint(1, 3)
    groups = groups or rng.randint(2, 8)
    out_per_group = rng.choice((1, 1, 2, 3)) if op == "GroupConvolution" else rng.randint(1, 5)
    channels = groups * per_group_in
    if rng.random() < 0.05:
        channels += 1  # do not match the filters
    sizes = [rng.randint(1, 9) for _ in range(spatial)]
    data = [rng.randint(1, 3), channels, *sizes]
    dims = [str(d) for d in data]
    if rng.random() < 0.12:  # dynamic or interval dims: shapes only
        for axis in rng.sample(range(len(dims)), rng.randint(1, len(dims))):
            low = rng.randint(0, data[axis])
            dims[axis] = rng.choice(
                ("?", f"{low}..{data[axis] + 3}", f"{low}..", f"..{data[axis]}")
            )
    shape = "..." if rng.random() < 0.02 else ",".join(dims)
    prefix = (
        [groups, out_per_group, per_group_in]
        if op == "GroupConvolution"
        else [out_per_group * groups, per_group_in * groups]
    )
    filters = (*prefix, *kernel)
    lists = {
        "strides": [rng.choice((1, 1, 2, 3)) for _ in range(spatial)],
        "dilations": [rng.choice((1, 1, 1, 2, 3)) for _ in range(spatial)],
        "pads_begin": [rng.randint(0, 3) for _ in range(spatial)],
        "pads_end": [rng.randint(0, 3) for _ in range(spatial)],
    }
    if rng.random() < 0.04:  # a list of another length
        name = rng.choice(list(lists))
        lists[name] = lists[name] + [1] if rng.random() < 0.5 else lists[name][1:]
    if rng.random() < 0.03:  # a zero stride or dilation
        rng.choice((lists["strides"], lists["dilations"]))[0] = 0
    attrs = [(name, _listed(values)) for name, values in lists.items() if rng.random() < 0.97]
    auto_pad = rng.choice(AUTO_PADS)
    if auto_pad:
        attrs.append(("auto_pad", auto_pad))
    rng.shuffle(attrs)
    element_type = rng.choice(TYPES)
    return Config(index, op, element_type, shape, filters, rng.random() < 0.08, tuple(attrs))


# --------------------------------------------------------------------------------------------
# Rendering: data Parameter (id base), filters (base + 1), the op (base + 2), Result (base + 3)
# --------------------------------------------------------------------------------------------


def render_layers(
    config: Config, output: tuple[str, list[str] | None], base: int, offset: int
) -> tuple[str, str, bytes]:
    n, kind, op = config.index, config.element_type, base + 2
    filter_shape = ",".join(str(d) for d in config.filters)
    layers = [parameter(base, f"in{n}", kind, config.data)]
    blob = b""
    if config.filters_input:
        layers.append(parameter(base + 1, f"w{n}", kind, filter_shape))
    else:
        values = filter_values(config)
        blob = values.astype(values.dtype.newbyteorder("<")).tobytes()
        layers.append(const(base + 1, f"c{n}", kind, filter_shape, offset, len(blob)))
    out_type, out_dims = output
    inputs = [ir.typed_port(0, kind, declared(config.data)), ir.typed_port(1, kind, config.filters)]
    outputs = [ir.typed_port(2, out_type, out_dims, f"out{n}")]
    attributes = ir.data(config.attrs)
    layers.append(ir.layer(op, f"op{n}", config.op, "opset1", attributes, inputs, outputs))
    layers.append(ir.result(base + 3, f"out{n}", out_dims, ir.precision(out_type)))
    edges = [ir.edge(base, 0, op, 0), ir.edge(base + 1, 0, op, 1), ir.edge(op, 2, base + 3, 0)]
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


def check_shapes(core: Any, directory: Path, configs: list[Config]) -> list[Outcome]:
    """OpenVINO's dims of each configuration's output (read with none declared, which irpool
    then loads with OpenVINO's) and how irpool's findings disagree, batched (`Batches`)."""
    items = [(config, (config.element_type, None)) for config in configs]
    verdicts = Batches(core, directory, write, openvino_dims).verdicts(items)
    return [
        Outcome(config, None if verdict.claim is None else verdict.claim[1], verdict.problems)
        for config, verdict in zip(configs, verdicts, strict=True)
    ]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("convolution")
    return check_shapes(core, directory, [random_config(i) for i in range(PER_OP * len(OPS))])


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        config = outcome.config
        verdict = "accepted" if outcome.output is not None else "rejected"
        counts[f"{config.op} {verdict}"] += 1
        counts[f"{dict(config.attrs).get('auto_pad', 'explicit').lower()} {verdict}"] += 1
        runs = outcome.output is not None and config.static
        counts["runs"] += runs
        counts[f"{len(config.filters) - 2 - (config.op == 'GroupConvolution')}D runs"] += runs
        counts["depthwise runs"] += (
            runs
            and config.op == "GroupConvolution"
            and (config.filters[0] > 1 and config.filters[2] == 1)
        )
        counts["non-static output"] += "-1" in (outcome.output or [])
    minimum = {f"{op} accepted": PER_OP // 2 for op in OPS}
    minimum |= {f"{op} rejected": PER_OP // 25 for op in OPS}
    minimum |= {f"{pad} accepted": PER_OP // 10 for pad in ("valid", "same_upper", "same_lower")}
    minimum |= {f"{rank}D runs": PER_OP // 10 for rank in (1, 2, 3)}
    minimum |= {"runs": PER_OP, "depthwise runs": PER_OP // 10, "non-static output": PER_OP // 20}
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problems]
    shown = "\n".join(f"{o.config.describe()}: {o.problems[0]}" for o in failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"


# --------------------------------------------------------------------------------------------
# Run
# --------------------------------------------------------------------------------------------


def reference(
    x: NDArray[Any], w: NDArray[Any], config: Config, out: tuple[int, ...], fill: float = 0.0
) -> Any:
    """The convolution in float64, tap by tap on a copy padded with `fill` (independent of
    irpool's kernel): with |x| and |w| it gives the bound's sum(|x * w|)."""
    grouped = config.op == "GroupConvolution"
    groups = w.shape[0] if grouped else 1
    w = w.reshape(groups * w.shape[1], *w.shape[2:]) if grouped else w
    rank = x.ndim - 2
    attrs = dict(config.attrs)
    read = {
        k: [int(v) for v in attrs.get(k, "").split(",") if v.strip()]
        for k in ("strides", "dilations", "pads_begin", "pads_end")
    }
    strides, dilations = read["strides"] or [1] * rank, read["dilations"] or [1] * rank
    auto_pad = attrs.get("auto_pad", "explicit").lower()
    begins = []
    for axis in range(rank):
        size, k, s, d = x.shape[2 + axis], w.shape[2 + axis], strides[axis], dilations[axis]
        if auto_pad == "explicit":
            begins.append(read["pads_begin"][axis] if read["pads_begin"] else 0)
        elif auto_pad == "valid":
            begins.append(0)
        else:
            total = max(0, (out[2 + axis] - 1) * s + (k - 1) * d + 1 - size)
            begins.append(total // 2 if auto_pad == "same_upper" else total - total // 2)
    reach = [
        (out[2 + a] - 1) * strides[a] + (w.shape[2 + a] - 1) * dilations[a] + 1 for a in range(rank)
    ]
    spatial = [max(r, b + s) for r, b, s in zip(reach, begins, x.shape[2:], strict=True)]
    padded = np.full((*x.shape[:2], *spatial), fill)
    inner = tuple(slice(b, b + s) for b, s in zip(begins, x.shape[2:], strict=True))
    padded[(slice(None), slice(None), *inner)] = x
    result = np.zeros(out)
    per_group_in, per_group_out = x.shape[1] // groups, out[1] // groups
    for taps in product(*(range(k) for k in w.shape[2:])):
        view = padded[
            (
                slice(None),
                slice(None),
                *(
                    slice(
                        j * dilations[a],
                        j * dilations[a] + (out[2 + a] - 1) * strides[a] + 1,
                        strides[a],
                    )
                    for a, j in enumerate(taps)
                ),
            )
        ]
        for g in range(groups):
            channels = view[:, g * per_group_in : (g + 1) * per_group_in]
            weights = w[g * per_group_out : (g + 1) * per_group_out, :, *taps]
            result[:, g * per_group_out : (g + 1) * per_group_out] += np.einsum(
                "nc...,oc->no...", channels, weights
            )
    return result


def crashes_the_cpu(config: Config, output: list[str]) -> bool:
    """The CPU's int8 kernel (brgconv_avx512_i8) segfaults at inference on some i8 layers
    with a window wholly in the padding (measured: data i8[3,3,6,1], filters [3,2,1,1,1],
    pads 3,1 / 3,3, strides 1,2, dilations 2,1), and computes i8 depthwise layers with a
    channel multiplier wrongly (i8[3,8,3,2] by [8,3,1,1,4]: values of the wrong channels,
    where irpool equals the convolution in f64); neither is modelled, nor run here (a crash
    would take the test process down). docs/ops/Convolution.md#known-differences."""
    if config.element_type != "i8":
        return False
    if config.op == "GroupConvolution" and config.filters[2] == 1 and config.filters[1] > 1:
        return True
    attrs = dict(config.attrs)
    if attrs.get("auto_pad", "explicit").lower() != "explicit":
        return False
    read = {k: [int(v) for v in attrs[k].split(",")] for k in
            ("strides", "dilations", "pads_begin")}  # fmt: skip
    sizes = [int(d) for d in config.data.split(",")[2:]]
    kernel = config.filters[-len(sizes) :]
    for axis, size in enumerate(sizes):
        s, d, begin = (read[k][axis] for k in ("strides", "dilations", "pads_begin"))
        for o in range(int(output[2 + axis])):
            if all(not 0 <= o * s - begin + j * d < size for j in range(kernel[axis])):
                return True
    return False


def one_input_channel(config: Config) -> bool:
    """A Convolution with one input channel and 2 or 3 spatial axes, which the CPU runs with
    its brgconv kernel for one channel: it computes some layers wrongly (f32[3,1,3,3] by
    [2,1,4,4], same_lower: outputs of the wrong positions, where irpool equals the
    convolution in f64); not modelled (docs/ops/Convolution.md#known-differences)."""
    return config.op == "Convolution" and config.filters[1] == 1 and len(config.filters) > 3


def known_differences(
    config: Config,
    x: NDArray[Any],
    w: NDArray[Any],
    ours: NDArray[Any],
    theirs: NDArray[Any],
    magnitude: NDArray[np.float64],
) -> NDArray[np.bool_]:
    """Where irpool may differ from the CPU: sums whose terms reach the f32 limit (an f64
    inf is FLT_MAX to the CPU) overflow or not by the order of summation; an inf or NaN
    weight over the padding, which some CPU kernels multiply (NaN) and most skip, as irpool
    does; the one-channel kernel's wrong values (irpool must then equal the f64
    convolution)."""
    known = magnitude > F32_MAX
    if not np.isfinite(w).all():
        ones = np.ones(w.shape)
        padding = reference(np.zeros(x.shape), ones, config, ours.shape, fill=1.0) > 0
        known |= np.isnan(theirs) & ~np.isnan(ours) & padding
    if one_input_channel(config):
        exact = reference(x.astype(np.float64), w.astype(np.float64), config, ours.shape)
        with np.errstate(invalid="ignore"):
            known |= np.isfinite(exact) & (np.abs(ours - exact) <= BOUND * magnitude)
    return known


def feeds(config: Config) -> dict[str, NDArray[Any]]:
    inputs = {f"in{config.index}": data_values(config)}
    if config.filters_input:
        inputs[f"w{config.index}"] = filter_values(config)
    return inputs


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    complete = ("strides", "dilations", "pads_begin", "pads_end")  # else IR203, an error
    runnable = [
        o
        for o in outcomes
        if o.output is not None
        and o.config.static
        and "-1" not in o.output
        and set(complete) <= set(dict(o.config.attrs))
        and not crashes_the_cpu(o.config, o.output)
    ]

    def judge(config: Config, ours: NDArray[Any], theirs: NDArray[Any]) -> NDArray[np.bool_]:
        x, w = data_values(config), filter_values(config)
        with np.errstate(all="ignore"):  # inf and NaN are values here
            # A finite output has only finite products: the rest add nothing to its bound.
            magnitude = reference(finite_abs(x), finite_abs(w), config, theirs.shape)
            good = agrees(ours, theirs, BOUND * magnitude)
            if not good.all():
                good |= known_differences(config, x, w, ours, theirs, magnitude)
        return good

    failing = differing_runs(runnable, tmp_path, write, feeds, judge, BATCH_SIZE)
    shown = "\n".join(failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(runnable)} runs differ:\n{shown}"


def winograd_config(index: int) -> Config:
    """A 3x3 stride-1 2-D Convolution of 16 to 48 input channels: what Winograd computes."""
    rng = random.Random(f"{SEED}-winograd-{index}")
    sizes = [rng.randint(1, 12) for _ in range(2)]
    data = f"{rng.randint(1, 2)},{rng.randint(16, 48)},{sizes[0]},{sizes[1]}"
    pads = {k: _listed([rng.randint(0, 2) for _ in range(2)]) for k in ("pads_begin", "pads_end")}
    attrs = {"strides": "1, 1", "dilations": "1, 1", **pads}
    attrs["auto_pad"] = rng.choice(("explicit", "explicit", "same_upper", "same_lower"))
    channels = int(data.split(",")[1])
    return Config(
        index, "Convolution", "f32", data, (rng.randint(1, 40), channels, 3, 3), False,
        tuple(attrs.items()),
    )  # fmt: skip


def test_winograd_matches_openvino(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Winograd F(2x2, 3x3) on every layer it can take (the clock picks it only where it is
    faster): within the bound, NaN and inf where the CPU puts them."""
    monkeypatch.setattr(tuning, "pick", lambda key, found, run: convolution.WINOGRAD)
    calls: list[object] = []
    monkeypatch.setattr(convolution, "winograd", lambda *a: calls.append(a) or winograd(*a))
    core = ov.Core()
    outputs = []
    for index in range(PER_OP // 10):
        outcome = check_shapes(core, tmp_path, [winograd_config(index)])[0]
        assert not outcome.problems, outcome.config.describe()
        if outcome.output is not None:  # else a kernel larger than the padded input
            outputs.append((outcome.config, (outcome.config.element_type, outcome.output)))
    configs = [config for config, _ in outputs]
    path = write(tmp_path, "winograd", outputs)
    inputs = {f"in{config.index}": data_values(config) for config in configs}
    ours = irpool.load(path).run(dict(inputs))
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    results = compiled.create_infer_request().infer(inputs)
    theirs = {port.get_any_name(): value for port, value in results.items()}
    failing = []
    for config in configs:
        name, x, w = f"out{config.index}", inputs[f"in{config.index}"], filter_values(config)
        with np.errstate(all="ignore"):
            magnitude = reference(finite_abs(x), finite_abs(w), config, theirs[name].shape)
            good = agrees(ours[name], theirs[name], BOUND * magnitude)
            if not good.all():
                good |= known_differences(config, x, w, ours[name], theirs[name], magnitude)
        if not good.all():
            failing.append(f"{config.describe()}: {(~good).sum()} differ")
    assert not failing, "\n".join(failing)
    assert len(calls) >= len(configs) // 2  # the rest hold an inf or NaN weight
