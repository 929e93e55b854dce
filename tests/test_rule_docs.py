"""Every rule documents itself: `irpool rule`, SARIF and docs/linter.md all read these fields."""

from __future__ import annotations

import pytest

from irpool.rules import RULES, Rule


@pytest.mark.parametrize("rule", RULES.values(), ids=list(RULES))
def test_every_rule_has_doc_and_a_wrong_and_right_snippet(rule: Rule) -> None:
    assert rule.doc and rule.wrong and rule.right, f"{rule.code} is missing documentation"
    assert rule.wrong != rule.right
    assert not rule.doc.startswith((" ", "\n")) and not rule.wrong.startswith("\n")


def test_fixable_rules_say_what_the_fix_does() -> None:
    fixable = {code for code, rule in RULES.items() if rule.fixable}
    assert fixable == {"IR112", "IR113", "IR213", "IR301"}
