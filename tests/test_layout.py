"""The package stays readable as it grows: a stage never imports a later one (the pipeline
is the layout), a module's name says where it is (no two share one, but an op and its kernel,
and a command of the CLI), modules stay at most 400 lines (the rule catalog aside) and
functions at most 80 (click commands aside), execute/ included. The scripts beside it, tools/
and benchmarks/, keep to 600 lines a module and the same 80 a function."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "irpool"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
ROOT = PACKAGE.parent
SCRIPTS = sorted(
    path for folder in ("tools", "benchmarks") for path in (ROOT / folder).rglob("*.py")
)
MAX_SCRIPT_LINES = 600


def _where(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


# The pipeline's order: a package may import its own stage and earlier ones only.
STAGES = {"parse": 0, "graph": 1, "ops": 1, "check": 2, "execute": 3, "compare": 3, "report": 3}
STAGES["cpu"] = STAGES["check"]  # the CPU plugin's behaviour: checking and execution consult it
STAGES["cli"] = 4
STAGES["lsp"] = STAGES["cli"]


def _imported(tree: ast.AST) -> set[str]:
    """The irpool packages a module imports, at its top or inside functions."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {name.split(".")[1] for name in names if name.startswith("irpool.")}


@pytest.mark.parametrize(
    "path", [p for p in MODULES if p.relative_to(PACKAGE).parts[0] in STAGES], ids=_where
)
def test_no_stage_imports_a_later_one(path: Path) -> None:
    """Modules beside the stages (irpool/shape.py, rules.py, ...) are shared by all of them."""
    stage = path.relative_to(PACKAGE).parts[0]
    imported = _imported(ast.parse(path.read_text(encoding="utf-8")))
    later = {name for name in imported if STAGES.get(name, -1) > STAGES[stage]}
    assert later == set()


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


@pytest.mark.parametrize("path", MODULES, ids=_where)
def test_module_length(path: Path) -> None:
    if path == PACKAGE / "rules.py":
        pytest.skip("the rule catalog is one table")
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_MODULE_LINES


def _is_click_command(node: ast.FunctionDef) -> bool:
    return any("command" in ast.unparse(decorator) for decorator in node.decorator_list)


def _long_functions(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
        and not _is_click_command(node)
    ]


@pytest.mark.parametrize("path", MODULES, ids=_where)
def test_function_length(path: Path) -> None:
    assert _long_functions(path) == []


def _script(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", SCRIPTS, ids=_script)
def test_script_length(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_SCRIPT_LINES


@pytest.mark.parametrize("path", SCRIPTS, ids=_script)
def test_script_function_length(path: Path) -> None:
    assert _long_functions(path) == []
