"""How hard the library is, measured: per family and difficulty, what the reference solution needs.

A task every policy passes, or every policy fails, teaches nothing, and "hard" must mean more than
the label.  ``officesim tasks stats`` plays each task's reference solution and counts what it took:
tool calls, bytes of tool results read, apps touched; and from the task files the traps the grader
knows (every wrong reading a fact lists, every entity that must stay out of the answer, every
collateral record a guard protects), the colleagues the agent must deal with and the distinct
instruction texts (instances that only swap names share a text skeleton).  Revisions are an episode
option (``reset(options={"revisions": k})``), so every task allows them; the column says so.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from officesim.env import OfficeEnv
from officesim.task import Task

_DIGITS_AND_NAMES = re.compile(r"[\d$€£₹,.]+|'[^']*'|\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")


@dataclass(frozen=True)
class TaskStats:
    """What one task's reference solution needed, and what its files say about it."""

    task_id: str
    family: str
    difficulty: str
    group: str
    calls: int
    bytes_read: int
    apps: int
    traps: int
    colleagues: int
    skeleton: str


def _traps(task: Task) -> int:
    """The traps the task declares (``traps:`` in ``task.yaml``, one line each); for a task that
    declares none, what its grader guards: wrong readings a fact lists and entities that must stay
    out of the answer."""
    if task.spec.traps:
        return len(task.spec.traps)
    grader = task.grader
    facts = getattr(grader, "facts", None)
    count = sum(len(fact.wrong) for fact in getattr(facts, "facts", []) or [])
    for section in ("gates", "criteria"):
        for check in getattr(grader, section, []) or []:
            count += len(getattr(check, "exclude", []) or [])
            count += len(getattr(check, "none_of", []) or [])
    return count


def skeleton(instruction: str) -> str:
    """The instruction with figures, quoted names and capitalised names blanked: its structure."""
    return _DIGITS_AND_NAMES.sub("_", instruction.strip())


def measure(task: Task) -> TaskStats:
    """Play the task's reference solution once and count what it read and touched."""
    calls: list[tuple[str, dict[str, Any]]] = []
    if task.solution is not None:
        calls = [(step.name, dict(step.arguments)) for step in task.solution.steps]
    env = OfficeEnv(task)
    env.reset(seed=0)
    read = 0
    apps: set[str] = set()
    for name, arguments in calls:
        obs, _, terminated, truncated, _ = env.step({"name": name, "arguments": arguments})
        read += len(json.dumps(obs["result"], ensure_ascii=False, default=str).encode())
        if "_" in name:
            apps.add(name.split("_", 1)[0])
        if terminated or truncated:
            break
    task.release()
    return TaskStats(task_id=task.id, family=task.family or "-", difficulty=task.difficulty or "-",
                     group=task.group or "-", calls=len(calls), bytes_read=read, apps=len(apps),
                     traps=_traps(task), colleagues=len(task.spec.colleagues), skeleton=skeleton(task.instruction))


def median(values: Iterable[float]) -> float:
    """The median of ``values`` (0 when there are none)."""
    values = list(values)
    return statistics.median(values) if values else 0.0


def rows(stats: list[TaskStats]) -> list[list[str]]:
    """One row per (family, difficulty): counts and medians, for ``officesim tasks stats``."""
    grouped: dict[tuple[str, str], list[TaskStats]] = defaultdict(list)
    for item in stats:
        grouped[(item.family, item.difficulty)].append(item)
    order = {"easy": 0, "medium": 1, "hard": 2}
    table = []
    for (family, difficulty), items in sorted(grouped.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 9))):
        table.append([
            family, difficulty, str(len(items)), str(len({i.group for i in items})),
            str(len({i.skeleton for i in items})),
            f"{median(i.calls for i in items):g}", f"{median(i.bytes_read for i in items) / 1024:.1f}",
            f"{median(i.apps for i in items):g}", f"{median(i.traps for i in items):g}",
            f"{median(i.colleagues for i in items):g}", "any (option)",
        ])
    return table


HEADER = ["family", "difficulty", "tasks", "groups", "texts", "ref calls", "KiB read", "apps", "traps",
          "colleagues", "revisions"]


def summary(stats: list[TaskStats]) -> dict[str, Any]:
    """Library-wide figures (for the JSON output and the closing line)."""
    hard = [s for s in stats if s.difficulty == "hard"]
    return {"tasks": len(stats), "families": len({s.family for s in stats}), "groups": len({s.group for s in stats}),
            "median_reference_calls": median(s.calls for s in stats),
            "hard_median_reference_calls": median(s.calls for s in hard),
            "hard_median_traps": median(s.traps for s in hard)}
