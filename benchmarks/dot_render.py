"""How long Graphviz takes to draw `irpool explain --dot` of a whole model (issue #20: under
30 s for densenet121). Wall and CPU time (the dot child's user + system) of `dot -Tsvg`,
interleaved runs, with the load average, since the CPU time is what a quiet machine's wall
time would be.

    python benchmarks/dot_render.py                        # densenet121 (fp16), 3 runs
    python benchmarks/dot_render.py MODEL.xml --repeat 5 --constants
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DENSENET = ROOT / "tests" / "models" / "torchvision" / "densenet121-default-fp16" / "model.xml"


def render(graph: str) -> tuple[float, float]:
    """Wall and CPU seconds of one `dot -Tsvg`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(["dot", "-Tsvg"], input=graph, stdout=subprocess.DEVNULL, text=True, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, nargs="?", default=DENSENET)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--constants", action="store_true", help="do not fold the constants")
    args = parser.parse_args()
    if shutil.which("dot") is None:
        raise SystemExit("Graphviz's dot is not installed (apt-get install graphviz)")
    command = [sys.executable, "-m", "irpool", "explain", "--dot", str(args.model)]
    graph = subprocess.run(
        command + ["--constants"] * args.constants, capture_output=True, text=True, check=True
    ).stdout
    nodes = sum(" [label=" in line for line in graph.splitlines())
    edges = sum(" -> " in line for line in graph.splitlines())
    print(f"{args.model}: {nodes} nodes, {edges} edges")
    for _ in range(args.repeat):
        wall, cpu = render(graph)
        print(f"dot -Tsvg: {wall:.1f} s wall, {cpu:.1f} s CPU (load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
