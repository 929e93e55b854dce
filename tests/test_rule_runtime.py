"""Every rule's `runtime` claim is checked against OpenVINO itself: each fixture in tests/rules/
goes through `read_model` and a CPU `compile_model` (in a worker process, so a plugin abort
is a verdict, not a lost test run), and the outcome must be what its rule says OpenVINO
does. A file OpenVINO refuses must also get at least one error from irpool, unless it holds an
extension's ops (IR229), which OpenVINO reads with the extension loaded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from irpool.rules import RULES, Runtime, Severity
from tests.differential.openvino_worker import Oracle
from tests.rule_fixtures import FIXTURES, expected, fixture_code, refused_on_this_host

pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

# The stages at which OpenVINO fails a file, for each claim (None: it loads and compiles).
# A compile that crashes the CPU plugin sometimes hangs the worker instead of killing it.
OUTCOMES: dict[Runtime, set[str | None]] = {
    "rejects": {"read", "compile"},
    "crashes": {"compile", "crash", "timeout"},
    "reinterprets": {None},
    "ignores": {None},
    "fails": {None},  # the failure comes at inference, which the oracle does not run
    "sometimes": {None, "compile", "crash", "timeout"},
    "extension": {"read"},  # the oracle loads no extension library
}


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    judge = Oracle()
    yield judge
    judge.close()


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_shows_its_rules_runtime_claim(path: Path, oracle: Oracle) -> None:
    rule = RULES[fixture_code(path)]
    verdict = oracle.judge(path)
    if not refused_on_this_host(path):
        assert verdict.stage is None, f"this host's CPU plugin fails at {verdict.stage}"
        return
    assert verdict.stage in OUTCOMES[rule.runtime], (
        f"{rule.code} claims OpenVINO {rule.runtime} this file, but "
        + (f"it fails at {verdict.stage}: {verdict.message}" if verdict.stage else "it loads")
    )
    if verdict.rejected and rule.runtime != "extension":
        severities = {RULES[code].severity for code, _, _ in expected(path)}
        assert Severity.ERROR in severities, "OpenVINO refuses the file, irpool gives no error"
