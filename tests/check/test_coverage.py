"""The summary says what was checked, in every format: how many layers irpool checked, and
the types of the others, whose declared outputs it trusted (IR202), so "0 errors" never
claims more than was checked. The text and concise summaries (stdout; stderr for the machine
formats) say it in words, `json-with-metadata` in fields (schemas/report.schema.json; `json`
stays the bare array), SARIF as the run property `irpool/coverage`."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from referencing import Registry, Resource

from irpool.check.coverage import SHOWN_TYPES, Coverage
from irpool.cli import cli
from irpool.config import FORMATS
from tests import ir
from tests.report.sarif_schema import sarif_schema

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
UNMODELLED = ("Erf", "Erf", "ShuffleChannels")  # a chain of ops irpool does not model


def unmodelled_chain(layer_types: tuple[str, ...] = UNMODELLED) -> str:
    """Parameter -> one layer of each type -> Result, all [1,2,4,4]."""
    shape = (1, 2, 4, 4)
    layers = [ir.parameter(0, "input", shape)]
    edges = []
    for index, layer_type in enumerate(layer_types, start=1):
        inputs, outputs = [ir.port(0, shape)], [ir.port(1, shape)]
        layers.append(ir.layer(index, f"op{index}", layer_type, "opset1", "", inputs, outputs))
        edges.append(ir.edge(index - 1, 0 if index == 1 else 1, index, 0))
    last = len(layer_types) + 1
    layers.append(ir.result(last, "output", shape))
    edges.append(ir.edge(last - 1, 1, last, 0))
    return ir.net(layers, edges)


def validate(*args: str) -> tuple[str, str]:
    result = CliRunner().invoke(cli, ["validate", "--isolated", *args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout, result.stderr


@pytest.fixture
def mixed(tmp_path: Path) -> list[str]:
    """A model with three trusted layers, and a pooling model checked in full."""
    (tmp_path / "chain.xml").write_text(unmodelled_chain())
    (tmp_path / "pool.xml").write_text(ir.pool_model())
    return [str(tmp_path / "chain.xml"), str(tmp_path / "pool.xml")]


SUMMARY = (
    "Checked 2 files: 0 errors, 2 warnings, 0 infos "
    "(5 of 8 layers checked; trusted without checks: Erf x2, ShuffleChannels x1)."
)


@pytest.mark.parametrize("output_format", FORMATS)
def test_every_format_says_what_was_checked(output_format: str, mixed: list[str]) -> None:
    stdout, stderr = validate("--format", output_format, *mixed)
    human = stdout if output_format in ("text", "concise") else stderr
    assert human.splitlines()[-1] == SUMMARY


def test_json_stays_a_bare_array(mixed: list[str]) -> None:
    stdout, _ = validate("--format", "json", *mixed)
    assert isinstance(json.loads(stdout), list)


def test_json_with_metadata_matches_its_published_schema(mixed: list[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.xml"
    broken.write_text("<net")
    stdout, _ = validate("--format", "json-with-metadata", *mixed, str(broken))
    document = json.loads(stdout)
    diagnostics = json.loads((SCHEMAS / "diagnostics.schema.json").read_text())
    registry = Registry().with_resource(
        "diagnostics.schema.json", Resource.from_contents(diagnostics)
    )
    schema = json.loads((SCHEMAS / "report.schema.json").read_text())
    jsonschema.Draft202012Validator(schema, registry=registry).validate(document)
    files = {Path(entry["path"]).name: entry["coverage"] for entry in document["files"]}
    assert files == {
        "chain.xml": {
            "layers": 5,
            "checked": 2,
            "trusted": {"Erf": 2, "ShuffleChannels": 1},
            "refused": {},
        },
        "pool.xml": {"layers": 3, "checked": 3, "trusted": {}, "refused": {}},
        "broken.xml": None,  # not read as IR: its IR101 says why
    }
    assert document["coverage"] == {
        "layers": 8,
        "checked": 5,
        "trusted": {"Erf": 2, "ShuffleChannels": 1},
        "refused": {},
    }
    plain, _ = validate("--format", "json", *mixed, str(broken))
    assert document["diagnostics"] == json.loads(plain)


def test_sarif_carries_the_coverage_as_a_run_property(mixed: list[str]) -> None:
    stdout, _ = validate("--format", "sarif", *mixed)
    log = json.loads(stdout)
    sarif_schema().validate(log)
    assert log["runs"][0]["properties"]["irpool/coverage"] == {
        "layers": 8,
        "checked": 5,
        "trusted": {"Erf": 2, "ShuffleChannels": 1},
        "refused": {},
    }


def test_a_long_list_of_trusted_types_is_cut_and_counted() -> None:
    kinds = tuple(f"Op{letter}" for letter in "ABCDEFGH")
    coverage = Coverage(10, 2, tuple((kind, 1) for kind in kinds))
    shown = ", ".join(f"{kind} x1" for kind in kinds[:SHOWN_TYPES])
    rest = len(kinds) - SHOWN_TYPES
    assert coverage.describe() == (
        f"2 of 10 layers checked; trusted without checks: {shown}, {rest} more types"
    )


def test_totals_add_layers_and_merge_types_most_frequent_first() -> None:
    total = Coverage.total(
        [Coverage(4, 2, (("Relu", 1), ("Tanh", 1))), Coverage(3, 1, (("Relu", 2),))]
    )
    assert total == Coverage(7, 3, (("Relu", 3), ("Tanh", 1)))


@pytest.mark.parametrize(
    ("type_", "version", "code"),
    [
        ("AvgPool", "opset99", "IR201"),  # a version OpenVINO does not know
        ("AdaptiveAvgPool", "opset1", "IR201"),  # a known opset without this op
        ("AvgPool", "opset1 ", "IR201"),  # a blank the reader does not strip
    ],
)
def test_a_layer_openvino_refuses_is_counted_refused_not_trusted(
    tmp_path: Path, type_: str, version: str, code: str
) -> None:
    """Its error says what is wrong with it: the summary must not call it trusted."""
    model = tmp_path / "refused.xml"
    model.write_text(
        ir.pool_model().replace(
            'type="AvgPool" version="opset1"', f'type="{type_}" version="{version}"'
        )
    )
    stdout, _ = validate("--format", "json-with-metadata", str(model))
    document = json.loads(stdout)
    assert code in {d["code"] for d in document["diagnostics"]}
    assert document["coverage"] == {
        "layers": 3,
        "checked": 2,
        "trusted": {},
        "refused": {type_: 1},
    }
    text, _ = validate(str(model))
    assert text.splitlines()[-1].endswith(f"(2 of 3 layers checked; refused: {type_} x1).")


def test_totals_merge_refused_types_too() -> None:
    total = Coverage.total(
        [Coverage(3, 2, (), (("AvgPool", 1),)), Coverage(2, 0, (("Erf", 1),), (("AvgPool", 1),))]
    )
    assert total == Coverage(5, 2, (("Erf", 1),), (("AvgPool", 2),))
    assert (
        total.describe()
        == "2 of 5 layers checked; trusted without checks: Erf x1; refused: AvgPool x2"
    )
