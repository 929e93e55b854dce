"""Dimensions as OpenVINO intervals, and shapes that may have a dynamic rank.

Text forms follow OpenVINO's own printing: `5`, `?`, `1..10`, `..7`, `4..`; a shape prints
as `[1,3,?,1..10]`, a dynamic rank as `[...]`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Dim:
    """The interval [low, high]; `high is None` means unbounded, `low > high` empty."""

    low: int
    high: int | None

    @staticmethod
    def static(value: int) -> Dim:
        known = _STATIC_DIMS.get(value)
        return Dim(value, value) if known is None else known

    @staticmethod
    def dynamic() -> Dim:
        return Dim(0, None)

    @property
    def is_static(self) -> bool:
        return self.low == self.high

    def admits(self, length: int) -> bool:
        """Whether the interval holds `length`."""
        return self.low <= length and (self.high is None or self.high >= length)

    def overlap(self, other: Dim) -> Dim | None:
        """The lengths both dims admit (OpenVINO's Dimension::merge), None when none."""
        if other is self and (self.high is None or self.low <= self.high):
            return self  # made once (`Dim.static`): the same object on both sides is common
        low = max(self.low, other.low)
        highs = [high for high in (self.high, other.high) if high is not None]
        high = min(highs) if highs else None
        return None if high is not None and low > high else Dim(low, high)

    @property
    def value(self) -> int:
        """The static length; only valid when `is_static`."""
        if self.high != self.low:
            raise ValueError(f"dimension {self} is not static")
        return self.low

    def __repr__(self) -> str:
        return f"Dim({self})"

    def __str__(self) -> str:
        if self.is_static:
            return str(self.low)
        if self.high is None:
            return "?" if self.low == 0 else f"{self.low}.."
        if self.low > self.high:  # empty (a Slice's ends crossed): OpenVINO prints it so
            return "?"
        return f"..{self.high}" if self.low == 0 else f"{self.low}..{self.high}"


# The lengths shapes hold most, made once: a Dim costs 0.5 µs to make (frozen).
_STATIC_DIMS = {length: Dim(length, length) for length in range(1025)}


@dataclass(frozen=True, slots=True)
class Shape:
    """`dims is None` means the rank itself is unknown."""

    dims: tuple[Dim, ...] | None

    @staticmethod
    def dynamic() -> Shape:
        return Shape(None)

    @staticmethod
    def of(*values: int) -> Shape:
        known = _STATIC_DIMS.get
        return Shape(tuple([known(v) or Dim(v, v) for v in values]))

    @property
    def rank(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    @property
    def is_static(self) -> bool:
        return self.dims is not None and all([d.low == d.high for d in self.dims])

    def values(self) -> tuple[int, ...]:
        """Static lengths; only valid when `is_static`."""
        if self.dims is None:
            raise ValueError("shape has a dynamic rank")
        lows = tuple([d.low for d in self.dims])  # lists, not generators: a run asks often
        if lows != tuple([d.high for d in self.dims]):
            return tuple(d.value for d in self.dims)  # raises, naming the first dynamic dim
        return lows

    def __iter__(self) -> Iterator[Dim]:
        return iter(self.dims or ())

    def __len__(self) -> int:
        return len(self.dims or ())

    def __getitem__(self, index: int) -> Dim:
        if self.dims is None:
            raise IndexError("shape has a dynamic rank")
        return self.dims[index]

    def __repr__(self) -> str:
        return f"Shape({self})"

    def __str__(self) -> str:
        if self.dims is None:
            return "[...]"
        return "[" + ",".join(str(d) for d in self.dims) + "]"

    def contains(self, concrete: tuple[int, ...]) -> bool:
        """Whether a concrete shape fits this (possibly dynamic) shape."""
        if self.dims is None:
            return True
        if len(concrete) != len(self.dims):
            return False
        for dim, length in zip(self.dims, concrete, strict=True):
            if length < dim.low or (dim.high is not None and length > dim.high):
                return False
        return True
