"""Live differential test: ReduceProd-1 against OpenVINO (tests/differential/single_layer.py).

Configuration #n (`random_config(n)`) multiplies data of rank 0 to 5 (static, dynamic or
interval dims; values with NaN, ±inf, ±0, huge values and each integer type's extremes; 8-bit
data of products where the CPU's kernels agree, `eight_bit_feed`; sometimes a Const that
OpenVINO folds) over axes given as a Const (negative,
repeated, empty, out of range; axes fed at run time crash the CPU plugin with a segmentation
fault in some configurations, so none are), with `keep_dims` true, false or absent.
IRPOOL_TEST_SCALE scales the number of configurations (default 300).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.execute.kernels.reduce_order import AVX2_LANES, lanes
from tests.differential.harness import CPU_CONFIG, PER_OP
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

SEED = "irpool-differential-reduce-prod-1"


def random_config(index: int) -> Config:
    rng = random.Random(f"{SEED}-{index}")
    rank = rng.choice((0, 1, 2, 3, 3, 4, 4, 5))
    dims = random_shape(rng, rank)
    shape = ",".join(dims)
    values = None
    if all(d.isdigit() for d in dims) and rng.random() < 0.15:
        size = int(np.prod([int(d) for d in dims], dtype=np.int64))
        values = tuple(float(rng.randint(-4, 4)) for _ in range(size))
    kind = rng.choice((*DATA_TYPES, "i8", "u8"))
    if values is not None and kind in ("u8", "i8", "u32"):
        kind = "i32"  # constant 8-bit or u32 data: a documented gap (docs/ops/ReduceProd.md)
    feed = None
    if kind in ("u8", "i8") and all(d.isdigit() for d in dims):
        feed = eight_bit_feed(rng, kind, [int(d) for d in dims])
    data = Source(kind, shape, values, feed)
    count = rng.choice((0, 1, 1, 1, 2, 2, 3))
    span = max(rank, 1)
    lowest = -span - (rng.random() < 0.05)  # now and then out of range
    axes = tuple(float(rng.randint(lowest, span - 1)) for _ in range(count))
    axes_type = rng.choice(("i64", "i32"))
    scalar = count == 1 and rng.random() < 0.3
    axes_source = Source(axes_type, "" if scalar else str(count), axes)
    keep = rng.choice(("true", "false", None))
    attrs = () if keep is None else (("keep_dims", keep),)
    return Config(index, "ReduceProd", "opset1", attrs, (data, axes_source))


def eight_bit_feed(rng: random.Random, kind: str, dims: list[int]) -> tuple[float, ...]:
    """8-bit data whose products stay where every kernel of the CPU agrees (docs/ops/ReduceProd.md):
    zeros, ones (-1 too for i8) and, in the whole tensor, two larger values (up to 181
    for u8, whose product may saturate at 255; i8: one up to ±127)."""
    size = int(np.prod(dims, dtype=np.int64))
    small = (0, 1, 1, 1, -1) if kind == "i8" else (0, 1, 1, 1)
    values = [float(rng.choice(small)) for _ in range(size)]
    larger = [float(rng.randint(2, 181)) for _ in range(2)] if kind == "u8" else []
    if kind == "i8":
        larger = [float(rng.choice((-1, 1)) * rng.randint(2, 127))]
    for value in larger[:size]:
        values[rng.randrange(size)] = value
    return tuple(values)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    configs = [random_config(i) for i in range(PER_OP)]
    return outcomes_of(tmp_path_factory.mktemp("reduce_prod"), configs, data_type)


def test_generator_covers_the_space(outcomes: list[Outcome]) -> None:
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        data = outcome.config.inputs[0]
        counts["8-bit runs"] += outcome.outputs is not None and data.feed is not None
    minimum = {"accepted": PER_OP // 2, "rejected": PER_OP // 50, "runs": PER_OP // 5}
    minimum |= {"8-bit runs": PER_OP // 30}
    assert_covers(outcomes, counts, minimum)


def test_shapes_match_openvino(outcomes: list[Outcome]) -> None:
    assert_shapes_agree(outcomes)


def test_runs_match_openvino(outcomes: list[Outcome], tmp_path: Path) -> None:
    assert_runs_agree(outcomes, tmp_path)


def test_a_row_of_8_is_multiplied_in_the_lanes_of_an_avx2_vector(tmp_path: Path) -> None:
    """[0, NaN, 0, 0, inf, 0, 0, 0]: with AVX2 lanes 0 and 4 give 0 x inf, the default NaN
    (sign set), which MULPS keeps as its first operand against lanes 1 and 5's NaN; on AVX-512
    one by one, so the NaN fed comes first and stays positive."""
    parameter = ov.opset1.parameter([1, 8], np.float32, name="in0")
    axes = ov.opset1.constant(np.array([1], np.int64))
    product = ov.opset1.reduce_prod(parameter, axes, False)
    product.output(0).get_tensor().set_names({"out0"})
    path = tmp_path / "reduce_prod.xml"
    ov.save_model(ov.Model([product], [parameter]), path, compress_to_fp16=False)
    data = np.array([[0, np.nan, 0, 0, np.inf, 0, 0, 0]], np.float32)
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)
    theirs = compiled.create_infer_request().infer({0: data})[compiled.output(0)]
    assert np.signbit(theirs).tolist() == [lanes() == AVX2_LANES]
    ours = irpool.load(path).run({"in0": data})["out0"]
    assert ours.tobytes() == theirs.tobytes()
