"""The kernel registry: op class -> the NumPy function that runs it.

Kernel modules in this package register with `@kernel_for(OpClass, ...)`; the runner asks
`kernel_of(op)` while it plans a run. The registry imports this package's modules on the
first lookup, so validating never loads a kernel and a new kernel needs no list to edit.
A kernel registered for a base class serves its subclasses.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from irpool.ops.base import Op, Role, numpy_dtype
from irpool.ops.registry import registered_ops


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """What the runner expects of one output of a kernel."""

    # The inferred element type; bf16 is held as f32 (the runner rounds it afterwards).
    element_type: str
    # The dtype of the array to return (None: NumPy cannot hold the type).
    dtype: np.dtype[Any] | None
    # Whether a layer or a Result reads it; a kernel may return None for an unused output.
    used: bool

    @classmethod
    def of(cls, element_type: str, used: bool = True) -> OutputSpec:
        return cls(
            element_type, numpy_dtype("f32" if element_type == "bf16" else element_type), used
        )


# kernel(op, input arrays, one OutputSpec per output) -> one array (or None) per output
Kernel = Callable[[Any, Sequence[NDArray[Any]], Sequence[OutputSpec]], list[NDArray[Any] | None]]
KernelFunction = TypeVar("KernelFunction", bound=Callable[..., list[Any]])

_KERNELS: dict[type[Op], Kernel] = {}
_loaded = False


def kernel_for(*ops: type[Op]) -> Callable[[KernelFunction], KernelFunction]:
    """Register the decorated function as the kernel of `ops` (and their subclasses)."""

    def register(kernel: KernelFunction) -> KernelFunction:
        for op in ops:
            if op in _KERNELS:
                raise ValueError(f"{op.__name__} already has a kernel")
            _KERNELS[op] = kernel
        return kernel

    return register


def kernel_of(op: Op) -> Kernel | None:
    """The kernel that runs `op`, or None when irpool cannot run it."""
    return _kernel_of_class(type(op))


def _kernel_of_class(op: type[Op]) -> Kernel | None:
    _load_all()
    for cls in op.__mro__:
        kernel = _KERNELS.get(cls)
        if kernel is not None:
            return kernel
    return None


def runnable_types() -> list[str]:
    """The op types irpool runs, for messages: those the runner binds, reads or returns
    itself (Parameter, Const, Result) and those with a kernel (one on a base class counts)."""
    return sorted(
        {
            op.type_name
            for op in registered_ops()
            if op.role is not Role.COMPUTED or _kernel_of_class(op) is not None
        }
    )


def _load_all() -> None:
    """Import every module of this package once, so each registers its kernels."""
    global _loaded
    if _loaded:
        return
    import irpool.execute as package

    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"irpool.execute.{module.name}")
    _loaded = True
