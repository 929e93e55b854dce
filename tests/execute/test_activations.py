"""ReLU, Sigmoid, Swish, HSwish, HSigmoid, Floor and Gelu on the values where the CPU plugin's
formulas show (measured on OpenVINO 2026.4.1, docs/elementwise.md, docs/ops/Gelu.md for Gelu);
the live comparison over many inputs is tests/differential/test_activations.py (test_gelu.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from irpool.cpu import vector_exp
from irpool.cpu.compilation import compiled_for_layer
from irpool.cpu.isa import AVX512_CORE, cpu_isa
from irpool.element_types import element_type
from irpool.ops.activations import (
    Elu1,
    Floor1,
    Gelu2,
    Gelu7,
    HSigmoid5,
    HSwish4,
    PRelu1,
    Relu1,
    Round5,
    Sigmoid1,
    Swish4,
)
from irpool.ops.base import Op, ShapeError, TensorInfo
from irpool.shape import Shape
from tests.execute.running import compute, quiet_context

NAN, INF = float("nan"), float("inf")
F32 = np.float32

# op, input, CPU output (f32)
CPU_VALUES: list[tuple[type[Op], float, float]] = [
    (Relu1, NAN, 0.0),
    (Relu1, -INF, 0.0),
    (Relu1, -0.0, 0.0),
    (Relu1, 1e-45, 1e-45),
    (Sigmoid1, NAN, NAN),
    (Sigmoid1, INF, 1.0),
    (Sigmoid1, -INF, 0.0),
    (Sigmoid1, -86.989975, 0.0),  # the CPU's exp underflows here, NumPy's does not
    (Sigmoid1, -88.0, 0.0),
    (Swish4, -INF, NAN),
    (Swish4, INF, INF),
    (Swish4, -89.0, -0.0),
    (Swish4, -0.0, -0.0),
    (HSwish4, NAN, NAN),
    (HSwish4, -INF, NAN),
    (HSwish4, INF, INF),
    (HSwish4, -2.9999, -4.988742512068711e-05),
    (HSwish4, 0.5, 0.2916666567325592),
    (HSwish4, -3.0, -0.0),
    (HSigmoid5, NAN, 0.0),
    (HSigmoid5, 0.0, 0.4999999701976776),  # times the f32 just below 1/6
    (HSigmoid5, INF, 0.9999999403953552),
    (HSigmoid5, 1.5, 0.7499999403953552),
    (HSigmoid5, -2.9999, 1.6649562894599512e-05),
    (Floor1, -0.0, -0.0),
    (Floor1, -1e-45, -1.0),
    (Floor1, -2.5, -3.0),
    (Floor1, NAN, NAN),
]


@pytest.mark.parametrize(("op_class", "value", "expected"), CPU_VALUES)
def test_cpu_values(op_class: type[Op], value: float, expected: float) -> None:
    (result,) = compute(op_class({}), [np.array([value], F32)])
    assert result is not None and result.dtype == np.float32
    assert result.tobytes() == np.array([expected], F32).tobytes() or (
        np.isnan(expected) and np.isnan(result[0])
    )


def test_sigmoid_is_cut_off_where_the_cpu_exp_underflows() -> None:
    """The CPU gives 1.6624066e-38 at -86.98997 and 0 one f32 below; NumPy's exp still
    gives subnormals down to -103, and its value here is 2 ulp from the CPU's."""
    below, at = np.nextafter(F32(-86.98997), F32(-100)), F32(-86.98997)
    (result,) = compute(Sigmoid1({}), [np.array([below, at], F32)])
    assert result is not None and result[0] == 0
    assert result[1:].tobytes() == np.array([1.6624066e-38], F32).tobytes()


# (x, the CPU's Sigmoid(x)) as f32 bits, where NumPy's 1 / (1 + exp(-x)) is 2 to 4 ulp off
# (OpenVINO 2026.4.1, AMD EPYC family 25 model 17): its exp is a polynomial (vector_exp).
SIGMOID_BITS = [
    (0xC0BAFC71, 0x3B3D7423),  # -5.8433156 -> 0.0028908334
    (0xC1876479, 0x333FD684),  # -16.924059 -> 4.4665754e-08
    (0xC0903CA8, 0x3C32B254),  # -4.5074043 -> 0.010906775
    (0xBF9DD77A, 0x3E670C3B),  # -1.2331383 -> 0.2256326
    (0xC116A5D9, 0x38AACDF1),  # -9.41549 -> 8.144591e-05
    (0x3F740B4D, 0x3F38C66E),  # 0.95329744 -> 0.7217778
    (0x3FD64C99, 0x3F579644),  # 1.6742126 -> 0.8421366
    (0x3F2F6F1B, 0x3F2A3814),  # 0.6852891 -> 0.6649182
]


