"""Stage 4: NumPy execution.

`runner` plans a run once per model (`plan_execution`) and executes it; `kernels` is the
registry op class -> kernel (`@kernel_for`), filled by the kernel modules here on the first
lookup; `bind` checks and binds inputs; `memory` refuses runs that would not fit. Kernels:
`avg_pool` (choosing among the strategies `whole`, `sliding`, `matmul`, with `direct` for
non-finite planes, all run by `driver`) and `adaptive_avg_pool`.
"""
