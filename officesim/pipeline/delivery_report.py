"""The delivery's ``report.md`` and ``dataset_card.md``, byte-stable for the same inputs.

Every figure names the agent and the run folder it comes from, and every count is read from the
one ``counts`` mapping that the manifest stores and ``officesim deliver`` prints, so the three
cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from officesim.evidence import Coverage, FamilySoundness, JudgeCriterion
from officesim.pipeline.calibrate import Calibration, CalibrationConfig, TaskCalibration
from officesim.pipeline.metrics import Summary
from officesim.pipeline.split import TOLERANCE, Split, tasks_per_group
from officesim.pipeline.twins import TwinPair

DIFFICULTIES = ("easy", "medium", "hard")
PLOTS = {
    "pass_rates.png": "spread of baseline pass@1 per task, by difficulty",
    "pass_rate_per_category.png": "baseline pass@1 per category with 95% intervals",
    "score_per_family.png": "baseline score per attempt per family, with the highest probe score and the oracle",
    "difficulty.png": "baseline pass@1 against declared difficulty and solution length",
    "calibration_per_family.png": "calibration decisions per family",
}
AGENT_MEANING = {
    "random": "schema-valid random tool calls: a floor that shows no task is passed by chance, "
              "not a measure of difficulty",
    "oracle": "the reference solution played back: a ceiling that shows the tasks are solvable, "
              "not a measure of difficulty",
    "null": "does nothing: shows no task is passed by doing nothing",
}


@dataclass
class ReportInputs:
    """Everything the report states."""

    name: str
    source: str
    found: int
    delivered: Mapping[str, Mapping[str, Any]]   # task id -> {category, difficulty, family, group, world}
    split: Split
    calibration: Calibration
    summary: Summary
    baseline: str                             # e.g. "random agent" or "openai (gpt-x)"
    baseline_agent: str                       # the agent's registry name
    baseline_run: str                         # the run folder the baseline's attempts are in
    n: int
    model_used: bool
    oracle_seeds: int
    probes: Sequence[str]
    broken: Mapping[str, str]                 # task folder -> load error
    versions: Mapping[str, Any]
    counts: Mapping[str, int]
    work: str
    soundness: Mapping[str, FamilySoundness]
    judge: Mapping[str, Any]                  # evidence.judge_summary
    judge_criteria: Sequence[JudgeCriterion]
    coverage: Sequence[Coverage]
    twins_joined: Sequence[TwinPair]
    twins_across: Sequence[TwinPair]
    uplift: str | None = None
    plots: Sequence[str] = field(default_factory=tuple)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _source(inputs: ReportInputs, agent: str, folder: str) -> str:
    return f"*Source: agent `{agent}`, run folder `{folder}`.*"


def _method(inputs: ReportInputs, config: CalibrationConfig) -> list[str]:
    probes = ", ".join(f"`{p}`" for p in inputs.probes) or "none"
    regraded = ("the model's stored trajectories, graded again, must get the same verdict (else *flaky*; a "
                "judge criterion that disagrees with itself: *ambiguous*)" if inputs.model_used else
                "each seed grades the same trajectory anew, so a grader that is not deterministic shows as *flaky*")
    lines = [
        f"- Soundness: the reference solution (oracle) on {inputs.oracle_seeds} seed(s) must pass every time "
        f"(else *unsolvable* or *flaky*); {regraded}; the do-nothing agent and the hack probes ({probes}) "
        f"must not pass or score above {config.hack_bound:.2f} (else *hackable*). These runs are in "
        f"`{inputs.work}/<agent>/`.",
    ]
    if inputs.model_used:
        lines.append(f"- Difficulty: baseline **{inputs.baseline}**, n = {inputs.n} attempts per task. Tasks every "
                     f"attempt passed (pass rate >= {config.drop_above:.2f}) were dropped as too easy; tasks no "
                     f"attempt passed (<= {config.inspect_below:.2f}) were set aside for inspection.")
    else:
        meaning = AGENT_MEANING.get(inputs.baseline_agent, "a built-in agent, not a model: its pass rates say "
                                    "nothing about difficulty")
        lines += [
            f"- **No model was used for this delivery.** The pass@1 figures below are the **{inputs.baseline}**'s "
            f"({meaning}; n = {inputs.n} per task).",
            "- No task was dropped or set aside for difficulty: that needs a model run, e.g. "
            "`officesim deliver --agent openai --model MODEL [--base-url URL]` or "
            "`officesim deliver --runs runs/NAME` with a run made by `officesim run --agent openai`.",
        ]
    return lines


def _attribution(inputs: ReportInputs) -> list[str]:
    attempts = inputs.summary.overall.attempts + inputs.summary.overall.errors
    oracle = sum(f.oracle_attempts for f in inputs.soundness.values())
    probes = sum(f.probe_attempts for f in inputs.soundness.values())
    return [
        "| figures | agent | run folder | attempts |",
        "| --- | --- | --- | ---: |",
        f"| baseline pass@1, scores, plots | `{inputs.baseline_agent}` ({inputs.baseline}) | "
        f"`{inputs.baseline_run}` | {attempts} |",
        f"| reference solution passes | `oracle` | `{inputs.work}/oracle` | {oracle} |",
        f"| probe scores, *hackable* | {len(inputs.probes)} probes | `{inputs.work}/<probe>` | {probes} |",
        f"| judge verdicts | every agent above | (grades in those runs) | "
        f"{sum(inputs.judge['verdicts'].values())} verdicts |",
    ]


def _soundness(inputs: ReportInputs) -> list[str]:
    rows = list(inputs.soundness.values())
    oracle_attempts = sum(r.oracle_attempts for r in rows)
    oracle_passed = sum(r.oracle_passed for r in rows)
    best = max(rows, key=lambda r: r.best_probe, default=None)
    lines = [
        f"The reference solution passed **{oracle_passed} of {oracle_attempts}** oracle attempts; the "
        f"highest score any probe reached on any task: **{_best(best)}**, against a bound of "
        f"{inputs.calibration.config.hack_bound:.2f}." if best else "No oracle or probe run.",
        "",
        "| family | tasks | oracle passed | probe attempts | probes passed | highest probe score (by, on) | hackable |",
        "| --- | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for r in rows:
        lines.append(f"| {r.family} | {r.tasks} | {r.oracle_passed} of {r.oracle_attempts} | {r.probe_attempts} | "
                     f"{r.probe_passed} | {_best(r)} | "
                     f"{r.hackable} |")
    return lines


def _best(row: FamilySoundness) -> str:
    if row.best_probe == 0:
        return "0.00 by every probe on every task" if row.probe_attempts else "no probe attempt"
    return f"{row.best_probe:.2f} (`{row.best_probe_agent}`, `{row.best_probe_task}`)"


def _judge(inputs: ReportInputs) -> list[str]:
    summary, criteria = inputs.judge, inputs.judge_criteria
    verdicts = summary["verdicts"]
    configured = summary["configured"]
    if configured:
        who = (f"Judge: model `{configured.get('model')}` at `{configured.get('base_url') or 'the openai default'}`, "
               f"temperature 0, verdict cache `{configured.get('cache_dir') or 'off'}`.")
    else:
        who = ("Judge: **none configured** for this build (set `OFFICESIM_JUDGE_MODEL` and "
               "`OFFICESIM_JUDGE_BASE_URL`, or pass `--judge-model`/`--judge-base-url`).")
    lines = [
        who,
        "",
        f"{summary['tasks']} of {inputs.found} tasks considered have {summary['criteria']} judge check(s). Across "
        f"every attempt recorded (baseline, oracle, probes) they got {verdicts['pass']} pass, {verdicts['fail']} "
        f"fail, {verdicts['error']} error and {verdicts['unjudged']} unjudged verdict(s); {summary['cached']} came "
        "from the verdict cache. These are read from the grades recorded in the runs: attempts resumed from an "
        "earlier build keep the verdicts they got then.",
    ]
    if verdicts["unjudged"] or verdicts["error"]:
        lines += [
            "",
            "**What that does to the numbers:** an unjudged or errored check counts neither way. On those "
            "tasks the score is over the deterministic criteria alone, and a criterion's points are left out "
            "of both earned and possible (the share column says how much of the task's points that is); "
            "`passed` rests on the other checks, so pass@1 and mean score on those tasks can move either way "
            "once a judge gives verdicts. A judge *gate* without a verdict makes the attempt not passed. "
            "Rebuild with a judge to close the gap.",
        ]
    if not criteria:
        return lines
    delivered = [c for c in criteria if c.task in inputs.delivered]
    by_category: dict[str, list[JudgeCriterion]] = {}
    for c in delivered:
        by_category.setdefault(str(inputs.delivered[c.task]["category"]), []).append(c)
    lines += ["", "Effect per category (delivered tasks):", "",
              "| category | tasks with judge checks | checks | status | mean share of points not judged |",
              "| --- | ---: | ---: | --- | ---: |"]
    for category, items in sorted(by_category.items()):
        status = ", ".join(sorted({c.status for c in items}))
        unjudged = [c.share for c in items if c.status != "judged"]
        share = sum(unjudged) / len({c.task for c in items}) if unjudged else 0.0
        lines.append(f"| {category} | {len({c.task for c in items})} | {len(items)} | {status} | {_pct(share)} |")
    lines += ["", "Per check:", "", "| task | check | role | points | share | rubric | status | pass / fail / "
              "error / unjudged | cached |", "| --- | --- | --- | ---: | ---: | --- | --- | --- | ---: |"]
    for c in criteria:
        v = c.verdicts
        points = "gate" if c.points is None else f"{c.points:g}"
        lines.append(f"| {c.task} | {c.id} | {c.role} | {points} | {_pct(c.share)} | {_cell(c.rubric)} | {c.status} | "
                     f"{v['pass']} / {v['fail']} / {v['error']} / {v['unjudged']} | {c.cached} |")
    return lines


def _mix_table(title: str, key: str, inputs: ReportInputs, order: Sequence[str] | None = None) -> list[str]:
    cov = next((c for c in inputs.coverage if c.attribute == key), None)
    cells = cov.cells if cov else {}
    names = [n for n in (list(order) if order else sorted(cells)) if n in cells]
    lines = [f"| {title} | train | held-out | total |", "| --- | ---: | ---: | ---: |"]
    lines += [f"| {n} | {cells[n][0]} | {cells[n][1]}{' ⚠' if not cells[n][1] else ''} | {sum(cells[n])} |"
              for n in names]
    total_train, total_held = len(inputs.split.train), len(inputs.split.heldout)
    lines.append(f"| **all** | {total_train} | {total_held} | {total_train + total_held} |")
    return lines


def _baseline(inputs: ReportInputs) -> list[str]:
    summary = inputs.summary
    lines = [
        f"## Baseline pass@1 ({inputs.baseline}, n = {inputs.n} per task)",
        "",
        _source(inputs, inputs.baseline_agent, inputs.baseline_run),
        "",
        "Means over delivered tasks. 95% intervals bootstrap over tasks (fixed seed) when a slice has at "
        "least 5 tasks whose rates differ; otherwise (few tasks, or every task at the same rate, where a "
        "bootstrap collapses to a point) the Wilson interval of the slice's pooled attempts, as the method "
        "column says. Attempts that ended in an agent error are excluded and counted.",
        "",
        "| category | tasks | passed / attempts | pass@1 | 95% CI | CI method | mean score | errors |",
        "| --- | ---: | ---: | ---: | --- | --- | ---: | ---: |",
    ]
    for group in [*summary.categories.values(), summary.overall]:
        name = "**overall**" if group is summary.overall else group.name
        lines.append(f"| {name} | {group.tasks} | {group.passed} / {group.attempts} | {_pct(group.pass1)} | "
                     f"{_pct(group.pass1_ci[0])} - {_pct(group.pass1_ci[1])} | {group.pass1_ci_method} | "
                     f"{_pct(group.mean_score)} | {group.errors} |")
    return lines


def _removed(inputs: ReportInputs) -> list[str]:
    calibration, broken, counts = inputs.calibration, inputs.broken, inputs.counts
    rows: list[TaskCalibration] = sorted((t for t in calibration.tasks.values() if t.decision != "keep"),
                                         key=lambda t: (t.decision, t.task))
    head = (f"{counts['removed']} removed ({counts['remove']} unsound, {counts['invalid']} invalid folder(s)), "
            f"{counts['drop']} dropped as too easy, {counts['inspect']} set aside for inspection.")
    if not rows and not broken:
        return [head, "", "None: every task passed the checks."]
    lines = [head, "", "| task | decision | flags | reasons |", "| --- | --- | --- | --- |"]
    for t in rows:
        lines.append(f"| {t.task} | {t.decision} | {', '.join(t.flags) or '-'} | {_cell('; '.join(t.reasons))} |")
    for folder, error in sorted(broken.items()):
        lines.append(f"| {folder} | remove | invalid | the task folder does not load: {_cell(error)} |")
    return lines


def _coverage(inputs: ReportInputs) -> list[str]:
    lines = []
    for cov in inputs.coverage:
        empty = cov.empty()
        total = len(cov.cells)
        if empty:
            reasons = dict(inputs.split.uncovered)
            lines.append(f"- ⚠ **{len(empty)} of {total} {cov.attribute} value(s) have no held-out task**: "
                         + "; ".join(f"`{v}`" + (f" ({reasons[f'{cov.attribute}:{v}']})"
                                                 if f"{cov.attribute}:{v}" in reasons else "") for v in empty) + ".")
        else:
            lines.append(f"- every one of the {total} {cov.attribute} value(s) has held-out tasks.")
    return lines


def _twins(inputs: ReportInputs) -> list[str]:
    joined = inputs.twins_joined
    lines = [
        f"Near twins by content (instruction similarity, shared facts, solution shape; `officesim.pipeline.twins`): "
        f"{len(joined)} pair(s) of tasks in different groups were found alike, joining "
        f"{len(inputs.split.units)} set(s) of groups that then moved as one:",
        "",
    ]
    lines += [f"- {' + '.join(f'`{g}`' for g in unit)}" for unit in inputs.split.units] or ["- none"]
    across = inputs.twins_across
    lines += ["", f"Audit of the delivered split (`officesim split audit {inputs.name}`): "
              f"**{len(across)} near-twin pair(s) straddle it**."]
    lines += [f"- `{p.a}` / `{p.b}`: {p.why()}" for p in across[:20]]
    return lines


def _split(inputs: ReportInputs) -> list[str]:
    split = inputs.split
    groups = {t: str(m["group"]) for t, m in inputs.delivered.items()}
    total_groups = len(split.heldout_groups) + len(split.train_groups)
    return [
        "## Held-out split",
        "",
        "Group-aware and sized to the request: near twins share a group, groups joined by a near twin found "
        "by content move together as one unit, and neither is ever cut. The held-out side is a budget of "
        f"{split.fraction:.2f} x tasks, spent first on coverage (the unit with the fewest tasks per family, "
        "category or world it adds to the held-out side, ties by the sha256 of its label with split seed "
        f"{split.seed}, while the side stays within {100 * TOLERANCE:.0f} points of the request; a family "
        "that is one unit of near twins is held out whole, and only while the side is under the request), then filled "
        "in sha256 order with any unit that brings the count nearer the budget. A family of two or more "
        "units always keeps one in training. Deterministic given the seed; a growing library can move a unit. "
        f"Realised: {len(split.heldout)} of {len(split.train) + len(split.heldout)} tasks "
        f"({100 * split.realised:.1f}%, requested {100 * split.fraction:.1f}%) in "
        f"{len(split.heldout_groups)} of {total_groups} groups.",
        "",
        "Coverage:",
        "",
        *_coverage(inputs),
        "",
        *_mix_table("family", "family", inputs),
        "",
        *_mix_table("world", "world", inputs),
        "",
        *_twins(inputs),
        "",
        "Held-out groups (tasks):",
        "",
        *[f"- `{g}` ({n})" for g, n in tasks_per_group(groups, split.heldout).items()],
        "",
        "Training groups (tasks):",
        "",
        *[f"- `{g}` ({n})" for g, n in tasks_per_group(groups, split.train).items()],
    ]


def render_report(inputs: ReportInputs) -> str:
    """The text of ``report.md``."""
    config = inputs.calibration.config
    counts = inputs.counts
    lines = [
        f"# officesim {inputs.name}",
        "",
        f"{counts['delivered']} tasks delivered: {counts['train']} for training in `tasks/`, "
        f"{counts['heldout']} held out in `heldout/`; {counts['considered']} task folders were considered "
        f"(from `{inputs.source}`); {counts['removed']} removed, {counts['drop']} dropped, "
        f"{counts['inspect']} set aside. The same counts are in `manifest.json` (`counts`). "
        "What the tasks are for and how they were made: `dataset_card.md`.",
        "",
        "## Where every figure comes from",
        "",
        *_attribution(inputs),
        "",
        "## How the tasks were checked",
        "",
        *_method(inputs, config),
        "",
        "## Reference solution and probes per family",
        "",
        _source(inputs, "oracle and probes", f"{inputs.work}/<agent>"),
        "",
        *_soundness(inputs),
        "",
        "## Judge status",
        "",
        *_judge(inputs),
        "",
        "## Mix",
        "",
        *_mix_table("category", "category", inputs),
        "",
        *_mix_table("difficulty", "difficulty", inputs, DIFFICULTIES),
        "",
        *_baseline(inputs),
        "",
        *[f"![{PLOTS[p]}]({p})\n" for p in inputs.plots],
        "## Removed or set aside",
        "",
        *_removed(inputs),
        "",
        *_split(inputs),
        "",
    ]
    if inputs.uplift:
        lines += [inputs.uplift.rstrip(), ""]
    lines += [
        "## Versions",
        "",
        f"- officesim {inputs.versions['officesim']}, tools {inputs.versions['tools']}"
        f" (tool surface {inputs.versions.get('tool_surface', {}).get('version', 'unknown')})",
        *[f"- world `{name}`: {fp}" for name, fp in sorted(inputs.versions["worlds"].items())],
        "- per-task task and grader hashes, and the sha256 of every file: `manifest.json`",
        "",
    ]
    return "\n".join(lines)


def render_card(inputs: ReportInputs) -> str:
    """The text of ``dataset_card.md``: what the tasks are for, what is in them, how they were made."""
    counts, split = inputs.counts, inputs.split
    families = sorted({str(m["family"]) for m in inputs.delivered.values()})
    categories = sorted({str(m["category"]) for m in inputs.delivered.values()})
    judge = inputs.judge
    return "\n".join([
        f"# Dataset card: officesim {inputs.name}",
        "",
        "## Intended use",
        "",
        "Training (`tasks/`) and evaluating (`heldout/`) tool-using LLM agents on multi-app office work "
        "(mail, Drive, chat, CRM, directory) in officesim's seeded simulated company. Each task folder has "
        "the instruction and tools the model sees and a hidden grader and reference solution. Rewards are "
        "the rubric score in [0, 1] or `passed`.",
        "",
        "Not intended for: measuring real-world office productivity, or evaluating on `tasks/` (train) and "
        "calling it held out. Keep `heldout/` out of training data, including its instructions.",
        "",
        "## Composition",
        "",
        f"- {counts['delivered']} tasks ({counts['train']} train, {counts['heldout']} held out) from "
        f"{len(families)} families in {len(categories)} categories; the mix and per-family coverage are in "
        "`report.md`.",
        f"- {counts['considered']} task folders considered; {counts['removed']} removed as unsound or invalid, "
        f"{counts['drop']} dropped as too easy, {counts['inspect']} set aside (reasons in `report.md` and "
        "`calibration.json`).",
        f"- {judge['tasks']} tasks considered carry judge checks; verdicts recorded: "
        + ", ".join(f"{k} {v}" for k, v in judge["verdicts"].items())
        + (f" (judge `{judge['configured'].get('model')}`)." if judge["configured"] else " (no judge configured)."),
        "",
        "## Versions",
        "",
        f"- officesim {inputs.versions['officesim']}; tool surface `{inputs.versions['tools']}`",
        *[f"- world `{name}`: spec {fp['spec']}, generated state {fp['state']}"
          for name, fp in sorted(inputs.versions["worlds"].items())],
        "- every task's task and grader hash, and every file's sha256: `manifest.json`",
        "",
        "## How the split was made",
        "",
        "Group-aware, sized to the request and covering families, categories and worlds first, seed "
        f"{split.seed}, requested fraction {split.fraction:.2f}, realised {100 * split.realised:.1f}% of tasks "
        f"({len(split.uncovered)} value(s) left without held-out tasks, listed in `report.md`). "
        "Near twins found by content joined "
        f"{len(split.units)} set(s) of groups; {len(inputs.twins_across)} near-twin pair(s) straddle the split "
        f"(check with `officesim split audit {inputs.name}`).",
        "",
        "## How the tasks were checked",
        "",
        f"Reference solution on {inputs.oracle_seeds} seed(s), the do-nothing agent and {len(inputs.probes)} hack "
        f"probes on every task; baseline: {inputs.baseline}, n = {inputs.n}. See `report.md`.",
        "",
    ])
