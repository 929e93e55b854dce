"""Every case of the conformance corpus (tools/gen_conformance.py), in the order it is written."""

from __future__ import annotations

import numpy as np
from conformance_graphs import (
    VECTOR_20,
    adaptive_runtime_size,
    chain_adaptive_flatten,
    chain_adaptive_then_pool,
    chain_int_one_channel,
    chain_pool_squeeze_unsqueeze,
    chain_two_pools,
    chain_with_two_taps,
    convert_then_reshape,
    divisor14_values,
    grid,
)
from conformance_kinds import (
    Case,
    adaptive_case,
    adaptive_max_case,
    avg_pool_case,
    fixed_values,
    reduce_case,
)
from ov_builders import (
    K3S2P1,
    chain_three_versions,
    shared_input_two_outputs,
    two_inputs_two_outputs,
)

RESHAPE_FAMILY_CASES: tuple[Case, ...] = (
    Case(
        "chain_adaptive8_reshape_flatten",
        "AdaptiveAvgPool-8 [2,3,9,9] -> [5,3] then Reshape-1 special_zero [0,-1] -> [2,45]",
        chain_adaptive_flatten,
    ),
    Case(
        "chain_avgpool1_squeeze_unsqueeze",
        "Global AvgPool-1 [1,3,8,8] -> Squeeze-1 axes [2,3] -> Unsqueeze-1 axes [-1] -> [1,3,1]",
        chain_pool_squeeze_unsqueeze,
    ),
    Case(
        "convert_f32_i32_reshape_dynamic",
        "Convert-1 f32 -> i32 on [?,4,6] (input [3,4,6]), then Reshape-1 [0,-1] -> [3,24]",
        convert_then_reshape,
        input_shapes={"in": (3, 4, 6)},
    ),
)


EXTRA_AVG_POOL_CASES: tuple[Case, ...] = (
    # Unit dilations. (Leaving them out saves dilations="", on which CPU compile segfaults.)
    avg_pool_case(16, "1,3,9,9", **K3S2P1, exclude_pad=False, dilations=(1, 1)),
    avg_pool_case(1, "2,4,7,7", (7, 7), (1, 1), tag="global"),
    avg_pool_case(14, "1,2,7", (2,), (1,), (3,), (3,), exclude_pad=False, tag="pads_exceed_kernel"),
    # OpenVINO divides the overhanging ceil window by the full kernel (torch would not).
    avg_pool_case(
        14,
        "1,2,6",
        (3,),
        (2,),
        (1,),
        (1,),
        rounding="ceil_torch",
        exclude_pad=False,
        tag="overhang",
    ),
    avg_pool_case(14, "1,2,5", (1,), (3,), rounding="ceil", tag="window_past_end"),
    # Windows with no real element (docs/ops/AvgPool.md#test-vectors, vector 8 and the rank-3 grid
    # window).
    avg_pool_case(14, "1,2,2", (2,), (2,), (0,), (1,), rounding="ceil", tag="empty_window"),
    avg_pool_case(1, "1,3,9", (3,), (2,), (1,), (2,), rounding="ceil", tag="empty_window"),
    avg_pool_case(14, "4,3,20", (3,), (2,), (1,), (1,), tag="batch4"),
    # Element types.
    avg_pool_case(1, "1,3,9,10", **K3S2P1, rounding="ceil", element_type="f16"),
    avg_pool_case(
        14,
        "1,2,5,6,7",
        (3, 2, 3),
        (1, 2, 3),
        auto_pad="same_lower",
        rounding="ceil_torch",
        exclude_pad=False,
        element_type="f16",
    ),
    avg_pool_case(
        16, "2,3,12", (3,), (2,), (2,), (1,), rounding="ceil", dilations=(2,), element_type="f16"
    ),
    avg_pool_case(1, "2,3,9", (3,), (2,), (1,), (1,), exclude_pad=False, element_type="f64"),
    avg_pool_case(14, "1,3,9,10", **K3S2P1, rounding="ceil_torch", element_type="f64"),
    avg_pool_case(
        16,
        "1,2,6,7,8",
        (2, 2, 2),
        (2, 2, 2),
        auto_pad="valid",
        rounding="ceil",
        dilations=(2, 1, 3),
        element_type="f64",
    ),
    # Integers: means ending in .5 are common, showing the rounding.
    avg_pool_case(
        14,
        "1,1,8",
        (2,),
        (2,),
        element_type="i32",
        tag="vector20",
        values=fixed_values(**{"in": VECTOR_20}),
    ),
    avg_pool_case(1, "2,3,8,8", (2, 2), (2, 2), element_type="i32"),
    avg_pool_case(
        16,
        "1,2,9,8",
        (3, 2),
        (2, 2),
        (1, 1),
        (1, 1),
        rounding="ceil",
        exclude_pad=False,
        dilations=(2, 2),
        element_type="i32",
    ),
    avg_pool_case(
        14,
        "1,1,2,56",
        (2, 7),
        (2, 7),
        element_type="i32",
        tag="divisor14",
        values=divisor14_values,
        notes=("Every window mean is an exact .5: 6.5, -6.5, 12.5, -12.5, 14.5, -14.5, 2.5, 3.5.",),
        cpu_deviation="i32 with one channel runs CPU's integer kernel, which rounds "
        "f32(sum) * f32(1/14) half to even; 1/14 rounds up in f32, so 6.5, 12.5, 14.5 and their "
        "negatives move away from zero (7, not 6) instead of to even (see notes.int).",
    ),
    # The same .5 means with three channels take CPU's f32 path: true round-half-to-even.
    avg_pool_case(
        14,
        "1,3,2,56",
        (2, 7),
        (2, 7),
        element_type="i32",
        tag="divisor14_c3",
        values=lambda rng: {"in": np.concatenate([divisor14_values(rng)["in"]] * 3, axis=1)},
    ),
    avg_pool_case(14, "1,3,10", (2,), (2,), (1,), (1,), rounding="ceil", element_type="i64"),
    avg_pool_case(1, "2,2,11", (4,), (3,), auto_pad="same_upper", element_type="i8"),
    avg_pool_case(16, "1,2,8,8", (2, 2), (2, 2), dilations=(1, 2), element_type="u8"),
    # Dynamic shapes: saved dynamic, run with one concrete input.
    avg_pool_case(1, "?,3,16,16", **K3S2P1, tag="dyn_batch", input_shape=(3, 3, 16, 16)),
    avg_pool_case(
        14,
        "?,?,?,?",
        **K3S2P1,
        rounding="ceil",
        exclude_pad=False,
        tag="all_dyn",
        input_shape=(2, 3, 9, 11),
    ),
    avg_pool_case(
        16,
        "1,3,8..20,..16",
        **K3S2P1,
        rounding="ceil_torch",
        dilations=(2, 2),
        tag="intervals",
        input_shape=(1, 3, 13, 10),
    ),
    # same_* pads depend on the run-time size: shape inference only says `?`.
    avg_pool_case(
        14,
        "1,2,?,12",
        (3, 2),
        (2, 3),
        auto_pad="same_upper",
        tag="dyn_height",
        input_shape=(1, 2, 11, 12),
    ),
)

