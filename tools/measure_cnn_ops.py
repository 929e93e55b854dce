"""Measure how OpenVINO reads, shapes and computes the op types of torchvision's CNN classifiers.

Run `python tools/measure_cnn_ops.py > measured.md`: every figure that
docs/measurements.md#the-cnn-classifier-measurements states is printed here as Markdown, measured on
the installed runtime
(`read_model` of edited IR files, the Python op builders for shape inference, and the CPU plugin
with INFERENCE_PRECISION_HINT=f32 for values). The CPU plugin picks its SIMD kernels per ISA:
re-run the script on another machine (an Intel Xeon with AVX-512) or OpenVINO release and compare.
`--golden DIR` also writes the golden vectors (tests/golden_cnn_ops/: index.json and one .npz
per case, inputs and the CPU's outputs); `--quick` skips the slow accuracy and 1e6-value runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from cnn_ops.attributes import attribute_section
from cnn_ops.convolution import accuracy_section, auto_pad_section, nonfinite_section
from cnn_ops.elementwise import unary_section
from cnn_ops.golden import write_golden
from cnn_ops.integers import binary_section
from cnn_ops.probes import CONFIG
from cnn_ops.random_pairs import random_pairs_section
from cnn_ops.shape_inference import shape_section
from cnn_ops.versions import versions_section
from ov_builders import TESTED_OPENVINO, ov  # first: it keeps telemetry off


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", type=Path, help="also write the golden vectors here")
    parser.add_argument("--quick", action="store_true", help="skip the slow sections (3, 5)")
    parser.add_argument("--section", type=int, action="append", help="only these sections")
    args = parser.parse_args()
    if not ov.__version__.startswith(TESTED_OPENVINO):
        print(
            f"note: measured on OpenVINO {TESTED_OPENVINO}, running {ov.__version__}",
            file=sys.stderr,
        )
    rng = np.random.default_rng(20)
    print(f"# CNN op measurements, OpenVINO {ov.__version__}, CPU, {CONFIG}\n")
    sections: dict[int, Callable[[], list[str]]] = {
        1: attribute_section,
        2: lambda: shape_section(np.random.default_rng(2)),
        3: lambda: unary_section(np.random.default_rng(3), 1_000_000),
        4: binary_section,
        5: lambda: accuracy_section(np.random.default_rng(5)),
        6: nonfinite_section,
        7: versions_section,
        8: lambda: random_pairs_section(np.random.default_rng(8), 100_000),
        9: lambda: auto_pad_section(np.random.default_rng(9)),
    }
    chosen = args.section or [n for n in sections if not (args.quick and n in (3, 5))]
    for number in chosen:
        print("\n".join(sections[number]()), flush=True)
    if args.golden:
        write_golden(args.golden, rng)


if __name__ == "__main__":
    main()
