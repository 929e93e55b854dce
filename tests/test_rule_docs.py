"""Every rule documents itself: `irpool rule`, SARIF and docs/linter.md all read these fields."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from irpool.cli import cli
from irpool.rules import RULES, Rule


@pytest.mark.parametrize("rule", RULES.values(), ids=list(RULES))
def test_every_rule_has_doc_and_a_wrong_and_right_snippet(rule: Rule) -> None:
    assert rule.doc and rule.wrong and rule.right, f"{rule.code} is missing documentation"
    assert rule.wrong != rule.right
    assert not rule.doc.startswith((" ", "\n")) and not rule.wrong.startswith("\n")


def test_fixable_rules_say_what_the_fix_does() -> None:
    fixable = {code for code, rule in RULES.items() if rule.fixable}
    assert fixable == {"IR112", "IR113", "IR117", "IR119", "IR205", "IR213", "IR224", "IR301"}


@pytest.mark.parametrize("code", RULES)
def test_rule_command_prints_the_full_documentation(runner: CliRunner, code: str) -> None:
    rule = RULES[code]
    result = runner.invoke(cli, ["rule", code])
    assert result.exit_code == 0
    assert result.stdout.startswith(f"{code} {rule.name}\n")
    assert rule.doc in result.stdout and rule.summary in result.stdout
    assert textwrap.indent(rule.wrong, "    ") in result.stdout
    assert textwrap.indent(rule.right, "    ") in result.stdout


def test_rule_by_name_or_lower_case_code(runner: CliRunner) -> None:
    by_name = runner.invoke(cli, ["rule", "declared-dim-mismatch"]).stdout
    assert by_name == runner.invoke(cli, ["rule", "ir301"]).stdout
    assert "Fix: `irpool validate --fix` rewrites the <dim>" in by_name


def test_unknown_rule_is_a_usage_error(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["rule", "IR999"])
    assert result.exit_code == 2 and "no rule 'IR999'" in result.stderr
