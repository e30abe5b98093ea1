"""Uplift: two runs of the same tasks compared task by task, with paired bootstrap intervals.

``officesim compare BEFORE AFTER`` pairs the runs by task (only tasks with graded attempts in
both count; the others are listed), computes per task pass@1, pass@k, pass^k and mean score on
each side, and reports per category and overall the mean of each side and the mean change with
a 95% interval from a bootstrap that resamples *tasks* (both sides of a task move together, so
the interval is of the paired change).  The bootstrap seed is fixed: the same runs give the
same table.  When every resample gives the same mean (one task, or every task changed by the
same amount) the bootstrap interval is a point; the table says it is degenerate rather than
certain, and for pass@1 gives instead Newcombe's interval for a difference of two rates (from
the Wilson intervals of each side's pooled attempts), which stays honest at 0/n and n/n.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from officesim.errors import OfficesimError
from officesim.pipeline.attempts import Attempt, read_attempts
from officesim.pipeline.metrics import BOOTSTRAP_SEED, task_stats, wilson_interval
from officesim.pipeline.runner import read_run_info

UPLIFT_PLOT = "uplift.png"
METRICS = ("pass@1", "pass@k", "pass^k", "mean score")


@dataclass(frozen=True)
class RunSide:
    """One run as compared: its folder, agent and attempts per task."""

    path: str
    agent: str
    n: int


@dataclass
class Row:
    """One slice (a category, or overall): per metric, before, after, change and its interval."""

    name: str
    tasks: int
    before: dict[str, float]
    after: dict[str, float]
    delta: dict[str, float]
    ci: dict[str, tuple[float, float]]
    degenerate: dict[str, bool]
    improved: int
    worse: int
    same: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "tasks": self.tasks, "before": self.before, "after": self.after,
                "delta": self.delta, "ci": {k: list(v) for k, v in self.ci.items()}, "degenerate": self.degenerate,
                "improved": self.improved, "worse": self.worse, "same": self.same}


@dataclass
class Comparison:
    """The uplift table."""

    before: RunSide
    after: RunSide
    split: str
    k: int
    rows: list[Row]
    only_before: list[str] = field(default_factory=list)
    only_after: list[str] = field(default_factory=list)

    @property
    def overall(self) -> Row:
        return self.rows[-1]

    def to_dict(self) -> dict[str, Any]:
        return {"before": vars(self.before), "after": vars(self.after), "split": self.split, "k": self.k,
                "rows": [r.to_dict() for r in self.rows], "only_before": self.only_before,
                "only_after": self.only_after, "bootstrap_seed": BOOTSTRAP_SEED}

    def table(self) -> str:
        """A fixed-width table for the terminal."""
        width = max(len("category"), *(len(r.name) for r in self.rows))
        lines = [f"uplift: {self.after.agent} ({self.after.path}) vs {self.before.agent} ({self.before.path}); "
                 f"split {self.split}; k = {self.k}; paired by task, 95% bootstrap CI over tasks (seed "
                 f"{BOOTSTRAP_SEED})",
                 f"{'category':<{width}}  tasks  {'metric':<10}  before   after   change  (95% CI)          "
                 "better/worse/same"]
        for row in self.rows:
            for metric in METRICS:
                if metric not in row.delta:
                    continue
                low, high = row.ci[metric]
                ci = f"[{100 * low:+.1f}, {100 * high:+.1f}]" + (_flag(metric) if row.degenerate[metric] else "")
                name = row.name if metric == "pass@1" else ""
                tasks = f"{row.tasks:5d}" if metric == "pass@1" else "     "
                counts = f"{row.improved}/{row.worse}/{row.same}" if metric == "pass@1" else ""
                label = _metric(metric, self.k)
                lines.append(f"{name:<{width}}  {tasks}  {label:<10}  {100 * row.before[metric]:5.1f}%"
                             f"  {100 * row.after[metric]:5.1f}%  {100 * row.delta[metric]:+6.1f}  {ci:<18}  {counts}")
        if self.only_before or self.only_after:
            lines.append(f"not paired: {len(self.only_before)} task(s) only in before, {len(self.only_after)} only "
                         "in after")
        return "\n".join(lines)

    def markdown(self, plot: str | None = None) -> str:
        """A section ready for a report."""
        o = self.overall
        lines = [
            f"## Uplift ({self.split} tasks)",
            "",
            f"*Source: before = agent `{self.before.agent}`, run folder `{self.before.path}` (n = {self.before.n}); "
            f"after = agent `{self.after.agent}`, run folder `{self.after.path}` (n = {self.after.n}).*",
            "",
            f"Overall pass@1 went from {100 * o.before['pass@1']:.1f}% to {100 * o.after['pass@1']:.1f}% "
            f"({100 * o.delta['pass@1']:+.1f} points, 95% CI {100 * o.ci['pass@1'][0]:+.1f} to "
            f"{100 * o.ci['pass@1'][1]:+.1f}{', Newcombe' if o.degenerate['pass@1'] else ''}) over {o.tasks} "
            f"tasks paired by task: {o.improved} better, {o.worse} worse, {o.same} unchanged. Intervals: bootstrap "
            f"over tasks, seed {BOOTSTRAP_SEED}; *degenerate* means every resample gave the same mean (one task, or "
            "every task changed by the same amount), not certainty; there pass@1 shows *newcombe*: Newcombe's "
            "interval for the difference of the two sides' pooled attempt rates.",
            "",
            "| category | tasks | metric | before | after | change | 95% CI |",
            "| --- | ---: | --- | ---: | ---: | ---: | --- |",
        ]
        for row in self.rows:
            for metric in METRICS:
                if metric in row.delta:
                    low, high = row.ci[metric]
                    lines.append(f"| {row.name} | {row.tasks} | {_metric(metric, self.k)} | "
                                 f"{100 * row.before[metric]:.1f}% | {100 * row.after[metric]:.1f}% | "
                                 f"{100 * row.delta[metric]:+.1f} | {100 * low:+.1f} to {100 * high:+.1f}"
                                 f"{_flag(metric) if row.degenerate[metric] else ''} |")
        if self.only_before or self.only_after:
            lines += ["", f"Not paired (left out): {len(self.only_before)} task(s) only in before, "
                          f"{len(self.only_after)} only in after."]
        if plot:
            lines += ["", f"![change in pass@1 per category]({plot})"]
        return "\n".join(lines)


def _flag(metric: str) -> str:
    """How a degenerate bootstrap is marked: pass@1 falls back to Newcombe's interval, the others say so."""
    return " newcombe" if metric == "pass@1" else " degenerate"


