"""`model.run(..., intermediates=True)`: every tensor the run computed, keyed as
irpool/execute/tensors.py says, the outputs unchanged, and nothing freed during such a run."""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irpool
from irpool.element_types import element_type
from irpool.execute import memory
from tests import ir
from tests.scale import examples

ROOT = Path(__file__).resolve().parents[2]
CHAIN = ROOT / "examples" / "valid" / "chain_avgpool_adaptive.xml"  # AvgPool -> AdaptiveAvgPool
DYNAMIC = ROOT / "examples" / "valid" / "avgpool14_dynamic.xml"
# Runnable models of several computed tensors: two outputs, unnamed tensors, a Convert.
MODELS = [
    CHAIN,
    ROOT / "examples" / "valid" / "squeeze_unsqueeze.xml",
    ROOT / "examples" / "valid" / "maxpool8_indices.xml",
    ROOT / "tests" / "family_corpus" / "torch_adaptive_max1d_indices" / "model.xml",
    ROOT / "tests" / "family_corpus" / "torch_pools_two_outputs" / "model.xml",
    ROOT / "tests" / "family_corpus" / "torch_resnet_head" / "model.xml",
]


def _inputs(model: irpool.Model, seed: int = 0) -> dict[str | int, np.ndarray]:
    rng = np.random.default_rng(seed)
    inputs: dict[str | int, np.ndarray] = {}
    for position, parameter in enumerate(model.inputs):
        dtype = element_type(parameter.element_type).dtype
        assert dtype is not None
        array = rng.standard_normal(parameter.shape.values()) * 10
        inputs[position] = array.astype(dtype)
    return inputs


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.parent.name + "/" + p.stem)
def test_intermediates_hold_the_outputs_of_a_plain_run(path: Path) -> None:
    model = irpool.load(path)
    inputs = _inputs(model)
    plain = model.run(inputs)
    outputs, tensors = model.run(inputs, intermediates=True)
    assert list(outputs) == list(plain)
    for name, array in plain.items():
        np.testing.assert_array_equal(outputs[name], array)
        assert tensors[name] is outputs[name]  # a returned tensor is keyed as `run` keys it
    assert list(tensors) == [tensor.name for tensor in model.tensors]  # in run order
    for tensor in model.tensors:
        assert tensors[tensor.name].shape == tuple(
            model.checked.outputs[tensor.layer.id][tensor.index].shape.values()
        )


def test_the_chain_s_inner_tensor_is_keyed_by_layer_and_output() -> None:
    model = irpool.load(CHAIN)
    _, tensors = model.run(_inputs(model), intermediates=True)
    assert list(tensors) == ["pool:0", "output"]
    described = [(t.name, t.names, t.layer.name, t.index) for t in model.tensors]
    assert described == [("pool:0", (), "pool", 0), ("output", ("output",), "adaptive_pool", 0)]


def test_dynamic_models_key_the_same_tensors_at_every_shape() -> None:
    model = irpool.load(DYNAMIC)
    for batch, height in ((1, 4), (3, 10)):
        x = np.ones((batch, 3, height, 5), np.float32)
        outputs, tensors = model.run({0: x}, intermediates=True)
        assert list(tensors) == ["output"] and tensors["output"] is outputs["output"]


def test_threads_each_get_their_own_tensors() -> None:
    model = irpool.load(CHAIN)
    inputs = [_inputs(model, seed) for seed in range(8)]
    expected = [model.run(x, intermediates=True)[1] for x in inputs]
    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(lambda x: model.run(x, intermediates=True)[1], inputs))
    for mine, theirs in zip(found, expected, strict=True):
        assert list(mine) == list(theirs)
        for key in mine:
            np.testing.assert_array_equal(mine[key], theirs[key])


def _odd_names_model(tmp_path: Path) -> Path:
    """in -> a (names "q,p") -> b -> c (names "b:0") -> d -> Result "q"; b and d unnamed."""
    shape = [1, 1, 3, 3]

    def named(layer_id: int, name: str, names: str) -> str:
        return ir.avg_pool(layer_id, name, shape, shape, names=names)

    layers = [
        ir.parameter(0, "in", shape),
        named(1, "a", "q,p"),
        named(2, "b", ""),
        named(3, "c", "b:0"),
        named(4, "d", ""),
        ir.result(5, "q", shape),
    ]
    edges = [ir.edge(i, 0 if i == 0 else 1, i + 1, 0) for i in range(5)]
    return ir.write(tmp_path, ir.net(layers, edges))


