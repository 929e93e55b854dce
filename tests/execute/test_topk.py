"""TopK-1, -3 and -11: shapes and refusals as OpenVINO 2026.4.1's `read_model` and CPU plugin
give them, values and indices as the CPU computes them (measured, docs/ops/TopK.md); the live
comparison is tests/differential/test_topk.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.cpu import topk_order
from irpool.cpu.compilation import compiled_for_layer
from irpool.cpu.isa import AVX2, AVX512_CORE
from irpool.cpu.refusals import check_refusals
from irpool.cpu.topk_order import held_blocked
from irpool.element_types import element_type
from irpool.execute.errors import ExecutionError
from irpool.execute.kernels.topk import run_topk
from irpool.execute.registry import OutputSpec
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.topk import TopK1, TopK3, TopK11
from irpool.rules import CPU_TOPK_K_RANGE
from irpool.shape import Dim, Shape
from tests.execute.running import _no_weights, compute
from tests.ops.inferring import const, data, infer, parse

ATTRS = {"axis": 1, "mode": "max", "sort": "value"}


@pytest.mark.parametrize(
    ("shape", "k", "axis", "expected"),
    [  # read_model's shapes
        ("2,5", 3, 1, "2,3"),
        ("2,5", 7, 1, "2,7"),  # beyond the axis: read_model takes it (the CPU does not)
        ("2,5", 0, 1, "2,0"),
        ("?,5", 3, 0, "3,5"),
        ("2..8,5", 9, 0, "9,5"),
        ("2,5", 3, -1, "2,3"),
    ],
)
def test_shapes(shape: str, k: int, axis: int, expected: str) -> None:
    values, indices = infer(
        TopK3(ATTRS | {"axis": axis, "index_element_type": "i64"}), data(shape), const(k)
    )
    assert values.shape == indices.shape == parse(expected)
    assert indices.element_type == "i64"


def test_k_known_at_run_time_gives_an_interval() -> None:
    k = TensorInfo(element_type("i64"), Shape.of())
    (values, _) = infer(TopK11(ATTRS | {"axis": 0}), data("2..8,5"), k)
    assert values.shape == parse("..8,5")


@pytest.mark.parametrize(
    ("op", "shape", "k", "message"),
    [
        (TopK3(ATTRS), "2,5", const(-1), r"must be greater or equal to zero. \(got -1\)"),
        (TopK3(ATTRS), "2,5", const([3]), "The 'K' input must be a scalar."),
        (TopK3(ATTRS | {"axis": 2}), "2,5", const(3), r"Axis 2 out of the tensor rank range"),
        (TopK3(ATTRS), "", const(1), "Input rank must be greater than 0."),
        (
            TopK1(ATTRS),
            "2,5",
            TensorInfo(element_type("u8"), Shape.of(), np.array(3, np.uint8)),
            "must be i8, i32 or i64",
        ),
        (
            TopK3(ATTRS),
            "2,5",
            TensorInfo(element_type("f32"), Shape.of(), np.array(3.0, np.float32)),
            "has to be an integer type",
        ),
        (
            TopK11(ATTRS | {"sort": "none", "stable": True}),
            "2,5",
            const(3),
            "Stable sort can only be used",
        ),
    ],
)
def test_what_read_model_refuses(op: Any, shape: str, k: TensorInfo, message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        infer(op, data(shape), k)


@pytest.mark.parametrize(
    ("shape", "k", "refused"),
    [
        ("2,5", 7, True),
        ("2,5", 0, True),
        ("?,5", 7, True),
        ("2,..4", 5, True),
        ("2,5", 5, False),
        ("2,?", 7, False),
    ],
)
def test_k_the_cpu_refuses(shape: str, k: int, refused: bool) -> None:
    reported: list[OpReport] = []
    check_refusals(
        TopK3(ATTRS),
        [data(shape), const(k)],
        LayerContext(frozenset(), reported.append, _no_weights),
    )
    assert [r.code for r in reported] == ([CPU_TOPK_K_RANGE] if refused else [])


X = np.array([[3, 1, 4, 1, 5, 9, 2, 6]], np.float32)


@pytest.mark.parametrize(
    ("mode", "sort", "values", "indices"),
    [
        ("max", "value", [9, 6, 5], [5, 7, 4]),
        ("max", "none", [9, 6, 5], [5, 7, 4]),  # measured: none comes in value order
        ("max", "index", [5, 9, 6], [4, 5, 7]),
        ("min", "value", [1, 1, 2], [1, 3, 6]),  # ties in index order
        ("min", "index", [1, 1, 2], [1, 3, 6]),
    ],
)
def test_values_and_indices(mode: str, sort: str, values: list[float], indices: list[int]) -> None:
    op = TopK11(
        {
            "axis": 1,
            "mode": mode,
            "sort": sort,
            "index_element_type": "i32",
            "stable": sort != "none",
        }
    )
    result, picked = compute(op, [X, np.array(3, np.int64)])
    assert result is not None and picked is not None and picked.dtype == np.int32
    assert result.tolist() == [values] and picked.tolist() == [indices]


@pytest.mark.parametrize("k", [0, 9])
def test_k_out_of_range_at_run_time_is_refused(k: int) -> None:
    with pytest.raises(ExecutionError, match="takes k in"):
        compute(TopK3(ATTRS), [X, np.array(k, np.int64)])


TIED = [[1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0]]
WITH_NAN = [[3, 1, 3, 2, 1, 3, 2, np.nan, 5, np.nan]]
TWO_MAXIMA = [[1.0 if place in (2, 32) else 0.0 for place in range(80)]]


@pytest.mark.parametrize(
    ("rows", "k", "mode", "sort", "dynamic", "indices", "isa"),
    [  # the CPU plugin's indices (measured, docs/ops/TopK.md#the-cpus-kernels)
        (TIED, 8, "max", "value", False, [9, 2, 3, 0, 5, 6, 7, 10], AVX512_CORE),  # heap
        (TIED, 8, "min", "index", False, [1, 2, 4, 5, 6, 7, 8, 11], AVX512_CORE),  # heap, by index
        (TIED, 3, "max", "value", True, [0, 2, 3], AVX512_CORE),  # dynamic shapes: heap
        (WITH_NAN, 8, "max", "value", False, [7, 8, 9, 5, 0, 2, 3, 6], AVX512_CORE),  # NaN first
        (WITH_NAN, 4, "min", "value", False, [9, 1, 7, 4], AVX512_CORE),  # bubble: NaN displaces
        (TWO_MAXIMA, 1, "max", "none", False, [32], AVX512_CORE),  # lanes: 32 in lane 0 beats
        # 2 in lane 2
        ([TWO_MAXIMA[0][:40]], 1, "max", "none", False, [2], AVX512_CORE),  # 32 past the whole
        # vectors of 16
        ([TWO_MAXIMA[0][:40]], 1, "max", "none", False, [32], AVX2),  # 5 whole vectors of 8
        ([TWO_MAXIMA[0][:36]], 1, "max", "none", False, [2], AVX2),  # 32 past them
    ],
)
def test_the_cpus_kernels_tie_and_nan_order(
    monkeypatch: pytest.MonkeyPatch,
    rows: list[list[float]],
    k: int,
    mode: str,
    sort: str,
    dynamic: bool,
    indices: list[int],
    isa: str,
) -> None:
    monkeypatch.setattr(topk_order, "host_cpu_isa", lambda: isa)
    x = np.array(rows, np.float32)
    op = TopK11({"axis": -1, "mode": mode, "sort": sort, "index_element_type": "i32"})
    shape = Shape((Dim.dynamic(), Dim.dynamic())) if dynamic else Shape.of(*x.shape)
    inputs = [TensorInfo(element_type("f32"), shape), const(k)]
    layer_op = compiled_for_layer(op, inputs)
    specs = [OutputSpec.of("f32"), OutputSpec.of("i32")]
    _, picked = run_topk(layer_op, [x, np.array(k, np.int64)], specs)
    assert picked is not None and picked.tolist() == [indices]


@pytest.mark.parametrize(
    ("chain", "blocked"),
    [
        (["Parameter", "Relu"], False),
        (["Parameter", "Transpose"], False),
        (["Parameter", "Convolution"], True),  # the CPU holds it nChw16c: its kernel differs
        (["Parameter", "Convolution", "Add", "Sigmoid"], True),
        (["Parameter", "MaxPool", "Reshape"], False),  # a Reshape makes it planar
    ],
)
def test_what_the_cpu_may_hold_blocked(chain: list[str], blocked: bool) -> None:
    types = dict(enumerate(chain))
    producers = {(layer, 0): (layer - 1, 0) for layer in range(1, len(chain))}
    assert held_blocked((len(chain) - 1, 0), types, producers) is blocked
