"""CLI start-up benchmark: how long ``officesim --help`` and a verb's ``--help`` take.

Run: ``python benchmarks/bench_cli.py [--json FILE]``.

Each command runs as a fresh ``python -m officesim`` process from this checkout, several times;
the medians of wall time and of CPU time (the child's user+system, ``getrusage``) are printed
against the bare baseline ``python -c pass`` measured in the same run.  Target (issue 12): both
``--help`` commands under 0.5 s, counted beyond the interpreter's own start-up (which a loaded
machine can push past 0.5 s by itself) and in CPU time.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]  # this checkout

from timing import Figures

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "officesim --help": ["-m", "officesim", "--help"],
    "officesim tasks validate --help": ["-m", "officesim", "tasks", "validate", "--help"],
    "import officesim": ["-c", "import officesim"],
    "from officesim import World": ["-c", "from officesim import World"],
}


def timed(args: list[str], repeat: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``python ARGS``."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], cwd=ROOT, check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def run(repeat: int, figures: Figures) -> None:
    print("== CLI start-up: median of fresh processes ==")
    results = {label: timed(args, repeat) for label, args in COMMANDS.items()}
    bare_wall, _ = results["python -c pass"]
    for label, (wall, cpu) in results.items():
        print(f"  {label:<32} wall {wall:5.2f} s   CPU {cpu:5.2f} s   ({wall / bare_wall:4.1f}x python -c pass)")
    for key, label in (("help", "officesim --help"), ("validate_help", "officesim tasks validate --help")):
        wall, cpu = results[label]
        # On a loaded machine the interpreter's own start-up can pass 0.5 s: the target applies to
        # what officesim adds to it (and to the CPU time, which other processes do not inflate).
        own = max(0.0, wall - bare_wall)
        figures.add(f"cli_{key}", own, unit="s", what=f"`{label}`: time beyond `python -c pass` (wall, median of "
                    f"{repeat})", target="<= 0.5 s", ok=own <= 0.5 and cpu <= 0.5,
                    shown=f"{own:.2f} s beyond python -c pass ({wall:.2f} s wall vs {bare_wall:.2f} s; "
                    f"{cpu:.2f} s CPU)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="runs per command")
    parser.add_argument("--json", help="merge the figures into this JSON file")
    args = parser.parse_args()
    figures = Figures("cli")
    run(args.repeat, figures)
    figures.write(args.json)


if __name__ == "__main__":
    main()
