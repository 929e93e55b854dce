"""The docs hold together: the op index is what tools/gen_ops_index.py writes, every citation
of a docs page (in the package, tools, tests, benchmarks, the README and the docs) names
a page that exists and, after `#`, a heading of that page; no citation is a section number, and
no page names an issue number."""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# `docs/ops/MaxPool.md#kernel-choices` in code, comments and prose.
CITATION = re.compile(r"(?<![\w/.])docs/[A-Za-z0-9_./-]+\.md(?:#[A-Za-z0-9_-]+)?")
# `[text](ops/MaxPool.md#kernel-choices)` or `(#anchor)` in Markdown, relative to the page.
LINK = re.compile(r"\]\((?!https?:|mailto:)([^)\s]*)\)")
CODE_FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(DOCS.rglob("*.md"))]


def _sources() -> list[Path]:
    code = [
        p for top in ("irpool", "tools", "tests", "benchmarks") for p in (ROOT / top).rglob("*.py")
    ]
    return [*sorted(code), *_pages()]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, blanks to -."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@functools.cache
def anchors(page: Path) -> frozenset[str]:
    """Every anchor a page's headings give, the n-th repeat of one suffixed -n."""
    text = CODE_FENCE.sub("", page.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def _citations() -> list[tuple[str, Path, str]]:
    """(where, target file, anchor or "") of every docs citation and relative Markdown link."""
    found = []
    for source in _sources():
        text = source.read_text(encoding="utf-8")
        where = source.relative_to(ROOT).as_posix()
        for match in CITATION.finditer(text):
            path, _, anchor = match.group(0).partition("#")
            found.append((where, ROOT / path, anchor))
        if source.suffix == ".md":
            for target in LINK.findall(CODE_FENCE.sub("", text)):
                path, _, anchor = target.partition("#")
                resolved = (source.parent / path).resolve() if path else source
                found.append((where, resolved, anchor))
    return found


CITATIONS = _citations()


def test_citations_are_found() -> None:
    assert len(CITATIONS) > 100


@pytest.mark.parametrize(
    ("where", "target", "anchor"),
    CITATIONS,
    ids=[f"{where}->{target.name}#{anchor}" for where, target, anchor in CITATIONS],
)
def test_every_docs_citation_resolves(where: str, target: Path, anchor: str) -> None:
    assert target.exists(), f"{where} cites {target}, which does not exist"
    if anchor:
        assert target.suffix == ".md" and anchor in anchors(target), (
            f"{where} cites #{anchor}, which is no heading of {target.name}"
        )


@pytest.mark.parametrize("source", _sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_citation_is_a_section_number(source: Path) -> None:
    """Pages are cited by name and anchor: a section sign and number breaks when a page is
    reordered. (tools/measure_cnn_ops.py numbers the sections of its own printout.)"""
    text = source.read_text(encoding="utf-8")
    if source == ROOT / "tools" / "measure_cnn_ops.py":
        return
    assert re.findall(r"(?<!script )§\s*\d", text) == []


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_issue_numbers_in_the_docs(page: Path) -> None:
    """Docs state facts, not the history of the tracker; a thread of another project is cited
    with its repository (`openvinotoolkit/openvino#18731`)."""
    text = CODE_FENCE.sub("", page.read_text(encoding="utf-8"))
    assert re.findall(r"(?<![\w/.&-])#\d+", text) == []


def test_the_op_index_is_generated() -> None:
    """docs/ops/README.md is what tools/gen_ops_index.py writes; rerun it after adding an op
    or a topic page."""
    spec = importlib.util.spec_from_file_location(
        "gen_ops_index", ROOT / "tools" / "gen_ops_index.py"
    )
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    committed = (DOCS / "ops" / "README.md").read_text(encoding="utf-8")
    assert committed == generator.index(), "docs/ops/README.md is stale: run tools/gen_ops_index.py"