def test_keys_are_unique_and_real_names_come_first(tmp_path: Path) -> None:
    model = irpool.load(_odd_names_model(tmp_path))
    assert not model.has_errors, model.validate()
    # d's unnamed output is returned as "q" (its Result's name), so a takes its other name;
    # b's "<layer>:<index>" is c's real name.
    assert model.outputs[0].name == "q"
    keys = {t.layer.name: t.name for t in model.tensors}
    assert keys == {"a": "p", "b": "b:0#2", "c": "b:0", "d": "q"}
    outputs, tensors = model.run({0: np.ones((1, 1, 3, 3), np.float32)}, intermediates=True)
    assert list(tensors) == ["p", "b:0#2", "b:0", "q"] and tensors["q"] is outputs["q"]
    np.testing.assert_allclose(tensors["b:0"], 1)


def test_a_run_keeping_its_tensors_needs_them_all_at_once(tmp_path: Path) -> None:
    """The memory check replays the run without frees: every tensor is held at the end."""
    plan = irpool.load(_odd_names_model(tmp_path))._planned()
    shapes = plan.static_shapes
    assert shapes is not None
    kept = memory.replay(plan.steps, shapes, plan.types, keep=True)
    total = sum(
        memory.tensor_bytes(shapes[t.ref].values(), plan.types[t.ref]) for t in plan.tensors
    )
    assert kept >= total
    assert kept > memory.replay(plan.steps, shapes, plan.types) == plan.static_peak


def test_not_enough_memory_for_every_tensor_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = irpool.load(_odd_names_model(tmp_path))
    plan = model._planned()
    assert plan.static_shapes is not None and plan.static_peak is not None
    keeping = memory.replay(plan.steps, plan.static_shapes, plan.types, keep=True)
    monkeypatch.setattr(memory, "physical_memory", lambda: 0)  # every run is checked
    monkeypatch.setattr(memory, "available_memory", lambda: (plan.static_peak + keeping) // 2)
    x = np.ones((1, 1, 3, 3), np.float32)
    model.run({0: x})
    with pytest.raises(irpool.ExecutionError, match=r"only .* of memory is available"):
        model.run({0: x}, intermediates=True)


NAME = st.text(alphabet="ab:0#", min_size=1, max_size=4)


@settings(max_examples=examples(40), deadline=None)
@given(
    st.lists(st.tuples(NAME, st.lists(NAME, max_size=2, unique=True)), min_size=1, max_size=5),
    NAME,
)
def test_keys_are_unique_whatever_the_names(
    layers: list[tuple[str, list[str]]], result_name: str
) -> None:
    """A chain of AvgPools with any layer names and tensor names (a name on one tensor only,
    as validation requires): every key is unique, a named tensor keeps one of its names unless
    the output's key took it, the rest are `<layer>:<index>` with `#<id>` while taken."""
    shape = [1, 1, 2, 2]
    seen: set[str] = set()
    text = [ir.parameter(0, "in", shape)]
    for position, (name, names) in enumerate(layers, start=1):
        names = [n for n in names if n not in seen and n != "in"]
        seen.update(names)
        text.append(ir.avg_pool(position, name, shape, shape, names=",".join(names)))
        layers[position - 1] = (name, names)
    text.append(ir.result(len(layers) + 1, result_name, shape))
    edges = [ir.edge(i, 0 if i == 0 else 1, i + 1, 0) for i in range(len(layers) + 1)]
    with tempfile.TemporaryDirectory() as directory:
        model = irpool.load(ir.write(Path(directory), ir.net(text, edges)))
        assert not model.has_errors, model.validate()
        tensors = model.tensors
    keys = [tensor.name for tensor in tensors]
    assert len(set(keys)) == len(keys) == len(layers)
    assert keys[-1] == model.outputs[0].name
    for tensor, (name, names) in zip(tensors[:-1], layers[:-1], strict=True):
        if tensor.name not in names:
            assert set(names) <= set(keys)  # every name of its own was taken
            assert tensor.name.startswith(f"{name}:0")
            assert tensor.name.removeprefix(f"{name}:0").replace(f"#{tensor.layer.id}", "") == ""
