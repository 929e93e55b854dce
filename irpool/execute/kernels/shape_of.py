"""ShapeOf on NumPy arrays: the input's shape, in the op's output type (the CPU plugin holds
i64 as int32, which a shape's sizes fit)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.shape_of import ShapeOf1, ShapeOf3


@kernel_for(ShapeOf1, ShapeOf3)
def run_shape_of(
    op: ShapeOf1 | ShapeOf3, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    return [np.array(inputs[0].shape, outputs[0].dtype)]
