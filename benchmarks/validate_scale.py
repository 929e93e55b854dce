"""Scale: `irpool validate` against OpenVINO's `core.read_model` on 1,000 to 100,000 layers,
and the peak memory of `irpool run` on one large tensor.

    python benchmarks/validate_scale.py                  # everything (about 2 minutes)
    python benchmarks/validate_scale.py --sizes 10000    # one model size
    python benchmarks/validate_scale.py --no-run         # validation only
    python benchmarks/validate_scale.py --named          # also with every tensor named
    python benchmarks/validate_scale.py --interleave 21 --sizes 10000 --named --no-run
    python benchmarks/validate_scale.py --interleave 21 --model swin_t.xml   # any IR file

The models are chains of AvgPool and AdaptiveAvgPool layers with their Consts, written by
OpenVINO's own serializer (tools/gen_scale_models.py) into a temporary directory. Every
measurement runs in a fresh process, so peak memory (the process's maximum resident set) is
its own: "in-process" times `irpool.load(path).validate()` and `core.read_model(path)`
(medians after one warm-up call on the same file), "CLI" the whole `irpool validate` command,
start-up included. Needs OpenVINO (`pip install -e '.[oracle]'`).

`--interleave N` is for a loaded machine: one process alternates N times between
`irpool.load(path).validate()`, `core.read_model(path)` and the `irpool validate` command,
so every side sees the same load, and reports wall and CPU time (min and median) of each and
their ratios to `read_model`, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SIZES = (1_000, 10_000, 100_000)
RUN_SHAPE = (1, 64, 1024, 1024)


def peak_rss() -> int:
    """This process's peak resident set, in bytes. On Linux from /proc (VmHWM): ru_maxrss
    would include the parent's resident set at fork time."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    import resource

    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def timed(call: Callable[[], object], repeat: int) -> list[float]:
    call()  # warm-up: imports, plugin loading, caches
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return times


# --------------------------------------------------------------------------------------------
# Workers: one measurement each, in their own process, answering one JSON line
# --------------------------------------------------------------------------------------------


def worker_irpool(path: str, repeat: int) -> dict[str, Any]:
    import irpool

    def validate() -> list[irpool.Diagnostic]:
        return irpool.load(path).validate()

    return {"seconds": timed(validate, repeat), "findings": len(validate())}


def worker_openvino(path: str, repeat: int) -> dict[str, Any]:
    import openvino as ov

    core = ov.Core()
    return {"seconds": timed(lambda: core.read_model(path), repeat)}


def worker_run(kind: str, directory: str) -> dict[str, Any]:
    """irpool run on RUN_SHAPE f32: bytes of input, output, and the peaks while running."""
    import tracemalloc

    import numpy as np

    import irpool

    sys.path.insert(0, str(ROOT))
    from tests import ir

    size = RUN_SHAPE[2:] if kind == "avgpool_k3" else (7, 7)
    text = (
        ir.pool_model(RUN_SHAPE, kernel=3, pad=1)
        if kind == "avgpool_k3"
        else ir.adaptive_model(RUN_SHAPE, size)
    )
    model = irpool.load(ir.write(Path(directory), text, ir.weights(size)))
    x = np.random.default_rng(0).random(RUN_SHAPE, dtype=np.float32)
    model.run({"input": x})  # warm-up: kernel plans and geometry
    before = peak_rss()
    tracemalloc.start()
    started = time.perf_counter()
    out = model.run({"input": x})["output"]
    seconds = time.perf_counter() - started
    added = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "input": x.nbytes,
        "output": out.nbytes,
        "allocated_peak": added,
        "rss_peak": peak_rss(),
        "rss_before": before,
        "seconds": seconds,
    }


def worker_interleaved(path: str, rounds: int) -> dict[str, Any]:
    """Wall and CPU seconds of each side, the three taking turns (in a rotating order)."""
    import resource

    import openvino as ov

    import irpool

    core = ov.Core()

    def cli() -> None:
        subprocess.run(
            cli_command(Path(path)), env=INSTALLED, stdout=subprocess.DEVNULL, check=True
        )

    def in_process() -> None:
        irpool.load(path).validate()

    sides: dict[str, Callable[[], object]] = {
        "irpool": in_process,
        "read_model": lambda: core.read_model(path),
        "CLI": cli,
    }
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    for call in sides.values():
        call()  # warm-up
    for turn in range(rounds):
        names = list(sides)[turn % 3 :] + list(sides)[: turn % 3]
        for name in names:
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu, started = time.process_time(), time.perf_counter()
            sides[name]()
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            spent = after.ru_utime - children.ru_utime + after.ru_stime - children.ru_stime
            found[name].append((wall, time.process_time() - cpu + spent))
    return {"times": found, "load": os.getloadavg()}


WORKERS: dict[str, Callable[..., dict[str, Any]]] = {
    "interleaved": worker_interleaved,
    "irpool": worker_irpool,
    "openvino": worker_openvino,
    "run": worker_run,
}


def in_worker(name: str, *args: object) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, __file__, "--worker", name, *map(str, args)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found: dict[str, Any] = json.loads(output.splitlines()[-1])  # the worker's last line
    return found


# The command runs as installed code does: from bytecode caches (pip writes them on install).
# With PYTHONDONTWRITEBYTECODE set and no caches, every start would compile irpool's sources
# again (docs/performance.md#start-up); the first run writes them.
INSTALLED = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def cli_command(path: Path) -> list[str]:
    return [sys.executable, "-m", "irpool", "validate", "--isolated", "--format", "concise",
            str(path)]  # fmt: skip


