"""Element types: every type an IR file may name, and what irpool knows of each (its bits,
its kind, the NumPy dtype that holds it exactly, and the one irpool holds its values in).

NumPy has no bf16, so irpool holds bf16 values as f32, each rounded to the nearest bf16
(ties to even): `held_dtype` is f32 and `hold` rounds. Every other type NumPy holds is held
as itself; low-bit and 8-bit float types (u1-u6, i4, f8*, f4e2m1, nf4) NumPy cannot hold
one value per element: a Const of one is decoded when a run needs it (irpool/low_bit.py), for
a Convert only; irpool runs no input of them and no Convert to them.

NumPy is imported on first use, not with this module: validating a model without constants
never needs it, and its import is half of `irpool validate`'s start-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


class Kind(Enum):
    FLOAT = "float"
    SIGNED = "signed integer"
    UNSIGNED = "unsigned integer"
    BOOLEAN = "boolean"
    STRING = "string"  # of no fixed width
    DYNAMIC = "dynamic"  # any type, decided by the runtime


@dataclass(frozen=True)
class ElementType:
    name: str  # as IR v11 writes it: "f32"
    bits: int  # per element (dynamic: 0)
    kind: Kind
    numpy_name: str | None  # the NumPy dtype holding it exactly; None: NumPy has none
    held_name: str | None  # the NumPy dtype irpool holds its values in; None: none

    @property
    def is_float(self) -> bool:
        return self.kind is Kind.FLOAT

    @property
    def is_integer(self) -> bool:
        return self.kind in (Kind.SIGNED, Kind.UNSIGNED)

    @property
    def is_boolean(self) -> bool:
        return self.kind is Kind.BOOLEAN

    @property
    def is_dynamic(self) -> bool:
        return self.kind is Kind.DYNAMIC

    @property
    def is_held_float(self) -> bool:
        """A float type irpool holds in NumPy: f16, bf16, f32, f64."""
        return self.is_float and self.held_name is not None

    @property
    def rounds_when_held(self) -> bool:
        """Whether irpool holds the values in a wider dtype, rounded to this type (bf16)."""
        return self.held_name != self.numpy_name

    @cached_property
    def dtype(self) -> np.dtype[Any] | None:
        """The NumPy dtype that holds the type exactly, or None."""
        return _dtype(self.numpy_name)

    @cached_property
    def held_dtype(self) -> np.dtype[Any] | None:
        """The NumPy dtype irpool holds the values in (bf16: f32), or None."""
        return _dtype(self.held_name)

    @cached_property
    def largest(self) -> float:
        """The largest finite value of a float type irpool holds (bf16: f32's exponent range
        with 8 significant bits)."""
        import numpy as np

        if self.rounds_when_held:
            return float(np.uint32(0x7F7F0000).view(np.float32))
        assert self.dtype is not None and self.is_float, f"{self.name} has no largest float"
        return float(np.finfo(self.dtype).max)

    def decode(self, raw: memoryview, count: int) -> NDArray[Any] | None:
        """`count` little-endian elements of `raw` as irpool holds them (bf16 widens exactly
        to f32); None when NumPy holds no such element."""
        import numpy as np

        if self.rounds_when_held:
            halves = np.frombuffer(raw, dtype="<u2", count=count)
            widened: NDArray[Any] = (halves.astype(np.uint32) << 16).view(np.float32)
            return widened
        if self.dtype is None:
            return None
        return np.frombuffer(raw, dtype=self.dtype, count=count)

    def hold(self, values: NDArray[Any]) -> NDArray[Any]:
        """`values`, in `held_dtype`, as irpool holds this type: bf16 rounded to nearest
        even (kept as f32; a bf16 value stays as it is, and a NaN bf16 does not hold keeps its
        top 16 bits, made quiet); every other type as it is."""
        if not self.rounds_when_held:
            return values
        import numpy as np

        bits = np.array(values, dtype=np.float32, order="C").view(np.uint32)  # keeps 0-D
        rounding = np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
        held = (bits + rounding) & np.uint32(0xFFFF0000)
        # Rounding would carry a NaN's low payload into inf (or wrap 0x7FFFFFFF to -0): the
        # CPU's f32 -> bf16 Convert keeps the sign and top payload and sets the quiet bit.
        infinite_exponent = (bits & np.uint32(0x7F800000)) == np.uint32(0x7F800000)
        nan = infinite_exponent & ((bits & np.uint32(0xFFFF)) != 0)
        if nan.any():
            quiet = (bits & np.uint32(0xFFFF0000)) | np.uint32(0x400000)
            held = np.where(nan, quiet, held)
        rounded: NDArray[Any] = held.view(np.float32)
        return rounded


def _dtype(name: str | None) -> np.dtype[Any] | None:
    if name is None:
        return None
    import numpy as np

    return np.dtype(name)


def _type(name: str, bits: int, kind: Kind, numpy_name: str | None = None) -> ElementType:
    return ElementType(name, bits, kind, numpy_name, numpy_name)


_F, _S, _U = Kind.FLOAT, Kind.SIGNED, Kind.UNSIGNED
ELEMENT_TYPES: dict[str, ElementType] = {
    t.name: t
    for t in (
        _type("f32", 32, _F, "<f4"), _type("f16", 16, _F, "<f2"), _type("f64", 64, _F, "<f8"),
        ElementType("bf16", 16, _F, None, "<f4"),
        _type("i4", 4, _S), _type("i8", 8, _S, "i1"), _type("i16", 16, _S, "<i2"),
        _type("i32", 32, _S, "<i4"), _type("i64", 64, _S, "<i8"),
        _type("u1", 1, _U), _type("u4", 4, _U), _type("u8", 8, _U, "u1"),
        _type("u16", 16, _U, "<u2"), _type("u32", 32, _U, "<u4"), _type("u64", 64, _U, "<u8"),
        _type("boolean", 8, Kind.BOOLEAN, "?"), _type("dynamic", 0, Kind.DYNAMIC),
        # Packed in a Const (count, offsets, characters); a string Parameter loads and compiles
        # (measured), the ops that cannot take strings say so themselves.
        _type("string", 0, Kind.STRING),
        # Read by OpenVINO 2026.4 for Parameter, Const and Convert (measured, docs/ops/Convert.md);
        # NumPy holds none of them: irpool/low_bit.py decodes a Const of one for a Convert.
        _type("f8e4m3", 8, _F), _type("f8e5m2", 8, _F), _type("f8e8m0", 8, _F),
        _type("f4e2m1", 4, _F), _type("nf4", 4, _F), _type("u2", 2, _U), _type("u3", 3, _U),
        _type("u6", 6, _U),
    )
}  # fmt: skip
# Names for the rules about one type (the runtime's per-type code paths and defaults); what
# a type is (kind, bits, dtype, bf16 held as f32) comes from its ElementType.
F16, F32, F64, BF16 = "f16", "f32", "f64", "bf16"
I8, I16, I32, I64 = "i8", "i16", "i32", "i64"
U8, U16, U32, U64 = "u8", "u16", "u32", "u64"
BOOLEAN, DYNAMIC, STRING = "boolean", "dynamic", "string"
# The port precisions OpenVINO's serializer writes (and BIN, an old name of u1): type names.
PRECISIONS: dict[str, str] = {
    "FP32": "f32", "FP16": "f16", "BF16": "bf16", "FP64": "f64", "I4": "i4", "I8": "i8",
    "I16": "i16", "I32": "i32", "I64": "i64", "U1": "u1", "BIN": "u1", "U4": "u4", "U8": "u8",
    "U16": "u16", "U32": "u32", "U64": "u64", "BOOL": "boolean", "UNSPECIFIED": "dynamic",
    "STRING": "string", "F8E4M3": "f8e4m3", "F8E5M2": "f8e5m2", "F8E8M0": "f8e8m0",
    "F4E2M1": "f4e2m1", "NF4": "nf4", "U2": "u2", "U3": "u3", "U6": "u6",
}  # fmt: skip
# The integer types irpool reads axes, patterns and sizes in: every signed and unsigned type
# of 1, 4 or 8 to 64 bits; not u2, u3 and u6 (weight-compression types, which irpool holds no
# value of either).
_INTEGER_INPUT_BITS = (1, 4, 8, 16, 32, 64)
INTEGER_INPUT_TYPES = frozenset(
    t.name for t in ELEMENT_TYPES.values() if t.is_integer and t.bits in _INTEGER_INPUT_BITS
)
# Element types the CPU plugin compiles no model input and no Convert to (measured).
CPU_UNCOMPILED_TYPES = frozenset({"u3", "u6"})


def element_type(name: str) -> ElementType:
    """The element type of this name (one `read_element_type` accepted)."""
    return ELEMENT_TYPES[name]


def takes_integer_input(type_name: str) -> bool:
    """Whether an input of this type passes as axes, a pattern or a size: an integer type
    irpool reads, or dynamic (of any type, decided by the runtime)."""
    return type_name in INTEGER_INPUT_TYPES or type_name == DYNAMIC


def of_dtype(dtype: np.dtype[Any]) -> ElementType | None:
    """The element type NumPy's `dtype` holds exactly (f32 for float32, never bf16), if any."""
    return next((t for t in ELEMENT_TYPES.values() if t.dtype == dtype), None)
