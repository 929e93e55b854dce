"""`irpool explain`: the per-layer table a person reads to see why a dim is what it is."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from irpool.cli import cli
from irpool.report import dot

ROOT = Path(__file__).resolve().parents[2]
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
        "id  op           inputs       output (inferred)  declared              name\n"
        " 0  Parameter-1  -            [1,3,32,32]        [1,3,32,32]           input\n"
        " 1  AvgPool-1    [1,3,32,32]  [1,3,16,16]        [1,3,32,32]  DIFFERS  pool\n"
        " 2  Result-1     [1,3,16,16]  -                  -                     output\n"
        "\n"
        'layer 1 "pool" AvgPool-1: auto_pad=same_upper rounding_type=floor exclude-pad=false\n'
        "  axis  size  window  stride  dilation  pads                windows\n"
        "     0    32       5       2         1  1,2 (declared 0,1)       16\n"
        "     1    32       5       2         1  1,2 (declared 0,1)       16\n"
    )
    assert stderr == (
        "Findings: 4 errors, 0 warnings, 2 infos; `irpool validate "
        "examples/spec/avgpool1_b_same_upper_k5s2.xml` lists them.\n"
    )


def test_a_clean_model_has_no_findings_to_list(runner: CliRunner) -> None:
    _, _, stderr = explain(runner, str(EXAMPLES / "valid" / "avgpool1_4d.xml"))
    assert stderr == "Findings: none.\n"


def test_topological_order_not_file_order_and_constant_values(runner: CliRunner) -> None:
    _, stdout, _ = explain(
        runner, "--constants", str(EXAMPLES / "valid" / "chain_avgpool_adaptive.xml")
    )
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


def test_max_pool_shows_both_outputs_and_its_index_settings(runner: CliRunner) -> None:
    _, stdout, _ = explain(runner, str(EXAMPLES / "valid" / "maxpool14_torch.xml"))
    row = " 1  MaxPool-14   [1,2,9,9]  [1,2,4,4] [1,2,4,4]  [1,2,4,4] [1,2,4,4]  pool\n"
    assert row in stdout
    assert (
        'layer 1 "pool" MaxPool-14: auto_pad=explicit rounding_type=ceil_torch '
        "index_element_type=i64 axis=2\n"
        "  axis  size  window  stride  dilation  pads  windows\n"
        "     0     9       3       2         2  1,1         4\n"
    ) in stdout


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
    _, stdout, _ = explain(runner, "tests/rules/IR202_unchecked_erf.xml")
    erf = next(line for line in stdout.splitlines() if line.endswith(" erf"))
    assert "not inferred" in erf


def test_layers_in_a_cycle_are_counted(runner: CliRunner) -> None:
    code, stdout, _ = explain(runner, str(EXAMPLES / "broken" / "cycle.xml"))
    assert code == 0 and "layer(s) in a cycle are not shown (see IR504)" in stdout


def test_a_file_that_is_not_ir_exits_one_with_diagnostics(runner: CliRunner) -> None:
    code, stdout, stderr = explain(runner, str(EXAMPLES / "broken" / "malformed_xml.xml"))
    assert code == 1 and stdout == "" and "IR101" in stderr


def test_missing_file_is_a_usage_error(runner: CliRunner) -> None:
    code, _, stderr = explain(runner, "no/such.xml")
    assert code == 2 and "does not exist" in stderr


# A layer name with everything DOT must quote: quotes, backslashes, a Graphviz escape (\N is
# the node's own name), a line break and non-ASCII text.
AWKWARD = 'a "q" \\N \\\\ é\nzwei'
AWKWARD_XML = "a &quot;q&quot; \\N \\\\ é&#10;zwei"


def _awkward_model(tmp_path: Path) -> Path:
    source = (ROOT / EXAMPLES / "spec" / "avgpool1_a_same_upper_k2s2.xml").read_text("utf-8")
    path = tmp_path / "awkward.xml"
    path.write_text(source.replace('name="pool"', f'name="{AWKWARD_XML}"'), encoding="utf-8")
    return path


def _unquote(quoted: str) -> str:
    """A DOT label string back to the text Graphviz shows (\\n is a line break)."""
    assert quoted.startswith('"') and quoted.endswith('"')
    return re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], quoted[1:-1])


@pytest.mark.parametrize("option", [["--dot"], ["--format", "dot"]])
def test_dot_graph_has_a_node_per_layer_and_an_edge_per_connection(
    runner: CliRunner, option: list[str]
) -> None:
    code, stdout, _ = explain(
        runner, *option, str(EXAMPLES / "spec" / "avgpool1_a_same_upper_k2s2.xml")
    )
    assert code == 0 and stdout.startswith('digraph "avgpool1_a_same_upper_k2s2" {\n')
    nodes = dict(re.findall(r"^  (n\d+) \[(.*)\];$", stdout, re.M))
    edges = re.findall(r'^  (n\d+) -> (n\d+) \[xlabel=("[^"]*")\];$', stdout, re.M)
    assert set(nodes) == {"n0", "n1", "n2"}
    assert [(a, b, _unquote(label)) for a, b, label in edges] == [
        ("n0", "n1", "[1,3,32,32]"),
        ("n1", "n2", "[1,3,16,16]"),  # the inferred shape, not the declared [1,3,32,32]
    ]
    # Layers with findings are filled in the colour of the worst one; clean ones are not.
    assert 'fillcolor="#ffd6d6"' in nodes["n1"] and 'tooltip="2 errors, 1 info"' in nodes["n1"]
    assert "fillcolor" not in nodes["n0"]
    assert stdout.rstrip().endswith("}")


@pytest.mark.parametrize(
    ("example", "colour"),
    [
        ("examples/valid/avgpool1_4d.xml", None),
        ("examples/broken/cycle.xml", "#ffd6d6"),
        ("tests/rules/IR202_unchecked_erf.xml", "#fff1c2"),
    ],
)
def test_dot_colours_follow_the_worst_finding(
    runner: CliRunner, example: str, colour: str | None
) -> None:
    _, stdout, _ = explain(runner, "--dot", example)
    colours = set(re.findall(r'fillcolor="(#[0-9a-f]{6})"', stdout))
    assert colours == (set() if colour is None else {colour})


@given(st.text())
def test_dot_quoting_round_trips_any_text(text: str) -> None:
    quoted = dot.quote(text)
    assert "\n" not in quoted and "\r" not in quoted
    assert _unquote(quoted) == text.replace("\r\n", "\n").replace("\r", "\n")


def test_dot_quotes_awkward_layer_names(runner: CliRunner, tmp_path: Path) -> None:
    _, stdout, _ = explain(runner, "--dot", str(_awkward_model(tmp_path)))
    (label,) = re.findall(r'^  n1 \[label=("(?:[^"\\]|\\.)*")', stdout, re.M)
    assert _unquote(label) == f"1 {AWKWARD}\nAvgPool-1"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_renders_the_graph_with_the_names_as_written(
    runner: CliRunner, tmp_path: Path
) -> None:
    _, graph, _ = explain(runner, "--dot", str(_awkward_model(tmp_path)))
    rendered = subprocess.run(
        ["dot", "-Tsvg"], input=graph, capture_output=True, text=True, timeout=60, check=False
    )
    assert rendered.returncode == 0 and rendered.stderr == "", rendered.stderr
    svg = etree.fromstring(rendered.stdout.encode("utf-8"))
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    # Graphviz draws each line of a label as one <text>; \N stayed literal, not a node name.
    op = texts.index("AvgPool-1")
    assert texts[op - 2 : op] == f"1 {AWKWARD}".split("\n")
    assert "[1,3,16,16]" in texts
