"""The tests keep their own house rules: a test module imports helper modules only, never
another test module; every test that needs OpenVINO is marked `oracle`, so that
`-m "not oracle"` runs exactly the tests that do not; a module that draws a generated count of
cases (tests/scale.py) is marked `slow`; and `<net>` is written by hand only where tests/ir.py
cannot write it (malformed files, source positions, formatting)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
MODULES = sorted(TESTS.rglob("*.py"))
TEST_MODULES = [p for p in MODULES if p.name.startswith("test_")]


def _where(path: Path) -> str:
    return path.relative_to(TESTS).as_posix()


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _imported_modules(tree: ast.Module) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


@pytest.mark.parametrize("path", TEST_MODULES, ids=_where)
def test_a_test_module_imports_no_other_test_module(path: Path) -> None:
    imported = {
        name
        for name in _imported_modules(_tree(path))
        if name.startswith("tests.") and name.split(".")[-1].startswith("test_")
    }
    assert imported == set(), "shared helpers belong in a helper module (no test_ prefix)"


def _uses_openvino(node: ast.AST) -> bool:
    """Whether `node` imports openvino or skips without it."""
    for child in ast.walk(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            names = [child.module or ""] if isinstance(child, ast.ImportFrom) else []
            names += [alias.name for alias in getattr(child, "names", [])]
            if isinstance(child, ast.Import) and any(n.split(".")[0] == "openvino" for n in names):
                return True
            if isinstance(child, ast.ImportFrom) and names[0].split(".")[0] == "openvino":
                return True
        if (
            isinstance(child, ast.Call)
            and ast.unparse(child.func).endswith("importorskip")
            and child.args
            and isinstance(child.args[0], ast.Constant)
            and str(child.args[0].value).split(".")[0] == "openvino"
        ):
            return True
    return False


def _top_level_uses(tree: ast.Module) -> bool:
    statements = [n for n in tree.body if not isinstance(n, ast.FunctionDef | ast.ClassDef)]
    return any(_uses_openvino(n) for n in statements)


# Helper modules that skip their importers without OpenVINO (single_layer.py, ...).
ORACLE_HELPERS = {
    ".".join(path.relative_to(TESTS.parent).with_suffix("").parts)
    for path in MODULES
    if not path.name.startswith("test_") and _top_level_uses(_tree(path))
}


def _marked(node: ast.FunctionDef | ast.ClassDef) -> bool:
    return any("mark.oracle" in ast.unparse(d) for d in node.decorator_list)


def _module_marked(tree: ast.Module, marker: str = "oracle") -> bool:
    return any(
        isinstance(n, ast.Assign)
        and any(ast.unparse(t) == "pytestmark" for t in n.targets)
        and f"mark.{marker}" in ast.unparse(n.value)
        for n in tree.body
    )


def _unmarked_oracle_tests(tree: ast.Module) -> list[str]:
    """The tests that need OpenVINO (directly, through a helper or fixture of the module, or
    through a class) and carry no `oracle` mark."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    using = {name for name, node in functions.items() if _uses_openvino(node)}
    while True:  # helpers and fixtures that reach one
        reached = {
            name
            for name, node in functions.items()
            if name not in using
            and (
                any(isinstance(c, ast.Name) and c.id in using for c in ast.walk(node))
                or any(a.arg in using for a in node.args.args)
            )
        }
        if not reached:
            break
        using |= reached
    unmarked = [name for name in using if name.startswith("test_") and not _marked(functions[name])]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        if _uses_openvino(cls) and not _marked(cls):
            unmarked.append(cls.name)
    return sorted(unmarked)


@pytest.mark.parametrize("path", TEST_MODULES, ids=_where)
def test_every_test_needing_openvino_is_marked_oracle(path: Path) -> None:
    tree = _tree(path)
    if _module_marked(tree):
        return
    helpers = ORACLE_HELPERS & set(_imported_modules(tree))
    assert not helpers and not _top_level_uses(tree), "the module needs `pytestmark = oracle`"
    assert _unmarked_oracle_tests(tree) == []


def _draws_a_generated_count(tree: ast.Module) -> bool:
    """Whether the module's top scales a count (`examples(...)`) or takes the harness's."""
    top = [n for n in tree.body if not isinstance(n, ast.FunctionDef | ast.ClassDef)]
    scaled = any(
        isinstance(c, ast.Call) and ast.unparse(c.func) == "examples"
        for n in top
        for c in ast.walk(n)
    )
    shared = any(
        isinstance(n, ast.ImportFrom) and any(a.name == "PER_OP" for a in n.names)
        for n in tree.body
    )
    return scaled or shared


@pytest.mark.parametrize(
    "path", [p for p in TEST_MODULES if _draws_a_generated_count(_tree(p))], ids=_where
)
def test_a_module_of_generated_cases_is_marked_slow(path: Path) -> None:
    assert _module_marked(_tree(path), "slow")


def test_the_markers_are_registered() -> None:
    pyproject = (TESTS.parent / "pyproject.toml").read_text(encoding="utf-8")
    registered = set(re.findall(r'^\s*"(\w+): ', pyproject, re.M))
    assert {"oracle", "slow"} <= registered


# Where IR is still written by hand, and why tests/ir.py cannot write it. parse/, graph/ and
# hardening/ test the reading of IR text itself.
HAND_WRITTEN = {
    "check/test_coverage.py": "a malformed file",
    "check/test_max_pool_outputs.py": "edits a rule fixture's text",
    "check/test_runtime_values.py": "a suppression comment before <net>",
    "check/test_suppression.py": "comments placed in a file's text",
    "check/test_unknown_values.py": "a user's model, as written",
    "cli/test_discovery.py": "root elements read from a file's first bytes",
    "cli/test_explain_options.py": "a header before <net>",
    "cli/test_precommit.py": "a file that is not IR",
    "cli/test_validate.py": "malformed files",
    "differential/test_fuzz_openvino.py": "mutations of a model's text",
    "differential/test_pad_value.py": "a suppression comment before <net>",
    "execute/test_run_time_sizes.py": "edits a golden model's text",
    "lsp/test_server.py": "source positions",
    "ops/test_convolution.py": "edits a golden model's dims",
    "report/test_formats.py": "source positions and fingerprints",
    "test_api_run.py": "edits a fixture's text",
    "test_fix.py": "the formatting that fixes keep",
    "test_runtime_verdicts.py": "mutations of OpenVINO's serialized text",
    "test_rule_families.py": "a suppression comment inserted into a fixture's text",
    "test_suite_layout.py": "this list",
    "test_torchvision_corpus.py": "a malformed file",
}
TAGS = ("<net", "<layer ", "<port ", "<edge ")


def _writes_ir_text(path: Path) -> bool:
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            text = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
            if any(tag in text for tag in TAGS):
                return True
    return False


def test_ir_is_written_by_hand_only_where_the_builder_cannot() -> None:
    exempt = {"parse", "graph", "hardening"}
    writers = {
        _where(path)
        for path in MODULES
        if path.relative_to(TESTS).parts[0] not in exempt
        and path.name != "ir.py"
        and _writes_ir_text(path)
    }
    assert writers == set(HAND_WRITTEN), "build IR with tests/ir.py, or say here why not"
