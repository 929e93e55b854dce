"""ScaledDotProductAttention-13: the shapes and types OpenVINO's `read_model` accepts, and
values as its CPU plugin computes them (measured on OpenVINO 2026.4.1,
docs/ops/ScaledDotProductAttention.md); the live comparison over many configurations is
tests/differential/test_scaled_dot_product_attention.py."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from irpool.cpu import attention_node, kv_cache
from irpool.cpu.attention_node import EXACT_STEP_KEYS, lane_sum, node_attention
from irpool.cpu.isa import AVX2, AVX512_CORE
from irpool.cpu.kv_cache import cache_values
from irpool.cpu.refusals import check_refusals
from irpool.cpu.vector_exp import vector_exp
from irpool.element_types import element_type
from irpool.ops.base import LayerContext, OpReport, ShapeError, TensorInfo
from irpool.ops.scaled_dot_product_attention import ScaledDotProductAttention13
from irpool.rules import CPU_ATTENTION_MASK_KEYS
from irpool.shape import Dim, Shape
from tests.execute.running import attention, compute, quiet_context

INF = np.float32(np.inf)
Q = "1,2,5,8"


def _shape(text: str) -> Shape:
    if text == "...":
        return Shape.dynamic()
    dims = []
    for part in (p for p in text.split(",") if p):
        low, sep, high = part.partition("..")
        if part == "?":
            dims.append(Dim.dynamic())
        elif sep:
            dims.append(Dim(int(low or 0), int(high) if high else None))
        else:
            dims.append(Dim.static(int(part)))
    return Shape(tuple(dims))


def _infer(shapes: list[str], types: list[str] | None = None, causal: bool = False) -> str:
    kinds = types or ["f32"] * len(shapes)
    infos = [TensorInfo(element_type(t), _shape(s)) for s, t in zip(shapes, kinds, strict=True)]
    op = ScaledDotProductAttention13({"causal": causal})
    (output,) = op.infer(infos, quiet_context())
    return f"{output.shape} {output.element_type}"


# read_model's verdicts (OpenVINO 2026.4.1): the output, or the start of its message
@pytest.mark.parametrize(
    ("shapes", "expected"),
    [
        ([Q, Q, Q], "[1,2,5,8] f32"),
        (["2,5,8", "2,5,8", "2,5,3"], "[2,5,3] f32"),
        (["5,8", "5,8", "5,8"], "Query input rank length must be at least 3"),
        ([Q, "1,2,6,8", "1,2,6,3"], "[1,2,5,3] f32"),
        (["2,3,5,8", "1,1,6,8", "2,1,6,3"], "[2,3,5,3] f32"),
        (["3,5,8", "2,3,6,8", "2,3,6,3"], "[2,3,5,3] f32"),  # key's batch widens the output
        ([Q, "1,2,5,7", Q], "Key input shape not compatible"),  # E must be equal...
        (["1,2,5,1", Q, Q], "Key input shape not compatible"),  # ...not broadcast
        ([Q, "1,3,5,8", Q], "Key input shape not compatible"),
        ([Q, "1,2,1,8", "1,2,6,8"], "Value input shape not compatible"),  # S equal too
        (["1,2,5,1..4", Q, Q], "Key input shape not compatible"),
        (["1,2,5,1..9", "1,2,5,4..12", Q], "[1,2,5,8] f32"),
        ([Q, "1,2,1..3,8", "1,2,2..6,8"], "[1,2,5,8] f32"),
        (["1,2,5,8", "1..3,2,5,8", Q], "[1..3,2,5,8] f32"),
        ([Q, "?,?,5,8", Q], "[?,2,5,8] f32"),
        (["1,2,5,8", "2..3,2,5,8", "4,2,5,8"], "Value input shape not compatible"),
        (["...", Q, Q], "[...] f32"),
        ([Q, "...", "1,2,6,3"], "[1,2,5,3] f32"),
        ([Q, Q, Q, ""], "[1,2,5,8] f32"),  # a scalar mask
        ([Q, Q, Q, "5"], "Attention mask input shape not compatible"),
        ([Q, Q, Q, "1"], "Attention mask input shape not compatible"),
        ([Q, Q, Q, "5,1"], "[1,2,5,8] f32"),
        ([Q, Q, Q, "3,5"], "Attention mask input shape not compatible"),
        ([Q, Q, Q, "3,5,5"], "Attention mask input shape not compatible"),
        ([Q, Q, Q, "2,1,5,5"], "[2,2,5,8] f32"),
        ([Q, Q, Q, "7,1,1,5,5"], "[7,1,2,5,8] f32"),
        (["1,2,1,8", Q, Q, "5,5"], "[1,2,5,8] f32"),  # the mask's L is the output's
        (["1,2,?,8", Q, Q, "4,5"], "[1,2,4,8] f32"),
        ([Q, Q, Q, "1..3,5"], "[1,2,5,8] f32"),
        ([Q, Q, Q, "2..3,5"], "Attention mask input shape not compatible"),
        ([Q, Q, Q, "..."], "[1,2,5,8] f32"),
        ([Q, Q, Q, "5,5", ""], "[1,2,5,8] f32"),
        ([Q, Q, Q, "5,5", "1"], "[1,2,5,8] f32"),
        ([Q, Q, Q, "5,5", "?"], "[1,2,5,8] f32"),
        ([Q, Q, Q, "5,5", "..."], "[1,2,5,8] f32"),
        ([Q, Q, Q, "5,5", "2"], "Scale input must be scalar or have 1 element"),
        ([Q, Q, Q, "5,5", "0"], "Scale input must be scalar or have 1 element"),
        ([Q, Q, Q, "5,5", "1,1"], "Scale input must be scalar or have 1 element"),
        ([Q, Q, Q, "5,5", "?,1"], "Scale input must be scalar or have 1 element"),
    ],
)
def test_shapes_as_openvino(shapes: list[str], expected: str) -> None:
    try:
        found = _infer(shapes)
    except ShapeError as error:
        found = str(error)
    assert found.startswith(expected), found


@pytest.mark.parametrize(
    ("types", "causal", "expected"),
    [
        (["f16", "f16", "f16"], False, "f16"),
        (["bf16", "bf16", "bf16"], False, "bf16"),
        (["f64", "f64", "f64"], False, "f64"),
        (["i32", "i32", "i32"], False, "The element type of the input tensor must be a float"),
        (["f32", "f16", "f32"], False, "Mixed input types are not supported."),
        (["f32", "f32", "f32", "boolean"], False, "f32"),
        (["f32", "f32", "f32", "f16"], False, "Mixed input types are not supported."),
        (["f32", "f32", "f32", "i32"], False, "The element type of attention_mask must be"),
        (["f32", "f32", "f32", "i32"], True, "f32"),  # causal: the mask is not read
        (["f32", "f32", "f32", "f16", "f32"], True, "f32"),
        (["f32", "f32", "f32", "f32", "f16"], True, "Mixed input types are not supported."),
        (["f32", "f32", "f32", "f32", "boolean"], False, "Mixed input types are not supported."),
        (["dynamic", "f32", "f32"], False, "f32"),
        (["dynamic", "dynamic", "dynamic"], False, "dynamic"),
        (["dynamic", "i32", "i32"], False, "The element type of the input tensor must be a float"),
        (["dynamic", "f16", "f16", "f32"], False, "Mixed input types are not supported."),
        (["f32", "f32", "f32", "dynamic"], False, "f32"),
    ],
)
def test_types_as_openvino(types: list[str], causal: bool, expected: str) -> None:
    shapes = [Q, Q, Q, "5,5", ""][: len(types)]
    try:
        found = _infer(shapes, types, causal).split()[1]
    except ShapeError as error:
        found = str(error)
    assert found.startswith(expected), found


def test_a_mask_widening_a_single_key_does_not_compile() -> None:
    reports: list[OpReport] = []
    context = LayerContext(frozenset(), reports.append, lambda offset, size: memoryview(b""))
    infos = [TensorInfo(element_type("f32"), _shape(s)) for s in (Q, "1,2,1,8", "1,2,1,8", "5,5")]
    ScaledDotProductAttention13({"causal": False}).infer(infos, context)
    assert reports == []  # read_model takes it
    check_refusals(ScaledDotProductAttention13({"causal": False}), infos, context)
    assert [r.code for r in reports] == [CPU_ATTENTION_MASK_KEYS]


def _column(values: list[float], rank: int = 4) -> np.ndarray:
    return np.array(values, np.float32).reshape((1,) * (rank - 2) + (len(values), 1))


def test_a_row_masked_out_entirely_is_nan() -> None:
    q, k, v = (np.random.default_rng(i).standard_normal((1, 1, 3, 4), np.float32) for i in range(3))
    mask = np.array([[True, True, True], [False, False, False], [True, False, True]])
    result = attention(q, k, v, mask)
    assert np.isnan(result[0, 0, 1]).all() and np.isfinite(result[0, 0, [0, 2]]).all()


def test_causal_counts_from_the_top_left_and_ignores_the_mask() -> None:
    v = _column([1.0, 2.0])  # two keys, three queries: the first sees only the first key
    q, k = np.zeros((1, 1, 3, 1), np.float32), np.zeros((1, 1, 2, 1), np.float32)
    never = np.zeros((3, 2), np.bool_)
    assert attention(q, k, v, never, causal=True).ravel().tolist() == [1.0, 1.5, 1.5]


@pytest.mark.parametrize(
    ("query", "key", "scale", "constant", "cpu"),
    [  # measured: a constant scale multiplies key first; one given at run time the product
        (2.236e19, 2.236e19, 0.5, True, 1.5),  # 2.5e38 after key * 0.5
        (2.236e19, 2.236e19, 0.5, False, np.nan),  # 5e38 overflows before the scale
        (1e38, 1e-38, 4.0, True, 1.5),  # query is not scaled
        (1e-38, 1e38, 4.0, True, np.nan),  # key * 4 overflows
        (1e-38, 1e38, 4.0, False, 1.5),
    ],
)
def test_where_the_scale_applies(
    query: float, key: float, scale: float, constant: bool, cpu: float
) -> None:
    q, k = np.full((1, 1, 2, 1), query, np.float32), np.full((1, 1, 2, 1), key, np.float32)
    mask, factor = np.zeros((), np.float32), np.array(scale, np.float32)
    result = attention(q, k, _column([1.0, 2.0]), mask, factor, constant_scale=constant)
    np.testing.assert_array_equal(result.ravel(), [cpu, cpu])


@pytest.mark.parametrize(
    ("rank", "last_kept", "first_zero"),
    [(4, 87.3365, 87.33658), (3, 87.3365, 87.33658), (6, 87.3365, 87.33658),
     (5, 86.9899, 86.99)],  # rank 5 runs through the CPU's SoftMax node
)  # fmt: skip
def test_the_cpus_exp_underflow(rank: int, last_kept: float, first_zero: float) -> None:
    """A weight is 0 where the CPU's exp flushes it (measured by bisection)."""
    q = _column([last_kept, first_zero], rank)
    k, v = _column([0.0, -1.0], rank), _column([0.0, 1.0], rank)
    result = attention(q, k, v).ravel()
    assert result[0] > 0 and result[1] == 0


