"""What a layer declares against what irpool infers: each port's `<dim>`s and precision
compared with the tensor it carries (IR301-IR303), and a declaration taken as the tensor where
irpool cannot infer or does not know."""

from __future__ import annotations

from dataclasses import replace

from irpool.check.locators import AtDim, AtPort, Locator
from irpool.element_types import DYNAMIC, element_type
from irpool.graph.graph import Port
from irpool.ops.base import TensorInfo
from irpool.parse.values import precision_name
from irpool.rules import (
    DECLARED_DIM_FROM_SYMBOLS,
    DECLARED_DIM_MISMATCH,
    DECLARED_PRECISION_MISMATCH,
    DECLARED_RANK_MISMATCH,
    Code,
)
from irpool.shape import Dim, Shape

# A layer's findings: rule code, message, where (relative to the layer: layers written alike
# share them).
LayerFinding = tuple[Code, str, Locator]


def declared_info(port: Port) -> TensorInfo | None:
    """A port's own claim, used where irpool cannot infer (unknown ops, failed inference).
    Its static dims are taken as true; its value, its -1 dims and, without any <dim>, its
    rank are unknown: the serializer writes both scalars and dynamic ranks with no <dim>."""
    if port.declared is None:
        return None
    dims = tuple(Dim.dynamic() if v == -1 else Dim.static(v) for v in port.declared)
    shape = Shape(dims) if dims else Shape.dynamic()
    return TensorInfo(element_type(port.precision or DYNAMIC), shape, trusted=True, unknown=True)


def compare(port: Port, info: TensorInfo, side: str, findings: list[LayerFinding]) -> bool:
    """Every declared dim (and the precision) that differs from the inferred tensor;
    whether a declared dim was left unchecked because irpool does not know it."""
    declared = port.declared
    where = f"{side} port {port.id}"
    unchecked = False
    if declared is not None and declared != claim(info.shape):
        inferred = info.shape
        if inferred.dims is None:
            # A dynamic rank holds any declared rank, and an unknown one may be it.
            unchecked = info.unknown and bool(declared)
        elif len(declared) != len(inferred.dims):
            message = (
                f"{where} declares {len(declared)} dim(s), but the inferred shape has "
                f"rank {inferred.rank}"
            )
            findings.append((DECLARED_RANK_MISMATCH, message, AtPort(port)))
        else:
            for index, (value, dim) in enumerate(zip(declared, inferred.dims, strict=True)):
                expected = dim.value if dim.is_static else -1
                if value != expected and info.unknown and not dim.is_static:
                    unchecked = True  # the runtime may know this dim: it may be `value`
                elif value != -1 and not dim.is_static and dim.admits(value):
                    message = (
                        f"{where} dim {index}: declared {value}, which OpenVINO infers as {dim} "
                        f"when it reads the file (shape {inferred})"
                    )
                    fix = None if info.trusted else "-1"
                    findings.append((DECLARED_DIM_FROM_SYMBOLS, message, AtDim(port, index, fix)))
                elif value != expected:
                    hint = "" if dim.is_static else " (write -1 for a non-static dim)"
                    message = (
                        f"{where} dim {index}: declared {value}, inferred {dim}{hint} "
                        f"(shape {inferred})"
                    )
                    fix = None if info.trusted else str(expected)
                    findings.append((DECLARED_DIM_MISMATCH, message, AtDim(port, index, fix)))
    written = (info.element_type, info.written_as)
    if not info.type.is_dynamic and port.precision not in (None, *written):
        message = (
            f"{where} precision says {port.precision_text}, but the tensor is "
            f"{info.element_type} (write {precision_name(info.element_type)})"
        )
        findings.append((DECLARED_PRECISION_MISMATCH, message, AtPort(port, "precision")))
    return unchecked


def refined_by_declaration(info: TensorInfo, port: Port) -> TensorInfo:
    """An unknown output with its declaration's dims where irpool does not know them: the
    declaration carries the checks downstream, as a trusted layer's does."""
    declared = port.declared
    if not info.unknown or declared is None or info.shape.is_static:
        return info
    if info.shape.dims is None:
        if not declared:  # a scalar or a dynamic rank: nothing to learn
            return info
        dims = tuple(Dim.dynamic() if v == -1 else Dim.static(v) for v in declared)
    elif len(declared) == len(info.shape.dims):
        dims = tuple(
            Dim.static(v) if not d.is_static and v != -1 and Shape((d,)).contains((v,)) else d
            for d, v in zip(info.shape.dims, declared, strict=True)
        )
    else:
        return info
    if dims == info.shape.dims:
        return info
    return replace(info, shape=Shape(dims), trusted=True)


def claim(shape: Shape) -> tuple[int, ...] | None:
    """The `<dim>` values that declare exactly this shape (None: a dynamic rank)."""
    if shape.dims is None:
        return None
    return tuple(d.low if d.low == d.high else -1 for d in shape.dims)
