"""The tests never send OpenVINO telemetry, whatever the environment (tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.mark.oracle
def test_openvino_s_converter_reports_through_its_no_op_stub() -> None:
    telemetry = pytest.importorskip("openvino.tools.ovc.telemetry_utils")
    assert telemetry.tm.__name__ == "openvino.tools.ovc.telemetry_stub"
    with pytest.raises(ImportError):
        import openvino_telemetry  # noqa: F401