def _metric(metric: str, k: int) -> str:
    return metric.replace("k", str(k)) if metric in ("pass@k", "pass^k") else metric


def paired_bootstrap(deltas: Sequence[float], *, iterations: int = 2000,
                     seed: int = BOOTSTRAP_SEED) -> tuple[tuple[float, float], bool]:
    """(95% percentile interval of the mean change, whether it is degenerate)."""
    if not deltas:
        return (0.0, 0.0), True
    if len(set(deltas)) == 1:
        return (deltas[0], deltas[0]), True
    rng = random.Random(seed)
    size = len(deltas)
    means = sorted(sum(rng.choices(deltas, k=size)) / size for _ in range(iterations))
    low, high = means[math.floor(0.025 * (iterations - 1))], means[math.ceil(0.975 * (iterations - 1))]
    return (low, high), low == high


def newcombe_interval(passed_a: int, n_a: int, passed_b: int, n_b: int) -> tuple[float, float]:
    """Newcombe's 95% interval of ``b - a`` for two binomial rates (method 10, from Wilson intervals)."""
    p_a, p_b = (passed_a / n_a if n_a else 0.0), (passed_b / n_b if n_b else 0.0)
    low_a, high_a = wilson_interval(passed_a, n_a)
    low_b, high_b = wilson_interval(passed_b, n_b)
    delta = p_b - p_a
    below = math.sqrt((p_b - low_b) ** 2 + (high_a - p_a) ** 2)
    above = math.sqrt((high_b - p_b) ** 2 + (p_a - low_a) ** 2)
    return max(-1.0, delta - below), min(1.0, delta + above)


def _side(folder: Path) -> tuple[RunSide, dict[str, list[Attempt]]]:
    if not folder.is_dir():
        raise OfficesimError(f"{folder}: the run folder does not exist; pass a folder made by 'officesim run'")
    info = read_run_info(folder)
    records = read_attempts(folder)
    if info is None and not records:
        raise OfficesimError(f"{folder} is not a run folder (no run.json, no results.jsonl)")
    agent = (info or {}).get("agent") or {}
    model = (agent.get("options") or {}).get("model")
    label = f"{agent.get('name', '?')}" + (f" ({model})" if model else "")
    by_task: dict[str, list[Attempt]] = {}
    for record in records:
        by_task.setdefault(record.task, []).append(record)
    return RunSide(folder.as_posix(), label, int((info or {}).get("n", 0))), by_task


def _task_values(records: Sequence[Attempt], k: int) -> dict[str, float] | None:
    stats = task_stats("", records, (1, k))
    if not stats.n:
        return None
    values = {"pass@1": stats.pass1 or 0.0, "mean score": stats.mean_score or 0.0,
              "_n": float(stats.n), "_passed": float(stats.passed)}
    if k in stats.pass_at:
        values["pass@k"], values["pass^k"] = stats.pass_at[k], stats.pass_hat[k]
    return values


