"""Section 3: the element-wise ops' f32 numerics against NumPy float32 formulas, and SoftMax."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from ov_builders import opset1, opset4, opset5, opset8

from cnn_ops.probes import (
    DENORMAL,
    F32_MAX,
    F32_TINY,
    INF,
    NAN,
    Array,
    Build,
    Row,
    as_f32,
    const,
    ordered,
    probe_values,
    single,
    table,
    ulp_distance,
)


def sigmoid_np(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return as_f32(np.float32(1) / (np.float32(1) + np.exp(-x)))


def sigmoid_signed(x: np.ndarray) -> np.ndarray:
    """exp of -|x| only (no overflow), mirrored."""
    e = np.exp(-np.abs(x))
    positive = np.float32(1) / (np.float32(1) + e)
    return as_f32(np.where(x >= 0, positive, e / (np.float32(1) + e)))


def hswish_np(x: np.ndarray) -> np.ndarray:
    return as_f32(x * np.minimum(np.maximum(x + np.float32(3), 0), np.float32(6)) / np.float32(6))


def hswish_mul(x: np.ndarray) -> np.ndarray:
    """x * relu6(x+3) * (1/6), the multiplication by the reciprocal."""
    r6 = np.minimum(np.maximum(x + np.float32(3), 0), np.float32(6))
    return as_f32(x * r6 * np.float32(1 / 6))


SIXTH_DOWN = np.frombuffer(np.uint32(0x3E2AAAAA).tobytes(), np.float32)[0]  # 1/6 rounded down


def hswish_cpu(x: np.ndarray) -> np.ndarray:
    """x * min(max(x * f32(1/6) + 0.5, 0), 1): a multiply then an add, no fma; max and min
    drop a NaN (x86 MAXPS/MINPS with the bound second)."""
    h = np.fmin(np.fmax(x * np.float32(1 / 6) + np.float32(0.5), 0), np.float32(1))
    return as_f32(x * h)


def hsigmoid_cpu(x: np.ndarray) -> np.ndarray:
    """min(max(x + 3, 0), 6) * 0x3E2AAAAA (1/6 rounded down)."""
    return as_f32(np.fmin(np.fmax(x + np.float32(3), 0), np.float32(6)) * SIXTH_DOWN)


def hsigmoid_np(x: np.ndarray) -> np.ndarray:
    return as_f32(np.minimum(np.maximum(x + np.float32(3), 0), np.float32(6)) / np.float32(6))


def hsigmoid_mul(x: np.ndarray) -> np.ndarray:
    return as_f32(np.minimum(np.maximum(x + np.float32(3), 0), np.float32(6)) * np.float32(1 / 6))


def swish_np(beta: float) -> Callable[[np.ndarray], np.ndarray]:
    def formula(x: np.ndarray) -> np.ndarray:
        return as_f32(x * sigmoid_np(as_f32(x * np.float32(beta))))

    return formula


def swish_signed(beta: float) -> Callable[[np.ndarray], np.ndarray]:
    def formula(x: np.ndarray) -> np.ndarray:
        return as_f32(x * sigmoid_signed(as_f32(x * np.float32(beta))))

    return formula


def sigmoid_f64(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return as_f32(1.0 / (1.0 + np.exp(-x.astype(np.float64))))


@dataclass(frozen=True)
class Unary:
    label: str
    build: Build
    formulas: dict[str, Callable[[np.ndarray], np.ndarray]] = field(default_factory=dict)


UNARY = [
    Unary(
        "ReLU",
        lambda p: opset1.relu(p[0]),
        {
            "np.maximum(x, 0)": lambda x: np.maximum(x, 0),
            "where(x > 0, x, 0)": lambda x: np.where(x > 0, x, np.float32(0)),
        },
    ),
    Unary(
        "Clamp 0..6",
        lambda p: opset1.clamp(p[0], 0.0, 6.0),
        {
            "np.clip(x, 0, 6)": lambda x: np.clip(x, np.float32(0), np.float32(6)),
            "min(max(x, 0), 6) NaN-dropping": lambda x: np.fmin(np.fmax(x, 0), np.float32(6)),
        },
    ),
    Unary(
        "Sigmoid",
        lambda p: opset1.sigmoid(p[0]),
        {"1/(1+exp(-x)) f32": sigmoid_np, "signed f32": sigmoid_signed, "f64 rounded": sigmoid_f64},
    ),
    Unary(
        "Swish-4 (no beta)",
        lambda p: opset4.swish(p[0]),
        {
            "x*sigmoid(x) f32": swish_np(1.0),
            "signed": swish_signed(1.0),
            "x/(1+exp(-x)) f32": lambda x: as_f32(x / (np.float32(1) + np.exp(-x))),
        },
    ),
    Unary(
        "Swish-4 beta 1.5",
        lambda p: opset4.swish(p[0], const(1.5)),
        {"x*sigmoid(1.5x) f32": swish_np(1.5), "signed": swish_signed(1.5)},
    ),
    Unary(
        "HSwish-4",
        lambda p: opset4.hswish(p[0]),
        {
            "x*relu6(x+3)/6": hswish_np,
            "x*relu6(x+3)*(1/6)": hswish_mul,
            "x*min(max(x*f32(1/6)+0.5,0),1)": hswish_cpu,
        },
    ),
    Unary(
        "HSigmoid-5",
        lambda p: opset5.hsigmoid(p[0]),
        {
            "relu6(x+3)/6": hsigmoid_np,
            "relu6(x+3)*(1/6)": hsigmoid_mul,
            "relu6(x+3)*0x3E2AAAAA": hsigmoid_cpu,
        },
    ),
    Unary("Floor-1", lambda p: opset1.floor(p[0]), {"np.floor": np.floor}),
    Unary("Sqrt-1", lambda p: opset1.sqrt(p[0]), {"np.sqrt": np.sqrt}),
]


def zero_from(build: Build) -> float:
    """The largest negative f32 whose output is 0 (bisection on the bit patterns in [-100, -50])."""
    low, high = (
        ordered(np.array([-100.0], np.float32))[0],
        ordered(np.array([-50.0], np.float32))[0],
    )
    candidates = np.arange(low, high + 1, dtype=np.int64)
    as_float = np.where(candidates < 0, (-candidates) | np.int64(0x80000000), candidates)
    x = as_float.astype(np.uint32).view(np.float32)
    zero = single(build, [x]) == 0
    return float(x[zero].max())


def formula_row(op: Unary, label: str, x: Array, cpu: Array, want: Array) -> Row:
    """How far one NumPy formula lands from the CPU's outputs."""
    finite = np.isfinite(cpu) & np.isfinite(want)
    flushed = int(np.sum((cpu == 0) & (want != 0) & finite))
    finite &= (np.abs(want) >= F32_TINY) | (want == 0)  # ulps of normal results
    finite &= ~((cpu == 0) & (want != 0))
    ulp = ulp_distance(cpu[finite], want[finite])
    same_kind = (np.isnan(cpu) == np.isnan(want)) & (np.isfinite(cpu) == np.isfinite(want))
    same_inf = np.where(np.isinf(cpu), cpu == want, True)
    zero_sign = np.where((cpu == 0) & (want == 0), np.signbit(cpu) == np.signbit(want), True)
    bad = int(np.sum(~(same_kind & same_inf & zero_sign)))
    worst = int(np.argmax(ulp)) if ulp.size else 0
    at = float(x[finite][worst]) if ulp.size else NAN
    abs_err = float(np.max(np.abs(cpu[finite] - want[finite]))) if ulp.size else 0.0
    most = int(ulp.max()) if ulp.size else 0
    return (
        op.label,
        label,
        most,
        int(np.sum(ulp > 0)),
        f"{abs_err:.3g}",
        f"{at:.9g}",
        flushed,
        bad,
    )


