"""Every benchmark in one run, then the issue-12 "done when" figures side by side.

Run: ``python benchmarks/bench_all.py [--json benchmarks/results.json] [--quick]``, then
``python benchmarks/readme_table.py benchmarks/results.json`` to regenerate the README's table.

Runs, in this order and in this process (servers and CLI commands in child processes):
``bench_cli``, ``bench_world``, ``bench_tools``, ``bench_episodes``, ``bench_http``,
``bench_runner``.  Each prints its own figures (CPU and wall time, ratio to its bare baseline
measured in the same run); the summary at the end lists every figure that has a target and
whether this run met it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]  # this checkout

import bench_cli
import bench_episodes
import bench_http
import bench_runner
import bench_tools
import bench_world
from timing import Figures

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="tasks", help="the task library (default tasks)")
    parser.add_argument("--json", help="write every figure to this JSON file (for readme_table.py)")
    parser.add_argument("--quick", action="store_true", help="shorter measurements (a smoke run, noisier)")
    args = parser.parse_args()
    seconds = 1.5 if args.quick else 4.0
    started = time.perf_counter()
    all_figures = []
    steps = [
        ("cli", lambda f: bench_cli.run(3 if args.quick else 7, f)),
        ("world", lambda f: bench_world.run(True, f)),
        ("tools", lambda f: bench_tools.run(15 if args.quick else 41, f)),
        ("episodes", lambda f: bench_episodes.run(str(ROOT / args.tasks), None, seconds, f)),
        ("http", lambda f: bench_http.run(str(ROOT / args.tasks), 40, seconds, f)),
        ("runner", lambda f: bench_runner.run(args.tasks, f)),
    ]
    for name, step in steps:
        figures = Figures(name)
        step(figures)
        all_figures.append(figures)
        print()
    print("== done when (issue 12), this run ==")
    met = True
    for figures in all_figures:
        for figure in figures.figures.values():
            if figure["target"]:
                mark = "ok " if figure["ok"] else "NOT MET"
                met &= bool(figure["ok"])
                print(f"  [{mark}] {figure['what']}: {figure['shown']} (target {figure['target']})")
    verdict = "every target met" if met else "some targets not met"
    print(f"  ({verdict}; whole run {time.perf_counter() - started:.0f} s wall)")
    if args.json:
        target = Path(args.json)
        if target.exists():
            target.unlink()  # one run's figures only, never mixed with an older run's
        for figures in all_figures:
            figures.write(target)


if __name__ == "__main__":
    main()
