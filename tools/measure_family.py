"""Measure how OpenVINO's CPU plugin computes MaxPool, AdaptiveMaxPool, ReduceMax and ReduceMean.

Run `python tools/measure_family.py > measured.md`: every case builds a tiny model with
OpenVINO's Python builders, compiles it for CPU with INFERENCE_PRECISION_HINT=f32 and prints
the input and what each output holds, as Markdown. docs/ops/MaxPool.md, docs/ops/AdaptiveMaxPool.md,
docs/ops/ReduceMax.md and
docs/ops/ReduceMean.md state the rules these measurements support;
re-run this script on another CPU (the SIMD kernels differ per ISA) or OpenVINO release to
check them. MaxPool-8/14 take two CPU paths: with the indices output used they run the core
reference implementation, with values only a oneDNN kernel; the cases run both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from ov_builders import opset1, opset8, opset14, ov

CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}
NAN, INF = np.nan, np.inf
Build = Callable[[ov.Node], list[ov.Node]]


@dataclass(frozen=True)
class Case:
    name: str
    build: Build
    x: np.ndarray


def infer(build: Build, x: np.ndarray) -> list[np.ndarray] | str:
    """The CPU plugin's outputs, or the first line of its error."""
    param = opset1.parameter(list(x.shape), x.dtype, name="x")
    try:
        model = ov.Model(build(param), [param])
        compiled = ov.Core().compile_model(model, "CPU", CONFIG)
        request = compiled.create_infer_request()
        request.infer({0: x})
        return [request.get_output_tensor(i).data.copy() for i in range(len(compiled.outputs))]
    except RuntimeError as error:
        lines = [line for line in str(error).splitlines() if line.strip()]
        return "error: " + (lines[-1] if lines else "?")


def max_pool(
    version: int,
    kernel: Sequence[int],
    strides: Sequence[int] | None = None,
    pads: tuple[Sequence[int], Sequence[int]] | None = None,
    *,
    rounding: str = "floor",
    axis: int = 2,
    indices: bool = True,
    index_type: str = "i32",
) -> Build:
    """MaxPool-1/8/14; `indices` False keeps only the values output (the oneDNN path)."""
    rank = len(kernel)
    begin, end = pads if pads else ([0] * rank, [0] * rank)
    stride = list(strides) if strides else list(kernel)

    def build(x: ov.Node) -> list[ov.Node]:
        if version == 1:
            node = opset1.max_pool(x, stride, begin, end, list(kernel), rounding, "explicit")
            return [node.output(0)]
        maker = opset8.max_pool if version == 8 else opset14.max_pool
        node = maker(
            x, stride, [1] * rank, begin, end, list(kernel), rounding, "explicit",
            index_type, axis,
        )  # fmt: skip
        return [node.output(0), node.output(1)] if indices else [node.output(0)]

    return build


def adaptive_max_pool(size: Sequence[int], indices: bool = True) -> Build:
    def build(x: ov.Node) -> list[ov.Node]:
        target = opset1.constant(np.array(size, np.int32))
        node = opset8.adaptive_max_pool(x, target, "i32")
        return [node.output(0), node.output(1)] if indices else [node.output(0)]

    return build


def reduce(kind: str, axes: Sequence[int], keep_dims: bool = True) -> Build:
    maker = opset1.reduce_max if kind == "max" else opset1.reduce_mean

    def build(x: ov.Node) -> list[ov.Node]:
        return [maker(x, opset1.constant(np.array(axes, np.int64)), keep_dims).output(0)]

    return build


def row(values: Sequence[float], dtype: type = np.float32) -> np.ndarray:
    """A [1,1,W] tensor."""
    return np.array(values, dtype).reshape(1, 1, -1)


def nan_at(size: int, positions: Sequence[int], channels: int = 1) -> np.ndarray:
    """[1,C,size] ramp 0..size-1 (channel c adds c) with NaN at the given positions."""
    x = np.arange(size, dtype=np.float32)[None, None, :] + np.arange(channels)[None, :, None]
    x = x.astype(np.float32)
    x[..., list(positions)] = NAN
    return x


