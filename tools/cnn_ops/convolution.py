"""Sections 5, 6 and 9: Convolution and MatMul accuracy, non-finite values in convolution
windows, auto_pad at run time, declared pads and integer inputs."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from ov_builders import opset1, ov

from cnn_ops.attributes import edit_layer, verdict
from cnn_ops.probes import (
    CONFIG,
    CORE,
    INF,
    NAN,
    Array,
    Build,
    Row,
    const,
    convolution,
    first,
    matmul,
    run,
    single,
    table,
)


def spec_pads(
    sizes: Sequence[int], kernel: Sequence[int], stride: int, dilation: int, auto_pad: str
) -> list[tuple[int, int]]:
    """Explicit (begin, end) pads per axis as the spec splits them (same_upper puts the odd one
    at the end; valid pads nothing)."""
    pads = []
    for size, k in zip(sizes, kernel, strict=True):
        out = -(-size // stride) if auto_pad != "valid" else 0
        total = max(0, (out - 1) * stride + (k - 1) * dilation + 1 - size) if out else 0
        low = total // 2 if auto_pad == "same_upper" else total - total // 2
        pads.append((low, total - low))
    return pads


def _auto_pad_runs(x: Array, w: Array) -> list[str]:
    """Each auto_pad at run time against the spec's explicit pads and a dynamic-shaped twin."""
    rows: list[Row] = []
    for auto_pad in ("same_upper", "same_lower", "valid"):
        for stride, dil in ((1, 1), (2, 1), (2, 2), (3, 1)):
            build = convolution([stride] * 2, [0, 0], [0, 0], [dil] * 2, auto_pad, weights=w)
            static = single(build, [x])
            dynamic = run(build, [x], dynamic=True)
            pads = spec_pads(x.shape[2:], w.shape[2:], stride, dil, auto_pad)
            begin, end = [low for low, _ in pads], [high for _, high in pads]
            explicit = single(convolution([stride] * 2, begin, end, [dil] * 2, weights=w), [x])
            same_dynamic = not isinstance(dynamic, str) and np.array_equal(static, dynamic[0])
            same_explicit = np.array_equal(static, explicit)
            rows.append(
                (auto_pad, stride, dil, list(static.shape), pads, same_explicit, same_dynamic)
            )
    header = ["auto_pad", "s", "d", "output", "pads (H, W)", "= explicit", "= dynamic"]
    return [
        "x 1x2x7x8, w 3x2x3x2; `pads` = the spec's same_upper/same_lower split;"
        " `= explicit` compares with a Convolution given those pads explicitly;"
        " `= dynamic` compares with the same model whose input dims are all `?`:",
        "",
        *table(header, rows),
    ]


def _compiled_output(xml: str, weights: bytes, x: Array) -> Array:
    model = CORE.read_model(xml, ov.Tensor(np.frombuffer(weights, np.uint8).copy()))
    return np.asarray(CORE.compile_model(model, "CPU", CONFIG)({0: x})[0])


