"""MatMul-1: its booleans, shapes and refusals as OpenVINO 2026.4's `read_model` and builders give
them, and its kernel: within the bound of docs/ops/Convolution.md#numerics-and-tolerances of the
CPU's golden vectors, non-finite values
only in the outputs whose dot product holds them (whatever BLAS path NumPy takes), integers as
the CPU computes them, BLAS held to IRPOOL_THREADS (measured, docs/ops/MatMul.md). The live
comparison is tests/differential/test_mat_mul.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import irpool
from irpool.check.attributes import read_attributes
from irpool.element_types import element_type
from irpool.execute.engine import blas
from irpool.execute.registry import OutputSpec, kernel_of
from irpool.ops.base import ShapeError, TensorInfo
from irpool.ops.mat_mul import MatMul1, matmul_shape
from irpool.parse.values import read_partial_shape
from irpool.rules import NON_CANONICAL_SPELLING, REINTERPRETED_ATTRIBUTE_VALUE
from irpool.shape import Shape
from tests import ir
from tests.execute.running import compute, quiet_context

GOLDEN = Path(__file__).resolve().parents[1] / "golden_cnn_ops"
NAN, INF = float("nan"), float("inf")


def parse_shape(text: str) -> Shape:
    shape = read_partial_shape(text).value
    assert shape is not None
    return shape


# Text -> the value read_model uses (any other text keeps the default false: IR205).
BOOLEANS = [("true", True), ("True", True), ("TRUE", True), ("1", True), ("false", False),
            ("FALSE", False), ("0", False), ("yes", None), ("2", None), (" true", None),
            ("", None), ("on", None)]  # fmt: skip


@pytest.mark.parametrize(("text", "value"), BOOLEANS)
def test_transpose_flags_read_as_openvino_reads_them(text: str, value: bool | None) -> None:
    read = read_attributes(MatMul1, (("transpose_a", text), ("transpose_b", "false")))
    codes = [code for code, _, _ in read.findings]
    assert read.values["transpose_a"] is bool(value)
    if value is None:
        assert codes == [REINTERPRETED_ATTRIBUTE_VALUE]
        assert "OpenVINO ignores it and uses false" in read.findings[0][1]
    else:
        assert codes in ([], [NON_CANONICAL_SPELLING])
    assert read.usable


def test_absent_flags_are_false() -> None:
    assert read_attributes(MatMul1, ()).values == {"transpose_a": False, "transpose_b": False}


# a, b, transpose_a, transpose_b -> the output OpenVINO infers (measured with the builders).
SHAPES = [
    ("[3]", "[3]", False, False, "[]"),
    ("[3]", "[3,4]", True, False, "[4]"),
    ("[2,3]", "[3]", False, True, "[2]"),
    ("[5,1,2,3]", "[4,3,6]", False, False, "[5,4,2,6]"),
    ("[3,2]", "[4,3]", True, True, "[2,4]"),
    ("[?,3]", "[3,?]", False, False, "[?,?]"),
    ("[1..4,3]", "[2..6,5]", False, False, "[1..4,5]"),
    ("[2,1..4]", "[5..6,5]", False, False, "[2,5]"),  # interval inner dims: never refused
    ("[2,3]", "[4..6,5]", False, False, "[2,5]"),
    ("[2..4,3]", "[3,1..5]", True, True, "[3,3]"),
    ("[1..3,2,3]", "[4,3,5]", False, False, "[4,2,5]"),
    ("[2..3,2,3]", "[4,3,5]", False, False, "[?,2,5]"),  # no broadcast: dynamic, not an error
    ("[?,2,3]", "[1..5,3,5]", False, False, "[?,2,5]"),
    ("[2..5,2,3]", "[3..8,3,5]", False, False, "[3..5,2,5]"),
    ("[0..2,2,3]", "[3,3,4]", False, False, "[3,2,4]"),
    ("[1,3,5]", "[0..2,5,1]", False, False, "[..2,3,1]"),
    ("[2,?,4]", "[?,4,6]", False, False, "[2,?,6]"),
    ("...", "[3,4]", False, False, "..."),
    ("[3]", "...", False, False, "..."),
    ("[0,3]", "[3,0]", False, False, "[0,0]"),
    ("[2,0]", "[0,3]", False, False, "[2,3]"),
    ("[1,2,3]", "[0,3,4]", False, False, "[0,2,4]"),
    ("[0,3]", "[1,3,4]", False, False, "[1,0,4]"),
    ("[2,3]", "[1,1,3,4]", False, False, "[1,1,2,4]"),
    ("[?]", "[?]", False, False, "[]"),
    ("[2,3]", "[?]", False, False, "[2]"),
]


@pytest.mark.parametrize(("a", "b", "ta", "tb", "expected"), SHAPES)
def test_shapes_as_openvino_infers_them(a: str, b: str, ta: bool, tb: bool, expected: str) -> None:
    assert str(matmul_shape(parse_shape(a), parse_shape(b), ta, tb)) == str(parse_shape(expected))


M = "Incompatible MatMul matrix dimension. First input dimension="
REFUSED = [
    ("[]", "[3]", False, False, "Scalars are not supported as MatMul inputs."),
    ("[3]", "[]", False, False, "Scalars are not supported as MatMul inputs."),
    ("[3]", "[4]", False, False,
     f"{M}3 at COL_INDEX_DIM=1 doesn't match the second input dimension=4 at ROW_INDEX_DIM=0"),
    ("[7,2,3]", "[7,4,5]", False, False,
     f"{M}3 at COL_INDEX_DIM=2 doesn't match the second input dimension=4 at ROW_INDEX_DIM=1"),
    ("[2,2,3]", "[4,5]", False, False,
     f"{M}3 at COL_INDEX_DIM=2 doesn't match the second input dimension=4 at ROW_INDEX_DIM=0"),
    ("[3]", "[2,4,5]", True, True,
     f"{M}3 at COL_INDEX_DIM=1 doesn't match the second input dimension=5 at ROW_INDEX_DIM=1"),
    ("[2,4,5]", "[3]", False, False,
     f"{M}5 at COL_INDEX_DIM=2 doesn't match the second input dimension=3 at ROW_INDEX_DIM=0"),
    ("[5,2,3]", "[2,3,4]", False, False, "Incompatible MatMul batch dimension. Can't merge "
     "first input dimension=5 with second input dimension=2 at index=0"),
    ("[3,2,3]", "[0,3,4]", False, False, "Incompatible MatMul batch dimension. Can't merge "
     "first input dimension=3 with second input dimension=0 at index=0"),
    ("[2,?,3]", "[4,3,5]", False, False, "Can't merge first input dimension=2 with second "
     "input dimension=4 at index=0"),
]  # fmt: skip


@pytest.mark.parametrize(("a", "b", "ta", "tb", "message"), REFUSED)
def test_refusals_with_openvino_s_messages(
    a: str, b: str, ta: bool, tb: bool, message: str
) -> None:
    with pytest.raises(ShapeError) as error:
        matmul_shape(parse_shape(a), parse_shape(b), ta, tb)
    assert message in str(error.value)


def _info(name: str, *dims: int) -> TensorInfo:
    return TensorInfo(element_type(name), Shape.of(*dims))


def test_element_types_must_match_and_boolean_is_taken() -> None:
    op = MatMul1({"transpose_a": False, "transpose_b": False})
    with pytest.raises(ShapeError, match=r"arg0 element type: f32, arg1 element type: f16\)"):
        op.infer([_info("f32", 2, 3), _info("f16", 3, 4)], quiet_context())
    (out,) = op.infer([_info("boolean", 2, 3), _info("boolean", 3, 4)], quiet_context())
    assert out.element_type == "boolean" and out.shape == Shape.of(2, 4)
    (out,) = op.infer([_info("dynamic", 2, 3), _info("i8", 3, 4)], quiet_context())
    assert out.element_type == "i8"


def _run(a: NDArray[Any], b: NDArray[Any], ta: bool = False, tb: bool = False) -> NDArray[Any]:
    (result,) = compute(MatMul1({"transpose_a": ta, "transpose_b": tb}), [a, b])
    assert result is not None
    return result


def _bound(a: NDArray[Any], b: NDArray[Any]) -> NDArray[np.float64]:
    """1e-6 * sum |a * b| per output (docs/ops/Convolution.md#numerics-and-tolerances), in f64."""
    with np.errstate(all="ignore"):
        return 1e-6 * np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))


