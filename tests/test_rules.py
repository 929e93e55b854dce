"""One test per rule code: every rule in irpool.rules.RULES has a fixture under tests/rules/.

A fixture is `tests/rules/<CODE>_<what>.xml` (plus `.bin` when it has a Const). Line 2 of
every fixture is an XML comment listing ALL the diagnostics the file must produce, as
`CODE@line:column`, e.g. `<!-- expect: IR301@28:11 IR301@37:11 -->`. The comparison is
exact (a missing diagnostic, an extra one, or a wrong position fails), so noise is caught.

Conditions that cannot be a static file (IR100: a path that cannot be read) are created by
the tests below and listed in SYNTHETIC, so the coverage test still sees them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import irpool
from irpool import rules
from irpool.rules import RULES
from tests import ir
from tests.rule_fixtures import FIXTURES, Found, expected, fixture_code

# Rule codes whose fixture is created by a test in this module instead of a file.
SYNTHETIC = {
    "IR100": "test_ir100_unreadable_path",
    "IR311": "test_ir311_only_at_the_shapes_asked_for",
    "IR230": "test_ir230_only_for_an_older_release",
}


def diagnose(path: Path) -> list[Found]:
    """Everything irpool reports for a file, whether it loads or raises IRError."""
    try:
        diagnostics = irpool.load(path).validate()
    except irpool.IRError as error:
        diagnostics = error.diagnostics
    return sorted((d.code, d.line, d.column) for d in diagnostics)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_diagnostics(path: Path) -> None:
    assert diagnose(path) == expected(path)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_triggers_its_own_rule(path: Path) -> None:
    code = fixture_code(path)
    assert code in RULES, f"{path.name} is named after {code}, which is not in RULES"
    assert code in {found[0] for found in expected(path)}, f"{path.name} never expects {code}"


def test_every_rule_has_a_fixture() -> None:
    covered = {fixture_code(path) for path in FIXTURES} | set(SYNTHETIC)
    missing = sorted(set(RULES) - covered)
    assert not missing, f"rules without a fixture in tests/rules/: {', '.join(missing)}"


def test_synthetic_cases_are_real_rules() -> None:
    assert set(SYNTHETIC) <= set(RULES)
    for test_name in SYNTHETIC.values():
        assert test_name in globals(), f"{test_name} is listed in SYNTHETIC but not defined"


def test_ir100_unreadable_path(tmp_path: Path) -> None:
    # Tests run as root, so file permissions cannot make a file unreadable; a directory
    # named like an IR file cannot be read as one either.
    target = tmp_path / "IR100_directory.xml"
    target.mkdir()
    with pytest.raises(irpool.IRError) as raised:
        irpool.load(target)
    assert sorted((d.code, d.line, d.column) for d in raised.value.diagnostics) == [("IR100", 1, 1)]


def test_ir311_only_at_the_shapes_asked_for(tmp_path: Path) -> None:
    model = irpool.load(ir.write(tmp_path, *ir.flatten_model((1, 32))))
    assert model.validate() == []
    found = model.reshape({"x": "[2,2,4,4]"}).validate()
    assert [(d.code, d.line, d.column) for d in found] == [("IR311", 42, 3)]


def test_ir230_only_for_an_older_release(tmp_path: Path) -> None:
    """An AvgPool of opset14, which releases before 2024.0 do not read."""
    path = ir.write(
        tmp_path,
        ir.pool_model().replace('"AvgPool" version="opset1"', '"AvgPool" version="opset14"'),
    )
    assert irpool.load(path, openvino_version="2024.0").validate() == []
    found = irpool.load(path, openvino_version="2023.3").validate()
    assert [(d.code, d.line, d.column) for d in found] == [("IR230", 15, 53)]


def test_every_rule_has_its_named_code_constant_and_no_constant_lacks_a_rule() -> None:
    constants = {
        name: value
        for name, value in vars(rules).items()
        if isinstance(value, str) and re.fullmatch(r"IR\d{3}", value)
    }
    expected_names = {rule.name.upper().replace("-", "_"): code for code, rule in RULES.items()}
    assert constants == expected_names


def test_checks_name_codes_by_constant_not_by_literal() -> None:
    # A literal "IR301" in a check is a typo waiting to happen: only rules.py spells codes.
    package = Path(irpool.__file__).parent
    literals = [
        f"{path.relative_to(package)}:{node.lineno}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "rules.py" or path.parent != package
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.fullmatch(r"IR\d{3}", node.value)
    ]
    assert not literals, f"rule codes written as literals: {', '.join(literals)}"


def test_no_rule_is_reported_from_more_than_a_handful_of_modules() -> None:
    # A rule named all over the package is a catch-all: split it into one rule per cause.
    package = Path(irpool.__file__).parent
    names = {rule.name.upper().replace("-", "_") for rule in RULES.values()}
    modules: dict[str, set[str]] = {name: set() for name in names}
    for path in package.rglob("*.py"):
        if path == package / "rules.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and node.id in names:
                modules[node.id].add(path.relative_to(package).as_posix())
    assert {name: sorted(found) for name, found in modules.items() if len(found) > 5} == {}
