"""ReadValue-3/6 and Assign-3/6 (opset3-16): a variable that an infer request carries from one
run to the next. ReadValue gives the variable's value (before the first Assign, its
initializer's), Assign stores its input as the variable's value for the next run and passes it
on. Each names its variable by `variable_id`.

What OpenVINO 2026.4 does (measured, docs/ops/ReadValue.md): ReadValue-3 needs its
initializer ("index '0' out of range" without one) and the variable takes its type and shape.
ReadValue-6 declares `variable_type` and `variable_shape` (absent: dynamic; both dynamic
with an initializer: the initializer's) and its output has them; they must relax the
initializer's ("The type specified in the Variable has to extend (relax) the type inferred
from the initializing subgraph."). Without an initializer the first value is zeros, a dynamic
dim 0. A ReadValue without `variable_id` kills read_model (SIGSEGV). What the pairs must agree
on is checked across layers (irpool/check/variables.py); what the CPU refuses in
irpool/cpu/refusals.py (IR602, IR640). The kernels are in irpool.execute.kernels.variables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from irpool.element_types import DYNAMIC, ELEMENT_TYPES
from irpool.ops.base import Attr, AttrType, LayerContext, Op, Role, ShapeError, TensorInfo
from irpool.ops.explanation import Explanation
from irpool.ops.registry import register
from irpool.shape import Dim, Shape

_VARIABLE_ID = Attr("variable_id", AttrType.STRING, default="", mandatory=True)


def relaxes(wide: Shape, narrow: Shape) -> bool:
    """OpenVINO's PartialShape::relaxes: every length `narrow` admits, `wide` admits."""
    if wide.dims is None:
        return True
    if narrow.dims is None or len(wide.dims) != len(narrow.dims):
        return False
    return all(_dim_relaxes(w, n) for w, n in zip(wide.dims, narrow.dims, strict=True))


def _dim_relaxes(wide: Dim, narrow: Dim) -> bool:
    if wide.low > narrow.low:
        return False
    return wide.high is None or (narrow.high is not None and narrow.high <= wide.high)


def compatible(first: Shape, second: Shape) -> bool:
    """OpenVINO's PartialShape::compatible: some concrete shape fits both."""
    if first.dims is None or second.dims is None:
        return True
    if len(first.dims) != len(second.dims):
        return False
    return all(a.overlap(b) is not None for a, b in zip(first.dims, second.dims, strict=True))


def first_value_shape(shape: Shape) -> tuple[int, ...]:
    """The shape of the zeros a ReadValue without initializer starts from: a dynamic dim is
    0 (measured: variable_shape "?,2" starts as a [0,2] tensor)."""
    return tuple(dim.low if dim.is_static else 0 for dim in shape)


class ReadValueBase(Op):
    """What both ReadValue versions share: the variable they read, never folded."""

    type_name = "ReadValue"
    role = Role.VARIABLE
    takes_strings = True
    input_names: ClassVar[tuple[str, ...]] = ("init",)

    @property
    def variable_id(self) -> str:
        variable_id: str = self.attrs["variable_id"]
        return variable_id

    def variable(self, inputs: Sequence[TensorInfo]) -> TensorInfo:
        """The variable's type and shape, as this layer declares them."""
        raise NotImplementedError

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        start = "its initializer" if inputs else "zeros"
        return Explanation(f'variable "{self.variable_id}"; before any Assign, {start}', [])


@register
class ReadValue3(ReadValueBase):
    """ReadValue-3: the variable's type and shape are its initializer's."""

    version = 3
    opsets = range(3, 6)
    attributes = (_VARIABLE_ID,)

    def variable(self, inputs: Sequence[TensorInfo]) -> TensorInfo:
        return TensorInfo(inputs[0].type, inputs[0].shape)

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        return [self.variable(inputs)]


@register
class ReadValue6(ReadValueBase):
    """ReadValue-6: `variable_type` and `variable_shape` declare the variable; the
    initializer is optional."""

    version = 6
    opsets = range(6, 17)
    optional_inputs = 1
    attributes = (
        _VARIABLE_ID,
        Attr("variable_type", AttrType.ELEMENT_TYPE, default=DYNAMIC),
        Attr("variable_shape", AttrType.SHAPE, default=Shape.dynamic()),
    )

    def variable(self, inputs: Sequence[TensorInfo]) -> TensorInfo:
        """The variable's type and shape: as declared, or its initializer's when the layer
        declares them wholly dynamic (type dynamic and shape `...`, or both absent), as the
        tokenizers openvino_tokenizers writes do (measured)."""
        declared_type = ELEMENT_TYPES[self.attrs["variable_type"]]
        declared = TensorInfo(declared_type, self.attrs["variable_shape"])
        if inputs and declared.element_type == DYNAMIC and declared.shape.dims is None:
            return TensorInfo(inputs[0].type, inputs[0].shape)
        return declared

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        variable = self.variable(inputs)
        if inputs:
            init = inputs[0]
            if variable.type.name != DYNAMIC and variable.type != init.type:
                raise ShapeError(
                    "The type specified in the Variable has to extend (relax) the type "
                    "inferred from the initializing subgraph. Variable type: "
                    f"{variable.element_type} Initialization type: {init.element_type}"
                )
            # An initializer's dims irpool does not know may be the runtime's: not refused.
            hidden = init.unknown and not init.shape.is_static
            if not hidden and not relaxes(variable.shape, init.shape):
                raise ShapeError(
                    "The shape specified in the Variable has to extend (relax) the shape "
                    f"inferred from the initializing subgraph. Variable shape: {variable.shape} "
                    f"Initialization shape: {init.shape}"
                )
        if ctx.at_run_time:  # the value a run starts from: the initializer's, or zeros
            start = inputs[0].shape if inputs else Shape.of(*first_value_shape(variable.shape))
            return [TensorInfo(variable.type, start)]
        return [variable]


class AssignBase(Op):
    """Assign: stores its input as the variable's next value and passes it on."""

    type_name = "Assign"
    role = Role.VARIABLE
    takes_strings = True
    attributes = (_VARIABLE_ID,)
    input_names: ClassVar[tuple[str, ...]] = ("new_value",)
    # The type the CPU holds the variable in as a KV cache (u8 or f16) and its token axis:
    # set per layer by irpool.cpu.kv_cache, which then gives the Assign this step's K or V
    # (what the cache joins) as a second input; None: stored as computed.
    cache_type: str | None = None
    cache_axis = -2

    @property
    def variable_id(self) -> str:
        variable_id: str = self.attrs["variable_id"]
        return variable_id

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        return [TensorInfo(inputs[0].type, inputs[0].shape)]

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        return Explanation(f'the next value of variable "{self.variable_id}"', [])


@register
class Assign3(AssignBase):
    """Assign-3: pairs only with a ReadValue-3 of its variable."""

    version = 3
    opsets = range(3, 6)


@register
class Assign6(AssignBase):
    """Assign-6: pairs with a ReadValue-3 or -6 of its variable."""

    version = 6
    opsets = range(6, 17)
