"""Differential test: irpool's shape inference and verdicts against the real OpenVINO runtime.

Every configuration is a small IR written as XML text (Parameter -> AvgPool or AdaptiveAvgPool
-> Result), with attributes drawn from a seeded random generator, so runs are deterministic and
configuration #n can be rebuilt alone with `random_config(n)`. About a third are invalid on
purpose. OpenVINO's `read_model` is the oracle: a file it reads is accepted, and its inferred
shapes are the truth. Each verdict is the one of the configuration's file alone, though most
are read and loaded `BATCH_SIZE` to a file (`check_batch`). Checked for every configuration:

1. OpenVINO accepts: irpool infers the same output shape for every layer it infers, and reports
   no IR301/IR302 (the declared dims are rewritten to OpenVINO's inferred ones before irpool runs,
   so a declared-dim error means irpool's inference differs from OpenVINO's on some port).
2. OpenVINO rejects: irpool reports at least one error that is not a declared-claim error
   (IR301/IR302/IR305): the runtime never checks those claims, so they cannot explain a rejection.
   Moreover one of the errors must come from a rule whose `runtime` is "rejects": an error list
   made only of strictness rules tells the user that OpenVINO would load the file.
3. OpenVINO accepts: every error irpool reports is a strictness rule (`Rule.is_strictness`).

One documented exception to 1 and 3: irpool refuses a zero or negative (wrapped) kernel, stride
or dilation outright (IR206, IR205). OpenVINO rejects those once the dim is static, but on
dynamic dims it accepts them and infers shapes from wrapped unsigned arithmetic (`[1,1,2..5]`
with stride -1 gives `[1,1,?]`); irpool does not reproduce those shapes.

All mismatches are gathered and reported together, grouped by kind, so one run shows every class.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import irpool
from irpool.rules import RULES, Severity
from tests import ir
from tests.differential.pool_shapes import (
    CLAIM_RULES,
    Claims,
    Dims,
    OutputSize,
    PortClaim,
    naive_claims,
    pick,
    random_output_size,
    random_shape,
    write_batch,
    write_ir,
)
from tests.differential.shape_batches import (
    BATCH_SIZE,
    errors_by_position,
    positioned,
    predicts_rejection,
    read_in_batches,
    shapes_by_position,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

CONFIG_COUNT = 5000
SEED = "irpool-differential-shapes-1"
MAX_REPORTED = 20


# --------------------------------------------------------------------------------------------
# Configurations
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    index: int
    op_type: str  # "AvgPool" or "AdaptiveAvgPool"
    opset: str
    shape: str  # the data Parameter's `shape` attribute, verbatim
    element_type: str
    attrs: tuple[tuple[str, str], ...]  # the pool's <data> attributes, verbatim, in order
    output_size: OutputSize | None = None

    @property
    def label(self) -> str:
        """The op version the opset selects: AvgPool-14, AdaptiveAvgPool-8, AvgPool@opset17."""
        number = int(self.opset.removeprefix("opset"))
        if self.op_type == "AdaptiveAvgPool":
            return "AdaptiveAvgPool-8" if 8 <= number <= 16 else f"{self.op_type}@{self.opset}"
        versions = {**dict.fromkeys(range(1, 14), 1), 14: 14, 15: 14, 16: 16}
        version = versions.get(number)
        return f"AvgPool-{version}" if version else f"AvgPool@{self.opset}"

    def traits(self) -> str:
        """What tells mismatch classes apart, to pick varied examples."""
        attrs = dict(self.attrs)
        traits = [self.label, attrs.get("rounding_type", "floor").lower()]
        lists = ("kernel", "strides", "dilations", "pads_begin", "pads_end")
        if any("-" in attrs.get(name, "") for name in lists):
            traits.append("negative list value")
        return " ".join(traits)

    def describe(self) -> str:
        parts = [f"#{self.index} {self.op_type} {self.opset}"]
        parts.append(f"in shape={self.shape!r} element_type={self.element_type!r}")
        parts += [f"{name}={value!r}" for name, value in self.attrs]
        if self.output_size is not None:
            size = self.output_size
            source = "Parameter" if size.values is None else f"Const {list(size.values)}"
            parts.append(f"output_size={source} {size.element_type} shape={list(size.shape)}")
        return " ".join(parts)


# Weighted choices; the odd ones out are invalid or belong to no opset with the op.
ELEMENT_TYPES = {
    "f32": 60, "f16": 8, "bf16": 4, "i32": 6, "u8": 4, "u1": 1, "boolean": 3, "f64": 3,
    "dynamic": 3, "FP32": 2, "float32": 2,
}  # fmt: skip
AVG_POOL_OPSETS = {
    "opset1": 20, "opset8": 8, "opset13": 5, "opset14": 20, "opset15": 5, "opset16": 35,
    "opset17": 4, "opset0": 3,
}  # fmt: skip
ADAPTIVE_OPSETS = {"opset8": 50, "opset12": 20, "opset16": 20, "opset1": 5, "opset17": 5}


def format_list(rng: random.Random, values: list[int]) -> str:
    return rng.choice([",", ", "]).join(str(v) for v in values)


def corrupt_list(rng: random.Random, values: list[int]) -> str:
    """A list attribute OpenVINO rejects or reads differently from how it is written."""
    items = [str(v) for v in values]
    spot = rng.randrange(len(items)) if items else 0
    kind = rng.choice(
        ["short", "long", "zero", "negative", "junk", "float", "blank", "empty", "trailing"]
    )
    if kind == "short" and items:
        items.pop(spot)
    elif kind == "long":
        items.append(str(rng.randint(1, 3)))
    elif kind == "zero" and items:
        items[spot] = "0"
    elif kind == "negative" and items:
        items[spot] = "-1"
    elif kind == "junk" and items:
        items[spot] = rng.choice([f"{items[spot]}x", "a", f" {items[spot]} "])
    elif kind == "float" and items:
        items[spot] = f"{items[spot]}.7"
    elif kind == "blank" and items:
        items.insert(spot, "")
    elif kind == "empty":
        return ""
    elif kind == "trailing":
        return ",".join(items) + ","
    return ",".join(items)


def list_attr(
    rng: random.Random, attrs: dict[str, str], name: str, values: list[int], *, missing: float
) -> None:
    """Set `name` to `values` (possibly corrupted), or leave it out with probability `missing`."""
    roll = rng.random()
    if roll < missing:
        return
    attrs[name] = corrupt_list(rng, values) if roll < missing + 0.05 else format_list(rng, values)


def choice_attr(
    rng: random.Random, attrs: dict[str, str], name: str, common: list[str], odd: list[str]
) -> None:
    """Mostly a common value; sometimes an odd spelling or a bad value; sometimes absent."""
    roll = rng.random()
    if roll < 0.08:
        return
    attrs[name] = rng.choice(odd) if roll < 0.14 else rng.choice(common)


def random_avg_pool_attrs(rng: random.Random, spatial: int, opset: str) -> dict[str, str]:
    attrs: dict[str, str] = {}
    big = rng.random() < 0.1  # kernels that may not fit in the (padded) input
    kernel = [rng.randint(5, 14) if big else rng.randint(1, 4) for _ in range(spatial)]
    list_attr(rng, attrs, "kernel", kernel, missing=0.01)
    list_attr(rng, attrs, "strides", [rng.randint(1, 4) for _ in range(spatial)], missing=0.01)
    wants_dilations = opset == "opset16" or rng.random() < 0.1
    if wants_dilations:
        dilations = [rng.choice([1, 1, 2, 3]) for _ in range(spatial)]
        list_attr(rng, attrs, "dilations", dilations, missing=0.08)
    wide = rng.random() < 0.15  # pads that may reach or pass the kernel
    for name in ("pads_begin", "pads_end"):
        pads = [rng.randint(0, 6) if wide else rng.randint(0, 2) for _ in range(spatial)]
        list_attr(rng, attrs, name, pads, missing=0.05)
    choice_attr(
        rng, attrs, "exclude-pad", ["true", "false"], ["1", "0", "True", "FALSE", "yes", ""]
    )
    choice_attr(
        rng,
        attrs,
        "auto_pad",
        ["explicit", "explicit", "same_upper", "same_lower", "valid"],
        ["SAME_UPPER", "Valid", "notset", "bogus", ""],
    )
    choice_attr(
        rng,
        attrs,
        "rounding_type",
        ["floor", "ceil", "ceil_torch"],
        ["CEIL", "Ceil_Torch", "round", ""],
    )
    if rng.random() < 0.03:
        attrs["exclude_pad"] = rng.choice(["true", "false"])  # misspelled: OpenVINO ignores it
    return attrs


def random_config(index: int) -> Config:
    """Configuration #index; the same on every run and platform (string seeds are hashed)."""
    rng = random.Random(f"{SEED}:{index}")
    rank = rng.choices([3, 4, 5, 2, 6, 0, None], [30, 30, 30, 2, 2, 1, 5])[0]
    shape = random_shape(rng, rank)
    # With a dynamic or unsupported rank, the lists still need some length.
    spatial = rank - 2 if rank is not None and 3 <= rank <= 5 else rng.randint(1, 3)
    element_type = pick(rng, ELEMENT_TYPES)
    if rng.random() < 0.25:
        attrs: dict[str, str] = {}
        if rng.random() < 0.05:
            attrs["output_type"] = "i64"  # the specification's example carries it; ignored
        size = random_output_size(rng, spatial)
        opset = pick(rng, ADAPTIVE_OPSETS)
        return Config(
            index, "AdaptiveAvgPool", opset, shape, element_type, tuple(attrs.items()), size
        )
    opset = pick(rng, AVG_POOL_OPSETS)
    attrs = random_avg_pool_attrs(rng, spatial, opset)
    return Config(index, "AvgPool", opset, shape, element_type, tuple(attrs.items()))


