"""Generate the numeric conformance corpus in ``tests/conformance/`` with the real OpenVINO runtime.

The corpus is the oracle that irpool's NumPy interpreter is tested against. Every case is a
directory ``tests/conformance/<case>/`` holding:

* ``model.xml`` + ``model.bin``: an IR built with OpenVINO's Python op builders (AvgPool-1/-14/-16,
  AdaptiveAvgPool-8, Reshape-1, Squeeze-1, Unsqueeze-1, Convert-1, Parameter, Const,
  Result) and written by
  ``ov.save_model(model, path, compress_to_fp16=False)``.
* ``inputs.npz``: one concrete, seeded random input per Parameter, keyed by the Parameter's friendly
  name (the XML layer ``name``). Models with dynamic or interval shapes are saved as such; the
  recorded input picks one shape inside them.
* ``outputs.npz``: what the CPU plugin computes for those inputs, keyed by the Result's friendly
  name. The model is read back from the saved file and compiled with
  ``compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})``.

``tests/conformance/index.json`` lists every case with a one-line description, its inputs and
outputs (element type, shape) and the tolerances to compare with, plus notes on what the CPU plugin
does that irpool deliberately does not (NaN for empty windows, f32 arithmetic for f64 models, the
reciprocal rounding of integer averages).

The test suite only reads these files, so it runs without OpenVINO installed. Regenerate (needs
``pip install -e '.[oracle]'``) with::

    python tools/gen_conformance.py            # writes tests/conformance/
    python tools/gen_conformance.py --out DIR  # writes DIR/ instead

The output is byte-for-byte deterministic for a given OpenVINO version and machine: inputs are
drawn from a generator seeded by the case name, and the ``.npz`` archives are written with fixed
timestamps. The saved XML and ``index.json`` record the OpenVINO version, so another release
rewrites every case; the committed corpus was produced with OpenVINO 2026.4.1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from conformance_cases import CASES
from conformance_kinds import Case
from corpus import (
    COMPILE_CONFIG,
    Array,
    check_unique,
    cpu_request,
    remove_stale,
    run_keyed,
    warn_if_untested,
    write_npz,
)
from ov_builders import ov

DEFAULT_OUT = Path("tests/conformance")
DEVICE = "CPU"

# Tolerances per output element type: |irpool - cpu| <= atol + rtol * |cpu|.
TOLERANCES: dict[str, dict[str, Any]] = {
    "f32": {
        "rtol": 1e-5,
        "atol": 1e-6,
        "why": "CPU sums in f32 and divides by the count; only the summation order differs.",
    },
    "f64": {
        "rtol": 1e-5,
        "atol": 1e-6,
        "why": "The CPU plugin converts f64 to f32 on input, pools in f32 and widens the result "
        "back to f64, so the outputs only carry f32 precision (see notes.f64).",
    },
    "f16": {
        "rtol": 1e-3,
        "atol": 1e-3,
        "why": "One f16 ulp (2^-10 relative). CPU converts f16 to f32, pools in f32 and rounds "
        "once at the model output, also across chained pools (see notes.f16); an interpreter "
        "that rounds after every op can be 1 ulp away.",
    },
    "i8": {"rtol": 0.0, "atol": 0.0, "why": "Integer outputs are compared exactly."},
    "u8": {"rtol": 0.0, "atol": 0.0, "why": "Integer outputs are compared exactly."},
    "i32": {"rtol": 0.0, "atol": 0.0, "why": "Integer outputs are compared exactly."},
    "i64": {"rtol": 0.0, "atol": 0.0, "why": "Integer outputs are compared exactly."},
}
NOTES: dict[str, str] = {
    "nan": "A window with no real element (ceil mode, or pads >= kernel) is NaN in some CPU "
    "outputs and 0 or -0 in others; which one depends on the CPU kernel that runs (for example "
    "AvgPool-16 same_upper with zero pads gives NaN, AvgPool-1 rank 5 with exclude-pad=true and "
    "pads gives -0), not only on exclude-pad and pads. outputs.npz keeps the NaN. irpool writes 0 "
    "for every empty window, so compare with NaN == 0; outputs holding NaN list nan_count.",
    "f64": "f64 models are computed in f32 by the CPU plugin: a Convert f64->f32 is inserted "
    "before the first pool (out-of-range values saturate to +-FLT_MAX) and a Convert f32->f64 "
    "after the last, so an f64 output equals the f32 computation widened to f64. Compare with f32 "
    "tolerances.",
    "f16": "f16 models (INFERENCE_PRECISION_HINT=f32): the plugin converts the f16 input to f32, "
    "pools in f32 (sum, then divide), and rounds to f16 once at the output; intermediate tensors "
    "of chained pools stay f32. For a single pool this equals the exact mean rounded to f16.",
    "int": "Integer AvgPool on CPU (AVX-512 machine) takes one of two paths, chosen by layout. "
    "(a) i32/i64 with more than one channel: the input is converted to f32, pooled in f32 "
    "(sum / count) and rounded half to even only at the model output; intermediate tensors of "
    "chained pools stay f32 (not rounded). (b) i8/u8 always, and i32/i64 with one channel: an "
    "integer kernel that sums in the integer type (i32 wraps on overflow; i64 is narrowed to i32 "
    "first), computes rint(f32(sum) * f32(1/count)) and rounds after each op. That is round-half-"
    "to-even of the true mean unless f32(1/count) rounds up (count 14, 26, 28, 30, ...): then "
    "an exact .5 mean rounds away from zero. irpool rounds the exact mean half to even after "
    "each op; cases where CPU departs from that carry known_cpu_deviation.",
    "dynamic_rank": "The CPU plugin rejects Parameters of dynamic rank ('...'), so the corpus "
    "has no dynamic-rank model (tests/golden covers their shape inference).",
}


def unique_names(nodes: Sequence[ov.Node], kind: str, case: str) -> list[str]:
    names = [node.get_friendly_name() for node in nodes]
    if len(set(names)) != len(names):
        raise RuntimeError(f"{case}: {kind} friendly names are not unique: {names}")
    return names


def run_cpu(core: ov.Core, model: ov.Model, inputs: dict[str, Array]) -> dict[str, Array]:
    """CPU outputs keyed by Result friendly name; ``model.outputs[i]`` belongs to Result i."""
    keys = [res.get_friendly_name() for res in model.get_results()]
    feed = [inputs[param.get_friendly_name()] for param in model.get_parameters()]
    return run_keyed(cpu_request(core, model), keys, feed)


def port_entry(node: ov.Node, array: Array) -> dict[str, Any]:
    """Element type, concrete shape and the model's declared (partial) shape of a Parameter or
    Result."""
    return {
        "element_type": node.get_element_type().get_type_name(),
        "shape": list(array.shape),
        "declared_shape": str(node.get_output_partial_shape(0)),
    }


def run_case(core: ov.Core, case: Case, case_dir: Path) -> dict[str, Any]:
    """Write one case directory and return its index.json entry."""
    case_dir.mkdir(parents=True, exist_ok=True)
    xml_path = case_dir / "model.xml"
    ov.save_model(case.build(), xml_path, compress_to_fp16=False)

    model = core.read_model(xml_path)
    param_names = unique_names(model.get_parameters(), "Parameter", case.name)
    result_names = unique_names(model.get_results(), "Result", case.name)
    if set(param_names) & set(result_names):
        raise RuntimeError(f"{case.name}: a Parameter and a Result share a friendly name")

    inputs = case.make_inputs(model)
    outputs = run_cpu(core, model, inputs)
    write_npz(case_dir / "inputs.npz", inputs)
    write_npz(case_dir / "outputs.npz", outputs)

    entry_inputs = {
        param.get_friendly_name(): port_entry(param, inputs[param.get_friendly_name()])
        for param in model.get_parameters()
    }
    notes = list(case.notes)
    entry: dict[str, Any] = {
        "name": case.name,
        "description": case.description,
        "inputs": entry_inputs,
        "outputs": output_entries(model, outputs, notes),
        "notes": notes,
    }
    if case.cpu_deviation:
        entry["known_cpu_deviation"] = case.cpu_deviation
    return entry


def output_entries(model: ov.Model, outputs: dict[str, Array], notes: list[str]) -> dict[str, Any]:
    """Each output's index.json entry with its tolerance; what the CPU does to it goes in
    `notes`."""
    entry_outputs: dict[str, Any] = {}
    for res in model.get_results():
        name = res.get_friendly_name()
        output = port_entry(res, outputs[name])
        tolerance = TOLERANCES[output["element_type"]]
        output.update(rtol=tolerance["rtol"], atol=tolerance["atol"])
        nan_count = int(np.isnan(outputs[name]).sum()) if outputs[name].dtype.kind == "f" else 0
        if nan_count:
            output["nan_count"] = nan_count
            notes.append(
                f"{name}: {nan_count} NaN from CPU for empty windows; irpool writes 0 "
                "(compare NaN == 0)."
            )
        entry_outputs[name] = output
    element_types = {output["element_type"] for output in entry_outputs.values()}
    if "f64" in element_types:
        notes.append("CPU computes this f64 model in f32 (see notes.f64).")
    if "f16" in element_types:
        notes.append("CPU computes in f32 and rounds to f16 once at the output (see notes.f16).")
    return entry_outputs


def generate(out: Path, cases: Sequence[Case]) -> dict[str, Any]:
    """Write every case under ``out`` and return the index.json content."""
    check_unique(case.name for case in cases)
    out.mkdir(parents=True, exist_ok=True)
    remove_stale(out, {case.name for case in cases})
    core = ov.Core()
    entries = [run_case(core, case, out / case.name) for case in cases]
    return {
        "generator": "tools/gen_conformance.py",
        "openvino": ov.get_version(),
        "device": DEVICE,
        "config": COMPILE_CONFIG,
        "layout": {
            "model": "<case>/model.xml + model.bin (ov.save_model, compress_to_fp16=False)",
            "inputs": "<case>/inputs.npz, keys = Parameter friendly names",
            "outputs": "<case>/outputs.npz, keys = Result friendly names (CPU plugin outputs)",
            "compare": "|irpool - cpu| <= atol + rtol * |cpu| per output; NaN in cpu == 0",
        },
        "tolerances": TOLERANCES,
        "notes": NOTES,
        "cases": entries,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default: {DEFAULT_OUT})"
    )
    args = parser.parse_args(argv)

    warn_if_untested()
    index = generate(args.out, CASES)
    index_path = args.out / "index.json"
    index_path.write_text(json.dumps(index, indent=2) + "\n")
    size = sum(path.stat().st_size for path in args.out.rglob("*") if path.is_file())
    print(f"wrote {len(index['cases'])} cases ({size / 1e6:.2f} MB) and {index_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
