"""Live differential test: a nonstateful KV loop with a bf16 past_key_values input and present
output (tests/execute/bf16_models.py), 16 greedy steps from an empty past, irpool against the CPU
plugin, each fed its own present: the same tokens, present bit for bit. OpenVINO's Python API
gives and takes bf16 as float16 arrays of the bits and refuses float32 arrays for bf16 in
`compiled_model(...)` (docs/inputs-outputs.md#bf16-inputs-and-outputs)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from numpy.typing import NDArray

import irpool
from irpool.cli import cli
from tests.differential.oracle_batch import CPU_CONFIG
from tests.execute.bf16_models import DEPTH, PAST, kv_model

ov = pytest.importorskip("openvino")

pytestmark = pytest.mark.oracle

STEPS = 16
Run = Callable[[dict[str, NDArray[Any]]], dict[str, NDArray[Any]]]


@pytest.fixture(scope="module")
def path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return kv_model(tmp_path_factory.mktemp("bf16_io_live"))


def _greedy(run: Run, empty: NDArray[Any]) -> tuple[list[int], list[NDArray[Any]]]:
    """Tokens chosen by argmax of the logits, each token's embedding the next step's x, and
    each step's present fed back as its past."""
    embeddings = np.random.default_rng(7).normal(size=(DEPTH, DEPTH)).astype(np.float32)
    past, token, tokens, presents = empty, 0, [], []
    for _ in range(STEPS):
        outputs = run({PAST: past, "x": embeddings[token].reshape(1, 1, 1, DEPTH)})
        token = int(np.argmax(outputs["logits"]))
        tokens.append(token)
        past = outputs["present.0.key"]
        presents.append(past)
    return tokens, presents


def test_sixteen_greedy_steps_give_openvinos_tokens_and_present(path: Path) -> None:
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)

    def cpu(feeds: dict[str, NDArray[Any]]) -> dict[str, NDArray[Any]]:
        outputs = compiled(feeds)
        return {o.get_any_name(): outputs[o] for o in compiled.outputs}

    ours, our_presents = _greedy(irpool.load(path).run, np.zeros((1, 1, 0, DEPTH), np.float32))
    theirs, their_presents = _greedy(cpu, np.zeros((1, 1, 0, DEPTH), np.float16))
    assert ours == theirs
    assert len(set(ours)) > 1
    for mine, bits in zip(our_presents, their_presents, strict=True):
        assert bits.dtype == np.float16  # OpenVINO's bf16: the bits in a float16 array
        np.testing.assert_array_equal(irpool.bf16_from_bits(bits), mine)
        np.testing.assert_array_equal(
            irpool.bf16_to_bits(mine).view(np.uint16), bits.view(np.uint16)
        )


def test_openvinos_present_converted_runs_as_irpools_own(path: Path) -> None:
    compiled = ov.Core().compile_model(path, "CPU", CPU_CONFIG)
    model = irpool.load(path)
    x = np.full((1, 1, 1, DEPTH), 0.3, np.float32)
    bits = compiled({PAST: np.zeros((1, 1, 0, DEPTH), np.float16), "x": x})["present.0.key"]
    past = irpool.bf16_from_bits(bits)
    ours = model.run({PAST: past, "x": x})
    theirs = compiled({PAST: bits, "x": x})
    np.testing.assert_array_equal(
        irpool.bf16_to_bits(ours["present.0.key"]).view(np.uint16),
        theirs["present.0.key"].view(np.uint16),
    )
    np.testing.assert_allclose(ours["logits"], theirs["logits"], rtol=1e-6)
    with pytest.raises(ValueError, match="could not broadcast"):  # float32 refused (shared)
        compiled({PAST: past, "x": x})


def test_compare_feeds_and_reads_openvino_bf16_as_bits(path: Path, runner: CliRunner) -> None:
    """`irpool compare` gives OpenVINO the past's bits and reads its bf16 tensors from bits:
    irpool and the CPU in f32 then agree exactly on every tensor."""
    inputs = path.parent / "inputs.npz"
    past = np.full((1, 1, 2, DEPTH), 0.10009765625, np.float32)
    np.savez(inputs, **{PAST: past, "x": np.full((1, 1, 1, DEPTH), 0.3, np.float32)})
    result = runner.invoke(cli, ["compare", str(path), "--input", str(inputs), "--format", "json"])
    assert result.exit_code == 0, result.output
    tensors = json.loads(result.stdout)["tensors"]
    assert {t["tensor"] for t in tensors} >= {"present.0.key", "logits"}
    assert [t["differences"]["irpool_vs_f32"]["max_abs"] for t in tensors] == [0.0] * len(tensors)