def test_infinite_values_follow_ieee() -> None:
    q, k = np.zeros((1, 1, 1, 1), np.float32), np.zeros((1, 1, 2, 1), np.float32)
    assert np.isposinf(attention(q, k, _column([1.0, INF]))).all()  # 0.5 * inf
    mask = np.array([[True, False]])
    assert np.isnan(attention(q, k, _column([1.0, INF]), mask)).all()  # 0 * inf
    k = _column([1.0, INF])  # +inf under a masked position still poisons its row
    assert np.isnan(attention(np.ones((1, 1, 1, 1), np.float32), k, _column([1, 2]), mask)).all()


def test_f64_is_computed_in_f32_with_infinities_saturated() -> None:
    q, k = np.zeros((1, 1, 1, 2)), np.zeros((1, 1, 2, 2))
    v = np.array([[[[np.inf, 1.0], [1.0, 2.0]]]])
    (result,) = compute(ScaledDotProductAttention13({"causal": False}), [q, k, v])
    assert result is not None and result.dtype == np.float64
    np.testing.assert_array_equal(result.ravel(), [1.7014117331926443e38, 1.5])


def _prompt(scores: list[float], mask: np.ndarray | None = None) -> np.ndarray:
    """The attention node's weights of the first query row, whose scores are `scores` (scale
    1, three rows and keys: a prompt), read through value rows of the identity."""
    q = np.zeros((1, 1, 3, 16), np.float32)
    q[..., 0] = 1
    k = np.zeros((1, 1, 3, 16), np.float32)
    k[0, 0, :, 0] = scores
    v = np.eye(3, 16, dtype=np.float32)[None, None]
    given = np.zeros((1, 1, 3, 3), np.float32) if mask is None else mask
    result = attention(q, k, v, given, np.array(1, np.float32), reads_cache=True)
    return result[0, 0, :, :3]


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Makes the attention node compute as on a host of the instruction set given."""

    def set_isa(isa: str) -> None:
        for module in (attention_node, kv_cache):
            monkeypatch.setattr(module, "host_cpu_isa", lambda: isa)

    return set_isa


@pytest.mark.parametrize(
    ("isa", "expected"),
    [  # the sum of 3 exps: (e0 + e2) + e1 in 16 lanes, (e0 + e1) + e2 in AVX2's 8
        (AVX512_CORE, [0x3EF24AFA, 0x3E979F7D, 0x3E6C2B11]),
        (AVX2, [0x3EF24AFC, 0x3E979F7E, 0x3E6C2B13]),
    ],
)
def test_the_attention_node_gives_the_cpus_weights(
    host: Callable[[str], None], isa: str, expected: list[int]
) -> None:
    """Measured 2026-12-07 on the CPU's attention node (tests/ir.py cached_attention_model;
    AVX-512: AMD EPYC family 25 model 17, AVX2: family 25 model 1): its exp polynomial and
    lane sums, not NumPy's exp (0.2961387, 0.23063305)."""
    host(isa)
    weights = _prompt([0.3125, -0.15625, -0.40625])[0]
    assert weights.view(np.uint32).tolist() == expected