AXIS_INPUT = np.array([[[0, 9, 1, 2], [3, 4, 8, 5]], [[7, 6, 1, 0], [2, 2, 3, 9]]], np.float32)
GRID = np.array([[0, 5, 5], [1, 5, 2], [4, 4, 3]], np.float32).reshape(1, 1, 3, 3)


def maxpool_cases() -> list[Case]:
    cases: list[Case] = []
    windows: dict[str, list[float]] = {
        "NaN first": [NAN, 2, 3], "NaN middle": [1, NAN, 3], "NaN last": [1, 2, NAN],
        "all NaN": [NAN, NAN, NAN], "-inf only": [-INF, -INF, -INF], "+inf": [1, INF, NAN],
        "ties": [3, 3, 1], "-0 then +0": [-0.0, 0.0, -1], "+0 then -0": [0.0, -0.0, -1],
    }  # fmt: skip
    for label, values in windows.items():
        for path, indices in (("reference", True), ("oneDNN", False)):
            cases.append(Case(f"k3 {label} ({path})", max_pool(8, [3], indices=indices),
                              row(values)))  # fmt: skip
    # SIMD: 16 channels in one vector; long windows; NaN at several positions.
    for positions in ([0], [5], [16], [31], [0, 31]):
        x = nan_at(32, positions, channels=16)
        for path, indices in (("reference", True), ("oneDNN", False)):
            cases.append(Case(f"k32 C16 NaN at {positions} ({path})",
                              max_pool(8, [32], indices=indices), x))  # fmt: skip
    cases.append(Case("2-D k2 s1 ties [[0,5,5],[1,5,2],[4,4,3]]", max_pool(8, [2, 2], [1, 1]),
                      GRID))  # fmt: skip
    for axis in (0, 1, 2, -1):
        cases.append(Case(f"axis {axis}, N=2 C=2 k2 s2", max_pool(8, [2], axis=axis),
                          AXIS_INPUT))  # fmt: skip
    negative = row([-5, -6, -7])
    cases.append(Case("padding: all negative, k2 s1 p1/1", max_pool(8, [2], [1], ([1], [1])),
                      negative))  # fmt: skip
    cases.append(
        Case(
            "padding: oneDNN, k2 s1 p1/1",
            max_pool(8, [2], [1], ([1], [1]), indices=False),
            negative,
        )
    )
    ramp = np.arange(10, dtype=np.float32).reshape(1, 2, 5) - 20
    for version, rounding in ((8, "ceil"), (14, "ceil"), (14, "ceil_torch")):
        for path, indices in (("reference", True), ("oneDNN", False)):
            build = max_pool(version, [2], [2], ([1], [1]), rounding=rounding, indices=indices)
            cases.append(Case(f"v{version} {rounding} D=5 k2 s2 p1/1 C=2 ({path})", build, ramp))
    overhang = np.arange(5, dtype=np.float32).reshape(1, 1, 5) - 9
    cases.append(Case("v8 ceil D=5 k1 s3 (window past the end)",
                      max_pool(8, [1], [3], rounding="ceil"), overhang))  # fmt: skip
    for path, indices in (("reference", True), ("oneDNN", False)):
        build = max_pool(8, [1], [1], ([2], [2]), indices=indices, axis=0)
        cases.append(Case(f"pads >= kernel: k1 p2/2 N=2 axis 0 ({path})", build,
                          np.arange(-6, 0, dtype=np.float32).reshape(2, 1, 3)))  # fmt: skip
    big = [16777217, 16777216, 2147483647, -2147483648]
    for dtype in (np.int32, np.int64, np.int8, np.uint8):
        info = np.iinfo(dtype)
        values = [v for v in big if info.min <= v <= info.max] or [1, 2, 3, 4]
        values = [*values, int(info.min), int(info.max), 1, 1]
        x = np.array(values * 2, dtype).reshape(1, 2, -1)
        for path, indices in (("reference", True), ("oneDNN", False)):
            build = max_pool(8, [2], [2], ([0], [1]), rounding="ceil", indices=indices)
            cases.append(Case(f"{np.dtype(dtype).name} C=2 k2 s2 p0/1 ceil ({path})", build, x))
    half = np.array([[[NAN, 1, -INF, -INF, 65504, 2]]], np.float16)
    for path, indices in (("reference", True), ("oneDNN", False)):
        build = max_pool(8, [2], [2], ([0], [2]), rounding="ceil", indices=indices)
        cases.append(Case(f"f16 k2 s2 p0/2 ceil ({path})", build, half))
    return cases


