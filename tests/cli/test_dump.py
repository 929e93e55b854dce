"""`irpool run --dump DIR` through click's CliRunner: one .npy per computed tensor, the index
(schemas/dump-index.schema.json), safe file names for any tensor name, and every refusal."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import irpool
from irpool.cli import cli
from irpool.cli.dump import file_names
from tests import ir

ROOT = Path(__file__).resolve().parents[2]
CHAIN = ROOT / "examples" / "valid" / "chain_avgpool_adaptive.xml"  # f32 [1,3,32,32]
INDICES = ROOT / "tests" / "family_corpus" / "torch_adaptive_max1d_indices" / "model.xml"
SCHEMA = ROOT / "schemas" / "dump-index.schema.json"
# Names a file system cannot take as they are, and two that collide once made safe.
ODD_NAMES = ["a/b", "a:b", "température", "x" * 300, "..", "日本"]


def _input(tmp_path: Path, model: Path) -> Path:
    parameter = irpool.load(model).inputs[0]
    array = np.random.default_rng(1).standard_normal(parameter.shape.values()).astype("f4")
    path = tmp_path / "x.npy"
    np.save(path, array)
    return path


def _dump(runner: CliRunner, *args: str | Path) -> tuple[int, str]:
    result = runner.invoke(cli, ["run", *map(str, args)])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _index(directory: Path) -> dict[str, Any]:
    index: dict[str, Any] = json.loads((directory / "index.json").read_text(encoding="utf-8"))
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(index, json.loads(SCHEMA.read_text()))
    return index


@pytest.mark.parametrize("model", [CHAIN, INDICES], ids=["chain", "indices"])
def test_every_computed_tensor_is_a_file_the_index_describes(
    runner: CliRunner, tmp_path: Path, model: Path
) -> None:
    x = _input(tmp_path, model)
    dump = tmp_path / "dump"
    code, output = _dump(runner, model, "--input", x, "--dump", dump)
    assert code == 0, output
    loaded = irpool.load(model)
    outputs, tensors = loaded.run({0: np.load(x)}, intermediates=True)
    index = _index(dump)
    assert sorted(p.name for p in dump.iterdir()) == sorted(
        [*(entry["file"] for entry in index["tensors"]), "index.json"]
    )
    assert [entry["name"] for entry in index["tensors"]] == list(tensors)
    for entry, tensor in zip(index["tensors"], loaded.tensors, strict=True):
        array = np.load(dump / entry["file"], allow_pickle=False)
        np.testing.assert_array_equal(array, tensors[entry["name"]])
        assert entry["shape"] == list(array.shape) and entry["dtype"] == str(array.dtype)
        assert entry["layer"] == {
            "id": tensor.layer.id,
            "name": tensor.layer.name,
            "type": tensor.layer.type,
        }
        assert entry["output"] == tensor.index
        assert entry["port"] == tensor.layer.outputs[tensor.index].id
        assert entry["returned"] == (entry["name"] in outputs)
    assert f"wrote {len(tensors)} tensor(s) and index.json to {dump}" in output


def test_the_chain_s_index_names_layer_port_and_type(runner: CliRunner, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    code, _ = _dump(runner, CHAIN, "--input", _input(tmp_path, CHAIN), "--dump", dump)
    assert code == 0
    first, last = _index(dump)["tensors"]
    assert first["file"] == "0000-pool_0.npy" and first["name"] == "pool:0"
    assert first["layer"]["type"] == "AvgPool" and first["port"] == 1 and not first["returned"]
    assert last["file"] == "0001-output.npy" and last["names"] == ["output"] and last["returned"]


def _odd_model(tmp_path: Path) -> Path:
    """A chain of AvgPools whose outputs carry ODD_NAMES (the last one returned)."""
    shape = [1, 1, 2, 2]
    pools = []
    for position, name in enumerate(ODD_NAMES, start=1):
        pools.append(ir.avg_pool(position, f"pool{position}", shape, shape, names=name))
    count = len(ODD_NAMES)
    layers = [ir.parameter(0, "in", shape), *pools, ir.result(count + 1, "out", shape)]
    edges = [ir.edge(i, 0 if i == 0 else 1, i + 1, 0) for i in range(count + 1)]
    return ir.write(tmp_path, ir.net(layers, edges))


def test_odd_tensor_names_get_safe_unique_file_names(runner: CliRunner, tmp_path: Path) -> None:
    model = _odd_model(tmp_path)
    assert not irpool.load(model).has_errors
    x = tmp_path / "x.npy"
    np.save(x, np.ones((1, 1, 2, 2), np.float32))
    dump = tmp_path / "dump"
    code, output = _dump(runner, model, "-i", x, "--dump", dump)
    assert code == 0, output
    entries = _index(dump)["tensors"]
    assert [entry["name"] for entry in entries] == ODD_NAMES
    assert [entry["file"] for entry in entries] == [
        "0000-a_b.npy",
        "0001-a_b.npy",
        "0002-temp_rature.npy",
        f"0003-{'x' * 64}.npy",
        "0004-tensor.npy",
        "0005-tensor.npy",
    ]
    for entry in entries:
        np.testing.assert_array_equal(np.load(dump / entry["file"]), 1)


def test_file_names_widen_their_position_for_long_runs() -> None:
    names = file_names([f"t{i}" for i in range(12345)])
    assert names[0] == "00000-t0.npy" and names[-1] == "12344-t12344.npy"
    assert len(set(names)) == len(names)


def test_an_empty_directory_takes_the_dump(runner: CliRunner, tmp_path: Path) -> None:
    dump = tmp_path / "empty"
    dump.mkdir()
    code, _ = _dump(runner, CHAIN, "-i", _input(tmp_path, CHAIN), "--dump", dump)
    assert code == 0 and (dump / "index.json").is_file()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: (d.mkdir(), (d / "old.npy").write_bytes(b"")), "the directory is not empty"),
        (lambda d: d.write_text("x"), "is a file"),
        (lambda d: None, "does not exist"),
    ],
    ids=["not-empty", "a-file", "no-parent"],
)
def test_a_directory_that_cannot_take_the_dump_is_refused_before_the_run(
    runner: CliRunner, tmp_path: Path, make: Any, message: str
) -> None:
    dump = tmp_path / "dump"
    make(dump)
    target = dump / "sub" if message == "does not exist" else dump
    code, output = _dump(runner, CHAIN, "-i", _input(tmp_path, CHAIN), "--dump", target)
    assert code == 2 and message in output, output
    assert not (tmp_path / "dump" / "index.json").exists()


def test_a_write_the_system_refuses_is_exit_2_naming_the_file(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(path: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    x = _input(tmp_path, CHAIN)
    monkeypatch.setattr(np, "save", refuse)
    dump = tmp_path / "dump"
    code, output = _dump(runner, CHAIN, "-i", x, "--dump", dump)
    assert code == 2
    assert f"cannot write --dump {dump / '0000-pool_0.npy'}: Permission denied" in output


def test_a_directory_the_system_will_not_create_is_exit_2(
    runner: CliRunner, tmp_path: Path
) -> None:
    # sysfs refuses new entries even to root: a real failure on any Linux machine.
    x = _input(tmp_path, CHAIN)
    code, output = _dump(runner, CHAIN, "-i", x, "--dump", "/sys/kernel/irpool-dump")
    assert code == 2
    assert re.search(
        "cannot write --dump /sys/kernel/irpool-dump: (Permission denied|Operation not permitted)",
        output,
    )


def test_a_run_that_fails_writes_no_dump(runner: CliRunner, tmp_path: Path) -> None:
    x = tmp_path / "x.npy"
    np.save(x, np.ones((1, 2, 3), np.float32))  # the wrong rank
    dump = tmp_path / "dump"
    code, output = _dump(runner, CHAIN, "-i", x, "--dump", dump)
    assert code == 1 and not dump.exists(), output
