"""Re-measure every CPU-plugin behaviour irpool models on the installed OpenVINO (this script).

Each behaviour irpool keeps in irpool/cpu/ (docs/cpu.md) has one function here or in a
measure_cpu_*.py module beside it, which builds a tiny model with OpenVINO's op builders, runs it on
the CPU plugin (f32 hint) and returns what it observed beside what irpool computes for it: what
irpool assumes the CPU does. One row per behaviour, "same" or "CHANGED", exit 1 when any changed: an
OpenVINO upgrade is a list of behaviours to measure again. It also judges the CPU's refusals (the
IR214 family, irpool/cpu/refusals.py): each rule's fixtures in tests/rules/ run in a worker process
that survives the plugin's crashes (tests/differential/openvino_worker.py); a rule is "same" while
the plugin fails them as claimed."""

from __future__ import annotations

import measure_cpu_attention  # noqa: F401 (registers the attention snippet's behaviours)
import measure_cpu_math  # noqa: F401 (registers the Math node's behaviours)
import measure_cpu_products  # noqa: F401 (registers compressed products' sums)
import numpy as np
from cpu_probe import (
    CPU_CONFIG,
    Measurement,
    behaviour,
    bf16_values,
    constant,
    fake_quantize,
    kv_cache_model,
    main,
    observe,
    observe_steps,
    parameter,
    rotary_embedding,
)
from ov_builders import opset1, opset4, ov  # says how to install OpenVINO where it is missing

from irpool.cpu.pull_through_reduce import pulled_through_reduce

# Numerics: irpool/cpu/numerics.py, irpool/cpu/maxima.py


@behaviour("Integers computed in f32", "irpool.cpu.numerics.f32_operand")
def integers_computed_in_f32() -> Measurement:
    """ReLU of i32 16777217 is 16777216: wrapped to int32, rounded to f32 and back."""
    x = parameter("x", [3], np.int32)
    return observe([opset1.relu(x)], [x], [np.array([16777217, 16777219, -5], np.int32)])


@behaviour("Out of int32 stored as INT32_MIN", "irpool.cpu.numerics.stored_from_f32")
def out_of_int32_stored_as_int32_min() -> Measurement:
    """ReLU of i32 2147483647 (2**31 in f32) and an i32 FloorMod by 0 (NaN) give INT32_MIN."""
    x, y = parameter("x", [2], np.int32), parameter("y", [2], np.int32)
    outputs = [opset1.relu(x), opset1.floor_mod(x, y)]
    return observe(outputs, [x, y], [np.array([2**31 - 1, 5], np.int32), np.zeros(2, np.int32)])


@behaviour("8-bit results saturate", "irpool.cpu.numerics.stored_from_f32")
def eight_bit_results_saturate() -> Measurement:
    """An i8 division by zero gives -128 (INT32_MIN saturated), an u8 one 0."""
    a, b = parameter("a", [3], np.int8), parameter("b", [3], np.int8)
    c, d = parameter("c", [2], np.uint8), parameter("d", [2], np.uint8)
    outputs = [opset1.divide(a, b), opset1.divide(c, d)]
    inputs = [[100, -100, 7], [0, 0, 2], [200, 3], [0, 2]]
    dtypes = [np.int8, np.int8, np.uint8, np.uint8]
    return observe(
        outputs, [a, b, c, d], [np.array(v, t) for v, t in zip(inputs, dtypes, strict=True)]
    )


@behaviour("Boolean results round to nearest", "irpool.cpu.numerics.stored_from_f32")
def boolean_results_round_to_nearest() -> Measurement:
    """A boolean SoftMax is true where its f32 result rounds to a nonzero integer: softmax of
    [1, 0, 0] is [0.58, 0.21, 0.21], true only first; of [1, 1] [0.5, 0.5], false (ties to
    even), where any nonzero value would be true."""
    x, y = parameter("x", [2, 3], np.bool_), parameter("y", [1, 2], np.bool_)
    outputs = [ov.opset8.softmax(x, 1), ov.opset8.softmax(y, 1)]
    inputs = [np.array([[1, 0, 0], [1, 1, 0]], np.bool_), np.array([[1, 1]], np.bool_)]
    return observe(outputs, [x, y], inputs)


@behaviour("f64 saturates to the f32 range", "irpool.cpu.numerics.f32_operand")
def f64_saturates_to_the_f32_range() -> Measurement:
    """ReLU of f64 1e300 and inf gives FLT_MAX: f64 is computed in f32, saturated."""
    x = parameter("x", [4], np.float64)
    return observe([opset1.relu(x)], [x], [np.array([1e300, np.inf, -1e300, 0.1], np.float64)])


