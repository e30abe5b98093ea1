"""Episode benchmarks: oracle episodes per second on one core, and grading time alone.

Run: ``python benchmarks/bench_episodes.py [--tasks tasks] [--limit N] [--json FILE]`` (all tasks by default).

* oracle episode = ``env.reset()`` + the reference solution's tool calls + ``submit`` + grading
  without a judge, on one core (this process);
* grading alone = ``grade(...)`` of a finished oracle episode (diff from the change log + checks);
* baseline = a bare in-place replay of the very same SQL on raw ``sqlite3``: the statements an
  oracle episode's tool calls executed are captured with ``set_trace_callback`` and re-run on a
  connection that deserializes the same snapshot in place, with no validation, no JSON, no
  transcript and no grading.  (``OfficeEnv.reset`` rewinds instead: it puts back the rows its
  change log lists, which a bare connection has no log for; see ``World.rewind``.)  The ratio
  says what officesim's layers cost over the database work itself (the target: within 2x).
* tasks are measured in chunks of ``CHUNK`` (each with its share of the time budget, figures
  averaged per task), so the whole library never sits in memory at once: every task holds about
  four copies of its world while it is measured;
* every figure is CPU time of this process (the wall clock on a shared machine also counts other
  processes); wall time is printed next to it.

Targets: 300+ oracle episodes/s per core on acme; grading under 5 ms.  For scale (measured by
the issue's author on this machine): tau-bench retail does 3.3 oracle episodes/s per core, its
reward replays the gold actions and hashes the whole database (220 ms).
"""

from __future__ import annotations

import argparse
import gc
import sqlite3
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]  # this checkout

from timing import Clock, Figures, fmt_ms, fmt_us

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import OracleAgent
from officesim.env import play
from officesim.grading.scoring import grade
from officesim.grading.text_caches import forget_texts
from officesim.task import Task, find_tasks

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


