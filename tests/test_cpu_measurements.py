"""Every CPU-plugin behaviour irpool models (irpool/cpu/) is what the installed OpenVINO does:
the measurements of tools/measure_cpu.py, run here, and one docs/cpu.md section for each."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "measure_cpu.py"
# The tool's modules, in the order of their sections in docs/cpu.md.
TOOL_MODULES = (
    TOOL,
    ROOT / "tools" / "measure_cpu_math.py",
    ROOT / "tools" / "measure_cpu_attention.py",
    ROOT / "tools" / "measure_cpu_products.py",
)
DOCS = ROOT / "docs" / "cpu.md"


def _registered() -> list[tuple[str, str, str]]:
    """(title, home, function) of each `@behaviour(title, home)` in the tool, read without
    importing it (it needs OpenVINO)."""
    found = []
    nodes = [n for m in TOOL_MODULES for n in ast.parse(m.read_text(encoding="utf-8")).body]
    for node in nodes:
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and ast.unparse(decorator.func) == "behaviour":
                    title, home = (ast.literal_eval(arg) for arg in decorator.args)
                    found.append((title, home, node.name))
    return found


def _sections() -> dict[str, str]:
    parts = re.split(r"^### (.+)$", DOCS.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return {title: body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def test_every_behaviour_has_one_docs_section_naming_its_home_and_measurement() -> None:
    registered, sections = _registered(), _sections()
    assert [title for title, _, _ in registered] == list(sections)
    for title, home, function in registered:
        assert f"`{home}`" in sections[title]
        measured = rf"measured by `{function}`, 2026-12-0[67], AMD EPYC"
        assert re.search(measured, " ".join(sections[title].split()))


def _tool() -> ModuleType:
    pytest.importorskip("openvino")
    spec = importlib.util.spec_from_file_location("measure_cpu", TOOL)
    assert spec is not None and spec.loader is not None
    module = sys.modules.get("measure_cpu") or importlib.util.module_from_spec(spec)
    if "measure_cpu" not in sys.modules:
        sys.path.insert(0, str(TOOL.parent))  # as the tool runs: beside tools/ov_builders.py
        sys.modules["measure_cpu"] = module  # dataclasses resolve annotations through it
        spec.loader.exec_module(module)
    return module


@pytest.mark.oracle
@pytest.mark.parametrize("title", [title for title, _, _ in _registered()])
def test_behaviour_is_unchanged_on_the_installed_openvino(title: str) -> None:
    _tool()  # loading it registers its behaviours in cpu_probe, which runs them
    probe = sys.modules["cpu_probe"]
    (found,) = (b for b in probe.BEHAVIOURS if b.title == title)
    measured: Any = found.measure()
    shown = probe.shown
    assert measured.same, f"CPU: {shown(measured.observed)}; irpool: {shown(measured.assumed)}"
