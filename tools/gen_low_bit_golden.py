"""Write tests/golden/low_bit_cpu.json: how OpenVINO packs low-bit Const element types in the
`.bin`, and what the CPU plugin gives for a Convert from each.

For every low-bit type (u1, u2, u3, u4, u6, i4, nf4, f4e2m1, f8e4m3, f8e5m2, f8e8m0):
- `packed`: `ov.op.Constant` of an odd number of values saved with `ov.save_model`: the `.bin`
  bytes and the `size` it writes (`sizes`: for 1 to 17 elements);
- `decoded`: a saved Const -> Convert -> Result whose `.bin` is replaced by raw bytes holding
  every byte value, read with `read_model` and run on the CPU plugin (f32 inference precision)
  for each destination (or the CPU's refusal); the odd element count leaves the last slot's
  padding unread.
tests/execute/test_low_bit.py checks irpool's decoding and Convert against the file without
needing OpenVINO.

    python tools/gen_low_bit_golden.py               # needs the real OpenVINO runtime
    python tools/gen_low_bit_golden.py --out FILE    # writes FILE instead
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from corpus import COMPILE_CONFIG
from numpy.typing import NDArray
from ov_builders import opset1, ov

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden" / "low_bit_cpu.json"

BITS = {
    "u1": 1, "u2": 2, "u3": 3, "u4": 4, "u6": 6, "i4": 4, "nf4": 4, "f4e2m1": 4,
    "f8e4m3": 8, "f8e5m2": 8, "f8e8m0": 8,
}  # fmt: skip
DESTINATIONS = (
    "f32", "f16", "bf16", "f64", "i8", "u8", "i16", "u16", "i32", "i64", "u32", "u64", "boolean",
)  # fmt: skip


def raw_bytes(element_type: str) -> tuple[bytes, int]:
    """The raw bytes and an element count: every code of an 8-bit type; every code in either
    nibble of a 4-bit one; 48 varied bytes (whole 3-byte blocks) of the others. The count
    leaves the last element's slot unread where a byte holds more than one element."""
    if BITS[element_type] == 8:
        raw = bytes(range(256))
    elif BITS[element_type] == 4:
        raw = bytes([*range(0, 256, 17), *range(1, 16), *range(16, 256, 16)])
    else:
        raw = bytes((i * 37 + 11) % 256 for i in range(48))
    elements = len(raw) * 8 // BITS[element_type]
    return raw, elements - 1 if BITS[element_type] < 8 else elements


def as_json(values: NDArray[Any], destination: str) -> list[Any]:
    """Floats as the hex of their bits (f64: 16 digits, f32: 8, f16 and bf16: 4), the rest
    as ints."""
    if values.dtype.kind == "f" or (values.dtype == np.uint16 and destination == "bf16"):
        width = values.dtype.itemsize
        bits = values.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[width])
        return [f"{int(b):0{2 * width}x}" for b in bits]
    return [bool(v) if values.dtype.kind == "b" else int(v) for v in values]


def packed_values(element_type: str, count: int) -> list[float]:
    """Values every slot of the type can take, in turn (nf4's are its table's indices, as
    ov.op.Constant takes them); the float types' from a small list they all hold."""
    if element_type in ("f4e2m1", "f8e4m3", "f8e5m2"):
        pool = [0.0, 0.5, -1.0, 1.5, -2.0, 3.0, 4.0, -6.0]
    elif element_type == "f8e8m0":
        pool = [1.0, 2.0, 0.25, 2.0**-20, 2.0**30]
    else:
        low = -8 if element_type == "i4" else 0
        pool = list(range(low, low + (1 << BITS[element_type])))
    return [pool[i % len(pool)] for i in range(count)]


def saved(model: ov.Model, path: Path) -> tuple[bytes, int]:
    """The `.bin` save_model writes for `model`, and the `size` of its Const."""
    ov.save_model(model, path, compress_to_fp16=False)
    match = re.search(r'size="([0-9]+)"', path.read_text(encoding="utf-8"))
    assert match is not None
    return path.with_suffix(".bin").read_bytes(), int(match.group(1))


def converted(element_type: str, count: int, values: list[float], destination: str) -> ov.Model:
    node = ov.op.Constant(getattr(ov.Type, element_type), ov.Shape([count]), values)
    return ov.Model([opset1.convert(node, destination)], [])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=GOLDEN, help=f"default: {GOLDEN}")
    out: Path = parser.parse_args(argv).out
    core = ov.Core()
    packed: dict[str, dict[str, Any]] = {}
    decoded: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "model.xml"
        for element_type in BITS:
            values = packed_values(element_type, 2 * (1 << BITS[element_type]) + 1)
            written, size = saved(converted(element_type, len(values), values, "f32"), path)
            sizes = [
                saved(converted(element_type, n, values[:1] * n, "f32"), path)[1]
                for n in range(1, 18)
            ]
            packed[element_type] = {"values": values, "bin": written.hex(), "size": size}
            packed[element_type]["sizes"] = sizes
            raw, count = raw_bytes(element_type)
            row: dict[str, Any] = {"count": count, "bin": raw.hex()}
            for destination in DESTINATIONS:
                model = converted(
                    element_type, count, packed_values(element_type, count), destination
                )
                path = Path(directory) / f"{element_type}_{destination}.xml"
                written, size = saved(model, path)
                assert len(written) == len(raw), (element_type, len(written))
                path.with_suffix(".bin").write_bytes(raw)
                try:
                    compiled = core.compile_model(core.read_model(path), "CPU", COMPILE_CONFIG)
                except RuntimeError as error:  # the CPU converts this pair neither way
                    refusal = re.search(
                        r"(cpu_convert can't|unsupported src_prc)[^\n]*", str(error)
                    )
                    row[destination] = refusal.group(0) if refusal else str(error)
                    continue
                row[destination] = as_json(np.asarray(compiled({})[0]), destination)
            decoded[element_type] = row
    document = {"openvino": ov.__version__, "packed": packed, "decoded": decoded}
    out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