ADAPTIVE_CASES: tuple[Case, ...] = (
    adaptive_case("1,3,10", (4,), "i64"),
    adaptive_case("1,2,5", (8,), "i32", tag="upsample"),
    adaptive_case("1,2,6", (6,), "i64", tag="identity"),
    adaptive_case("2,3,9,7", (4, 5), "i32"),
    adaptive_case("1,2,5,9", (7, 4), "i64", tag="mixed"),
    adaptive_case("2,4,7,7", (1, 1), "i64", tag="global"),
    adaptive_case("1,2,6,8,10", (3, 4, 5), "i32"),
    adaptive_case("1,1,2,3,4", (4, 6, 5), "i64", tag="upsample"),
    adaptive_case("1,2,5", (0,), "i64", tag="empty", notes=("Zero-length output: shape [1,2,0].",)),
    adaptive_case("1,3,9,9", (4, 4), "i32", element_type="f16"),
    adaptive_case("1,3,9,9", (4, 4), "i64", element_type="f64"),
    adaptive_case("1,2,9", (4,), "i64", element_type="i32"),
    adaptive_case("?,3,1..16,16", (5, 3), "i32", tag="dyn", input_shape=(2, 3, 11, 16)),
)


REDUCE_AND_ADAPTIVE_MAX_CASES: tuple[Case, ...] = (
    reduce_case("ReduceMean", "1,512,7,7", (2, 3), True, tag="resnet_head"),
    reduce_case("ReduceMean", "2,3,5", -1, False),
    reduce_case("ReduceMean", "2,3,4,5", (0, -2, 3), False),
    reduce_case("ReduceMean", "1,4,6,6", (1, 1), True, element_type="f16"),
    reduce_case("ReduceMean", "2,3,4,5", (2, 3), False, element_type="i32"),
    reduce_case("ReduceMean", "2,3,4", (), True),
    reduce_case("ReduceMean", "?,3,1..8,8", (2, 3), True, tag="dyn", input_shape=(2, 3, 5, 8)),
    reduce_case("ReduceMax", "1,64,7,7", (2, 3), True),
    reduce_case("ReduceMax", "2,5,3", 1, False),
    reduce_case("ReduceMax", "1,2,3,4,5", (-3, -1), True, element_type="f16"),
    reduce_case("ReduceMax", "2,3,9", (2,), False, element_type="i32"),
    reduce_case("ReduceMax", "?,16,1..10", -1, False, tag="dyn", input_shape=(3, 16, 7)),
    adaptive_max_case("2,3,7,9", (5, 3)),
    adaptive_max_case("1,2,5", (8,), tag="upsample"),
    adaptive_max_case("1,2,6,8,10", (3, 4, 5)),
    adaptive_max_case("1,3,9,9", (4, 4), element_type="f16"),
    adaptive_max_case("2,2,9", (4,), element_type="i32"),
    adaptive_max_case("2,4,7,7", (2, 3), with_indices=False),
    adaptive_max_case("?,3,1..16,16", (5, 3), tag="dyn", input_shape=(2, 3, 11, 16)),
)

