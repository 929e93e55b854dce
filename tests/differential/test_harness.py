"""The harness's batching: a refused batch is split until each refusal is one item alone."""

from __future__ import annotations

import pytest

from tests.differential.harness import split_compiles


@pytest.mark.parametrize(
    ("count", "refused"),
    [(1, set()), (1, {0}), (16, set()), (16, {3}), (16, {3, 7, 15}), (13, set(range(13)))],
)
def test_each_refusal_is_one_item_alone(count: int, refused: set[int]) -> None:
    compiled: list[list[int]] = []

    def compile_batch(batch: list[int]) -> str:
        compiled.append(batch)
        if refused & set(batch):
            raise RuntimeError(f"refused {sorted(refused & set(batch))}")
        return f"compiled {batch}"

    batches = list(split_compiles(list(range(count)), compile_batch))
    assert [item for batch, _ in batches for item in batch] == list(range(count))
    alone = {batch[0] for batch, result in batches if isinstance(result, RuntimeError)}
    assert alone == refused
    assert all(len(batch) == 1 for batch, result in batches if isinstance(result, RuntimeError))
    passed = [(batch, result) for batch, result in batches if isinstance(result, str)]
    assert all(result == f"compiled {batch}" for batch, result in passed)
    assert compiled[0] == list(range(count))  # the whole batch first


def test_other_errors_are_not_refusals() -> None:
    def compile_batch(batch: list[int]) -> None:
        raise ValueError("a bug in the test, not the CPU's verdict")

    with pytest.raises(ValueError):
        list(split_compiles([1, 2], compile_batch))
