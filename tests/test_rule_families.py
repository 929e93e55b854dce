"""IR214 names the family of CPU refusals (IR6xx), one rule per cause: configs, command-line
selectors, inline suppressions and `irpool rule` that name IR214 (or compile-crash) reach every
rule of the family, and each rule alone can be selected or ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli
from irpool.config import Config, resolve, unknown_selectors
from irpool.rules import FAMILIES, RULES

RULES_DIR = Path(__file__).parent / "rules"
STRIDE = RULES_DIR / "IR603_negative_stride.xml"  # IR205 and IR603 on the same layer
CPU_RULES = sorted(code for code in RULES if code.startswith("IR6"))


@pytest.mark.parametrize("selector", ["IR214", "ir214", "compile-crash", "IR6"])
def test_a_family_selector_names_every_cpu_refusal(selector: str) -> None:
    assert sorted(resolve([selector])) == CPU_RULES
    assert unknown_selectors([selector]) == []


def test_every_cpu_refusal_is_in_the_family_and_says_what_the_cpu_does() -> None:
    assert sorted(FAMILIES["IR214"]) == CPU_RULES
    assert all(RULES[code].runtime in ("crashes", "fails", "sometimes") for code in CPU_RULES)


@pytest.mark.parametrize(
    ("ignore", "left"),
    [(("IR214",), ["IR205"]), (("IR603",), ["IR205"]), (("IR616",), ["IR205", "IR603"])],
)
def test_ignoring_the_family_or_one_cause(ignore: tuple[str, ...], left: list[str]) -> None:
    config = Config(ignore=ignore)
    diagnostics = config.apply(irpool.load(STRIDE).validate(), STRIDE)
    assert sorted(d.code for d in diagnostics) == left


@pytest.mark.parametrize("written", ["IR214", "ir214", "IR603"])
def test_an_inline_suppression_of_the_family_or_the_code(written: str, tmp_path: Path) -> None:
    path = tmp_path / "stride.xml"
    text = STRIDE.read_text(encoding="utf-8")
    layer = '\t\t<layer id="1" name="pool"'
    path.write_text(text.replace(layer, f"\t\t<!-- irpool: ignore {written} -->\n{layer}"))
    assert sorted(d.code for d in irpool.load(path).validate()) == ["IR205"]


def test_the_rule_command_lists_the_family(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["rule", "IR214"])
    assert result.exit_code == 0
    assert all(f"{code}  {RULES[code].name}" in result.stdout for code in CPU_RULES)
    assert runner.invoke(cli, ["rule", "compile-crash"]).stdout == result.stdout