def cli_run(path: Path, repeat: int) -> tuple[list[float], int]:
    """Wall times of the `irpool validate` command, and its largest peak resident set (this
    process stays small, so the child's ru_maxrss is its own)."""
    times, peak = [], 0
    subprocess.run(cli_command(path), env=INSTALLED, stdout=subprocess.DEVNULL, check=False)
    for _ in range(repeat):
        started = time.perf_counter()
        process = subprocess.Popen(cli_command(path), env=INSTALLED, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        times.append(time.perf_counter() - started)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"irpool validate {path} failed")
        peak = max(peak, usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024))
    return times, peak


# --------------------------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------------------------


def mib(count: float) -> str:
    value = count / 2**20
    return f"{value:,.1f} MiB" if value < 10 else f"{value:,.0f} MiB"


def generate(directory: Path, layers: int, named: bool) -> Path:
    """The model, written by OpenVINO in another process: building 100,000 nodes takes the
    memory of a large process, which forked workers would otherwise report as theirs."""
    script = ROOT / "tools" / "gen_scale_models.py"
    subprocess.run(
        [sys.executable, script, directory, "--layers", str(layers), *["--named"][: int(named)]],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return directory / f"{'named' if named else 'chain'}_{layers}.xml"


def validate_scale(sizes: list[int], repeat: int, directory: Path, named: bool) -> None:
    print("Validation: irpool vs OpenVINO read_model (medians; peak = max resident set)")
    header = (
        f"{'layers':>8} {'XML':>8} | {'read_model':>10} {'peak':>9} | {'irpool':>8} {'ratio':>6} "
        f"{'peak':>9} | {'CLI':>7} {'ratio':>6} {'peak':>9} | {'irpool s/MB':>11}"
    )
    print(header)
    print("-" * len(header))
    # Named: every layer written differently (see tools/gen_scale_models.py), marked "n".
    for layers, each_named in [(n, False) for n in sizes] + [(n, True) for n in sizes if named]:
        path = generate(directory, layers, each_named)
        megabytes = path.stat().st_size / 1e6
        runs = repeat if layers < 100_000 else max(1, repeat // 3)
        ov = in_worker("openvino", path, runs)
        ours = in_worker("irpool", path, runs)
        assert ours["findings"] == 0, f"{path.name} does not validate clean"
        cli_times, cli_peak = cli_run(path, runs)
        ov_s = statistics.median(ov["seconds"])
        ours_s = statistics.median(ours["seconds"])
        cli_s = statistics.median(cli_times)
        print(
            f"{layers:>7,}{'n' if each_named else ' '} {megabytes:>6.1f}MB | "
            f"{ov_s:>9.3f}s {mib(ov['peak']):>9} | "
            f"{ours_s:>7.3f}s {ours_s / ov_s:>5.2f}x {mib(ours['peak']):>9} | "
            f"{cli_s:>6.3f}s {cli_s / ov_s:>5.2f}x {mib(cli_peak):>9} | {ours_s / megabytes:>11.4f}"
        )


def interleaved(path: Path, rounds: int) -> None:
    found = in_worker("interleaved", path, rounds)
    times, load = found["times"], found["load"]
    layers = path.read_bytes().count(b"<layer ")
    print(f"\n{path.name} ({layers:,} layers), {rounds} interleaved rounds, load average "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")  # fmt: skip
    reference = times["read_model"]
    for name, pairs in times.items():
        cells = []
        for kind, column in (("wall", 0), ("CPU", 1)):
            values = [pair[column] for pair in pairs]
            base = [pair[column] for pair in reference]
            low, middle = min(values), statistics.median(values)
            cells.append(
                f"{kind} min {low * 1e3:6.1f} ms ({low / min(base):.2f}x), "
                f"median {middle * 1e3:6.1f} ms ({middle / statistics.median(base):.2f}x)"
            )
        print(f"  {name:<10} " + "; ".join(cells))


def run_memory(directory: Path) -> None:
    print(f"\nirpool run on {'x'.join(map(str, RUN_SHAPE))} f32 (peaks of this run alone)")
    for kind in ("avgpool_k3", "adaptive_7x7"):
        found = in_worker("run", kind, directory)
        in_out = found["input"] + found["output"]
        print(
            f"  {kind:<13} input {mib(found['input'])}, output {mib(found['output'])}: "
            f"allocated at most {mib(found['allocated_peak'])} "
            f"({found['allocated_peak'] / in_out:.2f}x input+output), "
            f"resident peak {mib(found['rss_peak'])} "
            f"({found['rss_peak'] / in_out:.2f}x input+output, imports included), "
            f"{found['seconds']:.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measurement")
    parser.add_argument("--no-run", action="store_true", help="skip the run memory part")
    parser.add_argument("--named", action="store_true", help="also every tensor named")
    parser.add_argument("--interleave", type=int, metavar="N", help="N interleaved rounds")
    parser.add_argument("--model", type=Path, help="with --interleave: this file, not a chain")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        name, *rest = args.worker
        found = WORKERS[name](*(int(a) if a.isdigit() else a for a in rest))
        print(json.dumps({**found, "peak": peak_rss()}))
        return
    if args.interleave and args.model:
        interleaved(args.model, args.interleave)
        return
    with tempfile.TemporaryDirectory(prefix="irpool-scale-") as directory:
        if args.interleave:
            for layers, named in [(n, False) for n in args.sizes] + [
                (n, True) for n in args.sizes if args.named
            ]:
                interleaved(generate(Path(directory), layers, named), args.interleave)
        else:
            validate_scale(args.sizes, args.repeat, Path(directory), args.named)
        if not args.no_run:
            run_memory(Path(directory))


if __name__ == "__main__":
    main()
