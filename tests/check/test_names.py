"""IR508 and IR509 say which tensors collide and why (irpool/check/names.py). Whether they
fire at all is compared with OpenVINO in test_names_openvino.py; here, what they say."""

from __future__ import annotations

from pathlib import Path

import pytest

import irpool
from tests.check.names_models import Case

# (case, the one finding expected: code, layer it is on, words its message must hold)
FINDINGS = [
    pytest.param(
        Case(11, (("p", ("a",)),), (("x", ("a",), 0),), ((1, ()),)),
        ("IR508", "x", ['tensor name "a" also names output 0 of layer 0 "p"']),
        id="v11-port-names-repeat",
    ),
    pytest.param(
        Case(11, (("p", ("a",)),), (("x", (), 0),), ((1, ("a",)),)),
        ("IR508", "result 2", ['tensor name "a" also names output 0 of layer 0 "p"']),
        id="v11-output-names-repeat",
    ),
    pytest.param(
        Case(10, (("p", ("a",)),), (), ((0, ()),)),
        ("IR509", "result 1", ['"p" (Parameter) feeds layer 1', 'tensor name "a" too']),
        id="v10-named-parameter-feeds-result",
    ),
    pytest.param(
        Case(10, (("p", ()),), (("x", ("t",), 0),), ((1, ()), (1, ()))),
        ("IR509", "result 3", ['take the same tensor, named "t"']),
        id="v10-two-results-one-named-tensor",
    ),
    pytest.param(
        Case(10, (("p", ("x",)),), (("x", (), 0),), ((1, ()),)),
        ("IR509", "x", ['after the layer feeding it ("x")', 'the output of layer 0 "p"']),
        id="v10-layer-feeding-result-named-like-a-tensor",
    ),
    pytest.param(
        Case(10, (("p", ()),), (("x", ("p",), 0),), ((1, ()),)),
        ("IR509", "p", ['after its Parameter ("p")', 'output 0 of layer 1 "x"']),
        id="v10-parameter-named-like-a-tensor",
    ),
    pytest.param(
        Case(10, (("p", ()), ("p", ())), (("x", (), 0), ("y", (), 1)), ((2, ()), (3, ()))),
        ("IR509", "p", ['the output of layer 0 "p" (Parameter), named after it,']),
        id="v10-two-parameters-one-name",
    ),
]


@pytest.mark.parametrize(("case", "expected"), FINDINGS)
def test_name_findings_say_which_tensors(
    case: Case, expected: tuple[str, str, list[str]], tmp_path: Path
) -> None:
    path = tmp_path / "model.xml"
    path.write_text(case.xml(), encoding="utf-8")
    found = irpool.load(path).validate()
    code, layer, words = expected
    assert [(d.code, d.layer_name) for d in found] == [(code, layer)]
    assert all(word in found[0].message for word in words), found[0].message


@pytest.mark.parametrize(
    "case",
    [
        Case(11, (("p", ("a",)),), (("x", ("b",), 0),), ((1, ("b",)),)),  # as the serializer
        Case(10, (("p", ("p",)),), (("x", ("x",), 0),), ((1, ()),)),  # names match the layers
        Case(11, (("p", ()), ("p", ())), (("x", (), 0), ("y", (), 1)), ((2, ()), (3, ()))),
    ],
)
def test_names_openvino_accepts_as_written_are_clean(case: Case, tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    path.write_text(case.xml(), encoding="utf-8")
    assert irpool.load(path).validate() == []