def test_sigmoid_is_the_cpus_bit_for_bit() -> None:
    """Scores a TopK ranks come from Sigmoid (YOLO's NMS-free heads): an ulp reorders them."""
    x = np.array([bits for bits, _ in SIGMOID_BITS], np.uint32).view(F32)
    (result,) = compute(Sigmoid1({}), [x])
    assert result is not None
    cpu = np.array([bits for _, bits in SIGMOID_BITS], np.uint32)
    np.testing.assert_array_equal(result.view(np.uint32), cpu)


# f32 bits of x, the CPU's Swish(x) and its Swish(x) with beta 1 given at run time (the
# reference kernel), measured 2026-12-07 (AMD EPYC family 25 model 17, OpenVINO 2026.4.1).
SWISH_BITS = [
    (0xC28E560E, 0x8F3271B5, 0x8F3271B3),  # -71.168076
    (0xC1914809, 0xB47D0567, 0xB47D0568),  # -18.160173
    (0xC20836F2, 0xA9791EA3, 0xA9791EA1),
    (0xC114CE87, 0xBA5EC852, 0xBA5EC851),
    (0x40F41E01, 0x40F3FFA1, 0x40F3FFA1),
]


@pytest.mark.parametrize("at_run_time", [False, True])
def test_swish_is_the_cpus_bit_for_bit(at_run_time: bool) -> None:
    """Swish(gate) * up in every LLM MLP: the JIT kernel's steps, or the reference kernel's
    where beta is known only when run (a compilation decision)."""
    x = np.array([row[0] for row in SWISH_BITS], np.uint32).view(F32)
    swish = Swish4({})
    swish.beta_at_run_time = at_run_time
    (result,) = compute(swish, [x, np.array(1, F32)])
    assert result is not None
    cpu = np.array([row[2 if at_run_time else 1] for row in SWISH_BITS], np.uint32)
    np.testing.assert_array_equal(result.view(np.uint32), cpu)


@pytest.mark.parametrize(("beta", "at_run_time"), [(None, True), (np.array(1.5, F32), False)])
def test_swish_beta_at_run_time_is_decided_when_compiling(
    beta: NDArray[np.float32] | None, at_run_time: bool
) -> None:
    f32 = element_type("f32")
    inputs = [TensorInfo(f32, Shape.of(4)), TensorInfo(f32, Shape.of(), beta)]
    assert compiled_for_layer(Swish4({}), inputs).beta_at_run_time is at_run_time  # type: ignore[attr-defined]


# op, element type, input, CPU output: integers are computed in f32 and rounded to nearest,
# 32-bit ones through int32 (out of range: INT32_MIN), 8-bit ones saturated.
INTEGER_VALUES: list[tuple[type[Op], Any, list[int], list[int]]] = [
    (Relu1, np.int32, [-(2**31), -7, 2**31 - 1, 16777217], [0, 0, -(2**31), 16777216]),
    (Floor1, np.int32, [-(2**31), 2**31 - 1, 16777217], [-(2**31), -(2**31), 16777216]),
    (Floor1, np.int64, [-5, 3, 2**40], [-5, 3, 0]),  # 64-bit integers wrap to int32 first
    (Sigmoid1, np.int32, [-7, 0, 5], [0, 0, 1]),
    (HSwish4, np.int32, [-1, 5, 2**31 - 1], [0, 5, -(2**31)]),
    (HSigmoid5, np.int32, [-7, 0, 5], [0, 0, 1]),
    (Relu1, np.int8, [-128, -7, 127], [0, 0, 127]),
    (Relu1, np.uint8, [0, 5, 255], [0, 5, 255]),
]