def _u8_step(depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A step's query [1, 2, 1, depth] and its keys and values [1, 2, 4, depth] held in u8:
    tools/measure_cpu_attention.py's `avx2_attention_node_sums_in_eight_lanes`."""
    rng = np.random.default_rng(0)
    prompt, step = (
        {n: rng.standard_normal((1, 2, t, depth), np.float32) for n in "qkv"} for t in (3, 1)
    )
    key, value = (cache_values(np.concatenate([prompt[n], step[n]], 2), "u8") for n in "kv")
    return step["q"], key, value


def test_an_avx2_hosts_step_reads_the_u8_codes(host: Callable[[str], None]) -> None:
    """Measured 2026-12-07 (AMD EPYC family 25 model 1, AVX2): the step's first output,
    scores scale · (the codes' dot − zero point · Σ q) in 8 lanes; irpool declines a u8 key
    it did not hold (its zero points and scales unknown)."""
    host(AVX2)
    query, key, value = _u8_step(64)
    found = node_attention(query, key, value, None, None, False, "u8", np.matmul)
    assert found is not None and found[0, 0, 0, 0] == np.float32(-0.5526178)
    unknown = np.nextafter(key, np.float32(1))
    assert node_attention(query, unknown, value, None, None, False, "u8", np.matmul) is None


@pytest.mark.parametrize(
    ("row", "expected"),
    [  # measured on the CPU's attention node
        (-INF, [0.0, 0.0, 0.0]),  # a row masked by -inf: all weights 0, not NaN
        (np.float32(-3.4028235e38), [1 / 3] * 3),  # by -FLT_MAX: uniform
    ],
)
def test_the_attention_node_on_masked_out_rows(row: np.float32, expected: list[float]) -> None:
    mask = np.zeros((1, 1, 3, 3), np.float32)
    mask[0, 0, 0] = row
    weights = _prompt([0.5, -1.0, 2.0], mask)
    np.testing.assert_array_equal(weights[0], np.float32(expected))


def test_the_attention_node_masks_by_boolean_with_flt_max() -> None:
    """A boolean mask adds 0 or -FLT_MAX there (a row all false averages, as the CPU's)."""
    mask = np.ones((1, 1, 3, 3), np.bool_)
    mask[0, 0, 0] = False
    q, k, v = (np.random.default_rng(i).standard_normal((1, 1, 3, 8), np.float32) for i in range(3))
    result = attention(q, k, v, mask, reads_cache=True)
    np.testing.assert_allclose(result[0, 0, 0], v[0, 0].mean(axis=0), rtol=1e-6)


@pytest.mark.parametrize(
    ("keys", "emulated"), [(EXACT_STEP_KEYS, True), (EXACT_STEP_KEYS + 1, False)]
)
def test_a_step_past_the_emulated_keys_runs_the_snippet(keys: int, emulated: bool) -> None:
    """A step's FMA chains cost a NumPy call a key: past EXACT_STEP_KEYS the node declines
    (None), and the kernel runs the snippet."""
    rng = np.random.default_rng(0)
    query = rng.standard_normal((1, 2, 1, 16), np.float32)
    key, value = (rng.standard_normal((1, 2, keys, 16), np.float32) for _ in range(2))
    result = node_attention(query, key, value, None, None, False, "f32", np.matmul)
    assert (result is not None) is emulated


@pytest.mark.parametrize(
    ("tail_in_first_lane", "expected"),
    [(False, 1 + 2**-23), (True, 1.0)],  # static shapes: lanes 0 and 1; dynamic: lane 0 twice
)
def test_the_snippets_sum_adds_its_tail_by_shape(tail_in_first_lane: bool, expected: float) -> None:
    """1 in lane 0, 2^-24 in lane 1, then a tail of two 2^-24 (18 keys)."""
    powers = np.zeros(18, np.float32)
    powers[0], powers[1], powers[16:] = 1, 2**-24, 2**-24
    assert lane_sum(powers, tail_in_first_lane) == np.float32(expected)


def test_the_snippets_exp_keeps_subnormal_values() -> None:
    """Between ln FLT_MIN and about -86.99, where the attention node's exp gives 0: the bits
    the CPU weighs the second of scores [0, x] by (exp(-1) is 0x3EBC5AB3, measured as its
    weight 0x3E89B2B1)."""
    x = np.array([-87.3365478515625, -87.0, -1.0], np.float32)
    assert vector_exp(x, whole_power=True).view(np.uint32).tolist() == [
        0x7FFFE8,
        0xB3368A,
        0x3EBC5AB3,
    ]
    assert vector_exp(x[:2]).tolist() == [0, 0]


@pytest.mark.parametrize(
    ("depth", "f32_bits", "double_bits"),
    [(96, 0x3DD105EB, 0x3DD105EC), (112, 0x3DC18490, 0x3DC1848F)],
)
def test_the_attention_nodes_default_scale_is_computed_in_f32(
    depth: int, f32_bits: int, double_bits: int
) -> None:
    """Measured on the CPU's attention node: with no scale (or 0), 1/sqrt(E) in f32, a last
    bit off 1/sqrt(E) computed in double and rounded for E 96 and 112."""
    rng = np.random.default_rng(depth)
    q, k, v = (rng.standard_normal((1, 1, n, depth)).astype(np.float32) for n in (1, 9, 9))

    def step(scale: np.ndarray | None) -> np.ndarray:
        found = node_attention(q, k, v, None, scale, False, "f32", np.matmul)
        assert found is not None
        return found

    default = step(None)
    for scale, equal in ((f32_bits, True), (double_bits, False)):
        given = np.array(scale, np.uint32).view(np.float32)
        assert np.array_equal(step(given), default) == equal
    assert np.array_equal(step(np.array(0, np.float32)), default)


def test_a_causal_step_past_the_emulated_keys_counts_from_the_pasts_end() -> None:
    """A step the node declines (more keys than EXACT_STEP_KEYS) runs the snippet with the
    node's causal mask: the query, the last token, sees every key (counted from the top left
    it would see the first alone)."""
    rng = np.random.default_rng(1)
    query = rng.standard_normal((1, 2, 1, 16), np.float32)
    keys = EXACT_STEP_KEYS + 1
    key, value = (rng.standard_normal((1, 2, keys, 16), np.float32) for _ in range(2))
    causal = attention(query, key, value, causal=True, reads_cache=True, cache_type="f32")
    plain = attention(query, key, value, reads_cache=True, cache_type="f32")
    np.testing.assert_allclose(causal, plain, rtol=1e-5, atol=1e-6)
