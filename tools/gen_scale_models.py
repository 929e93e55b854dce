"""Generate large IR models with OpenVINO's own serializer, for the validation scale benchmark.

Each model is one chain: Parameter -> AvgPool -> (Const -> AdaptiveAvgPool) -> AvgPool -> ...
-> Result, with exactly N layers in all. Every pool keeps the shape (AvgPool k3 s1 p1,
AdaptiveAvgPool to the input's own size, each with its own Const), so the chain is valid at
any length and every layer is checked. The files are written by `ov.save_model`, so they are
what OpenVINO itself produces, and are not committed (100,000 layers is about 60 MB of XML).

    python tools/gen_scale_models.py OUT_DIR                  # 1,000, 10,000, 100,000 layers
    python tools/gen_scale_models.py OUT_DIR --layers 5000    # one size
    python tools/gen_scale_models.py OUT_DIR --named          # every tensor named

With `--named` every output tensor gets its own name, which the serializer writes into the
layer's <output> port: no two layers are then written alike, the worst case for irpool's
reading each distinct layer text once.

Needs the real OpenVINO runtime (`pip install -e '.[oracle]'`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from ov_builders import opset1, opset8, ov

SIZES = (1_000, 10_000, 100_000)
INPUT_SHAPE = (1, 2, 8, 8)


def chain_model(layers: int, named: bool = False) -> ov.Model:
    """A valid chain of exactly `layers` layers (at least 3: Parameter, one pool, Result);
    `named`: every output tensor has a name of its own."""
    if layers < 3:
        raise ValueError("a chain needs at least 3 layers")
    parameter = opset1.parameter(INPUT_SHAPE, np.float32, name="input")
    node: ov.Node = parameter
    count, turn = 1, 0
    while count < layers - 1:
        if turn % 2 and layers - 1 - count >= 2:
            size = opset1.constant(np.array(INPUT_SHAPE[2:], np.int64), name=f"size_{count}")
            node = opset8.adaptive_avg_pool(node, size, name=f"adaptive_{count + 1}")
            count += 2
        else:
            node = opset1.avg_pool(
                node, [1, 1], [1, 1], [1, 1], [3, 3], True, "floor", "explicit",
                name=f"pool_{count}",
            )  # fmt: skip
            count += 1
        if named:
            node.output(0).get_tensor().set_names({f"tensor_{count}"})
        turn += 1
    result = opset1.result(node, name="output")
    return ov.Model([result], [parameter], f"chain_{layers}")


def write(out_dir: Path, layers: int, named: bool = False) -> Path:
    """Write `chain_<layers>.xml` (`named_<layers>.xml`) and its `.bin` into `out_dir`;
    returns the `.xml` path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{'named' if named else 'chain'}_{layers}.xml"
    ov.save_model(chain_model(layers, named), path, compress_to_fp16=False)
    return path


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--layers", type=int, action="append", help="a size (repeatable)")
    parser.add_argument("--named", action="store_true", help="name every output tensor")
    args = parser.parse_args(argv)
    for layers in args.layers or SIZES:
        path = write(args.out_dir, layers, args.named)
        print(f"{path} ({path.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
