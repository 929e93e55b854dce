"""The kinds of conformance case (tools/gen_conformance.py): a model, a description and how to
make its inputs; the single-op cases named after their attributes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from corpus import Array, case_rng
from ov_builders import (
    ELEMENT_TYPES,
    adaptive_avg_pool,
    adaptive_name,
    avg_pool,
    avg_pool_name,
    join,
    opset1,
    opset8,
    output_size_const,
    ov,
    parameter,
    result,
)


def random_input(rng: np.random.Generator, shape: Sequence[int], element_type: str) -> Array:
    """normal(0, 1) for floats; small integers for integer types, so that .5 means are common."""
    dtype = ELEMENT_TYPES[element_type]
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(tuple(shape)).astype(dtype)
    low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -10
    return rng.integers(low, low + 21, size=tuple(shape)).astype(dtype)


ValuesFn = Callable[[np.random.Generator], dict[str, Array]]


@dataclass(frozen=True)
class Case:
    """A model, a description and how to make its inputs.

    Parameters not in ``values`` get ``random_input`` data of the shape in ``input_shapes``
    (required for non-static Parameters) or of their static shape. ``cpu_deviation`` says why
    the CPU output departs from the op semantics irpool implements (index.json:
    ``known_cpu_deviation``; tests should expect a mismatch there).
    """

    name: str
    description: str
    builder: Callable[[str], ov.Model]
    input_shapes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    values: ValuesFn | None = None
    notes: tuple[str, ...] = ()
    cpu_deviation: str = ""

    def build(self) -> ov.Model:
        return self.builder(self.name)

    def make_inputs(self, model: ov.Model) -> dict[str, Array]:
        rng = case_rng(self.name)
        fixed = self.values(rng) if self.values is not None else {}
        inputs: dict[str, Array] = {}
        for param in model.get_parameters():
            name = param.get_friendly_name()
            if name in fixed:
                inputs[name] = fixed[name]
                continue
            partial = param.get_output_partial_shape(0)
            if name in self.input_shapes:
                shape = self.input_shapes[name]
                if not partial.compatible(ov.PartialShape(list(shape))):
                    raise ValueError(f"{self.name}: input shape {shape} is not within {partial}")
            elif partial.is_static:
                shape = tuple(partial.to_shape())
            else:
                raise ValueError(f"{self.name}: Parameter {name!r} is {partial}; give a shape")
            element_type = param.get_element_type().get_type_name()
            inputs[name] = random_input(rng, shape, element_type)
        return inputs


def avg_pool_case(
    version: int,
    shape: str,
    kernel: Sequence[int],
    strides: Sequence[int],
    pads_begin: Sequence[int] | None = None,
    pads_end: Sequence[int] | None = None,
    *,
    auto_pad: str = "explicit",
    rounding: str = "floor",
    exclude_pad: bool = True,
    dilations: Sequence[int] | None = None,
    element_type: str = "f32",
    tag: str = "",
    input_shape: tuple[int, ...] | None = None,
    values: ValuesFn | None = None,
    notes: tuple[str, ...] = (),
    cpu_deviation: str = "",
) -> Case:
    """Parameter "in" -> AvgPool "pool" -> Result "out".

    The name is derived from the attributes, e.g. ``avgpool14_r4_same_upper_ceil_torch_excl``,
    followed by the dilations, a non-f32 element type and the free-form ``tag``.
    """
    name = avg_pool_name(
        version, kernel, auto_pad, rounding, exclude_pad, dilations, element_type, tag
    )

    pads = ""
    if auto_pad == "explicit" or pads_begin is not None or pads_end is not None:
        declared = "" if auto_pad == "explicit" else "declared "
        zeros = [0] * len(kernel)
        pads = f" {declared}pads {join(pads_begin or zeros)}/{join(pads_end or zeros)}"
    description = (
        f"AvgPool-{version} {element_type} [{shape}] k{join(kernel)} s{join(strides)}"
        + (f" d{join(dilations)}" if dilations is not None else "")
        + f"{pads} {auto_pad} {rounding} exclude-pad={str(exclude_pad).lower()}"
        + (f", input {list(input_shape)}" if input_shape is not None else "")
    )

    def build(model_name: str) -> ov.Model:
        data = parameter("in", shape, element_type)
        pool = avg_pool(
            "pool",
            data,
            version,
            kernel,
            strides,
            pads_begin,
            pads_end,
            auto_pad=auto_pad,
            rounding=rounding,
            exclude_pad=exclude_pad,
            dilations=dilations,
        )
        return ov.Model([result("out", pool)], [data], model_name)

    input_shapes = {"in": input_shape} if input_shape is not None else {}
    return Case(name, description, build, input_shapes, values, notes, cpu_deviation)


def adaptive_case(
    shape: str,
    output_size: Sequence[int],
    index_type: str = "i64",
    *,
    element_type: str = "f32",
    tag: str = "",
    input_shape: tuple[int, ...] | None = None,
    notes: tuple[str, ...] = (),
) -> Case:
    """Parameter "in" + Const "output_size" -> AdaptiveAvgPool "pool" -> Result "out"."""
    name = adaptive_name(output_size, index_type, element_type, tag)
    description = (
        f"AdaptiveAvgPool-8 {element_type} [{shape}] -> output_size Const {index_type} "
        f"{list(output_size)}" + (f", input {list(input_shape)}" if input_shape is not None else "")
    )

    def build(model_name: str) -> ov.Model:
        data = parameter("in", shape, element_type)
        size = output_size_const("output_size", output_size, index_type)
        pool = adaptive_avg_pool("pool", data, size)
        return ov.Model([result("out", pool)], [data], model_name)

    input_shapes = {"in": input_shape} if input_shape is not None else {}
    return Case(name, description, build, input_shapes, None, notes)


def fixed_values(**arrays: Array) -> ValuesFn:
    """Inputs given literally instead of drawn at random."""
    return lambda _rng: dict(arrays)


def reduce_case(
    op: str,
    shape: str,
    axes: Sequence[int] | int,
    keep_dims: bool,
    *,
    element_type: str = "f32",
    tag: str = "",
    input_shape: tuple[int, ...] | None = None,
) -> Case:
    """Parameter "in" + Const "axes" (i64; an int is a scalar) -> ReduceMean/ReduceMax "reduce"
    -> Result "out"."""
    written = str(axes) if isinstance(axes, int) else f"[{','.join(map(str, axes))}]"
    parts = [op.lower(), f"r{len(ov.PartialShape(shape))}", f"axes{written.strip('[]') or 'none'}"]
    parts += ["keep"] if keep_dims else []
    parts += [element_type] if element_type != "f32" else []
    parts += [tag] if tag else []
    name = "_".join(parts).replace(",", "_").replace("-", "m")
    description = (
        f"{op}-1 {element_type} [{shape}] axes {written} keep_dims={str(keep_dims).lower()}"
        + (f", input {list(input_shape)}" if input_shape is not None else "")
    )
    builders = {"ReduceMean": opset1.reduce_mean, "ReduceMax": opset1.reduce_max}

    def build(model_name: str) -> ov.Model:
        data = parameter("in", shape, element_type)
        values = np.array(axes, dtype=np.int64)
        constant = (
            opset1.constant(values, name="axes")
            if values.size
            else ov.op.Constant(ov.Type.i64, ov.Shape([0]), [])
        )
        node = builders[op](data, constant, keep_dims, name="reduce")
        return ov.Model([result("out", node)], [data], model_name)

    input_shapes = {"in": input_shape} if input_shape is not None else {}
    return Case(name, description, build, input_shapes)


def adaptive_max_case(
    shape: str,
    output_size: Sequence[int],
    *,
    element_type: str = "f32",
    with_indices: bool = True,
    tag: str = "",
    input_shape: tuple[int, ...] | None = None,
) -> Case:
    """Parameter "in" + Const "output_size" (i32) -> AdaptiveMaxPool "pool" (i32 indices, the
    only kind the CPU plugin compiles) -> Results "values" and, with_indices, "indices"."""
    parts = ["adaptivemax8", f"r{len(output_size) + 2}", f"to{join(output_size)}"]
    parts += [element_type] if element_type != "f32" else []
    parts += [] if with_indices else ["values_only"]
    parts += [tag] if tag else []
    description = (
        f"AdaptiveMaxPool-8 {element_type} [{shape}] -> output_size {list(output_size)}, "
        + ("values and i32 indices" if with_indices else "values only")
        + (f", input {list(input_shape)}" if input_shape is not None else "")
    )

    def build(model_name: str) -> ov.Model:
        data = parameter("in", shape, element_type)
        size = output_size_const("output_size", output_size, "i32")
        pool = opset8.adaptive_max_pool(data, size, index_element_type="i32", name="pool")
        results = [result("values", pool.output(0))]
        if with_indices:
            results.append(result("indices", pool.output(1)))
        return ov.Model(results, [data], model_name)

    input_shapes = {"in": input_shape} if input_shape is not None else {}
    return Case("_".join(parts), description, build, input_shapes)


# What the frontends write for global and adaptive max pooling (issue #12).
