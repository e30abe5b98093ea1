"""What the delivery's records establish, computed once so report, manifest and stdout agree.

Pure functions over attempt records and task metadata: the reference solution and the probes
per family, the judge's status per criterion, and how the held-out split covers categories,
families and worlds.  The report prints these; the manifest stores them; tests compare both.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from officesim.pipeline.attempts import Attempt, as_attempts
from officesim.pipeline.split import Split
from officesim.task import Task

VERDICTS = ("pass", "fail", "error", "unjudged")


# ------------------------------------------------------------------ soundness per family
@dataclass
class FamilySoundness:
    """The oracle and the probes on one family's tasks."""

    family: str
    tasks: int
    oracle_attempts: int = 0
    oracle_passed: int = 0
    probe_attempts: int = 0
    probe_passed: int = 0
    best_probe: float = 0.0
    best_probe_agent: str = "-"
    best_probe_task: str = "-"
    hackable: int = 0


def soundness_by_family(families: Mapping[str, str], soundness: Mapping[str, Sequence[Attempt | Mapping[str, Any]]],
                        hackable: Sequence[str] = ()) -> dict[str, FamilySoundness]:
    """Per family: oracle passes of attempts, probe attempts and passes, the highest probe score and who got it."""
    out = {f: FamilySoundness(f, n) for f, n in sorted(Counter(families.values()).items())}
    for agent, records in sorted(soundness.items()):
        for record in as_attempts(records):
            family = families.get(record.task)
            if family is None or not record.graded:
                continue
            row = out[family]
            if agent == "oracle":
                row.oracle_attempts += 1
                row.oracle_passed += bool(record.passed)
                continue
            row.probe_attempts += 1
            row.probe_passed += bool(record.passed)
            score = record.score_or_zero
            if score > row.best_probe or row.best_probe_agent == "-":
                row.best_probe, row.best_probe_agent, row.best_probe_task = score, agent, record.task
    for task in hackable:
        if task in families:
            out[families[task]].hackable += 1
    return out


# ------------------------------------------------------------------ the judge
@dataclass
class JudgeCriterion:
    """One judge gate or criterion and the verdicts it got across the attempts recorded."""

    task: str
    id: str
    role: str
    points: float | None
    rubric: str
    share: float                       # its share of the task's positive points (0 for a gate)
    verdicts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    cached: int = 0

    @property
    def status(self) -> str:
        """One word: judged / unjudged / errored / mixed / not graded."""
        seen = {k for k, v in self.verdicts.items() if v}
        if not seen:
            return "not graded"
        if seen <= {"pass", "fail"}:
            return "judged"
        if seen == {"unjudged"}:
            return "unjudged"
        if seen == {"error"}:
            return "errored"
        return "mixed"


def judge_criteria(tasks: Mapping[str, Task]) -> list[JudgeCriterion]:
    """Every judge check of ``tasks`` (gates and criteria), with its share of the task's points."""
    found = []
    for task_id, task in sorted(tasks.items()):
        positive = sum(c.points or 0.0 for c in task.grader.criteria if (c.points or 0) > 0)
        for role, checks in (("gate", task.grader.gates), ("criterion", task.grader.criteria)):
            for check in checks:
                if check.check != "judge":
                    continue
                points = check.points if role == "criterion" else None
                rubric = getattr(check, "rubric", None) or "inline prompt"
                share = (points or 0) / positive if positive and (points or 0) > 0 else 0.0
                found.append(JudgeCriterion(task_id, check.id, role, points, str(rubric), share))
    return found


def tally_judge(criteria: Sequence[JudgeCriterion], records: Sequence[Attempt | Mapping[str, Any]]) -> None:
    """Count each criterion's verdicts (and cache hits) over the grades in ``records``."""
    index = {(c.task, c.id): c for c in criteria}
    for record in as_attempts(records):
        grade = record.grade or {}
        for item in [*grade.get("gates", []), *grade.get("criteria", [])]:
            entry = index.get((record.task, item.get("id")))
            if entry is None:
                continue
            status = item.get("status")
            entry.verdicts[status if status in VERDICTS else "error"] += 1
            if isinstance(item.get("evidence"), dict) and item["evidence"].get("cached"):
                entry.cached += 1


def judge_summary(criteria: Sequence[JudgeCriterion], judge: Mapping[str, Any] | None) -> dict[str, Any]:
    """Totals for the manifest and the report's first line on the judge."""
    verdicts: Counter[str] = Counter()
    for c in criteria:
        verdicts.update(c.verdicts)
    return {
        "configured": dict(judge) if judge else None,
        "tasks": len({c.task for c in criteria}),
        "criteria": len(criteria),
        "verdicts": {k: verdicts.get(k, 0) for k in VERDICTS},
        "cached": sum(c.cached for c in criteria),
        "status": dict(sorted(Counter(c.status for c in criteria).items())),
    }


# ------------------------------------------------------------------ held-out coverage
@dataclass
class Coverage:
    """Train and held-out task counts per value of one attribute."""

    attribute: str
    cells: dict[str, tuple[int, int]]  # value -> (train, heldout)

    def empty(self) -> list[str]:
        """Values with no held-out task."""
        return [v for v, (_, held) in self.cells.items() if held == 0]

    def to_dict(self) -> dict[str, Any]:
        return {"cells": {v: {"train": t, "heldout": h} for v, (t, h) in self.cells.items()}, "empty": self.empty()}


def coverage(meta: Mapping[str, Mapping[str, Any]], split: Split, attribute: str) -> Coverage:
    """How the split covers ``attribute`` (category, family, world) of the delivered tasks."""
    train = Counter(str(meta[t][attribute]) for t in split.train)
    held = Counter(str(meta[t][attribute]) for t in split.heldout)
    return Coverage(attribute, {v: (train[v], held[v]) for v in sorted(set(train) | set(held))})


def as_dicts(rows: Mapping[str, Any] | Sequence[Any]) -> Any:
    """Dataclass rows as plain dicts (for JSON)."""
    if isinstance(rows, Mapping):
        return {k: asdict(v) for k, v in rows.items()}
    return [asdict(v) for v in rows]
