"""Stage 4: NumPy execution, by job.

- `plan`: the execution plan, built once per model; `fold`: its one constant-folding pass;
  `run`: one run (bind, re-infer a dynamic model, compute); `bind`: inputs matched to
  Parameters and checked; `memory`: what a run needs and whether it fits.
- `registry`: op class -> kernel (`@kernel_for`); `kernels/`: one module per op, each its
  NumPy kernel; `engine/`: the NumPy machinery kernels share that knows no op (the block
  loop and its threads, scratch, pooling strategies, measured costs).
"""
