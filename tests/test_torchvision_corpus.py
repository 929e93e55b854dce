"""The torchvision classifiers as OpenVINO converts them: the twelve CNNs of issue #20 and the
three transformers of issue #23.

tests/models/torchvision holds reduced versions (fewer channels, smaller inputs, the same graph;
the transformers also fewer blocks and heads) made by tools/gen_torchvision_corpus.py from
torchvision itself, each with the CPU plugin's
outputs on a randn input and on one holding ±inf and NaN; inventory.json is what the full-size
files hold (docs/corpus.md). Until every op type of the inventory is modelled, the expected state
is exact: no error, IR202 for exactly the unmodelled types, and `run` refusing with a clear
message; each op that lands tightens these tests (no IR202 for it; once a model holds no
unmodelled type, `run` must reproduce OpenVINO).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from lxml import etree

import irpool
from irpool.ops.registry import lookup

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "models" / "torchvision"
INDEX: dict[str, Any] = json.loads((CORPUS / "index.json").read_text())
INVENTORY: dict[str, Any] = json.loads((CORPUS / "inventory.json").read_text())
CASES = {case["name"]: case for case in INDEX["cases"]}
CNN_MODELS = (
    "resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "squeezenet1_0",
    "densenet121", "googlenet", "inception_v3", "vgg11", "efficientnet_b0",
    "shufflenet_v2_x0_5", "regnet_y_400mf",
)  # fmt: skip
TRANSFORMER_MODELS = ("convnext_tiny", "swin_t", "vit_b_16")  # issue #23, default input only
MODELS = CNN_MODELS + TRANSFORMER_MODELS
# The op types each issue names beyond the pooling family; the files must hold each.
ISSUE_OPS = (
    "Convolution", "GroupConvolution", "ReLU", "Clamp", "Sigmoid", "Swish", "HSwish", "HSigmoid",
    "Add", "Multiply", "Divide", "Floor", "Mod", "Greater", "Concat", "MatMul", "Transpose",
    "Gather", "ShapeOf", "VariadicSplit",
)  # fmt: skip
ISSUE_23_OPS = (
    "MVN", "Gelu", "SoftMax", "Slice", "Split", "Pad", "Power", "Subtract", "Range", "Roll",
    "ScatterNDUpdate", "Select", "Equal", "NotEqual", "Broadcast", "FloorMod", "ReduceProd",
    "ScaledDotProductAttention",
)  # fmt: skip


@functools.cache
def _tool(name: str) -> ModuleType:
    """A module of tools/ (they are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _layers(case: str) -> dict[str, tuple[str, str]]:
    """{layer id: (type, version)} of a case's model.xml."""
    root = etree.parse(str(CORPUS / case / "model.xml")).getroot()
    return {
        layer.get("id"): (layer.get("type"), layer.get("version")) for layer in root.iter("layer")
    }


def _unmodelled(types: set[tuple[str, str]]) -> set[str]:
    """The op types irpool has no op for (the registry every check and kernel goes through)."""
    return {kind for kind, version in types if lookup(kind, version).op is None}


def test_the_corpus_is_the_fifteen_classifiers_in_every_variant() -> None:
    expected = {f"{model}-default-{p}" for model in MODELS for p in ("fp16", "fp32")}
    expected |= {
        f"{model}-{kind}-{p}"
        for model in ("resnet18", "shufflenet_v2_x0_5")
        for kind in ("static", "dynamic_batch")
        for p in ("fp16", "fp32")
    }
    assert set(CASES) == expected
    assert set(INVENTORY["cases"]) == expected  # the inventory saw the full-size twins
    for name, case in CASES.items():
        assert case["compress_to_fp16"] == name.endswith("fp16"), name
        assert set(case["samples"]) == {"randn", "nonfinite"}, name


def test_the_committed_corpus_stays_small() -> None:
    size = sum(path.stat().st_size for path in CORPUS.rglob("*") if path.is_file())
    assert size <= 30 * 2**20, f"{size / 2**20:.1f} MB"


def test_the_recorded_inputs_are_what_the_index_says() -> None:
    for name, case in CASES.items():
        for sample, recorded in case["samples"].items():
            with np.load(CORPUS / name / f"inputs-{sample}.npz") as inputs:
                (array,) = (inputs[key] for key in inputs.files)
            assert list(array.shape) == recorded["input_shape"], name
            assert array.dtype == np.float32, name
            nonfinite = int((~np.isfinite(array)).sum())
            assert nonfinite == (6 if sample == "nonfinite" else 0), (name, sample)


@pytest.mark.parametrize("name", sorted(CASES))
def test_validates_without_error_and_reports_exactly_the_unmodelled_types(name: str) -> None:
    layers = _layers(name)
    findings = irpool.load(CORPUS / name / "model.xml").validate()
    errors = [d for d in findings if d.severity is irpool.Severity.ERROR]
    assert not errors, "\n".join(f"{d.code} line {d.line}: {d.message}" for d in errors)
    unchecked = [layers[d.layer_id][0] for d in findings if d.code == "IR202" and d.layer_id]
    assert len(unchecked) == len(set(unchecked)), "one IR202 per type"
    assert set(unchecked) == _unmodelled(set(layers.values()))


def test_the_unchecked_types_are_the_inventorys_unmodelled_ones() -> None:
    """The reduced corpus leaves unchecked exactly what the full-size files hold unmodelled."""
    inventory = {(kind, v) for kind, versions in INVENTORY["ops"].items() for v in versions}
    corpus = {kind_version for name in CASES for kind_version in _layers(name).values()}
    assert corpus == inventory
    assert _unmodelled(corpus) == _unmodelled(inventory)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_outputs_recorded_on_randn_are_informative(name: str) -> None:
    """Outputs all equal (vit_b_16's head, zeroed by torchvision, once gave 0 everywhere) or a
    top-1 class that rounding could swap would let a wrong run pass the comparison."""
    check = _tool("check_torchvision_corpus")
    with np.load(CORPUS / name / "outputs-randn.npz") as recorded:
        found = {key: check.uninformative(recorded[key]) for key in recorded.files}
    assert found and not any(found.values()), found


@pytest.mark.parametrize(
    ("recorded", "verdict"),
    [
        ([[0.5, -1.0, 2.0]], None),
        ([[0.0, 0.0, 0.0]], "every value 0"),
        ([[1.0, 2.0], [3.0, 3.0]], "1 row(s) with every value 3"),
        ([[2.0, 1.0, 2.0]], "top two classes 0 apart"),
        ([[2.0, 1.0, 1.99999]], "within 1e-05 x scale 2"),
        ([[2.0, 1.0, 1.9999]], None),
        ([[np.nan, 1.0, 2.0]], "1 value(s) not finite"),
        ([[1.0]], "no two classes"),
    ],
)
def test_uninformative_outputs_are_told(recorded: list[list[float]], verdict: str | None) -> None:
    found = _tool("check_torchvision_corpus").uninformative(np.array(recorded, np.float32))
    assert found is None if verdict is None else verdict in found


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_reproduces_openvino_or_names_the_unmodelled_op(name: str) -> None:
    check = _tool("check_torchvision_corpus")
    unmodelled = _unmodelled(set(_layers(name).values()))
    model = irpool.load(CORPUS / name / "model.xml")
    for sample in CASES[name]["samples"]:
        with np.load(CORPUS / name / f"inputs-{sample}.npz") as inputs:
            feed = dict(inputs)
        with np.load(CORPUS / name / f"outputs-{sample}.npz") as recorded:
            expected = dict(recorded)
        if unmodelled:
            with pytest.raises(irpool.IRError) as raised:
                model.run(feed)
            message = str(raised.value)
            assert any(re.search(rf"\b{kind}\b", message) for kind in unmodelled), message
            continue
        outputs = model.run(feed)
        assert sorted(outputs) == sorted(expected), name
        for key, wanted in expected.items():
            assert check.difference(outputs[key], wanted) is None, (name, sample, key)


def test_the_files_hold_every_op_the_issues_list() -> None:
    for listed, models in ((ISSUE_OPS, CNN_MODELS), (ISSUE_23_OPS, TRANSFORMER_MODELS)):
        held = {
            kind
            for kind, versions in INVENTORY["ops"].items()
            for seen in versions.values()
            if any(case.split("-")[0] in models for case in seen["layers"])
        }
        assert set(listed) <= held, set(listed) - held


def test_docs_show_the_committed_inventory() -> None:
    table = _tool("torchvision_inventory").table(INVENTORY)
    assert table in (ROOT / "docs" / "corpus.md").read_text()


@pytest.mark.parametrize(
    ("got", "expected", "verdict"),
    [
        ([[1.0, 2.0]], [[1.0, 2.0]], None),
        ([[1.0, 2.0005]], [[1.0, 2.0]], None),  # 5e-4 of the scale 2
        ([[1.0, 2.003]], [[1.0, 2.0]], "exceeds"),
        ([[np.nan, 1.0]], [[np.nan, 1.0]], None),
        ([[0.0, 1.0]], [[np.nan, 1.0]], "NaN"),
        ([[np.inf, 1.0]], [[-np.inf, 1.0]], "+inf"),
        ([[2.0, 1.9995]], [[1.9995, 2.0]], "top-1"),
    ],
)
def test_the_comparison_is_issue_20s(
    got: list[list[float]], expected: list[list[float]], verdict: str | None
) -> None:
    check = _tool("check_torchvision_corpus")
    found = check.difference(np.array(got, np.float32), np.array(expected, np.float32))
    assert found is None if verdict is None else verdict in found


def test_a_listed_case_whose_files_are_missing_or_unreadable_fails_with_a_reason(
    tmp_path: Path,
) -> None:
    check = _tool("check_torchvision_corpus")
    missing = check.check_case(tmp_path / "gone")
    assert not missing.passed and "is missing" in missing.errors[0]
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.xml").write_text("<net")
    unreadable = check.check_case(broken)
    assert not unreadable.passed and "cannot be read" in unreadable.errors[0]
