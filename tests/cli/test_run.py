"""`irpool run` through click's CliRunner: binding, every input error, outputs, exit codes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from irpool.cli import cli
from irpool.cli.run import describe
from tests import ir

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
POOL = EXAMPLES / "valid" / "avgpool1_4d.xml"  # Parameter "input": f32 [1,2,5,5]
POOL_INPUT = EXAMPLES / "valid" / "avgpool1_4d.input.npy"
RULES_DIR = Path(__file__).resolve().parents[1] / "rules"
DYNAMIC = EXAMPLES / "valid" / "avgpool14_dynamic.xml"  # f32 [?,3,1..10,?]
CHANNEL_0 = [[3, 4.5, 6], [10.5, 12, 13.5], [18, 19.5, 21]]


def _save(tmp_path: Path, name: str, array: np.ndarray) -> Path:
    path = tmp_path / name
    np.save(path, array)
    return path


def _run(runner: CliRunner, *args: str | Path) -> tuple[int, str]:
    result = runner.invoke(cli, ["run", *map(str, args)])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_prints_name_shape_dtype_and_statistics(runner: CliRunner) -> None:
    code, output = _run(runner, POOL, "--input", POOL_INPUT)
    assert code == 0, output
    assert output.strip() == (
        'output (Result "output"): shape 1x2x3x3, float32, min 3, max 46, mean 24.5, nan 0, inf 0'
    )


def test_output_npy_holds_the_runtime_values(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out.npy"
    code, output = _run(runner, POOL, "-i", f"input={POOL_INPUT}", "-o", out)
    assert code == 0, output
    np.testing.assert_allclose(np.load(out)[0, 0], CHANNEL_0)


def test_outputs_are_keyed_by_tensor_name(runner: CliRunner, tmp_path: Path) -> None:
    """OpenVINO's name for the tensor ("y"), not the Result layer's ("Result_3")."""
    model = tmp_path / "named.xml"
    text = POOL.read_text().replace('precision="FP32" names="output"', 'precision="FP32" names="y"')
    model.write_text(
        text.replace('name="output" type="Result" version="opset1" output_names="output"',
                     'name="Result_3" type="Result" version="opset1"')
    )  # fmt: skip
    code, output = _run(runner, model, "-i", POOL_INPUT)
    assert code == 0 and output.startswith('y (Result "Result_3"): shape 1x2x3x3')
    out = tmp_path / "out.npz"
    code, _ = _run(runner, model, "-i", POOL_INPUT, "-o", out)
    assert code == 0
    with np.load(out) as results:
        assert results.files == ["y"]


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("values", "dtype", "shown"),
    [
        ([1, 2, 6], "f4", "shape 3, float32, min 1, max 6, mean 3, nan 0, inf 0"),
        (
            [INF, 2.5, NAN, 6.5, -INF],
            "f4",
            "shape 5, float32, min 2.5, max 6.5, mean 4.5 (finite values), nan 1, inf 2",
        ),
        ([NAN, INF], "f2", "shape 2, float16, no finite values, nan 1, inf 1"),
        ([], "f4", "shape 0, float32, empty"),
        ([3, -1], "i4", "shape 2, int32, min -1, max 3, mean 1"),
    ],
)
def test_statistics_count_and_leave_out_non_finite_values(
    values: list[float], dtype: str, shown: str
) -> None:
    line = describe("y", "Result_3", np.array(values, dtype))
    assert line == f'y (Result "Result_3"): {shown}'


def test_npz_input_binds_by_keys(runner: CliRunner, tmp_path: Path) -> None:
    bundle = tmp_path / "in.npz"
    np.savez(bundle, input=np.load(POOL_INPUT))
    code, output = _run(runner, POOL, "-i", bundle)
    assert code == 0, output


def test_dynamic_model_reinfers_from_the_input(runner: CliRunner, tmp_path: Path) -> None:
    x = _save(tmp_path, "x.npy", np.ones((6, 3, 4, 6), np.float32))
    code, output = _run(runner, DYNAMIC, "-i", x)
    assert code == 0, output
    assert output.startswith('output (Result "output"): shape 6x3x2x3, float32')


@pytest.mark.parametrize(
    ("model", "array", "message"),
    [
        (
            POOL,
            np.ones((1, 2, 5), np.float32),
            'input "input" (f32 [1,2,5,5]): expected shape [1,2,5,5], got [1,2,5] '
            "(rank 3, expected rank 4)",
        ),
        (POOL, np.ones((1, 2, 5, 6), np.float32), "got [1,2,5,6] (dim 3 is 6, expected 5)"),
        (
            POOL,
            np.ones((1, 2, 5, 5), np.float64),
            'input "input" (f32 [1,2,5,5]): expected dtype float32, got float64',
        ),
        (POOL, np.ones((1, 2, 5, 5), np.int32), "expected dtype float32, got int32"),
        (DYNAMIC, np.ones((1, 3, 11, 4), np.float32), "dim 2 is 11, expected 1..10"),
        (DYNAMIC, np.ones((1, 4, 5, 5), np.float32), "dim 1 is 4, expected 3"),
    ],
)
def test_input_that_does_not_fit_is_exit_1(
    runner: CliRunner, tmp_path: Path, model: Path, array: np.ndarray, message: str
) -> None:
    code, output = _run(runner, model, "-i", _save(tmp_path, "x.npy", array))
    assert code == 1
    assert message in output


def test_cast_converts_within_a_kind_and_says_so(runner: CliRunner, tmp_path: Path) -> None:
    x = _save(tmp_path, "x.npy", np.load(POOL_INPUT).astype(np.float64))
    code, output = _run(runner, POOL, "-i", x, "--cast")
    assert code == 0, output
    assert 'irpool run: input "input": cast float64 to f32' in output


def test_cast_of_a_value_beyond_the_range_is_exit_1(runner: CliRunner, tmp_path: Path) -> None:
    x = np.load(POOL_INPUT).astype(np.float64)
    x[0, 1, 0, 2] = -1e300
    code, output = _run(runner, POOL, "-i", _save(tmp_path, "x.npy", x), "--cast")
    assert code == 1
    assert (
        'input "input" (f32 [1,2,5,5]): value -1e+300 at index [0,1,0,2] does not fit in f32 '
        "(largest 3.40282e+38); it is not cast"
    ) in output


def test_cast_never_turns_floats_into_integers(runner: CliRunner, tmp_path: Path) -> None:
    model = EXAMPLES / "valid" / "adaptive_avg_pool8_3d.xml"
    code, output = _run(runner, model, "-i", _save(tmp_path, "x.npy", np.ones((1, 1, 5), "f4")))
    assert code == 0, output  # same dtype: fine
    x = _save(tmp_path, "y.npy", np.ones((1, 1, 5), np.complex64))
    code, output = _run(runner, model, "-i", x, "--cast")
    assert code == 1 and "cannot cast complex64 to f32" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], 'missing input(s): "input" (f32 [1,2,5,5])'),
        (["-i", "nope=IN"], 'no input named "nope"; the model\'s inputs are: "input"'),
        (["-i", "IN", "-i", "IN"], "the model has only 1 input(s)"),
        (["-i", "input=IN", "-i", "input=IN"], 'input "input" is given twice'),
    ],
)
def test_missing_extra_and_unknown_inputs_are_exit_1(
    runner: CliRunner, args: list[str], message: str
) -> None:
    code, output = _run(runner, POOL, *[a.replace("IN", str(POOL_INPUT)) for a in args])
    assert code == 1
    assert message in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-i", "{tmp}/missing.npy"], "input file {tmp}/missing.npy does not exist"),
        (["-i", "{tmp}"], "input file {tmp} is a directory"),
        (["-i", "input={tmp}"], "input file {tmp} is a directory"),
        (
            ["-i", "IN", "-o", "{tmp}/no/such/out.npy"],
            "--output {tmp}/no/such/out.npy: directory {tmp}/no/such does not exist",
        ),
        (["-i", "IN", "-o", "IN/out.npz"], "--output IN/out.npz: IN is not a directory"),
        (["-i", "IN", "-o", "{tmp}/dir.npy"], "'{tmp}/dir.npy' is a directory"),
    ],
)
def test_file_system_failures_are_exit_2_naming_the_path(
    runner: CliRunner, tmp_path: Path, args: list[str], message: str
) -> None:
    def fill(text: str) -> str:
        return text.replace("{tmp}", str(tmp_path)).replace("IN", str(POOL_INPUT))

    (tmp_path / "dir.npy").mkdir()
    code, output = _run(runner, POOL, *map(fill, args))
    assert code == 2, output
    assert fill(message) in output


def test_an_unreadable_input_file_is_exit_2(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Simulated: the suite may run as root, which reads any file whatever its mode.
    def refuse(path: Path, allow_pickle: bool) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("numpy.load", refuse)
    code, output = _run(runner, POOL, "-i", POOL_INPUT)
    assert code == 2
    assert f"cannot read input file {POOL_INPUT}: Permission denied" in output


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux sysfs")
def test_an_unwritable_output_is_exit_2(runner: CliRunner) -> None:
    # sysfs refuses new files even to root: a real write failure on any Linux machine.
    code, output = _run(runner, POOL, "-i", POOL_INPUT, "-o", "/sys/kernel/irpool-out.npy")
    assert code == 2
    assert "cannot write --output /sys/kernel/irpool-out.npy: Permission denied" in output


@pytest.mark.parametrize("content", ["not an array", ""], ids=["text", "empty"])
def test_a_file_that_is_not_numpy_is_exit_1(
    runner: CliRunner, tmp_path: Path, content: str
) -> None:
    bogus = tmp_path / "x.npy"
    bogus.write_text(content)  # empty: NumPy raises EOFError, which click took for an abort
    code, output = _run(runner, POOL, "-i", bogus)
    assert code == 1 and f"cannot read input file {bogus}: not an .npy or .npz file\n" in output


def test_invalid_model_is_not_run(runner: CliRunner) -> None:
    model = EXAMPLES / "broken" / "zero_stride.xml"
    code, output = _run(runner, model, "-i", POOL_INPUT)
    assert code == 1
    assert "IR206 error strides must be at least 1" in output
    assert "the model has errors (above); it is not run" in output


def test_unreadable_model_prints_its_diagnostics(runner: CliRunner) -> None:
    code, output = _run(runner, EXAMPLES / "broken" / "malformed_xml.xml")
    assert code == 1 and "IR101 error" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "out.txt"], "use a .npy or .npz file"),
        ([], "Missing argument"),
        (["--bogus"], "No such option"),
    ],
)
def test_usage_errors_are_exit_2(runner: CliRunner, args: list[str], message: str) -> None:
    full = [*args] if args == [] else [str(POOL), "-i", str(POOL_INPUT), *args]
    result = runner.invoke(cli, ["run", *full])
    assert result.exit_code == 2
    assert message in result.output


def test_a_model_given_as_input_is_named_not_numpy_s_pickle_message(runner: CliRunner) -> None:
    code, output = _run(runner, POOL, "--input", POOL)
    assert code == 1
    assert f"cannot read input file {POOL}: not an .npy or .npz file; the model is the first" in (
        output
    )
    assert "pickle" not in output


def test_the_dtype_message_names_the_command_line_s_option(
    runner: CliRunner, tmp_path: Path
) -> None:
    code, output = _run(runner, POOL, "-i", _save(tmp_path, "x.npy", np.ones((1, 2, 5, 5))))
    assert code == 1
    assert "got float64 (--cast converts within a kind, and says so)" in output
    assert "cast=True" not in output


def _stateful(tmp_path: Path) -> tuple[Path, Path]:
    """x [1,2] + the variable (first [[1, 2]]) -> Assign and "sum"; and x = [[1, 1]]."""
    model = ir.write(tmp_path, ir.stateful_model(), ir.STATEFUL_WEIGHTS)
    return model, _save(tmp_path, "x.npy", np.ones((1, 2), np.float32))


@pytest.mark.parametrize(
    ("extra", "sums"),
    [  # each step's "sum": the variable carried, x fed back or not
        ([], [[2, 3]]),
        (["--steps", "3"], [[2, 3], [3, 4], [4, 5]]),
        (["--steps", "3", "--feed", "sum=x"], [[2, 3], [4, 6], [8, 12]]),
    ],
)
def test_steps_run_one_infer_request(
    runner: CliRunner, tmp_path: Path, extra: list[str], sums: list[list[int]]
) -> None:
    model, x = _stateful(tmp_path)
    out = tmp_path / "out.npy"
    code, output = _run(runner, model, "-i", x, *extra, "-o", out)
    assert code == 0, output
    np.testing.assert_array_equal(np.load(out), [sums[-1]])
    code, output = _run(runner, model, "-i", x, *extra)
    steps = [line for line in output.splitlines() if line.startswith("step ")]
    assert steps == ([f"step {n}:" for n in range(1, len(sums) + 1)] if len(sums) > 1 else [])
    means = [f"mean {np.mean(s):g}," for s in sums]
    assert [m for m in means if m in output] == means


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--steps", "0"], "0 is not in the range x>=1"),
        (["--steps", "2", "--feed", "nothing=x"], "--feed nothing=x: write OUTPUT=INPUT"),
        (["--steps", "2", "--feed", "sum=y"], "one of its inputs (x)"),
        (["--steps", "2", "--feed", "sum"], "write OUTPUT=INPUT"),
        (["--steps", "2", "--dump", "dump"], "use it without --steps"),
    ],
)
def test_steps_usage_errors_are_exit_2(
    runner: CliRunner, tmp_path: Path, extra: list[str], message: str
) -> None:
    model, x = _stateful(tmp_path)
    code, output = _run(runner, model, "-i", x, *extra)
    assert code == 2, output
    assert message in output


def test_a_tokenizer_says_what_it_cannot_run(runner: CliRunner, tmp_path: Path) -> None:
    """An extension's op (IR229, a warning) is named, exit 1, no traceback."""
    fixture = RULES_DIR / "IR229_openvino_tokenizers_detokenizer.xml"
    tokens = _save(tmp_path, "tokens.npy", np.array([[1, 2]], np.int64))
    code, output = _run(runner, fixture, "-i", tokens)
    assert code == 1, output
    assert "IR229 warning" in output
    assert (
        "is an op of openvino_tokenizers, an OpenVINO extension: irpool runs no extension op"
        in (output)
    )


