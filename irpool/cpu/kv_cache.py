"""The KV cache of a stateful LLM as the CPU plugin holds it (docs/compressed-weights.md).

optimum-intel writes each layer's cache as

    ReadValue -> Gather(beam_idx) -> Concat(past, this step's K or V; the token axis)
        -> Assign, and -> [Unsqueeze -> Broadcast -> Reshape] -> ScaledDotProductAttention

The plugin fuses this into its attention and, even under INFERENCE_PRECISION_HINT=f32, holds
the cache in the type the model's rt_info runtime_options KV_CACHE_PRECISION names (optimum
writes f16 for an fp16 export, nothing for an int8/int4 one), else in u8, its default. In u8
each token's vector of each head is quantized asymmetrically over the head's elements, scale
(max - min) / 255, zero point -min / scale (not rounded), code x * (1/scale) + zero point
rounded once (an FMA) to the nearest and clamped to [0, 255], and read back as
(code - zero point) * scale; in f16 each element is rounded to f16. A prompt of more than one
token (its past empty) attends to its own K and V as computed; every other step (one token,
or any step with a past) reads the whole cache, its own tokens included, as held, and
query_state shows the cache as held. Such an attention runs in the plugin's attention node
(`cache_attentions`; its arithmetic: irpool/cpu/attention_node.py). Holding
works per element or per token, so each token is held here once, as it joins: a prompt's by
its Assign (`AssignBase.cache_type`, which stores the cache), any other step's by the Concat
(`Concat1.cache_type`); the variables keep the cache as held (holding held values again
would move their last bits). Measured 2026-12-06 (AMD EPYC family 25 model 17, 2 cores,
OpenVINO 2026.4.1). Where Unsqueeze, Broadcast and Reshape only repeat a grouped cache's
heads for the attention, its kernel repeats them instead (`GroupedAttention`).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping, Sequence
from copy import copy
from itertools import islice
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.isa import AVX512_CORE, host_cpu_isa
from irpool.cpu.replacements import ComputedLayer, Ref, Rewrite
from irpool.ops.base import LayerContext, TensorInfo
from irpool.ops.concat import Concat1
from irpool.ops.scaled_dot_product_attention import ScaledDotProductAttention13
from irpool.ops.variables import AssignBase
from irpool.shape import Dim, Shape

DEFAULT_CACHE_TYPE = "u8"  # the plugin's KV_CACHE_PRECISION on this machine
HELD = frozenset({"u8", "f16"})  # what is modelled; f32 is the cache as computed
# What the plugin's attention fusion looks through between the cache and the attention.
_BETWEEN = frozenset({"Unsqueeze", "Broadcast", "Reshape"})
_STATEFUL = frozenset({"ReadValue", "Assign"})  # never dropped as unread
# An AVX2 host's single-token kernel reads a u8 key's codes, zero point and scale, which the
# held values alone do not give back: each u8-held token's (zero point, scale) by its held
# values' bytes (`held_u8_parameters`), the oldest dropped past so many tokens.
_U8_KEPT = 1 << 16
_u8_held: dict[bytes, tuple[np.float32, np.float32]] = {}
_u8_lock = threading.Lock()


def held_caches(
    computed: Sequence[ComputedLayer], runtime_options: Mapping[str, str]
) -> dict[int, Rewrite | None]:
    """The Concats that join a variable's past (a ReadValue, through a Gather of beams) with
    this step's K or V, whose result an Assign stores and a ScaledDotProductAttention reads
    as K or V: their op with `cache_type`."""
    cache_type = runtime_options.get("KV_CACHE_PRECISION", DEFAULT_CACHE_TYPE)
    if cache_type not in HELD:
        return {}
    graph = _CacheGraph(computed)
    rewrites: dict[int, Rewrite | None] = {}
    for candidate, concat in graph.joins():
        if not graph.attended(candidate.layer.id):
            continue
        op = copy(concat)
        op.cache_type = cache_type
        rewrites[candidate.layer.id] = Rewrite(op, candidate.inputs)
        for reader, _ in graph.readers[candidate.layer.id]:
            if isinstance(reader.op, AssignBase):
                assign = copy(reader.op)
                assign.cache_type, assign.cache_axis = cache_type, op.axis
                step = candidate.inputs[1]  # this step's K or V: small, past a prompt
                rewrites[reader.layer.id] = Rewrite(assign, (*reader.inputs, step))
    return rewrites


def cache_attentions(
    computed: Sequence[ComputedLayer],
    runtime_options: Mapping[str, str],
    returned: Collection[Ref] = (),
) -> dict[int, Rewrite | None]:
    """The ScaledDotProductAttention layers the plugin runs in its attention node, fused with
    their KV cache: key and value each read, through `_BETWEEN`, from a cache's Concat. Their
    op with `reads_cache` and the `cache_type` that holds the cache; None for the layers that
    repeat a grouped cache's heads for them, and for those only such layers read (the
    shapes they repeat to), where no Result (`returned`) reads them."""
    graph = _CacheGraph(computed)
    joins = {candidate.layer.id for candidate, _ in graph.joins()}
    rewrites: dict[int, Rewrite | None] = {}
    for candidate in computed:
        if not isinstance(candidate.op, ScaledDotProductAttention13):
            continue
        if all(graph.source(candidate.inputs[port][0]) in joins for port in (1, 2)):
            op = copy(candidate.op)
            op.reads_cache = True
            op.cache_type = runtime_options.get("KV_CACHE_PRECISION", DEFAULT_CACHE_TYPE)
            inputs = candidate.inputs
            repeats = [graph.repeated_heads(inputs[port], joins) for port in (1, 2)]
            if repeats[0] is not None and repeats[1] is not None and repeats[0][1] == repeats[1][1]:
                # the heads repeated by the kernel, not by three steps each for K and V
                grouped = GroupedAttention(op.attrs)
                vars(grouped).update(vars(op))
                op, grouped.kv_groups = grouped, repeats[0][1]
                inputs = (inputs[0], repeats[0][0], repeats[1][0], *inputs[3:])
                rewrites.update(dict.fromkeys(repeats[0][2] + repeats[1][2]))
            rewrites[candidate.layer.id] = Rewrite(op, inputs)
    dropped = {layer_id for layer_id, rewrite in rewrites.items() if rewrite is None}
    kept = {ref[0] for ref in returned}  # and what the attentions now read
    kept.update(ref[0] for rewrite in rewrites.values() if rewrite for ref in rewrite.inputs)
    rewrites.update(dict.fromkeys(graph.read_only_by(dropped, kept)))
    return rewrites


class GroupedAttention(ScaledDotProductAttention13):
    """A cache attention that reads its key and value as the cache holds them, [..., KV
    heads, tokens, E], each head the key and value of `kv_groups` query heads in turn (as
    Unsqueeze, Broadcast and Reshape repeat them; the kernel repeats them instead): inferred
    as on the repeated key and value."""

    kv_groups = 1

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        repeated = list(inputs)
        for port in (1, 2):
            dims = inputs[port].shape.dims
            if dims is not None and len(dims) >= 3:
                heads = dims[-3]
                high = None if heads.high is None else heads.high * self.kv_groups
                shape = Shape((*dims[:-3], Dim(heads.low * self.kv_groups, high), *dims[-2:]))
                repeated[port] = TensorInfo(inputs[port].type, shape, unknown=inputs[port].unknown)
        return super().infer(repeated, ctx)


class _CacheGraph:
    """The computed layers by id and their readers, to find the plugin's cache pattern."""

    def __init__(self, computed: Sequence[ComputedLayer]) -> None:
        self.computed = computed
        self.by_id = {candidate.layer.id: candidate for candidate in computed}
        self.readers: dict[int, list[tuple[ComputedLayer, int]]] = {}
        for candidate in computed:
            for port, (layer_id, _) in enumerate(candidate.inputs):
                self.readers.setdefault(layer_id, []).append((candidate, port))

    def joins(self) -> list[tuple[ComputedLayer, Concat1]]:
        """The Concats of two inputs that join a ReadValue's past (through a Gather) with
        this step's K or V and whose result an Assign stores, and their ops."""
        found = []
        for candidate in self.computed:
            concat = candidate.op
            if not isinstance(concat, Concat1) or len(candidate.inputs) != 2:
                continue
            past = self.by_id.get(candidate.inputs[0][0])
            if past is not None and past.layer.type == "Gather":
                past = self.by_id.get(past.inputs[0][0])
            readers = self.readers.get(candidate.layer.id, [])
            stored = any(r.layer.type == "Assign" for r, _ in readers)
            if past is not None and past.layer.type == "ReadValue" and stored:
                found.append((candidate, concat))
        return found

    def attended(self, layer_id: int) -> bool:
        """Whether an attention reads this layer's output as K or V (through `_BETWEEN`)."""
        for reader, port in self.readers.get(layer_id, []):
            if reader.layer.type == "ScaledDotProductAttention" and port in (1, 2):
                return True
            if reader.layer.type in _BETWEEN and port == 0 and self.attended(reader.layer.id):
                return True
        return False

    def repeated_heads(self, ref: Ref, joins: set[int]) -> tuple[Ref, int, list[int]] | None:
        """Where an attention's key or value `ref` is a join's output [..., H, S, E] through
        Unsqueeze (a 1 after H), Broadcast (that 1 to a static G) and Reshape (to [..., H * G,
        S, E]), each read once: the join's output, G and the three layers."""
        reshape = self.by_id.get(ref[0])
        if reshape is None or reshape.layer.type != "Reshape" or ref[1]:
            return None
        broadcast = self.by_id.get(reshape.inputs[0][0])
        if broadcast is None or broadcast.layer.type != "Broadcast":
            return None
        unsqueeze = self.by_id.get(broadcast.inputs[0][0])
        if unsqueeze is None or unsqueeze.layer.type != "Unsqueeze":
            return None
        join = unsqueeze.inputs[0]
        chain = (join, (unsqueeze.layer.id, 0), (broadcast.layer.id, 0), ref)
        shapes = [self.by_id[layer_id].produced[index].shape.dims for layer_id, index in chain]
        if join[0] not in joins or any(dims is None for dims in shapes):
            return None
        if self.by_id[join[0]].produced[join[1]].element_type != "f32":
            return None
        held, inserted, broadcast_dims, reshaped = (dims or () for dims in shapes)
        if len(held) < 3 or not len(inserted) == len(broadcast_dims) == len(held) + 1:
            return None
        groups = broadcast_dims[-3]
        heads = held[-3]
        if not (groups.is_static and heads.is_static and inserted[-3] == Dim.static(1)):
            return None
        expected = (
            *held[:-3], Dim.static(heads.low * groups.low), *held[-2:]
        )  # fmt: skip
        if (
            inserted[:-3] + inserted[-2:] != held
            or broadcast_dims[:-3] + broadcast_dims[-2:] != held
            or tuple(reshaped) != expected
            or any(len(self.readers.get(i, [])) != 1 for i, _ in chain[1:])
        ):
            return None
        return join, groups.low, [unsqueeze.layer.id, broadcast.layer.id, reshape.layer.id]

    def read_only_by(self, dropped: set[int], kept: set[int]) -> set[int]:
        """The layers, but `kept` and variables' reads and writes, that `dropped` layers
        alone read, directly or through each other."""
        found = set(dropped)
        for candidate in reversed(self.computed):  # a layer's readers come after it
            layer_id = candidate.layer.id
            if layer_id in found or layer_id in kept or candidate.layer.type in _STATEFUL:
                continue
            readers = self.readers.get(layer_id)
            if readers and all(reader.layer.id in found for reader, _ in readers):
                found.add(layer_id)
        return found - dropped

    def source(self, layer_id: int) -> int:
        """The layer `layer_id` reads through `_BETWEEN` (itself when it is none of them)."""
        layer = self.by_id.get(layer_id)
        while layer is not None and layer.layer.type in _BETWEEN:
            layer_id = layer.inputs[0][0]
            layer = self.by_id.get(layer_id)
        return layer_id