@behaviour("Integer products saturate", "irpool.cpu.numerics.stored_from_f32_product")
def integer_products_saturate() -> Measurement:
    """An i32 MatMul saturates to [-2**31, 2147483520] (the largest f32 below 2**31)."""
    a, b = parameter("a", [2, 1], np.int32), parameter("b", [1, 1], np.int32)
    product = opset1.matmul(a, b, False, False)
    return observe(
        [product], [a, b], [np.array([[2**30], [-(2**30)]], np.int32), np.array([[4]], np.int32)]
    )


@behaviour("Moved 64-bit integers wrap to int32", "irpool.cpu.numerics.moved_as_held")
def moved_64_bit_integers_wrap() -> Measurement:
    """An i64 2**31 comes out of a lone Reshape as -2**31."""
    x = parameter("x", [2], np.int64)
    reshaped = opset1.reshape(x, constant([2, 1], np.int64), False)
    return observe([reshaped], [x], [np.array([2**31, 2**40 + 7], np.int64)])


@behaviour("Constants are held saturated", "irpool.cpu.numerics.constant_as_held")
def constants_are_held_saturated() -> Measurement:
    """An i64 Const holding 2**40 and -2**40 is held as 2147483647 and -2147483648 (saturated,
    where a computed i64 wraps); an f64 Const of 1e300 as FLT_MAX."""
    a, b = parameter("a", [3], np.int64), parameter("b", [2], np.float64)
    wide = opset1.add(a, constant([2**40, -(2**40), 5], np.int64))
    huge = opset1.add(b, constant([1e300, 0.1], np.float64))
    return observe([wide, huge], [a, b], [np.zeros(3, np.int64), np.zeros(2, np.float64)])


@behaviour("Moved f64 is held as f32", "irpool.cpu.numerics.moved_as_held")
def moved_f64_is_held_as_f32() -> Measurement:
    """An f64 inf or 1e300 comes out of a lone Reshape as FLT_MAX; 0.1 as f32's 0.1."""
    x = parameter("x", [4], np.float64)
    reshaped = opset1.reshape(x, constant([4, 1], np.int64), False)
    return observe([reshaped], [x], [np.array([np.inf, 1e300, -np.inf, 0.1], np.float64)])


@behaviour("The vectorized exp is a polynomial", "irpool.cpu.numerics.EXP_UNDERFLOW")
def exp_underflows_to_zero() -> Measurement:
    """Sigmoid below x = -86.98997 is 0, where NumPy's exp still gives subnormals; Sigmoid
    (-5.8433156) is 0.0028908334, 4 ulp from NumPy's; Swish(-71.168076) -8.7979767e-30."""
    x, values = parameter("x", [5], np.float32), [-87.0, -88.5, -5.8433156, 0.95329744, -71.168076]
    return observe([opset1.sigmoid(x), opset4.swish(x)], [x], [np.array(values, np.float32)])


@behaviour("The Exp op's thresholds", "irpool.cpu.numerics.EXP_INF_FROM")
def exp_op_thresholds() -> Measurement:
    """Exp is inf for NaN and from 88.37627 (0x42B0C0A6) on, below ln FLT_MAX; 0 at and below
    -87.336555 (0xC2AEAC51)."""
    x = parameter("x", [5], np.float32)
    values = np.array([np.nan, 88.37627, 88.5, -87.336555, 0.0], np.float32)
    return observe([opset1.exp(x)], [x], [values])


@behaviour("Scalar exp is the C library's", "irpool.cpu.scalar_exp.expf")
def scalar_exp_is_the_c_librarys() -> Measurement:
    """A DetectionOutput box's height is exp(-0.019116983) = 0.98106462 (glibc's expf), one f32
    step above the nearest (0.98106456): its ymax is 1.0202662, not 1.020266."""
    loc, scores = parameter("l", [1, 4], np.float32), parameter("s", [1, 2], np.float32)
    priors = parameter("p", [1, 2, 4], np.float32)
    attrs = {"num_classes": 2, "keep_top_k": [-1], "nms_threshold": 0.45, "normalized": True}
    attrs |= {"code_type": "caffe.PriorBoxParameter.CENTER_SIZE", "top_k": -1}
    offsets = np.array([[0.1, 0.25, 0.1163803, -0.095584914]], np.float32)
    boxes = np.array([[[0.5, 0.5, 0.625, 1.0], [0.1, 0.2, 0.1, 0.2]]], np.float32)
    inputs = [offsets, np.array([[0.1, 0.9]], np.float32), boxes]
    return observe(
        [opset1.detection_output(loc, scores, priors, attrs)], [loc, scores, priors], inputs
    )