CASES = [case for case in json.loads((GOLDEN / "index.json").read_text())["cases"]
         if case["op"] == "MatMul-1"]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_golden_vectors_within_the_bound(case: dict[str, Any]) -> None:
    ta, tb = case["attributes"]["transpose_a"], case["attributes"]["transpose_b"]
    with np.load(GOLDEN / f"{case['name']}.npz") as arrays:
        a, b, cpu = arrays["input0"], arrays["input1"], arrays["output0"]
    result = _run(a, b, ta, tb)
    assert result.shape == cpu.shape and result.dtype == cpu.dtype
    assert np.array_equal(np.isnan(result), np.isnan(cpu))
    assert np.array_equal(np.isinf(result), np.isinf(cpu))
    x = np.swapaxes(a, -1, -2) if ta and a.ndim > 1 else a
    y = np.swapaxes(b, -1, -2) if tb and b.ndim > 1 else b
    finite = np.isfinite(cpu)
    with np.errstate(invalid="ignore"):
        gap = np.abs(result.astype(np.float64) - cpu)
    assert np.all(gap[finite] <= _bound(x, y)[finite])
    assert np.array_equal(result[~finite & ~np.isnan(cpu)], cpu[~finite & ~np.isnan(cpu)])


def _expected_non_finite(x: NDArray[Any], y: NDArray[Any]) -> NDArray[np.bool_]:
    """Where an exact (f64) product is NaN or infinite: what IEEE arithmetic must give."""
    with np.errstate(all="ignore"):
        return ~np.isfinite(np.matmul(x.astype(np.float64), y.astype(np.float64)))


