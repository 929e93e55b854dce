"""Global pooling as OpenVINO's PyTorch frontend writes it: ReduceMean-1 and ReduceMax-1.

Each module is converted with `openvino.convert_model` and saved with `ov.save_model`: with a
static input, and with a dynamic one and fp16 compression (which leaves the reductions alone).
The IR must hold just the reduction, irpool must validate it without any finding, and its
output must agree with the CPU plugin and with PyTorch.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")
# torch is imported by the test, not at collection: every pytest-xdist worker collects this
# file, and importing torch costs about 4 s of CPU here.
pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed"),
]


# name -> the function, made from the torch module
FUNCTIONS: dict[str, Callable[[Any], Callable[[Any], Any]]] = {
    "AdaptiveAvgPool2d(1)": lambda torch: torch.nn.AdaptiveAvgPool2d(1),
    "AdaptiveMaxPool2d(1)": lambda torch: torch.nn.AdaptiveMaxPool2d(1),
    "mean((2,3), keepdim=True)": lambda _: lambda x: x.mean((2, 3), keepdim=True),
    "mean((1,2,3))": lambda _: lambda x: x.mean((1, 2, 3)),
    "mean(-1)": lambda _: lambda x: x.mean(-1),
    "amax(-1)": lambda _: lambda x: x.amax(-1),
    "max(1).values": lambda _: lambda x: x.max(1).values,
    "amax((1,3))": lambda _: lambda x: x.amax((1, 3)),
}


def head(torch: Any, function: Callable[[Any], Any]) -> Any:
    """A module applying `function`, for `ov.convert_model`."""

    class Head(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return function(x)

    return Head()


# (dynamic input shape, fp16 compression): the plain case and the other extreme.
SETTINGS = {"static": (False, False), "dynamic_compressed": (True, True)}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_frontend_reduction_validates_and_runs(name: str, setting: str, tmp_path: Path) -> None:
    import torch

    dynamic, compress = SETTINGS[setting]
    x = np.random.default_rng(7).standard_normal((2, 3, 5, 7)).astype(np.float32)
    module = head(torch, FUNCTIONS[name](torch))
    shape = [-1, 3, -1, -1] if dynamic else list(x.shape)
    converted = ov.convert_model(module, example_input=torch.from_numpy(x), input=[shape])
    path = tmp_path / "model.xml"
    ov.save_model(converted, path, compress_to_fp16=compress)
    types = sorted(op.get_type_name() for op in converted.get_ordered_ops())
    assert types in (["Constant", "Parameter", op, "Result"] for op in ("ReduceMax", "ReduceMean"))

    model = irpool.load(path)
    assert model.validate() == []
    parameter = converted.get_parameters()[0].get_friendly_name()
    (ours,) = model.run({parameter: x}).values()
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", CPU_CONFIG)
    (cpu,) = compiled.create_infer_request().infer({parameter: x}).values()
    np.testing.assert_allclose(ours, cpu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours, module(torch.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-6)
