"""The delivery's ``report.md`` and its pass-rate chart, both byte-stable for the same inputs.

The chart is drawn on a bare ``matplotlib.figure.Figure`` (the Agg renderer; no pyplot, so no
global backend or figure registry) and saved without the software metadata PNG writers add,
so two builds of the same delivery hash the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from officesim.calibrate import Calibration, CalibrationConfig, TaskCalibration
from officesim.metrics import Summary
from officesim.split import Split, tasks_per_group

CHART = "pass_rates.png"
DIFFICULTIES = ("easy", "medium", "hard")


@dataclass
class ReportInputs:
    """Everything the report states."""

    name: str
    source: str
    found: int
    delivered: dict[str, Mapping[str, Any]]   # task id -> {category, difficulty, group}
    split: Split
    calibration: Calibration
    summary: Summary
    baseline: str                             # e.g. "random agent" or "openai (gpt-x)"
    n: int
    model_used: bool
    oracle_seeds: int
    probes: Sequence[str]
    broken: Mapping[str, str]                 # task folder -> load error
    versions: Mapping[str, Any]


def draw_chart(path: Path, summary: Summary, delivered: Mapping[str, Mapping[str, Any]], title: str) -> None:
    """A stacked histogram of per-task pass@1 by difficulty (delivered tasks only)."""
    bins = [i / 10 for i in range(11)]
    series, labels = [], []
    for difficulty in DIFFICULTIES:
        values = [summary.tasks[t].pass1 for t, meta in sorted(delivered.items())
                  if meta.get("difficulty") == difficulty and t in summary.tasks and summary.tasks[t].pass1 is not None]
        series.append(values)
        labels.append(f"{difficulty} ({len(values)})")
    figure = Figure(figsize=(7, 3.6), dpi=100)
    axes = figure.subplots()
    axes.hist(series, bins=bins, stacked=True, label=labels, color=["#6baed6", "#fd8d3c", "#756bb1"],
              edgecolor="white")
    axes.set_xlabel("baseline pass@1 per task")
    axes.set_ylabel("tasks")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlim(0, 1)
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=8, frameon=False)
    figure.tight_layout()
    figure.savefig(path, format="png", metadata={"Software": None})


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _mix_table(title: str, key: str, inputs: ReportInputs, order: Sequence[str] | None = None) -> list[str]:
    train = Counter(inputs.delivered[t][key] for t in inputs.split.train)
    held = Counter(inputs.delivered[t][key] for t in inputs.split.heldout)
    names = list(order) if order else sorted(set(train) | set(held))
    names = [n for n in names if train[n] or held[n]]
    lines = [f"| {title} | train | held-out | total |", "| --- | ---: | ---: | ---: |"]
    lines += [f"| {n} | {train[n]} | {held[n]} | {train[n] + held[n]} |" for n in names]
    total_train, total_held = sum(train.values()), sum(held.values())
    lines.append(f"| **all** | {total_train} | {total_held} | {total_train + total_held} |")
    return lines


def _method(inputs: ReportInputs, config: CalibrationConfig) -> list[str]:
    probes = ", ".join(f"`{p}`" for p in inputs.probes) or "none"
    regraded = ("the model's stored trajectories, graded again, must get the same verdict (else *flaky*; a "
                "judge criterion that disagrees with itself: *ambiguous*)" if inputs.model_used else
                "each seed grades the same trajectory anew, so a grader that is not deterministic shows as *flaky*")
    lines = [
        f"- Soundness: the reference solution (oracle) on {inputs.oracle_seeds} seed(s) must pass every time "
        f"(else *unsolvable* or *flaky*); {regraded}; the do-nothing agent and the hack probes ({probes}) "
        f"must not pass or score above {config.hack_bound:.2f} (else *hackable*).",
    ]
    if inputs.model_used:
        lines.append(f"- Difficulty: baseline **{inputs.baseline}**, n = {inputs.n} attempts per task. Tasks every "
                     f"attempt passed (pass rate >= {config.drop_above:.2f}) were dropped as too easy; tasks no "
                     f"attempt passed (<= {config.inspect_below:.2f}) were set aside for inspection.")
    else:
        lines += [
            "- **No model was used for this delivery.** The pass@1 figures below are the **random agent's** "
            f"(schema-valid random tool calls, n = {inputs.n} per task): a floor that shows no task can be "
            "passed by chance, not a measure of difficulty.",
            "- No task was dropped or set aside for difficulty: that needs a model run, e.g. "
            "`officesim deliver --agent openai --model MODEL [--base-url URL]` or "
            "`officesim deliver --runs runs/NAME` with a run made by `officesim run --agent openai`.",
        ]
    return lines


def _removed(calibration: Calibration, broken: Mapping[str, str]) -> list[str]:
    rows: list[TaskCalibration] = sorted((t for t in calibration.tasks.values() if t.decision != "keep"),
                                         key=lambda t: (t.decision, t.task))
    if not rows and not broken:
        return ["None: every task passed the checks."]
    lines = ["| task | decision | flags | reasons |", "| --- | --- | --- | --- |"]
    for t in rows:
        reasons = "; ".join(t.reasons).replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {t.task} | {t.decision} | {', '.join(t.flags) or '-'} | {reasons} |")
    for folder, error in sorted(broken.items()):
        text = error.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {folder} | remove | invalid | the task folder does not load: {text} |")
    return lines


def render_report(inputs: ReportInputs) -> str:
    """The text of ``report.md``."""
    config = inputs.calibration.config
    split, summary = inputs.split, inputs.summary
    groups = {t: str(m["group"]) for t, m in inputs.delivered.items()}
    lines = [
        f"# officesim {inputs.name}",
        "",
        f"{len(inputs.delivered)} tasks delivered: {len(split.train)} for training in `tasks/`, "
        f"{len(split.heldout)} held out in `heldout/`; {inputs.found} task folders were considered "
        f"(from `{inputs.source}`).",
        "",
        "## How the tasks were checked",
        "",
        *_method(inputs, config),
        "",
        "## Mix",
        "",
        *_mix_table("category", "category", inputs),
        "",
        *_mix_table("difficulty", "difficulty", inputs, DIFFICULTIES),
        "",
        f"## Baseline pass@1 ({inputs.baseline}, n = {inputs.n} per task)",
        "",
        "Means over delivered tasks; 95% intervals bootstrap over tasks (fixed seed). Attempts that "
        "ended in an agent error are excluded and counted.",
        "",
        "| category | tasks | pass@1 | 95% CI | mean score | errors |",
        "| --- | ---: | ---: | --- | ---: | ---: |",
    ]
    for group in [*summary.categories.values(), summary.overall]:
        name = "**overall**" if group is summary.overall else group.name
        lines.append(f"| {name} | {group.tasks} | {_pct(group.pass1)} | {_pct(group.pass1_ci[0])} - "
                     f"{_pct(group.pass1_ci[1])} | {_pct(group.mean_score)} | {group.errors} |")
    lines += [
        "",
        f"![spread of baseline pass@1 per task]({CHART})",
        "",
        "## Removed or set aside",
        "",
        *_removed(inputs.calibration, inputs.broken),
        "",
        "## Held-out split",
        "",
        f"Group-aware: near twins share a group and a group is never cut. A group is held out when the "
        f"sha256 of its label (with split seed {split.seed}) falls below the requested fraction "
        f"{split.fraction:.2f}, so its side is stable from one delivery to the next. Realised: "
        f"{len(split.heldout)} of {len(split.train) + len(split.heldout)} tasks ({100 * split.realised:.1f}%) "
        f"in {len(split.heldout_groups)} of {len(split.heldout_groups) + len(split.train_groups)} groups.",
        "",
        "Held-out groups (tasks):",
        "",
        *[f"- `{g}` ({n})" for g, n in tasks_per_group(groups, split.heldout).items()],
        "",
        "Training groups (tasks):",
        "",
        *[f"- `{g}` ({n})" for g, n in tasks_per_group(groups, split.train).items()],
        "",
        "## Versions",
        "",
        f"- officesim {inputs.versions['officesim']}, tools {inputs.versions['tools']}"
        f" (tool surface {inputs.versions.get('tool_surface', {}).get('version', 'unknown')})",
        *[f"- world `{name}`: {fp}" for name, fp in sorted(inputs.versions["worlds"].items())],
        "- per-task task and grader hashes, and the sha256 of every file: `manifest.json`",
        "",
    ]
    return "\n".join(lines)
