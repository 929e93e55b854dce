"""The `.bin`: missing, empty, short, absurd offsets and sizes, not a regular file; and never a
file other than the `.xml`'s sibling `.bin` (or `--weights`) is opened."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli
from tests import ir
from tests.hardening.watch import OpenWatch

INT64_MAX = (1 << 63) - 1
OUTPUT_SIZE = (2, 2)
BIN = ir.weights(OUTPUT_SIZE)


def diagnose(path: Path, weights: Path | None = None) -> list[tuple[str, str]]:
    try:
        found = irpool.load(path, weights).validate()
    except irpool.IRError as error:
        found = error.diagnostics
    return [(d.code, d.message) for d in found]


def with_const(offset: str, size: str) -> str:
    return ir.adaptive_model(out_size=OUTPUT_SIZE).replace(
        'offset="0" size="16"', f'offset="{offset}" size="{size}"'
    )


def test_missing_bin_without_const_is_fine(tmp_path: Path) -> None:
    assert diagnose(ir.write(tmp_path, ir.pool_model())) == []


def test_empty_bin_without_const_is_fine(tmp_path: Path) -> None:
    assert diagnose(ir.write(tmp_path, ir.pool_model(), b"")) == []


def test_missing_bin_with_const(tmp_path: Path) -> None:
    """The weights error, and once the info that the output_size's consumer went unchecked."""
    found = diagnose(ir.write(tmp_path, ir.adaptive_model()))
    assert [code for code, _ in found] == ["IR401", "IR218"]
    assert "model.bin does not exist" in found[0][1]


def test_empty_bin_with_const(tmp_path: Path) -> None:
    found = diagnose(ir.write(tmp_path, ir.adaptive_model(), b""))
    assert [code for code, _ in found] == ["IR402", "IR218"]
    assert "offset 0 + size 16 = 16 is past the end of model.bin (0 bytes)" in found[0][1]


def test_bin_shorter_than_the_const_needs(tmp_path: Path) -> None:
    found = diagnose(ir.write(tmp_path, ir.adaptive_model(), BIN[:12]))
    assert [code for code, _ in found] == ["IR402", "IR218"]


@pytest.mark.parametrize(
    ("offset", "size", "code"),
    [
        (str(INT64_MAX), "16", "IR402"),  # offset + size overflows 64 bits
        ("8", str(INT64_MAX), "IR402"),  # a read of 8 EiB
        (str(INT64_MAX - 7), "8", "IR402"),
        (str(1 << 63), "16", "IR204"),  # OpenVINO reads these with stoll: it refuses 2**63
        (str((1 << 64) - 1), "16", "IR204"),
        ("0", "9" * 5000, "IR204"),  # more digits than Python converts
        ("-8", "16", "IR204"),
    ],
)
def test_offsets_and_sizes_near_the_64_bit_limits(
    tmp_path: Path, offset: str, size: str, code: str
) -> None:
    found = diagnose(ir.write(tmp_path, with_const(offset, size), BIN))
    assert code in [c for c, _ in found], found


def test_size_does_not_make_irpool_read_it(tmp_path: Path) -> None:
    """A Const of 2**40 elements in a tiny .bin: refused on sizes, nothing allocated."""
    text = with_const("0", str(1 << 43)).replace('shape="2"', f'shape="{1 << 40}"')
    found = diagnose(ir.write(tmp_path, text, BIN))
    assert "IR402" in [c for c, _ in found]


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_bin_that_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    path = ir.write(tmp_path, ir.adaptive_model())
    (os.mkdir if kind == "directory" else os.mkfifo)(path.with_suffix(".bin"))
    found: list[tuple[str, str]] = []
    worker = threading.Thread(target=lambda: found.extend(diagnose(path)), daemon=True)
    worker.start()
    worker.join(5)  # a plain open of a FIFO would block here forever
    assert not worker.is_alive()
    assert [code for code, _ in found] == ["IR401", "IR218"]
    assert "model.bin is not a regular file" in found[0][1]


def test_only_the_sibling_bin_is_opened(tmp_path: Path) -> None:
    path = ir.write(tmp_path, ir.adaptive_model(), BIN)
    for decoy in ("model.bin.bak", "other.bin", "model.xml.bin", "weights.bin"):
        (tmp_path / decoy).write_bytes(BIN)
    with OpenWatch(tmp_path) as watch:
        result = CliRunner().invoke(cli, ["validate", "--isolated", str(path)])
    assert result.exit_code == 0, result.output
    assert set(watch.opened) == {path, path.with_suffix(".bin")}