@pytest.mark.parametrize(("op_class", "dtype", "values", "expected"), INTEGER_VALUES)
def test_cpu_integer_values(
    op_class: type[Op], dtype: Any, values: list[int], expected: list[int]
) -> None:
    (result,) = compute(op_class({}), [np.array(values, dtype)])
    assert result is not None and result.dtype == np.dtype(dtype)
    assert result.tolist() == expected


@pytest.mark.parametrize(
    ("beta", "values", "expected"),
    [
        (2.0, [-3.0, 0.5, NAN], [-0.007417869288474321, 0.36552929878234863, NAN]),
        (0.0, [-3.0, INF], [-1.5, NAN]),  # 0 * inf: NaN inside the sigmoid
        (INF, [-3.0, 0.0, 2.0], [-0.0, NAN, 2.0]),
        (NAN, [1.0], [NAN]),
    ],
)
def test_swish_beta(beta: float, values: list[float], expected: list[float]) -> None:
    (result,) = compute(Swish4({}), [np.array(values, F32), np.array(beta, F32)])
    assert result is not None
    cpu = np.array(expected, F32)
    np.testing.assert_array_equal(np.isnan(result), np.isnan(cpu))
    found = ~np.isnan(cpu)
    np.testing.assert_array_equal(np.signbit(result[found]), np.signbit(cpu[found]))
    np.testing.assert_array_max_ulp(result[found], cpu[found], maxulp=9)  # the exp's bound


@pytest.mark.parametrize("op_class", [Relu1, Floor1])
def test_integer_constants_fold_exactly(op_class: type[Op]) -> None:
    """Shape arithmetic keeps its values: OpenVINO folds integer constants with its
    reference implementation, exactly, without the CPU's int32 wrap."""
    value = np.array([2**40, -3, 7], np.int64)
    (out,) = op_class({}).infer(
        [TensorInfo(element_type("i64"), Shape.of(3), value)], quiet_context()
    )
    expected = np.maximum(value, 0) if op_class is Relu1 else value
    assert out.value is not None and out.value.tolist() == expected.tolist()


# ERF's form is the instruction set's (irpool.cpu.isa): AVX2's passes +inf and huge x, gives +0
AVX512 = cpu_isa() == AVX512_CORE
# mode, input, CPU output (f32), measured: the CPU's non-finite and overflowing values
GELU_SPECIALS = [
    ("ERF", INF, NAN if AVX512 else INF),
    ("ERF", -INF, NAN),
    ("ERF", NAN, NAN),
    ("ERF", 1.7014117e38, 1.7014117e38),
    ("ERF", 1.7014118e38, INF if AVX512 else 1.7014118e38),  # AVX-512: x * 2 overflows
    ("ERF", -3e38, -0.0 if AVX512 else 0.0),
    ("ERF", -0.0, -0.0 if AVX512 else 0.0),
    ("TANH", INF, INF),
    ("TANH", -INF, NAN),
    ("TANH", 3e38, 3e38),
    ("TANH", -3e38, -0.0),
]


@pytest.mark.parametrize(("mode", "value", "expected"), GELU_SPECIALS)
def test_gelu_special_values(mode: str, value: float, expected: float) -> None:
    (result,) = compute(Gelu7({"approximation_mode": mode}), [np.array([value], F32)])
    assert result is not None and result.dtype == np.float32
    assert result.tobytes() == np.array([expected], F32).tobytes() or (
        np.isnan(expected) and np.isnan(result[0])
    )


@pytest.mark.parametrize(
    ("mode", "values", "cpu", "bound"),
    [  # CPU outputs measured; the bound of docs/ops/Gelu.md, in 2**-24 * |x|
        ("ERF", [1.0, -1.0, 3.4388747, -3.0, -5.0], [0.8413447141647339, -0.15865525603294373,
         3.4378714561462402, -0.004050225019454956, -1.1920928955078125e-06], 6),
        ("TANH", [1.0, -1.0, 4.0012197, -3.0], [0.8411920070648193, -0.15880799293518066,
         4.001149654388428, -0.0036374330520629883], 2),
    ],
)  # fmt: skip
def test_gelu_within_the_measured_bound(
    mode: str, values: list[float], cpu: list[float], bound: float
) -> None:
    x = np.array(values, F32)
    (result,) = compute(Gelu7({"approximation_mode": mode}), [x])
    assert result is not None
    gap = np.abs(result.astype(np.float64) - np.array(cpu, F32).astype(np.float64))
    assert np.all(gap <= bound * 2.0**-24 * np.abs(x.astype(np.float64)))


