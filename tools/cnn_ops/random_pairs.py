"""Section 8: the binary ops on random pairs against NumPy models of the CPU's arithmetic."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from ov_builders import opset1, ov

from cnn_ops.probes import (
    DENORMAL,
    F32_MAX,
    INF,
    NAN,
    Array,
    Row,
    as_f32,
    binary,
    probe_values,
    single,
    table,
    ulp_distance,
)

INT32_MIN = np.int32(-(2**31))


def to_int32(f: np.ndarray) -> np.ndarray:
    """f32 → i32 as CVTTPS2DQ: truncation; NaN and out-of-range give INT32_MIN."""
    bad = ~np.isfinite(f) | (f >= 2.0**31) | (f < -(2.0**31))
    return np.where(bad, INT32_MIN, np.trunc(np.where(bad, 0, f))).astype(np.int32)


def wrap32(x: np.ndarray) -> np.ndarray:
    """i64 → i32 by keeping the low 32 bits."""
    return x.astype(np.int64).astype(np.int32)


def f32_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return as_f32(a - np.trunc(a / b) * b)


def int_model(op: str, a: np.ndarray, b: np.ndarray, dtype: Any) -> np.ndarray:
    """The integer result as measured: i64 wrapped to i32; Divide/Mod/Power through f32 and
    CVTTPS2DQ; Add/Subtract/Multiply wrap in i32; i8/u8 results saturate, and an i8 Subtract
    adds the saturated negation (-51 - -128 = -51 + 127 = 76)."""
    a32, b32 = wrap32(a), wrap32(b)
    fa, fb = a32.astype(np.float32), b32.astype(np.float32)
    if op == "Divide":
        out = to_int32(as_f32(fa / fb))
    elif op == "Mod":
        out = to_int32(f32_mod(fa, fb))
    elif op == "Power":
        out = to_int32(as_f32(np.power(fa, fb)))
    elif np.dtype(dtype).itemsize == 1:  # i8/u8: exact in i32, saturated below
        info = np.iinfo(dtype)
        negated = np.clip(-b32, info.min, info.max) if info.min < 0 else -b32  # i8: sat(-b)
        out = {"Add": a32 + b32, "Subtract": a32 + negated, "Multiply": a32 * b32}[op]
    else:
        wide = {
            "Add": a32.astype(np.int64) + b32,
            "Subtract": a32.astype(np.int64) - b32,
            "Multiply": a32.astype(np.int64) * b32,
        }[op]
        out = wrap32(wide)
    if np.dtype(dtype).itemsize == 1:
        info = np.iinfo(dtype)
        out = np.clip(out, info.min, info.max)
    return np.asarray(out, dtype)


FLOAT_MODELS: dict[str, tuple[Callable[..., ov.Node], Callable[..., np.ndarray], str]] = {
    "Add": (opset1.add, np.add, "a + b"),
    "Subtract": (opset1.subtract, np.subtract, "a - b"),
    "Multiply": (opset1.multiply, np.multiply, "a * b"),
    "Divide": (opset1.divide, lambda a, b: as_f32(a * as_f32(np.float32(1) / b)), "a * (1 / b)"),
    "Divide ": (opset1.divide, np.divide, "a / b"),
    "Mod": (opset1.mod, f32_mod, "a - trunc(a / b) * b, in f32"),
    "Power": (opset1.power, np.power, "np.power (f32)"),
    "Greater": (opset1.greater, lambda a, b: ~(a <= b), "not (a <= b): NaN on either side is True"),
}


def _float_row(name: str, label: str, x: Array, y: Array) -> Row:
    """One f32 op on one pair of inputs against its NumPy model."""
    maker, formula, text = FLOAT_MODELS[name]
    cpu = single(binary(maker), [x, y])
    want = np.asarray(formula(x, y))
    worst: int | str = "-"
    if cpu.dtype == np.bool_:
        differ = cpu != want
    else:
        same = (cpu == want) | (np.isnan(cpu) & np.isnan(want))
        same &= np.where(cpu == 0, np.signbit(cpu) == np.signbit(want), True)
        differ = ~same
        finite = np.isfinite(cpu) & np.isfinite(want)
        worst = int(ulp_distance(cpu[finite], want[finite]).max()) if finite.any() else 0
    example = ""
    if differ.any():
        i = int(np.argmax(differ))
        example = f"{x[i]!r} op {y[i]!r}: CPU {cpu[i]!r}, model {want[i]!r}"
    return (name, "f32 " + label, text, f"{int(differ.sum())} / {len(x)}", worst, example)


def _float_rows(rng: np.random.Generator, count: int) -> list[Row]:
    specials = np.array(
        [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 2.0, 0.5, F32_MAX, DENORMAL], np.float32
    )
    a = np.concatenate([probe_values(rng, count), rng.choice(specials, count // 4)])
    b = np.concatenate(
        [rng.permutation(probe_values(rng, count)), rng.choice(specials, count // 4)]
    )
    small = (rng.standard_normal(count) * 4).astype(np.float32)
    pairs = {"wide + specials": (a, b), "randn*4": (small, small[::-1].copy())}
    with np.errstate(all="ignore"):
        return [
            _float_row(name, label, x, y)
            for name in FLOAT_MODELS
            for label, (x, y) in pairs.items()
        ]


def _integer_rows(rng: np.random.Generator, count: int) -> list[Row]:
    rows: list[Row] = []
    for dtype in (np.int32, np.int64, np.int8, np.uint8):
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)
        y = rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)
        few = rng.integers(-40 if info.min < 0 else 0, 40, count).astype(dtype)
        for name in ("Add", "Subtract", "Multiply", "Divide", "Mod", "Power"):
            second = few if name in ("Power",) else np.where(rng.random(count) < 0.5, few, y)
            cpu = single(binary(FLOAT_MODELS[name][0]), [x, second])
            want = int_model(name, x, second, dtype)
            differ = cpu != want
            example = ""
            if differ.any():
                i = int(np.argmax(differ))
                example = f"{x[i]} op {second[i]}: CPU {cpu[i]}, model {want[i]}"
            differing = f"{int(differ.sum())} / {count}"
            rows.append((name, np.dtype(dtype).name, "int_model", differing, "-", example))
    return rows


def random_pairs_section(rng: np.random.Generator, count: int) -> list[str]:
    rows = _float_rows(rng, count) + _integer_rows(rng, count)
    header = ["op", "inputs", "NumPy model", "differ", "max ulp (finite)", "first difference"]
    return ["## 8. Binary ops on random pairs: CPU vs NumPy models", "", *table(header, rows)]