@behaviour("The Math node stores integers saturated", "irpool.cpu.numerics")
def math_node_stores_integers_saturated() -> Measurement:
    """i32 Cosh(100) is 2147483520 (Exp(100) is INT32_MIN); u8 Acos(5), NaN, is 255 in a [2]
    tensor and 0 in a [1,1,2] one."""
    x, flat, deep = (
        parameter("x", [2], np.int32),
        parameter("y", [2], np.uint8),
        parameter("z", [1, 1, 2], np.uint8),
    )
    outputs = [opset1.cosh(x), opset1.exp(x), opset1.acos(flat), opset1.acos(deep)]
    values = [np.array([100, 0], np.int32), np.array([5, 1], np.uint8)]
    return observe(outputs, [x, flat, deep], [*values, np.array([[[5, 1]]], np.uint8)])


@behaviour("PReLU slope layouts", "irpool.cpu.prelu_slope.slope_layout")
def prelu_slope_layouts() -> Measurement:
    """A slope [4] on data [2,4,4] is per channel (axis 1), not per last dim; a slope [2] on
    data [5,3,1] multiplies by its last value."""
    x, y = parameter("x", [2, 4, 4], np.float32), parameter("y", [5, 3, 1], np.float32)
    outputs = [
        opset1.prelu(x, constant([1, 2, 3, 4], np.float32)),
        opset1.prelu(y, constant([2, 5], np.float32)),
    ]
    return observe(
        outputs, [x, y], [-np.ones((2, 4, 4), np.float32), -np.ones((5, 3, 1), np.float32)]
    )


@behaviour(
    "Subnormal f32 constants are held as +0",
    "irpool.cpu.subnormal_constants.flush_constant_subnormals",
)
def subnormal_f32_constants_are_held_as_zero() -> Measurement:
    """x * c with c two -1e-42s is +0 for x = 2 and -0 for x = -3 (c held as +0s); with c one
    -1e-42, fused as a scalar, it is -2e-42 and 3e-42."""
    x = parameter("x", [2], np.float32)
    flushed = opset1.multiply(x, constant([-1e-42, -1e-42], np.float32))
    kept = opset1.multiply(x, constant([-1e-42], np.float32))
    return observe([flushed, kept], [x], [np.array([2, -3], np.float32)])


@behaviour("Integer maxima through f32", "irpool.cpu.maxima")
def integer_maxima_through_f32() -> Measurement:
    """An i32 MaxPool over two channels compares in f32 and clamps to 2147483520: the maximum
    of 2147483647 and 0 is 2147483520, of 16777219 and 16777218 is 16777220."""
    x = parameter("x", [1, 2, 1, 2], np.int32)
    pooled = opset1.max_pool(x, [1, 2], [0, 0], [0, 0], [1, 2])
    values = np.array([[[[2**31 - 1, 0]], [[16777219, 16777218]]]], np.int32)
    return observe([pooled], [x], [values])


@behaviour("bf16 MaxPool flushes subnormals", "irpool.cpu.maxima.flushed_subnormals")
def bf16_max_pool_flushes_subnormals() -> Measurement:
    """A bf16 MaxPool gives a subnormal maximum as a zero of its sign: the maximum of the
    subnormals 0x0050 and 0x8050 is +0, of 0x8040 and -inf -0."""
    x = parameter("x", [1, 2, 1, 2], ov.Type.bf16)
    pooled = opset1.max_pool(x, [1, 2], [0, 0], [0, 0], [1, 2])
    return observe(
        [pooled], [x], [bf16_values([0x0050, 0x8050, 0x8040, 0xFF80]).reshape(1, 2, 1, 2)]
    )


@behaviour("bf16 windows start at bf16's lowest", "irpool.cpu.maxima.bf16_window_start")
def bf16_windows_start_at_the_lowest() -> Measurement:
    """A bf16 MaxPool with a dilation runs the general kernel, whose windows start at bf16's
    lowest value: a window of -inf gives -3.3895314e38; without a dilation, -inf."""
    x = parameter("x", [1, 1, 1, 3], ov.Type.bf16)
    dilated = ov.opset8.max_pool(x, [1, 1], [1, 2], [0, 0], [0, 0], [1, 2])
    plain = opset1.max_pool(x, [1, 1], [0, 0], [0, 0], [1, 2])
    values = bf16_values([0xFF80] * 3).reshape(1, 1, 1, 3)  # -inf
    return observe([dilated.output(0), plain.output(0)], [x], [values])


@behaviour("One-channel integer MaxPool is exact", "irpool.cpu.maxima.max_pool_values_in_f32")
def one_channel_integer_max_pool_is_exact() -> Measurement:
    """An i32 MaxPool of one channel without dilation or empty windows is exact (2147483647 and
    0 give 2147483647); with at most AVX2 only from 4 outputs (batch x spatial) on."""
    x, y = parameter("x", [1, 1, 1, 4], np.int32), parameter("y", [1, 1, 1, 8], np.int32)
    pooled = [opset1.max_pool(p, [1, 2], [0, 0], [0, 0], [1, 2]) for p in (x, y)]
    values = np.array([[[[2**31 - 1, 0, 16777219, 16777218]]]], np.int32)
    return observe(pooled, [x, y], [values, np.tile(values, 2)])


