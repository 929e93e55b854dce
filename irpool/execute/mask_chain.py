"""The causal mask of optimum-intel's decoder exports, computed in one step.

A stateful Llama export computes its attention mask from `attention_mask` [B, T], the
hidden states' shape [B, S, ...] and the KV cache's past length P (dim 2 of a cache [.., ..,
P, ..]) in 45 layers: the mask converted to boolean and flattened, gathered at b·T + k for
each batch b and key k, and-ed with k <= P + s for each query s (Ranges, Unsqueezes,
LessEqual, BitwiseAnds), broadcast to [B, 1, S, T] and selected between two scalars. A
decode step runs them and infers most of them again at every token (docs/performance.md,
"A decode step"). Where a Select's condition is exactly that chain (`FINGERPRINT`: every
op, attribute, constant, element type and edge, found from the Select, not by names) and
nothing else reads its layers, the plan runs one `CausalMask` step instead: where the
mask is [B, P + S] (B, S and T at least 1), the condition is the chain's boolean Convert of
the mask at [b, k] and k <= P + s, as the chain computes it (its indices all in range);
on any other shapes the step runs and infers the chain's own layers in order."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from numpy.typing import NDArray

from irpool.cpu.replacements import Ref, Rewrite
from irpool.execute.fold import Candidate
from irpool.execute.registry import OutputSpec
from irpool.ops.base import LayerContext, Op, TensorInfo
from irpool.ops.convert import Convert1
from irpool.ops.select import Select1
from irpool.shape import Shape

# sha256 of `_canonical`'s description of the chain optimum-intel writes for Llama, Qwen2,
# Mistral and Phi-3 (the corpus's and the benchmark's exports, f32, f16, int8 and int4
# weights alike), the Select's two scalars apart: it reads a cache, the hidden states and
# the mask, in this order.
FINGERPRINT = "7cee87caafd21c262705f2fe29eb4ec65705a66b123624eed22ed4ad459825e1"
_SOURCES = 3  # a cache, the hidden states, attention_mask: the chain's inputs, in this order
_STATEFUL = frozenset({"ReadValue", "Assign"})


@dataclass(frozen=True, slots=True)
class Link:
    """One layer of the chain as the step runs it where the shapes are not those of a
    decode: its op, what it reads (the chain's inputs by their refs) and its outputs."""

    layer_id: int
    op: Op
    inputs: tuple[Ref, ...]
    outputs: tuple[OutputSpec, ...]


class CausalMask(Select1):
    """The Select of a causal-mask chain, reading the chain's inputs (a cache, the hidden
    states, the mask) and the Select's two scalars: set by `causal_masks`."""

    links: tuple[Link, ...] = ()
    sources: tuple[Ref, ...] = ()  # the chain's inputs, as the links read them
    condition: Ref = (0, 0)  # the Select's condition among the links' outputs
    convert: Convert1 | None = None  # the chain's Convert of the mask to boolean
    constants: Mapping[Ref, NDArray[Any]] = {}
    constant_infos: Mapping[Ref, TensorInfo] = {}

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        sizes = decode_sizes(*(info.shape for info in inputs[:_SOURCES]))
        if sizes is not None:
            batch, length, total = sizes
            return [TensorInfo(inputs[_SOURCES].type, Shape.of(batch, 1, length, total))]
        return self.chain_infer(inputs, ctx)

    def chain_infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        """The Select's inference on what the chain's layers infer, one after another."""
        infos = {**self.constant_infos, **dict(zip(self.sources, inputs, strict=False))}
        for link in self.links:
            produced = link.op.infer([infos[ref] for ref in link.inputs], ctx)
            infos.update(((link.layer_id, i), info) for i, info in enumerate(produced))
        return super().infer([infos[self.condition], *inputs[_SOURCES:]], ctx)


def decode_sizes(cache: Any, hidden: Any, mask: Any) -> tuple[int, int, int] | None:
    """B, S and T where the mask is [B, T], the hidden states [B, S, ...] and a cache [..,
    .., T - S, ..] (shapes, or NumPy's tuples), each at least 1: what the one-step formula
    takes; None otherwise (the chain's layers then run)."""
    if isinstance(mask, Shape):
        if not (mask.is_static and hidden.is_static and cache.is_static):
            return None
        cache, hidden, mask = cache.values(), hidden.values(), mask.values()
    if len(mask) != 2 or len(hidden) != 3 or len(cache) != 4:
        return None
    batch, total = mask
    length = hidden[1]
    if hidden[0] != batch or cache[2] + length != total or min(batch, length) < 1:
        return None
    return (batch, length, total) if batch * total < 2**31 else None


def causal_masks(
    computed: Sequence[Candidate],
    constants: Mapping[Ref, NDArray[Any]],
    checked: Mapping[int, Sequence[TensorInfo]],
    returned: Collection[Ref],
) -> dict[int, Rewrite | None]:
    """Each Select whose condition is the causal-mask chain `FINGERPRINT` describes, the
    chain's layers read by nothing else (no Result, no variable): its `CausalMask`, and
    None for the chain's layers."""
    by_id = {candidate.layer.id: candidate for candidate in computed}
    readers: dict[int, set[int]] = {}
    for candidate in computed:
        for layer_id, _ in candidate.inputs:
            readers.setdefault(layer_id, set()).add(candidate.layer.id)
    kept = {ref[0] for ref in returned}
    rewrites: dict[int, Rewrite | None] = {}
    for root in computed:
        if type(root.op) is not Select1 or any(ref not in constants for ref in root.inputs[1:]):
            continue
        chain = _chain(root, computed, readers, kept)
        found = _canonical(root, chain, by_id, constants, checked)
        if found is None or found[0] != FINGERPRINT:
            continue
        sources = found[1]
        links = tuple(
            Link(c.layer.id, c.op, c.inputs, c.outputs) for c in computed if c.layer.id in chain
        )
        convert = next(link.op for link in links if link.inputs == (sources[2],))
        if not isinstance(convert, Convert1):
            continue
        read = {ref for link in links for ref in link.inputs if ref in constants}
        op = CausalMask(root.op.attrs)
        op.links, op.sources, op.condition = links, tuple(sources), root.inputs[0]
        op.convert = convert
        op.constants = {ref: constants[ref] for ref in read}
        op.constant_infos = {ref: checked[ref[0]][ref[1]] for ref in read}
        rewrites[root.layer.id] = Rewrite(op, (*sources, *root.inputs[1:]))
        rewrites.update(dict.fromkeys(chain))
    return rewrites


def _chain(
    root: Candidate, computed: Sequence[Candidate], readers: dict[int, set[int]], kept: set[int]
) -> set[int]:
    """The layers `root` reads, directly or through each other, that nothing else reads:
    never a Result's source or a variable's read or write."""
    found = {root.layer.id}
    for candidate in reversed(computed):  # a layer's readers come after it
        layer_id = candidate.layer.id
        if layer_id in found or layer_id in kept or candidate.layer.type in _STATEFUL:
            continue
        read_by = readers.get(layer_id)
        if read_by and read_by <= found:
            found.add(layer_id)
    return found - {root.layer.id}


def _canonical(
    root: Candidate,
    chain: set[int],
    by_id: Mapping[int, Candidate],
    constants: Mapping[Ref, NDArray[Any]],
    checked: Mapping[int, Sequence[TensorInfo]],
) -> tuple[str, list[Ref]] | None:
    """The sha256 of the chain's description (each layer after its inputs, in input order
    from the root: its op class, attributes and what planning set on it, inputs and output
    types; a constant by its type, shape and bytes, but the root's two scalars by their type
    and shape; an input from outside by its order of first reading and type), and those
    inputs in that order; None when they are not `_SOURCES`."""
    numbered: dict[int, int] = {}
    sources: list[Ref] = []
    parts: list[str] = []

    def describe(candidate: Candidate) -> None:
        for layer_id, _ in candidate.inputs:
            if layer_id in chain and layer_id not in numbered:
                describe(by_id[layer_id])
        read: list[Any] = []
        for ref in candidate.inputs:
            if ref in constants:
                value = constants[ref]
                data = "" if candidate is root else value.tobytes().hex()
                read.append(("const", value.dtype.str, value.shape, data))
            elif ref[0] in chain:
                read.append(("layer", numbered[ref[0]], ref[1]))
            else:
                if ref not in sources:
                    sources.append(ref)
                read.append(("input", sources.index(ref), checked[ref[0]][ref[1]].type.name))
        numbered[candidate.layer.id] = len(numbered)
        given = [spec.type.name for spec in candidate.outputs]
        held = vars(candidate.op).items()  # the attributes and what planning set
        state = [(k, sorted(v.items()) if isinstance(v, dict) else v) for k, v in held]
        state = sorted(item for item in state if item[0] != "kernel_cache")
        parts.append(repr((type(candidate.op).__name__, state, read, given)))

    describe(root)
    if len(sources) != _SOURCES or len(numbered) != len(chain) + 1:
        return None
    return hashlib.sha256("\n".join(parts).encode()).hexdigest(), sources
