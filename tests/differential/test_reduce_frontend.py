"""Global pooling as OpenVINO's PyTorch frontend writes it: ReduceMean-1 and ReduceMax-1.

Each module is converted with `openvino.convert_model` and saved with `ov.save_model`: with a
static input, and with a dynamic one and fp16 compression (which leaves the reductions alone).
The IR must hold just the reduction, irpool must validate it without any finding, and its
output must agree with the CPU plugin and with PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import irpool
from tests.differential.oracle_batch import CPU_CONFIG

ov = pytest.importorskip("openvino")
torch = pytest.importorskip("torch")

pytestmark = pytest.mark.oracle


FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "AdaptiveAvgPool2d(1)": torch.nn.AdaptiveAvgPool2d(1),
    "AdaptiveMaxPool2d(1)": torch.nn.AdaptiveMaxPool2d(1),
    "mean((2,3), keepdim=True)": lambda x: x.mean((2, 3), keepdim=True),
    "mean((1,2,3))": lambda x: x.mean((1, 2, 3)),
    "mean(-1)": lambda x: x.mean(-1),
    "amax(-1)": lambda x: x.amax(-1),
    "max(1).values": lambda x: x.max(1).values,
    "amax((1,3))": lambda x: x.amax((1, 3)),
}


class Head(torch.nn.Module):
    def __init__(self, function: Callable[[Any], Any]) -> None:
        super().__init__()
        self.function = function

    def forward(self, x: Any) -> Any:
        return self.function(x)


# (dynamic input shape, fp16 compression): the plain case and the other extreme.
SETTINGS = {"static": (False, False), "dynamic_compressed": (True, True)}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_frontend_reduction_validates_and_runs(name: str, setting: str, tmp_path: Path) -> None:
    dynamic, compress = SETTINGS[setting]
    x = np.random.default_rng(7).standard_normal((2, 3, 5, 7)).astype(np.float32)
    module = Head(FUNCTIONS[name])
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
