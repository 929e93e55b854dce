"""What each op is: one module per op family, each registering its versions with
`irpool.ops.registry.register` (the registry imports every module here, so no list to edit).

An op declares its attributes, infers its outputs (`infer`, whose reports may carry the
attribute value `--fix` writes), and describes itself to `irpool explain` (`explain`); see
`base.Op`. Shared pieces:
`pooling_geometry` (window and adaptive-box arithmetic, also used by the kernels) and
`pooling` (what the sliding-window pooling ops share). Nothing here imports
`irpool.execute`: kernels live there and register themselves for op classes.
"""
