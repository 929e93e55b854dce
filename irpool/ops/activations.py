"""ReLU-1, Sigmoid-1, Swish-4, HSwish-4, HSigmoid-5, Floor-1, Gelu-2, Gelu-7, Elu-1, PReLU-1
and Round-5: one tensor in (PReLU: and its slope), the shape and element type out, element by
element.

What OpenVINO 2026.4 refuses (measured by building each op on every element type,
docs/elementwise.md): a boolean input for every one of them; Swish also any
input that is not floating point, and a `beta` that is not a scalar of the data's type; Gelu
any input that is not floating point. Elu, PReLU and Round take every type, boolean too, PReLU a
slope of any shape and type (the CPU's refusal of a slope it cannot apply is IR632). The
kernels are in irpool.execute.kernels.activations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from irpool.ops.base import Attr, AttrType, LayerContext, Op, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.folding import folded
from irpool.ops.registry import register

if TYPE_CHECKING:
    from numpy.typing import NDArray


class Activation(Op):
    """The unary ops' shared checks; subclasses name the op and, when it folds integer
    constants exactly (shape arithmetic), how."""

    version = 1
    opsets = range(1, 17)
    input_names: ClassVar[tuple[str, ...]] = ("data",)
    # The formula, for `irpool explain`.
    formula: ClassVar[str]

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        if data.type.is_boolean:
            raise ShapeError("This operation does not support input with element type: boolean")
        value = folded(data, lambda array: self.fold_constant([array]))
        return [TensorInfo(data.type, data.shape, value)]

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        """Integer constants fold exactly, as OpenVINO's reference does (the CPU kernel
        computes them in f32); floats fold with the kernel."""
        if inputs[0].dtype.kind not in "iu":
            return None
        return self.fold_integers(inputs[0])

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        """The formula, element by element: no axis is windowed."""
        return Explanation(f"element by element: {self.formula}", [])

    def fold_integers(self, values: NDArray[Any]) -> NDArray[Any] | None:
        """The exact value OpenVINO's constant folding gives for integer constants; None:
        not folded at check time (planning a run folds it with the kernel)."""
        return None


@register
class Relu1(Activation):
    type_name = "ReLU"  # as the serializer writes it (the op itself is named Relu)
    formula = "max(x, 0)"

    def fold_integers(self, values: NDArray[Any]) -> NDArray[Any] | None:
        import numpy as np

        positive: NDArray[Any] = np.maximum(values, values.dtype.type(0))
        return positive


@register
class Sigmoid1(Activation):
    type_name = "Sigmoid"
    formula = "1 / (1 + exp(-x))"
    # The plan's decision (irpool.cpu.product_activations): NumPy's exp after BLAS's sums.
    after_blas_product = False


@register
class HSwish4(Activation):
    type_name = "HSwish"
    version = 4
    opsets = range(4, 17)
    formula = "x * min(max(x / 6 + 0.5, 0), 1)"


@register
class HSigmoid5(Activation):
    type_name = "HSigmoid"
    version = 5
    opsets = range(5, 17)
    formula = "min(max(x + 3, 0), 6) / 6"


@register
class Floor1(Activation):
    type_name = "Floor"
    formula = "floor(x)"

    def fold_integers(self, values: NDArray[Any]) -> NDArray[Any] | None:
        return values  # an integer is its own floor


@register
class Swish4(Activation):
    """Swish-4: x * sigmoid(beta * x), `beta` an optional scalar input (default 1)."""

    type_name = "Swish"
    version = 4
    opsets = range(4, 17)
    input_names = ("data", "beta")
    optional_inputs = 1
    formula = "x * sigmoid(beta * x)"
    # The CPU's decision (irpool.cpu.compilation): beta known only when run, which its
    # reference kernel computes.
    beta_at_run_time = False
    # The plan's decision (irpool.cpu.product_activations): NumPy's exp after BLAS's sums.
    after_blas_product = False

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        if len(inputs) > 1:
            beta = inputs[1]
            if beta.element_type != data.element_type:
                raise ShapeError(
                    f"Swish inputs must have the same type but they are: "
                    f"{data.element_type} and {beta.element_type}"
                )
            if beta.shape.rank is not None and beta.shape.rank != 0:
                raise ShapeError(
                    f"Swish input with beta must be scalar but it has rank: {beta.shape.rank}"
                )
        if not data.type.is_float and not data.type.is_dynamic:
            raise ShapeError(
                f"Swish input tensor must be floating point type({data.element_type})."
            )
        return [TensorInfo(data.type, data.shape)]


@register
class Gelu2(Activation):
    """Gelu-2 (opset2-6): x * Phi(x), Phi the normal distribution's, through erf; Gelu-7
    (opset7-16) adds `approximation_mode`, ERF (the default) or TANH."""

    type_name = "Gelu"
    version = 2
    opsets = range(2, 7)
    formula = "x * Phi(x)"
    formulas: ClassVar[dict[str, str]] = {
        "ERF": "0.5 * x * (1 + erf(x / sqrt(2)))",
        "TANH": "0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))",
    }

    @property
    def approximation(self) -> str:
        return "ERF"

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        if not (data.type.is_float or data.type.is_dynamic):
            raise ShapeError(
                f"Argument element type must be f16, bf16, f32, f64 or dynamic "
                f"(got {data.element_type})."
            )
        return [TensorInfo(data.type, data.shape)]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f"element by element: {self.formulas[self.approximation]}", [])


@register
class Gelu7(Gelu2):
    version = 7
    opsets = range(7, 17)
    attributes = (
        Attr("approximation_mode", AttrType.ENUM, default="ERF", choices=("ERF", "TANH")),
    )

    @property
    def approximation(self) -> str:
        mode: str = self.attrs["approximation_mode"]
        return mode


@register
class Elu1(Activation):
    """Elu-1: x where x > 0, else alpha * (exp(x) - 1); `alpha` absent reads as 0."""

    type_name = "Elu"
    attributes = (Attr("alpha", AttrType.FLOAT, default=0.0),)
    formula = "x if x > 0 else alpha * (exp(x) - 1)"

    @property
    def alpha(self) -> float:
        alpha: float = self.attrs["alpha"]
        return alpha

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        return [TensorInfo(inputs[0].type, inputs[0].shape)]  # every type, boolean too


@register
class PRelu1(Activation):
    """PReLU-1: slope * x where x < 0, else x (NaN and -0 pass); how the CPU applies the slope
    is irpool.cpu.prelu_slope's."""

    type_name = "PReLU"  # as the serializer writes it (the op itself is named PRelu)
    input_names = ("data", "slope")
    formula = "slope * x if x < 0 else x"

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        return [TensorInfo(inputs[0].type, inputs[0].shape)]  # read_model checks no slope


@register
class Round5(Activation):
    """Round-5 (opset5-16): to the nearest integer, ties to even or away from zero by `mode`
    (absent: half_to_even). Every type, boolean too; an integer is its own rounding."""

    type_name = "Round"
    version = 5
    opsets = range(5, 17)
    attributes = (
        Attr(
            "mode",
            AttrType.ENUM,
            default="half_to_even",
            choices=("half_to_even", "half_away_from_zero"),
        ),
    )
    formula = "round(x), ties by mode"

    @property
    def mode(self) -> str:
        mode: str = self.attrs["mode"]
        return mode

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        data = inputs[0]
        value = data.value if data.type.is_integer or data.type.is_boolean else None
        return [TensorInfo(data.type, data.shape, value)]
