"""Reset stress: many episodes of random read/write calls with in-place resets in between.

Run as ``python -m officesim.testing.stress [--episodes N] [--seed S]``; the test suite runs it in
a subprocess (under ``MALLOC_PERTURB_``, which makes use-after-free crash instead of pass by luck),
so a segfault shows up as the child's exit status instead of killing pytest.  Every call goes
through the tool door (``World.call``, what ``OfficeEnv.step`` runs), drawn from every tool of the
registry with schema-valid random arguments on a shipped task's world; the calls that read
labels (the ``json_each`` queries that crashed on SQLite 3.40.1) are drawn far more often.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from officesim.agents.random_agent import SchemaSampler, _collect_strings
from officesim.env import OfficeEnv
from officesim.task import load_task
from officesim.toolexport import export_tools

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TASK = ROOT / "tasks" / "chase-overdue-invoices-001"
# The calls that used json_each, and what makes labels to read.
HOT = ("mail_list_folders", "mail_search_messages", "mail_label_message")


def run(task_dir: Path, episodes: int, seed: int, calls_per_episode: int) -> tuple[int, int]:
    """Play ``episodes`` random episodes; returns (episodes, calls) played."""
    rng = random.Random(seed)
    env = OfficeEnv(load_task(task_dir))
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in export_tools()}
    names = sorted(tools)
    pool: list[str] = ["follow-up", "inbox", "invoice", "Customers"]
    sampler = SchemaSampler(rng, pool)
    calls = 0
    for episode in range(episodes):
        env.reset(seed=episode)  # in place: the reset that crashed
        world = env.world
        if world is None:
            raise RuntimeError("OfficeEnv.reset left no world")
        for _ in range(rng.randint(1, calls_per_episode)):
            name = rng.choice(HOT) if rng.random() < 0.5 else rng.choice(names)
            arguments = sampler.value(tools[name])
            if name == "mail_search_messages" and rng.random() < 0.7:
                arguments["label"] = rng.choice(pool[:4])
            result = world.call(name, arguments)
            _collect_strings(result, pool)
            calls += 1
    return episodes, calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", type=Path, default=DEFAULT_TASK)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=6, help="at most this many calls per episode")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    episodes, calls = run(args.task, args.episodes, args.seed, args.calls)
    print(f"stress: {episodes} episodes, {calls} calls, {time.perf_counter() - start:.1f} s, no crash")
    return 0


if __name__ == "__main__":
    sys.exit(main())
