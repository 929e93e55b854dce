"""What an op module declares: its attributes (once, for every version), shape inference
(with the attribute fixes its findings carry) and its `irpool explain` rows. Its kernel lives
in execute/.

An op family (AvgPool) is one module with one class per op version (AvgPool-1, -14, -16).
Every class lists the family's full attribute table; `Attr.since` tells which version
introduced an attribute and `Attr.choice_since` which version introduced an enum value, so
the generic attribute checker can say "dilations belongs to AvgPool-16" without op code.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Self

from irpool.element_types import ElementType
from irpool.graph.weights import WeightsProblem
from irpool.parse.floats import float_text
from irpool.rules import SHAPE_INFERENCE_FAILED, Code
from irpool.shape import Shape

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from irpool.ops.bounds import Bounds
    from irpool.ops.explanation import Explanation

KNOWN_OPSETS = range(1, 18)  # opset1 .. opset17 exist in OpenVINO 2026.4


class Role(Enum):
    """What a layer is to the runner."""

    INPUT = "input"  # bound to a value the caller gives (Parameter)
    CONSTANT = "constant"  # its value is known at check time (Const)
    OUTPUT = "output"  # returns its one input to the caller (Result)
    COMPUTED = "computed"  # run by its kernel (see irpool.execute.registry)
    # Run by its kernel on every run, never folded: it reads or writes a variable that an
    # infer request carries from one run to the next (ReadValue, Assign).
    VARIABLE = "variable"


class AttrType(Enum):
    UINT_LIST = "list of unsigned integers"
    INT_LIST = "list of integers"
    UINT = "unsigned integer"
    INT = "integer"
    FLOAT = "64-bit floating-point number"
    FLOAT32 = "32-bit floating-point number"
    FLOAT32_LIST = "list of 32-bit floating-point numbers"
    BOOL = "boolean"
    ENUM = "enum"
    ELEMENT_TYPE = "element type"
    SHAPE = "shape"
    STRING = "string"  # any text, as written (an equation, a variable_id)


@dataclass(frozen=True, slots=True)
class Attr:
    """One `<data>` attribute as the runtime reads it.

    `default` is what the runtime silently uses when the attribute is absent. `required`
    marks attributes the specification requires (missing: an error naming the default);
    `mandatory` marks those the runtime itself refuses to do without. `replaced_when` names
    another attribute's values under which the runtime computes this one itself (auto_pad
    same_upper replaces the pads), so a value it would misread is never used. `neutral_item`
    is the list item that changes nothing (dilation 1): versions before `since` ignore the
    attribute, so a value made only of it is harmless there. `default_effect` says what the
    default does, where that surprises (Clamp without max clamps into [min, 0]).
    """

    name: str
    type: AttrType
    default: Any = None
    required: bool = False
    mandatory: bool = False
    choices: tuple[str, ...] = ()
    choice_since: Mapping[str, int] = field(default_factory=dict)
    since: int = 1
    min_value: int | None = None
    replaced_when: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    neutral_item: int | None = None
    # What the default does when the attribute is absent, where that is a trap.
    default_effect: str = ""

    def describe_default(self) -> str:
        if isinstance(self.default, tuple):
            return '"' + ",".join(str(v) for v in self.default) + '"' if self.default else "empty"
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if isinstance(self.default, float):
            return f'"{float_text(self.default)}"'
        return f'"{self.default}"'


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """What flows along an edge at check time: type, shape and, for constants, the value."""

    type: ElementType
    shape: Shape
    value: NDArray[Any] | None = None
    # Taken from the file's declaration, not inferred: no fix is ever made from it.
    trusted: bool = False
    # irpool may know less of this tensor than OpenVINO does: its value (None here: a Const
    # whose bytes are unavailable, a constant irpool does not fold, a trusted layer's output)
    # and its non-static dims (a trusted layer's -1, a port without <dim>) may be known to
    # the runtime. What depends on them is unknown, never dynamic: it contradicts no
    # declaration (docs/shape-values.md#unknown-is-not-dynamic).
    unknown: bool = False
    # The element type OpenVINO's serializer writes on this tensor's ports when it is not
    # `element_type`: a decompression Convert's f32 output is written with its f16 input's.
    written_as: str | None = None
    # A Const of no elements in an empty .bin: OpenVINO gives it no data pointer, and the
    # shape inference that reads its values (axes) refuses a null one.
    unbacked: bool = False
    # What OpenVINO knows of a non-constant integer tensor's values (a shape subgraph's):
    # per-element lower and upper values (irpool/ops/bounds.py).
    bounds: Bounds | None = None
    # A low-bit Const's bytes as the `.bin` packs them (irpool/low_bit.py): decoded when a
    # run needs the value, not when checking.
    packed: memoryview | None = None

    @property
    def element_type(self) -> str:
        """The type's name, as the IR writes it."""
        return self.type.name


