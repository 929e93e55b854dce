"""irpool's kernels, through the ops, against OpenVINO's CPU plugin on random configurations."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from irpool.ops.adaptive_avg_pool import AdaptiveAvgPool8
from irpool.ops.avg_pool import AvgPool14, AvgPool16

from .running import compute

ov = pytest.importorskip("openvino")
pytestmark = pytest.mark.oracle

CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
AUTO_PADS = ("explicit", "explicit", "valid", "same_upper", "same_lower")
ROUNDINGS = ("floor", "ceil", "ceil_torch")


def cpu(model_output: Any, param: Any, x: np.ndarray) -> np.ndarray:
    compiled = ov.Core().compile_model(ov.Model([model_output], [param]), "CPU", CONFIG)
    return np.asarray(compiled([x])[0])


def random_avg_pool(rng: np.random.Generator) -> tuple[dict[str, Any], np.ndarray, bool]:
    rank = int(rng.integers(1, 4))
    spatial = tuple(int(v) for v in rng.integers(1, 12, rank))
    dilated = bool(rng.random() < 0.4)
    attrs: dict[str, Any] = {
        "kernel": tuple(int(v) for v in rng.integers(1, 5, rank)),
        "strides": tuple(int(v) for v in rng.integers(1, 4, rank)),
        "pads_begin": tuple(int(v) for v in rng.integers(0, 4, rank)),
        "pads_end": tuple(int(v) for v in rng.integers(0, 4, rank)),
        "exclude-pad": bool(rng.random() < 0.5),
        "auto_pad": str(rng.choice(AUTO_PADS)),
        "rounding_type": str(rng.choice(ROUNDINGS)),
        "dilations": tuple(int(v) for v in rng.integers(1, 3, rank)) if dilated else (1,) * rank,
    }
    x = rng.normal(size=(int(rng.integers(1, 3)), int(rng.integers(1, 4)), *spatial))
    return attrs, x.astype(np.float32), dilated


def cpu_avg_pool(attrs: dict[str, Any], x: np.ndarray, dilated: bool) -> np.ndarray | None:
    """The CPU plugin's answer, or None when OpenVINO rejects the configuration."""
    opset = ov.opset16 if dilated else ov.opset14
    extra = {"dilations": list(attrs["dilations"])} if dilated else {}
    param = opset.parameter(list(x.shape), np.float32)
    try:
        node = opset.avg_pool(
            param, list(attrs["strides"]), list(attrs["pads_begin"]), list(attrs["pads_end"]),
            list(attrs["kernel"]), attrs["exclude-pad"], attrs["rounding_type"],
            attrs["auto_pad"], **extra,
        )  # fmt: skip
    except RuntimeError:
        return None
    return cpu(node, param, x)


@pytest.mark.parametrize("case", range(50))
def test_avg_pool_matches_cpu_plugin(case: int) -> None:
    rng = np.random.default_rng([2026, case])
    for _ in range(100):  # draw until OpenVINO accepts the configuration
        attrs, x, dilated = random_avg_pool(rng)
        want = cpu_avg_pool(attrs, x, dilated)
        if want is not None:
            break
    else:
        pytest.fail("no valid configuration drawn")
    op = (AvgPool16 if dilated else AvgPool14)(attrs)
    (got,) = compute(op, [x])
    # The CPU plugin writes NaN for windows without real taps
    # (docs/ops/AvgPool.md#numerics-and-tolerances); irpool writes 0.
    np.testing.assert_allclose(got, np.nan_to_num(want, nan=0.0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8"])
def test_integer_rounding_matches_cpu_plugin(dtype: str) -> None:
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    x = rng.integers(max(info.min, -100), min(info.max, 100), (2, 3, 9, 10)).astype(dtype)
    param = ov.opset14.parameter(list(x.shape), np.dtype(dtype))
    attrs = {"kernel": (2, 2), "strides": (1, 2), "pads_begin": (1, 0), "pads_end": (1, 1),
             "exclude-pad": True, "auto_pad": "explicit", "rounding_type": "floor"}  # fmt: skip
    node = ov.opset14.avg_pool(param, [1, 2], [1, 0], [1, 1], [2, 2], True, "floor")
    (got,) = compute(AvgPool14(attrs), [x])
    np.testing.assert_array_equal(got, cpu(node, param, x))


@pytest.mark.parametrize("case", range(10))
def test_adaptive_matches_cpu_plugin(case: int) -> None:
    rng = np.random.default_rng([8, case])
    rank = int(rng.integers(1, 4))
    spatial = [int(v) for v in rng.integers(1, 15, rank)]
    size = np.array(rng.integers(1, 9, rank), np.int64)
    x = rng.normal(size=(2, 3, *spatial)).astype(np.float32)
    param = ov.opset8.parameter(list(x.shape), np.float32)
    node = ov.opset8.adaptive_avg_pool(param, ov.opset8.constant(size))
    (got,) = compute(AdaptiveAvgPool8({}), [x, size])
    np.testing.assert_allclose(got, cpu(node, param, x), rtol=1e-5, atol=1e-6)
