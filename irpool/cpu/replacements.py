"""What the CPU plugin runs in place of a model's layers when it fuses or rewrites them
(`eltwise_fusion`, `reduce_merge`, `product_fusion`, `linear_fusion`): the execution plan
asks, then runs the replacement's kernel."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from irpool.graph.graph import Layer
from irpool.ops.base import Op, TensorInfo

Ref = tuple[int, int]  # (layer id, output index)


class ComputedLayer(Protocol):
    """A layer a run computes, as the plan holds it (`irpool.execute.fold.Candidate`)."""

    @property
    def layer(self) -> Layer: ...

    @property
    def op(self) -> Op: ...

    @property
    def inputs(self) -> tuple[Ref, ...]: ...

    @property
    def produced(self) -> Sequence[TensorInfo]: ...


@dataclass(frozen=True, slots=True)
class Rewrite:
    """The op that runs in a layer's place, on these inputs."""

    op: Op
    inputs: tuple[Ref, ...]
