"""What `Model.run` raises: each is an `irpool.IRError`, so one `except` covers them all."""

from __future__ import annotations

from irpool.diagnostics import IRError


class InvalidModelError(IRError):
    """The model has validation errors (carried in `diagnostics`), so it is not run."""


class InputError(IRError):
    """The inputs do not fit the model: missing, extra, unknown, wrong rank, dim or dtype.

    `cast_helps`: converting the dtype would make the input fit; the message then says how in
    the API's terms (`cast=True`), and `problem` is the message without that, for the command
    line to say it in its own (`--cast`)."""

    def __init__(self, problem: str, *, cast_helps: bool = False) -> None:
        super().__init__(f"{problem} ({cast_remedy('cast=True')})" if cast_helps else problem)
        self.problem = problem
        self.cast_helps = cast_helps


def cast_remedy(option: str) -> str:
    return f"{option} converts within a kind, and says so"


class ExecutionError(IRError):
    """The model is valid but irpool cannot run it (an op it cannot execute, or too little
    memory for the tensors it would need)."""
