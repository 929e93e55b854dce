"""What the differentials of one-input ops with a measured bound share (Gelu, SoftMax, MVN):
each configuration renders as Parameter `in<n>` (ids from its base), the op and Result
`out<n>`; `read_model` gives the shape verdict; runs go in batches compiled once on the CPU
plugin and each output is judged by the op's own `agrees`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.rules import FAMILIES, RULES
from tests import ir
from tests.differential.arithmetic_cases import same
from tests.differential.harness import (
    CPU_CONFIG,
    MAX_REPORTED,
    cpu_refusals,
    declared,
    parameter,
    random_input,
)
from tests.differential.shape_batches import Batches, one_kind


class SingleInput(Protocol):
    index: int
    element_type: str
    shape: str

    def describe(self) -> str: ...


Write = Callable[[Path, str, list[tuple[Any, tuple[str, Any]]]], Path]


def has_static_shape(config: SingleInput) -> bool:
    return all(d.isdigit() or d == "" for d in config.shape.split(","))


def seeded_input(config: SingleInput) -> NDArray[Any]:
    """The input of a static configuration, seeded by its index: `random_input`'s values
    (NaN, ±inf, ±0, huge values, each integer type's extremes), or random booleans."""
    shape = tuple(int(d) for d in config.shape.split(",") if d)
    if config.element_type == "boolean":
        return np.random.default_rng(config.index).random(shape) < 0.5
    return random_input(config.index, config.element_type, shape)


def render_op(
    config: SingleInput,
    output: tuple[str, list[str] | None],
    base: int,
    op: tuple[str, str, str],
) -> tuple[str, str, bytes]:
    """Parameter `in<n>` (id `base`), the op (`base + 2`; `op` is its type, version and
    <data> element) and Result `out<n>` (`base + 3`), and their edges."""
    op_type, version, data = op
    n, op_id = config.index, base + 2
    dims = declared(config.shape)
    out_type, out_dims = output
    inputs = [ir.typed_port(0, config.element_type, dims)]
    outputs = [ir.typed_port(1, out_type, out_dims, f"out{n}")]
    layers = "".join(
        [
            parameter(base, f"in{n}", config.element_type, config.shape),
            ir.layer(op_id, f"op{n}", op_type, version, data, inputs, outputs),
            ir.result(base + 3, f"out{n}", out_dims, ir.precision(out_type)),
        ]
    )
    edges = ir.edge(base, 0, op_id, 0) + ir.edge(op_id, 1, base + 3, 0)
    return layers, edges, b""


@dataclass
class Outcome:
    config: Any
    accepted: bool  # by read_model (and, where the test asks, by the CPU's compile)
    problems: list[str]
    clean: bool = True  # irpool reports no error (a strictness one stops a run)


def read_model_verdicts(
    core: Any, directory: Path, configs: Sequence[SingleInput], write: Write
) -> list[Outcome]:
    """OpenVINO's verdict on each configuration alone in a file, and how irpool's findings
    disagree with it (read and loaded in batches: `Batches`)."""
    items = [(c, (c.element_type, declared(c.shape))) for c in configs]
    verdicts = Batches(core, directory, write).verdicts(items)
    return [
        Outcome(config, verdict.output is not None, verdict.problems)
        for config, verdict in zip(configs, verdicts, strict=True)
    ]


def compile_verdicts_of(
    core: Any,
    directory: Path,
    configs: Sequence[SingleInput],
    write: Write,
    types: set[str],
    ids_each: int = 4,
    kind: Callable[[Any], object] = one_kind,
) -> list[Outcome]:
    """read_model's verdict on each configuration (`Batches`: `write` gives each
    `ids_each` layer ids, batched by `kind`), and the CPU's compile where read_model
    accepts a static model of a runnable type (one of `types`): if compiling fails, irpool
    must report a CPU refusal (the IR214 family) and no other error but strictness ones;
    `clean`: irpool reports no error at all. The compiles are batched (`cpu_refusals`: split
    down to one configuration on failure), but for those irpool says the CPU refuses (IR214),
    compiled alone: each verdict is still a compile of that configuration alone."""
    outcomes, errors, compiled = [], {}, []
    items = [(c, (c.element_type, declared(c.shape))) for c in configs]
    for config, verdict in zip(
        configs,
        Batches(core, directory, write, ids_each=ids_each, kind=kind).verdicts(items),
        strict=True,
    ):
        errors[config.index] = {d.code for d in verdict.errors}
        accepted = verdict.output is not None
        outcomes.append(Outcome(config, accepted, verdict.problems, clean=not verdict.errors))
        if accepted and has_static_shape(config) and config.element_type in types:
            compiled.append(config)
    predicted = [bool(errors[c.index] & FAMILIES["IR214"]) for c in compiled]
    naive = [(c, (c.element_type, declared(c.shape))) for c in compiled]
    alone = [item for item, refuses in zip(naive, predicted, strict=True) if refuses]
    refused = cpu_refusals(core, directory, alone, write, batch_size=1)
    batched = [item for item, refuses in zip(naive, predicted, strict=True) if not refuses]
    refused |= cpu_refusals(core, directory, batched, write)
    return [
        _refusal(outcome, errors[outcome.config.index])
        if outcome.config.index in refused
        else outcome
        for outcome in outcomes
    ]


def _refusal(outcome: Outcome, errors: set[str]) -> Outcome:
    """The outcome of a configuration the CPU cannot compile."""
    refusals = FAMILIES["IR214"]
    problems = [
        p
        for p in outcome.problems
        if not (p.startswith("rejects") and any(c in p for c in refusals))
    ]
    if not errors & refusals or any(not RULES[c].is_strictness for c in errors - refusals):
        problems.append(f"compile fails, irpool reports {errors}")
    return Outcome(outcome.config, False, problems, clean=False)


def compile_verdicts(
    random_config: Callable[[int], SingleInput],
    count: int,
    write: Write,
    types: set[str],
    ids_each: int = 4,
    kind: Callable[[Any], object] = one_kind,
) -> Any:
    """A module's `outcomes` fixture: `compile_verdicts_of` configurations 0 to `count - 1`
    (OpenVINO imported only when it runs: modules skip without it first)."""

    @pytest.fixture(scope="module")
    def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
        import openvino

        core = openvino.Core()
        directory = tmp_path_factory.mktemp(random_config.__module__.rpartition(".")[2])
        configs = [random_config(i) for i in range(count)]
        return compile_verdicts_of(core, directory, configs, write, types, ids_each, kind)

    return outcomes


def exactly(config: Any, ours: NDArray[Any], theirs: NDArray[Any], x: NDArray[Any]) -> bool:
    """An `agrees` for `run_differences`: equal bit for bit (NaN where NaN, -0 not 0)."""
    return same(ours, theirs)


def assert_shapes_agree(outcomes: Sequence[Outcome]) -> None:
    """No configuration's shape verdict differs (the first few that do, in the message)."""
    failing = [o for o in outcomes if o.problems]
    shown = "\n".join(f"{o.config.describe()}: {o.problems[0]}" for o in failing[:MAX_REPORTED])
    assert not failing, f"{len(failing)} of {len(outcomes)} configurations disagree:\n{shown}"


def assert_covers(
    outcomes: Sequence[Outcome], counts: Counter[str], minimum: dict[str, int]
) -> None:
    """The generator reached every part of the space: `counts` (a test's own, with the
    verdicts and runs added here) at least `minimum`."""
    for outcome in outcomes:
        counts["accepted" if outcome.accepted else "rejected"] += 1
        counts["runs"] += outcome.accepted and has_static_shape(outcome.config)
    assert {k: counts[k] for k, v in minimum.items() if counts[k] < v} == {}, counts


def runnable(outcomes: Sequence[Outcome], types: Collection[str], clean: bool = False) -> list[Any]:
    """The configurations to run: accepted, with static shapes, of one of `types` (with
    `clean`, only those irpool reports no error for: a strictness error stops a run)."""
    chosen = [
        o for o in outcomes if o.accepted and has_static_shape(o.config) and (o.clean or not clean)
    ]
    return [o.config for o in chosen if o.config.element_type in types]


def run_differences(
    core: Any,
    directory: Path,
    runnable: Sequence[Any],
    write: Write,
    make_input: Callable[[Any], NDArray[Any]],
    agrees: Callable[[Any, NDArray[Any], NDArray[Any], NDArray[Any]], bool],
    batch_size: int,
) -> str:
    """Runs irpool and the CPU plugin on batches of `runnable`; the outputs `agrees` refuses,
    as an assertion message ("" if none)."""
    failing: list[str] = []
    for start in range(0, len(runnable), batch_size):
        batch = runnable[start : start + batch_size]
        outputs = [(c, (c.element_type, declared(c.shape))) for c in batch]
        path = write(directory, f"run{start}", outputs)
        inputs = {f"in{c.index}": make_input(c) for c in batch}
        ours = irpool.load(path).run(dict(inputs))
        compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
        results = compiled.create_infer_request().infer(inputs)
        theirs = {port.get_any_name(): value for port, value in results.items()}
        for config in batch:
            name, x = f"out{config.index}", inputs[f"in{config.index}"]
            with np.errstate(all="ignore"):  # inf and NaN are values here
                good = agrees(config, ours[name], theirs[name], x)
            if not good:
                failing.append(
                    f"{config.describe()}: irpool {ours[name].ravel()[:5]}, "
                    f"CPU {theirs[name].ravel()[:5]} for {x.ravel()[:5]}"
                )
    shown = "\n".join(failing[:MAX_REPORTED])
    return f"{len(failing)} of {len(runnable)} runs differ:\n{shown}" if failing else ""
