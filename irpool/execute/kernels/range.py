"""Range on NumPy arrays, as OpenVINO 2026.4's CPU plugin computes it when start, stop or
step are known only at run time (measured, docs/ops/Range.md; constants are folded by
OpenVINO's reference rules instead, `Range4.fold_constant`):

- in f32 when the output or any input is a float (integers wrapped to int32, f64 saturated),
  else in int32, inputs and stop - start wrapped (i64 2**31 - 3 to 2**31 + 2 has 5 elements);
- the size is `Range4.run_size`: ceil(|stop - start| / |step|), the step's sign not compared
  with the direction, so start 5, stop 0, step 1 gives 5, 6, 7, 8, 9;
- the elements are accumulated, each the one before plus step (in f32 the rounding errors
  add up: -12 by -0.7 reaches -14.099999 where -12 + 3 * -0.7 is -14.1; 16777216 by 1 stays
  16777216), on one thread (the differential's INFERENCE_NUM_THREADS 1; on several each
  thread's first element is start + i * step, so the CPU's own values depend on its threads);
- stored as the f32 results of other ops are (rounded to nearest into int32, wrapped, 8-bit
  types saturated; f64 and f16 cast); int32 results wrapped, 8-bit types saturated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from irpool.cpu.numerics import f32_operand, stored_from_f32_product
from irpool.element_types import element_type
from irpool.execute.errors import ExecutionError
from irpool.execute.memory import affordable
from irpool.execute.registry import OutputSpec, kernel_for
from irpool.ops.range import Range4

# Output types whose CPU results are not a range (measured: bf16, i4, f8, nf4 hold garbage).
_COMPUTED = ("f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")


@kernel_for(Range4)
def run_range(
    op: Range4, inputs: Sequence[NDArray[Any]], outputs: Sequence[OutputSpec]
) -> list[NDArray[Any] | None]:
    if op.output_type not in _COMPUTED:
        raise ExecutionError(f"a Range to {op.output_type}: the CPU plugin's values are no range")
    dtype = element_type(op.output_type).dtype
    assert dtype is not None
    size = op.run_size(inputs)
    if not affordable(size * 8):
        raise ExecutionError(f"a Range of {size} elements does not fit in memory")
    if op.uses_f32(inputs):
        start, _, step = (f32_operand(a) for a in inputs)
        terms = np.full(size, step, np.float32)
        with np.errstate(over="ignore", invalid="ignore"):  # an infinite step: no elements
            terms[:1] = start + np.float32(0) * step  # start + 0 * step: -0 gives 0
            return [stored_from_f32_product(np.add.accumulate(terms, dtype=np.float32), dtype)]
    first, _, stride = (np.int64(a.astype(np.int32)) for a in inputs)
    counted = (first + np.arange(size, dtype=np.int64) * stride).astype(np.int32)
    if dtype.itemsize == 1:
        info = np.iinfo(dtype)
        return [np.clip(counted, info.min, info.max).astype(dtype)]
    return [counted.astype(dtype)]
