"""Behavioural regression: the same agent on the same tasks under two versions of the tool surface.

Each side is a version of the code (this checkout or a git revision) and, optionally, a drift
seed.  Both sides play the same attempts with the same seeds (``attempt_seed``), so attempt *i*
of a task on one side is paired with attempt *i* on the other; differences are taken per pair,
averaged per task, and their confidence intervals bootstrapped over tasks (the unit that varies),
as ``officesim.pipeline.metrics`` does for single runs.

An attempt whose task does not even load under a side (a reference solution or setup the new
surface rejects) counts as a failed attempt scoring 0: that is a regression a tool owner must
see.  An attempt the *agent* could not finish (API errors) has no score and its pair is dropped.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from officesim.pipeline.metrics import bootstrap_interval
from officesim.pipeline.runner import AgentSpec, attempt_seed
from officesim.task import read_yaml
from officesim.toolapi.revision import code_at, run_worker


@dataclass(frozen=True)
class Side:
    """One condition: a code version (None: this checkout) and a drift (None: the real surface)."""

    rev: str | None = None
    drift: Any = None

    def label(self) -> str:
        code = f"git:{self.rev}" if self.rev else "this checkout"
        return code if self.drift is None else f"{code} with drift {self.drift}"


@dataclass
class Delta:
    """Base and head means of a measure and the paired difference with its 95% interval."""

    base: float
    head: float
    change: float
    interval: tuple[float, float]


@dataclass
class GroupDelta:
    """Pass-rate and score changes over a set of tasks (a category, or all)."""

    name: str
    tasks: int
    attempts: int
    pass_rate: Delta
    score: Delta


@dataclass
class TaskDelta:
    """One task's paired attempts."""

    task: str
    category: str
    attempts: int
    pass_rate: Delta
    score: Delta
    notes: list[str] = field(default_factory=list)


@dataclass
class RegressReport:
    """The comparison of two sides."""

    base: str
    head: str
    agent: str
    tasks: list[TaskDelta]
    categories: list[GroupDelta]
    overall: GroupDelta
    dropped: int = 0

    def changed(self) -> list[TaskDelta]:
        return [t for t in self.tasks if t.pass_rate.change or t.score.change]

    def regressed(self) -> bool:
        """Whether the head is worse beyond doubt: the overall interval of a change lies below 0."""
        return self.overall.pass_rate.interval[1] < 0 or self.overall.score.interval[1] < 0

    def to_dict(self) -> dict[str, Any]:
        delta = lambda d: {"base": d.base, "head": d.head, "change": d.change, "interval": list(d.interval)}  # noqa: E731
        group = lambda g: {"name": g.name, "tasks": g.tasks, "attempts": g.attempts,  # noqa: E731
                           "pass_rate": delta(g.pass_rate), "score": delta(g.score)}
        return {"base": self.base, "head": self.head, "agent": self.agent, "dropped_pairs": self.dropped,
                "regressed": self.regressed(), "overall": group(self.overall),
                "categories": [group(g) for g in self.categories],
                "tasks": [{"task": t.task, "category": t.category, "attempts": t.attempts,
                           "pass_rate": delta(t.pass_rate), "score": delta(t.score), "notes": t.notes}
                          for t in self.tasks]}


# ---------------------------------------------------------------- playing both sides
def play_side(task_dirs: Sequence[Path], agent: AgentSpec, n: int, side: Side, *, repo: Path | None = None,
              workers: int = 1, base_seed: int = 0) -> list[dict[str, Any]]:
    """Every attempt of ``agent`` on the tasks under ``side``: small result records."""
    items = [{"key": f"{t.name}#{a}", "task_dir": str(t.resolve()), "attempt": a,
              "seed": attempt_seed(t.name, a, base_seed), "agent": {"name": agent.name, "options": agent.options},
              "drift": side.drift}
             for t in task_dirs for a in range(n)]
    with code_at(side.rev, repo) as root:
        return run_worker(root, {"mode": "play", "items": items, "workers": workers})


def _delta(pairs: Sequence[tuple[float, float]], differences: Sequence[float]) -> Delta:
    base = statistics.fmean(p[0] for p in pairs) if pairs else 0.0
    head = statistics.fmean(p[1] for p in pairs) if pairs else 0.0
    return Delta(base, head, head - base, bootstrap_interval(list(differences)))


def _group(name: str, tasks: Sequence[TaskDelta], pairs: Mapping[str, list[tuple[dict, dict]]]) -> GroupDelta:
    """A group's deltas: means over tasks, the interval bootstrapped over per-task paired differences."""
    def measure(key: str) -> Delta:
        per_task = [[(float(bool(a[key])) if key == "passed" else float(a[key] or 0.0),
                      float(bool(b[key])) if key == "passed" else float(b[key] or 0.0)) for a, b in pairs[t.task]]
                    for t in tasks if pairs[t.task]]
        means = [(statistics.fmean(p[0] for p in ps), statistics.fmean(p[1] for p in ps)) for ps in per_task]
        return _delta(means, [h - b for b, h in means])
    return GroupDelta(name, len(tasks), sum(len(pairs[t.task]) for t in tasks), measure("passed"), measure("score"))