@behaviour("Reductions fold runs of 16 in lanes", "irpool.execute.kernels.reduce_order.lane_fold")
def reductions_fold_runs_of_16_in_lanes() -> Measurement:
    """ReduceSum of [2**24, 0, 1, 1, 0 x 12] is 16777218 (((l0+l4)+(l8+l12)) + ...), of its
    first four 16777216 (one by one); of [2**24, 1, 0, 0, 0, 1, 0, 0] 16777218 with AVX2's 8
    lanes ((l0+l4) + (l1+l5)), 16777216 on AVX-512 (one by one under 16)."""
    rows = [[2**24, 0, 1, 1] + [0] * 12, [2**24, 0, 1, 1], [2**24, 1, 0, 0, 0, 1, 0, 0]]
    inputs = [parameter(f"x{i}", [1, len(row)], np.float32) for i, row in enumerate(rows)]
    outputs = [opset1.reduce_sum(p, constant([1], np.int64), False) for p in inputs]
    return observe(outputs, inputs, [np.array([row], np.float32) for row in rows])


@behaviour("u8 sums are stored through i16", "irpool.execute.kernels.reduce_sums.held_sum")
def u8_sums_are_stored_through_i16() -> Measurement:
    """An u8 ReduceSum of 200 x 200 over axis 0 of [200, 2] is 0 (40000 through u16 read as
    i16, then u8), of [200, 100] 255; ReduceL2 of [150, 150] is 0, of [16, 0] 15."""
    x, y = parameter("x", [200, 2], np.uint8), parameter("y", [2, 2], np.uint8)
    outputs = [
        opset1.reduce_sum(x, constant([0], np.int64), False),
        opset1.reduce_sum(y, constant([1], np.int64), False),
        opset4.reduce_l2(y, constant([1], np.int64), False),
    ]
    inputs = [np.full((200, 2), 200, np.uint8), np.array([[200, 100], [150, 150]], np.uint8)]
    return observe(outputs, [x, y], inputs)


@behaviour(
    "An unresized Interpolate axis weighs its neighbour by 0",
    "irpool.execute.kernels.interpolate.computed_axes",
)
def unresized_interpolate_axis_weighs_its_neighbour() -> Measurement:
    """A linear_onnx Interpolate-11 resizing only axis 2 of [1,1,2,4] still computes axis 3:
    an inf at (0, 1) makes (0, 0) NaN (inf times the weight 0 of its right neighbour)."""
    x = parameter("x", [1, 1, 2, 4], np.float32)
    scales, axes = constant([2.0], np.float32), constant([2], np.int64)
    resized = ov.opset11.interpolate(
        x, scales, "linear_onnx", "scales", coordinate_transformation_mode="asymmetric", axes=axes
    )
    values = np.zeros((1, 1, 2, 4), np.float32)
    values[0, 0, 0, 1] = np.inf
    return observe([resized], [x], [values])


# Compilation: irpool/cpu/compilation.py


@behaviour("MaxPool indices leave dynamic axes unpadded", "irpool.cpu.compilation.unpadded_axes")
def max_pool_indices_leave_dynamic_axes_unpadded() -> Measurement:
    """A MaxPool-8 with same_upper on a dynamic width and its indices read pads that width by
    0: kernel 3 over [1, 2, 3, 4] gives [3, 4, 4, 4], not [2, 3, 4, 4]."""
    x = parameter("x", "1,1,1,?", np.float32)
    pool = ov.opset8.max_pool(x, [1, 1], [1, 1], [0, 0], [0, 0], [1, 3], auto_pad="same_upper")
    values = np.array([[[[1, 2, 3, 4]]]], np.float32)
    return observe([pool.output(0), pool.output(1)], [x], [values])


@behaviour(
    "Attention scales key by a known scale", "irpool.cpu.compilation.scale_known_when_compiled"
)
def attention_scales_key_by_a_known_scale() -> Measurement:
    """A constant scale multiplies key before the product (key 3e38 times 2 overflows: NaN);
    a scale given at run time multiplies the product (0.25 * 3e38 * 2 stays finite)."""
    query = parameter("query", [1, 1, 1], np.float32)
    key = parameter("key", [1, 1, 1], np.float32)
    value = parameter("value", [1, 1, 1], np.float32)
    scale = parameter("scale", [], np.float32)
    mask = constant(np.zeros((1, 1)), np.float32)
    attention = ov.opset13.scaled_dot_product_attention
    known = attention(query, key, value, mask, constant(2, np.float32))
    late = attention(query, key, value, mask, scale)
    arrays = [[[[0.25]]], [[[3e38]]], [[[7.0]]]]
    inputs = [np.array(a, np.float32) for a in arrays] + [np.array(2, np.float32)]
    return observe([known, late], [query, key, value, scale], inputs)


