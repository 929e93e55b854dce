"""Live differential test: Gather-1, -7 and -8 against OpenVINO
(tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) gathers from data of rank 1 to 4 (static, dynamic,
interval dims, sometimes a dynamic rank or a Const) with an indices Const of rank 0 to 3
(values in and out of [-dim, dim-1]: negative ones count from the end, out-of-range ones give
0; Gather-1 and -7 on the CPU give 0 for negative ones too) or an indices Parameter, an axis
Const (scalar or [1], in and out of range, i32 or i64) and `batch_dims` from -3 to 3, written or
absent. IRPOOL_TEST_SCALE scales the number of
configurations (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.differential.harness import NUMPY, PER_OP
from tests.differential.single_layer import (
    DATA_TYPES,
    Config,
    Outcome,
    Source,
    assert_covers,
    assert_runs_agree,
    assert_shapes_agree,
    data_type,
    outcomes_of,
    random_shape,
)

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

SEED = "irpool-differential-gather-1"


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    rank = rng.choice((1, 2, 2, 3, 3, 4))
    dims = random_shape(rng, rank)
    axis = rng.randint(-rank, rank - 1) if rng.random() < 0.95 else rng.choice((-rank - 1, rank))
    batch_dims = rng.choice((0, 0, 0, 0, 1, 1, 2, -1, -2, -3, 3))
    batch = max(0, min(batch_dims, axis % rank))
    indices_dims = [d if d.isdigit() else str(rng.randint(1, 3)) for d in dims[:batch]]
    indices_dims += [str(rng.randint(0, 3)) for _ in range(rng.choice((0, 1, 1, 2)))]
    length = int(dims[axis % rank]) if -rank <= axis < rank and dims[axis % rank].isdigit() else 4
    count = int(np.prod([int(d) for d in indices_dims], dtype=np.int64))
    picks = tuple(float(rng.randint(-length - 2, length + 1)) for _ in range(count))
    kind = rng.choice(("i64", "i32", "i32", "i64", "u8", "i16"))
    if rng.random() < 0.08:
        feed = tuple(float(rng.randint(-length, length - 1)) for _ in range(count))
        indices = Source(kind, ",".join(indices_dims), feed=feed if length else None)
    else:
        indices = Source(kind, ",".join(indices_dims), picks)
    data_values = None
    data_shape = "..." if rng.random() < 0.04 else ",".join(dims)
    if all(d.isdigit() for d in dims) and rng.random() < 0.1:
        size = int(np.prod([int(d) for d in dims], dtype=np.int64))
        data_values = tuple(float(rng.randint(-50, 50)) for _ in range(size))
    data = Source(rng.choice(DATA_TYPES), data_shape, data_values)
    axis_source = Source(rng.choice(("i64", "i32")), rng.choice(("", "", "1")), (float(axis),))
    version = rng.choice(("opset8",) * 6 + ("opset7", "opset7", "opset1", "opset1"))
    attrs = () if rng.random() < 0.1 else (("batch_dims", str(batch_dims)),)
    if version == "opset1" and rng.random() < 0.9:
        attrs = ()  # Gather-1 has no batch_dims
    return Config(index, "Gather", version, attrs, (data, indices, axis_source))


def reads_outside(config: Config) -> bool:
    """The known differences: on 1-D data of a 16-, 32- or 64-bit integer type the CPU plugin
    reads outside the data for an index out of [-dim, dim-1] (garbage, measured with i32,
    i64, u16 and u32; floats and 8-bit types give 0 there, as on every higher rank), and
    Gather-1 and -7 read outside it for a negative index unless the data is f32 (which gives
    0); irpool gives 0."""
    data, indices = config.inputs[0], config.inputs[1]
    picks = indices.values if indices.values is not None else indices.feed
    if config.version != "opset8" and data.type != "f32" and min(picks or (0,)) < 0:
        return data.values is None  # a constant is folded, negative indices from the end
    if not data.shape.isdigit() or np.dtype(NUMPY[data.type]).kind == "f":
        return False
    if np.dtype(NUMPY[data.type]).itemsize == 1 or picks is None:
        return False
    length = int(data.shape)
    return any(not -length <= p < length for p in picks)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("gather"), configs, data_type)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        accepted = outcome.outputs is not None
        counts["batch_dims accepted"] += (
            accepted and dict(outcome.config.attrs).get("batch_dims", "0") != "0"
        )
        counts[f"{outcome.config.version} runs"] += accepted and outcome.config.static
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 20, "runs": PER_OP // 4}
    minimum |= {"batch_dims accepted": PER_OP // 10}
    assert_covers(
        outcomes, counts, minimum | {"opset1 runs": PER_OP // 20, "opset7 runs": PER_OP // 20}
    )


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree([o for o in outcomes if not reads_outside(o.config)], tmp_path)
