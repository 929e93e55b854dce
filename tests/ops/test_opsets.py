"""The op-type table (irpool/ops/opsets.json): what irpool concludes from it, and that it
matches the installed OpenVINO's IR reader.

Regenerating the whole table asks the reader about every type in every version (about two
minutes: `python tools/gen_opsets.py --check`); the oracle tests here ask it about a table
of cases that covers each rule of the lookup, and check that the file was made from the
installed release and its opset headers.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from irpool.ops import registry
from irpool.ops.base import KNOWN_OPSETS
from irpool.ops.opsets import extension_op, known_versions, openvino_version, reader_refusal
from irpool.ops.registry import SHARED_MODULES

TOOL = Path(__file__).parents[2] / "tools" / "gen_opsets.py"
TABLE = Path(__file__).parents[2] / "irpool" / "ops" / "opsets.json"

# (type, version, a fragment of the refusal; None: the reader creates the op)
CASES = [
    ("AvgPool", "opset1", None),
    ("avgpool", "opset1", None),  # matched ignoring case
    ("AVGPOOL", "opset16", None),
    ("AvgPool", "opset17", 'opset17 has no op type "AvgPool"; it is in opset1..opset16'),
    ("AvgPoolX", "opset1", "no opset has it"),
    ("", "opset1", 'has no op type ""'),
    ("Prameter", "opset1", "no opset has it"),
    ("AvgPool ", "opset1", "no opset has it"),  # the reader does not trim
    ("Parameter", "opset17", None),
    ("Result", "opset17", "it is in opset1..opset16"),
    ("Relu", "opset1", None),
    ("AdaptiveAvgPool", "opset7", "it is in opset8..opset16"),
    ("AdaptiveAvgPool", "opset8", None),
    ("Const", "opset1", None),
    ("Const", "opset16", None),
    ("Const", "opset17", "it is in opset1..opset16"),
    ("const", "opset1", 'only as "Const"'),
    ("CONST", "opset8", 'only as "Const"'),
    ("Constant", "opset1", 'only from a layer typed "Const"'),
    ("constant", "opset8", 'only from a layer typed "Const"'),
    ("MVN", "opset1", None),  # the reader takes it from opset2, by this exact name only
    ("mvn", "opset1", 'only as "MVN"'),
    ("mvn", "opset2", None),
    ("Proposal", "experimental", None),
    ("proposal", "experimental", 'only as "Proposal"'),
    ("AvgPool", "experimental", "it is in opset1..opset16"),
    ("Proposal", "extension", None),
    ("RegexNormalization", "extension", "no opset has it"),
    ("AvgPool", "extension", "it is in opset1..opset16"),
    ("AvgPool", "", '"" is no version OpenVINO knows'),
    ("AvgPool", "opset0", '"opset0" is no version'),
    ("AvgPool", "opset18", '"opset18" is no version'),
    ("AvgPool", "Opset1", '"Opset1" is no version'),
    ("AvgPool", "opset1 ", '"opset1 " is no version'),
    ("AvgPool", "internal", '"internal" is no version'),
]


@pytest.mark.parametrize(("type_name", "version", "refusal"), CASES)
def test_reader_refusal(type_name: str, version: str, refusal: str | None) -> None:
    found = reader_refusal(type_name, version)
    if refusal is None:
        assert found is None
    else:
        assert found is not None and refusal in found


@pytest.mark.parametrize(
    ("type_name", "version", "extension"),
    [
        ("BPETokenizer", "extension", "openvino_tokenizers"),
        ("StringTensorUnpack", "extension", "openvino_tokenizers"),  # the extension's own
        ("MyOp", "extension", "an extension library"),
        ("Proposal", "extension", None),  # OpenVINO's own extension op
        ("AvgPool", "extension", None),  # a real op with the wrong version: refused
        ("avgpool", "extension", None),
        ("BPETokenizer", "opset1", None),  # not an extension layer: refused
    ],
)
def test_extension_ops(type_name: str, version: str, extension: str | None) -> None:
    assert extension_op(type_name, version) == extension


def test_versions_are_the_opsets_and_the_extension_opsets() -> None:
    assert known_versions() == [f"opset{n}" for n in range(1, 18)] + ["experimental", "extension"]


def test_the_numbered_opsets_irpool_assumes_are_the_table_s() -> None:
    # KNOWN_OPSETS (Parameter's and Result's range, the registry's error text) is read at
    # import, before the table is loaded: it must name the same opsets as the table.
    numbered = [v for v in known_versions() if v.startswith("opset")]
    assert numbered == [f"opset{n}" for n in KNOWN_OPSETS]


# --------------------------------------------------------------------------------------------
# Against the installed OpenVINO
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    ov = pytest.importorskip("openvino")
    if ov.__version__.split("-")[0] != openvino_version():
        pytest.skip(f"opsets.json is for OpenVINO {openvino_version()}, not {ov.__version__}")
    spec = importlib.util.spec_from_file_location("gen_opsets", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    if str(TOOL.parent) not in sys.path:
        sys.path.insert(0, str(TOOL.parent))  # as the tool runs: beside tools/gen_releases.py
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def reader(generator: ModuleType) -> Iterator[object]:
    probe = generator.Reader()
    yield probe
    probe.close()


@pytest.mark.oracle
@pytest.mark.parametrize(("type_name", "version", "refusal"), CASES)
def test_the_reader_agrees(
    type_name: str, version: str, refusal: str | None, reader: object
) -> None:
    creates = reader.creates(type_name, version)  # type: ignore[attr-defined]
    if type_name.lower() == "constant":
        assert creates, "the reader creates a Constant; it only never reads its value"
    else:
        assert creates == (refusal is None)


@pytest.mark.oracle
def test_the_table_covers_every_op_of_the_installed_headers(generator: ModuleType) -> None:
    table = json.loads(TABLE.read_text())
    written = {name for entry in table["versions"].values() for name in entry["types"]}
    assert set(generator.candidate_names()) == written
    assert [v for v in generator.candidate_versions() if v in table["versions"]] == list(
        table["versions"]
    )


def test_the_registry_imports_exactly_the_modules_that_declare_ops() -> None:
    """`SHARED_MODULES` is the one list the registry keeps: a module left off it is imported
    on the first lookup (for conversion: NumPy at start-up), a module wrongly on it loses its
    ops. Every module is imported here, then asked who declared each registered op."""
    import irpool.ops as package

    names = {f"irpool.ops.{module.name}" for module in pkgutil.iter_modules(package.__path__)}
    for name in names:
        importlib.import_module(name)
    declaring = {cls.__module__ for family in registry._BY_TYPE.values() for cls in family}
    declaring -= {__name__}  # tests may register ops of their own
    assert sorted(declaring) == sorted(registry.op_modules())
    assert names - declaring == {f"irpool.ops.{name}" for name in SHARED_MODULES}


@pytest.mark.parametrize(
    ("version", "says"),
    [
        ("opset1 ", "(OpenVINO matches the name exactly, and this one has ' ' after it)"),
        (" opset1", "(OpenVINO matches the name exactly, and this one has ' ' before it)"),
        ("\topset8\t", "has '\\t' before it and '\\t' after it)"),
        ("opset99 ", "(opset1..opset17)"),  # not a known opset with or without the blank
        ("opset0", "(opset1..opset17)"),
    ],
)
def test_an_unknown_opset_s_message_names_the_blanks(version: str, says: str) -> None:
    """OpenVINO refuses "opset1 " ("unsupported opset: opset1 "), where the blank is invisible."""
    found = registry.lookup("Parameter", version)
    assert found.op is None and found.error is not None
    assert found.error.endswith(says), found.error
