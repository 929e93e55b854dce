"""The kernel registry: op class -> the NumPy function that runs it.

Kernel modules in `irpool.execute.kernels` register with `@kernel_for(OpClass, ...)`; the
runner asks `kernel_of(op)` while it plans a run. The registry imports that package's
modules on the first lookup, so validating never loads a kernel and a new kernel needs no
list to edit. A kernel registered for a base class serves its subclasses.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from irpool.element_types import ElementType, element_type
from irpool.ops.base import Op, Role
from irpool.ops.registry import registered_ops


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """What the runner expects of one output of a kernel."""

    type: ElementType  # inferred
    # Whether a layer or a Result reads it; a kernel may return None for an unused output.
    used: bool
    # Whether the kernel may compute it into its first input's array, which the run reads
    # no more and nothing else refers to (irpool/execute/run.py); never for a fold or a
    # run that keeps its tensors.
    overwrites_input: bool = False

    @classmethod
    def of(cls, type_name: str, used: bool = True) -> OutputSpec:
        return cls(element_type(type_name), used)

    @property
    def element_type(self) -> str:
        return self.type.name

    @property
    def dtype(self) -> np.dtype[Any] | None:
        """The dtype of the array to return: the type's `held_dtype` (None: NumPy cannot hold
        the type); the runner rounds a type held wider (bf16) afterwards (`held`)."""
        return self.type.held_dtype

    def held(self, array: NDArray[Any]) -> NDArray[Any]:
        """A kernel's output as irpool holds the element type (bf16 rounded)."""
        return self.type.hold(array)


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


# Preparations kept per op: a dynamic model run on many shapes keeps its latest ones.
PREPARED_PER_OP = 16
_prepared_lock = threading.Lock()
Prepared = TypeVar("Prepared")


def prepared(op: Op, key: Hashable, prepare: Callable[[], Prepared]) -> Prepared:
    """What `prepare` gives for this op and `key` (input shape, dtype), made once and kept in
    the op (`Op.kernel_cache`): runs repeat it, and the op's model drops it with the op."""
    cache = op.kernel_cache
    found: Prepared | None = cache.get(key)
    if found is not None:
        return found
    value = prepare()
    with _prepared_lock:  # threads running one model may fill one op's cache at once
        while len(cache) >= PREPARED_PER_OP:
            del cache[next(iter(cache))]
        cache[key] = value
    return value


def kernel_of(op: Op) -> Kernel | None:
    """The kernel that runs `op`, or None when irpool cannot run it."""
    return kernel_of_class(type(op))


def kernel_of_class(op: type[Op]) -> Kernel | None:
    """The kernel of an op class (one registered on a base class counts), or None."""
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
            if op.role is not Role.COMPUTED or kernel_of_class(op) is not None
        }
    )


def _load_all() -> None:
    """Import every module of this package once, so each registers its kernels."""
    global _loaded
    if _loaded:
        return
    import irpool.execute.kernels as package

    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"irpool.execute.kernels.{module.name}")
    _loaded = True
