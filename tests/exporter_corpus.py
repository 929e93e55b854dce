"""What the exporter corpora's tests (tests/test_vision_corpus.py, tests/test_language_corpus.py)
share: reading a case's recorded arrays, the comparison with the CPU plugin's outputs, and the
table of op types not modelled yet, from which each failing case's expected failure is named.

NOT_MODELLED lists the op type-versions the committed files hold that irpool does not model yet
(and the behaviours still missing, named in words). A case holding any of them is expected to
fail (strict xfail naming them); when one lands, delete its entry: every case it alone held back
then passes, or the suite shows which still fails and why.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lxml import etree
from numpy.typing import NDArray

import irpool
from irpool.ops.registry import lookup

ROOT = Path(__file__).resolve().parent.parent

NOT_MODELLED: dict[str, str] = {}
# Behaviours of NOT_MODELLED that one case and sample of the committed corpora meet.
MET_BY_SAMPLE: dict[tuple[str, str], str] = {}
# Of each output's scale (its largest finite |value|). "int8": the NNCF files' bound
# (docs/ops/FakeQuantize.md#the-bound-on-a-whole-nncf-model).
TOLERANCES = {"float": 1e-3, "int8": 5e-2}
# Where the CPU's top two values are nearer than this (of the scale), rounding may pick either:
# the argmax is compared elsewhere (tools/check_torchvision_corpus.py's margin).
ARGMAX_MARGIN = 1e-5
EXTENSION = "extension"


def layer_types(xml: Path) -> set[str]:
    """The file's `Type-opsetN` (or `Type-extension`) layer kinds."""
    root = etree.parse(str(xml)).getroot()
    return {f"{layer.get('type')}-{layer.get('version')}" for layer in root.iter("layer")}


def every_op_modelled(xml: Path) -> bool:
    """Whether irpool has an op for every layer of the file (else it cannot run it)."""
    return not unmodelled_in_registry(layer_types(xml)) and not any(
        kind.endswith(EXTENSION) for kind in layer_types(xml)
    )


def pending(kinds: Iterable[str], behaviours: Iterable[str] = ()) -> list[str]:
    """The NOT_MODELLED entries among the file's layer kinds and the named behaviours."""
    return sorted(set(NOT_MODELLED) & ({*kinds} | {*behaviours}))


def expect_failure(*ids: str, missing: list[str]) -> Any:
    """A pytest.param of the ids, a strict xfail naming what is missing when anything is."""
    if not missing:
        return pytest.param(*ids)
    return pytest.param(*ids, marks=pytest.mark.xfail(strict=True, reason=", ".join(missing)))


def unmodelled_in_registry(kinds: Iterable[str]) -> set[str]:
    """The layer kinds irpool's op registry has no op for (extension types aside)."""
    found = set()
    for kind in kinds:
        name, version = kind.rsplit("-", 1)
        if version != EXTENSION and lookup(name, version).op is None:
            found.add(kind)
    return found


def load_npz(path: Path) -> dict[str, NDArray[Any]]:
    with np.load(path) as archive:
        return {key: archive[key] for key in archive.files}


def validation_problems(xml: Path, *, extension_ops_warn: bool = False) -> list[str]:
    """Errors, and IR202 (an op not checked), `irpool validate` reports on the file; with
    `extension_ops_warn`, IR202 of an extension type is not a problem."""
    layers: dict[str, str] = {}
    for layer in etree.parse(str(xml)).getroot().iter("layer"):
        layers[layer.get("id", "")] = layer.get("version", "")
    problems = []
    for found in irpool.load(xml).validate():
        extension = layers.get(found.layer_id or "") == EXTENSION
        if found.severity is irpool.Severity.ERROR:
            problems.append(f"{found.code} error line {found.line}: {found.message}")
        elif found.code == "IR202" and not (extension and extension_ops_warn):
            problems.append(f"IR202 line {found.line}: {found.message}")
    return problems


def difference(
    got: NDArray[Any], expected: NDArray[Any], tolerance: float, axis: int
) -> str | None:
    """Why `got` is not the CPU plugin's `expected` output, or None when it is: the same shape,
    element type, NaN and infinities; finite values within `tolerance` of the output's scale;
    the same argmax along `axis` wherever the expected top two differ by more than
    ARGMAX_MARGIN of the scale."""
    if got.shape != expected.shape or got.dtype != expected.dtype:
        theirs = f"{expected.dtype}{list(expected.shape)}"
        return f"{got.dtype}{list(got.shape)} where OpenVINO gives {theirs}"
    if expected.dtype.kind not in "fc":
        wrong = int((got != expected).sum())
        return f"{wrong} element(s) differ" if wrong else None
    for label, where in (("NaN", np.isnan), ("+inf", np.isposinf), ("-inf", np.isneginf)):
        if not np.array_equal(where(got), where(expected)):
            return (
                f"{int((where(got) != where(expected)).sum())} element(s) differ in being {label}"
            )
    finite = np.isfinite(expected)
    scale = float(np.abs(expected[finite]).max(initial=0.0)) or 1.0
    error = float(np.abs(got[finite].astype(np.float64) - expected[finite]).max(initial=0.0))
    if error > tolerance * scale:
        return f"max |difference| {error:.3g} exceeds {tolerance:g} x scale {scale:.3g}"
    if expected.ndim == 0 or expected.shape[axis] < 2:
        return None
    ranked = np.sort(np.moveaxis(expected.astype(np.float64), axis, -1), axis=-1)
    decided = np.isfinite(ranked).all(axis=-1) & (
        ranked[..., -1] - ranked[..., -2] > ARGMAX_MARGIN * scale
    )
    flipped = decided & (got.argmax(axis=axis) != expected.argmax(axis=axis))
    return f"argmax differs at {int(flipped.sum())} place(s)" if flipped.any() else None


def run_differences(
    got: Mapping[str, NDArray[Any]],
    expected: Mapping[str, NDArray[Any]],
    tolerance: float,
    axis: int,
) -> dict[str, str]:
    """{output: why it differs} over the recorded outputs (a missing one included)."""
    found = {key: "missing" for key in expected if key not in got}
    for key in expected.keys() & got.keys():
        wanted = expected[key]
        reason = difference(
            np.asarray(got[key]), wanted, tolerance, axis if wanted.ndim > 2 else -1
        )
        if reason:
            found[key] = reason
    return found


def inventory_table(inventory: Mapping[str, Any]) -> str:
    """The table tools/exporter_inventory.py writes into docs/corpus.md (tools/ is scripts, not
    a package)."""
    name = "exporter_inventory"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    shown: str = sys.modules[name].table(inventory)
    return shown