def compare_sides(base: Sequence[Mapping[str, Any]], head: Sequence[Mapping[str, Any]], categories: Mapping[str, str],
                  *, base_label: str, head_label: str, agent: str) -> RegressReport:
    """Pair the two sides' attempts and summarise per task, category and overall."""
    before = {r["key"]: r for r in base}
    pairs: dict[str, list[tuple[dict, dict]]] = defaultdict(list)
    notes: dict[str, list[str]] = defaultdict(list)
    dropped = 0
    for after in head:
        first = before.get(after["key"])
        task = after["task"]
        pairs.setdefault(task, [])
        if first is None or first.get("status") == "error" or after.get("status") == "error":
            dropped += 1  # the agent failed on a side (or the attempt is missing): no paired score
            continue
        if not notes[task]:  # what each side did differently, from the first attempt
            for label, record in (("base", first), ("head", after)):
                if record.get("status") == "crash":
                    notes[task].append(f"{label}: {record.get('error')}")
                elif record.get("first_tool_error"):
                    notes[task].append(f"{label}: {record.get('tool_errors')} tool error(s), first "
                                       f"{_error_message(record['first_tool_error'])}")
                if record.get("drift"):
                    notes[task].append(f"{label} drift: " + "; ".join(
                        c for c in record["drift"] if not c.startswith("reword")))
        pairs[task].append((dict(first), dict(after)))
    tasks = []
    for task in sorted(pairs):
        scored = [(float(a.get("score") or 0.0), float(b.get("score") or 0.0)) for a, b in pairs[task]]
        passed = [(float(bool(a.get("passed"))), float(bool(b.get("passed")))) for a, b in pairs[task]]
        tasks.append(TaskDelta(task, categories.get(task, "?"), len(pairs[task]),
                               _delta(passed, [h - b for b, h in passed]), _delta(scored, [h - b for b, h in scored]),
                               notes[task]))
    by_category: dict[str, list[TaskDelta]] = defaultdict(list)
    for task_delta in tasks:
        by_category[task_delta.category].append(task_delta)
    groups = [_group(name, members, pairs) for name, members in sorted(by_category.items())]
    return RegressReport(base_label, head_label, agent, tasks, groups, _group("overall", tasks, pairs), dropped)


def _error_message(text: str) -> str:
    """The message of a tool error result as the transcript stored it."""
    try:
        return str(json.loads(text)["error"]["message"])
    except (json.JSONDecodeError, KeyError, TypeError):
        return text


def task_categories(task_dirs: Sequence[Path]) -> dict[str, str]:
    """Each task's category, read from its task.yaml (without validating it against any surface)."""
    out = {}
    for task_dir in task_dirs:
        data = read_yaml(task_dir / "task.yaml")
        out[task_dir.name] = str(data.get("category", "?")) if isinstance(data, dict) else "?"
    return out


def regress(task_dirs: Sequence[Path], agent: AgentSpec, n: int, base: Side, head: Side, *,
            repo: Path | None = None, workers: int = 1, base_seed: int = 0) -> RegressReport:
    """Play both sides and compare them."""
    first = play_side(task_dirs, agent, n, base, repo=repo, workers=workers, base_seed=base_seed)
    second = play_side(task_dirs, agent, n, head, repo=repo, workers=workers, base_seed=base_seed)
    return compare_sides(first, second, task_categories(task_dirs), base_label=base.label(),
                         head_label=head.label(), agent=agent.name)


# ---------------------------------------------------------------- rendering
def _pct(value: float) -> str:
    return f"{value * 100:5.1f}%"


def _change(delta: Delta, percent: bool) -> str:
    show = (lambda v: f"{v * 100:+.1f}pp") if percent else (lambda v: f"{v:+.3f}")
    return f"{show(delta.change)} [{show(delta.interval[0])}, {show(delta.interval[1])}]"


def _row(name: str, tasks: int, attempts: int, group: GroupDelta | TaskDelta) -> tuple[str, ...]:
    return (name, str(tasks), str(attempts), _pct(group.pass_rate.base), _pct(group.pass_rate.head),
            _change(group.pass_rate, True), f"{group.score.base:.3f}", f"{group.score.head:.3f}",
            _change(group.score, False))


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in rows]


def render(report: RegressReport, *, limit: int = 40) -> str:
    """Per category and overall, then every task whose pass rate or score moved."""
    header = ("", "tasks", "attempts", "base pass", "head pass", "change [95% CI]", "base score", "head score",
              "change [95% CI]")
    lines = [f"agent {report.agent}: base {report.base}, head {report.head}"]
    rows = [header] + [_row(g.name, g.tasks, g.attempts, g) for g in report.categories]
    rows.append(_row("overall", report.overall.tasks, report.overall.attempts, report.overall))
    lines += _table(rows)
    changed = report.changed()
    lines.append(f"{len(changed)} of {len(report.tasks)} tasks changed"
                 + (f"; {report.dropped} pairs dropped (agent errors)" if report.dropped else ""))
    if changed:
        rows = [("task", "", "attempts", "base pass", "head pass", "change [95% CI]", "base score", "head score",
                 "change [95% CI]")]
        for task in changed[:limit]:
            name, _, *cells = _row(task.task, 1, task.attempts, task)
            rows.append((name, "", *cells))
        lines += _table(rows)
        for task in changed[:limit]:
            lines += [f"  {task.task}: {note[:400]}" for note in task.notes]
        if len(changed) > limit:
            lines.append(f"  ... and {len(changed) - limit} more (--json lists all)")
    verdict = "REGRESSION: the head is worse beyond the 95% interval" if report.regressed() else \
        "no significant regression overall"
    lines.append(verdict)
    return "\n".join(lines)
