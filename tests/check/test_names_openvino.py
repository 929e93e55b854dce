"""Tensor names against OpenVINO's read_model (irpool/check/names.py).

Small models whose layer names, port `names` and Result `output_names` come from a
four-letter alphabet, so that names collide often, in IR v10 and v11. For each:

* when read_model refuses the file, irpool reports IR509 (never a false clean);
* when read_model accepts it, irpool reports no IR509, IR508 (a warning) exactly when
  OpenVINO renamed a tensor (a name with a "_N" suffix appears, which the alphabet never
  writes), and each tensor's names as OpenVINO gives them;
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
from irpool.graph.tensor_names import kept_names, renaming
from irpool.rules import Severity
from tests.check.names_models import Case, cases
from tests.scale import FRESH, examples

ov = pytest.importorskip("openvino")
pytestmark = pytest.mark.oracle

RENAMED = re.compile(r"_\d+$")


def openvino_reading(path: Path) -> list[frozenset[str]] | None:
    """The names of each tensor of the model read_model builds (but a Result's, which
    repeats its input's), or None when it refuses the file."""
    try:
        model = ov.Core().read_model(path)
    except RuntimeError:
        return None
    return [
        frozenset(out.get_names())
        for op in model.get_ordered_ops()
        if op.get_type_name() != "Result"
        for out in op.outputs()
    ]


def irpool_names(model: irpool.Model) -> list[frozenset[str]]:
    """The names irpool gives each tensor (IR v11: no name comes from a layer's name)."""
    graph = model.graph
    kept = renaming(graph, model.document.ir_version)
    return [
        frozenset(kept_names(kept, (layer_id, 0)))
        for layer_id in graph.order
        if layer_id in graph.reachable and graph.layers[layer_id].type != "Result"
    ]


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
    model = irpool.load(path)
    found = model.validate()
    errors = {d.code for d in found if d.severity is Severity.ERROR}
    codes = {d.code for d in found}
    assert errors <= {"IR509"}, case.xml()
    names = openvino_reading(path)
    if names is None:
        assert errors, f"OpenVINO refuses this file, irpool calls it clean:\n{case.xml()}"
        return
    assert not errors, case.xml()
    renamed = any(RENAMED.search(name) for tensor in names for name in tensor)
    assert ("IR508" in codes) == renamed, f"renamed: {names}\n{case.xml()}"
    if case.version == 11:
        assert sorted(irpool_names(model), key=sorted) == sorted(names, key=sorted), case.xml()
