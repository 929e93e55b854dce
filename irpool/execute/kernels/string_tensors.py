"""StringTensorUnpack and StringTensorPack: irpool holds no string tensor in NumPy, so it runs
neither; a run that reaches one stops with this message (docs/ops/StringTensorUnpack.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from irpool.execute.errors import ExecutionError
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.base import Op
from irpool.ops.string_tensors import StringTensorPack15, StringTensorUnpack15


@kernel_for(StringTensorUnpack15, StringTensorPack15)
def run_string_tensor(
    op: Op, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    raise ExecutionError(
        f"irpool holds no string tensors, so it cannot run {op.label()}: a tokenizer runs in "
        "OpenVINO only, with openvino_tokenizers loaded"
    )
