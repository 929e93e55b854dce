"""irpool: a precise linter and NumPy interpreter for OpenVINO IR pooling models."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from irpool.diagnostics import Diagnostic, IRError
from irpool.execute.errors import ExecutionError, InputError, InvalidModelError
from irpool.rules import RULES, Rule, Severity

if TYPE_CHECKING:
    from irpool.bf16 import bf16_from_bits, bf16_to_bits
    from irpool.model import InferRequest, Model, load

__all__ = [
    "RULES",
    "Diagnostic",
    "ExecutionError",
    "IRError",
    "InferRequest",
    "InputError",
    "InvalidModelError",
    "Model",
    "Rule",
    "Severity",
    "bf16_from_bits",
    "bf16_to_bits",
    "load",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """`Model`, `InferRequest` and `load` are imported on first use: they bring the whole
    checker (lxml, the ops), which `irpool rules`, `--help` and `--version` must not pay for
    at start-up."""
    if name in ("Model", "InferRequest", "load"):
        from irpool import model

        return getattr(model, name)
    if name in ("bf16_from_bits", "bf16_to_bits"):  # NumPy, imported on first use
        from irpool import bf16

        return getattr(bf16, name)
    raise AttributeError(f"module 'irpool' has no attribute {name!r}")
