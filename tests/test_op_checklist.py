"""CONTRIBUTING.md's "Adding an op" checklist, enforced for every op the registry holds: an op
module, a kernel (or a role that needs none), a docs page with the `validate` and `run` rows the
ops index shows, a rule fixture and a differential test against OpenVINO. A new op without one
fails here."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from irpool.execute.registry import kernel_of_class
from irpool.ops.base import Op, Role
from irpool.ops.registry import registered_ops

ROOT = Path(__file__).resolve().parent.parent
FAMILIES: dict[str, list[type[Op]]] = {}
for _cls in registered_ops():
    FAMILIES.setdefault(_cls.type_name, []).append(_cls)
OPS = sorted(FAMILIES)


@cache
def _text(folder: str, pattern: str) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / folder).glob(pattern))}


def test_every_op_is_checked() -> None:
    assert len(OPS) >= 50


@pytest.mark.parametrize("op", OPS)
def test_op_module(op: str) -> None:
    for cls in FAMILIES[op]:
        path = ROOT / (cls.__module__.replace(".", "/") + ".py")
        assert cls.__module__.startswith("irpool.ops.") and path.exists()


@pytest.mark.parametrize("op", OPS)
def test_kernel_or_a_role_that_needs_none(op: str) -> None:
    """A computed op has a kernel; Parameter, Const and Result are bound, read and returned by
    the runner itself (`Role`)."""
    for cls in FAMILIES[op]:
        assert kernel_of_class(cls) is not None or cls.role is not Role.COMPUTED, cls.__name__


@pytest.mark.parametrize("op", OPS)
def test_docs_page(op: str) -> None:
    page = ROOT / "docs" / "ops" / f"{op}.md"
    assert page.exists()
    assert page.read_text(encoding="utf-8").startswith(f"# {op}\n")


@pytest.mark.parametrize("op", OPS)
def test_rule_fixture(op: str) -> None:
    """At least one fixture of tests/rules/ holds a layer of the op (any spelling of its type)."""
    layer = re.compile(rf'type="{op}"', re.IGNORECASE)
    assert [name for name, text in _text("tests/rules", "*.xml").items() if layer.search(text)]


@pytest.mark.parametrize("op", OPS)
def test_differential_test_against_openvino(op: str) -> None:
    """A module of tests/differential/ names the op's type (a quoted string: the layer it
    builds for OpenVINO) and compares irpool with the CPU plugin on it."""
    named = re.compile(rf"[\"']{op}[\"']", re.IGNORECASE)
    modules = _text("tests/differential", "test_*.py")
    assert [name for name, text in modules.items() if named.search(text)]


@pytest.mark.parametrize("op", OPS)
def test_docs_page_says_what_validate_checks_and_run_computes(op: str) -> None:
    """The header rows docs/ops/README.md's table is generated from."""
    header = (ROOT / "docs" / "ops" / f"{op}.md").read_text(encoding="utf-8").split("\n## ", 1)[0]
    for row in ("validate", "run"):
        assert re.search(rf"^\| {row} \| \S.* \|$", header, re.M), (op, row)
