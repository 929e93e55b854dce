"""Write the .bin weight files and .npy inputs of the example IRs (deterministic; rerun to rebuild).

Each .bin holds the single Const of its .xml (an adaptive pool's `output_size`, or a
reduction's `axes`) at offset 0.
`broken/missing_bin.xml` has deliberately no .bin.

    python examples/make_bins.py
"""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

# .bin path (relative to examples/) -> Const contents
BINS = {
    "valid/adaptive_avg_pool8_4d.bin": np.array([7, 5], dtype=np.int64),
    "valid/adaptive_avg_pool8_3d.bin": np.array([8], dtype=np.int32),
    "valid/adaptive_avg_pool8_5d.bin": np.array([2, 3, 4], dtype=np.int64),
    "valid/chain_avgpool_adaptive.bin": np.array([4, 4], dtype=np.int64),
    "valid/adaptive_max_pool8_4d.bin": np.array([5, 3], dtype=np.int32),
    "valid/reduce_mean_global.bin": np.array([2, 3], dtype=np.int64),
    "valid/reduce_max_last_axis.bin": np.array(-1, dtype=np.int64),
    "spec/adaptive_avg_pool8.bin": np.array([16, 16], dtype=np.int64),
    "broken/adaptive_output_size_wrong_length.bin": np.array([4, 4, 4], dtype=np.int64),
    "broken/adaptive_avg_pool_spec_two_input_elements.bin": np.array([16, 16], dtype=np.int64),
}

# .npy inputs for `irpool run` (np.arange-based, float32)
INPUTS = {
    "valid/avgpool1_4d.input.npy": np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5),
    "valid/adaptive_avg_pool8_3d.input.npy": np.arange(5, dtype=np.float32).reshape(1, 1, 5),
    "valid/maxpool8_indices.input.npy": (np.arange(150) % 7).astype(np.float32).reshape(2, 3, 5, 5),
}


def main() -> None:
    for rel, values in BINS.items():
        (HERE / rel).write_bytes(values.astype(values.dtype.newbyteorder("<")).tobytes())
    for rel, array in INPUTS.items():
        np.save(HERE / rel, array)


if __name__ == "__main__":
    main()
