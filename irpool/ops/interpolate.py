"""Interpolate-1 (opset1-3), Interpolate-4 (opset4-10), Interpolate-11 (opset11-16): `data`
resized along `axes`, to `sizes` or by `scales`, after zero padding by `pads_begin`/`pads_end`.

What OpenVINO 2026.4 checks (measured, docs/ops/Interpolate.md): `data` of f32, f16, bf16,
f64, i8, u8, i64 or i32 (-4, -11: "Input element type must be f32, f16, bf16, f64, i8, u8,
i64, i32"); sizes of i32, i64, u32 or u64 ("Sizes element type must be i32, i64, u32 or
u64"), scales of f32, f16 or bf16, axes of i32, i64, u32 or u64; Interpolate-1's output
shape integral ("output shape must be an integral number."); the sizes or scales (and
axes) inputs 1-D ("Input [1] is not rank 1"); each axis below the rank ("All axes values
should less than input rank: 4"; a negative one counts as huge); at least one size or scale
per axis ("The number of elements in the 'sizes' input does not match the number of axes
2"). The pads are cut or filled with zeros to the rank. A scaled dim is
floor(float32(dim) * (scale + 1e-6)) unless the scale is 1, on each end of an interval;
sizes are read by their bounds, so a size from a shape subgraph keeps its interval. Sizes
or scales known only at run time make those dims dynamic. What the CPU refuses is in
irpool/cpu/refusals.py (IR623-IR625); the kernel is irpool.execute.kernels.interpolate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from irpool.element_types import BF16, DYNAMIC, F16, F32, F64, I8, I32, I64, U8, U32, U64
from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo, read_value
from irpool.ops.bounds import bounds_of
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

MODES = ("nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow")
PILLOW = ("bilinear_pillow", "bicubic_pillow")
COORDINATE_MODES = (
    "half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners",
)  # fmt: skip
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
DATA_TYPES = frozenset({F32, F16, BF16, F64, I8, U8, I64, I32, DYNAMIC})
SIZE_TYPES = frozenset({I32, I64, U32, U64, DYNAMIC})
SCALE_TYPES = frozenset({F32, F16, BF16, DYNAMIC})
# Added to every scale other than 1 before a dim is scaled (in float32).
SCALE_EPSILON = 1e-6

V1_ATTRIBUTES = (
    Attr("axes", AttrType.UINT_LIST, default=(), required=True),
    Attr("mode", AttrType.ENUM, choices=("nearest", "linear", "cubic", "area", "linear_onnx"),
         default="nearest", required=True,
         default_effect="OpenVINO reads an empty mode, which the CPU plugin cannot compile"),
    Attr("align_corners", AttrType.BOOL, default=True),
    Attr("antialias", AttrType.BOOL, default=False),
    Attr("pads_begin", AttrType.UINT_LIST, default=()),
    Attr("pads_end", AttrType.UINT_LIST, default=()),
)  # fmt: skip
ATTRIBUTES = (
    Attr("mode", AttrType.ENUM, choices=MODES, default="nearest", required=True,
         choice_since={"bilinear_pillow": 11, "bicubic_pillow": 11}),
    Attr("shape_calculation_mode", AttrType.ENUM, choices=("sizes", "scales"), default="sizes",
         required=True),
    Attr("coordinate_transformation_mode", AttrType.ENUM, choices=COORDINATE_MODES,
         default="half_pixel"),
    Attr("nearest_mode", AttrType.ENUM, choices=NEAREST_MODES, default="round_prefer_floor"),
    Attr("antialias", AttrType.BOOL, default=False),
    Attr("pads_begin", AttrType.UINT_LIST, default=()),
    Attr("pads_end", AttrType.UINT_LIST, default=()),
    Attr("cube_coeff", AttrType.FLOAT, default=-0.75),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class CpuResize:
    """What the CPU plugin's Interpolate node runs: Interpolate-1 and the -11 modes -4 has
    arrive converted to Interpolate-4, and -4's `linear` below rank 5 runs as `linear_onnx`."""

    mode: str
    coordinate: str
    nearest_mode: str
    cube_coeff: float
    antialias: bool
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]


