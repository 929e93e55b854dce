"""`--fix` and `--diff`: byte-exact edits of only the values that change, across line endings,
BOMs, encodings, comments, odd spacing and quoting; idempotent; verified; atomic.

Each case renders one template twice, with the wrong values and with the right ones. Since
everything outside the placeholders is identical by construction, comparing the fixed file
with the "right" rendering byte for byte proves that no other byte changed.
"""

from __future__ import annotations

import codecs
import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli
from irpool.fix import FixError, apply_fixes, find_fixes, verify
from irpool.rules import RULES

TEMPLATE = """<?xml version='1.0' encoding='{encoding}'?>
<!-- fixture for the fix tests: comments, spacing and quoting must survive byte for byte -->
<net name="fix_me" version='11'>
\t<layers>
    <layer id="0" name="input" type="Parameter" version="opset1">
      <data shape="1,3,32,32" element_type="f32"/>
      <output>
        <port id="0" precision="FP32" names="input">
          <dim>{A}</dim>   <!-- IR112: read as 1 -->
          <dim>3</dim>
          <dim>32</dim>
          <dim>32</dim>
        </port>
      </output>
    </layer>
    <layer id="3" name="relu6" type="Clamp" version="opset1">
      <data min="{M}" max="6"/>   <!-- IR205: a hexadecimal float is read as 0 -->
      <input>
        <port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>32</dim><dim>32</dim></port>
      </input>
      <output>
        <port id="1" precision="FP32"><dim>1</dim><dim>3</dim><dim>32</dim><dim>32</dim></port>
      </output>
    </layer>
    <layer id="1" name="{name}" type="AvgPool" version="opset1">
      <data   auto_pad = "same_upper"   exclude-pad='true' kernel="2,2"
              pads_begin="0,0" pads_end='{PE}' strides="2,2" rounding_type="floor"/>
      <input>
        <port id="0" precision="FP32">
          <dim>1</dim><dim>{B}</dim><dim>32</dim><dim>32</dim>
        </port>
      </input>
      <output>
        <port id="1" precision="FP32" names="output">
          <dim>1</dim>
          <dim>3</dim>
          <!-- the specification's own error: 32 where the runtime gives 16 -->
          <dim>{C}</dim>
          <dim>{D}</dim>
        </port>
      </output>
    </layer>
    <layer id="2" name="output" type="Result" version="opset1">
      <input>
        <port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>{E}</dim><dim>{F}</dim></port>
      </input>
    </layer>
\t</layers>
\t<edges>
\t\t<edge from-layer="0" from-port="0" to-layer="3" to-port="0"/>
\t\t<edge from-layer="3" from-port="1" to-layer="1" to-port="0"/>
\t\t<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
\t</edges>
{X}</net>
"""
WRONG = {
    "A": "1.5",
    "B": "+3",
    "C": "32",
    "D": " 32 ",
    "E": "32",
    "F": "32",
    "PE": "1,1",
    "M": "0x0p3",
    "X": "\t<edges>\n\t</edges>\n",
}  # IR119
RIGHT = {"A": "1", "B": "3", "C": "16", "D": "16", "E": "16", "F": "16", "PE": "0,0", "M": "0"}
RIGHT["X"] = ""
FIXED_COUNT = 10  # D settles both IR113 and IR301


def render(
    values: dict[str, str],
    newline: str = "\n",
    bom: bool = False,
    encoding: str = "UTF-8",
    name: str = "пул",
) -> bytes:
    """The template with `values`, in the given line ending, BOM and encoding."""
    text = TEMPLATE.format(encoding=encoding, name=name, **values).replace("\n", newline)
    return (codecs.BOM_UTF8 if bom else b"") + text.encode(encoding)


VARIANTS = {
    "lf": {},
    "crlf": {"newline": "\r\n"},
    "bom": {"bom": True},
    "bom-crlf": {"bom": True, "newline": "\r\n"},
    "latin-1": {"encoding": "ISO-8859-1", "name": "pül"},
}