def _declared_pads(x: Array, w: Array) -> list[str]:
    """Pads written beside same_upper: what read_model and the CPU make of them."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.xml"
        param = opset1.parameter([1, 2, 7, 8], np.float32, name="x")
        node = opset1.convolution(
            param, const(w), [2, 2], [0, 0], [0, 0], [1, 1], "same_upper", name="op"
        )
        ov.save_model(ov.Model([node], [param]), path, compress_to_fp16=False)
        xml, weights = path.read_text(), path.with_suffix(".bin").read_bytes()
    written = re.search(r'<layer [^>]*name="op"[^>]*>\s*(<data[^>]*/>)', xml)
    assert written is not None
    edited = edit_layer(edit_layer(xml, "pads_begin", "3, 3"), "pads_end", "0, 5")
    equal = np.array_equal(_compiled_output(edited, weights, x), _compiled_output(xml, weights, x))
    rows: list[Row] = [
        ("save_model writes", written.group(1), verdict(xml, weights)),
        (
            "pads_begin 3,3, pads_end 0,5 under same_upper",
            "",
            f"{verdict(edited, weights)}; values equal: {equal}",
        ),
    ]
    return table(["case", "data", "result"], rows)


def _integer_inputs() -> list[str]:
    rows: list[Row] = []
    for dtype in (np.int32, np.int8, np.uint8, np.float16):
        xi = np.arange(2 * 4 * 4).reshape(1, 2, 4, 4).astype(dtype)
        wi = np.ones((1, 2, 3, 3), dtype)
        conv = run(convolution([1, 1], [0, 0], [0, 0], [1, 1]), [xi, wi])
        rows.append(("Convolution", np.dtype(dtype).name, first(conv)))
        mi = np.arange(6).reshape(2, 3).astype(dtype)
        rows.append(("MatMul", np.dtype(dtype).name, first(run(matmul(False, True), [mi, mi]))))
    return [
        "Integer and f16 inputs (x = arange, w = ones; MatMul a · aᵀ of arange(6)):",
        "",
        *table(["op", "type", "CPU"], rows),
    ]


def auto_pad_section(rng: np.random.Generator) -> list[str]:
    x = rng.standard_normal((1, 2, 7, 8)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 2)).astype(np.float32)
    return [
        "## 9. Convolution auto_pad at run time; declared pads; integer inputs",
        "",
        *_auto_pad_runs(x, w),
        *_declared_pads(x, w),
        *_integer_inputs(),
    ]


def im2col_conv(
    x: np.ndarray, w: np.ndarray, stride: int, pad: int, groups: int, accumulate: Any
) -> np.ndarray:
    """A plain NumPy convolution (NCHW, OIHW or G,O,I,H,W flattened to O,I,H,W), im2col + matmul
    with the products summed in `accumulate` (float32 or float64) and rounded to f32."""
    n, _c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))).astype(accumulate)
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    windows = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    windows = windows[:, :, ::stride, ::stride][:, :, :oh, :ow]  # n, c, oh, ow, kh, kw
    out = np.empty((n, o, oh, ow), accumulate)
    per_group = o // groups
    for g in range(groups):
        cols = windows[:, g * ci : (g + 1) * ci].transpose(0, 2, 3, 1, 4, 5).reshape(n, oh, ow, -1)
        wg = w[g * per_group : (g + 1) * per_group].reshape(per_group, -1).astype(accumulate)
        out[:, g * per_group : (g + 1) * per_group] = np.einsum(
            "nhwk,ok->nohw", cols, wg, optimize=True
        )
    return out.astype(np.float32)


def conv_build(w: np.ndarray, stride: int, pad: int, groups: int) -> Build:
    def build(p: list[ov.Node]) -> ov.Node:
        s, pads = [stride, stride], [pad, pad]
        if groups == 1:
            return opset1.convolution(p[0], const(w), s, pads, pads, [1, 1])
        shaped = w.reshape(groups, w.shape[0] // groups, *w.shape[1:])
        return opset1.group_convolution(p[0], const(shaped), s, pads, pads, [1, 1])

    return build


def matmul_by(b: np.ndarray) -> Build:
    """a · bᵀ, b a Const."""
    return lambda p: opset1.matmul(p[0], const(b), False, True)


CONV_SIZES = [  # label, N, C, H, O, k, stride, pad, groups
    ("resnet 3x3 64->64 56x56", 1, 64, 56, 64, 3, 1, 1, 1),
    ("stem 7x7 s2 3->64 224x224", 1, 3, 224, 64, 7, 2, 3, 1),
    ("1x1 256->64 56x56", 1, 256, 56, 64, 1, 1, 0, 1),
    ("1x1 64->256 56x56", 1, 64, 56, 256, 1, 1, 0, 1),
    ("3x3 s2 128->256 28x28", 1, 128, 28, 256, 3, 2, 1, 1),
    ("depthwise 3x3 C=32 112x112", 1, 32, 112, 32, 3, 1, 1, 32),
    ("depthwise 3x3 s2 C=96 56x56", 1, 96, 56, 96, 3, 2, 1, 96),
    ("grouped 3x3 G=8 64->64 28x28", 1, 64, 28, 64, 3, 1, 1, 8),
    ("3x3 512->512 7x7 batch 2", 2, 512, 7, 512, 3, 1, 1, 1),
]


def error_stats(cpu: np.ndarray, ref: np.ndarray, bound: np.ndarray) -> tuple[str, str, str]:
    """Max abs error, max error relative to max|cpu|, max error relative to sum|x*w|."""
    diff = np.abs(cpu.astype(np.float64) - ref.astype(np.float64))
    scale = float(np.max(np.abs(cpu)))
    return (
        f"{diff.max():.3g}",
        f"{diff.max() / scale:.3g}",
        f"{float(np.max(diff / np.maximum(bound, 1e-30))):.3g}",
    )


def accuracy_section(rng: np.random.Generator) -> list[str]:
    lines = [
        "## 5. Convolution and MatMul accuracy: NumPy vs CPU (f32 hint)",
        "",
        "Inputs randn, weights randn * sqrt(2 / fan_in) (kaiming). `vs sum|xw|`: error over"
        " the sum of |products| of that output (the condition of the dot product).",
        "",
    ]
    rows: list[Row] = []
    for label, n, c, h, o, k, stride, pad, groups in CONV_SIZES:
        x = rng.standard_normal((n, c, h, h)).astype(np.float32)
        fan_in = c // groups * k * k
        w = (rng.standard_normal((o, c // groups, k, k)) * np.sqrt(2 / fan_in)).astype(np.float32)
        cpu = single(conv_build(w, stride, pad, groups), [x])
        exact = im2col_conv(x, w, stride, pad, groups, np.float64)
        bound = im2col_conv(np.abs(x), np.abs(w), stride, pad, groups, np.float64)
        f32 = im2col_conv(x, w, stride, pad, groups, np.float32)
        rows.append((label, "f64 accumulate → f32", *error_stats(cpu, exact, bound)))
        rows.append((label, "f32 einsum", *error_stats(cpu, f32, bound)))
    for m, kdim, nout in ((1, 512, 1000), (1, 2048, 1000), (4, 1280, 1000), (8, 9216, 4096)):
        a = rng.standard_normal((m, kdim)).astype(np.float32)
        b = (rng.standard_normal((nout, kdim)) / np.sqrt(kdim)).astype(np.float32)
        cpu = single(matmul_by(b), [a])
        exact = (a.astype(np.float64) @ b.T.astype(np.float64)).astype(np.float32)
        bound = np.abs(a).astype(np.float64) @ np.abs(b).T.astype(np.float64)
        label = f"MatMul {m}x{kdim} · ({nout}x{kdim})ᵀ"
        rows.append((label, "f64 accumulate → f32", *error_stats(cpu, exact, bound)))
        rows.append((label, "f32 a @ b.T", *error_stats(cpu, a @ b.T, bound)))
    lines += table(["case", "NumPy", "max abs", "vs max\\|out\\|", "vs sum\\|xw\\|"], rows)
    return lines


def _small_windows() -> list[str]:
    """NaN and inf in the windows of a 5x5 convolution, in the data or the weights."""
    rows: list[Row] = []
    ones3 = np.ones((1, 1, 3, 3), np.float32)
    for label, x, w, pad in (
        (
            "NaN at (2,2) of 5x5, k3 ones, p1",
            np.where(np.arange(25).reshape(1, 1, 5, 5) == 12, NAN, 1).astype(np.float32),
            ones3,
            1,
        ),
        (
            "inf at (0,0) of 5x5, k3 ones, p1",
            np.where(np.arange(25).reshape(1, 1, 5, 5) == 0, INF, 1).astype(np.float32),
            ones3,
            1,
        ),
        (
            "inf at (2,2), weight centre 0, k3, p1",
            np.where(np.arange(25).reshape(1, 1, 5, 5) == 12, INF, 1).astype(np.float32),
            np.where(np.arange(9).reshape(1, 1, 3, 3) == 4, 0, 1).astype(np.float32),
            1,
        ),
        (
            "ones 5x5, weight (0,0) = inf, p1 (padding × inf)",
            np.ones((1, 1, 5, 5), np.float32),
            np.where(np.arange(9).reshape(1, 1, 3, 3) == 0, INF, 1).astype(np.float32),
            1,
        ),
        (
            "+inf and -inf in one window",
            np.where(
                np.isin(np.arange(25), [6, 7]).reshape(1, 1, 5, 5),
                np.array([INF, -INF] * 13)[1:26].reshape(1, 1, 5, 5),
                1,
            ).astype(np.float32),
            ones3,
            0,
        ),
    ):
        out = single(conv_build(w, 1, pad, 1), [x])
        rows.append((label, out[0, 0]))
    return table(["case", "output"], rows)


def _realistic_sizes() -> list[str]:
    """A NaN and an inf in large, realistic convolutions (oneDNN may use other algorithms)."""
    rows: list[Row] = []
    rng = np.random.default_rng(5)
    for label, n, c, h, o, k, stride, pad, groups in CONV_SIZES[:3] + CONV_SIZES[5:6]:
        x = rng.standard_normal((n, c, h, h)).astype(np.float32)
        x[0, 0, h // 2, h // 2] = NAN
        x[0, 1 % c, 0, 0] = INF
        w = (rng.standard_normal((o, c // groups, k, k)) * 0.1).astype(np.float32)
        cpu = single(conv_build(w, stride, pad, groups), [x])
        want = im2col_conv(x, w, stride, pad, groups, np.float64)
        same = np.array_equal(np.isnan(cpu), np.isnan(want)) and np.array_equal(
            np.isinf(cpu), np.isinf(want)
        )
        rows.append(
            (
                label,
                int(np.isnan(cpu).sum()),
                int(np.isnan(want).sum()),
                int(np.isinf(cpu).sum()),
                int(np.isinf(want).sum()),
                same,
            )
        )
    header = ["case", "CPU NaN", "NumPy NaN", "CPU inf", "NumPy inf", "same positions"]
    return [
        "NaN at the centre of channel 0 and +inf at (0,0) of channel 1; NumPy = im2col in f64"
        " (NaN and inf where IEEE puts them):",
        "",
        *table(header, rows),
    ]


def _matmul_zeros() -> list[str]:
    a = np.array([[1, NAN, 1], [INF, 1, 1], [INF, -INF, 0]], np.float32)
    b = np.array([[1, 0, 0], [0, 0, 1]], np.float32)
    out = single(matmul_by(b), [a])
    rows: list[Row] = [("a = [[1,nan,1],[inf,1,1],[inf,-inf,0]], b = [[1,0,0],[0,0,1]]ᵀ", out)]
    return ["MatMul with zeros against non-finite values:", "", *table(["case", "output"], rows)]


def nonfinite_section() -> list[str]:
    return [
        "## 6. Non-finite values inside convolution windows",
        "",
        *_small_windows(),
        *_realistic_sizes(),
        *_matmul_zeros(),
    ]
