"""NumPy machinery the kernels share, knowing no op: the block loop over N×C planes and its
threads, per-thread scratch buffers, the pooling strategies (`whole`, `sliding`, `matmul`,
`direct` for non-finite planes), window arrays, and every measured constant (`costs`)."""