def fix(runner: CliRunner, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(cli, ["validate", "--isolated", "--format", "concise", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("variant", VARIANTS, ids=list(VARIANTS))
def test_fix_rewrites_only_the_wrong_values(
    runner: CliRunner, tmp_path: Path, variant: str
) -> None:
    options = VARIANTS[variant]
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG, **options))
    before = irpool.load(model).validate()
    assert {d.code for d in before} == {"IR112", "IR113", "IR119", "IR205", "IR213", "IR301"}

    code, stdout, _ = fix(runner, "--fix", str(model))
    assert model.read_bytes() == render(RIGHT, **options)
    assert code == 0 and f"Fixed {FIXED_COUNT} problems in 1 file." in stdout

    again, stdout, _ = fix(runner, "--fix", str(model))
    assert again == 0 and "Fixed" not in stdout
    assert model.read_bytes() == render(RIGHT, **options)
    assert irpool.load(model).validate() == []


def test_diff_shows_the_change_and_writes_nothing(runner: CliRunner, tmp_path: Path) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG))
    code, stdout, stderr = fix(runner, "--diff", str(model))
    assert code == 1 and model.read_bytes() == render(WRONG)
    assert stdout.startswith(f"--- a/{model.as_posix()}\n+++ b/{model.as_posix()}\n")
    assert "-          <dim> 32 </dim>\n+          <dim>16</dim>\n" in stdout
    assert f"Would fix {FIXED_COUNT} problems in 1 file." in stderr
    model.write_bytes(render(RIGHT))
    code, stdout, _ = fix(runner, "--diff", str(model))
    assert code == 0 and stdout == ""


def test_fix_and_diff_together_is_a_usage_error(runner: CliRunner, tmp_path: Path) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG))
    code, _, stderr = fix(runner, "--fix", "--diff", str(model))
    assert code == 2 and "pick one" in stderr


def test_exit_code_after_fix_reflects_what_remains(runner: CliRunner, tmp_path: Path) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG).replace(b'id="1" precision="FP32"', b'id="1" precision="FP16"'))
    code, stdout, _ = fix(runner, "--fix", str(model))
    assert code == 1 and "IR305" in stdout and "IR301" not in stdout


def test_only_selected_rules_are_fixed(runner: CliRunner, tmp_path: Path) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG))
    code, _, _ = fix(runner, "--fix", "--select", "IR213", str(model))
    assert code == 0
    assert model.read_bytes() == render({**WRONG, "PE": RIGHT["PE"]})


def test_ignoring_ir301_keeps_the_value_but_still_canonicalises(
    runner: CliRunner, tmp_path: Path
) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG))
    fix(runner, "--fix", "--ignore", "IR301", str(model))
    assert model.read_bytes() == render({**RIGHT, "C": "32", "D": "32", "E": "32", "F": "32"})


def test_values_whose_bytes_are_not_what_lxml_read_are_left_alone(
    runner: CliRunner, tmp_path: Path
) -> None:
    model = tmp_path / "model.xml"
    tricky = {**WRONG, "C": "&#51;2", "D": "32<!-- inside -->"}
    model.write_bytes(render(tricky))
    code, stdout, _ = fix(runner, "--fix", str(model))
    assert code == 1  # those two IR301 remain, reported
    assert model.read_bytes() == render({**RIGHT, "C": tricky["C"], "D": tricky["D"]})
    assert stdout.count("IR301") == 2


def test_a_fix_that_fails_verification_is_not_written(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG))

    def refuse(*_: object) -> None:
        raise FixError("validating the fixed file still finds 1 IR301")

    monkeypatch.setattr("irpool.cli.validate.verify", refuse)
    code, _, stderr = fix(runner, "--fix", str(model))
    assert code == 1 and model.read_bytes() == render(WRONG)
    assert "not fixed: validating the fixed file still finds 1 IR301" in stderr


def test_verification_catches_a_fix_that_breaks_the_file(tmp_path: Path) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG))
    loaded = irpool.load(model)
    fixes = find_fixes(loaded.validate())
    broken = [replace(f, text="17") for f in fixes]
    fixed = apply_fixes(model.read_bytes(), loaded, broken)
    with pytest.raises(FixError, match="still finds"):
        verify(fixed, model.with_suffix(".bin"), loaded.validate(), broken)


