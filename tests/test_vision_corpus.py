"""Detectors, segmenters and INT8 models as users export them: YOLO through ultralytics, NNCF's
INT8 models, torchvision's segmenters through convert_model.

tests/models/vision holds reduced files (the same exporters and graphs, fewer channels, image
64) made by tools/gen_vision_corpus.py, each with the CPU plugin's outputs on a randn input and
on one holding ±inf and NaN; inventory.json is what each full-size and reduced file holds
(docs/corpus.md). Every file must validate without error and without IR202, and `run` must give
the CPU plugin's outputs (to 1e-3 of each output's scale, the same argmax along the class axis);
a case holding an op of tests/exporter_corpus.py's NOT_MODELLED table is a strict xfail naming
it. These tests read committed files only, but for two live ones (marked `oracle`, skipped
without OpenVINO): the INT8 files on a host without VNNI, and the NMS exports with scores that
pass their threshold.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lxml import etree

import irpool
from irpool.cpu.int8_pairs import without_vnni
from irpool.cpu.isa import AVX512_CORE, cpu_isa
from tests.exporter_corpus import (
    MET_BY_SAMPLE,
    NOT_MODELLED,
    TOLERANCES,
    difference,
    expect_failure,
    inventory_table,
    layer_types,
    load_npz,
    pending,
    run_differences,
    unmodelled_in_registry,
    validation_problems,
)

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "models" / "vision"
INDEX: dict[str, Any] = json.loads((CORPUS / "index.json").read_text())
INVENTORY: dict[str, Any] = json.loads((CORPUS / "inventory.json").read_text())
CASES = {case["name"]: case for case in INDEX["cases"]}
KINDS = {name: layer_types(CORPUS / name / "model.xml") for name in CASES}
# Every task and variant of each exporter (tools/gen_vision_corpus.py's COMMITTED); the
# inventory's full-size part holds every pairing (yolov8n and yolo11n, each task, fp32, fp16, nms)
# and yolo26n's NMS-free head.
EXPECTED_CASES = {
    "yolov8n-fp32", "yolov8n-fp16", "yolov8n-nms", "yolov8n-seg-fp32", "yolov8n-pose-fp32",
    "yolov8n-cls-fp32", "yolov8n-obb-fp32", "yolov8n-obb-nms", "yolo11n-fp32", "yolo11n-nms",
    "yolo11n-seg-fp16", "yolo11n-pose-fp16", "yolo11n-cls-fp16", "yolo11n-obb-fp16",
    "yolov8n-int8", "resnet18-int8", "mobilenet_v2-int8", "lraspp_mobilenet_v3_large-fp32",
    "lraspp_mobilenet_v3_large-fp16", "deeplabv3_mobilenet_v3_large-fp16", "fcn_resnet50-fp16",
    "yolo26n-e2e",
}  # fmt: skip
YOLO = [
    f"{family}{task}"
    for family in ("yolov8n", "yolo11n")
    for task in ("", "-seg", "-pose", "-cls", "-obb")
]
SEGMENTERS = ("lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "fcn_resnet50")
FULL_SIZE_CASES = (
    {
        f"{stem}-{variant}"
        for stem in YOLO
        for variant in ("fp32", "fp16", "nms")
        if not (stem.endswith("-cls") and variant == "nms")
    }
    | {"yolov8n-int8", "resnet18-int8", "mobilenet_v2-int8", "yolo26n-e2e"}
    | {f"{name}-{p}" for name in SEGMENTERS for p in ("fp32", "fp16")}
)
# Recorded on AVX-512, whose Greater and GreaterEqual of NaN are true; with at most AVX2 they
# are false (docs/cpu.md#instruction-sets), so NaN falls elsewhere (irpool then gives the AVX2
# CPU's places, measured live); every other value is still compared.
NAN_PLACES_OF_AVX512 = {("yolov8n-obb-nms", "nonfinite")}
# Recorded with AVX512_VNNI, whose int8 sums are exact; without it (a Skylake-SP Xeon,
# ONEDNN_MAX_CPU_ISA=AVX512_CORE) they saturate in 16-bit pairs, as irpool then computes them
# (docs/cpu.md#int8-products-without-vnni-sum-saturated-pairs), and on an AVX2 host alike:
# yolov8n-int8's output moves by 0.33 of its scale. There these are compared with the host's
# CPU plugin, run live.
INT8_SUMS_OF_VNNI = ("mobilenet_v2-int8", "resnet18-int8", "yolov8n-int8")
# On an AVX2 host the CPU's strided 1x1 int8 Convolution (`jit_avx2_1x1_I8`) now and then
# computes one output pixel of one 8-channel block from another input pixel, a race
# (docs/cpu.md#int8-products-without-vnni-sum-saturated-pairs): resnet18-int8's output then
# moves by up to 0.3 of its scale on about one run in 100 to 10,000, more under load. Never on
# 1 thread, whose output is the usual one: the oracle.
CPU_ONE_THREAD = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
# ultralytics sets each class branch's last bias to log(5 / classes / (640 / stride)²), -8.5 to
# -5.8 here: on random weights every score stays under the export's threshold (0.25), so the
# NMS exports keep no box and their recorded outputs are all 0. Drawn from N(0.5, 1) instead,
# they keep boxes (docs/corpus.md).
CLASS_BIAS = re.compile(r"\.cv3\.\d+\.2/aten::_convolution/Reshape$")
NMS_CASES = sorted(name for name in EXPECTED_CASES if name.endswith("-nms"))
CLASS_AXIS = 1  # NCHW masks, YOLO's (batch, 4 + classes, anchors) and (batch, detections, 6)
MAX_BYTES = 10 * 2**20  # with the language corpus, about 15 MB


def _tolerance(name: str) -> float:
    return TOLERANCES["int8" if name.endswith("-int8") else "float"]


def _missing(name: str, sample: str) -> list[str]:
    met = MET_BY_SAMPLE.get((name, sample))
    return pending(KINDS[name], [met] if met else [])


def test_the_corpus_is_every_exporter_case() -> None:
    assert set(CASES) == EXPECTED_CASES
    assert set(INVENTORY["reduced"]) == EXPECTED_CASES
    assert set(INVENTORY["full"]) == FULL_SIZE_CASES
    assert {path.name for path in CORPUS.iterdir() if path.is_dir()} == EXPECTED_CASES


def test_the_committed_corpus_stays_small() -> None:
    size = sum(path.stat().st_size for path in CORPUS.rglob("*") if path.is_file())
    assert size <= MAX_BYTES, f"{size / 2**20:.1f} MB"


def test_each_reduced_file_holds_its_full_size_twins_op_types() -> None:
    for name in CASES:
        full = {kind.rsplit("-", 1)[0] for kind in INVENTORY["full"][name]}
        reduced = {kind.rsplit("-", 1)[0] for kind in INVENTORY["reduced"][name]}
        assert full <= reduced, (name, full - reduced)


def test_the_committed_files_hold_every_op_type_version_of_the_full_size_ones() -> None:
    full = {kind for layers in INVENTORY["full"].values() for kind in layers}
    assert full <= {kind for kinds in KINDS.values() for kind in kinds}


def test_the_inventory_is_the_committed_files() -> None:
    for name in CASES:
        assert set(INVENTORY["reduced"][name]) == KINDS[name], name


def test_the_not_modelled_table_names_every_op_irpool_lacks() -> None:
    """So that every expected failure names all it waits for."""
    held = {kind for layers in INVENTORY["full"].values() for kind in layers}
    assert unmodelled_in_registry(held) <= set(NOT_MODELLED)


@pytest.mark.parametrize("kind", sorted(kind for kind in NOT_MODELLED if "-opset" in kind))
def test_each_not_modelled_entry_is_still_unmodelled(kind: str) -> None:
    """When an op lands, its entry goes (and the cases it alone held back become tests)."""
    assert unmodelled_in_registry({kind}) == {kind}


def test_the_recorded_inputs_hold_what_their_names_say() -> None:
    for name in CASES:
        for sample in INDEX["samples"]:
            (array,) = load_npz(CORPUS / name / f"inputs-{sample}.npz").values()
            assert array.dtype == np.float32, name
            assert int((~np.isfinite(array)).sum()) == (6 if sample == "nonfinite" else 0), name


def test_docs_show_the_committed_inventory() -> None:
    assert inventory_table(INVENTORY) in (ROOT / "docs" / "corpus.md").read_text()


@pytest.mark.parametrize(
    "name", [expect_failure(name, missing=pending(KINDS[name])) for name in sorted(CASES)]
)
def test_validates_without_error_or_unchecked_op(name: str) -> None:
    assert validation_problems(CORPUS / name / "model.xml") == []


@pytest.mark.parametrize(
    ("name", "sample"),
    [
        expect_failure(name, sample, missing=_missing(name, sample))
        for name in sorted(CASES)
        for sample in INDEX["samples"]
    ],
)
def test_run_gives_the_cpu_plugins_outputs(name: str, sample: str) -> None:
    if name in INT8_SUMS_OF_VNNI and without_vnni():
        pytest.skip("recorded with VNNI's int8 sums: compared live without it")
    model = irpool.load(CORPUS / name / "model.xml")
    outputs = model.run(load_npz(CORPUS / name / f"inputs-{sample}.npz"))
    expected = load_npz(CORPUS / name / f"outputs-{sample}.npz")
    assert sorted(outputs) == sorted(expected)
    differences = run_differences(outputs, expected, _tolerance(name), CLASS_AXIS)
    if (name, sample) in NAN_PLACES_OF_AVX512 and cpu_isa() != AVX512_CORE:
        differences = {k: v for k, v in differences.items() if not v.endswith("in being NaN")}
    assert differences == {}


@pytest.mark.oracle
@pytest.mark.parametrize("sample", INDEX["samples"])
@pytest.mark.parametrize("name", INT8_SUMS_OF_VNNI)
def test_int8_models_give_the_hosts_outputs_without_vnni(name: str, sample: str) -> None:
    if not without_vnni():
        pytest.skip("this host's int8 sums are the recorded ones (test_run_gives_...)")
    ov = pytest.importorskip("openvino")
    path = CORPUS / name / "model.xml"
    inputs = load_npz(CORPUS / name / f"inputs-{sample}.npz")
    outputs = irpool.load(path).run(inputs)
    compiled = ov.Core().compile_model(path, "CPU", CPU_ONE_THREAD)
    expected = dict(zip(outputs, (np.array(v) for v in compiled(inputs).values()), strict=True))
    assert run_differences(outputs, expected, _tolerance(name), CLASS_AXIS) == {}


def _with_drawn_class_biases(name: str, folder: Path) -> Path:
    """A copy of case `name` in `folder` with its class biases drawn from N(0.5, 1)."""
    shutil.copy(CORPUS / name / "model.xml", folder / "model.xml")
    weights = bytearray((CORPUS / name / "model.bin").read_bytes())
    rng = np.random.default_rng(0)
    biases = [
        layer.find("data")
        for layer in etree.parse(folder / "model.xml").iter("layer")
        if layer.get("type") == "Const" and CLASS_BIAS.search(layer.get("name", ""))
    ]
    assert len(biases) == 3, name  # one per stride
    for data in biases:
        assert data is not None and data.get("element_type") == "f32"
        offset, size = int(data.get("offset", "")), int(data.get("size", ""))
        drawn = rng.normal(0.5, 1.0, size // 4).astype(np.float32)
        weights[offset : offset + size] = drawn.tobytes()
    (folder / "model.bin").write_bytes(bytes(weights))
    return folder / "model.xml"


@pytest.mark.oracle
@pytest.mark.parametrize("name", NMS_CASES)
def test_nms_exports_keep_the_cpus_boxes(name: str, tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    path = _with_drawn_class_biases(name, tmp_path)
    inputs = load_npz(CORPUS / name / "inputs-randn.npz")
    outputs = irpool.load(path).run(inputs)
    compiled = ov.Core().compile_model(path, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    expected = dict(zip(outputs, (np.array(v) for v in compiled(inputs).values()), strict=True))
    (boxes,) = expected.values()
    kept = int(np.count_nonzero(np.abs(boxes).sum(axis=-1)))
    assert kept >= 10, f"the CPU keeps {kept} boxes: the test would prove little"
    assert run_differences(outputs, expected, _tolerance(name), CLASS_AXIS) == {}
    assert np.array_equal(outputs[next(iter(outputs))][..., 5], boxes[..., 5])  # the classes


@pytest.mark.parametrize(
    ("got", "expected", "verdict"),
    [
        ([[[1.0, 2.0]]], [[[1.0, 2.0]]], None),
        ([[[1.0, 2.0005]]], [[[1.0, 2.0]]], None),  # 5e-4 of the scale 2
        ([[[1.0, 2.003]]], [[[1.0, 2.0]]], "exceeds"),
        ([[[np.nan, 1.0]]], [[[np.nan, 1.0]]], None),
        ([[[0.0, 1.0]]], [[[np.nan, 1.0]]], "NaN"),
        ([[[2.0], [1.0]]], [[[1.0], [2.0]]], "exceeds"),
        ([[[2.0], [1.999]]], [[[1.999], [2.0]]], "argmax differs at 1"),  # 5e-4 of the scale
        ([[[2.0], [1.99999]]], [[[1.99999], [2.0]]], None),  # a tie within rounding: not told
    ],
)
def test_the_comparison(got: list[Any], expected: list[Any], verdict: str | None) -> None:
    found = difference(np.array(got, np.float32), np.array(expected, np.float32), 1e-3, CLASS_AXIS)
    assert found is None if verdict is None else verdict in found