@behaviour(
    "Attention at rank 5 runs the SoftMax node",
    "irpool.cpu.compilation.attention_runs_softmax_node",
)
def attention_at_rank_5_runs_the_softmax_node() -> Measurement:
    """Scores 0 and -87.1: the SoftMax node (rank 5) gives the second weight 0 (its exp is 0
    below -86.98997), the fused kernel (rank 6) exp(-87.1), above FLT_MIN. Observed: whether
    that weight reaches the output, a value of 1 under it and 0 under the other."""
    outputs, parameters, inputs = [], [], []
    for rank in (5, 6):
        lead = [1] * (rank - 2)
        query = parameter(f"query{rank}", [*lead, 1, 1], np.float32)
        key = parameter(f"key{rank}", [*lead, 2, 1], np.float32)
        value = parameter(f"value{rank}", [*lead, 2, 1], np.float32)
        mask, scale = constant(np.zeros((1, 2)), np.float32), constant(1, np.float32)
        outputs.append(ov.opset13.scaled_dot_product_attention(query, key, value, mask, scale))
        parameters += [query, key, value]
        columns = ([[1]], [[0], [-87.1]], [[0], [1]])
        inputs += [np.array(c, np.float32).reshape([*lead, len(c), 1]) for c in columns]
    measured = observe(outputs, parameters, inputs)
    return Measurement(
        [output != 0 for output in measured.observed], [output != 0 for output in measured.assumed]
    )


@behaviour("Convert's dynamic-shape kernel", "irpool.cpu.compilation.runs_dynamic_kernel")
def converts_dynamic_shape_kernel() -> Measurement:
    """f32 to u8 saturates (300.5 -> 255) where the input's shape is dynamic, and wraps
    (300.5 -> 44) where it is static."""
    static, dynamic = parameter("static", [3], np.float32), parameter("dynamic", "?", np.float32)
    outputs = [opset1.convert(static, "u8"), opset1.convert(dynamic, "u8")]
    values = np.array([300.5, -3.0, 12.7], np.float32)
    return observe(outputs, [static, dynamic], [values, values])


# Fusions and rewrites: irpool/cpu/eltwise_fusion.py, irpool/cpu/reduce_merge.py


@behaviour("Fused FloorMod chains carry NaN", "irpool.cpu.eltwise_fusion")
def fused_floor_mod_chains_carry_nan() -> Measurement:
    """(5 floormod 0) floormod 2 is INT32_MIN: the fused chain carries the NaN in f32, where
    INT32_MIN floormod 2 would be 0."""
    a, b = parameter("a", [2], np.int32), parameter("b", [2], np.int32)
    chain = opset1.floor_mod(opset1.floor_mod(a, b), constant([2, 2], np.int32))
    return observe([chain], [a, b], [np.array([5, 7], np.int32), np.array([0, 4], np.int32)])


@behaviour("Fused Power chains carry fractions", "irpool.cpu.eltwise_fusion")
def fused_power_chains_carry_fractions() -> Measurement:
    """(-3) ** -1 floormod 3 is 3: the fraction -1/3 goes on in f32, rounded at the end."""
    a, b = parameter("a", [2], np.int32), parameter("b", [2], np.int32)
    chain = opset1.floor_mod(opset1.power(a, b), constant([3, 5], np.int32))
    return observe([chain], [a, b], [np.array([-3, -2], np.int32), np.array([-1, -1], np.int32)])


@behaviour("Fused chains go on through Exp, Tanh, Sqrt and Ceiling", "irpool.cpu.eltwise_fusion")
def fused_chains_go_on_through_unary_math() -> Measurement:
    """tanh(0 ** -1) is 1 (of inf), sqrt((-2) ** -1) INT32_MIN (of -0.5); stored first they
    would be -1 and 0. Abs does not fuse: abs((-2) ** -1) is 0. (Each chain has its own
    Parameters: the CPU merges equal Powers, and a Power read thrice does not fuse.)"""
    pairs = [
        (parameter(f"a{i}", [2], np.int32), parameter(f"b{i}", [2], np.int32)) for i in range(3)
    ]
    outputs = [
        op(opset1.power(a, b))
        for op, (a, b) in zip((opset1.tanh, opset1.sqrt, opset1.abs), pairs, strict=True)
    ]
    values = [np.array([0, -2], np.int32), np.array([-1, -1], np.int32)] * 3
    return observe(outputs, [p for pair in pairs for p in pair], values)