def test_string_tensors_are_named_not_run(runner: CliRunner, tmp_path: Path) -> None:
    """text [2] -> StringTensorUnpack -> StringTensorPack -> Result: valid, not run."""
    string, i32, u8 = ("string", [2]), ("i32", [2]), ("u8", [-1])

    def ports(first: int, *typed: tuple[str, list[int]]) -> list[str]:
        return [ir.typed_port(first + i, kind, dims) for i, (kind, dims) in enumerate(typed)]

    unpack = ir.layer(1, "unpack", "StringTensorUnpack", "opset15", "", ports(0, string),
                      ports(1, i32, i32, u8))  # fmt: skip
    pack = ir.layer(2, "pack", "StringTensorPack", "opset15", "", ports(0, i32, i32, u8),
                    ports(3, string))  # fmt: skip
    result = ir.layer(3, "out", "Result", "opset1", "", ports(0, string))
    edges = [(0, 0, 1, 0), (1, 1, 2, 0), (1, 2, 2, 1), (1, 3, 2, 2), (2, 3, 3, 0)]
    text = ir.net(
        [ir.parameter(0, "text", (2,), "string"), unpack, pack, result],
        [ir.edge(*ends) for ends in edges],
    )
    model = ir.write(tmp_path, text)
    code, output = _run(runner, model, "-i", _save(tmp_path, "s.npy", np.array(["ab", "c"])))
    assert code == 1, output
    assert output == (
        'irpool run: input "text" (string [2]): element type string cannot be held by NumPy\n'
    )
