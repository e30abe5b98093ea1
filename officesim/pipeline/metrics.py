"""Pass rates from attempt records: pass@1, unbiased pass@k, pass^k and mean score, with intervals.

Definitions (per task, over its ``n`` graded attempts of which ``c`` passed):

* ``pass@k`` = 1 - C(n-c, k) / C(n, k): the chance that at least one of k attempts drawn without
  replacement passes (the unbiased estimator from the Codex paper; pass@1 = c / n).
* ``pass^k`` = C(c, k) / C(n, k): the chance that k attempts *all* pass (reliability, as in
  tau-bench).
* mean score: the mean rubric score.

Attempts whose status is ``error`` (the agent or its API failed, not the task) are excluded from
every rate and counted separately: an outage must never read as a weak model.  Per-task rates get
Wilson intervals; aggregates (per category, per difficulty, overall) are means over tasks with a
bootstrap interval that resamples *tasks* with a fixed seed, so the same records always give the
same report.  A bootstrap over few tasks, or over tasks that all have the same rate (every task
0 of 8), collapses to a point that reads as certainty; such a slice reports the Wilson interval
of its pooled attempts instead, and says so (``pass1_ci_method``).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from officesim.pipeline.attempts import Attempt, as_attempts

Z95 = 1.959963984540054
BOOTSTRAP_SEED = 20240501
MIN_BOOTSTRAP_TASKS = 5   # fewer tasks than this: the pooled attempts' Wilson interval


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task: 1 - C(n-c, k) / C(n, k)."""
    _check_counts(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k for one task: the chance that k attempts drawn from the n all pass, C(c, k) / C(n, k)."""
    _check_counts(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check_counts(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n:
        raise ValueError(f"passes c={c} must be between 0 and attempts n={n}")
    if not 1 <= k <= n:
        raise ValueError(f"k={k} must be between 1 and the number of attempts n={n}")


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial rate (sound at 0/n and n/n, unlike the normal one)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bootstrap_interval(
    values: Sequence[float], *, iterations: int = 2000, seed: int = BOOTSTRAP_SEED, level: float = 0.95
) -> tuple[float, float]:
    """A percentile bootstrap interval of the mean of ``values`` (one value per task)."""
    if not values:
        return (0.0, 1.0)
    if len(values) == 1:
        return (values[0], values[0])
    size = len(values)
    if len(set(values)) == 1:  # every resample is the sample itself: its mean is the interval (no draws)
        mean = sum(values) / size
        return (mean, mean)
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(values, k=size)) / size for _ in range(iterations))
    tail = (1 - level) / 2
    low = means[math.floor(tail * (iterations - 1))]
    high = means[math.ceil((1 - tail) * (iterations - 1))]
    return (low, high)


@dataclass
class TaskStats:
    """One task's attempts: counts, rates and the Wilson interval of pass@1."""

    task: str
    category: str | None
    difficulty: str | None
    n: int
    passed: int
    errors: int
    truncated: int
    mean_score: float | None
    pass_at: dict[int, float] = field(default_factory=dict)
    pass_hat: dict[int, float] = field(default_factory=dict)
    pass1_ci: tuple[float, float] = (0.0, 1.0)

    @property
    def pass1(self) -> float | None:
        """pass@1 (c / n), or None when the task has no graded attempt."""
        return self.passed / self.n if self.n else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task, "category": self.category, "difficulty": self.difficulty,
            "n": self.n, "passed": self.passed, "errors": self.errors, "truncated": self.truncated,
            "pass@1": self.pass1, "pass@1_ci": list(self.pass1_ci), "mean_score": self.mean_score,
            "pass@k": {str(k): v for k, v in self.pass_at.items()},
            "pass^k": {str(k): v for k, v in self.pass_hat.items()},
        }


@dataclass
class GroupStats:
    """Means over the tasks of one slice (a category, a difficulty, or everything)."""

    name: str
    tasks: int
    attempts: int
    errors: int
    pass1: float | None
    pass1_ci: tuple[float, float]
    mean_score: float | None
    mean_score_ci: tuple[float, float]
    pass_at: dict[int, float]
    pass_hat: dict[int, float]
    passed: int = 0
    pass1_ci_method: str = "bootstrap over tasks"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "tasks": self.tasks, "attempts": self.attempts, "errors": self.errors,
            "passed": self.passed, "pass@1": self.pass1, "pass@1_ci": list(self.pass1_ci),
            "pass@1_ci_method": self.pass1_ci_method,
            "mean_score": self.mean_score, "mean_score_ci": list(self.mean_score_ci),
            "pass@k": {str(k): v for k, v in self.pass_at.items()},
            "pass^k": {str(k): v for k, v in self.pass_hat.items()},
        }


@dataclass
class Summary:
    """Everything: per task, per category, per difficulty and overall."""

    tasks: dict[str, TaskStats]
    categories: dict[str, GroupStats]
    difficulties: dict[str, GroupStats]
    overall: GroupStats
    ks: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ks": list(self.ks),
            "overall": self.overall.to_dict(),
            "categories": {k: v.to_dict() for k, v in self.categories.items()},
            "difficulties": {k: v.to_dict() for k, v in self.difficulties.items()},
            "tasks": {k: v.to_dict() for k, v in self.tasks.items()},
        }