# (x, the CPU's Gelu TANH of x) as f32 bits, where f64's tanh rounded to f32 is a last bit off
# the CPU's tanh polynomial (OpenVINO 2026.4.1, AMD EPYC family 25 model 17, 2026-12-07).
GELU_TANH_BITS = [
    (0xC0814774, 0xB8736888),  # -4.0399723 -> -5.8033067e-05
    (0x4077B0F7, 0x4077AEDC),  # 3.8701761 -> 3.8700476
    (0x3FAB8BF6, 0x3F9C0FFD),  # 1.3402088 -> 1.2192379
    (0xBF3E97A0, 0xBE2E1B91),  # -0.7445011 -> -0.17002703
]


def test_gelu_tanh_is_the_cpus_bit_for_bit() -> None:
    """Its last bit can flip an int8 step of a compressed MatMul after it (GPT2 int8)."""
    x = np.array([bits for bits, _ in GELU_TANH_BITS], np.uint32).view(F32)
    (result,) = compute(Gelu7({"approximation_mode": "TANH"}), [x])
    assert result is not None
    cpu = np.array([bits for _, bits in GELU_TANH_BITS], np.uint32)
    np.testing.assert_array_equal(result.view(np.uint32), cpu)


def test_gelu_refuses_integers() -> None:
    data = TensorInfo(element_type("i32"), Shape.of(2))
    with pytest.raises(ShapeError, match="must be f16, bf16, f32, f64 or dynamic"):
        Gelu7({"approximation_mode": "ERF"}).infer([data], quiet_context())


def test_gelu_2_is_gelu_7_with_erf() -> None:
    x = np.array([1.0, -3.0, INF, -INF, 1.7014118e38, NAN], F32)
    (two,) = compute(Gelu2({}), [x])
    (seven,) = compute(Gelu7({"approximation_mode": "ERF"}), [x])
    assert two is not None and seven is not None and two.tobytes() == seven.tobytes()


@pytest.mark.parametrize(
    ("shape", "slope", "expected"),
    [  # data all -1; how the CPU applies each slope (docs/ops/PReLU.md), as -slope values
        ((2, 4, 4), [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]),  # per channel, not last dim
        ((2, 3), [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]),
        ((5, 3, 1), [2.0, 5.0], [5.0]),  # ends in 1: the last value everywhere
        ((), [6.0], [6.0]),
    ],
)
def test_prelu_slope_layouts(
    shape: tuple[int, ...], slope: list[float], expected: list[float]
) -> None:
    (result,) = compute(PRelu1({}), [-np.ones(shape, np.float32), np.array(slope, np.float32)])
    assert result is not None and result.shape == shape
    along = 1 if len(shape) >= 2 and len(slope) == shape[1] else None
    found = (
        np.unique(-result)
        if along is None
        else -result.take(0, axis=0).reshape(len(slope), -1)[:, 0]
    )
    np.testing.assert_array_equal(found, np.array(expected, np.float32))


def test_elu_cancels_near_zero_as_the_cpu() -> None:
    """alpha * (exp(x) - 1) in f32: at x = -4.2e-5 the CPU gives -4.1842e-05, not expm1's
    -4.1816e-05; -inf gives -alpha, NaN NaN."""
    x = np.array([-4.181726762908511e-05, -np.inf, np.nan, 2.0], np.float32)
    (result,) = compute(Elu1({"alpha": 1.0}), [x])
    assert result is not None
    assert abs(float(result[0]) - -4.184246063232422e-05) <= 4 * 2.0**-24
    np.testing.assert_array_equal(result[1:], np.array([-1.0, np.nan, 2.0], np.float32))