@behaviour("Neutral eltwise ops are removed", "irpool.cpu.eltwise_fusion")
def neutral_eltwise_ops_are_removed() -> Measurement:
    """An i32 `x / 1` by a Const passes x on (16777217 stays, not rounded through f32)."""
    a, b = parameter("a", [2], np.int32), parameter("b", [2], np.int32)
    divided = opset1.divide(opset1.subtract(a, b), constant([1], np.int32))
    inputs = [np.array([16777217, -16777219], np.int32), np.zeros(2, np.int32)]
    return observe([divided], [a, b], inputs)


@behaviour("Chained Reduces merge", "irpool.cpu.reduce_merge")
def chained_reduces_merge() -> Measurement:
    """An u8 ReduceMean over axis 2 then axis 1 of [[1, 2], [2, 3]] truncates once: 2, not 1."""
    x = parameter("x", [1, 2, 2], np.uint8)
    inner = opset1.reduce_mean(x, constant([2], np.int64), False)
    outer = opset1.reduce_mean(inner, constant([1], np.int64), False)
    return observe([outer], [x], [np.array([[[1, 2], [2, 3]]], np.uint8)])


@behaviour("MatMul weights take a constant scale first", "irpool.cpu.product_fusion.scaled_matmuls")
def matmul_weights_take_a_constant_scale_first() -> Measurement:
    """(a @ b) * [2, 1] is a @ (b * [2, 1]): with b = [[2e38, 0], [0, 1]], b * c overflows
    first, [[inf, 0], [NaN, 0.25]], not [[1e38, 0], [0, 0.25]]."""
    a, b = parameter("a", [2, 2], np.float32), parameter("b", [2, 2], np.float32)
    scaled = opset1.multiply(opset1.matmul(a, b, False, False), constant([2, 1], np.float32))
    inputs = [
        np.array([[0.25, 0], [0, 0.25]], np.float32),
        np.array([[2e38, 0], [0, 1]], np.float32),
    ]
    return observe([scaled], [a, b], inputs)


@behaviour(
    "A MatMul by compressed weights quantizes its activations",
    "irpool.cpu.compressed_weights.quantizing_matmuls",
)
def matmul_by_compressed_weights_quantizes_activations() -> Measurement:
    """x @ w.T with w = Convert(u8 Const) * 1 (f16), two rows: x = [127, 1.3, 0.4, 0, ...] of
    K = 32 is quantized to int8 by max|x| / 127 = 1 first, [127, 1, 0, ...]: 127 * 2 + 3 = 257,
    not 259.9; with one row of weights it is not (259.9). t = [3, 0.08267716, 0, ...] by rows
    picking t[1]: 3 steps of 3/127 (t[1] times the scale's reciprocal is 3.4999998), not 4.
    K = 40 (one scale per row): z = x then [1.27, 0.013, 0.025, 0, ...] is quantized per 32
    with a shorter last group of 8, its scale 0.01 and its tie 2.5 rounded away from zero:
    127, 1 and 3 steps, 257 + 1.31 = 258.31, not 258.30 (2.5 to even), 261.208 (not
    quantized) nor 258 (one group of 40)."""
    depth, longer = 32, 40
    x, t = parameter("x", [1, depth], np.float32), parameter("t", [1, depth], np.float32)
    z = parameter("z", [1, longer], np.float32)
    row, second = [2, 3, 5] + [1] * (depth - 3), [0, 1] + [0] * (depth - 2)
    cases = [(x, row, 2), (x, row, 1), (t, second, 2), (z, row + [1] * (longer - depth), 2)]
    outputs = []
    for source, picked, rows in cases:
        quantized = opset1.constant(np.array([picked] * rows, np.uint8))
        scales = opset1.constant(np.ones((rows, 1), np.float16))
        weights = opset1.convert(opset1.multiply(opset1.convert(quantized, "f16"), scales), "f32")
        outputs.append(opset1.matmul(source, weights, False, True))
    data = np.array([[127, 1.3, 0.4] + [0] * (depth - 3)], np.float32)
    tail = np.array([[1.27, 0.013, 0.025] + [0] * (longer - depth - 3)], np.float32)
    inputs = [data, np.array([[3, 0.08267716] + [0] * 30], np.float32)]
    return observe(outputs, [x, t, z], [*inputs, np.concatenate([data, tail], axis=1)])


@behaviour("A KV cache is held in u8", "irpool.cpu.kv_cache.held_caches")
def kv_cache_is_held_in_u8() -> Measurement:
    """ReadValue -> Gather(beam_idx) -> Concat(past, v) -> Assign and -> the attention's V, q
    zero (each token weighs 1/n): a one-token prompt v = [0, 2.6, 255, 0, ...] gives itself
    as u8 holds it (scale (255 - 0) / 255 = 1): [0, 3, 255, ...]; a second token
    [0, 1.3, 255, 0, ...] then gives the mean of 3 and 1: [0, 2, 255, ...], not 1.95."""
    zeros, beam = np.zeros((1, 1, 1, 16), np.float32), np.zeros(1, np.int32)
    rows = [np.pad(np.array([0, second, 255], np.float32), (0, 13)) for second in (2.6, 1.3)]
    steps = [
        {"q": zeros, "k": zeros, "v": row.reshape(zeros.shape), "beam_idx": beam} for row in rows
    ]
    return observe_steps(kv_cache_model(16), steps)


