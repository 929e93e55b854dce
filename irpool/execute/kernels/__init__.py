"""One module per op: the NumPy function that runs it, registered with `@kernel_for`.

The registry (`irpool.execute.registry`) imports every module here on its first lookup.
NumPy machinery that knows no op (block loop, scratch, pooling strategies) is
`irpool.execute.engine`.
"""