# --------------------------------------------------------------------------------------------
# Running both sides
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenVinoVerdict:
    error: str | None  # None: read_model accepted the file
    shapes: dict[str, str]  # layer name -> output partial shape, as OpenVINO prints it
    claims: Claims | None  # port claims equal to OpenVINO's inference (accepted only)


def ov_dims(shape: Any) -> Dims:
    if shape.rank.is_dynamic:
        return None
    return tuple(d.get_length() if d.is_static else -1 for d in shape)


def ov_claim(node: Any) -> PortClaim:
    element_type = node.get_output_element_type(0).get_type_name()
    return PortClaim(ov_dims(node.get_output_partial_shape(0)), ir.PRECISIONS[element_type])


def run_openvino(core: Any, path: Path) -> OpenVinoVerdict:
    try:
        model = core.read_model(path)
    except Exception as error:  # the runtime's verdict, whatever its exception type
        lines = [line for line in str(error).splitlines() if line.strip()]
        return OpenVinoVerdict(" | ".join(lines[-2:])[:300], {}, None)
    return verdict_of({node.get_friendly_name(): node for node in model.get_ordered_ops()})


def verdict_of(nodes: dict[str, Any]) -> OpenVinoVerdict:
    """OpenVINO's verdict on an accepted configuration from its nodes, by name."""
    shapes = {
        name: str(node.get_output_partial_shape(0))
        for name, node in nodes.items()
        if node.get_output_size() == 1 and name != "out"
    }
    size = ov_claim(nodes["output_size"]) if "output_size" in nodes else None
    claims = Claims(ov_claim(nodes["in"]), size, ov_claim(nodes["pool"]))
    return OpenVinoVerdict(None, shapes, claims)