def fitted(pads: Sequence[int], rank: int) -> tuple[int, ...]:
    """Pads cut or filled with zeros to the rank, as OpenVINO corrects them."""
    return tuple(pads[:rank]) + (0,) * max(rank - len(pads), 0)


def scaled(dim: Dim, scale: float) -> Dim:
    """A dim scaled as OpenVINO's shape inference scales it (each end in float32)."""
    import numpy as np  # a known scale is a NumPy value already

    scale32 = np.float32(scale)
    if scale32 == 1:
        return dim

    def end(length: int) -> int:
        with np.errstate(all="ignore"):
            product = np.float32(length) * (scale32 + np.float32(SCALE_EPSILON))
        if not np.isfinite(product) or product < 0 or product >= 2.0**63:
            return 0
        return int(product)

    return Dim(end(dim.low), None if dim.high is None else end(dim.high))


class Interpolate(Op):
    type_name = "Interpolate"
    # The input holding the sizes and the one holding the scales (the same in -11).
    sizes_input: ClassVar[int] = 1
    scales_input: ClassVar[int] = 1

    def pads(self, rank: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return fitted(self.attrs["pads_begin"], rank), fitted(self.attrs["pads_end"], rank)

    def shape_pads(self, rank: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The pads shape inference adds to the input."""
        return self.pads(rank)

    def by_scales(self) -> bool:
        return bool(self.attrs.get("shape_calculation_mode") == "scales")

    def axes_of(self, inputs: Sequence[TensorInfo], rank: int) -> list[int] | None:
        """The resized axes (checked against the rank); None when known only at run time."""
        raise NotImplementedError

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        self.check_types(inputs)
        if data.shape.dims is None:
            return [TensorInfo(data.type, Shape.dynamic())]
        rank = len(data.shape.dims)
        axes = self.axes_of(inputs, rank)
        if axes is None:
            return [TensorInfo(data.type, Shape((Dim.dynamic(),) * rank))]
        begin, end = self.shape_pads(rank)
        dims = [_padded(d, b + e) for d, b, e in zip(data.shape.dims, begin, end, strict=True)]
        if self.by_scales():
            scales = read_value(inputs[self.scales_input], "scales")
            if scales is not None:
                _check_count("scales", scales.size, len(axes))
                for axis, scale in zip(axes, scales.ravel(), strict=False):
                    dims[axis] = scaled(dims[axis], float(scale))
            else:
                for axis in axes:
                    dims[axis] = Dim.dynamic()
            return [TensorInfo(data.type, Shape(tuple(dims)))]
        sizes = self.sizes_of(inputs[self.sizes_input])
        if sizes is not None:
            _check_count("sizes", len(sizes), len(axes))
        for position, axis in enumerate(axes):
            dims[axis] = Dim.dynamic() if sizes is None else sizes[position]
        return [TensorInfo(data.type, Shape(tuple(dims)))]

    def sizes_of(self, info: TensorInfo) -> list[Dim] | None:
        read_value(info, "sizes")
        bounds = bounds_of(info)
        return None if bounds is None else [_size_dim(d) for d in bounds.dims()]

    def check_types(self, inputs: Sequence[TensorInfo]) -> None:
        raise NotImplementedError

    def cpu_form(self, rank: int) -> CpuResize:
        """The resize the CPU plugin runs for an input of this rank."""
        mode = self.attrs["mode"]
        if mode == "linear" and rank < 5:
            mode = "linear_onnx"
        coordinate = self.attrs["coordinate_transformation_mode"]
        if mode in PILLOW:
            coordinate = "tf_half_pixel_for_nn"
        begin, end = self.pads(rank)
        return CpuResize(
            mode, coordinate, self.attrs["nearest_mode"], float(self.attrs["cube_coeff"]),
            bool(self.attrs["antialias"]), begin, end,
        )  # fmt: skip

    def run_geometry(
        self, shape: Sequence[int], inputs: Sequence[Any]
    ) -> tuple[list[int], list[float]]:
        """Each axis's output length and float32 scale for a run (sizes mode and Pillow:
        the output over the padded input; scales mode: the given scale)."""
        import numpy as np

        rank = len(shape)
        infos = [TensorInfo(_info_type(v), Shape.of(*np.shape(v)), np.asarray(v)) for v in inputs]
        axes = self.axes_of([TensorInfo(_info_type(np.zeros(0)), Shape.of(*shape)), *infos], rank)
        assert axes is not None
        begin, end = self.pads(rank)
        padded = [n + b + e for n, b, e in zip(shape, begin, end, strict=True)]
        sizes, scales = list(padded), [1.0] * rank
        given = None
        if self.by_scales():
            given = np.asarray(inputs[self.scales_input - 1], np.float32).ravel()
        else:
            wanted = np.asarray(inputs[self.sizes_input - 1]).ravel()
        for position, axis in enumerate(axes):
            if given is not None:
                scale = np.float32(given[position])
                sizes[axis] = scaled(Dim.static(padded[axis]), float(scale)).low
            else:
                sizes[axis] = int(wanted[position])
                scale = np.float32(sizes[axis]) / np.float32(padded[axis])
            if self.attrs["mode"] in PILLOW:
                scale = np.float32(sizes[axis]) / np.float32(padded[axis])
            scales[axis] = float(scale)
        return sizes, scales

    def resized_axes(self, inputs: Sequence[TensorInfo]) -> list[int] | None:
        """The axes whose scale is not 1 (as the CPU plugin computes it: the scale given, or
        the size over the padded dim); None when irpool does not know them."""
        import numpy as np

        data = inputs[0]
        if data.shape.dims is None or any(info.value is None for info in inputs[1:]):
            return None
        rank = len(data.shape.dims)
        try:
            axes = self.axes_of(inputs, rank)
        except ShapeError:
            return None
        if axes is None:
            return None
        if self.by_scales():
            scales = inputs[self.scales_input].value
            assert scales is not None
            pairs = zip(axes, scales.ravel(), strict=False)
            return [axis for axis, scale in pairs if np.float32(scale) != 1]
        begin, end = self.pads(rank)
        if not all(dim.is_static for dim in data.shape.dims):
            return None
        padded = [d.value + b + e for d, b, e in zip(data.shape.dims, begin, end, strict=True)]
        sizes = inputs[self.sizes_input].value
        assert sizes is not None
        return [axis for axis, n in zip(axes, sizes.ravel(), strict=False) if n != padded[axis]]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        how = self.attrs["mode"]
        if "coordinate_transformation_mode" in self.attrs:
            how += f" ({self.attrs['coordinate_transformation_mode']}"
            how += f", {self.attrs['nearest_mode']})" if how.startswith("nearest") else ")"
        if len(outputs) and outputs[0].shape.dims is not None:
            return Explanation(f"{how} resize to {outputs[0].shape}", [])
        return Explanation(f"{how} resize, by sizes or scales given at run time", [])


def _padded(dim: Dim, pad: int) -> Dim:
    if pad == 0:
        return dim
    return Dim(dim.low + pad, None if dim.high is None else dim.high + pad)


def _size_dim(dim: Dim) -> Dim:
    """A size as a dim: -1 dynamic, other negatives 0 (as OpenVINO reads them)."""
    if dim.low == -1 and dim.high == -1:
        return Dim.dynamic()
    return Dim(max(dim.low, 0), None if dim.high is None else max(dim.high, 0))


def _check_count(name: str, count: int, axes: int) -> None:
    if count < axes:
        raise ShapeError(
            f"The number of elements in the '{name}' input does not match the number of axes {axes}"
        )


def _check_axes(axes: Sequence[int], rank: int) -> None:
    if any(axis < 0 or axis >= rank for axis in axes):
        raise ShapeError(f"All axes values should less than input rank: {rank}")


def _check_rank_1(info: TensorInfo, port: int) -> None:
    if info.shape.rank is not None and info.shape.rank != 1:
        raise ShapeError(f"Input [{port}] is not rank 1")


def _info_type(value: Any) -> Any:
    import numpy as np

    from irpool.element_types import of_dtype

    return of_dtype(np.asarray(value).dtype)


class InterpolateBase(Interpolate):
    """Interpolate-4 and -11: attributes in one table, axes from the optional last input."""

    attributes = ATTRIBUTES
    axes_input: ClassVar[int]

    def axes_of(self, inputs: Sequence[TensorInfo], rank: int) -> list[int] | None:
        if len(inputs) <= self.axes_input:
            return list(range(rank))
        value = read_value(inputs[self.axes_input], "axes")
        if value is None:
            return None
        axes = [int(v) for v in value.ravel()]
        _check_axes(axes, rank)
        return axes

    def check_data_type(self, data: TensorInfo) -> None:
        if data.element_type not in DATA_TYPES:
            raise ShapeError("Input element type must be f32, f16, bf16, f64, i8, u8, i64, i32")

    def check_axes_type(self, inputs: Sequence[TensorInfo]) -> None:
        if len(inputs) > self.axes_input and inputs[self.axes_input].element_type not in SIZE_TYPES:
            raise ShapeError("Axes element type must be i32, i64, u32 or u64")


def _check_sizes_type(info: TensorInfo) -> None:
    if info.element_type not in SIZE_TYPES:
        raise ShapeError("Sizes element type must be i32, i64, u32 or u64")


def _check_scales_type(info: TensorInfo) -> None:
    if info.element_type not in SCALE_TYPES:
        raise ShapeError("Scales element type must be f32, f16 or bf16")


@register
class Interpolate1(Interpolate):
    """Interpolate-1: inputs `data` and `output_shape` (the sizes of `axes`, an attribute)."""

    version = 1
    opsets = range(1, 4)
    attributes = V1_ATTRIBUTES
    input_names: ClassVar[tuple[str, ...]] = ("data", "output_shape")

    def shape_pads(self, rank: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """None: Interpolate-1's shape inference ignores its pads."""
        return (0,) * rank, (0,) * rank

    def check_types(self, inputs: Sequence[TensorInfo]) -> None:
        if not inputs[1].type.is_integer and inputs[1].element_type != DYNAMIC:
            raise ShapeError("output shape must be an integral number.")

    def axes_of(self, inputs: Sequence[TensorInfo], rank: int) -> list[int] | None:
        axes = sorted(set(self.attrs["axes"]))  # an AxisSet: sorted, repeats merged
        _check_axes(axes, rank)
        return axes

    def cpu_form(self, rank: int) -> CpuResize:
        """As OpenVINO's ConvertInterpolate1ToInterpolate4 rewrites it for the plugin."""
        mode = self.attrs["mode"]
        if mode == "linear":
            mode = "linear_onnx" if rank < 5 else "linear"
        begin, end = self.pads(rank)
        coordinate = "asymmetric"
        if self.attrs["align_corners"]:
            coordinate = "align_corners"
        elif (
            mode in ("linear", "linear_onnx")
            and not any(begin + end)
            and not (rank == 4 and sorted(set(self.attrs["axes"])) == [2, 3])
        ):
            coordinate = "half_pixel"
        return CpuResize(
            mode, coordinate, "simple", -0.75, bool(self.attrs["antialias"]), begin, end
        )


@register
class Interpolate4(InterpolateBase):
    """Interpolate-4: inputs `data`, `sizes`, `scales` and, optionally, `axes`."""

    version = 4
    opsets = range(4, 11)
    input_names: ClassVar[tuple[str, ...]] = ("data", "sizes", "scales", "axes")
    optional_inputs = 1
    scales_input = 2
    axes_input = 3

    def check_types(self, inputs: Sequence[TensorInfo]) -> None:
        self.check_data_type(inputs[0])
        _check_sizes_type(inputs[1])
        _check_scales_type(inputs[2])
        self.check_axes_type(inputs)
        _check_rank_1(inputs[2 if self.by_scales() else 1], 2 if self.by_scales() else 1)
        if len(inputs) > 3:
            _check_rank_1(inputs[3], 3)


@register
class Interpolate11(InterpolateBase):
    """Interpolate-11: inputs `data`, `scales_or_sizes` and, optionally, `axes`."""

    version = 11
    opsets = range(11, 17)
    input_names: ClassVar[tuple[str, ...]] = ("data", "scales_or_sizes", "axes")
    optional_inputs = 1
    axes_input = 2

    def check_types(self, inputs: Sequence[TensorInfo]) -> None:
        self.check_data_type(inputs[0])
        (_check_scales_type if self.by_scales() else _check_sizes_type)(inputs[1])
        self.check_axes_type(inputs)
        for port, info in enumerate(inputs[1:], 1):
            _check_rank_1(info, port)
