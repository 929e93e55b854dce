"""The package stays readable as it grows: a module's name says where it is (no two share one,
but an op and its kernel, and a command of the CLI), modules stay at most 400 lines (the rule
catalog aside) and functions at most 80 (click commands aside). The engine (irpool/execute/)
keeps its own limits."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "irpool"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py")
CHECKED = [p for p in MODULES if "execute" not in p.relative_to(PACKAGE).parts]
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80


def _where(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def _shared_by_design(paths: list[Path]) -> bool:
    """An op module and its kernel, or a CLI command named after what it runs."""
    tops = sorted(path.relative_to(PACKAGE).parts[0] for path in paths)
    return len(paths) == 2 and (tops == ["execute", "ops"] or "cli" in tops)


def test_no_two_modules_share_a_name() -> None:
    by_name: dict[str, list[Path]] = defaultdict(list)
    for path in MODULES:
        by_name[path.name].append(path)
    shared = {
        name: [_where(p) for p in paths]
        for name, paths in by_name.items()
        if len(paths) > 1 and not _shared_by_design(paths)
    }
    assert shared == {}


@pytest.mark.parametrize("path", CHECKED, ids=_where)
def test_module_length(path: Path) -> None:
    if path == PACKAGE / "rules.py":
        pytest.skip("the rule catalog is one table")
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_MODULE_LINES


def _is_click_command(node: ast.FunctionDef) -> bool:
    return any("command" in ast.unparse(decorator) for decorator in node.decorator_list)


@pytest.mark.parametrize("path", CHECKED, ids=_where)
def test_function_length(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
        and not _is_click_command(node)
    ]
    assert long == []
