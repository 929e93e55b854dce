"""The element types OpenVINO gives a model's inputs and outputs, where they differ from the
file's: an IR v10 file is read through the legacy API's conversion, which inserts Converts
at its edges (docs/ir-versions.md).

- An f16 Parameter is an f32 input; every other input keeps its type.
- An output is f32, or i32 for the integer types the legacy API held as i32 (i64, u32, u64);
  f32 and i32 stay.

IR v11 keeps every type, and the `old_api_map_element_type` and `old_api_map_order` rt_info
that Model Optimizer writes changes neither types nor shapes.
"""

from __future__ import annotations

_V10_INPUTS = {"f16": "f32"}
_V10_OUTPUTS_KEPT = frozenset({"f32", "i32"})
_V10_OUTPUTS_TO_I32 = frozenset({"i64", "u32", "u64"})


def input_type(ir_version: int, file_type: str) -> str:
    """The element type of the input a Parameter of `file_type` is to a program."""
    return _V10_INPUTS.get(file_type, file_type) if ir_version == 10 else file_type


def output_type(ir_version: int, file_type: str) -> str:
    """The element type of the output a Result of `file_type` gives a program."""
    if ir_version != 10 or file_type in _V10_OUTPUTS_KEPT or file_type == "dynamic":
        return file_type
    return "i32" if file_type in _V10_OUTPUTS_TO_I32 else "f32"
