"""Write tests/golden/convert_cpu.json: what OpenVINO's CPU plugin gives for Convert-1.

For every source and destination element type irpool runs, one model Parameter -> Convert ->
Result is compiled on the CPU plugin (f32 inference precision) and run on the values below,
which hold each type's edge cases: halves, NaN, ±inf, values beyond int32 and the destination
ranges, the type's extremes. The same values also go in as a Const: `folded` holds what the CPU
returns for Const -> Convert -> Result (OpenVINO folds the Convert when it compiles), and
`constants` what it returns for Const -> Result (how the plugin holds a constant of each type).
tests/execute/test_convert.py checks irpool's kernel and folding against the file without
needing OpenVINO.

    python tools/gen_convert_golden.py               # needs the real OpenVINO runtime
    python tools/gen_convert_golden.py --out FILE    # writes FILE instead
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from corpus import COMPILE_CONFIG
from numpy.typing import NDArray
from ov_builders import opset1, ov

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden" / "convert_cpu.json"

FLOATS = [
    2.5, 3.5, -2.5, -0.7, 0.7, 1.9999, 3e9, -3e9, float("nan"), float("inf"), float("-inf"),
    300.6, -1.5, 65519.0, 65520.0, 1e-8, -129.5, 255.9, 256.2, 8589934592.0, -1e19, 1e19,
    9.3e18, 2147483520.0, -2147483648.0, 0.0, -0.0,
]  # fmt: skip
INTEGERS = [300, -1, 255, 256, -129, 127, 128, 2**31 - 1, -(2**31), 65535, 65536, 16777217, 0, 1]
SOURCES: dict[str, NDArray[Any]] = {
    "f32": np.array(FLOATS, np.float32),
    "f16": np.array([*np.clip(FLOATS, -65504, 65504), np.inf, -np.inf], np.float16),
    "f64": np.array([*FLOATS, 1e300, -1e300], np.float64),
    "i8": np.array([-128, -1, 0, 1, 127], np.int8),
    "u8": np.array([0, 1, 127, 128, 255], np.uint8),
    "i16": np.array([-32768, -1, 300, 32767], np.int16),
    "u16": np.array([0, 65535, 32768, 300], np.uint16),
    "i32": np.array(INTEGERS, np.int32),
    "i64": np.array([*INTEGERS, 2**31, 2**40 + 5, -(2**31) - 1, 2**53 + 1, 2**63 - 1, -(2**63)]),
    "u32": np.array([0, 2**32 - 1, 2**31, 300], np.uint32),
    "u64": np.array([0, 2**64 - 1, 2**63, 2**32 + 7], np.uint64),
    "boolean": np.array([True, False]),
}
DESTINATIONS = ("f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")


def as_json(values: NDArray[Any], destination: str) -> list[Any]:
    """Floats as their repr (NaN and ±inf included), integers and booleans as themselves."""
    if destination == "bf16":  # OpenVINO hands bf16 over as raw 16-bit values
        values = (values.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    if values.dtype.kind == "f":
        return [repr(float(v)) for v in values]
    return [bool(v) if values.dtype.kind == "b" else int(v) for v in values]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=GOLDEN, help=f"default: {GOLDEN}")
    out: Path = parser.parse_args(argv).out
    core = ov.Core()
    config = COMPILE_CONFIG

    def run_constant(output: ov.Node) -> NDArray[Any]:
        """The CPU's value of a constant subgraph (a dummy Parameter makes the model valid)."""
        dummy = opset1.parameter([1], np.float32, name="dummy")
        compiled = core.compile_model(ov.Model([output, dummy], [dummy]), "CPU", config)
        request = compiled.create_infer_request()
        return np.asarray(request.infer({0: np.zeros(1, np.float32)})[compiled.output(0)])

    table: dict[str, dict[str, Any]] = {}
    folded: dict[str, dict[str, Any]] = {}
    constants: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as directory:
        for source, values in SOURCES.items():
            row: dict[str, Any] = {"input": as_json(values, source)}
            folded[source] = {}
            for destination in (*DESTINATIONS, "boolean"):
                parameter = opset1.parameter([len(values)], values.dtype, name="x")
                model = ov.Model([opset1.convert(parameter, destination)], [parameter])
                path = Path(directory) / f"{source}_{destination}.xml"
                ov.save_model(model, path, compress_to_fp16=False)
                compiled = core.compile_model(path, "CPU", config)
                output = next(iter(compiled([values]).values()))
                row[destination] = as_json(np.asarray(output), destination)
                constant = run_constant(opset1.convert(opset1.constant(values), destination))
                folded[source][destination] = as_json(constant, destination)
            table[source] = row
            constants[source] = as_json(run_constant(opset1.constant(values)), source)
    document = {
        "openvino": ov.__version__, "conversions": table, "folded": folded, "constants": constants,
    }  # fmt: skip
    out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