@dataclass(frozen=True)
class Outcome:
    config: Config
    openvino: OpenVinoVerdict
    irpool_shapes: dict[str, str]
    irpool_errors: tuple[str, ...]  # "IR303: message"
    problems: tuple[tuple[str, str], ...]  # (kind, detail)

    @property
    def accepted(self) -> bool:
        return self.openvino.error is None

    def report(self) -> str:
        if self.openvino.error is None:
            seen = f"accepts, pool -> {self.openvino.shapes.get('pool')}"
        else:
            seen = f"rejects: {self.openvino.error}"
        errors = "; ".join(self.irpool_errors) or "none"
        lines = [
            self.config.describe(),
            f"    OpenVINO: {seen}",
            f"    irpool:   pool -> {self.irpool_shapes.get('pool', 'not inferred')}; "
            f"errors: {errors[:400]}",
        ]
        lines += [f"    MISMATCH {kind}: {detail}" for kind, detail in self.problems]
        return "\n".join(lines)


def compare(
    config: Config,
    verdict: OpenVinoVerdict,
    shapes: dict[str, str],
    errors: Sequence[irpool.Diagnostic],
) -> Outcome:
    """The outcome of a configuration: irpool's `shapes` (one output's, by layer name) and
    `errors` against OpenVINO's `verdict`."""
    codes = {d.code for d in errors}
    problems: list[tuple[str, str]] = []
    if verdict.error is None and refuses_degenerate_window(errors):
        pass  # the documented exception above
    elif verdict.error is None:
        for name, expected in verdict.shapes.items():
            if name in shapes and shapes[name] != expected:
                problems.append(
                    (f"{name} shape differs", f"OpenVINO {expected}, irpool {shapes[name]}")
                )
        if "pool" not in shapes and not errors:
            problems.append(("pool silently not inferred", "no error, no inferred shape"))
        for code in sorted(codes & {"IR301", "IR302"}):
            problems.append((f"{code} on OpenVINO's own dims", "irpool infers another shape"))
        for code in sorted(c for c in codes if not RULES[c].is_strictness):
            problems.append(
                (f"accepted file gets {code} ({RULES[code].name})", "not a strictness rule")
            )
    elif not codes - CLAIM_RULES:
        problems.append(("rejected file passes", f"irpool errors: {sorted(codes) or 'none'}"))
    elif all(RULES[code].is_strictness for code in codes):
        problems.append(
            ("rejected file gets only strictness errors", f"irpool errors: {sorted(codes)}")
        )
    return Outcome(
        config,
        verdict,
        shapes,
        tuple(f"{d.code}: {d.message}" for d in errors),
        tuple(problems),
    )


