"""`Model.reshape` and `validate --shape`: the model re-inferred at other input shapes, IR311
where OpenVINO's reshape fails, with the chain back to the Const that bakes the old shape."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import irpool
from irpool.check.reshaping import ReshapeError
from irpool.cli import cli
from irpool.shape import Shape
from tests import ir


def _errors(model: irpool.Model) -> list[tuple[str, str | None]]:
    return [(d.code, d.layer_name) for d in model.validate() if d.severity.value == "error"]


def test_a_baked_target_refuses_another_batch_and_names_its_const(tmp_path: Path) -> None:
    model = irpool.load(ir.write(tmp_path, *ir.flatten_model((1, 32))))
    assert _errors(model) == []
    reshaped = model.reshape({"x": "[4,2,4,4]"})
    assert _errors(reshaped) == [("IR311", "flatten")]
    (finding,) = reshaped.validate()
    assert "does not reshape to x[4,2,4,4]" in finding.message
    assert 'input 1 of layer 3 "flatten" (Reshape): Const "target" [1, 32]' in finding.message
    fix = "the target [0, 32] (0 copies the input's dim) makes this layer follow"
    assert fix in finding.message


def test_a_target_that_follows_the_input_reshapes_and_runs(tmp_path: Path) -> None:
    model = irpool.load(ir.write(tmp_path, *ir.flatten_model((0, -1))))
    reshaped = model.reshape({0: [4, 2, 4, 4]})
    assert reshaped.validate() == []  # the file's dims, for batch 1, are not compared
    assert reshaped.output_shapes()["flatten"] == [Shape.of(4, 32)]
    x = np.arange(4 * 32, dtype=np.float32).reshape(4, 2, 4, 4)
    np.testing.assert_array_equal(reshaped.run({"x": x})["y"], x.reshape(4, 32))
    assert model.output_shapes()["flatten"] == [Shape.of(1, 32)]  # the original is unchanged


@pytest.mark.parametrize(
    ("shapes", "dims"),
    [
        ({"": "[?,2,4,4]"}, "[?,32]"),
        ({"x": "1..8,2,4,4"}, "[1..8,32]"),
        ({"x": Shape.of(2, 2, 4, 4)}, "[2,32]"),
        ({"x": [-1, 2, 4, 4]}, "[?,32]"),
    ],
)
def test_shapes_are_written_as_openvino_writes_them(
    tmp_path: Path, shapes: dict[str | int, str | Shape | list[int]], dims: str
) -> None:
    reshaped = irpool.load(ir.write(tmp_path, *ir.flatten_model((0, -1)))).reshape(shapes)
    assert str(reshaped.output_shapes()["flatten"][0]) == dims


@pytest.mark.parametrize(
    ("shapes", "problem"),
    [
        ({"z": "[1,2,4,4]"}, 'no input is named "z" (inputs: "x")'),
        ({3: "[1,2,4,4]"}, "no input at position 3 (1 inputs)"),
        ({"x": "[1,2,four,4]"}, 'cannot read "four" as a dimension'),
        ({"x": "[1,2,4,4]", 0: "[2,2,4,4]"}, 'input "x" is given two shapes'),
    ],
)
def test_what_names_no_input_or_is_no_shape_is_refused(
    tmp_path: Path, shapes: dict[str | int, str], problem: str
) -> None:
    with pytest.raises(ReshapeError) as raised:
        irpool.load(ir.write(tmp_path, *ir.flatten_model((0, -1)))).reshape(shapes)
    assert problem in str(raised.value)


def test_a_second_reshape_keeps_the_first_ones_shapes(tmp_path: Path) -> None:
    model = irpool.load(ir.write(tmp_path, *ir.flatten_model((1, 32))))
    twice = model.reshape({"x": "[4,2,4,4]"}).reshape({"x": "[1,2,4,4]"})
    assert _errors(twice) == []
    assert twice.reshaping is not None and twice.reshaping.asked == "x[1,2,4,4]"
    assert twice.reshaped_from is model


def test_a_file_error_stays_its_own_rule(tmp_path: Path) -> None:
    """A refusal the file already has is not the reshape's: it keeps its code."""
    model = irpool.load(ir.write(tmp_path, *ir.flatten_model((1, 31))))
    codes = {code for code, _ in _errors(model)}
    assert codes and "IR311" not in codes
    assert {code for code, _ in _errors(model.reshape({"x": "[4,2,4,4]"}))} == codes


def test_threads_reshape_one_model_at_once(tmp_path: Path) -> None:
    model = irpool.load(ir.write(tmp_path, *ir.flatten_model((0, -1))))
    found: list[str] = []

    def reshape(batch: int) -> None:
        found.append(str(model.reshape({"x": [batch, 2, 4, 4]}).output_shapes()["flatten"][0]))

    threads = [threading.Thread(target=reshape, args=(b,)) for b in (1, 2, 3, 4) * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(found) == sorted(f"[{b},32]" for b in (1, 2, 3, 4) * 4)


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["--shape", "x[4,2,4,4]"], 1, "IR311"),
        (["--shape", "[1,2,4,4]"], 0, "Checked 1 file: 0 errors"),
        (["--shape", "z[1,2,4,4]"], 2, 'no input is named "z"'),
        (["--shape", "x(1,2,4,4)"], 2, "is not NAME[dims] or [dims]"),
        (["--shape", "x[1,2,4,4]", "--fix"], 2, "--fix and --diff edit the file"),
    ],
)
def test_the_command_line(tmp_path: Path, args: list[str], code: int, said: str) -> None:
    path = ir.write(tmp_path, *ir.flatten_model((1, 32)))
    result = CliRunner().invoke(cli, ["validate", str(path), *args])
    assert result.exit_code == code, result.output
    assert said in result.output
    assert "Traceback" not in result.output


def test_explain_shows_the_new_shapes(tmp_path: Path) -> None:
    path = ir.write(tmp_path, *ir.flatten_model((0, -1)))
    result = CliRunner().invoke(cli, ["explain", str(path), "--shape", "x[3,2,4,4]"])
    assert result.exit_code == 0, result.output
    assert "reshaped to x[3,2,4,4] (declared: the file's dims)" in result.output
    assert "[3,32]" in result.output
