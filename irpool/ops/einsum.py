"""Einsum-7 (opset7-17): the sum of products its `equation` names, over any number of inputs
of one type.

What OpenVINO 2026.4 infers (measured, docs/ops/Einsum.md): one subscript per input ("Equation
must contain a number of subscripts equal to a number of Einsum inputs."), each of letters
(either case) with at most one ellipsis ("Input subscript of Einsum equation must consist of
either only alphabetic letters or alphabetic letters with one ellipsis."); every output label
in some input ("Label in output subscript of Einsum equation must enter at least one input
subscript."); inputs of one type ("Inputs to Einsum operation must have the same type."); the
dims a label names broadcast (1 against n: "Different input dimensions indicated by the same
labels for Einsum must be broadcastable."), as do the ellipsis dims ("Input dimensions labeled
with ellipsis for Einsum must be broadcastable."). Without `->` the output is the labels that
appear once, in alphabetical order, after the ellipsis. The kernel is in
irpool.execute.kernels.einsum.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from irpool.ops.base import (
    Attr,
    AttrType,
    LayerContext,
    NotInferable,
    Op,
    ShapeError,
    TensorInfo,
)
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

_SUBSCRIPT = re.compile(r"[a-zA-Z]*(\.\.\.)?[a-zA-Z]*")
ELLIPSIS = "..."


def _labels(subscript: str) -> list[str]:
    """The subscript's labels in order, the ellipsis as one item."""
    head, dots, tail = subscript.partition(ELLIPSIS)
    return [*head, *([ELLIPSIS] if dots else []), *tail]


def parse_equation(equation: str, count: int) -> tuple[list[list[str]], list[str]]:
    """Each input's labels and the output's, or ShapeError as OpenVINO refuses the equation."""
    lhs, arrow, rhs = equation.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != count:
        raise ShapeError(
            "Equation must contain a number of subscripts equal to a number of Einsum inputs."
        )
    for subscript in (*inputs, *([rhs] if arrow else [])):
        if not _SUBSCRIPT.fullmatch(subscript):
            raise ShapeError(
                "Input subscript of Einsum equation must consist of either only alphabetic "
                "letters or alphabetic letters with one ellipsis."
            )
    labels = [_labels(subscript) for subscript in inputs]
    if arrow:
        output = _labels(rhs)
        seen = {label for each in labels for label in each}
        if any(label not in seen for label in output):
            raise ShapeError(
                "Label in output subscript of Einsum equation must enter at least one input "
                "subscript."
            )
        return labels, output
    counts = Counter(label for each in labels for label in each if label != ELLIPSIS)
    if any(len(set(each)) != len(each) for each in labels):
        raise NotInferable("an implicit output with a label repeated in one input")
    once = sorted(label for label, n in counts.items() if n == 1)
    ellipsis = [ELLIPSIS] if any(ELLIPSIS in each for each in labels) else []
    return labels, [*ellipsis, *once]


def broadcast(first: Dim, second: Dim) -> Dim | None:
    """Two dims one label (or an ellipsis) names: equal, or 1 against any; None: neither."""
    if first == Dim.static(1):
        return second
    if second == Dim.static(1):
        return first
    merged = first.overlap(second)
    if merged is not None:
        return merged
    return second if first.admits(1) else first if second.admits(1) else None


@register
class Einsum7(Op):
    type_name = "Einsum"
    version = 7
    opsets = range(7, 18)
    input_names = ("inputs",)
    variadic_inputs = True
    attributes = (Attr("equation", AttrType.STRING, default="", required=True),)

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        types = {info.element_type for info in inputs if not info.type.is_dynamic}
        if len(types) > 1:
            raise ShapeError("Inputs to Einsum operation must have the same type.")
        labels, output = parse_equation(str(self.attrs["equation"]), len(inputs))
        if any(info.shape.dims is None for info in inputs):
            return [TensorInfo(inputs[0].type, Shape.dynamic())]
        dims: dict[str, Dim] = {}
        ellipsis: list[Dim] = []
        for info, names in zip(inputs, labels, strict=True):
            assert info.shape.dims is not None
            spread = len(info.shape) - (len(names) - (ELLIPSIS in names))
            position = names.index(ELLIPSIS) if ELLIPSIS in names else len(names)
            if spread < 0 or (ELLIPSIS not in names and spread):
                raise ShapeError(
                    "Input rank must be greater or equal to a number of labels in the "
                    "corresponding input subscript."
                )
            own = info.shape.dims[position : position + spread] if ELLIPSIS in names else ()
            ellipsis = self._ellipsis(ellipsis, list(own))
            plain = [*info.shape.dims[:position], *info.shape.dims[position + spread :]]
            own_dims: dict[str, Dim] = {}
            for label, dim in zip([n for n in names if n != ELLIPSIS], plain, strict=True):
                repeated = own_dims.get(label, dim).overlap(dim)  # within one input: equal
                if repeated is None:
                    raise ShapeError(
                        "Different input dimensions indicated by the repeated labels within "
                        "single input node for Einsum must be compatible."
                    )
                own_dims[label] = repeated
            for label, dim in own_dims.items():
                merged = dim if label not in dims else broadcast(dims[label], dim)
                if merged is None:
                    raise ShapeError(
                        "Different input dimensions indicated by the same labels for Einsum "
                        "must be broadcastable."
                    )
                dims[label] = merged
        shape: list[Dim] = []
        for label in output:
            shape.extend(ellipsis if label == ELLIPSIS else [dims[label]])
        return [TensorInfo(inputs[0].type, Shape(tuple(shape)))]

    @staticmethod
    def _ellipsis(first: list[Dim], second: list[Dim]) -> list[Dim]:
        """Ellipsis dims broadcast from the right, or ShapeError."""
        length = max(len(first), len(second))
        padded = [[Dim.static(1)] * (length - len(d)) + d for d in (first, second)]
        result = []
        for a, b in zip(*padded, strict=True):
            merged = broadcast(a, b)
            if merged is None:
                raise ShapeError(
                    "Input dimensions labeled with ellipsis for Einsum must be broadcastable."
                )
            result.append(merged)
        return result

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"equation {self.attrs['equation']}", [])
