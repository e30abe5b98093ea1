"""Episode benchmarks: oracle episodes per second on one core, and grading time alone.

Run: ``python benchmarks/bench_episodes.py [--tasks tasks] [--limit 60]``.

* oracle episode = ``env.reset()`` + the reference solution's tool calls + ``submit`` + grading
  without a judge, on one core (this process);
* grading alone = ``grade(...)`` of a finished oracle episode (diff from the change log + checks);
* baseline = a bare replay of the very same SQL on raw ``sqlite3``: the statements an oracle
  episode executed are captured with ``set_trace_callback`` and re-run on a fresh deserialize of
  the same snapshot, with no validation, no JSON, no grading.  The ratio says what officesim's
  layers cost over the database work itself.

Targets: 300+ oracle episodes/s per core on acme; grading under 5 ms.  For scale (measured by
the issue's author on this machine): tau-bench retail does 3.3 oracle episodes/s per core, its
reward replays the gold actions and hashes the whole database (220 ms).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]  # this checkout

from timing import fmt_ms, fmt_us

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import OracleAgent
from officesim.env import play
from officesim.grading.rubric import grade
from officesim.task import find_tasks

ROOT = Path(__file__).resolve().parent.parent


def capture_sql(env: OfficeEnv) -> list[str]:
    """The SQL statements one oracle episode's tool calls execute (grading excluded)."""
    statements: list[str] = []
    env.reset(seed=0)
    env.world.db.set_trace_callback(statements.append)
    for step in env.task.solution.steps:
        env.step({"name": step.name, "arguments": step.arguments})
    env.world.db.set_trace_callback(None)
    # SQLite reports a statement again for each trigger program it runs (our change-log
    # triggers): keep one copy of consecutive repeats.
    return [sql for i, sql in enumerate(statements) if i == 0 or sql != statements[i - 1]]


def bare_replay(snapshot: bytes, statements: list[str]) -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.deserialize(snapshot)
    for sql in statements:
        conn.execute(sql).fetchall()
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", default=str(ROOT / "tasks"), help="task folder(s) root")
    parser.add_argument("--limit", type=int, default=60, help="how many tasks (spread over families)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time budget per measurement")
    args = parser.parse_args()

    paths = find_tasks([args.tasks])
    tasks = [load_task(p) for p in paths]
    tasks = [t for t in tasks if t.solution is not None]
    # Spread the sample over families: round-robin by family.
    by_family: dict[str, list] = {}
    for task in tasks:
        by_family.setdefault(task.family, []).append(task)
    sample = []
    while len(sample) < args.limit and any(by_family.values()):
        for family in sorted(by_family):
            if by_family[family] and len(sample) < args.limit:
                sample.append(by_family[family].pop(0))
    started = time.perf_counter()
    for task in sample:
        task.start_snapshot()
        task.start_world()
    print(f"{len(sample)} tasks from {len({t.family for t in sample})} families; "
          f"start snapshots built in {time.perf_counter() - started:.1f}s (once, cached)")
    envs = [OfficeEnv(task) for task in sample]
    oracles = [OracleAgent(task) for task in sample]
    for env, oracle in zip(envs, oracles, strict=True):  # warm-up and a sanity check: the oracle must pass
        result = play(env, oracle)
        if not result.passed:
            raise SystemExit(f"oracle fails {env.task.id}: {result.summary()}")

    episodes, steps = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        for env, oracle in zip(envs, oracles, strict=True):
            play(env, oracle)
            episodes += 1
            steps += env.steps
    elapsed = time.perf_counter() - start
    ours_rate = episodes / elapsed
    print(f"oracle episodes: {ours_rate:,.0f} episodes/s on one core "
          f"({steps / episodes:.1f} steps each, {fmt_ms(elapsed / episodes)} per episode)")

    grading_times = []
    for env, oracle in zip(envs, oracles, strict=True):
        play(env, oracle)
        world, answer, transcript = env.world, env.answer, env.transcript
        start_world = env.task.start_world()
        samples = []
        for _ in range(20):
            t0 = time.perf_counter()
            grade(env.task, start_world, world, answer, transcript, None)
            samples.append(time.perf_counter() - t0)
        grading_times.append(statistics.median(samples))
    print(f"grading alone (no judge): median {fmt_us(statistics.median(grading_times))}, "
          f"worst task {fmt_us(max(grading_times))} (target < 5 ms)")

    captured = [(env.task.start_snapshot(), capture_sql(env)) for env in envs]
    bare_episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        for snapshot, statements in captured:
            bare_replay(snapshot, statements)
            bare_episodes += 1
    bare_rate = bare_episodes / (time.perf_counter() - start)
    print(f"bare sqlite3 replay of the same SQL (fresh deserialize, no grading): {bare_rate:,.0f} episodes/s")
    print(f"ratio: officesim oracle episode takes {bare_rate / ours_rate:.2f}x the bare replay's time "
          f"(and includes validation, JSON results, transcript and grading)")


if __name__ == "__main__":
    main()
