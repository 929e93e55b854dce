"""Constant folding when a run is planned: one pass over the layers in topological order.

OpenVINO folds every layer whose inputs are all constants when it reads and compiles a
model; irpool folds them once per plan, so no run repeats them. A layer's value comes from,
in this order:

1. checking, which already folded it by the same rules (small values only: checking must
   stay fast, see irpool/ops/folding.py), or knows its value from shapes though its inputs
   are no constants: ShapeOf of a static shape, and shape arithmetic whose bounds meet,
   which the CPU plugin folds to that value even where the bounds are not true (a FloorMod's
   are its corners': docs/shape-values.md#bounds-of-floormod-and-subtract-the-corners);
2. its op's own folding rule, where OpenVINO's folding differs from the CPU plugin's
   kernel (`Op.fold_constant`: Convert), applied to the constants as the file writes them;
3. its kernel, run once on the constants as the plugin holds them
   (`irpool.cpu.numerics.constant_as_held`).

A layer that cannot be folded (a value NumPy cannot hold, a kernel that refuses it, more
memory than there is) stays a step, and fails, if it does, when a run reaches it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import constant_as_held
from irpool.execute.errors import ExecutionError
from irpool.execute.memory import affordable, tensor_bytes, working_bytes
from irpool.execute.registry import Kernel, OutputSpec
from irpool.graph.graph import Layer
from irpool.low_bit import LOW_BIT_TYPES, unpack
from irpool.ops.base import Op, Role, ShapeError, TensorInfo
from irpool.ops.convert import Convert1
from irpool.ops.opsets import extension_op

Ref = tuple[int, int]  # (layer id, output index)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A layer that is neither an input nor an output: folded, or else a step of each run."""

    layer: Layer
    op: Op
    kernel: Kernel | None  # None: irpool has none (a Const needs none)
    inputs: tuple[Ref, ...]
    produced: list[TensorInfo]  # as checking inferred them
    outputs: tuple[OutputSpec, ...]  # what a kernel is asked for


def fold_constants(
    candidates: list[Candidate],
) -> tuple[dict[Ref, NDArray[Any]], list[Candidate]]:
    """The constants as the CPU plugin holds them, and the candidates left to run."""
    written: dict[Ref, NDArray[Any]] = {}  # as OpenVINO's folding sees them
    held: dict[Ref, NDArray[Any]] = {}  # as the plugin holds them, which kernels read
    low_bit: dict[Ref, str] = {}  # the low-bit constants, by type
    remaining = []
    for candidate in candidates:
        _refuse_low_bit_reader(candidate, low_bit)
        values = _folded(candidate, written, held)
        if values is None:
            remaining.append(candidate)
            continue
        for index, (value, as_held) in values.items():
            ref = (candidate.layer.id, index)
            # NumPy's arithmetic on 0-d arrays gives scalars; runs read arrays.
            written[ref] = np.asarray(value)
            held[ref] = np.asarray(as_held)
            if candidate.produced[index].element_type in LOW_BIT_TYPES:
                low_bit[ref] = candidate.produced[index].element_type
    return held, remaining


def _refuse_low_bit_reader(candidate: Candidate, low_bit: dict[Ref, str]) -> None:
    """irpool holds low-bit values wider (irpool/low_bit.py), which only a Convert reads
    as the CPU does; any other layer reading one is refused."""
    read = [low_bit[ref] for ref in candidate.inputs if ref in low_bit]
    if read and not isinstance(candidate.op, Convert1):
        raise ExecutionError(
            f"{candidate.layer.describe()} reads a {read[0]} constant: irpool runs {read[0]} "
            "values only through a Convert"
        )


# Output index -> (its value as written, as held).
Folded = dict[int, tuple[NDArray[Any], NDArray[Any]]]


def _folded(
    candidate: Candidate, written: dict[Ref, NDArray[Any]], held: dict[Ref, NDArray[Any]]
) -> Folded | None:
    """The candidate's output values, or None when it is not folded."""
    layer, op, produced = candidate.layer, candidate.op, candidate.produced
    if op.role is Role.VARIABLE:  # its value changes from run to run of a request
        return None
    constant_inputs = bool(candidate.inputs) and all(ref in written for ref in candidate.inputs)
    if op.role is Role.CONSTANT or all(info.value is not None for info in produced):
        return {index: _checked(layer, info) for index, info in enumerate(produced)}
    if candidate.kernel is None:
        raise cannot_run(layer)
    if not constant_inputs:
        return None
    sources = [written[ref] for ref in candidate.inputs]
    if len(produced) == 1 and _affordable_outputs(sources[0].shape, produced, 0):
        value = op.fold_constant(sources)
        if value is not None:
            return {0: (value, constant_as_held(value, produced[0].element_type))}
    if not _affordable_outputs(sources[0].shape, produced, 1):
        return None
    return _computed_once(candidate, [held[ref] for ref in candidate.inputs])


def _checked(layer: Layer, info: TensorInfo) -> tuple[NDArray[Any], NDArray[Any]]:
    if info.value is None and info.packed is not None:  # a low-bit Const
        value = unpack(info.element_type, info.packed, math.prod(info.shape.values()))
        value = value.reshape(info.shape.values())
        return value, value
    if info.value is None:
        raise ExecutionError(
            f"{layer.describe()}: irpool cannot hold {info.element_type} constants in NumPy"
        )
    return info.value, constant_as_held(info.value, info.element_type)


def _affordable_outputs(
    source: Sequence[int], produced: Sequence[TensorInfo], kernels: int
) -> bool:
    """Whether the outputs (and, for a kernel, its working memory) fit in memory now."""
    if not all(info.shape.is_static for info in produced):
        return False
    shapes = [info.shape.values() for info in produced]
    needed = sum(
        tensor_bytes(shape, info.type) for shape, info in zip(shapes, produced, strict=True)
    )
    needed += kernels * max((working_bytes(source, shape) for shape in shapes), default=0)
    return affordable(needed)


def _computed_once(candidate: Candidate, inputs: list[NDArray[Any]]) -> Folded | None:
    """The candidate's kernel run now; None when it refuses. Its outputs are what a run
    would compute, so they are held as computed."""
    assert candidate.kernel is not None
    try:
        produced = candidate.kernel(candidate.op, inputs, candidate.outputs)
    except (ExecutionError, ShapeError):  # left to the run, which refuses it with the layer
        return None
    folded: Folded = {}
    for index, spec in enumerate(candidate.outputs):
        value = produced[index]
        if spec.used:
            assert value is not None, "a kernel returns every output something reads"
            value = spec.held(value)
            folded[index] = (value, value)
    return folded


def cannot_run(layer: Layer) -> ExecutionError:
    from irpool.execute.registry import runnable_types

    extension = extension_op(layer.type, layer.version)
    if extension is not None:  # a tokenizer's: irpool runs no extension op, holds no strings
        return ExecutionError(
            f"{layer.describe()} is an op of {extension}, an OpenVINO extension: irpool runs "
            "no extension op (such a file runs in OpenVINO only, with the extension loaded)"
        )
    return ExecutionError(
        f'{layer.describe()} (version "{layer.version}") cannot be executed by irpool; '
        f"it runs {', '.join(runnable_types())} only"
    )