@pytest.mark.parametrize(
    ("mode", "dtype", "x", "expected"),
    [  # the CPU's rounding (docs/ops/Round.md)
        ("half_to_even", np.float32, [2.5, -2.5, 0.5, -0.0], [2.0, -2.0, 0.0, -0.0]),
        ("half_away_from_zero", np.float32, [2.5, -2.5, 0.49999997, -0.0], [3.0, -3.0, 1.0, 0.0]),
        ("half_away_from_zero", np.float32, [8388609.0, -0.25], [8388610.0, -0.0]),
        ("half_to_even", np.int32, [16777217, -3], [16777216, -3]),  # through f32
        ("half_away_from_zero", np.bool_, [True, False], [True, False]),
    ],
)
def test_round_as_the_cpu(mode: str, dtype: Any, x: list[Any], expected: list[Any]) -> None:
    (result,) = compute(Round5({"mode": mode}), [np.array(x, dtype)])
    assert result is not None
    wanted = np.array(expected, dtype)
    np.testing.assert_array_equal(result, wanted)
    if result.dtype.kind == "f":  # -0 is not 0
        assert np.array_equal(np.signbit(result), np.signbit(wanted))


def documented_exp(x: NDArray[np.float32], whole_power: bool) -> NDArray[np.float32]:
    """irpool.cpu.vector_exp's steps as its docstring states them, each FMA in f64 rounded
    once to f32, without its shortcuts (exact f32 steps for r, rounding by adding a
    constant, the power of two by a magic add)."""
    with np.errstate(all="ignore"):
        clipped = np.clip(x, vector_exp.LN_FLT_MIN, vector_exp.LN_FLT_MAX)
        steps = np.floor(clipped * vector_exp.LOG2_E + F32(0.5))
        rest = (steps.astype(np.float64) * -vector_exp.LN_2 + clipped).astype(F32)
        power = F32(vector_exp.POLYNOMIAL[0])
        for coefficient in vector_exp.POLYNOMIAL[1:]:
            power = (power * rest.astype(np.float64) + coefficient).astype(F32)
        shift = 0 if whole_power else 1
        bits = ((steps - shift).astype(np.int32) + 127) << 23
        result = power * bits.view(F32) * F32(2**shift)
        if whole_power:
            result[x < vector_exp.LN_FLT_MIN] = 0
    return np.asarray(result, F32)


def exp_inputs() -> NDArray[np.float32]:
    """Random f32 bit patterns (NaN payloads, ±inf, subnormals), values over the whole
    range of the exp, each side of every n's tie (n + 1/2) * ln 2 and of the clip bounds,
    more than a block of them."""
    rng = np.random.default_rng(11)
    patterns = rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32).view(F32)
    spread = rng.uniform(-110, 110, 100_000).astype(F32)
    ties = ((np.arange(-260, 260) + F32(0.5)) * F32(np.log(2) / 2)).astype(F32)
    bounds = np.array([vector_exp.LN_FLT_MIN, vector_exp.LN_FLT_MAX, -86.98997, 0], F32)
    edges = np.concatenate([ties, bounds])
    near = [np.nextafter(edges, F32(direction)) for direction in (-np.inf, np.inf)]
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 1e-45, -1e-45, 3e38], F32)
    return np.concatenate([patterns, spread, edges, *near, specials, -specials])


@pytest.mark.parametrize("whole_power", [False, True])
def test_vector_exp_is_its_documented_steps(whole_power: bool) -> None:
    x = exp_inputs()
    if whole_power:  # the attention snippet's: x at most ln FLT_MAX
        x = np.minimum(x, vector_exp.LN_FLT_MAX)
    found = vector_exp.vector_exp(x, whole_power)
    np.testing.assert_array_equal(
        found.view(np.uint32), documented_exp(x, whole_power).view(np.uint32)
    )


@pytest.mark.parametrize("beta", [None, np.array(1.5, F32)])
def test_logistic_and_swish_are_their_documented_steps_also_in_place(
    beta: NDArray[np.float32] | None,
) -> None:
    """e = exp(-|x|), e / (e + 1) for x with its sign bit set, else 1 minus it; Swish x times
    that of beta * x, written over its input too."""
    x = exp_inputs()
    with np.errstate(all="ignore"):
        e = documented_exp(-np.abs(x), whole_power=False)
        low = e / (e + F32(1))
        expected = np.where(np.signbit(x), low, F32(1) - low)
        np.testing.assert_array_equal(
            vector_exp.logistic(x).view(np.uint32), expected.view(np.uint32)
        )
        gate = vector_exp.logistic(x if beta is None else x * beta)
        swish = x * gate
    in_place = x.copy()
    vector_exp.swish_into(in_place, beta, in_place)
    np.testing.assert_array_equal(in_place.view(np.uint32), swish.view(np.uint32))
