"""Helpers for live differential tests that batch many configurations into one OpenVINO model.

Each configuration contributes its own Parameters and Results (named after its slot), so one
`ov.save_model` and one CPU compile serve a whole batch; irpool runs the same saved file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from tests.differential.harness import CPU_CONFIG, NUMPY

INDEX = json.loads((Path(__file__).resolve().parents[1] / "conformance" / "index.json").read_text())
TOLERANCES: dict[str, dict[str, float]] = INDEX["tolerances"]
NUMPY_TYPES: dict[str, type[np.generic]] = {
    "f32": np.float32, "f16": np.float16, "f64": np.float64,
    "i8": np.int8, "u8": np.uint8, "i32": np.int32, "i64": np.int64,
}  # fmt: skip

Item = TypeVar("Item")
Arrays = dict[str, NDArray[Any]]


class Described(Protocol):
    def describe(self) -> str: ...


Config = TypeVar("Config", bound=Described)


@dataclass
class Outcome(Generic[Config]):
    config: Config
    problem: str = ""  # empty: irpool agrees with the CPU plugin


def chunks(items: Sequence[Item], size: int) -> Iterator[Sequence[Item]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def run_both(
    ov: Any, core: Any, model: Any, path: Path, inputs: Mapping[str, NDArray[Any]]
) -> tuple[Arrays, Arrays]:
    """Save `model`, run the file with irpool and with the CPU plugin; outputs by tensor name.

    irpool's errors or exceptions propagate: a batch that irpool refuses is a failure."""
    ov.save_model(model, path, compress_to_fp16=False)
    return run_file(core, path, inputs)


def run_file(core: Any, path: Path, inputs: Mapping[str, NDArray[Any]]) -> tuple[Arrays, Arrays]:
    """Run the IR file with irpool and with the CPU plugin; outputs by tensor name."""
    ours = irpool.load(path).run(dict(inputs))
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    results = compiled.create_infer_request().infer(dict(inputs))
    theirs = {port.get_any_name(): value for port, value in results.items()}
    return ours, theirs


def same_values(actual: NDArray[Any], expected: NDArray[Any], tolerance: str | None) -> bool:
    """Equal shape and dtype; NaN where the CPU has NaN; values equal, or within the
    tolerances of index.json for `tolerance` (an element type) when it is given."""
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    if tolerance is None:
        return bool(np.array_equal(actual, expected, equal_nan=actual.dtype.kind == "f"))
    wide_actual, wide_expected = actual.astype(np.float64), expected.astype(np.float64)
    if not np.array_equal(np.isnan(wide_actual), np.isnan(wide_expected)):
        return False
    limits = TOLERANCES[tolerance]
    with np.errstate(invalid="ignore"):  # inf - inf where both are the same inf
        difference = np.abs(wide_actual - wide_expected)
    close = difference <= limits["atol"] + limits["rtol"] * np.abs(wide_expected)
    return bool(np.all(close | (wide_actual == wide_expected) | np.isnan(wide_expected)))


def exactly(config: Any, slot: int, ours: Arrays, theirs: Arrays) -> str:
    """A `compare` for `run_batches`: slot `out<slot>` equal bit for bit (NaN where NaN)."""
    actual, expected = ours[f"out{slot}"], theirs[f"out{slot}"]
    return "" if same_values(actual, expected, None) else describe_difference(actual, expected)


def describe_difference(actual: NDArray[Any], expected: NDArray[Any]) -> str:
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return (
            f"irpool {actual.dtype}{list(actual.shape)}, cpu {expected.dtype}{list(expected.shape)}"
        )
    differs = actual != expected
    if actual.dtype.kind == "f":
        differs &= ~(np.isnan(actual) & np.isnan(expected))
    where = np.argwhere(differs)
    first = tuple(int(i) for i in where[0]) if len(where) else ()
    at = f"; first at {list(first)}: irpool {actual[first]!r}, cpu {expected[first]!r}"
    return f"{int(differs.sum())} of {actual.size} values differ" + (at if len(where) else "")


def run_batches(
    ov: Any,
    directory: Path,
    configs: Sequence[Config],
    batch_size: int,
    build: Callable[[Config, int], tuple[Any, list[Any]]],
    make_input: Callable[[Config], NDArray[Any]],
    compare: Callable[[Config, int, Arrays, Arrays], str],
) -> list[Outcome[Config]]:
    """Configurations `batch_size` at a time in one model: `build(config, slot)` gives the
    Parameter `in<slot>` and its Results, `compare` the problem with the slot's outputs."""
    core = ov.Core()
    outcomes: list[Outcome[Config]] = []
    for number, batch in enumerate(chunks(configs, batch_size)):
        nodes = [build(config, slot) for slot, config in enumerate(batch)]
        results = [result for _, slot_results in nodes for result in slot_results]
        model = ov.Model(results, [parameter for parameter, _ in nodes], f"batch{number}")
        inputs = {f"in{slot}": make_input(config) for slot, config in enumerate(batch)}
        ours, theirs = run_both(ov, core, model, directory / f"batch{number}.xml", inputs)
        outcomes += [
            Outcome(config, compare(config, slot, ours, theirs))
            for slot, config in enumerate(batch)
        ]
    return outcomes


def slot_input(shape: Any, element_type: str, slot: int) -> Any:
    """Parameter `in<slot>` of `shape` (a list or a PartialShape) and `element_type` (a key of
    harness.NUMPY, or boolean), its tensor named so too."""
    from openvino import Type, opset1

    kind = Type.boolean if element_type == "boolean" else NUMPY[element_type]
    data = opset1.parameter(shape, kind, name=f"in{slot}")
    data.output(0).set_names({f"in{slot}"})
    return data


def named_result(output: Any, name: str) -> Any:
    """A Result of `output` (a node's output port), the tensor and the Result named `name`."""
    from openvino import opset1

    output.set_names({name})
    return opset1.result(output, name=name)


def batched_outcomes(
    random_config: Callable[[int], Config],
    count: int,
    build: Callable[[Config, int], tuple[Any, list[Any]]],
    make_input: Callable[[Config], NDArray[Any]],
    compare: Callable[[Config, int, Arrays, Arrays], str] = exactly,
    batch_size: int = 60,
) -> Any:
    """A module's `outcomes` fixture: configurations 0 to `count - 1` run by `run_batches`
    once per module (OpenVINO imported only when it runs: modules skip without it first)."""

    @pytest.fixture(scope="module")
    def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome[Config]]:
        import openvino

        directory = tmp_path_factory.mktemp(random_config.__module__.rpartition(".")[2])
        configs = [random_config(index) for index in range(count)]
        return run_batches(openvino, directory, configs, batch_size, build, make_input, compare)

    return outcomes


def failures(outcomes: Sequence[Outcome[Any]], version: str, shown: int = 25) -> str:
    """Every disagreement, for an assertion message (empty when there is none)."""
    failing = [o for o in outcomes if o.problem]
    if not failing:
        return ""
    listed = "\n".join(f"  {o.config.describe()}: {o.problem}" for o in failing[:shown])
    return (
        f"{len(failing)} of {len(outcomes)} configurations differ from OpenVINO {version}; "
        f"rebuild one with random_config(index):\n{listed}"
    )