def stored_value(op: AssignBase, inputs: Sequence[NDArray[Any]]) -> NDArray[Any]:
    """What an Assign stores: its input; a cache the CPU holds, as held, each token held
    once: a prompt's tokens (its past empty, the Concat gave them as computed) held here,
    any other step's already held by the Concat (holding held values again moves their
    last bits)."""
    if op.cache_type is None:
        return inputs[0]
    joined, step = inputs
    axis = op.cache_axis % joined.ndim
    if step.shape[axis] == joined.shape[axis] > 1:
        return cache_values(joined, op.cache_type)
    return joined


def cache_values(cache: NDArray[np.float32], cache_type: str) -> NDArray[np.float32]:
    """`cache` ([..., tokens, head elements]) as the plugin holds it in `cache_type` and reads
    it back: f16 rounded; u8 quantized per token, asymmetrically over its last axis."""
    if cache_type == "f16":
        rounded: NDArray[np.float32] = cache.astype(np.float16).astype(np.float32)
        return rounded
    low = cache.min(axis=-1, keepdims=True)
    scale = (cache.max(axis=-1, keepdims=True) - low) / np.float32(255)
    scale[scale == 0] = np.float32(1e-4)  # a constant vector: the plugin's fallback scale
    zero_point = -low / scale
    # cache * (1/scale) + zero point in one rounding (an FMA), to the nearest, clamped
    scaled = np.multiply(cache, np.float32(1) / scale, dtype=np.float64)
    scaled += zero_point
    steps = np.clip(np.rint(scaled.astype(np.float32)), np.float32(0), np.float32(255))
    values: NDArray[np.float32] = ((steps - zero_point) * scale).astype(np.float32)
    if host_cpu_isa() != AVX512_CORE:
        _remember_u8(values, zero_point, scale)
    return values


def _remember_u8(
    values: NDArray[np.float32], zero_point: NDArray[np.float32], scale: NDArray[np.float32]
) -> None:
    rows = values.reshape(-1, values.shape[-1])
    pairs = zip(zero_point.reshape(-1).tolist(), scale.reshape(-1).tolist(), strict=True)
    with _u8_lock:
        for row, (zero, step) in zip(rows, pairs, strict=True):
            _u8_held[row.tobytes()] = (np.float32(zero), np.float32(step))
        excess = len(_u8_held) - _U8_KEPT
        for oldest in list(islice(_u8_held, max(excess, 0))):
            del _u8_held[oldest]


def held_u8_parameters(
    values: NDArray[np.float32],
) -> tuple[NDArray[np.float32], NDArray[np.float32]] | None:
    """The zero points and scales ([..., tokens]) of u8-held tokens `values` ([..., tokens,
    elements]) as `cache_values` held them on an AVX2 host; None if one is not known."""
    found = [_u8_held.get(row.tobytes()) for row in values.reshape(-1, values.shape[-1])]
    if any(pair is None for pair in found):
        return None
    pairs = np.array(found, np.float32).reshape(*values.shape[:-1], 2)
    return pairs[..., 0], pairs[..., 1]
