"""Every IR file in the repository that OpenVINO itself wrote (`ov.save_model`, which signs
the file with its `<rt_info>` runtime version), unedited: where OpenVINO reads it and the CPU
plugin compiles it, `validate` reports no error but those in KNOWN, each a report of what
really runs. The rule fixtures (tests/rules/) are excluded: they are saved models edited on
purpose."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import irpool
from irpool.rules import Severity

pytest.importorskip("openvino")
from tests.differential.openvino_worker import (
    Oracle,  # imported after the skip: it needs openvino
)

pytestmark = pytest.mark.oracle

ROOT = Path(__file__).parents[1]
EDITED = (ROOT / "tests" / "rules",)
SIGNED = re.compile(rb'<info name="OpenVINO Runtime"|<Runtime_version')
# file -> the codes of the errors it keeps: what irpool reports there is what runs.
KNOWN = {
    # output_size 0, which the specification forbids: the CPU runs it, to an empty output
    "tests/conformance/adaptive8_r3_to0_size_i64_empty/model.xml": ["IR304"],
}


def openvino_written() -> list[Path]:
    found = []
    for folder in (ROOT / "tests", ROOT / "examples"):
        for path in sorted(folder.rglob("*.xml")):
            if any(path.is_relative_to(edited) for edited in EDITED):
                continue
            if SIGNED.search(path.read_bytes()):
                found.append(path)
    return found


FILES = openvino_written()


def test_the_corpora_hold_openvino_written_files() -> None:
    assert len(FILES) > 300  # tests/models, tests/golden/models, examples/valid and the rest


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    judge = Oracle()  # a worker process: a CPU plugin crash is a verdict, not a lost run
    yield judge
    judge.close()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_no_error_where_the_cpu_compiles_it(path: Path, oracle: Oracle) -> None:
    verdict = oracle.judge(path)
    if verdict.rejected:
        pytest.skip(f"OpenVINO refuses it at {verdict.stage}: {verdict.message[:120]}")
    errors = [d for d in irpool.load(path).validate() if d.severity is Severity.ERROR]
    known = KNOWN.get(path.relative_to(ROOT).as_posix(), [])
    assert [d.code for d in errors] == known, "\n".join(f"{d.code} {d.message}" for d in errors)