def compare_runs(before: str | Path, after: str | Path, *, only: Collection[str] | None = None,
                 split_name: str = "all", k: int | None = None) -> Comparison:
    """Compare two run folders task by task.

    Args:
        before: the run before (e.g. the base model).
        after: the run after (e.g. the trained model).
        only: compare only these task ids (a split's side); ``None``: every task.
        split_name: how ``only`` was chosen, for the table's title.
        k: k for pass@k and pass^k (default: the smaller of the two runs' attempts per task, at least 1).
    """
    side_a, tasks_a = _side(Path(before))
    side_b, tasks_b = _side(Path(after))
    if only is not None:
        tasks_a = {t: r for t, r in tasks_a.items() if t in only}
        tasks_b = {t: r for t, r in tasks_b.items() if t in only}
    counts = [len(r) for r in [*tasks_a.values(), *tasks_b.values()]]
    k = k or max(1, min(counts, default=1))
    paired: dict[str, tuple[dict[str, float], dict[str, float], str]] = {}
    for task in sorted(set(tasks_a) & set(tasks_b)):
        a, b = _task_values(tasks_a[task], k), _task_values(tasks_b[task], k)
        if a is not None and b is not None:
            category = next((r.category for r in tasks_b[task] if r.category), "(none)")
            paired[task] = (a, b, category)
    if not paired:
        raise OfficesimError(f"{before} and {after} have no graded task in common"
                             + (f" on the {split_name} split" if only is not None else ""))
    categories: dict[str, list[str]] = {}
    for task, (_, _, category) in paired.items():
        categories.setdefault(category, []).append(task)
    rows = [_row(name, ids, paired) for name, ids in sorted(categories.items())]
    rows.append(_row("overall", sorted(paired), paired))
    return Comparison(side_a, side_b, split_name, k, rows, only_before=sorted(set(tasks_a) - set(tasks_b)),
                      only_after=sorted(set(tasks_b) - set(tasks_a)))


def _row(name: str, ids: Sequence[str], paired: Mapping[str, tuple[dict[str, float], dict[str, float], str]]) -> Row:
    row = Row(name, len(ids), {}, {}, {}, {}, {}, 0, 0, 0)
    for metric in METRICS:
        pairs = [(paired[t][0][metric], paired[t][1][metric]) for t in ids
                 if metric in paired[t][0] and metric in paired[t][1]]
        if not pairs:
            continue
        deltas = [b - a for a, b in pairs]
        row.before[metric] = statistics.fmean(a for a, _ in pairs)
        row.after[metric] = statistics.fmean(b for _, b in pairs)
        row.delta[metric] = statistics.fmean(deltas)
        row.ci[metric], row.degenerate[metric] = paired_bootstrap(deltas)
        if metric == "pass@1" and row.degenerate[metric]:
            pooled = [int(sum((paired[t][0], paired[t][1])[side][key] for t in ids))
                      for side in (0, 1) for key in ("_passed", "_n")]
            row.ci[metric] = newcombe_interval(*pooled)
        if metric == "pass@1":
            row.improved = sum(d > 0 for d in deltas)
            row.worse = sum(d < 0 for d in deltas)
            row.same = sum(d == 0 for d in deltas)
    return row


def draw_uplift(path: Path, comparison: Comparison) -> None:
    """The change in pass@1 per category with its interval (horizontal bars)."""
    rows = comparison.rows
    figure = Figure(figsize=(7, 0.32 * len(rows) + 1.3), dpi=100)
    axes = figure.subplots()
    positions = list(range(len(rows)))[::-1]
    deltas = [r.delta["pass@1"] for r in rows]
    errors = [[max(0.0, d - r.ci["pass@1"][0]) for d, r in zip(deltas, rows, strict=True)],
              [max(0.0, r.ci["pass@1"][1] - d) for d, r in zip(deltas, rows, strict=True)]]
    axes.barh(positions, deltas, xerr=errors, capsize=2, ecolor="#333333",
              color=["#31a354" if d >= 0 else "#de2d26" for d in deltas])
    axes.axvline(0, color="#333333", linewidth=0.8)
    axes.set_yticks(positions, [r.name for r in rows], fontsize=7)
    axes.set_xlim(-1, 1)
    axes.xaxis.set_major_formatter(PercentFormatter(1.0))
    axes.set_xlabel("change in pass@1 (after - before; bars: 95% paired bootstrap interval)")
    axes.set_title(f"{comparison.after.agent} vs {comparison.before.agent} ({comparison.split} tasks)", fontsize=9)
    figure.tight_layout()
    figure.savefig(path, format="png", metadata={"Software": None})
