"""What every corpus generator (tools/gen_*.py) writes the same way: seeded inputs, the CPU
plugin's outputs keyed as irpool's `model.run` keys them, reproducible `.npz` archives, case
folders and the command line of a folder-per-case corpus."""

from __future__ import annotations

import argparse
import io
import json
import sys
import xml.etree.ElementTree as ET
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray
from ov_builders import TESTED_OPENVINO, ov

Array = NDArray[Any]
# The oracle's settings: every committed output is the CPU plugin's at f32 precision.
COMPILE_CONFIG: dict[str, str] = {"INFERENCE_PRECISION_HINT": "f32"}
CASE_FILES = ("model.xml", "model.bin", "inputs.npz", "outputs.npz")
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class Named(Protocol):
    @property
    def name(self) -> str: ...


Case = TypeVar("Case", bound=Named)


def case_rng(name: str) -> np.random.Generator:
    """A generator seeded by the case name, so a case's inputs do not depend on its position."""
    return np.random.default_rng(zlib.crc32(name.encode()))


def with_nonfinite(array: Array, rng: np.random.Generator) -> Array:
    """A copy of the float array with +inf, -inf and NaN at two random places each."""
    changed = array.copy()
    flat = changed.reshape(-1)
    flat[rng.choice(flat.size, 6, replace=False)] = [
        np.inf,
        np.inf,
        -np.inf,
        -np.inf,
        np.nan,
        np.nan,
    ]
    return changed


def write_npz(path: Path, arrays: Mapping[str, Array]) -> None:
    """Like ``np.savez`` but byte-for-byte reproducible: sorted members, fixed timestamps."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for key in sorted(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(arrays[key]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue())


def output_keys(model: ov.Model) -> list[str]:
    """Each output's key as irpool's README defines it: the tensor's `get_any_name()`, or the
    Result's name for a tensor without names (torch's outputs) or one already keyed."""
    keys: list[str] = []
    for output, result in zip(model.outputs, model.get_results(), strict=True):
        named = output.get_names() and output.get_any_name() not in keys
        keys.append(output.get_any_name() if named else result.get_friendly_name())
    if len(set(keys)) != len(keys):
        raise RuntimeError(f"output keys are not unique: {keys}")
    return keys


def cpu_request(core: ov.Core, model: ov.Model) -> ov.InferRequest:
    """An infer request of the model compiled for the CPU plugin at f32 precision."""
    return core.compile_model(model, "CPU", COMPILE_CONFIG).create_infer_request()


def run_keyed(
    request: ov.InferRequest, keys: Sequence[str], inputs: Sequence[Array]
) -> dict[str, Array]:
    """The request's outputs for the inputs (in Parameter order), output i under keys[i]."""
    request.infer(list(inputs))
    return {key: request.get_output_tensor(i).data.copy() for i, key in enumerate(keys)}


def layer_types(xml_path: Path) -> dict[str, int]:
    """How many layers of each `Type-opsetN` the saved file holds."""
    layers = ET.parse(xml_path).getroot().iter("layer")
    found = Counter(f"{layer.get('type')}-{layer.get('version')}" for layer in layers)
    return dict(sorted(found.items()))


def check_unique(names: Iterable[str]) -> None:
    counts = Counter(names)
    duplicates = sorted(name for name, count in counts.items() if count > 1)
    if duplicates:
        raise ValueError(f"duplicate case names: {duplicates}")


def warn_if_untested() -> None:
    """A note on stderr when the installed OpenVINO is not the release the corpora were made
    with: its files record its version, and its outputs may differ."""
    version = ov.get_version()
    if not version.startswith(TESTED_OPENVINO):
        print(
            f"warning: OpenVINO {version} is not the {TESTED_OPENVINO} release the corpus "
            "was made with; expect diffs",
            file=sys.stderr,
        )


def remove_stale(out: Path, keep: set[str]) -> None:
    """Delete the files this tool wrote for cases that no longer exist (nothing else)."""
    for case_dir in sorted(path for path in out.iterdir() if path.is_dir()):
        if case_dir.name in keep:
            continue
        for file_name in CASE_FILES:
            (case_dir / file_name).unlink(missing_ok=True)
        if not any(case_dir.iterdir()):
            case_dir.rmdir()


def write_corpus(
    argv: Sequence[str] | None,
    description: str,
    default_out: Path,
    cases: Sequence[Case],
    run: Callable[[ov.Core, Case, Path], dict[str, Any]],
    versions: Mapping[str, str],
) -> int:
    """A folder-per-case generator's command line: `run` each case into its folder of `--out`,
    then write index.json with the generator, the versions and every case's entry."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=default_out)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    remove_stale(args.out, {case.name for case in cases})
    core = ov.Core()
    index = {
        "generator": f"tools/{Path(sys.argv[0]).name}",
        "openvino": ov.get_version(),
        **versions,
        "config": COMPILE_CONFIG,
        "cases": [run(core, case, args.out / case.name) for case in cases],
    }
    (args.out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {args.out}")
    return 0
