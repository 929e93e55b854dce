"""Start-up: `irpool validate` on one small file (and on one whose constants need NumPy), and
the commands that only print text, against a bare `python -c pass` of the same interpreter.

    python benchmarks/startup.py              # 30 rounds
    python benchmarks/startup.py --rounds 100

Each round runs every command once, in turn, each in a fresh process, so load that comes and
goes on a shared machine hits them all alike. Prints the median and the minimum wall time of
each, and each one's overhead over the interpreter alone (median minus median). The commands
run as installed code does: with bytecode caching on (PYTHONDONTWRITEBYTECODE removed) after
one warm-up round, since compiling irpool's sources on every start would triple the overhead.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL_MODEL = ROOT / "examples" / "valid" / "avgpool1_4d.xml"
# Constants' values are NumPy arrays: this one's ReduceMean axes bring NumPy's import in.
CONSTANT_MODEL = ROOT / "examples" / "valid" / "reduce_mean_global.xml"
IRPOOL = [sys.executable, "-m", "irpool"]
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
    "irpool --version": [*IRPOOL, "--version"],
    "irpool rules": [*IRPOOL, "rules"],
    "irpool validate (1 small file)": [*IRPOOL, "validate", str(SMALL_MODEL)],
    "irpool validate (with a Const)": [*IRPOOL, "validate", str(CONSTANT_MODEL)],
}


def measure(rounds: int) -> dict[str, list[float]]:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    seconds: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for index in range(rounds + 1):
        for name, command in COMMANDS.items():
            started = time.perf_counter()
            subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, check=False)
            if index:  # round 0 only writes the bytecode caches
                seconds[name].append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args().rounds
    seconds = measure(rounds)
    base = statistics.median(seconds["python -c pass"])
    print(f"{'command':34} {'median':>8} {'min':>8} {'over python':>12}  ({rounds} rounds)")
    for name, times in seconds.items():
        median = statistics.median(times)
        print(
            f"{name:34} {median * 1000:6.0f}ms {min(times) * 1000:6.0f}ms "
            f"{(median - base) * 1000:10.0f}ms"
        )


if __name__ == "__main__":
    main()
