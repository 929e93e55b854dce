"""Inputs matched to Parameters by name, checked against their shape and element type.

No silent casts: a dtype that differs from the Parameter's `element_type` is an error unless
the caller allows casting, and then only within a kind (float64 -> float32, int64 -> int32,
int -> float), never float -> int (so NaN and inf never meet an integer type), and every
conversion is reported. A cast rounds to the nearest value the target holds, but a value
beyond its range (an integer that would wrap, a finite float that would become inf) is an
error naming the first one.

bf16 is held as float32 arrays of bf16 values (what `run` returns for a bf16 output): such an
array is taken as it is; float32 values bf16 does not hold are rounded only with casting.
float16 is never taken for bf16: OpenVINO's Python API passes bf16 as float16 arrays of the
bits, so a float16 array could mean either (irpool/bf16.py converts those bits).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from irpool.element_types import Kind, element_type, of_dtype
from irpool.execute.errors import InputError
from irpool.graph.graph import Layer
from irpool.graph.io_types import input_type
from irpool.graph.tensor_names import Names, parameter_names
from irpool.ops.base import TensorInfo
from irpool.shape import Shape


@dataclass(frozen=True, slots=True)
class ModelInput:
    layer: Layer
    element_type: str
    shape: Shape
    names: tuple[str, ...]  # the layer name first, then the output port's tensor names
    # An array of exactly this dtype and shape is taken as it is, with no further check
    # (None: the element type or the shape leaves a choice).
    exact: tuple[np.dtype[Any], tuple[int, ...]] | None
    # The file's type, when OpenVINO presents the input as another (`element_type`): an IR
    # v10 f16 Parameter is an f32 input, which the run converts to f16 (graph/io_types.py).
    computed_as: str | None = None

    @property
    def name(self) -> str:
        return self.layer.name

    def describe(self) -> str:
        # OpenVINO loads a Parameter named "" (and names it itself): bound by position only.
        shown = f'"{self.name}"' if self.name else f"the unnamed Parameter (layer {self.layer.id})"
        tensor = "" if self.name in self.names[1:] or not self.names[1:] else min(self.names[1:])
        called = f'tensor "{tensor}", ' if tensor else ""  # exporters feed by the tensor name
        return f"{shown} ({called}{self.element_type} {self.shape})"


def model_input(layer: Layer, info: TensorInfo, kept: Names, ir_version: int) -> ModelInput:
    """The input a layer of role INPUT takes, typed as OpenVINO presents it and shaped as
    checking inferred it; `kept`: the tensors' names as OpenVINO keeps them."""
    presented = input_type(ir_version, info.element_type)
    dtype = element_type(presented).dtype  # None for bf16, which comes as f32
    exact = None
    if dtype is not None and info.shape.is_static:
        exact = (dtype, tuple(info.shape.values()))
    names = parameter_names(layer, kept)
    computed_as = info.element_type if presented != info.element_type else None
    return ModelInput(layer, presented, info.shape, names, exact, computed_as)


# An input is given by one of its names, or by its position among the Parameters (an int,
# as OpenVINO's compiled model takes it).
InputKey = str | int
# What a run takes, as OpenVINO's compiled model does: a mapping of keys to arrays, a list
# or tuple by position, or one array for a model of one input.
Inputs = Mapping[InputKey, Any] | list[Any] | tuple[Any, ...] | NDArray[Any]


def keyed_inputs(inputs: Inputs, parameters: list[ModelInput]) -> Mapping[InputKey, Any]:
    """`inputs` as a mapping: a list or tuple keyed by position, one array by position 0
    when the model has one input; InputError for one array given to several inputs and for
    anything else."""
    if isinstance(inputs, Mapping):
        return inputs
    if isinstance(inputs, list | tuple):
        return dict(enumerate(inputs))
    if isinstance(inputs, np.ndarray):
        if len(parameters) == 1:
            return {0: inputs}
        named = ", ".join(p.describe() for p in parameters) or "none"
        raise InputError(
            f"one array given for {len(parameters)} inputs ({named}): give a mapping of "
            "names or positions to arrays, or a list in the inputs' order"
        )
    raise InputError(
        f"inputs of type {type(inputs).__name__}: give a mapping of names or positions to "
        "arrays, a list in the inputs' order, or one array for a model of one input"
    )


def bind(
    inputs: Inputs,
    parameters: list[ModelInput],
    by_name: Mapping[str, ModelInput],
    cast: bool,
    on_cast: Callable[[str], None] | None,
) -> dict[tuple[int, int], NDArray[Any]]:
    """(Parameter layer id, 0) -> array, or InputError naming the Parameter, expected and
    given. `by_name`: every name of every Parameter (built once per model)."""
    bound: dict[tuple[int, int], NDArray[Any]] = {}
    for key, value in keyed_inputs(inputs, parameters).items():
        parameter = _parameter(key, parameters, by_name)
        ref = (parameter.layer.id, 0)
        if ref in bound:
            raise InputError(f"input {parameter.describe()} is given twice")
        array = np.asarray(value)
        if parameter.exact is None or (array.dtype, array.shape) != parameter.exact:
            array = _check(parameter, array, cast, on_cast)
        bound[ref] = array
    if len(bound) == len(parameters):
        return bound
    missing = [p.describe() for p in parameters if (p.layer.id, 0) not in bound]
    if missing:
        raise InputError(f"missing input(s): {', '.join(missing)}")
    return bound