def adaptive_cases() -> list[Case]:
    cases = [
        Case("bins 5 -> 3 on arange(5)", adaptive_max_pool([3]), row(range(5))),
        Case("bins 4 -> 8 on arange(4)", adaptive_max_pool([8]), row(range(4))),
        Case("bins 7 -> 3 on arange(7)", adaptive_max_pool([3]), row(range(7))),
        Case("2-D 3x3 -> 2x2 ties", adaptive_max_pool([2, 2]), GRID),
        Case("2-D N=2 C=2 4 -> 2 (per-plane index)", adaptive_max_pool([2]), AXIS_INPUT),
    ]
    windows: dict[str, list[float]] = {
        "NaN first": [NAN, 1, 2], "NaN middle": [1, NAN, 2], "NaN last": [1, 2, NAN],
        "all NaN": [NAN, NAN, NAN], "-inf only": [-INF, -INF, -INF], "ties": [3, 3, 1],
    }  # fmt: skip
    for label, values in windows.items():
        for path, indices in (("indices", True), ("values only", False)):
            cases.append(Case(f"3 -> 1 {label} ({path})", adaptive_max_pool([1], indices),
                              row(values)))  # fmt: skip
    for positions in ([0], [5], [16], [31]):
        cases.append(Case(f"32 -> 1 C16 NaN at {positions}", adaptive_max_pool([1]),
                          nan_at(32, positions, channels=16)))  # fmt: skip
    cases.append(Case("i32 [16777217,16777216] -> 1", adaptive_max_pool([1]),
                      row([16777217, 16777216], np.int32)))  # fmt: skip
    return cases


