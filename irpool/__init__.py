"""irpool: a precise linter and NumPy interpreter for OpenVINO IR pooling models."""

from irpool.diagnostics import Diagnostic, IRError
from irpool.model import Model, load
from irpool.rules import RULES, Rule, Severity

__all__ = ["RULES", "Diagnostic", "IRError", "Model", "Rule", "Severity", "load"]
__version__ = "0.1.0"
