"""Throughput of ``officesim run --backend ray`` with 1 and 2 local workers (oracle agent, no model).

Prints wall time, CPU time of this process and attempts per second for each worker count, and
the speed-up of 2 workers over 1, measured in the same run.  Ray starts once (``num_cpus=2``);
each run starts its own actors, which load their tasks (that start-up is part of the figure).

    python benchmarks/bench_ray.py [--tasks tasks/] [--limit 60] [--n 4]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import ray

from officesim.pipeline.runner import AgentSpec, run
from officesim.task import find_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="tasks")
    parser.add_argument("--limit", type=int, default=60, help="how many task folders (sorted) to use")
    parser.add_argument("--n", type=int, default=4, help="attempts per task")
    args = parser.parse_args()
    tasks = find_tasks([args.tasks])[: args.limit]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    rates = {}
    # The local backend with one process is the baseline; Ray runs 2 workers, then 1, then 2 again
    # (the machine is shared: the repeat shows how much of a difference is noise).
    for backend, workers in (("local", 1), ("ray", 2), ("ray", 1), ("ray", 2)):
        with tempfile.TemporaryDirectory() as out:
            wall, cpu = time.perf_counter(), time.process_time()
            report = run(tasks, AgentSpec("oracle"), args.n, Path(out), workers=workers, progress=False,
                         backend=backend)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rates[backend, workers] = report.played / wall
        print(f"{backend}, {workers} worker(s): {report.played} attempts of {len(tasks)} tasks in {wall:.1f} s wall "
              f"({cpu:.1f} s CPU in the driver): {rates[backend, workers]:.1f} attempts/s, {report.passed} passed")
    print(f"ray 2 workers vs ray 1: {rates['ray', 2] / rates['ray', 1]:.2f}x; "
          f"ray 1 worker vs local 1 process: {rates['ray', 1] / rates['local', 1]:.2f}x")
    ray.shutdown()


if __name__ == "__main__":
    main()
