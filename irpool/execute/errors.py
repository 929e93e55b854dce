"""What `Model.run` raises: each is an `irpool.IRError`, so one `except` covers them all."""

from __future__ import annotations

from irpool.diagnostics import IRError


class InvalidModelError(IRError):
    """The model has validation errors (carried in `diagnostics`), so it is not run."""


class InputError(IRError):
    """The inputs do not fit the model: missing, extra, unknown, wrong rank, dim or dtype."""


class ExecutionError(IRError):
    """The model is valid but irpool cannot run it (an op it cannot execute, or too little
    memory for the tensors it would need)."""