def refuses_degenerate_window(errors: Sequence[irpool.Diagnostic]) -> bool:
    """irpool reported a zero or wrapped negative kernel, stride or dilation."""
    window_attributes = ("kernel", "strides", "dilations")
    return any(
        (d.code == "IR206" or (d.code == "IR205" and "wraps around" in d.message))
        and d.message.split(":")[0].split()[0] in window_attributes
        for d in errors
    )


def check_config(core: Any, directory: Path, config: Config) -> Outcome:
    naive = naive_claims(config)
    path = write_ir(directory, config, naive)
    verdict = run_openvino(core, path)
    claims = verdict.claims or naive
    if claims != naive:  # else the file written holds these claims already
        path = write_ir(directory, config, claims)
    try:
        model = irpool.load(path)
    except Exception as error:
        crash = (("irpool raised", f"{type(error).__name__}: {error}"),)
        return Outcome(config, verdict, {}, (), crash)
    shapes = {
        name: str(found[0]) for name, found in model.output_shapes().items() if len(found) == 1
    }
    errors = [d for d in model.validate() if d.severity is Severity.ERROR]
    return compare(config, verdict, shapes, errors)


Found = tuple[list[dict[str, str]], list[list[irpool.Diagnostic]]]


def load_batch(path: Path, count: int) -> Found | None:
    """irpool's shapes and errors of each configuration in a batch file; None when irpool
    raises or a finding cannot be told to one configuration."""
    try:
        model = irpool.load(path)
    except Exception:
        return None
    shapes = shapes_by_position(model, count)
    errors = errors_by_position(model, count, 4)
    return None if shapes is None or errors is None else (shapes, errors)


def read_batch(core: Any, directory: Path, batch: list[tuple[Config, Claims]]) -> Any:
    """OpenVINO's model of the configurations in one file (raises where it refuses)."""
    return core.read_model(write_batch(directory, batch))


def batch_verdicts(model: Any, count: int) -> list[OpenVinoVerdict] | None:
    """OpenVINO's verdict on each configuration of an accepted batch, by its nodes' names."""
    nodes: list[dict[str, Any]] = [{} for _ in range(count)]
    for node in model.get_ordered_ops():
        place = positioned(node.get_friendly_name())
        if place is None:
            return None
        nodes[place[1]][place[0]] = node
    return [verdict_of(mine) for mine in nodes]


def empty_const(config: Config) -> bool:
    return config.output_size is not None and config.output_size.values == ()


