"""`irpool run --dump DIR`: every tensor a run computed, one .npy each, and DIR/index.json
saying which file holds which tensor (schemas/dump-index.schema.json).

DIR must be new (its parent existing) or an empty directory: a dump never mixes with, or
overwrites, files that were there. Each file is named `<position>-<safe name>.npy`: its
position in run order (zero-padded, which makes names unique and sort as the run went) and
the tensor's key with every character but ASCII letters, digits, `.`, `_` and `-` replaced
by `_`, cut to 64 characters. The key itself, whatever it holds, is in the index.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irpool.execute.tensors import ComputedTensor

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from irpool.model import Model

INDEX = "index.json"
NAME_LENGTH = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def dump_problem(directory: Path) -> str | None:
    """Why DIR cannot take a dump (checked before the run), or None."""
    if directory.is_dir():
        if any(directory.iterdir()):
            return f"--dump {directory}: the directory is not empty; give a new or empty one"
        return None
    if directory.exists() or directory.is_symlink():
        return f"--dump {directory}: exists and is not a directory"
    parent = directory.parent
    if not parent.is_dir():
        return f"--dump {directory}: directory {parent} does not exist"
    return None


def file_names(keys: list[str]) -> list[str]:
    """A safe, unique file name for each tensor key, in order."""
    width = max(4, len(str(len(keys) - 1)))
    names = []
    for position, key in enumerate(keys):
        safe = _UNSAFE.sub("_", key)[:NAME_LENGTH].strip("._") or "tensor"
        names.append(f"{position:0{width}d}-{safe}.npy")
    return names


def write_dump(
    model: Model, tensors: dict[str, NDArray[Any]], directory: Path, model_name: str
) -> None:
    """The .npy files and the index (raises OSError naming what could not be written)."""
    import numpy as np

    described = model.tensors
    returned = {output.name for output in model.outputs}
    directory.mkdir(exist_ok=True)
    entries = []
    for file_name, tensor in zip(file_names([t.name for t in described]), described, strict=True):
        array = tensors[tensor.name]
        np.save(directory / file_name, array, allow_pickle=False)
        entries.append(_entry(file_name, tensor, array, tensor.name in returned))
    index = {"model": model_name, "tensors": entries}
    text = json.dumps(index, indent=2, ensure_ascii=False) + "\n"
    (directory / INDEX).write_text(text, encoding="utf-8")


def _entry(
    file_name: str, tensor: ComputedTensor, array: NDArray[Any], returned: bool
) -> dict[str, Any]:
    layer = tensor.layer
    return {
        "file": file_name,
        "name": tensor.name,
        "names": list(tensor.names),
        "layer": {"id": layer.id, "name": layer.name, "type": layer.type},
        "output": tensor.index,
        "port": tensor.port,
        "shape": list(array.shape),
        "dtype": str(array.dtype),
        "element_type": tensor.type.name,
        "returned": returned,
    }