def test_fix_keeps_permissions_and_leaves_no_temporary_files(
    runner: CliRunner, tmp_path: Path
) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG))
    model.chmod(0o640)
    fix(runner, "--fix", str(model))
    assert stat.S_IMODE(model.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.xml"]


def test_fix_through_a_symlink_edits_the_target(runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "real.xml"
    target.write_bytes(render(WRONG))
    link = tmp_path / "link.xml"
    link.symlink_to(target)
    fix(runner, "--fix", str(link))
    assert link.is_symlink() and target.read_bytes() == render(RIGHT)


def test_fix_several_files_in_parallel(runner: CliRunner, tmp_path: Path) -> None:
    for index in range(4):
        (tmp_path / f"m{index}.xml").write_bytes(
            render(WRONG, newline="\r\n" * (index % 2) or "\n")
        )
    code, stdout, _ = fix(runner, "--fix", "--jobs", "2", str(tmp_path))
    assert code == 0 and f"Fixed {4 * FIXED_COUNT} problems in 4 files." in stdout
    for index in range(4):
        expected = render(RIGHT, newline="\r\n" * (index % 2) or "\n")
        assert (tmp_path / f"m{index}.xml").read_bytes() == expected


def test_files_that_do_not_load_are_reported_not_fixed(runner: CliRunner, tmp_path: Path) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(b"<net version='11'><layers>")
    code, stdout, _ = fix(runner, "--fix", str(model))
    assert code == 1 and "IR101" in stdout and model.read_bytes() == b"<net version='11'><layers>"


def test_the_rules_documented_as_fixable_are_exactly_those_whose_findings_carry_an_edit(
    tmp_path: Path,
) -> None:
    """Each diagnostic carries its own fix from where it is made; one file with every
    fixable problem (and a stale suppression, IR117) shows which rules make edits, with
    IR224's fixture (a Reshape to symbolic dims, which the template cannot hold)."""
    model = tmp_path / "model.xml"
    stale = b"<!-- irpool: ignore IR206 -->\n<net "
    model.write_bytes(render(WRONG).replace(b"<net ", stale, 1))
    reshaped = Path(__file__).parent / "rules" / "IR224_reshape_to_symbolic_dims.xml"
    diagnostics = irpool.load(model).validate() + irpool.load(reshaped).validate()
    assert {d.code for d in diagnostics if d.edit is not None} == {
        code for code, rule in RULES.items() if rule.fixable
    }
    assert all("edit" not in d.to_dict() for d in diagnostics)  # reports never show it


def test_an_edit_that_settles_another_code_at_its_place_wins(tmp_path: Path) -> None:
    """` 32 ` is both unusual (IR113, whose edit writes 32) and wrong (IR301, whose edit
    writes 16): writing 16 settles both, so one fix resolves the two."""
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG))
    diagnostics = irpool.load(model).validate()
    (fix,) = [f for f in find_fixes(diagnostics) if "<dim> 32 </dim>" in f.message]
    assert fix.text == "16" and sorted(d.code for d in fix.resolves) == ["IR113", "IR301"]
    spelling_only = [d for d in diagnostics if d.code != "IR301"]
    (kept,) = [f for f in find_fixes(spelling_only) if "<dim> 32 </dim>" in f.message]
    assert kept.text == "32" and [d.code for d in kept.resolves] == ["IR113"]


@pytest.mark.oracle
def test_fixed_file_reads_in_openvino_with_the_same_shapes(
    runner: CliRunner, tmp_path: Path
) -> None:
    ov = pytest.importorskip("openvino")
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG, newline="\r\n", bom=True))
    fix(runner, "--fix", str(model))
    runtime = ov.Core().read_model(str(model))
    fixed = irpool.load(model)
    for op in runtime.get_ordered_ops():
        layer = fixed.layer(op.get_friendly_name())
        ports = layer.outputs or layer.inputs  # a Result's shape is its input's
        declared = [list(port.declared or ()) for port in ports]
        assert declared == [list(op.get_output_partial_shape(0).to_shape())], layer.name
        if op.get_type_name() == "AvgPool":
            attributes = op.get_attributes()
            assert fixed.layer("пул").data.get("pads_end") == ",".join(
                str(p) for p in attributes["pads_end"]
            )
    assert os.path.getsize(model) == len(render(RIGHT, newline="\r\n", bom=True))


def test_a_file_named_twice_is_checked_and_fixed_once(runner: CliRunner, tmp_path: Path) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG))
    code, stdout, _ = fix(runner, "--fix", "--jobs", "2", str(model), str(tmp_path))
    assert code == 0 and f"Fixed {FIXED_COUNT} problems in 1 file." in stdout
    assert "Checked 1 file:" in stdout and model.read_bytes() == render(RIGHT)


def test_a_file_that_cannot_be_written_is_reported_not_crashed(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(render(WRONG))

    def read_only(*_: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("irpool.cli.validate.write_atomically", read_only)
    code, _, stderr = fix(runner, "--fix", str(model))
    assert code == 1 and "not fixed: Permission denied" in stderr
    assert model.read_bytes() == render(WRONG)


def test_diff_exits_0_when_no_fix_is_pending_even_with_errors(runner: CliRunner) -> None:
    """What the README's exit codes say: --diff gates on pending fixes, not on findings."""
    path = str(Path(__file__).parent / "rules" / "IR207_strides_longer_than_kernel.xml")
    diff = runner.invoke(cli, ["validate", "--isolated", "--diff", path])
    assert (diff.exit_code, diff.stdout) == (0, "")
    assert "1 error" in diff.stderr
    assert runner.invoke(cli, ["validate", "--isolated", path]).exit_code == 1