def breakdown(envs: list[OfficeEnv], oracles: list[OracleAgent], rounds: int = 2) -> dict[str, float]:
    """CPU seconds per episode spent in each layer, from wrapped calls (where the time goes).

    Layers: ``reset`` (the in-place deserialize), ``validation`` (argument parsing and checks),
    ``tools`` (the tool functions: their SQL and result building), ``transcript`` (recording the
    call and its JSON result), ``grading``; ``other`` is the rest of ``play`` (agent, observation).
    """
    import officesim.env as env_module
    import officesim.tools as tools_module

    spent: dict[str, float] = dict.fromkeys(("reset", "validation", "tools", "transcript", "grading"), 0.0)

    def wrap(layer: str, func: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return func(*args, **kwargs)
            finally:
                spent[layer] += time.process_time() - start
        return timed

    patches = [(OfficeEnv, "reset", "reset"), (OfficeEnv, "_record", "transcript"), (OfficeEnv, "_grade", "grading"),
               (env_module, "dispatch", "tools"), (tools_module.Tool, "validate", "validation")]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, layer in patches:
        setattr(owner, name, wrap(layer, getattr(owner, name)))
    try:
        with Clock() as clock:
            for _ in range(rounds):
                for env, oracle in zip(envs, oracles, strict=True):
                    play(env, oracle)
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
    episodes = rounds * len(envs)
    spent["tools"] -= spent["validation"]  # validation runs inside dispatch
    shares = {layer: seconds / episodes for layer, seconds in spent.items()}
    shares["other"] = clock.cpu / episodes - sum(shares.values())
    return shares


def bare_replay(conn: sqlite3.Connection, snapshot: bytes, statements: list[str]) -> None:
    """Reset ``conn`` to ``snapshot`` in place and run ``statements``: the physical limit of an episode."""
    conn.deserialize(snapshot)
    for sql in statements:
        conn.execute(sql).fetchall()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", default=str(ROOT / "tasks"), help="task folder(s) root")
    parser.add_argument("--limit", type=int, default=None, help="only this many tasks, spread over families "
                        "(default: all)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget per measurement")
    parser.add_argument("--json", help="merge the figures into this JSON file")
    args = parser.parse_args()
    figures = Figures("episodes")
    run(args.tasks, args.limit, args.seconds, figures)
    figures.write(args.json)


CHUNK = 120  # tasks held in memory at once (each holds ~4 copies of its world: env, start world, snapshot, bare)


@dataclass
class Tally:
    """Per-task mean CPU seconds of each measurement, summed over chunks weighted by their size."""

    tasks: int = 0
    ours: float = 0.0  # per-episode CPU, times the chunk's task count
    ours_wall: float = 0.0
    bare: float = 0.0
    bare_wall: float = 0.0
    steps: float = 0.0
    layers: dict[str, float] = field(default_factory=dict)
    grading: list[float] = field(default_factory=list)
    fresh: list[float] = field(default_factory=list)  # grading with the text caches emptied first

    def mean(self, total: float) -> float:
        return total / self.tasks


def _sample(tasks_dir: str, limit: int | None) -> list[Task]:
    """The tasks with a reference solution, spread over families (round-robin) when limited."""
    tasks = [t for t in (load_task(p) for p in find_tasks([tasks_dir])) if t.solution is not None]
    by_family: dict[str, list[Task]] = {}
    for task in tasks:
        by_family.setdefault(task.family, []).append(task)
    sample: list[Task] = []
    limit = len(tasks) if limit is None else limit
    while len(sample) < limit and any(by_family.values()):
        for family in sorted(by_family):
            if by_family[family] and len(sample) < limit:
                sample.append(by_family[family].pop(0))
    return sample


def _repeat(seconds: float, body: Any) -> tuple[Clock, int]:
    """Run ``body()`` (one pass, returning its episode count) until ``seconds`` of wall time passed, twice at least.

    The cyclic garbage collector is emptied first: a chunk's window is short, and a full collection
    left over from loading (the chunk's tasks are all young objects) would land in whichever window
    comes next, the bare one as likely as ours.
    """
    gc.collect()
    episodes = passes = 0
    with Clock() as clock:
        while time.perf_counter() - clock._wall < seconds or passes < 2:
            episodes += body()
            passes += 1
    return clock, episodes


def _measure(chunk: list[Task], seconds: float, tally: Tally) -> None:
    """Every measurement on one chunk of tasks, added to ``tally`` (then the chunk's worlds go)."""
    envs = [OfficeEnv(task) for task in chunk]
    oracles = [OracleAgent(task) for task in chunk]
    for env, oracle in zip(envs, oracles, strict=True):  # warm-up and a sanity check: the oracle must pass
        result = play(env, oracle)
        if not result.passed:
            raise SystemExit(f"oracle fails {env.task.id}: {result.summary()}")
    pairs = list(zip(envs, oracles, strict=True))
    steps = [0]

    def episodes() -> int:
        for env, oracle in pairs:
            play(env, oracle)
            steps[0] += env.steps
        return len(pairs)

    ours, count = _repeat(seconds, episodes)
    n = len(chunk)
    tally.ours += ours.cpu / count * n
    tally.ours_wall += ours.wall / count * n
    tally.steps += steps[0] / count * n

    for env, oracle in pairs:
        play(env, oracle)
        world, answer, transcript = env.world, env.answer, env.transcript
        start_world = env.task.start_world()
        samples = []
        for _ in range(20):
            t0 = time.process_time()
            grade(env.task, start_world, world, answer, transcript, None)
            samples.append(time.process_time() - t0)
        tally.grading.append(statistics.median(samples))
        samples = []
        for _ in range(5):  # as for an answer never seen before: the caches keyed by texts emptied
            forget_texts()
            t0 = time.process_time()
            grade(env.task, start_world, world, answer, transcript, None)
            samples.append(time.process_time() - t0)
        tally.fresh.append(statistics.median(samples))

    captured = []
    for env in envs:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        snapshot = env.task.start_snapshot()
        statements = capture_sql(env)
        bare_replay(conn, snapshot, statements)  # warm: the schema parsed, as in a long episode loop
        captured.append((conn, snapshot, statements))

    def replays() -> int:
        for conn, snapshot, statements in captured:
            bare_replay(conn, snapshot, statements)
        return len(captured)

    bare, count = _repeat(seconds, replays)
    tally.bare += bare.cpu / count * n
    tally.bare_wall += bare.wall / count * n
    for layer, spent in breakdown(envs, oracles).items():
        tally.layers[layer] = tally.layers.get(layer, 0.0) + spent * n
    for conn, _, _ in captured:
        conn.close()
    tally.tasks += n


def run(tasks_dir: str, limit: int | None, seconds: float, figures: Figures) -> None:
    sample = _sample(tasks_dir, limit)
    tally = Tally()
    started = time.perf_counter()
    # In chunks, so that the whole library fits in memory: each chunk's share of the time budget.
    for at in range(0, len(sample), CHUNK):
        chunk = sample[at:at + CHUNK]
        _measure(chunk, seconds * len(chunk) / len(sample), tally)
        for task in chunk:
            task.release()
    print(f"{len(sample)} tasks from {len({t.family for t in sample})} families, measured in chunks of {CHUNK} "
          f"({time.perf_counter() - started:.1f}s in all)")
    ours_cpu, bare_cpu = tally.mean(tally.ours), tally.mean(tally.bare)
    ours_rate = 1 / ours_cpu
    print(f"oracle episodes: {ours_rate:,.0f} episodes per CPU second on one core "
          f"({tally.mean(tally.steps):.1f} steps each, CPU {fmt_ms(ours_cpu)}, wall "
          f"{fmt_ms(tally.mean(tally.ours_wall))} per episode)")
    grading_times = tally.grading
    print(f"grading alone (no judge): median {fmt_us(statistics.median(grading_times))}, "
          f"worst task {fmt_us(max(grading_times))} (target < 5 ms)")
    figures.add("grading_median", statistics.median(grading_times) * 1e6, unit="us", target="< 5 ms",
                what="grading alone, no judge (median over tasks / worst task)", ok=max(grading_times) < 5e-3,
                shown=f"{fmt_us(statistics.median(grading_times))} / {fmt_us(max(grading_times))}")
    fresh = tally.fresh
    print(f"grading alone, texts never seen (the text caches emptied before each; an oracle repeats its texts, "
          f"an RL policy rarely does): median {fmt_us(statistics.median(fresh))}, "
          f"mean {fmt_us(statistics.mean(fresh))}, "
          f"worst task {fmt_us(max(fresh))}; mean with warm caches {fmt_us(statistics.mean(grading_times))}")
    figures.add("grading_fresh_texts", statistics.mean(fresh) * 1e6, unit="us",
                what="grading alone, texts never seen (text caches emptied): mean / median / worst task",
                shown=f"{fmt_us(statistics.mean(fresh))} / {fmt_us(statistics.median(fresh))} / {fmt_us(max(fresh))} "
                f"(warm: mean {fmt_us(statistics.mean(grading_times))})")
    ratio = ours_cpu / bare_cpu
    print(f"bare in-place sqlite3 replay of the same SQL (no validation, JSON or grading): {1 / bare_cpu:,.0f} "
          f"episodes per CPU second (CPU {fmt_ms(bare_cpu)}, wall {fmt_ms(tally.mean(tally.bare_wall))} per episode)")
    print(f"ratio: an officesim oracle episode takes {ratio:.2f}x the bare replay's CPU time "
          f"(validation, JSON results, transcript and grading included; target within 2x)")
    layers = {layer: tally.mean(spent) for layer, spent in tally.layers.items()}
    total = sum(layers.values())
    print("where an episode's CPU goes (wrapped calls, so a little slower than above): " + ", ".join(
        f"{layer} {fmt_ms(spent)} ({spent / total:.0%})" for layer, spent in layers.items())
        + f"; the bare replay's SQL and deserialize: {fmt_ms(bare_cpu)}")
    # What the ratio is made of: grading has no counterpart in the bare replay (it reads the end
    # state and the texts, which no tool call does), so the tool path alone is shown beside it.
    without_grading = ours_cpu * (1 - layers["grading"] / total)
    print(f"without grading (reset, validation, tools, transcript, the loop): {fmt_ms(without_grading)} per episode, "
          f"{without_grading / bare_cpu:.2f}x the bare replay; grading adds {layers['grading'] / total:.0%} of an "
          "episode on its own")
    figures.add("episode_without_grading_vs_bare", without_grading / bare_cpu, unit="x",
                what="oracle episode without its grading / bare in-place SQL replay (CPU)",
                shown=f"{fmt_ms(without_grading)} vs {fmt_ms(bare_cpu)} ({without_grading / bare_cpu:.2f}x; grading "
                f"{layers['grading'] / total:.0%} of an episode)")
    figures.add("episode_rate", ours_rate, unit="episodes/s", what=f"oracle episodes per CPU second, "
                f"{len(sample)} tasks", shown=f"{ours_rate:,.0f} episodes/s ({fmt_ms(ours_cpu)} CPU each)")
    figures.add("episode_vs_bare", ratio, unit="x", what="oracle episode / bare in-place SQL replay (CPU)",
                target="<= 2x", ok=ratio <= 2, shown=f"{fmt_ms(ours_cpu)} vs {fmt_ms(bare_cpu)} ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
