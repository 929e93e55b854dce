"""Live differential test: `Model.reshape` against OpenVINO's `model.reshape` on every
committed corpus model that has recorded inputs (tests/models/*/) and no op irpool lacks.

Each model is reshaped to a larger batch, to twice and to one more than its spatial size, and
to a dynamic batch and size. irpool must refuse (IR311) exactly where OpenVINO's reshape
raises, and where it does not, infer every output's shape as OpenVINO does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.ops.base import Role
from irpool.shape import Shape
from tests.exporter_corpus import every_op_modelled

ov = pytest.importorskip("openvino")

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

MODELS = Path(__file__).resolve().parent.parent / "models"


def _inputs(xml: Path) -> str:
    """The recorded inputs of a corpus file: inputs-<sample>.npz, or beside other files
    inputs-<file>-<sample>.npz."""
    return "inputs-*.npz" if xml.stem == "model" else f"inputs-{xml.stem}-*.npz"


# The vision corpora's fp16 twins reshape as their fp32 files; an LLM's export is fp16.
CASES = sorted(
    case
    for case in [
        *(c for c in MODELS.glob("*/*/model.xml") if not c.parent.name.endswith("fp16")),
        *MODELS.glob("*/*/openvino_model.xml"),
    ]
    if any(case.parent.glob(_inputs(case))) and every_op_modelled(case)
)


def _new_shapes(recorded: tuple[int, ...]) -> list[list[int | str]]:
    """Shapes to ask for, from an image input's recorded one (others: batch only)."""
    shapes: list[list[int | str]] = [[4, *recorded[1:]], ["?", *recorded[1:]]]
    if len(recorded) == 4:
        n, c, h, w = recorded
        shapes += [[n, c, 2 * h, 2 * w], [n, c, h + 1, w + 1], ["?", c, "?", "?"]]
    return shapes


def _openvino(path: Path, name: str, shape: list[int | str]) -> list[str] | None:
    """Each output's shape after OpenVINO's reshape (None: it raises)."""
    model = ov.Core().read_model(path)
    dims = [-1 if d == "?" else d for d in shape]
    try:
        model.reshape({name: ov.PartialShape(dims)})
    except RuntimeError:
        return None
    return [str(output.get_partial_shape()).replace(" ", "") for output in model.outputs]


@pytest.mark.parametrize(
    "path", CASES, ids=[f"{c.parent.parent.name}/{c.parent.name}" for c in CASES]
)
def test_reshape_verdicts_and_shapes_agree(path: Path) -> None:
    model = irpool.load(path)
    first = model.inputs[0]
    with np.load(next(path.parent.glob(_inputs(path)))) as recorded:
        dims = tuple(recorded[first.layer.name].shape)
    checked = 0
    for shape in _new_shapes(dims):
        theirs = _openvino(path, first.layer.name, shape)
        reshaped = model.reshape({first.layer.name: ",".join(map(str, shape))})
        refused = [d for d in reshaped.validate() if d.code == "IR311"]
        assert (theirs is None) == bool(refused), (shape, theirs, refused)
        if theirs is None:
            continue
        assert [str(s) for s in _result_shapes(reshaped)] == theirs, shape
        checked += 1
    assert checked, "every reshape was refused: nothing compared"


def _result_shapes(model: irpool.Model) -> list[Shape]:
    """The shape each Result receives, in XML order (OpenVINO's order of outputs)."""
    results = [
        model.graph.layers[i] for i, op in model.checked.ops.items() if op.role is Role.OUTPUT
    ]
    infos = [
        model.checked.input(model.graph, r.id, 0) for r in sorted(results, key=lambda r: r.position)
    ]
    return [info.shape for info in infos if info is not None]
