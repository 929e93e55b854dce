"""MatMuls (and embedding Gathers) whose weights are a decompression subgraph, as the CPU
plugin runs them (docs/compressed-weights.md). NNCF and optimum-intel write INT8/INT4 weights as

    Const(u8/i8/u4/i4) -> Convert(f16) [-> Subtract(zero point Const -> Convert)]
        -> Multiply(scale) [-> Reshape [N, K]] -> Convert(f32) -> MatMul(transpose_b)

and the embedding table the same way, read by a Gather of rows (axis 0).

The plugin fuses the chain into the MatMul and decompresses in f32: (q - zero point) * scale,
each operand widened exactly, one f32 rounding (the chain's own f16 Multiply would round to
f16: `decompressed_in_f32`). nf4 weights are decompressed so too
(their sixteen values exact in f32, not rounded to f16 as the chain's Convert would), and
their activations never quantized. When K and the weights' group (K for one scale per row) are
multiples of `ACTIVATION_GROUP` and N (the weights' rows) is above 1, it also quantizes the
activations to int8, symmetric per group of 32 along K, even under INFERENCE_PRECISION_HINT=f32
(its DYNAMIC_QUANTIZATION_GROUP_SIZE default): `MatMul1.activation_group`, measured
2026-12-06 (AMD EPYC family 25 model 17, 2 cores, OpenVINO 2026.4.1). It then sums the product
per group of 32: the steps times the codes (quantized minus zero point) exactly, times the
group's activation scale in f32, then one FMA with the weights' scale into the f32 total, group
after group (`product_by_quantized` in irpool/execute/kernels/mat_mul.py, bit for bit).
Weights with one scale per row whose K is above 32 but not a multiple of it (33 to 200) are
quantized too, per 32 with a shorter last group whose ties round away from zero, and summed so
(bit for bit as if K were padded with zeros to whole groups); K below 32 is not. A group of
48 is not quantized. A group of activations holding inf or NaN: not modelled.

u8/u4/i4 weights (i8 taken alike, not measured) in groups along K of no multiple of 32 (8, 16,
48 measured), K at most `FMA_CHAIN_DEPTH`, times two or more activation rows: the CPU sums
each output as one f32 FMA chain over K from its first element (`sums_in_one_chain`,
measured 2026-12-07 on AMD EPYC family 25 model 17, 2 cores, OpenVINO 2026.4.1, K 32 to
1024, 2 to 200 rows). One row, a longer K (cut into blocks of a length of its own) and one
scale per row sum otherwise: BLAS.

An AVX2 host (no VNNI) quantizes no activations (`quantizes_any_activations`): each output is
one FMA chain over K's whole 8s and one over the tail of K mod 8, added (`chain_block`), for
every group and one scale per row (docs/cpu.md#an-avx2-host-quantizes-no-activations).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from copy import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, cpu_isa
from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
from irpool.element_types import F32
from irpool.ops.mat_mul import MatMul1
from irpool.ops.scaled_dot_product_attention import ScaledDotProductAttention13
from irpool.shape import Shape

ACTIVATION_GROUP = 32  # the CPU's DYNAMIC_QUANTIZATION_GROUP_SIZE default
# nf4 weights are decompressed in f32 too, but their activations are never quantized.
QUANTIZING_TYPES = frozenset({"u8", "i8", "u4", "i4"})
# What a FakeQuantize's int8 values pass through unchanged to a MatMul the CPU runs on them.
QUANTIZATION_MOVES_THROUGH = frozenset({"Reshape", "Transpose"})
FMA_CHAIN_DEPTH = 1024  # the longest K the CPU sums in one chain (2048: two of 1024, added)
COMPRESSED_TYPES = QUANTIZING_TYPES | {"nf4"}
AVX2_K_BLOCK = 8  # with at most AVX2, K's tail beyond whole 8s is a chain of its own


@dataclass(frozen=True, slots=True)
class Decompression:
    weights: Ref  # what the MatMul reads as B
    quantized: Ref  # the integer (or nf4) Const
    element_type: str  # the quantized Const's
    zero_point: Ref | None
    scale: Ref
    group: int  # the elements of K one scale covers
    # The layers from the quantized Const to `weights` (its zero point and scale apart), which
    # a run may skip: it decompresses the weights itself (irpool/execute/compressed.py).
    chain: tuple[int, ...]


def decompressions(
    candidates: Sequence[ComputedLayer], types: Mapping[Ref, Any]
) -> dict[int, Decompression]:
    """The MatMuls (by layer id) whose B is a decompression subgraph, with its parts."""
    producers = {(c.layer.id, 0): c for c in candidates}
    found: dict[int, Decompression] = {}

    def through(ref: Ref, layer_type: str, chain: list[int]) -> Ref:
        producer = producers.get(ref)
        if producer and producer.layer.type == layer_type:
            chain.append(producer.layer.id)
            return producer.inputs[0]
        return ref

    def integer_const(ref: Ref) -> Ref | None:
        convert = producers.get(ref)
        if convert is None or convert.layer.type != "Convert":
            return None
        source = producers.get(convert.inputs[0])
        typed = types[convert.inputs[0]].name
        if source and source.layer.type == "Const" and typed in COMPRESSED_TYPES:
            return convert.inputs[0]
        return None

    def parts(weights: Ref) -> Decompression | None:
        end = producers.get(weights)
        if end is None or types[weights].name != F32 or end.produced[0].shape.rank != 2:
            return None
        chain: list[int] = []
        multiply = producers.get(through(through(weights, "Convert", chain), "Reshape", chain))
        if multiply is None or multiply.layer.type != "Multiply":
            return None
        chain.append(multiply.layer.id)
        values, scale = multiply.inputs
        grouped = multiply.produced[0].shape.values()
        one = (*grouped[:-1], 1)
        if scale not in producers or producers[scale].produced[0].shape.values() != one:
            return None
        zero_point = None
        subtract = producers.get(values)
        if subtract is not None and subtract.layer.type == "Subtract":
            chain.append(subtract.layer.id)
            values, zero_point = subtract.inputs
            zero_point = integer_const(zero_point)
            if zero_point is None or producers[zero_point].produced[0].shape.values() != one:
                return None
        quantized = integer_const(values)
        if quantized is None:
            return None
        chain += [values[0], quantized[0]]  # its Convert and the Const
        return Decompression(
            weights, quantized, types[quantized].name, zero_point, scale, grouped[-1], tuple(chain)
        )

    for candidate in candidates:
        decompression = None
        if isinstance(candidate.op, MatMul1) and candidate.op.transposes == (False, True):
            decompression = parts(candidate.inputs[1])
        elif candidate.layer.type == "Gather" and rows_gathered(candidate, producers):
            decompression = parts(candidate.inputs[0])
            if decompression is not None and decompression.element_type == "nf4":
                decompression = None  # rows of f16-rounded nf4 values: not modelled
        if decompression is not None:
            found[candidate.layer.id] = decompression
    return found


def rows_gathered(gather: ComputedLayer, producers: Mapping[Ref, ComputedLayer]) -> bool:
    """Whether a Gather picks rows of 2-D data: axis a Const 0 (or -2), no batch dims."""
    axis = producers.get(gather.inputs[2])
    if axis is None or axis.produced[0].value is None or gather.op.attrs.get("batch_dims", 0):
        return False
    return int(axis.produced[0].value.reshape(-1)[0]) in (0, -2)


def fused_into_their_readers(
    found: Mapping[int, Decompression], readers: Mapping[Ref, int]
) -> dict[int, Decompression]:
    """The decompressions the CPU fuses into the MatMuls and Gathers that read them: those
    whose weights nothing else reads (a tied embedding and lm_head share theirs). Another
    reader (OPT's export takes the ShapeOf of its tied table) leaves the chain a constant,
    decompressed in f32 all the same, and the MatMul a product of f32 weights whose
    activations are not quantized."""
    sharing = Counter(parts.weights for parts in found.values())
    return {
        reader: parts
        for reader, parts in found.items()
        if readers.get(parts.weights, 0) == sharing[parts.weights]
    }


def read_only_by_their_reader(
    found: Mapping[int, Decompression], readers: Mapping[Ref, int]
) -> dict[int, Decompression]:
    """The decompressions fused into their readers whose every layer is read by the next one
    alone: a run may skip their layers."""
    return {
        matmul: parts
        for matmul, parts in fused_into_their_readers(found, readers).items()
        if all(
            readers.get((layer_id, 0), 0) == 1
            for layer_id in parts.chain
            if (layer_id, 0) != parts.weights
        )
    }


def decompressed_in_f32(
    found: Mapping[int, Decompression], constants: Mapping[Ref, NDArray[Any]]
) -> dict[Ref, NDArray[Any]]:
    """`constants` with each decompressed weight computed as the CPU does: in f32."""
    updated = dict(constants)
    for parts in found.values():
        if parts.weights not in constants or parts.scale not in constants:
            continue
        weights = constants[parts.quantized].astype(np.float32)
        if parts.zero_point is not None:
            weights = weights - constants[parts.zero_point].astype(np.float32)
        weights = weights * constants[parts.scale].astype(np.float32)
        updated[parts.weights] = weights.reshape(constants[parts.weights].shape)
    return updated


def quantizing_matmuls(
    computed: Sequence[ComputedLayer],
    found: Mapping[int, Decompression],
    shapes: Mapping[Ref, Shape],
    readers: Mapping[Ref, int],
) -> dict[int, Rewrite | None]:
    """The MatMuls whose activations the CPU quantizes: their op with `activation_group`,
    and the attentions those read (through Reshapes and Transposes): their op with
    `read_by_quantization`. Only MatMuls whose decompression the CPU fuses into them
    (`fused_into_their_readers`). Not one whose activations a FakeQuantize gives (through
    Reshapes): the CPU runs that on its int8 kernels
    (docs/ops/FakeQuantize.md#int8-models-as-nncf-writes-them), also through the Transpose a
    Reshape follows in NNCF's vit_b_16 (the attention's heads merged)."""
    rewrites: dict[int, Rewrite | None] = {}
    by_id = {candidate.layer.id: candidate for candidate in computed}
    fused = fused_into_their_readers(found, readers)
    for candidate in computed:
        parts = fused.get(candidate.layer.id)
        if parts is None or not isinstance(candidate.op, MatMul1):
            continue
        source = by_id.get(candidate.inputs[0][0])
        while source is not None and source.layer.type in QUANTIZATION_MOVES_THROUGH:
            source = by_id.get(source.inputs[0][0])
        if source is not None and source.layer.type == "FakeQuantize":
            continue
        rows, depth = shapes[parts.weights].values()[-2:]
        if quantizes_activations(parts.element_type, rows, depth, parts.group):
            op = copy(candidate.op)
            assert isinstance(op, MatMul1)
            op.activation_group = ACTIVATION_GROUP
            rewrites[candidate.layer.id] = Rewrite(op, candidate.inputs)
            if source is not None and isinstance(source.op, ScaledDotProductAttention13):
                attention = copy(source.op)
                attention.read_by_quantization = True
                rewrites[source.layer.id] = Rewrite(attention, source.inputs)
    return rewrites


def quantizes_any_activations() -> bool:
    """Whether the plugin quantizes activations of compressed products on this host: with
    AVX-512 (VNNI); not with at most AVX2 (AMD Zen2, Zen3: no VNNI). Under
    ONEDNN_MAX_CPU_ISA=AVX2 a VNNI host still asks oneDNN to, which refuses to compile the
    product: an oracle is then told DYNAMIC_QUANTIZATION_GROUP_SIZE 0, as an AVX2 host runs."""
    return cpu_isa() == AVX512_CORE


def quantizes_activations(element_type: str, rows: int, depth: int, group: int) -> bool:
    """Whether the CPU quantizes the activations of a product by [rows, depth] weights with one
    scale per `group` of a row: per ACTIVATION_GROUP of K when K and the group are multiples
    of it, or with one scale per row when K is above it (the last group shorter)."""
    if not quantizes_any_activations():
        return False
    whole_groups = depth % ACTIVATION_GROUP == 0 and group % ACTIVATION_GROUP == 0
    per_row = group == depth and depth > ACTIVATION_GROUP
    return (whole_groups or per_row) and rows > 1 and element_type in QUANTIZING_TYPES


def chain_block(depth: int) -> int:
    """The K each FMA chain of `sums_in_one_chain` sums from 0, the chains' sums added: all of
    K on AVX-512; with at most AVX2 its whole 8s, the tail of K mod 8 a chain of its own."""
    whole = depth - depth % AVX2_K_BLOCK
    return depth if cpu_isa() == AVX512_CORE or not whole else whole


def sums_in_one_chain(element_type: str, rows: int, depth: int, group: int) -> bool:
    """Whether the CPU sums each output of `rows` activation rows times weights grouped by
    `group` along K (`depth`), activations not quantized, as one f32 FMA chain over K."""
    grouped = group < depth and group % ACTIVATION_GROUP != 0
    return (
        (grouped or not quantizes_any_activations())
        and rows > 1
        and depth <= FMA_CHAIN_DEPTH
        and element_type in QUANTIZING_TYPES
    )
