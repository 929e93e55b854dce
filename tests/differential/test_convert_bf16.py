"""Live differential test: Convert-1 to bf16 from every source type, irpool against the CPU plugin.

The CPU rounds f32 and f16 of a static shape with the vector instruction (nearest even,
subnormals to zero), but f64, integers, and f32 and f16 of a dynamic shape with ov::bfloat16's
scalar rule (half up after an odd value, truncated after an even one; docs/ops/Convert.md): the two
part on a quarter of random values. Hypothesis draws the inputs as raw
bits, mixed with subnormals, values beyond bf16's range, ±inf and NaN payloads. Per source
type and shape kind, one IR (Parameter `in0` of `LENGTH` elements or `?` -> Convert -> Result
`out0`) is loaded by irpool and compiled on the CPU once, and runs every example.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

import irpool
from tests.differential.oracle_batch import CPU_CONFIG
from tests.scale import examples

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")

pytestmark = pytest.mark.oracle

# Each source type, and the unsigned type of its width whose bits hypothesis draws.
SOURCES = {
    "f64": (np.float64, np.uint64), "f32": (np.float32, np.uint32), "f16": (np.float16, np.uint16),
    "i64": (np.int64, np.uint64), "u64": (np.uint64, np.uint64), "i32": (np.int32, np.uint32),
    "u32": (np.uint32, np.uint32), "i16": (np.int16, np.uint16), "u16": (np.uint16, np.uint16),
    "i8": (np.int8, np.uint8), "u8": (np.uint8, np.uint8),
}  # fmt: skip
LENGTH = 32
ToBits = Callable[[NDArray[Any]], NDArray[np.uint16]]
Runs = tuple[ToBits, ToBits]  # (irpool, the CPU): each gives bf16 bits for an input array


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], Runs]:
    """Per (source type, dynamic shape), irpool's and the CPU's runs of one IR."""
    core = ov.Core()
    directory = tmp_path_factory.mktemp("convert_bf16")
    made: dict[tuple[str, bool], Runs] = {}
    for source, (dtype, _) in SOURCES.items():
        for dynamic in (False, True):
            parameter = opset1.parameter([-1 if dynamic else LENGTH], dtype, name="in0")
            convert = opset1.convert(parameter, "bf16")
            convert.output(0).get_tensor().set_names({"out0"})
            path = Path(directory) / f"{source}_{dynamic}.xml"
            ov.save_model(ov.Model([convert], [parameter]), path, compress_to_fp16=False)
            request = core.compile_model(path, "CPU", CPU_CONFIG).create_infer_request()
            model = irpool.load(path)

            def cpu(values: NDArray[Any], request: Any = request) -> NDArray[np.uint16]:
                request.infer({0: values})
                return np.array(request.get_output_tensor(0).data).view(np.uint16)

            def ours(values: NDArray[Any], model: Any = model) -> NDArray[np.uint16]:
                out = model.run({"in0": values})["out0"]
                return (out.view(np.uint32) >> 16).astype(np.uint16)

            made[(source, dynamic)] = (ours, cpu)
    return made


def specials(dtype: type, width: type) -> list[int]:
    """Bits of the edge values: each type's extremes, and for floats ±inf, NaN payloads, values
    around bf16's and f32's largest, f32 subnormals and zeros."""
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        values = np.array([info.min, info.max, 0, 1, -1 if info.min else 2], dtype)
    else:
        edges = [np.inf, -np.inf, np.nan, 0.0, -0.0, 3.3961e38, 3.4e38, 1e-40, 1e-45]
        with np.errstate(over="ignore"):  # f16 holds the large ones as inf
            values = np.array(edges).astype(dtype)
    top = int(np.iinfo(width).max)
    payloads = [top >> 1, top] if np.dtype(dtype).kind == "f" else []  # NaNs, all bits set
    return [int(b) for b in values.view(width)] + payloads


@settings(max_examples=examples(40), deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("source", SOURCES)
def test_bf16_matches_the_cpu_bit_for_bit(
    runs: dict[tuple[str, bool], Runs], source: str, dynamic: bool, data: st.DataObject
) -> None:
    dtype, width = SOURCES[source]
    top = int(np.iinfo(width).max)
    bits_of = st.one_of(st.integers(0, top), st.sampled_from(specials(dtype, width)))
    bits = data.draw(st.lists(bits_of, min_size=LENGTH, max_size=LENGTH))
    values = np.array(bits, dtype=width).view(dtype)
    ours, cpu = runs[(source, dynamic)]
    assert ours(values).tolist() == cpu(values).tolist(), f"input bits {[hex(b) for b in bits]}"