@behaviour("A cache-fused attention's prompt runs the attention node", "irpool.cpu.attention_node")
def cache_fused_prompt_runs_the_attention_node() -> Measurement:
    """A 3-token prompt, scores [0.3125, -0.15625, -0.40625]: the node's exp, not NumPy's."""
    q, k = np.zeros((2, 1, 1, 3, 16), np.float32)
    q[..., 0], k[0, 0, :, 0] = 1, [1.25, -0.625, -1.625]
    v, beams = np.eye(3, 16, dtype=np.float32)[None, None], np.zeros(1, np.int32)
    return observe_steps(kv_cache_model(16), [{"q": q, "k": k, "v": v, "beam_idx": beams}])


@behaviour(
    "A Clamp fused into a product rounds 8-bit bounds",
    "irpool.cpu.product_fusion.clamps_in_products",
)
def clamp_fused_into_a_product_rounds_8_bit_bounds() -> Measurement:
    """i8 clamp(x @ I, 1.7, 5.2) is 2 below 1.7 (min rounded up, as wider types'), where the
    Clamp alone truncates it to 1."""
    x = parameter("x", [2, 4], np.int8)
    product = opset1.matmul(x, constant(np.eye(4), np.int8), False, False)
    clamped = opset1.clamp(product, 1.7, 5.2)
    data = np.array([[-128, -5, 0, 1], [2, 3, 127, -1]], np.int8)
    return observe([clamped], [x], [data])


@behaviour("Constant Add and Multiply chains fold", "irpool.cpu.linear_fusion.folded_linear_chains")
def constant_add_multiply_chains_fold() -> Measurement:
    """(x * 0.7) * 0.1 is x * (0.7 * 0.1): 5.3899997e-4 for x = 7.7e-3, not 5.3900003e-4;
    (x - 0.7) - 0.1 for x = 0.3 is -0.5, not -0.49999997."""
    x = parameter("x", [2], np.float32)
    scaled = opset1.multiply(
        opset1.multiply(x, constant([0.7], np.float32)), constant([0.1], np.float32)
    )
    y = parameter("y", [2], np.float32)
    shifted = opset1.subtract(
        opset1.subtract(y, constant([0.7], np.float32)), constant([0.1], np.float32)
    )
    inputs = [np.array([7.7e-3, 0.3], np.float32), np.array([0.3, 7.7e-3], np.float32)]
    return observe([scaled, shifted], [x, y], inputs)


@behaviour("A Multiply read only by an Add is one FMA", "irpool.cpu.linear_fusion.multiply_adds")
def multiply_read_by_an_add_is_one_fma() -> Measurement:
    """x * y + z rounds once: -3.3 * 0.1 + 0.07 is -0.26 (not -0.26000002), 1e38 * 10 + -inf
    is -inf (not NaN)."""
    x, y, z = (parameter(name, [3], np.float32) for name in "xyz")
    fused = opset1.add(opset1.multiply(x, y), z)
    inputs = [
        np.array([-3.3, 1e38, 1e38], np.float32),
        np.array([0.1, 10, 10], np.float32),
        np.array([0.07, -np.inf, -1e38], np.float32),
    ]
    return observe([fused], [x, y, z], inputs)


@behaviour("An RMSNorm runs as one kernel", "irpool.cpu.rms_fusion.fused_rms_norms")
def rms_norm_runs_as_one_kernel() -> Measurement:
    """x * 1/Sqrt(ReduceMean(x^2, -1) + 1e-6) on rows of 64: [4096, 1, ..., 1] sums to 2**24
    + 62 in 16 lanes or 8 (in order 2**24, pairwise + 56), each 1 giving 0.0019531215; with
    8192 and a 2 at 32, 2**26 + 72 in 16 (0.00097656203), + 56 in 8 (0.00097656215)."""
    x = parameter("x", [2, 64], np.float32)
    squares = opset1.power(x, constant(np.float32(2), np.float32))
    mean = opset1.reduce_mean(squares, constant([-1], np.int64), True)
    root = opset1.sqrt(opset1.add(mean, constant(np.float32(1e-6), np.float32)))
    normalised = opset1.multiply(x, opset1.divide(constant(np.float32(1), np.float32), root))
    rows = np.ones((2, 64), np.float32)
    rows[:, 0], rows[1, 32] = [4096, 8192], 2
    return observe([normalised], [x], [rows])


