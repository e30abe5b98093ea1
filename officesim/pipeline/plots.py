"""The delivery's charts, byte-stable for the same inputs.

Each chart is drawn on a bare ``matplotlib.figure.Figure`` (the Agg renderer; no pyplot, so no
global backend or figure registry) and saved without the software metadata PNG writers add, so
two builds of the same delivery hash the same.  The viewer shows the same files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from officesim.pipeline.metrics import Summary

DIFFICULTIES = ("easy", "medium", "hard")
DECISIONS = ("keep", "drop", "inspect", "remove")
COLOURS = {"easy": "#6baed6", "medium": "#fd8d3c", "hard": "#756bb1",
           "keep": "#31a354", "drop": "#969696", "inspect": "#fdae6b", "remove": "#de2d26"}


def _save(figure: Figure, path: Path | IO[bytes]) -> None:
    figure.tight_layout()
    figure.savefig(path, format="png", metadata={"Software": None})


def pass_rate_per_category(path: Path | IO[bytes], summary: Summary, title: str) -> None:
    """pass@1 per category with its 95% interval (horizontal bars, one per category)."""
    groups = [*summary.categories.values(), summary.overall]
    figure = Figure(figsize=(7, 0.32 * len(groups) + 1.2), dpi=100)
    axes = figure.subplots()
    names = [g.name for g in groups]
    rates = [g.pass1 or 0.0 for g in groups]
    low = [max(0.0, r - g.pass1_ci[0]) for r, g in zip(rates, groups, strict=True)]
    high = [max(0.0, g.pass1_ci[1] - r) for r, g in zip(rates, groups, strict=True)]
    positions = list(range(len(groups)))[::-1]
    axes.barh(positions, rates, color="#6baed6", xerr=[low, high], ecolor="#333333", capsize=2)
    axes.set_yticks(positions, names, fontsize=7)
    axes.set_xlim(0, 1)
    axes.xaxis.set_major_formatter(PercentFormatter(1.0))
    axes.set_xlabel("pass@1 (bars: 95% interval)")
    axes.set_title(title, fontsize=9)
    _save(figure, path)


def score_per_family(path: Path, scores: Mapping[str, Sequence[float]], probe_best: Mapping[str, float],
                     title: str, oracle_rate: Mapping[str, float] | None = None) -> None:
    """The baseline's attempt scores per family (box plots), the highest probe score (a red x) and the
    share of oracle attempts that passed (a green circle), so a floor and a ceiling frame the baseline."""
    families = sorted(set(scores) | set(probe_best))
    figure = Figure(figsize=(7, 0.3 * len(families) + 1.4), dpi=100)
    axes = figure.subplots()
    positions = list(range(1, len(families) + 1))[::-1]
    data = [list(scores.get(f, [])) or [0.0] for f in families]
    axes.boxplot(data, positions=positions, orientation="horizontal", widths=0.6, showfliers=True)
    axes.scatter([probe_best.get(f, 0.0) for f in families], positions, marker="x", color="#de2d26",
                 label="highest probe score", zorder=3)
    if oracle_rate:
        axes.scatter([oracle_rate.get(f, 0.0) for f in families], positions, marker="o", facecolors="none",
                     edgecolors="#31a354", label="oracle pass rate", zorder=3)
    axes.set_yticks(positions, families, fontsize=7)
    axes.set_xlim(-0.02, 1.02)
    axes.set_xlabel("score per attempt")
    axes.legend(fontsize=7, frameon=False, loc="lower right")
    axes.set_title(title, fontsize=9)
    _save(figure, path)


def difficulty_features(path: Path, summary: Summary, features: Mapping[str, Mapping[str, Any]], title: str) -> None:
    """pass@1 against the declared difficulty and against the reference solution's length."""
    figure = Figure(figsize=(8, 3.4), dpi=100)
    left, right = figure.subplots(1, 2)
    by_difficulty = [summary.difficulties[d] for d in DIFFICULTIES if d in summary.difficulties]
    rates = [g.pass1 or 0.0 for g in by_difficulty]
    errors = [[max(0.0, r - g.pass1_ci[0]) for r, g in zip(rates, by_difficulty, strict=True)],
              [max(0.0, g.pass1_ci[1] - r) for r, g in zip(rates, by_difficulty, strict=True)]]
    left.bar([g.name for g in by_difficulty], rates, yerr=errors, capsize=3,
             color=[COLOURS.get(g.name, "#999999") for g in by_difficulty])
    left.set_ylim(0, 1)
    left.yaxis.set_major_formatter(PercentFormatter(1.0))
    left.set_ylabel("pass@1")
    left.set_title("by declared difficulty", fontsize=8)
    for difficulty in DIFFICULTIES:
        points = [(features[t]["solution_steps"], s.pass1) for t, s in sorted(summary.tasks.items())
                  if t in features and s.pass1 is not None and features[t].get("difficulty") == difficulty]
        if points:
            left_x, left_y = zip(*points, strict=True)
            right.scatter(left_x, left_y, s=12, alpha=0.6, color=COLOURS[difficulty], label=difficulty)
    right.set_ylim(-0.05, 1.05)
    right.yaxis.set_major_formatter(PercentFormatter(1.0))
    right.xaxis.set_major_locator(MaxNLocator(integer=True))
    right.set_xlabel("tool calls in the reference solution")
    right.set_title("by solution length", fontsize=8)
    right.legend(fontsize=7, frameon=False)
    figure.suptitle(title, fontsize=9)
    _save(figure, path)


def calibration_per_family(path: Path, decisions: Mapping[str, str], families: Mapping[str, str], title: str) -> None:
    """keep / drop / inspect / remove per family (stacked horizontal bars of task counts)."""
    counts: dict[str, Counter[str]] = {}
    for task, decision in decisions.items():
        counts.setdefault(families.get(task, "(unknown)"), Counter())[decision] += 1
    names = sorted(counts)
    figure = Figure(figsize=(7, 0.3 * len(names) + 1.4), dpi=100)
    axes = figure.subplots()
    positions = list(range(len(names)))[::-1]
    left = [0] * len(names)
    for decision in DECISIONS:
        values = [counts[n][decision] for n in names]
        if any(values):
            axes.barh(positions, values, left=left, color=COLOURS[decision], label=decision)
            left = [a + b for a, b in zip(left, values, strict=True)]
    axes.set_yticks(positions, names, fontsize=7)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("tasks")
    axes.legend(fontsize=7, frameon=False, ncols=4, loc="lower right")
    axes.set_title(title, fontsize=9)
    _save(figure, path)


def histogram_by_difficulty(path: Path, summary: Summary, meta: Mapping[str, Mapping[str, Any]], title: str) -> None:
    """A stacked histogram of per-task pass@1 by difficulty."""
    series: list[list[float]] = []
    labels: list[str] = []
    for difficulty in DIFFICULTIES:
        rates = [summary.tasks[t].pass1 for t, m in sorted(meta.items())
                 if m.get("difficulty") == difficulty and t in summary.tasks]
        values = [rate for rate in rates if rate is not None]
        series.append(values)
        labels.append(f"{difficulty} ({len(values)})")
    figure = Figure(figsize=(7, 3.6), dpi=100)
    axes = figure.subplots()
    axes.hist(series, bins=[i / 10 for i in range(11)], stacked=True, label=labels,
              color=[COLOURS[d] for d in DIFFICULTIES], edgecolor="white")
    axes.set_xlabel("pass@1 per task")
    axes.set_ylabel("tasks")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlim(0, 1)
    axes.set_title(title, fontsize=9)
    axes.legend(fontsize=8, frameon=False)
    _save(figure, path)