class ShapeError(Exception):
    """The runtime's own shape inference would fail; `code` is the rule to report."""

    def __init__(
        self,
        message: str,
        code: Code = SHAPE_INFERENCE_FAILED,
        attribute: str | None = None,
        *,
        about_file: bool = False,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.attribute = attribute
        # The model's files cannot give the layer what it reads (its weights): one problem
        # of the file, however many layers it stops.
        self.about_file = about_file


class NotInferable(Exception):
    """An input is only known by its declaration, so the layer's outputs are trusted too."""


def read_value(info: TensorInfo, name: str) -> NDArray[Any] | None:
    """The value of an input that shape inference reads (a pattern, axes, a size): None when
    it is computed at run time, so the runtime does not know it either; NotInferable when
    irpool does not know it but the runtime may (the layer's declared outputs then stand)."""
    if info.value is None and info.unknown:
        raise NotInferable(f"{name} has a value irpool does not know")
    return info.value


@dataclass(frozen=True, slots=True)
class OpReport:
    """A finding of an op's checks. `attribute`: the one it is about; `fix`: the value of
    that attribute which says what the runtime really uses (what `irpool validate --fix`
    writes), given only when certain: from tensors irpool inferred, never from a port's
    claim. `about_file`: the model's files cannot give the layer what it reads (its weights),
    one problem of the file however many layers it stops."""

    code: Code
    message: str
    attribute: str | None = None
    fix: str | None = None
    about_file: bool = False


class LayerContext:
    """What an op sees of its layer while it is checked: findings go back through `report`.

    `present` names the attributes the layer writes; `used_outputs` holds the indices of the
    outputs some layer reads (OpenVINO computes, and may fail on, only those); `at_run_time`:
    the values are a run's inputs, so the checks the runtime makes only then apply too."""

    def __init__(
        self,
        present: frozenset[str],
        report: Callable[[OpReport], None],
        load_weights: Callable[[int, int], memoryview | WeightsProblem],
        used_outputs: frozenset[int] = frozenset(),
        *,
        at_run_time: bool = False,
    ) -> None:
        self.present = present
        self.used_outputs = used_outputs
        self.at_run_time = at_run_time
        self._report = report
        self._load = load_weights

    def report(
        self,
        code: Code,
        message: str,
        attribute: str | None = None,
        *,
        fix: str | None = None,
        about_file: bool = False,
    ) -> None:
        self._report(OpReport(code, message, attribute, fix, about_file))

    def read_weights(self, offset: int, size: int) -> memoryview | WeightsProblem:
        """The bytes of a Const, or why they cannot be read."""
        return self._load(offset, size)


class Op:
    """Base class of one op version. Subclasses declare the ClassVars and override methods."""

    type_name: ClassVar[str]
    version: ClassVar[int]
    opsets: ClassVar[range]
    attributes: ClassVar[tuple[Attr, ...]] = ()
    # Attributes that the specification shows but the runtime never reads.
    ignored_attributes: ClassVar[tuple[str, ...]] = ()
    input_names: ClassVar[tuple[str, ...]] = ()
    # How many trailing `input_names` a layer may leave out (Squeeze's `axes`); `infer` and
    # the kernel then get only the inputs present.
    optional_inputs: ClassVar[int] = 0
    output_count: ClassVar[int] = 1
    # Concat: any number of inputs (at least one), all named by its one `input_names` entry.
    variadic_inputs: ClassVar[bool] = False
    # VariadicSplit: as many outputs as its values say, `output_count` or more.
    variadic_outputs: ClassVar[bool] = False
    needs_data: ClassVar[bool] = False
    role: ClassVar[Role] = Role.COMPUTED
    # Whether the CPU plugin compiles the op on string data (measured: the shape ops and
    # Result do; pooling and reductions do not). Convert says so itself.
    takes_strings: ClassVar[bool] = False
    # Whether an output's size depends on the input values, not only on their shapes
    # (NonZero): a run learns it only by computing the layer.
    sized_by_values: ClassVar[bool] = False
    # Whether `infer` reads nothing of its inputs but their types and shapes (ShapeOf,
    # MatMul): a run's shape inference remembers it by them alone (irpool/execute/reinfer.py).
    infers_from_shapes: ClassVar[bool] = False
    # Whether `infer` reads its inputs' values and bounds only when every input has one (the
    # binary ops: folding and bound arithmetic need both): where an input has neither, it is
    # remembered by the types and shapes alone, as `infers_from_shapes` says.
    reads_values_of_all: ClassVar[bool] = False
    # Whether its outputs' types and shapes follow from its first input's type and shape (and
    # its constants) whatever that input's values (Convert, Unsqueeze): where only steps that
    # infer from shapes read its outputs, a run remembers it by them (irpool/execute/reinfer.py).
    shaped_by_data_shape: ClassVar[bool] = False

    def __init__(self, attrs: Mapping[str, Any]) -> None:
        self.attrs = dict(attrs)
        # What its kernel prepared for this layer (per input shape and dtype): it lives as long
        # as the op, so as long as its model, and no longer (irpool/execute/registry.py).
        self.kernel_cache: dict[Hashable, Any] = {}

    def __copy__(self) -> Self:
        """A copy (`for_layer`'s) prepares its own kernel inputs: it shares no kernel cache."""
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__dict__)
        copied.kernel_cache = {}
        return copied

    @classmethod
    def label(cls) -> str:
        return f"{cls.type_name}-{cls.version}"

    @classmethod
    def own_attributes(cls) -> tuple[Attr, ...]:
        return tuple(a for a in cls.attributes if a.since <= cls.version)

    def infer(self, inputs: Sequence[TensorInfo], ctx: LayerContext) -> list[TensorInfo]:
        """Output types and shapes; raises ShapeError where the runtime would fail."""
        raise NotImplementedError

    def for_layer(self, inputs: Sequence[TensorInfo]) -> Op:
        """This op as one layer runs it, given its inputs as checking inferred them from the
        model: itself, or (layers share ops) a copy holding what its kernel needs of them
        (what the CPU plugin decides for the layer: irpool.cpu.compilation)."""
        return self

    def explain(
        self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo]
    ) -> Explanation | None:
        """The op's section in `irpool explain` (settings and a row per spatial axis), given
        the tensors its layer consumes (None: unknown) and produces; None: no section."""
        return None

    def fold_constant(self, inputs: Sequence[NDArray[Any]]) -> NDArray[Any] | None:
        """The one output OpenVINO's constant folding computes from these constant inputs (as
        the file writes them), for an op whose folding differs from the CPU plugin's kernel;
        None: the kernel's result is the folded value (irpool/execute/fold.py)."""
        return None