def task_stats(task: str, records: Iterable[Attempt | Mapping[str, Any]], ks: Sequence[int] = (1,),
               meta: Mapping[str, Any] | None = None) -> TaskStats:
    """Stats of one task's attempts; ``pass@k``/``pass^k`` only for k up to its n."""
    attempts = as_attempts(records)
    graded = [a for a in attempts if a.graded]
    n = len(graded)
    c = sum(1 for a in graded if a.passed)
    scores = [a.score for a in graded if a.score is not None]
    meta = meta or {}
    first = attempts[0] if attempts else None
    stats = TaskStats(
        task=task,
        category=meta.get("category", first.category if first else None),
        difficulty=meta.get("difficulty", first.difficulty if first else None),
        n=n, passed=c, errors=len(attempts) - n,
        truncated=sum(1 for a in graded if a.status == "truncated"),
        mean_score=statistics.fmean(scores) if scores else None,
        pass1_ci=wilson_interval(c, n),
    )
    for k in ks:
        if 1 <= k <= n:
            stats.pass_at[k] = pass_at_k(n, c, k)
            stats.pass_hat[k] = pass_hat_k(n, c, k)
    return stats


def group_stats(name: str, tasks: Sequence[TaskStats], ks: Sequence[int] = (1,),
                seed: int = BOOTSTRAP_SEED) -> GroupStats:
    """Means over tasks with a bootstrap interval over tasks (tasks without graded attempts skipped)."""
    graded = [t for t in tasks if t.n]
    pass1 = [t.pass1 for t in graded if t.pass1 is not None]
    scores = [t.mean_score for t in graded if t.mean_score is not None]
    attempts, passed = sum(t.n for t in tasks), sum(t.passed for t in tasks)
    # Resampling few tasks, or tasks that all have one rate, gives a point interval that would
    # read as certainty; the Wilson interval of the pooled attempts is the honest one there.
    degenerate = len(graded) < MIN_BOOTSTRAP_TASKS or len(set(pass1)) <= 1
    return GroupStats(
        name=name, tasks=len(tasks), attempts=attempts, errors=sum(t.errors for t in tasks),
        pass1=statistics.fmean(pass1) if pass1 else None,
        pass1_ci=wilson_interval(passed, attempts) if degenerate else bootstrap_interval(pass1, seed=seed),
        passed=passed,
        pass1_ci_method=f"Wilson on {attempts} pooled attempts" if degenerate else "bootstrap over tasks",
        mean_score=statistics.fmean(scores) if scores else None,
        mean_score_ci=bootstrap_interval(scores, seed=seed),
        # pass@k over a slice is defined only on the tasks that have at least k attempts.
        pass_at={k: statistics.fmean(v) for k in ks
                 if (v := [t.pass_at[k] for t in graded if k in t.pass_at])},
        pass_hat={k: statistics.fmean(v) for k in ks
                  if (v := [t.pass_hat[k] for t in graded if k in t.pass_hat])},
    )


def summarize(records: Iterable[Attempt | Mapping[str, Any]], ks: Sequence[int] = (1, 5, 10),
              task_meta: Mapping[str, Mapping[str, Any]] | None = None) -> Summary:
    """Per task, per category, per difficulty and overall stats of attempt records.

    Args:
        records: attempts (or their result lines: ``task``, ``attempt``, ``status``, ``passed``,
            ``score``, optional ``category``/``difficulty``).
        ks: the k values for pass@k and pass^k.
        task_meta: per task id, ``category``/``difficulty`` overriding what records carry.
    """
    by_task: dict[str, list[Attempt]] = {}
    for attempt in as_attempts(records):
        by_task.setdefault(attempt.task, []).append(attempt)
    task_meta = task_meta or {}
    tasks = {t: task_stats(t, rs, ks, task_meta.get(t)) for t, rs in sorted(by_task.items())}
    categories: dict[str, list[TaskStats]] = {}
    difficulties: dict[str, list[TaskStats]] = {}
    for stats in tasks.values():
        categories.setdefault(stats.category or "(none)", []).append(stats)
        difficulties.setdefault(stats.difficulty or "(none)", []).append(stats)
    return Summary(
        tasks=tasks,
        categories={k: group_stats(k, v, ks) for k, v in sorted(categories.items())},
        difficulties={k: group_stats(k, v, ks) for k, v in sorted(difficulties.items())},
        overall=group_stats("overall", list(tasks.values()), ks),
        ks=tuple(ks),
    )


def _pct(value: float | None) -> str:
    return "   -  " if value is None else f"{100 * value:5.1f}%"


def format_groups(groups: Iterable[GroupStats], title: str) -> str:
    """A fixed-width table of slices: tasks, attempts, errors, pass@1 with its interval, score."""
    groups = list(groups)
    width = max([len(title), *(len(g.name) for g in groups)])
    lines = [f"{title:<{width}}  tasks  attempts  errors  pass@1  (95% CI)         score"]
    for g in groups:
        ci = f"[{_pct(g.pass1_ci[0]).strip()}, {_pct(g.pass1_ci[1]).strip()}]"
        lines.append(f"{g.name:<{width}}  {g.tasks:5d}  {g.attempts:8d}  {g.errors:6d}  {_pct(g.pass1)}  "
                     f"{ci:<15}  {_pct(g.mean_score)}")
    return "\n".join(lines)