def _parameter(
    key: InputKey, parameters: list[ModelInput], by_name: Mapping[str, ModelInput]
) -> ModelInput:
    if isinstance(key, int) and not isinstance(key, bool):
        if 0 <= key < len(parameters):
            return parameters[key]
        where = f"at position {key}"
    else:
        found = by_name.get(key) if isinstance(key, str) else None
        if found is not None:
            return found
        where = f'named "{key}"'
    known = ", ".join(p.describe() for p in parameters) or "none"
    raise InputError(f"no input {where}; the model's inputs are: {known}")


def _check(
    parameter: ModelInput,
    array: NDArray[Any],
    cast: bool,
    on_cast: Callable[[str], None] | None,
) -> NDArray[Any]:
    array = _check_dtype(parameter, array, parameter.element_type, cast, on_cast)
    shape = parameter.shape
    if not shape.contains(array.shape):
        raise InputError(
            f"input {parameter.describe()}: expected shape {shape}, got "
            f"{Shape.of(*array.shape)}{_shape_detail(shape, array.shape)}"
        )
    return array


def _check_dtype(
    parameter: ModelInput,
    array: NDArray[Any],
    type_name: str,
    cast: bool,
    on_cast: Callable[[str], None] | None,
) -> NDArray[Any]:
    wanted = element_type(type_name)
    if wanted.kind is Kind.DYNAMIC:
        given = of_dtype(array.dtype)
        if given is None or not (given.is_float or given.is_integer):
            raise InputError(f"input {parameter.describe()}: unsupported dtype {array.dtype}")
        return array
    # A type held wider (bf16) comes in its held dtype, of its values or rounded (--cast).
    expected = wanted.held_dtype
    if expected is None:
        raise InputError(
            f"input {parameter.describe()}: element type {type_name} cannot be held by NumPy"
        )
    if array.dtype == expected and not wanted.rounds_when_held:
        return array
    if wanted.rounds_when_held and _holds_bf16(parameter, array, cast):
        return array
    if not cast:
        raise InputError(
            f"input {parameter.describe()}: expected dtype {expected.name}, got {array.dtype}",
            cast_helps=True,
        )
    if not np.can_cast(array.dtype, expected, casting="same_kind"):
        raise InputError(
            f"input {parameter.describe()}: cannot cast {array.dtype} to {type_name}, even "
            "with casting (only within a kind, or integer to float)"
        )
    if expected.kind in "iu":
        _check_integer_range(parameter, array, expected, type_name)
    with np.errstate(over="ignore"):  # overflow to inf is found below, by position
        converted = wanted.hold(array.astype(expected))
    if expected.kind == "f":
        _check_float_range(parameter, array, converted, wanted.largest, type_name)
    if on_cast is not None:
        on_cast(f'input "{parameter.name}": cast {array.dtype} to {type_name}')
    return converted


def _holds_bf16(parameter: ModelInput, array: NDArray[Any], cast: bool) -> bool:
    """Whether `array` is float32 holding bf16 values only (taken as it is); False when it is
    not but may be cast; else InputError saying what a bf16 input takes."""
    if array.dtype == np.float16:
        raise InputError(
            f"input {parameter.describe()}: float16 is not taken for bf16, even with casting: "
            "OpenVINO's Python API passes bf16 as float16 arrays of the bits, so float16 "
            "values are ambiguous; give float32 arrays of bf16 values "
            "(irpool.bf16_from_bits converts OpenVINO's arrays)"
        )
    if array.dtype == np.float32:
        inexact = (array.view(np.uint32) & np.uint32(0xFFFF)) != 0
        if not inexact.any():
            return True
    if cast:
        return False
    if array.dtype != np.float32:
        problem = f"got {array.dtype}"
    else:
        first = int(np.flatnonzero(inexact)[0])
        index = ",".join(str(int(i)) for i in np.unravel_index(first, array.shape))
        problem = f"value {array.reshape(-1)[first]!s} at index [{index}] is not a bf16 value"
    raise InputError(
        f"input {parameter.describe()}: a bf16 input takes float32 arrays of bf16 values, as "
        f"run returns a bf16 output; {problem}",
        cast_helps=True,
    )


def _check_integer_range(
    parameter: ModelInput, array: NDArray[Any], expected: np.dtype[Any], type_name: str
) -> None:
    limits = np.iinfo(expected)
    outside = (array < limits.min) | (array > limits.max)
    if outside.any():
        _refuse(parameter, array, outside, f"{type_name} ({limits.min}..{limits.max})")


def _check_float_range(
    parameter: ModelInput,
    array: NDArray[Any],
    converted: NDArray[Any],
    largest: float,
    type_name: str,
) -> None:
    """inf where the source was finite: the value is beyond the target's largest float."""
    overflowed = np.isinf(converted)
    if array.dtype.kind == "f":
        overflowed &= np.isfinite(array)
    if overflowed.any():
        _refuse(parameter, array, overflowed, f"{type_name} (largest {largest:.6g})")


def _refuse(
    parameter: ModelInput, array: NDArray[Any], bad: NDArray[np.bool_], target: str
) -> NoReturn:
    first = int(np.flatnonzero(bad)[0])
    index = ",".join(str(int(i)) for i in np.unravel_index(first, array.shape))
    value = array.reshape(-1)[first].item()
    raise InputError(
        f"input {parameter.describe()}: value {value} at index [{index}] does not fit in "
        f"{target}; it is not cast"
    )


def _shape_detail(shape: Shape, given: tuple[int, ...]) -> str:
    if shape.dims is None:
        return ""
    if len(shape.dims) != len(given):
        return f" (rank {len(given)}, expected rank {len(shape.dims)})"
    bad = [
        f"dim {i} is {n}, expected {d}"
        for i, (d, n) in enumerate(zip(shape.dims, given, strict=True))
        if not d.admits(n)
    ]
    return " (" + "; ".join(bad) + ")"
