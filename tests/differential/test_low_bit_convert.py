"""Live differential test: Const of each low-bit element type (random bytes, random element
counts, odd ones included) -> Convert -> Result, irpool against the CPU plugin, bit for bit,
for every destination the CPU converts it to. The same IR file is read by both, so this checks
the packing as OpenVINO reads a `.bin`, not only as it writes one (tests/execute/test_low_bit.py
checks both against the committed golden data)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irpool.cpu.refusals import CPU_UNCONVERTED_FROM
from irpool.low_bit import BITS, packed_size
from tests.differential.oracle_batch import CPU_CONFIG
from tests.execute.low_bit_models import DESTINATIONS, as_golden, convert_model

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

CASES = [(t, d) for t in BITS for d in DESTINATIONS if d not in CPU_UNCONVERTED_FROM.get(t, ())]


@pytest.mark.parametrize(("element_type", "destination"), CASES, ids=[f"{t}-{d}" for t, d in CASES])
def test_convert_from_random_bytes(tmp_path: Path, element_type: str, destination: str) -> None:
    rng = np.random.default_rng(sum(map(ord, element_type + destination)))
    core = ov.Core()
    for count in (1, 3, int(rng.integers(4, 200))):
        raw = rng.integers(0, 256, packed_size(element_type, count), np.uint8).tobytes()
        directory = tmp_path / str(count)
        directory.mkdir()
        model = convert_model(directory, element_type, destination, raw, count)
        (found,) = model.run({}).values()
        compiled = core.compile_model(core.read_model(model.path), "CPU", CPU_CONFIG)
        expected = np.asarray(compiled({})[0])
        assert as_golden(found, destination) == as_golden(expected, destination), (count, raw)
