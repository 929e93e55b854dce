"""An RMSNorm as exporters write it, which the CPU plugin runs as one RMS kernel
(irpool/cpu/rms_fusion.py, irpool/execute/kernels/rms.py): which chains the plan fuses, and
the kernel's order of summing the squares (the CPU's values measured; live, bit for bit, in
tests/differential/test_rms_fusion.py)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import irpool
from irpool.cpu.isa import AVX2, AVX512_CORE
from irpool.cpu.rms_fusion import RMSNorm
from irpool.execute.kernels import rms as rms_kernel
from tests.ir import data, edge, layer, net, parameter, port, result, typed_const, write

F32 = np.float32
WIDTH = 64
SCALAR = [1, 1, 1]


def rms_model(
    directory: Path, *, gamma: bool = False, axis: int = -1, divide_returned: bool = False
) -> Path:
    """x [1, 2, WIDTH] -> Power 2 -> ReduceMean(axis, keep_dims) -> Add eps -> Sqrt ->
    Divide(1, .) -> Multiply(x, .) [-> Multiply(gamma)] -> Result [and the Divide's Result]."""
    kept = [1, 2, 1] if axis in (-1, 2) else [1, 1, WIDTH]
    blob = struct.pack("<f", 2.0) + struct.pack("<q", axis) + struct.pack("<ff", 1e-6, 1.0)
    blob += struct.pack(f"<{WIDTH}f", *np.linspace(0.5, 1.5, WIDTH))
    full = [1, 2, WIDTH]
    broadcast = data([("auto_broadcast", "numpy")])

    def binary(layer_id: int, type_: str, left: list[int], right: list[int]) -> str:
        ins = [port(0, left), port(1, right)]
        return layer(layer_id, type_.lower(), type_, "opset1", broadcast, ins, [port(2, full)])

    layers = [
        parameter(0, "x", full),
        typed_const(1, "two", "f32", SCALAR, 0, 4),
        typed_const(2, "axes", "i64", [1], 4, 8),
        typed_const(3, "eps", "f32", SCALAR, 12, 4),
        typed_const(4, "one", "f32", SCALAR, 16, 4),
        binary(5, "Power", full, SCALAR),
        layer(6, "mean", "ReduceMean", "opset1", data([("keep_dims", "true")]),
              [port(0, full), port(1, [1], "I64")], [port(2, kept)]),
        layer(7, "add", "Add", "opset1", broadcast, [port(0, kept), port(1, SCALAR)],
              [port(2, kept)]),
        layer(8, "sqrt", "Sqrt", "opset1", "", [port(0, kept)], [port(1, kept)]),
        layer(9, "divide", "Divide", "opset1", broadcast, [port(0, SCALAR), port(1, kept)],
              [port(2, kept)]),
        binary(10, "Multiply", full, kept),
    ]  # fmt: skip
    edges = [edge(0, 0, 5, 0), edge(1, 0, 5, 1), edge(5, 2, 6, 0), edge(2, 0, 6, 1)]
    edges += [edge(6, 2, 7, 0), edge(3, 0, 7, 1), edge(7, 2, 8, 0), edge(4, 0, 9, 0)]
    edges += [edge(8, 1, 9, 1), edge(0, 0, 10, 0), edge(9, 2, 10, 1)]
    last = 10
    if gamma:
        layers += [typed_const(11, "gamma", "f32", [WIDTH], 20, 4 * WIDTH)]
        layers += [binary(12, "Multiply", full, [WIDTH]).replace('name="multiply"', 'name="g"')]
        edges += [edge(10, 2, 12, 0), edge(11, 0, 12, 1)]
        last = 12
    layers.append(result(13, "out", full))
    edges.append(edge(last, 2, 13, 0))
    if divide_returned:
        layers.append(result(14, "reciprocal", kept))
        edges.append(edge(9, 2, 14, 0))
    return write(directory, net(layers, edges), blob)


def _steps(path: Path) -> list[str]:
    return [type(step.op).__name__ for step in irpool.load(path).execution_plan().steps]


@pytest.mark.parametrize("gamma", [False, True])
def test_the_chain_runs_as_one_rms_step(tmp_path: Path, gamma: bool) -> None:
    assert _steps(rms_model(tmp_path, gamma=gamma)) == [RMSNorm.__name__]


def test_a_mean_over_another_axis_is_not_fused(tmp_path: Path) -> None:
    assert RMSNorm.__name__ not in _steps(rms_model(tmp_path, axis=1))


def test_a_layer_read_elsewhere_still_runs(tmp_path: Path) -> None:
    steps = _steps(rms_model(tmp_path, divide_returned=True))
    assert steps.count(RMSNorm.__name__) == 1 and len(steps) == 6


@pytest.mark.parametrize("isa", [AVX512_CORE, AVX2])
def test_the_squares_are_summed_in_the_kernels_order(
    tmp_path: Path, isa: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """4096 then 63 ones: the squares' exact sum 2**24 + 63 is no f32; summed in order it is
    2**24 (each 1 rounds away), pairwise (NumPy) 2**24 + 56; the CPU's four accumulators give
    2**24 + 62, of 16 lanes on AVX-512 and of 8 on AVX2 (measured 2026-12-06, OpenVINO
    2026.4.1, AMD EPYC family 25 model 17; 2026-12-07, AMD EPYC family 25 model 1, AVX2)."""
    monkeypatch.setattr(rms_kernel, "host_cpu_isa", lambda: isa)
    x = np.ones((1, 2, WIDTH), F32)
    x[..., 0] = 4096
    (out,) = irpool.load(rms_model(tmp_path)).run({"x": x}).values()
    expected = F32(1) / np.sqrt(F32(2**24 + 62) * F32(1 / WIDTH) + F32(1e-6))
    np.testing.assert_array_equal(out[..., 1], np.full((1, 2), expected, F32))


@pytest.mark.parametrize(("isa", "ones"), [(AVX512_CORE, 72), (AVX2, 56)])
def test_the_lanes_are_the_hosts(isa: str, ones: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """8192, 31 ones, a 2, 31 ones (exactly 2**26 + 66): 2**26 + 72 in 16 lanes, 2**26 + 56 in
    8, as an AVX2 host's CPU sums it (measured 2026-12-07, AMD EPYC family 25 model 1)."""
    monkeypatch.setattr(rms_kernel, "host_cpu_isa", lambda: isa)
    x = np.ones((3, WIDTH), F32)
    x[:, 0], x[:, 32] = 8192, 2
    assert (rms_kernel.sum_of_squares(x) == F32(2**26 + ones)).all()
