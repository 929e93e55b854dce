"""For every OpenVINO-written model in the repository's corpora, a `.bin` that is missing,
truncated or a Git LFS pointer never adds a shape finding (IR3xx) and never adds a fix (#24):
what depends on the weights' values is unknown, not wrong."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import irpool

ROOT = Path(__file__).resolve().parents[2]
# Written by ov.save_model (tools/gen_*.py): tests/golden, tests/family_corpus,
# tests/shape_corpus and the examples with weights.
MODELS = sorted(
    path
    for pattern in (
        "tests/golden/**/*.xml",
        "tests/family_corpus/*/model.xml",
        "tests/shape_corpus/*/model.xml",
        "examples/valid/*.xml",
    )
    for path in ROOT.glob(pattern)
    if path.with_suffix(".bin").is_file()
)
LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 123456\n"
)


def _broken(data: bytes) -> dict[str, bytes | None]:
    return {
        "missing": None,
        "empty": b"",
        "half": data[: len(data) // 2],
        "last byte cut": data[:-1],
        "lfs pointer": LFS_POINTER,
    }


def _shape_findings_and_edits(path: Path) -> tuple[set[tuple[str, int, int]], set[object]]:
    found = irpool.load(path).validate()
    shapes = {(d.code, d.line, d.column) for d in found if d.code.startswith("IR3")}
    edits = {(d.edit.start, d.edit.end, d.edit.text) for d in found if d.edit is not None}
    return shapes, edits


def test_the_corpora_are_there() -> None:
    assert len(MODELS) > 100


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_broken_weights_add_no_shape_finding_and_no_fix(tmp_path: Path, path: Path) -> None:
    shapes, edits = _shape_findings_and_edits(path)
    copy = tmp_path / "model.xml"
    shutil.copyfile(path, copy)
    for kind, data in _broken(path.with_suffix(".bin").read_bytes()).items():
        copy.with_suffix(".bin").unlink(missing_ok=True)
        if data is not None:
            copy.with_suffix(".bin").write_bytes(data)
        broken_shapes, broken_edits = _shape_findings_and_edits(copy)
        assert broken_shapes <= shapes, f"{kind}: {sorted(broken_shapes - shapes)}"
        assert broken_edits <= edits, f"{kind}: {broken_edits - edits}"
