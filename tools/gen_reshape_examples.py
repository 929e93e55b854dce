"""Write the Reshape/Squeeze/Unsqueeze/Convert examples in examples/valid/ with OpenVINO itself.

Each model is built with OpenVINO's opset1 builders and written by `ov.save_model`, so the
files are exactly what OpenVINO writes (rt_info included); examples/README.md describes them.

    python tools/gen_reshape_examples.py [--out DIR]   # needs the real OpenVINO runtime
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from ov_builders import opset1, ov

VALID = Path(__file__).resolve().parent.parent / "examples" / "valid"


def pattern(*values: int) -> ov.Node:
    return opset1.constant(np.array(values, dtype=np.int64))


def models() -> dict[str, tuple[ov.Model, bool]]:
    """File stem -> (model, compress_to_fp16)."""
    flat_in = opset1.parameter([2, 3, 4, 4], np.float32, name="input")
    flatten = opset1.reshape(flat_in, pattern(0, -1), special_zero=True)

    dyn_in = opset1.parameter(ov.PartialShape("[?,3,2..5]"), np.float32, name="input")
    dynamic = opset1.reshape(dyn_in, pattern(0, -1), special_zero=True)

    axes_in = opset1.parameter([1, 3, 1, 4], np.float32, name="input")
    squeezed = opset1.squeeze(axes_in, pattern(0, 2))
    unsqueezed = opset1.unsqueeze(squeezed, pattern(-1))

    convert_in = opset1.parameter([2, 3], np.float32, name="input")
    converted = opset1.convert(convert_in, "i32")
    weights = opset1.constant(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))
    scaled = opset1.reshape(weights, pattern(-1), special_zero=False)

    return {
        "reshape_flatten": (ov.Model([flatten], [flat_in], "flatten"), False),
        "reshape_dynamic": (ov.Model([dynamic], [dyn_in], "reshape_dynamic"), False),
        "squeeze_unsqueeze": (ov.Model([unsqueezed], [axes_in], "squeeze_unsqueeze"), False),
        "convert_fp16_compressed": (
            ov.Model([converted, scaled], [convert_in], "convert_fp16_compressed"),
            True,
        ),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=VALID, help=f"default: {VALID}")
    out: Path = parser.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    for stem, (model, compress) in models().items():
        ov.save_model(model, out / f"{stem}.xml", compress_to_fp16=compress)


if __name__ == "__main__":
    main()