@pytest.mark.parametrize("seed", range(40))
def test_non_finite_values_stay_in_their_rows_and_columns(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NaN and inf reach exactly the outputs whose dot product holds them, for 2-D, 1-D and
    batched products, on every BLAS path (gemm, gemv, dot), on one BLAS thread or two, and
    never from the memory the output reuses: a freed NaN-filled block of its size is what
    NumPy hands out next."""
    monkeypatch.setenv("IRPOOL_THREADS", str(1 + seed % 2))
    rng = np.random.default_rng(seed)
    m, k, n = (int(v) for v in rng.integers(1, 90, 3))
    batch = (int(rng.integers(1, 4)),) if seed % 3 == 0 else ()
    a = rng.standard_normal((*batch, m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    for array in (a, b):
        spots = rng.random(array.shape) < 0.01
        array[spots] = rng.choice([NAN, INF, -INF], size=int(spots.sum()))
    b[:, 0] = 0.0  # 0 * inf is NaN
    for x, y in [(a, b), (a[..., 0, :], b), (a, b[:, 1 % n]), (a[..., 0, :], b[:, 0])]:
        expected = _expected_non_finite(x, y)
        assert np.array_equal(~np.isfinite(_run(x, y)), expected)
        np.full(expected.shape, NAN, np.float32)  # freed at once, so the next output may reuse it
        assert np.array_equal(~np.isfinite(_run(x, y)), expected)


def test_non_finite_values_of_decompressed_f16_weights(tmp_path: Path) -> None:
    """Weights as `save_model` compresses them: an f16 Const behind a decompression Convert.
    An f16 inf (a weight beyond 65504) spreads only to its column."""
    weights = np.random.default_rng(3).standard_normal((16, 8)).astype(np.float16)
    weights[2, 5], weights[7, 1] = np.float16(INF), np.float16(NAN)
    path = _linear_model(tmp_path, weights)
    x = np.random.default_rng(4).standard_normal((3, 16)).astype(np.float32)
    x[1, 9] = NAN
    result = irpool.load(path).run({"x": x})["y"]
    expected = _expected_non_finite(x, weights.astype(np.float32))
    assert np.array_equal(~np.isfinite(result), expected)
    assert expected[:, 5].all() and expected[:, 1].all() and expected[1].all()
    finite = ~expected
    with np.errstate(invalid="ignore"):
        gap = np.abs(result - x.astype(np.float64) @ weights.astype(np.float64))
    assert np.all(gap[finite] <= _bound(x, weights)[finite])


def _linear_model(directory: Path, weights: NDArray[np.float16]) -> Path:
    k, n = weights.shape
    path = directory / "linear.xml"
    path.with_suffix(".bin").write_bytes(weights.tobytes())
    layers = [
        ir.parameter(0, "x", (3, k)),
        ir.typed_const(1, "w", "f16", (k, n), 0, weights.nbytes),
        ir.layer(2, "w/decompress", "Convert", "opset1", ir.data([("destination_type", "f32")]),
                 [ir.port(0, (k, n), "FP16")], [ir.port(1, (k, n))]),
        ir.layer(3, "y", "MatMul", "opset1",
                 ir.data([("transpose_a", "false"), ("transpose_b", "false")]),
                 [ir.port(0, (3, k)), ir.port(1, (k, n))], [ir.port(2, (3, n), names="y")]),
        ir.result(4, "out", (3, n)),
    ]  # fmt: skip
    edges = [ir.edge(0, 0, 3, 0), ir.edge(1, 0, 2, 0), ir.edge(2, 1, 3, 1), ir.edge(3, 2, 4, 0)]
    path.write_text(ir.net(layers, edges, name="linear"))
    return path


# The CPU's values (measured): integers wrapped to int32 and multiplied in f32, 8-bit results
# saturated; a [2,3] by [3,2] product of a = [[100, 120, 7], [3, 200, 250]], b = [[1, 2], [1, 1],
# [1, 0]] (a[0, 0] replaced as shown).
A = [[100, 120, 7], [3, 200, 250]]
B = [[1, 2], [1, 1], [1, 0]]
INTEGERS = [
    (np.int32, 16777217, [[16777344, 33554552], [453, 206]]),  # f32 sums
    (np.int64, 2**40 + 5, [[132, 130], [453, 206]]),  # 2**40 + 5 is 5 in int32
    (np.int8, 100, [[127, 127], [-59, -50]]),  # 200 and 250 are -56 and -6 as i8
    (np.uint8, 100, [[227, 255], [255, 206]]),
    (np.int16, 100, [[227, 320], [453, 206]]),
    (np.uint16, 100, [[227, 320], [453, 206]]),
    (np.uint32, 100, [[227, 320], [453, 206]]),
    (np.uint64, 100, [[227, 320], [453, 206]]),
]


@pytest.mark.parametrize(("dtype", "corner", "expected"), INTEGERS)
def test_integers_as_the_cpu_computes_them(
    dtype: Any, corner: int, expected: list[list[int]]
) -> None:
    a = np.array(A, np.int64)
    a[0, 0] = corner
    with np.errstate(over="ignore"):
        result = _run(a.astype(dtype), np.array(B).astype(dtype))
    assert result.dtype == np.dtype(dtype) and result.tolist() == expected


def test_booleans_are_true_where_a_product_is() -> None:
    a = np.array([[True, False], [False, False]])
    b = np.array([[True, False], [True, True]])
    op = MatMul1({"transpose_a": False, "transpose_b": False})
    kernel = kernel_of(op)
    assert kernel is not None
    (result,) = kernel(op, [a, b], [OutputSpec.of("boolean")])
    assert result is not None
    assert result.dtype == np.bool_ and result.tolist() == [[True, False], [False, False]]


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_other_floats_are_multiplied_in_f32(dtype: Any) -> None:
    with np.errstate(over="ignore", invalid="ignore"):  # 3e38 is inf in f16: 0 * inf is NaN
        a = np.array([[1e-4, 3e38, 1.0]], dtype)
        b = np.array([[1e4], [0.0], [2.0]], dtype)
        expected = np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(dtype)
    assert _run(a, b).tobytes() == expected.tobytes()


def test_blas_is_held_to_one_thread_whatever_irpool_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A product large enough for OpenBLAS to thread runs with BLAS held to one thread (on
    several it may sum in another order); a small one does not pay for the hold."""
    held: list[int] = []
    monkeypatch.setattr(blas, "hold", held.append)
    monkeypatch.setattr(blas, "release", lambda: None)
    monkeypatch.setenv("IRPOOL_THREADS", "2")
    rng = np.random.default_rng(0)
    _run(rng.standard_normal((4, 8)).astype(np.float32), np.ones((8, 4), np.float32))
    assert held == []
    a = rng.standard_normal((64, 256)).astype(np.float32)
    result = _run(a, np.ones((4, 256), np.float32), tb=True)
    assert held == [1] and result.shape == (64, 4)