def check_batch(core: Any, directory: Path, configs: list[Config]) -> dict[int, Outcome]:
    """`check_config` of each configuration, from batch files: irpool's findings on one file
    of them all predict which OpenVINO refuses; those are read alone (their irpool findings
    are the batch's: a refused file keeps its naive claims), the rest in batches, whose
    OpenVINO claims are written to one more batch for irpool. A configuration a batch cannot
    judge is checked alone, as is an output_size Const of no values (its own file has an
    empty .bin, which OpenVINO refuses)."""
    outcomes = {c.index: check_config(core, directory, c) for c in configs if empty_const(c)}
    naive = [(config, naive_claims(config)) for config in configs if not empty_const(config)]
    found = load_batch(write_batch(directory, naive), len(naive)) if naive else None
    if found is None:
        return outcomes | {c.index: check_config(core, directory, c) for c, _ in naive}
    batched = []
    for position, (config, claims) in enumerate(naive):
        shapes, errors = found[0][position], found[1][position]
        if not predicts_rejection(errors):
            batched.append((config, claims))
            continue
        verdict = run_openvino(core, write_ir(directory, config, claims))
        outcomes[config.index] = (
            check_config(core, directory, config)  # irpool was wrong: as it always is alone
            if verdict.error is None
            else compare(config, verdict, shapes, errors)
        )
    for batch, model in read_in_batches(batched, partial(read_batch, core, directory)):
        verdicts = None if model is None else batch_verdicts(model, len(batch))
        claimed = None
        if verdicts is not None:
            claimed = [
                (c, v.claims or naive) for (c, naive), v in zip(batch, verdicts, strict=True)
            ]
        found = None if claimed is None else load_batch(write_batch(directory, claimed), len(batch))
        if verdicts is None or found is None:
            outcomes |= {c.index: check_config(core, directory, c) for c, _ in batch}
            continue
        for position, (config, _) in enumerate(batch):
            shapes, errors = found[0][position], found[1][position]
            outcomes[config.index] = compare(config, verdicts[position], shapes, errors)
    return outcomes


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    core = ov.Core()
    directory = tmp_path_factory.mktemp("differential")
    configs = [random_config(i) for i in range(CONFIG_COUNT)]
    outcomes: dict[int, Outcome] = {}
    for start in range(0, CONFIG_COUNT, BATCH_SIZE):
        outcomes |= check_batch(core, directory, configs[start : start + BATCH_SIZE])
    return [outcomes[config.index] for config in configs]


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    """Guard against a generator that drifts into testing nothing interesting."""
    accepted = [o for o in outcomes if o.accepted]
    rejected = [o for o in outcomes if not o.accepted]
    assert len(outcomes) >= 1000
    assert len(accepted) >= 0.4 * len(outcomes), f"only {len(accepted)} accepted"
    assert len(rejected) >= 0.15 * len(outcomes), f"only {len(rejected)} rejected"

    def feature_counts(group: list[Outcome]) -> Counter[str]:
        counts: Counter[str] = Counter()
        for outcome in group:
            config = outcome.config
            attrs = dict(config.attrs)
            counts[f"{config.op_type} {config.opset}"] += 1
            pool = outcome.openvino.shapes.get("pool", "")
            counts[f"rank {pool.count(',') + 1 if pool != '[...]' else 'dynamic'}"] += 1
            counts[f"auto_pad={attrs.get('auto_pad')}"] += 1
            counts[f"rounding_type={attrs.get('rounding_type')}"] += 1
            counts[f"exclude-pad={attrs.get('exclude-pad')}"] += 1
            if any(mark in pool for mark in ("?", "..")):
                counts["non-static output"] += 1
        return counts

    counts = feature_counts(accepted)
    wanted = [
        "AvgPool opset1", "AvgPool opset14", "AvgPool opset16", "AdaptiveAvgPool opset8",
        "rank 3", "rank 4", "rank 5", "rank dynamic", "auto_pad=same_upper",
        "auto_pad=same_lower", "auto_pad=valid", "auto_pad=explicit", "rounding_type=ceil",
        "rounding_type=ceil_torch", "exclude-pad=false", "non-static output",
    ]  # fmt: skip
    assert [f for f in wanted if counts[f] < 10] == [], counts


def test_irpool_matches_openvino(outcomes: list[Outcome]) -> None:
    failing = [o for o in outcomes if o.problems]
    if not failing:
        return
    by_kind: Counter[str] = Counter(kind for o in failing for kind, _ in o.problems)
    summary = "\n".join(f"  {count:5d}  {kind}" for kind, count in by_kind.most_common())
    shown = "\n".join(o.report() for o in take_examples(failing, MAX_REPORTED))
    pytest.fail(
        f"{len(failing)} of {len(outcomes)} configurations disagree with OpenVINO "
        f"{ov.__version__}.\nMismatch kinds:\n{summary}\n\nExamples (one per kind and op traits "
        f"first):\n{shown}",
        pytrace=False,
    )


def take_examples(failing: list[Outcome], limit: int) -> list[Outcome]:
    """Round-robin over (mismatch kind, op traits), so every class shows before any repeats."""
    queues: dict[tuple[str, str], list[Outcome]] = {}
    for outcome in failing:
        queues.setdefault((outcome.problems[0][0], outcome.config.traits()), []).append(outcome)
    chosen: list[Outcome] = []

    def rounds() -> Iterator[Outcome]:
        depth = 0
        while any(len(queue) > depth for queue in queues.values()):
            for queue in queues.values():
                if len(queue) > depth:
                    yield queue[depth]
            depth += 1

    for outcome in rounds():
        if len(chosen) == limit:
            break
        chosen.append(outcome)
    return chosen
