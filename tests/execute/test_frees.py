"""When a run frees each intermediate tensor."""

from __future__ import annotations

import pytest

from irpool.execute.fold import Ref
from irpool.execute.frees import frees_by_step

A: Ref = ("a", 0)
B: Ref = ("b", 0)
B1: Ref = ("b", 1)
C: Ref = ("c", 0)
WEIGHTS: Ref = ("w", 0)


@pytest.mark.parametrize(
    ("reads", "makes", "never_freed", "expected"),
    [
        # a chain: each tensor goes after the step that reads it
        ([[], [A], [B]], [[A], [B], [C]], {C}, [(), (A,), (B,)]),
        # two readers: freed after the last one only
        ([[], [A], [A, B]], [[A], [B], [C]], {C}, [(), (), (A, B)]),
        # a constant and a Result's source stay
        ([[WEIGHTS], [A, WEIGHTS]], [[A], [B]], {WEIGHTS, B}, [(), (A,)]),
        # an output no step reads goes after the step that makes it
        ([[], [A]], [[A], [B, B1]], {B}, [(), (A, B1)]),
    ],
)
def test_each_tensor_is_freed_after_its_last_reader(
    reads: list[list[Ref]],
    makes: list[list[Ref]],
    never_freed: set[Ref],
    expected: list[tuple[Ref, ...]],
) -> None:
    assert frees_by_step(reads, makes, never_freed) == expected
