"""bf16 inputs and outputs, as a nonstateful int8 export's past_key_values and present have them:
float32 arrays of bf16 values go in as they are (a run's own outputs fed back), other float32
only with casting, float16 never (OpenVINO's bit arrays; irpool.bf16_from_bits converts them)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli
from irpool.cpu import bf16_in_f32
from irpool.cpu.bf16_in_f32 import computes_bf16
from irpool.cpu.isa import AVX2, AVX512_CORE_BF16
from irpool.execute.kernels import convert as convert_kernel
from tests.execute.bf16_models import DEPTH, PAST, kv_model


def _step(x: float) -> np.ndarray:
    return np.full((1, 1, 1, DEPTH), x, np.float32)


def _empty() -> np.ndarray:
    return np.zeros((1, 1, 0, DEPTH), np.float32)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> irpool.Model:
    return irpool.load(kv_model(tmp_path_factory.mktemp("bf16_io")))


def test_present_fed_back_as_past_is_taken_as_it_is(model: irpool.Model) -> None:
    past, told = _empty(), []
    for x in (0.1, 1.7, -3.3):
        outputs = model.run({PAST: past, "x": _step(x)}, on_cast=told.append)
        present = outputs["present.0.key"]
        assert present.dtype == np.float32
        assert not np.any(present.view(np.uint32) & 0xFFFF)  # bf16 values
        np.testing.assert_array_equal(present[:, :, :-1], past)
        past = present
    assert told == []
    # Without bf16 instructions the output takes OpenVINO's scalar rounding: 0.1 -> 0.0996.
    first = 0.10009765625 if computes_bf16() else 0.099609375
    np.testing.assert_array_equal(past[0, 0, :, 0], [first, 1.703125, -3.296875])


@pytest.mark.parametrize(
    ("given", "cast", "message"),
    [
        (_step(0.5).astype(np.float16), False, "float16 is not taken for bf16, even with casting"),
        (_step(0.5).astype(np.float16), True, "irpool.bf16_from_bits converts OpenVINO's arrays"),
        (
            _step(0.1),
            False,
            f'input "Parameter_7" (tensor "{PAST}", bf16 [1,1,?,4]): a bf16 input takes float32 '
            "arrays of bf16 values, as run returns a bf16 output; value 0.1 at index [0,0,0,0] "
            "is not a bf16 value (cast=True converts within a kind, and says so)",
        ),
        (_step(0.5).astype(np.float64), False, "a bf16 output; got float64 (cast=True"),
        (np.ones((1, 1, 1, DEPTH), np.int32), False, "got int32 (cast=True"),
        (np.full((1, 1, 1, DEPTH), 3.4e38), True, "value 3.4e+38 at index [0,0,0,0] does not fit"),
        (_step(0.5)[..., :2], False, "expected shape [1,1,?,4], got [1,1,1,2] (dim 3 is 2"),
    ],
    ids=["float16", "float16 cast", "float32 not bf16", "float64", "int32", "beyond bf16", "shape"],
)  # fmt: skip
def test_what_a_bf16_input_refuses_says_what_it_takes(
    model: irpool.Model, given: np.ndarray, cast: bool, message: str
) -> None:
    with pytest.raises(irpool.InputError, match=re.escape(message)):
        model.run({PAST: given, "x": _step(1)}, cast=cast)


@pytest.mark.parametrize(
    ("given", "past"),
    [
        (_step(0.1), 0.10009765625),
        (_step(0.1).astype(np.float64), 0.10009765625),
        (np.full((1, 1, 1, DEPTH), 3, np.int64), 3.0),
    ],
    ids=["float32", "float64", "int64"],
)
def test_casting_rounds_to_bf16_and_says_so(
    model: irpool.Model, given: np.ndarray, past: float
) -> None:
    told: list[str] = []
    outputs = model.run({PAST: given, "x": _step(1)}, cast=True, on_cast=told.append)
    np.testing.assert_array_equal(outputs["present.0.key"][0, 0, :, 0], [past, 1.0])
    assert told == [f'input "Parameter_7": cast {given.dtype} to bf16']


def test_casting_keeps_a_nan_whose_payload_is_below_bf16_a_nan(model: irpool.Model) -> None:
    signalling = np.full((1, 1, 1, DEPTH), 0x7F800001, np.uint32).view(np.float32)
    present = model.run({PAST: signalling, "x": _step(1)}, cast=True)["present.0.key"]
    np.testing.assert_array_equal(present[0, 0, 0].view(np.uint32), [0x7FC00000] * DEPTH)


def test_openvino_bit_arrays_convert_both_ways() -> None:
    values = np.array([[0.10009765625, -0.0, np.inf, -3.296875]], np.float32)
    bits = irpool.bf16_to_bits(values)
    assert bits.dtype == np.float16
    np.testing.assert_array_equal(bits.view(np.uint16), [[0x3DCD, 0x8000, 0x7F80, 0xC053]])
    np.testing.assert_array_equal(irpool.bf16_from_bits(bits), values)
    np.testing.assert_array_equal(irpool.bf16_from_bits(bits.view(np.uint16)), values)


@pytest.mark.parametrize(
    ("call", "given", "message"),
    [
        ("bf16_from_bits", np.zeros(2, np.float32), "or uint16) of bf16 bits, got float32"),
        ("bf16_to_bits", np.zeros(2, np.float16), "float32 arrays of bf16 values, got float16"),
        ("bf16_to_bits", np.array([[1.0, 0.1]], np.float32), "0.1 at index [0,1], which is not"),
    ],
)  # fmt: skip
def test_the_conversions_refuse_what_they_cannot_convert_exactly(
    call: str, given: np.ndarray, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        getattr(irpool, call)(given)


@pytest.mark.parametrize(
    ("past", "code", "message"),
    [
        (_step(0.5), 0, "present.0.key (Result \"present\"): shape 1x1x2x4, float32"),
        (_step(0.5).astype(np.float16), 1, "float16 is not taken for bf16, even with casting"),
        (_step(0.1), 1, "is not a bf16 value (--cast converts within a kind, and says so)"),
    ],
    ids=["bf16 values", "float16", "float32 not bf16"],
)  # fmt: skip
def test_the_command_line_takes_and_refuses_the_same(
    runner: CliRunner, tmp_path: Path, past: np.ndarray, code: int, message: str
) -> None:
    path = kv_model(tmp_path)
    np.savez(tmp_path / "in.npz", **{PAST: past, "x": _step(1)})
    result = runner.invoke(cli, ["run", str(path), "--input", str(tmp_path / "in.npz")])
    assert "Traceback" not in result.output
    assert result.exit_code == code, result.output
    assert message in result.output


@pytest.mark.parametrize(
    ("isa", "logit", "present"),
    [(AVX512_CORE_BF16, 0.10009765625, 0.10009765625), (AVX2, 0.10000000149011612, 0.099609375)],
)
def test_bf16_layers_compute_in_f32_with_at_most_avx2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, isa: str, logit: float, present: float
) -> None:
    """x = 0.1 through Convert(bf16) -> Concat: with AVX-512 rounded to nearest even for both
    outputs; with at most AVX2 (measured, docs/cpu.md#bf16-layers-compute-in-f32-with-at-most-avx2)
    the logits read the f32 value, the bf16 output is OpenVINO's scalar rounding of it."""
    for module in (bf16_in_f32, convert_kernel):  # the plan's, and the output's rounding
        monkeypatch.setattr(module, "bf16_isa", lambda: isa)
    outputs = irpool.load(kv_model(tmp_path)).run({PAST: _empty(), "x": _step(0.1)})
    assert outputs["logits"].ravel().tolist() == [logit] * DEPTH
    assert outputs["present.0.key"].ravel().tolist() == [present] * DEPTH