GRAPH_CASES: tuple[Case, ...] = (
    Case(
        "adaptive8_r4_runtime_size_i64",
        "AdaptiveAvgPool-8 f32 [1,3,16,16] with output_size from a second i64 Parameter = [5,3]",
        adaptive_runtime_size("1,3,16,16", "f32", "i64"),
        values=fixed_values(output_size=np.array([5, 3], dtype=np.int64)),
    ),
    Case(
        "adaptive8_r3_runtime_size_i32_f16_dyn_batch",
        "AdaptiveAvgPool-8 f16 [?,4,10] (input [3,4,10]) with output_size Parameter i32 = [7]",
        adaptive_runtime_size("?,4,10", "f16", "i32"),
        input_shapes={"in": (3, 4, 10)},
        values=fixed_values(output_size=np.array([7], dtype=np.int32)),
    ),
    Case(
        "adaptive8_r5_runtime_size_i32",
        "AdaptiveAvgPool-8 f32 [1,2,6,5,9] with output_size Parameter i32 = [4,5,3]",
        adaptive_runtime_size("1,2,6,5,9", "f32", "i32"),
        values=fixed_values(output_size=np.array([4, 5, 3], dtype=np.int32)),
    ),
    Case(
        "chain_avgpool1_avgpool16_adaptive8",
        "AvgPool-1 ceil -> AvgPool-16 dilated exclude-pad=false -> AdaptiveAvgPool-8 [5,7]; "
        "input [1,2,8..40,40] run as [1,2,19,40]",
        chain_three_versions((5, 7)),
        input_shapes={"in": (1, 2, 19, 40)},
    ),
    Case(
        "chain_avgpool14_avgpool14",
        "AvgPool-14 same_upper ceil_torch -> AvgPool-14 explicit exclude-pad=false, "
        "f32 [2,3,13,11]",
        chain_two_pools("f32"),
    ),
    Case(
        "chain_avgpool14_avgpool14_f16",
        "The same chain in f16 (CPU keeps the intermediate in f32)",
        chain_two_pools("f16"),
    ),
    Case(
        "chain_avgpool14_avgpool14_f64",
        "The same chain in f64 (CPU computes in f32)",
        chain_two_pools("f64"),
    ),
    Case(
        "chain_avgpool14_avgpool14_i32",
        "The same chain in i32",
        chain_two_pools("i32"),
        cpu_deviation="CPU pools this i32 model (C=3) in f32 and keeps the intermediate tensor in "
        "f32, rounding only the final output, so about 1 in 8 outputs differ by 1 from rounding "
        "after each op (see notes.int).",
    ),
    Case(
        "chain_avgpool1_avgpool1_i32_c1",
        "AvgPool-1 k2 s2 -> AvgPool-1 k2 s1 pads 1/0 exclude-pad=false, i32 [2,1,17] (one channel: "
        "CPU's integer kernel, rounded after each op)",
        chain_int_one_channel,
    ),
    Case(
        "chain_adaptive8_avgpool16_r5",
        "AdaptiveAvgPool-8 [1,2,3,4,5] -> [6,5,7] upsampling -> AvgPool-16 ceil dilated",
        chain_adaptive_then_pool,
    ),
    Case(
        "two_inputs_two_outputs",
        "Two branches: f32 [2,3,16,16] AvgPool-16 same_upper d2, f16 [2,8,?] (run as [2,8,15]) "
        "AvgPool-1 exclude-pad=false",
        two_inputs_two_outputs,
        input_shapes={"signal": (2, 8, 15)},
    ),
    Case(
        "shared_input_two_outputs",
        "One Parameter [1,4,9,9] feeding AvgPool-14 ceil_torch and AdaptiveAvgPool-8 [4,4]",
        shared_input_two_outputs((4, 4)),
    ),
    Case(
        "chain_with_intermediate_output",
        "AvgPool-1 ceil (also a model output) -> AvgPool-16 same_lower d2, [1,3,12,12]",
        chain_with_two_taps,
    ),
)

CASES: tuple[Case, ...] = (
    *grid(1),
    *grid(14),
    *grid(16),
    *EXTRA_AVG_POOL_CASES,
    *ADAPTIVE_CASES,
    *GRAPH_CASES,
    *REDUCE_AND_ADAPTIVE_MAX_CASES,
    *RESHAPE_FAMILY_CASES,
)
