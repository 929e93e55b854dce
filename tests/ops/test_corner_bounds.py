"""Bounds of FloorMod and Subtract as OpenVINO evaluates them (at the corners), and Pad and
Slice reading bounded pads, starts and stops: the cases
docs/shape-values.md#bounds-of-floormod-and-subtract-the-corners states (measured
with OpenVINO 2026.4.1's read_model); the live comparison is
tests/differential/test_shape_bounds.py."""

from __future__ import annotations

import pytest

from irpool.ops.arithmetic import Binary, FloorMod1, Subtract1
from irpool.ops.base import TensorInfo
from irpool.ops.concat import Concat1
from irpool.ops.pad import Pad12, padded
from irpool.ops.slice import Slice8, slice_length
from irpool.shape import Shape
from tests.ops.inferring import const, data, infer, parse, pick, shape_of

MAX = (1 << 63) - 1
MIN = -(1 << 63)
FLOOR_MOD = FloorMod1({"auto_broadcast": "numpy"})
SUBTRACT = Subtract1({"auto_broadcast": "numpy"})


def dim_of(text: str) -> TensorInfo:
    """A ShapeOf piece: the dim `text` as a 1-element tensor known by its bounds."""
    return pick(shape_of(text), [0])


def bounds(info: TensorInfo) -> tuple[int, int]:
    if info.value is not None:
        (value,) = info.value.tolist()
        return value, value
    assert info.bounds is not None
    (low,), (high,) = info.bounds.lower, info.bounds.upper
    return low, high


def apply(op: Binary, left: TensorInfo, right: TensorInfo) -> TensorInfo:
    (result,) = infer(op, left, right)
    return result


@pytest.mark.parametrize(
    ("op", "first", "dim", "second", "expected"),
    [  # (first op second), "h" standing for the dim; what read_model bounds
        (FLOOR_MOD, "h", "5..9", 2, (1, 1)),
        (FLOOR_MOD, "h", "10..20", 2, (0, 0)),
        (FLOOR_MOD, "h", "5..6", 2, (0, 1)),
        (FLOOR_MOD, "h", "5..9", 7, (2, 5)),
        (FLOOR_MOD, "h", "8..13", 7, (1, 6)),
        (FLOOR_MOD, "h", "3..", 2, (0, MAX)),
        (FLOOR_MOD, 5, "0..3", "h", (MIN, 2)),
        (FLOOR_MOD, -5, "2..3", "h", (1, 1)),
        (SUBTRACT, 2, "5..9", "h", (-7, -3)),
        (SUBTRACT, "h", "0..3", 2, (-2, 1)),
        (SUBTRACT, "h", "3..", 2, (0, MAX)),
    ],
)
def test_bounds_at_the_corners(
    op: Binary, first: int | str, dim: str, second: int | str, expected: tuple[int, int]
) -> None:
    def operand(item: int | str) -> TensorInfo:
        return dim_of(dim) if item == "h" else const([item])

    assert bounds(apply(op, operand(first), operand(second))) == expected


@pytest.mark.parametrize(
    ("window", "dim", "expected"),
    [(2, "0..6", (0, 0)), (7, "8..13", (1, 6)), (2, "1..", (0, MAX)), (7, "5", (2, 2))],
)
def test_swin_window_pad(window: int, dim: str, expected: tuple[int, int]) -> None:
    """(w - h % w) % w: exact where the corners agree, though odd h in 0..6 pads by 1."""
    w = const([window])
    inner = apply(SUBTRACT, w, apply(FLOOR_MOD, dim_of(dim), w))
    assert bounds(apply(FLOOR_MOD, inner, w)) == expected


def test_a_floor_mod_by_zero_of_constants_has_bounds_but_no_value() -> None:
    """The run computes its own (the CPU kernel's); shape inference reads the reference's."""
    result = apply(FLOOR_MOD, const([5]), const([0]))
    assert result.value is None and result.bounds is not None
    assert (result.bounds.lower, result.bounds.upper) == ((MIN,), (MIN,))


@pytest.mark.parametrize(
    ("dim", "begin", "end", "expected"),
    [
        ("4", (1, MAX), (0, 0), "5.."),
        ("4", (0, MAX), (0, 0), "4.."),
        ("2..5", (1, 3), (0, 0), "3..8"),
        ("4", (-3, -1), (0, 0), "1..3"),
        ("4", (-6, -3), (0, 0), "..1"),
        ("4", (-5, -5), (0, 0), "?"),
        ("2..5", (1, 1), (-3, -3), "..3"),
        ("1..", (0, 0), (0, MAX), "1.."),
        ("8", (-1, 1), (1, -1), "8"),
    ],
)
def test_padded_by_bounds(
    dim: str, begin: tuple[int, int], end: tuple[int, int], expected: str
) -> None:
    (parsed,) = parse(dim)
    assert str(padded(parsed, begin, end)) == expected


def test_swin_t_pads_keep_the_dims() -> None:
    """Pads [0, pad_b, pad_r, 0] of windows 7 on `[?,1..,1..,96]` (swin_t's first stage)."""
    shape = shape_of("?,1..,1..,96")
    w = const([7])

    def window(axis: int) -> TensorInfo:
        inner = apply(SUBTRACT, w, apply(FLOOR_MOD, pick(shape, [axis]), w))
        return apply(FLOOR_MOD, inner, w)

    (ends,) = infer(Concat1({"axis": 0}), const([0]), window(1), window(2), const([0]))
    pad = Pad12({"pad_mode": "constant"})
    (out,) = infer(pad, data("?,1..,1..,96"), const([0, 0, 0, 0]), ends)
    assert str(out.shape) == "[?,1..,1..,96]"


@pytest.mark.parametrize(
    ("dim", "start", "stop", "step", "expected"),
    [
        ("1..", (0, 0), (1, MAX), 1, "1.."),
        ("10", (0, 0), (2, 5), 1, "2..5"),
        ("10", (-2, 2), (100, 100), 1, "1..10"),
        ("2..10", (-2, 2), (100, 100), 1, "1..10"),
        ("10", (3, 3), (3, 3), 1, "0"),
    ],
)
def test_sliced_by_bounds(
    dim: str, start: tuple[int, int], stop: tuple[int, int], step: int, expected: str
) -> None:
    (parsed,) = parse(dim)
    assert str(slice_length(parsed, start, stop, step)) == expected


def test_a_crop_to_shape_of_pieces_keeps_the_dims() -> None:
    """swin_t's `x[:, :H, :W, :]` after its window padding."""
    original = shape_of("?,1..,1..,96")
    (stop,) = infer(Concat1({"axis": 0}), pick(original, [1]), pick(original, [2]))
    padded_data = data("?,1..,1..,96")
    (out,) = infer(Slice8({}), padded_data, const([0, 0]), stop, const([1, 1]), const([1, 2]))
    assert str(out.shape) == "[?,1..,1..,96]"


def test_a_slice_whose_ends_cross_is_empty_and_printed_as_openvino_prints_it() -> None:
    """[-1:3:2] of 3..7: one element at 3, none at 7; read_model prints `?`, the CPU sizes
    the output as empty and refuses a run that slices an element
    (docs/shape-values.md#bounds-of-floormod-and-subtract-the-corners)."""
    (dim,) = parse("3..7")
    empty = slice_length(dim, (-1, -1), (3, 3), 2)
    assert str(empty) == "?" and (empty.low, empty.high) == (1, 0)
    assert not Shape((empty,)).contains((1,))
