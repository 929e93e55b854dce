"""`irpool explain`: the per-layer table a person reads to see why a dim is what it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from irpool.cli import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = Path("examples")


@pytest.fixture(autouse=True)
def _in_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def explain(runner: CliRunner, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(cli, ["explain", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def test_table_shows_layers_in_order_with_inferred_and_declared_shapes(runner: CliRunner) -> None:
    code, stdout, stderr = explain(
        runner, str(EXAMPLES / "spec" / "avgpool1_b_same_upper_k5s2.xml")
    )
    assert code == 0
    assert stdout == (
        "examples/spec/avgpool1_b_same_upper_k5s2.xml: 3 layers in topological order\n"
        "\n"
        "id  name    op           inputs       output (inferred)  declared\n"
        " 0  input   Parameter-1  -            [1,3,32,32]        [1,3,32,32]\n"
        " 1  pool    AvgPool-1    [1,3,32,32]  [1,3,16,16]        [1,3,32,32]  DIFFERS\n"
        " 2  output  Result-1     [1,3,16,16]  -                  -\n"
        "\n"
        'layer 1 "pool" AvgPool-1: auto_pad=same_upper rounding_type=floor exclude-pad=false\n'
        "  axis  size  window  stride  dilation  pads                windows\n"
        "     0    32       5       2         1  1,2 (declared 0,1)       16\n"
        "     1    32       5       2         1  1,2 (declared 0,1)       16\n"
    )
    assert "Findings: 4 errors, 0 warnings, 2 infos" in stderr


def test_topological_order_not_file_order_and_constant_values(runner: CliRunner) -> None:
    _, stdout, _ = explain(runner, str(EXAMPLES / "valid" / "chain_avgpool_adaptive.xml"))
    ids = [line.split()[0] for line in stdout.splitlines()[3:8]]
    assert ids == ["0", "2", "1", "3", "4"]  # the Const (id 2) comes before its consumer
    assert "[1,3,16,16] [2]=4,4" in stdout
    assert 'layer 3 "adaptive_pool" AdaptiveAvgPool-8: adaptive bins' in stdout


def test_adaptive_bins_of_uneven_sizes(runner: CliRunner) -> None:
    _, stdout, _ = explain(
        runner, "--format", "json", str(EXAMPLES / "valid" / "adaptive_avg_pool8_4d.xml")
    )
    pool = next(row for row in json.loads(stdout) if row["op"] == "AdaptiveAvgPool-8")
    for axis in pool["axes"]:
        size, out = axis["size"], axis["windows"]
        low, _, high = str(axis["window"]).partition("-")
        assert int(low) <= -(-size // out) and int(high or low) >= size // out


def test_json_rows(runner: CliRunner) -> None:
    code, stdout, _ = explain(
        runner, "--format", "json", str(EXAMPLES / "spec" / "avgpool1_a_same_upper_k2s2.xml")
    )
    rows = json.loads(stdout)
    assert code == 0 and [row["name"] for row in rows] == ["input", "pool", "output"]
    pool = rows[1]
    assert pool["inputs"] == [{"shape": [1, 3, 32, 32], "value": None}]
    assert pool["inferred"] == [[1, 3, 16, 16]] and pool["declared"] == [[1, 3, 32, 32]]
    assert pool["differs"] is True
    assert pool["axes"][0] == {
        "size": 32,
        "window": 2,
        "stride": 2,
        "dilation": 1,
        "pads": [0, 0],
        "declared_pads": [0, 1],
        "windows": 16,
    }
    assert rows[2]["inferred"] == [] and rows[0]["inputs"] == []


@pytest.mark.parametrize(
    ("example", "layer", "field", "shape"),
    [
        ("valid/avgpool14_dynamic.xml", "input", "inferred", [["?", 3, "1..10", "?"]]),
        ("valid/avgpool14_dynamic.xml", "input", "declared", [["?", 3, "?", "?"]]),
        ("valid/chain_avgpool_adaptive.xml", "adaptive_pool", "inputs", None),
    ],
)
def test_json_shapes_are_arrays_with_dynamic_dims_as_strings(
    runner: CliRunner, example: str, layer: str, field: str, shape: object
) -> None:
    _, stdout, _ = explain(runner, "--format", "json", str(EXAMPLES / example))
    row = next(row for row in json.loads(stdout) if row["name"] == layer)
    if shape is None:  # a Const input carries its values
        assert row[field][1] == {"shape": [2], "value": [4, 4]}
    else:
        assert row[field] == shape


def test_layers_irpool_does_not_model_are_marked_not_inferred(runner: CliRunner) -> None:
    _, stdout, _ = explain(runner, "tests/rules/IR202_unchecked_relu.xml")
    relu = next(line for line in stdout.splitlines() if " relu " in line)
    assert "not inferred" in relu


def test_layers_in_a_cycle_are_counted(runner: CliRunner) -> None:
    code, stdout, _ = explain(runner, str(EXAMPLES / "broken" / "cycle.xml"))
    assert code == 0 and "layer(s) in a cycle are not shown (see IR504)" in stdout


def test_a_file_that_is_not_ir_exits_one_with_diagnostics(runner: CliRunner) -> None:
    code, stdout, stderr = explain(runner, str(EXAMPLES / "broken" / "malformed_xml.xml"))
    assert code == 1 and stdout == "" and "IR101" in stderr


def test_missing_file_is_a_usage_error(runner: CliRunner) -> None:
    code, _, stderr = explain(runner, "no/such.xml")
    assert code == 2 and "does not exist" in stderr
