"""irpool: a precise linter and NumPy interpreter for OpenVINO IR pooling models."""

from irpool.diagnostics import Diagnostic, IRError
from irpool.execute.errors import ExecutionError, InputError, InvalidModelError
from irpool.model import Model, load
from irpool.rules import RULES, Rule, Severity

__all__ = [
    "RULES",
    "Diagnostic",
    "ExecutionError",
    "IRError",
    "InputError",
    "InvalidModelError",
    "Model",
    "Rule",
    "Severity",
    "load",
]
__version__ = "0.1.0"
