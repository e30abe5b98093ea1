"""Runner benchmark: ``officesim run --agent oracle`` over the library against the in-process loop.

Run: ``python benchmarks/bench_runner.py [--tasks tasks] [--json FILE]``.

Both sides run as fresh processes on one core, in the same run, over the same task folders, in
``ROUNDS`` alternating rounds (loop, runner, loop, runner; the figures sum the rounds), and both
start cold (imports, world generation, task loading and start-state builds included):

* in-process loop (the baseline): ``for folder: load_task, OfficeEnv, play the oracle, release``;
* the runner: ``python -m officesim run TASKS --agent oracle --n 1 --workers 1 --quiet --out TMP``,
  which also records versions, writes every transcript and result line, and prints metrics.

Each side's CPU time is the child process's user+system time (``getrusage``); the ratio of the
episode rates is the inverse ratio of their CPU times.  Target (issue 12): the runner reaches at
least 80% of the loop's episodes/s.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]  # this checkout

from timing import Figures

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 2  # alternating rounds of the loop and the runner (see run)
LOOP = """
import sys
from officesim import OfficeEnv, load_task
from officesim.agents.scripted import OracleAgent
from officesim.env import play
from officesim.task import find_tasks
played = 0
for folder in find_tasks([sys.argv[1]]):
    task = load_task(folder)
    if task.solution is None:
        continue
    env = OfficeEnv(task)
    if not play(env, OracleAgent(task)).passed:
        raise SystemExit(f"the oracle fails {task.id}")
    task.release()
    played += 1
print(played)
"""


def child(command: list[str]) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, stdout) of one child process run to completion."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} ... failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout


def run(tasks_dir: str, figures: Figures) -> None:
    print(f"== runner: officesim run --agent oracle --n 1 over {tasks_dir} vs the in-process loop "
          f"({ROUNDS} alternating rounds) ==")
    loop_cpu = loop_wall = run_cpu = run_wall = 0.0
    episodes = 0  # over all rounds
    # The machine's speed drifts by tens of percent over a minute: the two sides alternate, and
    # each figure sums its rounds, so a slow spell weighs on both alike.
    for _ in range(ROUNDS):
        cpu, wall, out = child([sys.executable, "-c", LOOP, tasks_dir])
        loop_cpu, loop_wall = loop_cpu + cpu, loop_wall + wall
        played = int(out.strip().splitlines()[-1])
        with tempfile.TemporaryDirectory() as tmp:
            cpu, wall, _ = child([sys.executable, "-m", "officesim", "run", tasks_dir, "--agent", "oracle",
                                  "--n", "1", "--workers", "1", "--quiet", "--out", str(Path(tmp) / "run")])
            run_cpu, run_wall = run_cpu + cpu, run_wall + wall
            recorded = sum(1 for _ in (Path(tmp) / "run" / "results.jsonl").open())
        if recorded != played:
            raise SystemExit(f"the runner recorded {recorded} attempts, the loop played {played}")
        episodes += played
    loop_rate, run_rate = episodes / loop_cpu, episodes / run_cpu
    ratio = run_rate / loop_rate
    print(f"  in-process loop: {episodes} episodes, CPU {loop_cpu:.1f} s ({loop_rate:.0f} episodes/s), "
          f"wall {loop_wall:.1f} s")
    print(f"  officesim run:   {episodes} episodes, CPU {run_cpu:.1f} s ({run_rate:.0f} episodes/s), "
          f"wall {run_wall:.1f} s")
    print(f"  runner / in-process loop: {ratio:.2f} of the loop's episodes/s (target >= 0.8)")
    figures.add("runner_vs_loop", ratio, what=f"officesim run --agent oracle / in-process loop, episodes/s "
                f"({episodes // ROUNDS} tasks x {ROUNDS} rounds, cold processes)", target=">= 0.8", ok=ratio >= 0.8,
                shown=f"{run_rate:.0f} vs {loop_rate:.0f} episodes/s ({ratio:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="tasks", help="the task library (default tasks)")
    parser.add_argument("--json", help="merge the figures into this JSON file")
    args = parser.parse_args()
    figures = Figures("runner")
    run(args.tasks, figures)
    figures.write(args.json)


if __name__ == "__main__":
    main()
