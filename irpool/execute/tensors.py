"""The tensors a run computes and the key each has in `model.run(..., intermediates=True)`
(and in `irpool run --dump`, `irpool compare`), fixed when the model is planned.

A tensor is one output of a layer the run computes. Not among them: the inputs (the caller
has them), constants (Const layers and what is folded from them when the model is planned,
as OpenVINO folds them), outputs nothing reads (a kernel skips them: MaxPool's unread
indices) and the inner tensor of a merged Reduce chain (the CPU plugin never computes it).

Keys, unique within a model, in this order of preference:
1. a tensor a Result returns: that output's key in `run` (`ModelOutput.name`), so
   `tensors[name]` is `outputs[name]`;
2. the tensor's names as OpenVINO reads them (`names` on its port, a name several tensors
   share renamed as OpenVINO renames it: IR508), smallest first, as `get_any_name()`
   orders them; a name an earlier tensor took is skipped;
3. `<layer name>:<output index>` (0-based, OpenVINO's `node.output(i)`), followed by
   `#<layer id>` (again, until free) when a name already is that text.
Real names are given out before any `<layer>:<index>` key, so a name is never displaced.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from irpool.element_types import ElementType
from irpool.graph.graph import Layer
from irpool.graph.tensor_names import Names, kept_names

Ref = tuple[int, int]  # (layer id, output index)


@dataclass(frozen=True, slots=True)
class ComputedTensor:
    """One tensor a run computes: its key, every name OpenVINO gives it, the layer producing
    it, the output's index (and the IR port id it is written with) and its element type."""

    name: str
    names: tuple[str, ...]
    layer: Layer
    index: int
    type: ElementType  # bf16 comes as float32 arrays holding bf16 values

    @property
    def ref(self) -> Ref:
        return (self.layer.id, self.index)

    @property
    def port(self) -> int:
        """The id of the `<port>` the IR writes this output with."""
        return self.layer.outputs[self.index].id


def computed_tensors(
    produced: list[tuple[Layer, int]],
    returned: Iterable[tuple[Ref, str]],
    types: dict[Ref, ElementType],
    kept: Names,
) -> list[ComputedTensor]:
    """The tensors `produced` (in run order) with their keys; `returned`: the tensor each
    Result returns and its key as `run` keys it, in Result order (the first names a tensor
    two Results return)."""
    names = {(layer.id, index): kept_names(kept, (layer.id, index)) for layer, index in produced}
    keys: dict[Ref, str] = {}
    for ref, key in returned:
        if ref in names:
            keys.setdefault(ref, key)
    taken = set(keys.values())
    for layer, index in produced:
        ref = (layer.id, index)
        free = [name for name in sorted(names[ref]) if name not in taken]
        if ref not in keys and free:
            keys[ref] = free[0]
            taken.add(free[0])
    for layer, index in produced:
        ref = (layer.id, index)
        if ref not in keys:
            key = f"{layer.name}:{index}"
            while key in taken:
                key += f"#{layer.id}"
            keys[ref] = key
            taken.add(key)
    return [
        ComputedTensor(keys[ref], names[ref], layer, index, types[ref])
        for layer, index in produced
        for ref in [(layer.id, index)]
    ]