SPECIALS = [NAN, -NAN, INF, -INF, 0.0, -0.0, F32_MAX, -F32_MAX, DENORMAL, -DENORMAL]
SPECIALS += [-3.0, 3.0, -88.0, 88.0, -89.0, 89.0, -104.0, 104.0]


def unary_section(rng: np.random.Generator, count: int) -> list[str]:
    x = probe_values(rng, count)
    lines = [
        "## 3. Element-wise f32 numerics vs NumPy float32 formulas",
        "",
        f"{len(x)} values: a ramp over [-30, 30], log-uniform magnitudes 1e-45..3e38 of both signs,"
        " and the specials. `bad` counts elements whose non-finite pattern or sign of zero differs"
        " (NaN = NaN); ulps are counted where the formula's result is a normal"
        " number or 0 (`CPU 0, formula ≠ 0` counts the rest).",
        "",
    ]
    rows: list[Row] = []
    with np.errstate(all="ignore"):
        for op in UNARY:
            cpu = single(op.build, [x])
            rows += [formula_row(op, label, x, cpu, f(x)) for label, f in op.formulas.items()]
    header = ["op", "NumPy formula", "max ulp", "elements ≠", "max abs", "worst x"]
    lines += table([*header, "CPU 0, formula ≠ 0", "bad"], rows)
    for op in UNARY[2:5]:
        lines.append(
            f"{op.label}: the CPU gives 0 (of the sign of x) for x ≤ {zero_from(op.build):.9g},"
            " the largest such f32."
        )
    lines.append("")
    specials = np.array(SPECIALS, np.float32)
    rows = [("x", specials)] + [(op.label, single(op.build, [specials])) for op in UNARY]
    lines += ["Special values (CPU output):", "", *table(["op", "values"], rows)]
    return lines + softmax_lines(rng)


def softmax_lines(rng: np.random.Generator) -> list[str]:
    """SoftMax-8 over the last axis: random rows against exp(x - max) / sum in f64, then rows
    holding non-finite values."""
    rows: list[Row] = []
    for classes, scale in ((10, 1.0), (1000, 5.0), (1000, 30.0), (37, 100.0)):
        x = (rng.standard_normal((200, classes)) * scale).astype(np.float32)
        cpu = single(lambda p: opset8.softmax(p[0], -1), [x])
        wide = x.astype(np.float64)
        e = np.exp(wide - wide.max(axis=-1, keepdims=True))
        want = as_f32(e / e.sum(axis=-1, keepdims=True))
        normal = (np.abs(want) >= F32_TINY) & (cpu != 0)
        rows.append(
            (
                f"200 rows of {classes}, randn*{scale:g}",
                int(ulp_distance(cpu[normal], want[normal]).max()),
                f"{float(np.abs(cpu - want).max()):.3g}",
                int(np.sum((cpu == 0) & (want != 0))),
            )
        )
    lines = ["SoftMax-8 (last axis) against exp(x − max) / Σ in f64 rounded to f32:", ""]
    lines += table(["rows", "max ulp (normal results)", "max abs", "CPU 0, formula ≠ 0"], rows)
    specials = np.array(
        [
            [NAN, 1, 2],
            [1, NAN, 2],
            [INF, 1, 2],
            [INF, INF, 1],
            [-INF, 1, 2],
            [-INF, -INF, -INF],
            [F32_MAX, 0, -F32_MAX],
            [1e30, 1e30, 0],
            [0, 0, 0],
        ],
        np.float32,
    )
    out = single(lambda p: opset8.softmax(p[0], -1), [specials])
    lines += table(
        ["row", "CPU"], [(row, result) for row, result in zip(specials, out, strict=True)]
    )
    return lines