@behaviour("RoPE runs as one kernel", "irpool.cpu.rope_fusion.fused_rotary_embeddings")
def rope_runs_as_one_kernel() -> Measurement:
    """fma(x, cos, rotated * sin), then fma(rotated, sin, x * cos): -0.38 first, -0.221 third
    (op by op -0.38000003, -0.22099999; either FMA throughout gives one of them)."""
    values = ([-3.3, 0.1, 0.1, 1.1], [0.1, 0.3, 0.1, 0.3], [0.5, 0.5, 0.07, 0.5])
    return observe(*rotary_embedding(values))


# (input shape, where the 1s go, the Reduce's axes, keep_dims): one case of each outcome
PULLED_CASES = (
    ([2, 3], [2], [-2], False),  # axis 1 as written, axis 0 on the CPU: "wrong"
    ([2, 3], [1], [-3], True),  # -3 on the rank-2 input: "compile"
    ([2, 3, 4], [2], [0], True),  # keep_dims: the 1s come back elsewhere: "wrong"
    ([2, 3], [2], [1], False),  # a non-negative axis is renumbered right: as written
)


@behaviour("Reduce after inserted 1s keeps its axes as written", "irpool.cpu.pull_through_reduce")
def reduce_after_inserted_ones_keeps_its_axes() -> Measurement:
    """Each of PULLED_CASES, an Unsqueeze then a ReduceMean, as the CPU compiles and runs it
    ("compile": it fails to compile; "wrong": another shape or other values than NumPy's;
    "written": what the file says) beside what irpool's replay of the rewrite predicts."""
    observed, assumed = [], []
    for shape, ones, axes, keep in PULLED_CASES:
        x = parameter("x", shape, np.float32)
        inserted = opset1.unsqueeze(x, constant(ones, np.int64))
        reduced = opset1.reduce_mean(inserted, constant(axes, np.int64), keep)
        data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        full = np.expand_dims(data, tuple(ones))
        expected = np.mean(full, axis=tuple(sorted({a % full.ndim for a in axes})), keepdims=keep)
        try:
            compiled = ov.Core().compile_model(ov.Model([reduced], [x]), "CPU", CPU_CONFIG)
        except RuntimeError:
            observed.append("compile")
        else:
            got = compiled([data])[0]
            same = got.shape == expected.shape and np.array_equal(got, expected)
            observed.append("written" if same else "wrong")
        assumed.append(pulled_through_reduce(shape, ones, axes, keep) or "written")
    return Measurement([np.array(observed)], [np.array(assumed)])


# Quantization: irpool/cpu/quantization.py, irpool/cpu/quantization_refusals.py


@behaviour("FakeQuantize rounds half to even", "irpool.cpu.quantization.fake_quantized")
def fake_quantize_rounds_half_to_even() -> Measurement:
    """Levels 0..255 of [0, 255]: 0.5, 1.5, 2.5 give 0, 2, 2; NaN gives output_low."""
    x = parameter("x", [1, 6], np.float32)
    quantized = fake_quantize(x, (0, 255, -128, 127), 256, "numpy")
    return observe([quantized], [x], [np.array([[0.5, 1.5, 2.5, np.nan, 300, -1]], np.float32)])


@behaviour("FakeQuantize kernels per layer", "irpool.cpu.quantization.kernel_for_layer")
def fake_quantize_kernels_per_layer() -> Measurement:
    """Levels 2 and data of a dynamic shape run on the node (NaN gives oh; crossed ranges ol
    everywhere); a crossed pdpd range the reference (ol below both bounds, oh above)."""
    x, y = parameter("x", [1, 4], np.float32), parameter("y", "?,4", np.float32)
    ranges = ((-1, 1, -1, 1), (2, 0, 0, 10), (0.25, -0.5, -1, 1), (-1, 1, -1, 1))
    cases = zip(ranges, (2, 3, 3, 256), ("numpy", "numpy", "pdpd", "numpy"), strict=True)
    outputs = [fake_quantize(data, *case) for data, case in zip((x, x, x, y), cases, strict=True)]
    return observe(outputs, [x, y], [np.array([[np.nan, -0.6, -0.4, 0.3]], np.float32)] * 2)


@behaviour(
    "A FakeQuantize of 65536 levels is stripped", "irpool.cpu.quantization_refusals.is_stripped"
)
def fake_quantize_of_65536_levels_is_stripped() -> Measurement:
    """Output ranges equal to the input ones: the output is the input, unclamped."""
    x = parameter("x", [1, 3], np.float32)
    stripped = fake_quantize(opset1.relu(x), (-1, 1, -1, 1), 65536, "numpy")
    return observe([stripped], [x], [np.array([[5, -3, 0.3]], np.float32)])


if __name__ == "__main__":
    raise SystemExit(main())
