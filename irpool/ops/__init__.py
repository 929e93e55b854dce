"""One module per op; each registers its versions with `irpool.ops.registry.register`."""
