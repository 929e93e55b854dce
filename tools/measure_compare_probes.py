"""What `irpool compare`'s probes do to OpenVINO's CPU plugin, per model of a torchvision
corpus (tools/gen_torchvision_corpus.py; by default the reduced one in tests/models/torchvision),
one line each (docs/outputs.md records a run):

    .venv/bin/python tools/measure_compare_probes.py [CORPUS] [--input randn|nonfinite]

- probes: how many tensors were made model outputs, and how many each compiled model
  (default precision, f32) returned;
- the default precision the plugin compiled for;
- probed vs plain: the largest max rel (to the output's scale) between the model's outputs
  with and without probes, in each precision (f32 must be 0);
- the first tensor where the default precision leaves 1e-3 of f32, and the largest max rel
  of the default precision against f32 over all tensors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import irpool
from irpool.compare.differences import Difference
from irpool.compare.openvino_runs import import_openvino
from irpool.compare.tensor_table import compare_model, model_parts

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=ROOT / "tests/models/torchvision")
    parser.add_argument("--input", choices=["randn", "nonfinite"], default="randn")
    arguments = parser.parse_args()
    openvino = import_openvino()
    for case in sorted(p for p in arguments.corpus.iterdir() if (p / "model.xml").exists()):
        model = irpool.load(case / "model.xml")
        inputs = dict(np.load(case / f"inputs-{arguments.input}.npz"))
        parts = model_parts(model)
        found = compare_model(openvino, model, parts, inputs, 1e-3, cast=False)
        rows = found.layers
        returned = [sum(row.produced[run] for row in rows) for run in ("default", "f32")]
        effect = [
            max(_rel(row.differences[(f"probed {run}", run)]) for row in found.outputs)
            for run in ("default", "f32")
        ]
        first = found.first_outside(("default", "f32"))
        worst = max((_rel(row.differences[("default", "f32")]) for row in rows), default=0.0)
        print(
            f"{case.name:36} probes {len(rows):4} returned {returned[0]:4}/{returned[1]:4} "
            f"default {found.precisions['default']:5} probed-vs-plain {effect[0]:.2e}/"
            f"{effect[1]:.1e} irpool ran {found.irpool_problem is None!s:5} "
            f"first {'-' if first is None else first.layer.type:18} worst {worst:.2e}"
        )
    return 0


def _rel(found: Difference | None) -> float:
    return 0.0 if found is None else found.max_rel


if __name__ == "__main__":
    sys.exit(main())
