"""Generate tests/conformance_max_pool/ with the real OpenVINO runtime: MaxPool-1/-8/-14 cases
whose outputs (values and indices) irpool must reproduce exactly.

Each case is a directory holding `model.xml` (built with OpenVINO's op builders, written by
`ov.save_model(..., compress_to_fp16=False)`), `inputs.npz` (keyed by Parameter name) and
`outputs.npz` (keyed by the Results' tensor names), computed by
`compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})`; `index.json` lists the cases.
Inputs hold few distinct values (ties), and NaN/±inf where the case says so; they are drawn
from a generator seeded by the case name, and the archives are byte-for-byte reproducible.

    python tools/gen_max_pool_conformance.py            # writes tests/conformance_max_pool/
    python tools/gen_max_pool_conformance.py --out DIR  # writes DIR/ instead
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from corpus import Array, case_rng, cpu_request, output_keys, run_keyed, write_npz
from ov_builders import ELEMENT_TYPES, opset1, opset8, opset14, ov

OUT = Path(__file__).resolve().parent.parent / "tests" / "conformance_max_pool"


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    shape: str  # the Parameter's (partial) shape
    run_shape: tuple[int, ...]  # the concrete input
    element_type: str
    version: int
    kernel: Sequence[int]
    strides: Sequence[int]
    pads: tuple[Sequence[int], Sequence[int]]
    rounding: str = "floor"
    auto_pad: str = "explicit"
    dilations: Sequence[int] | None = None
    axis: int = 0
    index_type: str = "i64"
    indices: bool = True  # whether the indices output is returned (v8/v14)
    non_finite: bool = False


def build(case: Case) -> ov.Model:
    parameter = opset1.parameter(
        ov.PartialShape(f"[{case.shape}]"), ELEMENT_TYPES[case.element_type]
    )
    parameter.set_friendly_name("input")
    parameter.output(0).get_tensor().set_names({"input"})
    common = (case.pads[0], case.pads[1], case.kernel, case.rounding, case.auto_pad)
    if case.version == 1:
        outputs = opset1.max_pool(parameter, case.strides, *common).outputs()
    else:
        max_pool = opset8.max_pool if case.version == 8 else opset14.max_pool
        dilations = case.dilations or [1] * len(case.kernel)
        pool = max_pool(parameter, case.strides, dilations, *common, case.index_type, case.axis)
        outputs = pool.outputs() if case.indices else [pool.output(0)]
    for name, output in zip(("values", "indices"), outputs, strict=False):
        output.get_tensor().set_names({name})
    return ov.Model([opset1.result(output) for output in outputs], [parameter], case.name)


def make_input(case: Case) -> Array:
    rng = case_rng(case.name)
    low = 0 if case.element_type == "u8" else -5
    x = rng.integers(low, low + 9, case.run_shape).astype(ELEMENT_TYPES[case.element_type])
    if case.non_finite:
        roll = rng.random(case.run_shape)
        x[roll < 0.15] = np.nan
        x[(roll >= 0.15) & (roll < 0.25)] = -np.inf
        x[(roll >= 0.25) & (roll < 0.3)] = np.inf
    return x


CASES = [
    Case("v1_r4_k3s2p1", "MaxPool-1, the ResNet stem pool", "1,4,9,9", (1, 4, 9, 9), "f32", 1,
         (3, 3), (2, 2), ((1, 1), (1, 1))),
    Case("v1_r3_ceil_overhang", "MaxPool-1 ceil: the last window starts past the data", "2,3,5",
         (2, 3, 5), "f32", 1, (1,), (3,), ((0,), (0,)), "ceil"),
    Case("v1_r5_same_lower", "MaxPool-1 5D same_lower", "1,2,4,5,6", (1, 2, 4, 5, 6), "f32", 1,
         (2, 3, 2), (1, 2, 2), ((0, 0, 0), (0, 0, 0)), auto_pad="same_lower"),
    Case("v8_r4_axis0_ceil", "MaxPool-8 as ONNX writes it: global indices, ceil with an empty "
         "last window", "2,3,5,5", (2, 3, 5, 5), "f32", 8, (2, 2), (2, 2), ((1, 1), (1, 1)),
         "ceil"),
    Case("v8_r4_axis1_nonfinite", "MaxPool-8 axis 1, NaN and ±inf in the input", "2,3,6,6",
         (2, 3, 6, 6), "f32", 8, (3, 3), (1, 1), ((1, 1), (1, 1)), axis=1, non_finite=True),
    Case("v8_r3_pads_past_kernel", "MaxPool-8 k1 p2/2: windows entirely in the padding, batch 2",
         "2,1,3", (2, 1, 3), "f32", 8, (1,), (1,), ((2,), (2,)), index_type="i32"),
    Case("v8_r5_dilated_axis_minus1", "MaxPool-8 5D, dilations 2, axis -1", "1,2,5,6,7",
         (1, 2, 5, 6, 7), "f32", 8, (2, 2, 3), (1, 2, 2), ((1, 0, 1), (0, 1, 1)),
         dilations=(2, 1, 2), axis=-1),
    Case("v8_r4_values_only", "MaxPool-8 whose indices nobody reads (the CPU's oneDNN path), NaN",
         "1,16,8,8", (1, 16, 8, 8), "f32", 8, (3, 3), (2, 2), ((1, 1), (1, 1)), indices=False,
         non_finite=True),
    Case("v8_r4_dynamic", "MaxPool-8 on ?,3,1..10,?", "?,3,1..10,?", (2, 3, 7, 9), "f32", 8,
         (3, 3), (2, 2), ((1, 1), (1, 1)), index_type="i32"),
    Case("v14_r4_ceil_torch_axis2", "MaxPool-14 as PyTorch writes it: ceil_torch, dilation 2, "
         "per-plane indices", "2,2,9,9", (2, 2, 9, 9), "f32", 14, (3, 3), (2, 2), ((1, 1), (1, 1)),
         "ceil_torch", dilations=(2, 2), axis=2),
    Case("v14_r3_f16_nonfinite", "MaxPool-14 f16 with NaN and ±inf (empty windows: -inf)", "1,2,9",
         (1, 2, 9), "f16", 14, (2,), (2,), ((1,), (1,)), "ceil", non_finite=True),
    Case("v14_r4_i32", "MaxPool-14 i32", "1,3,6,6", (1, 3, 6, 6), "i32", 14, (2, 2), (2, 2),
         ((1, 1), (0, 0)), "ceil"),
    Case("v14_r4_i8", "MaxPool-14 i8 (empty windows: -128)", "1,2,5,5", (1, 2, 5, 5), "i8", 14,
         (2, 2), (2, 2), ((1, 1), (1, 1)), "ceil"),
    Case("v14_r4_u8", "MaxPool-14 u8", "1,2,5,5", (1, 2, 5, 5), "u8", 14, (3, 3), (1, 1),
         ((1, 1), (1, 1))),
    Case("v14_r4_i64", "MaxPool-14 i64 (compared in i32)", "1,2,5,5", (1, 2, 5, 5), "i64", 14,
         (2, 2), (1, 1), ((0, 0), (1, 1))),
    Case("v14_r4_f64", "MaxPool-14 f64 (compared in f32)", "1,2,5,5", (1, 2, 5, 5), "f64", 14,
         (2, 2), (2, 2), ((0, 0), (1, 1)), "ceil", non_finite=True),
]  # fmt: skip


def run_case(core: ov.Core, case: Case, directory: Path) -> dict[str, Any]:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "model.xml"
    ov.save_model(build(case), path, compress_to_fp16=False)
    (directory / "model.bin").unlink()  # no constants: save_model writes an empty file
    model = core.read_model(path)
    x = make_input(case)
    outputs = run_keyed(cpu_request(core, model), output_keys(model), [x])
    write_npz(directory / "inputs.npz", {"input": x})
    write_npz(directory / "outputs.npz", outputs)
    return {"name": case.name, "description": case.description}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"output directory (default: {OUT})")
    out: Path = parser.parse_args(argv).out
    core = ov.Core()
    cases = [run_case(core, case, out / case.name) for case in CASES]
    index = {"openvino": ov.__version__, "cases": cases}
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    main()