def test_weights_option_replaces_the_sibling(tmp_path: Path) -> None:
    path = ir.write(tmp_path, ir.adaptive_model(), b"")  # the sibling would be too short
    chosen = tmp_path / "chosen.bin"
    chosen.write_bytes(BIN)
    with OpenWatch(tmp_path) as watch:
        result = CliRunner().invoke(
            cli, ["validate", "--isolated", "--weights", str(chosen), str(path)]
        )
    assert result.exit_code == 0, result.output
    assert path.with_suffix(".bin") not in watch.opened
    assert chosen in watch.opened


# A Const of no elements read at offset 0, and the layer that reads it (measured with
# OpenVINO 2026.4, see docs/ops/Const.md): an empty .bin gives the Const no data,
# which only the layers that read axes from it refuse ("ptr is Null").
EMPTY_CONST_READERS: dict[str, tuple[str, str, ir.Shape, ir.Shape]] = {
    # reader: (type, <data>, input shape, output shape)
    "ReduceMean": ("ReduceMean", '<data keep_dims="true" />', (1, 3), (1, 3)),
    "Squeeze": ("Squeeze", "", (1, 3), (3,)),
    "Reshape": ("Reshape", '<data special_zero="false" />', (1,), ()),
}


def empty_const_model(reader: str, offset: int = 0) -> str:
    """Parameter and an empty i64 Const -> `reader` -> Result; "Result" reads the Const as
    a second output."""
    empty = ir.const(1, "empty", [], offset)
    if reader == "Result":
        layers = [ir.parameter(0, "input", (1, 3)), empty, ir.result(2, "out", (1, 3))]
        empty_out = ir.result(3, "empty_out", (0,)).replace('"FP32"', '"I64"')
        return ir.net([*layers, empty_out], [ir.edge(0, 0, 2, 0), ir.edge(1, 0, 3, 0)])
    op_type, data, shape, out = EMPTY_CONST_READERS[reader]
    op = (
        f'\t\t<layer id="2" name="op" type="{op_type}" version="opset1">\n\t\t\t{data}\n'
        f"\t\t\t<input>\n{ir.port(0, shape)}{ir.port(1, [0], 'I64')}\t\t\t</input>\n"
        f"\t\t\t<output>\n{ir.port(2, out)}\t\t\t</output>\n\t\t</layer>\n"
    )
    return ir.net(
        [ir.parameter(0, "input", shape), empty, op, ir.result(3, "out", out)],
        [ir.edge(0, 0, 2, 0), ir.edge(1, 0, 2, 1), ir.edge(2, 2, 3, 0)],
    )


# (reader, .bin bytes or None for no .bin, the Const's offset) -> the codes irpool reports.
EMPTY_CONSTS = {
    "reduce axes, empty bin": ("ReduceMean", b"", 0, ["IR401"]),
    "squeeze axes, empty bin": ("Squeeze", b"", 0, ["IR401"]),
    "reshape pattern, empty bin": ("Reshape", b"", 0, []),
    "second output, empty bin": ("Result", b"", 0, []),
    "reduce axes, one-byte bin": ("ReduceMean", b"\0", 0, []),
    "reduce axes, at the end of the bin": ("ReduceMean", b"\0" * 8, 8, []),
    "reduce axes, past the end of the bin": ("ReduceMean", b"\0" * 8, 9, ["IR402", "IR218"]),
    "second output, past the end of an empty bin": ("Result", b"", 4, ["IR402"]),
    "second output, no bin": ("Result", None, 0, ["IR401"]),
}


@pytest.mark.parametrize("case", EMPTY_CONSTS)
def test_const_of_no_elements(tmp_path: Path, case: str) -> None:
    reader, data, offset, codes = EMPTY_CONSTS[case]
    found = diagnose(ir.write(tmp_path, empty_const_model(reader, offset), data))
    assert [code for code, _ in found] == codes, found
    if codes == ["IR401"] and data is not None:
        assert "empty .bin" in found[0][1] and '"ptr is Null"' in found[0][1]


@pytest.mark.oracle
@pytest.mark.parametrize("case", EMPTY_CONSTS)
def test_const_of_no_elements_openvino_agrees(tmp_path: Path, case: str) -> None:
    ov = pytest.importorskip("openvino")
    reader, data, offset, codes = EMPTY_CONSTS[case]
    path = ir.write(tmp_path, empty_const_model(reader, offset), data)
    core = ov.Core()
    try:
        compiled = core.compile_model(
            core.read_model(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"}
        )
        compiled({compiled.input(0): np.ones(compiled.input(0).shape, np.float32)})
    except RuntimeError:
        accepted = False
    else:
        accepted = True
    assert accepted == (not [code for code in codes if code != "IR218"])
