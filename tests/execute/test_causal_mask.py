"""The causal-mask chain of optimum-intel's decoder exports as one step
(irpool/execute/mask_chain.py): the same bytes as the chain's layers, logits and states, for
every mask a decode gives and for masks it does not; a chain that differs is not fused."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irpool
from irpool.execute import plan as planning
from irpool.execute.mask_chain import CausalMask

LANGUAGE = Path(__file__).resolve().parent.parent / "models" / "language"
LLAMA = LANGUAGE / "llama-fp16" / "openvino_model.xml"


@contextmanager
def _unfused() -> Iterator[None]:
    """Plans made inside run the chain's layers."""
    real = planning.causal_masks
    planning.causal_masks = lambda *args: {}  # type: ignore[assignment]
    try:
        yield
    finally:
        planning.causal_masks = real  # type: ignore[assignment]


def _models(path: Path = LLAMA) -> tuple[irpool.Model, irpool.Model]:
    fused, unfused = irpool.load(path), irpool.load(path)
    fused.execution_plan()
    with _unfused():
        unfused.execution_plan()
    return fused, unfused


def _prompt(mask: np.ndarray[Any, Any], vocabulary: int = 1000) -> dict[str, Any]:
    """A prompt's inputs as transformers gives them: positions count the unmasked tokens."""
    ids = np.random.default_rng(mask.size).integers(3, vocabulary, mask.shape)
    positions = np.where(mask == 0, 1, np.cumsum(mask != 0, axis=1) - 1)
    beams = np.arange(mask.shape[0], dtype=np.int32)
    return {"input_ids": ids, "attention_mask": mask, "position_ids": positions, "beam_idx": beams}


def _decoded(model: irpool.Model, mask: np.ndarray[Any, Any], steps: int) -> list[Any]:
    """The logits of a prompt and `steps` greedy steps after it, and the states after."""
    request = model.create_infer_request()
    inputs = _prompt(mask.astype(np.int64))
    found = []
    for _ in range(steps + 1):
        logits = request.infer(inputs)["logits"]
        found.append(logits)
        mask = np.concatenate([inputs["attention_mask"], np.ones((len(mask), 1), np.int64)], 1)
        inputs = {
            "input_ids": logits[:, -1:].argmax(-1),
            "attention_mask": mask,
            "position_ids": inputs["position_ids"][:, -1:] + 1,
            "beam_idx": inputs["beam_idx"],
        }
    states = request.query_state()
    return found + [states[name] for name in sorted(states)]


def _same(found: list[Any], expected: list[Any]) -> None:
    assert len(found) == len(expected)
    for a, b in zip(found, expected, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.fixture(scope="module")
def models() -> tuple[irpool.Model, irpool.Model]:
    return _models()


def test_the_chain_is_one_step(models: tuple[irpool.Model, irpool.Model]) -> None:
    fused, unfused = (model.execution_plan().steps for model in models)
    masks = [step for step in fused if isinstance(step.op, CausalMask)]
    assert len(masks) == 1 and len(unfused) - len(fused) == 44
    assert not any(isinstance(step.op, CausalMask) for step in unfused)


MASKS = {
    "ones": [[1] * 7],
    "one token": [[1]],
    "left padded": [[0, 0, 0, 1, 1, 1, 1]],
    "masked middle": [[1, 1, 0, 0, 1, 0, 1]],
    "zeros": [[0] * 5],
    "batch 2 left padded": [[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]],
    "batch 2 masked middle": [[1, 0, 1, 1, 0, 1], [0, 0, 0, 0, 0, 1]],
    "batch 2 zeros": [[0, 0, 0], [0, 0, 0]],
    "values not 0 or 1": [[2, -1, 0, 2**32, 2**31, 1]],
}


@pytest.mark.parametrize("mask", MASKS.values(), ids=MASKS.keys())
def test_decoding_gives_the_chains_bytes(
    models: tuple[irpool.Model, irpool.Model], mask: list[list[int]]
) -> None:
    fused, unfused = models
    rows = np.array(mask, np.int64)
    _same(_decoded(fused, rows, 6), _decoded(unfused, rows, 6))


def test_every_prompt_length_and_32_steps(models: tuple[irpool.Model, irpool.Model]) -> None:
    fused, unfused = models
    for length in range(1, 17):
        rows = np.ones((1, length), np.int64)
        _same(_decoded(fused, rows, 1), _decoded(unfused, rows, 1))
    rows = np.array([[0, 1, 1, 0, 1]], np.int64)
    _same(_decoded(fused, rows, 32), _decoded(unfused, rows, 32))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.integers(1, 2).flatmap(
        lambda batch: st.lists(
            st.lists(st.sampled_from([0, 0, 1, 1, 1, 3, -2]), min_size=batch, max_size=batch),
            min_size=1,
            max_size=12,
        )
    )
)
def test_random_masks_give_the_chains_bytes(
    models: tuple[irpool.Model, irpool.Model], columns: list[list[int]]
) -> None:
    """Batch 1 or 2, any prompt length up to 12, each token masked or not (by values other
    than 0 and 1 too): a prompt and two greedy steps."""
    fused, unfused = models
    rows = np.array(columns, np.int64).T
    _same(_decoded(fused, rows, 2), _decoded(unfused, rows, 2))


