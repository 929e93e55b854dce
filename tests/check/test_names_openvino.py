"""Tensor names against OpenVINO's read_model (irpool/check/names.py).

Small models whose layer names, port `names` and Result `output_names` come from a
four-letter alphabet, so that names collide often, in IR v10 and v11. For each:

* when read_model refuses the file, irpool reports IR508 or IR509 (never a false clean);
* when read_model accepts it, irpool reports no IR509, and IR508 exactly when OpenVINO
  renamed a tensor (a name with a "_N" suffix appears, which the alphabet never writes);
* irpool reports no other error: the models are otherwise valid.

The suite runs 300 cases, derandomized; a longer hunt with fresh cases:

    IRPOOL_TEST_SCALE=16 python -m pytest tests/check/test_names_openvino.py
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import irpool
from irpool.rules import Severity
from tests.check.names_models import Case, cases
from tests.scale import FRESH, examples

ov = pytest.importorskip("openvino")
pytestmark = pytest.mark.oracle

RENAMED = re.compile(r"_\d+$")


def openvino_reading(path: Path) -> set[str] | None:
    """Every tensor name of the model read_model builds, or None when it refuses the file."""
    try:
        model = ov.Core().read_model(path)
    except RuntimeError:
        return None
    return {
        name for op in model.get_ordered_ops() for out in op.outputs() for name in out.get_names()
    }


@pytest.mark.slow
@settings(
    max_examples=examples(300),
    derandomize=not FRESH,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=cases())
def test_tensor_names_as_openvino_reads_them(case: Case, tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    path.write_text(case.xml(), encoding="utf-8")
    errors = {d.code for d in irpool.load(path).validate() if d.severity is Severity.ERROR}
    assert errors <= {"IR508", "IR509"}, case.xml()
    names = openvino_reading(path)
    if names is None:
        assert errors, f"OpenVINO refuses this file, irpool calls it clean:\n{case.xml()}"
        return
    assert "IR509" not in errors, case.xml()
    renamed = any(RENAMED.search(name) for name in names)
    assert ("IR508" in errors) == renamed, f"renamed: {sorted(names)}\n{case.xml()}"