def reduce_cases() -> list[Case]:
    cases: list[Case] = []
    windows: dict[str, list[float]] = {
        "NaN first": [NAN, 1, 2], "NaN middle": [1, NAN, 2], "NaN last": [1, 2, NAN],
        "all NaN": [NAN, NAN, NAN], "-inf only": [-INF, -INF], "+inf and -inf": [INF, -INF],
    }  # fmt: skip
    for label, values in windows.items():
        for kind in ("max", "mean"):
            cases.append(Case(f"Reduce{kind.title()} [-1] {label}", reduce(kind, [-1]),
                              row(values)))  # fmt: skip
    for size in (8, 16, 17, 64):
        for position in sorted({0, 1, size // 2, size - 2, size - 1}):
            cases.append(Case(f"ReduceMax [-1] {size} elements, NaN at {position}",
                              reduce("max", [-1]), nan_at(size, [position])))  # fmt: skip
    grid = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    for at in ((0, 0), (1, 1), (2, 2)):
        x = grid.copy()
        x[0, 0][at] = NAN
        for axes in ([2, 3], [2], [3]):
            cases.append(Case(f"ReduceMax {axes} 3x3, NaN at {at}", reduce("max", axes),
                              x))  # fmt: skip
    for channels in (16, 64):
        x = nan_at(49, [10], channels).reshape(1, channels, 7, 7)
        cases.append(Case(f"ReduceMax [2,3] C{channels} 7x7, NaN at flat 10 (channel 0..)",
                          reduce("max", [2, 3]), x))  # fmt: skip
        cases.append(Case(f"ReduceMean [2,3] C{channels} 7x7, NaN at flat 10",
                          reduce("mean", [2, 3]), x))  # fmt: skip
    cases.append(Case("ReduceMax empty axis [1,0,3]", reduce("max", [1]),
                      np.zeros((1, 0, 3), np.float32)))  # fmt: skip
    cases.append(Case("ReduceMean empty axis [1,0,3]", reduce("mean", [1]),
                      np.zeros((1, 0, 3), np.float32)))  # fmt: skip
    cases.append(Case("ReduceMax i32 [16777217,16777216]", reduce("max", [-1]),
                      row([16777217, 16777216], np.int32)))  # fmt: skip
    cases.append(Case("ReduceMean i32 [2**30]*4", reduce("mean", [-1]),
                      row([2**30] * 4, np.int32)))  # fmt: skip
    cases.append(Case("ReduceMean i32 [-1,-2]", reduce("mean", [-1]), row([-1, -2], np.int32)))
    return cases


LOWEST = np.finfo(np.float32).min


def scalar_max(run: np.ndarray) -> np.float32:
    """ReduceMax's scalar loop: NaN replaces the maximum so far, the next element replaces NaN."""
    best = LOWEST
    for value in run:
        best = best if best > value else value
    return np.float32(best)


def maxps(first: np.float32, second: np.float32) -> np.float32:
    """x86 MAXPS: `first` when it is greater, else `second` (NaN on either side: `second`)."""
    return first if first > second else second


def lane_max(run: np.ndarray) -> np.float32:
    """ReduceMax's vector kernel on a run of 16 or more: 16 lanes each scanned like
    `scalar_max`, combined as ((l0,l4),(l8,l12)) per lane group j, then ((g0,g1),(g2,g3)),
    the result folded as MAXPS(result, LOWEST), and the last len % 16 elements scanned on."""
    vectors = len(run) // 16 * 16
    lanes = [scalar_max(run[j:vectors:16]) for j in range(16)]
    groups = [
        maxps(maxps(lanes[j], lanes[j + 4]), maxps(lanes[j + 8], lanes[j + 12])) for j in range(4)
    ]
    best = maxps(maxps(maxps(groups[0], groups[1]), maxps(groups[2], groups[3])), LOWEST)
    for value in run[vectors:]:
        best = maxps(best, value)
    return np.float32(best)


def sequential_or_lanes(run: np.ndarray) -> np.float32:
    """ReduceMax (and a global AdaptiveMaxPool without indices) over one innermost run."""
    return scalar_max(run) if len(run) < 16 else lane_max(run)


def first_element_max(run: np.ndarray) -> np.float32:
    """AdaptiveMaxPool's loop: start with the bin's first element, replace when strictly greater."""
    best = run[0]
    for value in run[1:]:
        if value > best:
            best = value
    return np.float32(best)


def lowest_init_max(run: np.ndarray) -> np.float32:
    """MaxPool's loop: start at the lowest finite value, replace when strictly greater."""
    best = LOWEST
    for value in run:
        if value > best:
            best = value
    return np.float32(best)


def rule_checks() -> list[str]:
    """How often each documented NaN rule reproduces the CPU on random rows with 15% NaN."""
    rng = np.random.default_rng(0)
    lines = ["| op (path) | reduced length -> bins | rule | rows matching |", "|---|---|---|---|"]
    for length, bins in ((3, 1), (8, 1), (15, 1), (16, 1), (17, 1), (40, 1), (5, 3), (12, 5)):
        x = rng.standard_normal((1, 300, length)).astype(np.float32)
        x[rng.random(x.shape) < 0.15] = NAN
        runs = [(i * length // bins, -(-(i + 1) * length // bins)) for i in range(bins)]
        checks = [("AdaptiveMaxPool (indices)", adaptive_max_pool([bins]), first_element_max),
                  ("AdaptiveMaxPool (values only)", adaptive_max_pool([bins], False),
                   first_element_max if bins > 1 else sequential_or_lanes)]  # fmt: skip
        if bins == 1:
            checks += [("ReduceMax", reduce("max", [-1]), sequential_or_lanes),
                       ("MaxPool-8 (indices)", max_pool(8, [length]), lowest_init_max),
                       ("MaxPool-8 (values only)", max_pool(8, [length], indices=False),
                        lowest_init_max)]  # fmt: skip
        for label, build, rule in checks:
            got = infer(build, x)
            if isinstance(got, str):
                lines.append(f"| {label} | {length} -> {bins} | {rule.__name__} | {got} |")
                continue
            expected = np.stack(
                [np.apply_along_axis(rule, -1, x[..., a:b]) for a, b in runs], axis=-1
            ).reshape(got[0].shape)
            same = (expected == got[0]) | (np.isnan(expected) & np.isnan(got[0]))
            rows = same.reshape(300, -1).all(axis=1).sum()
            lines.append(f"| {label} | {length} -> {bins} | {rule.__name__} | {rows}/300 |")
    return lines


def ascending_sweep() -> list[str]:
    """ReduceMax of ascending rows with one NaN, at every position: `.` the row's maximum, `N` NaN,
    `L` LOWEST, `?` anything else (row i holds the NaN at position i)."""
    lines = ["| length | result per NaN position |", "|---|---|"]
    for length in (*range(1, 35), 48, 49, 63, 64, 65):
        x = np.tile(np.arange(length, dtype=np.float32), (length, 1))
        x[np.arange(length), np.arange(length)] = NAN
        got = infer(reduce("max", [-1], keep_dims=False), x)
        if isinstance(got, str):
            lines.append(f"| {length} | {got} |")
            continue
        finite_max = np.where(np.isnan(x), -np.inf, x).max(axis=1)
        marks = [
            "N" if np.isnan(v) else "L" if v == LOWEST else "." if v == m else "?"
            for v, m in zip(got[0], finite_max, strict=True)
        ]
        lines.append(f"| {length} | `{''.join(marks)}` |")
    return lines


def lane_survival() -> list[str]:
    """ReduceMax over rows of 16 (two rows of 32 would show the same): row p holds NaN at
    lane p, column q puts the row's only large value at lane q; `#` the large value wins,
    `.` it was dropped with the NaN, `L` LOWEST. The lane tree of `lane_max` reads off it."""
    x = np.ones((16, 16, 16), np.float32)
    x[:, np.arange(16), np.arange(16)] = 100.0
    x[np.arange(16), :, np.arange(16)] = NAN
    got = infer(reduce("max", [-1], keep_dims=False), x)
    if isinstance(got, str):
        return [got]
    marks = np.where(got[0] == 100, "#", np.where(got[0] == LOWEST, "L", "."))
    return ["| NaN at | lanes 0..15 |", "|---|---|"] + [
        f"| {p} | `{''.join(row)}` |" for p, row in enumerate(marks)
    ]


def show(array: np.ndarray) -> str:
    text = np.array2string(array, separator=",", threshold=64, max_line_width=10**6)
    return f"{array.dtype} {list(array.shape)} {' '.join(text.split())}"


def main() -> None:
    print(f"OpenVINO {ov.__version__}, CPU: {cpu_name()}\n")
    sections = {
        "MaxPool": maxpool_cases(),
        "AdaptiveMaxPool-8": adaptive_cases(),
        "ReduceMax-1 / ReduceMean-1": reduce_cases(),
    }
    for title, cases in sections.items():
        print(f"## {title}\n\n| case | input | outputs |\n|---|---|---|")
        for case in cases:
            outputs = infer(case.build, case.x)
            shown = outputs if isinstance(outputs, str) else "<br>".join(map(show, outputs))
            print(f"| {case.name} | {show(case.x)} | {shown} |")
        print()
    print("## NaN rules on random data\n")
    print("\n".join(rule_checks()))
    print("\n## ReduceMax: ascending rows with one NaN\n")
    print("\n".join(ascending_sweep()))
    print("\n## ReduceMax: which lanes a NaN drops (run of 16)\n")
    print("\n".join(lane_survival()))


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


if __name__ == "__main__":
    main()