def test_a_decode_takes_the_formula_and_other_shapes_the_chain(
    models: tuple[irpool.Model, irpool.Model], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mask longer or shorter than the cache and the tokens (its Gather then reads out of
    place or out of range) runs the chain's kernels and inferences: the same bytes or the
    same refusal."""
    from irpool.execute.kernels import causal_mask as kernels

    chained: list[int] = []
    real = kernels._chain_condition
    monkeypatch.setattr(kernels, "_chain_condition", lambda *a: chained.append(1) or real(*a))
    _decoded(models[0], np.ones((2, 4), np.int64), 2)
    assert not chained
    for extra in (-3, -1, 1, 2):
        chained.clear()
        found = []
        for model in models:
            request = model.create_infer_request()
            inputs = _prompt(np.ones((1, 4), np.int64))
            request.infer(inputs)
            inputs = {**inputs, "attention_mask": np.ones((1, 5 + extra), np.int64)}
            inputs = {**inputs, "input_ids": inputs["input_ids"][:, :1]}
            inputs["position_ids"] = inputs["position_ids"][:, -1:] + 1
            try:
                found.append([request.infer(inputs)["logits"]])
            except irpool.InputError as error:
                found.append([type(error)])
        assert chained
        if isinstance(found[0][0], type):
            assert found[0] == found[1]
        else:
            _same(found[0], found[1])


def test_inference_of_a_decode_is_the_chains(models: tuple[irpool.Model, irpool.Model]) -> None:
    """The formula's inference (a decode's shapes) gives the type and shape the chain's
    layers infer from the same inputs, values as a run has them."""
    from irpool.element_types import element_type
    from irpool.ops.base import LayerContext, TensorInfo
    from irpool.shape import Shape

    step = next(s for s in models[0].execution_plan().steps if isinstance(s.op, CausalMask))
    ctx = LayerContext(frozenset(), lambda report: None, lambda offset, size: memoryview(b""))
    then = TensorInfo(element_type("f32"), Shape.of(), np.float32(0).reshape(()))
    for batch, past, length in [(1, 0, 1), (1, 0, 9), (1, 31, 1), (2, 5, 3), (2, 0, 1)]:
        mask = np.ones((batch, past + length), np.int64)
        inputs = [
            TensorInfo(element_type("f32"), Shape.of(batch, 4, past, 32)),
            TensorInfo(element_type("f32"), Shape.of(batch, length, 64)),
            TensorInfo(element_type("i64"), Shape.of(*mask.shape), mask),
            then,
            then,
        ]
        fast, chain = step.op.infer(inputs, ctx), step.op.chain_infer(inputs, ctx)
        assert [(i.type, i.shape) for i in fast] == [(i.type, i.shape) for i in chain]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('type="LessEqual"', 'type="Less"'),
        ('type="BitwiseAnd" version="opset13"', 'type="BitwiseOr" version="opset13"'),
    ],
)
def test_a_chain_that_differs_is_not_fused(tmp_path: Path, old: str, new: str) -> None:
    """One op of the chain another (`k < P + s`, an or of the masks): the plan as it was."""
    text = LLAMA.read_text()
    assert text.count(old) >= 1
    (tmp_path / "model.xml").write_text(text.replace(old, new, 1))
    (tmp_path / "model.bin").write_bytes(LLAMA.with_suffix(".bin").read_bytes())
    fused, unfused = _models(tmp_path / "model.xml")
    assert len(fused.execution_plan().steps) == len(unfused.execution_plan().steps)
    assert not any(isinstance(s.op, CausalMask) for s in fused.execution_plan().steps)


@pytest.mark.parametrize("name", ["qwen2-fp16", "mistral-fp16", "phi3-fp16", "llama-int8"])
def test_other_exports_of_the_chain_give_its_bytes(name: str) -> None:
    """Qwen2's, Mistral's and Phi-3's exports write the same chain (Gemma's differs)."""
    fused, unfused = _models(LANGUAGE / name / "openvino_model.xml")
    assert any(isinstance(s.op, CausalMask) for s in fused.execution_plan().steps)
    rows = np.array([[0, 0, 1, 1, 1], [1, 0, 1, 1, 1]], np.int64)
    _same(_decoded(fused, rows, 4), _decoded(unfused, rows, 4))


def test_gemmas_mask_is_not_the_chain() -> None:
    steps = irpool.load(LANGUAGE / "gemma-fp16" / "openvino_model.xml").execution_plan().steps
    assert not any(isinstance(step.op, CausalMask) for step in steps)
