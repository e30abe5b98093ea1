"""Calibration: sort tasks by how a baseline did on them, and flag the ones not fit to ship.

Difficulty (from a model's run): a task every attempt passes (pass rate >= ``drop_above``) is
*dropped* as too easy to teach anything; one no attempt passes (<= ``inspect_below``) goes to
*inspect*, shown with the gates and criteria its attempts failed and why (a task nobody passes
is as often broken as hard); the rest are *kept*.

Soundness (from built-in agents, no model needed), each a reason to *remove* a task:

* ``unsolvable``: the oracle (the reference solution) fails on every seed;
* ``flaky``: the oracle passes on some seeds and fails on others, or a stored trajectory graded
  again gets a different verdict from a deterministic check;
* ``ambiguous``: a judge criterion disagrees with itself on the same trajectory more often than
  ``ambiguity_bound``;
* ``hackable``: the null agent or a hack probe scores above ``hack_bound`` (or passes).

Probe and oracle runs are ordinary runs in ``<run>/calibration/<agent>/`` (resumable, reused).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from officesim.agents.registry import probe_names
from officesim.errors import OfficesimError
from officesim.pipeline.attempts import Attempt, as_attempts, read_attempts
from officesim.pipeline.metrics import task_stats
from officesim.pipeline.regrade import RegradeReport, regrade_task
from officesim.pipeline.runner import (
    AgentSpec,
    RunPlan,
    hashes_of,
    is_current,
    load_transcript,
    read_run_info,
    run_plans,
)
from officesim.pipeline.selftest import HACK_BOUND
from officesim.task import Task, find_tasks, load_task

Decision = Literal["keep", "drop", "inspect", "remove"]
CALIBRATION = "calibration.json"
CALIBRATION_RUNS = "calibration"


@dataclass(frozen=True)
class CalibrationConfig:
    """Thresholds and how much checking to do.

    Attributes:
        drop_above: drop a task whose pass rate is at least this (too easy).
        inspect_below: inspect a task whose pass rate is at most this (never solved).
        hack_bound: a probe or the null agent scoring above this marks the task hackable.
        ambiguity_bound: a judge criterion disagreeing with itself on more than this share of
            regraded trajectories marks the task ambiguous.
        oracle_seeds: oracle attempts per task (0: skip the oracle).
        regrade_attempts: stored trajectories regraded per task (0: no regrading).
        regrades: how many times each is regraded (its stored grade is the first verdict).
        apply_difficulty: False keeps every sound task whatever its pass rate (a weak baseline,
            such as the random agent, says nothing about difficulty).
        probes: the probe agents to run (default: the null agent and every hack probe).
    """

    drop_above: float = 1.0
    inspect_below: float = 0.0
    hack_bound: float = HACK_BOUND
    ambiguity_bound: float = 0.2
    oracle_seeds: int = 3
    regrade_attempts: int = 2
    regrades: int = 1
    apply_difficulty: bool = True
    probes: tuple[str, ...] | None = None

    def probe_agents(self) -> tuple[str, ...]:
        return self.probes if self.probes is not None else ("null", *probe_names())


@dataclass
class TaskCalibration:
    """The verdict on one task."""

    task: str
    decision: Decision
    category: str | None
    difficulty: str | None
    group: str | None
    n: int
    errors: int
    pass_rate: float | None
    mean_score: float | None
    flags: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    failing: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Calibration:
    """Every task's verdict, the configuration and what it was measured with."""

    config: CalibrationConfig
    agent: dict[str, Any] | None
    n: int
    tasks: dict[str, TaskCalibration]

    def counts(self) -> dict[str, int]:
        counted = Counter(t.decision for t in self.tasks.values())
        return {d: counted.get(d, 0) for d in ("keep", "drop", "inspect", "remove")}

    def to_dict(self) -> dict[str, Any]:
        return {"config": asdict(self.config), "agent": self.agent, "n": self.n, "counts": self.counts(),
                "tasks": {k: asdict(v) for k, v in sorted(self.tasks.items())}}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")


# ------------------------------------------------------------------ pure decisions
def failing_checks(records: Sequence[Attempt | Mapping[str, Any]], limit: int = 3) -> list[dict[str, Any]]:
    """Gates and criteria that went against the agent across attempts, most frequent first.

    Each entry: id, role, check, how many attempts it failed (or errored) in, and up to ``limit``
    distinct reasons, so a reviewer sees at once whether the task or the agent is at fault.
    """
    tally: dict[str, dict[str, Any]] = {}
    for record in as_attempts(records):
        for item in _items(record.grade):
            if item["status"] not in ("fail", "error"):
                continue
            entry = tally.setdefault(item["id"], {"id": item["id"], "role": item["role"], "check": item["check"],
                                                  "attempts": 0, "reasons": []})
            entry["attempts"] += 1
            if item["reason"] not in entry["reasons"] and len(entry["reasons"]) < limit:
                entry["reasons"].append(item["reason"])
    return sorted(tally.values(), key=lambda e: (-e["attempts"], e["role"] != "gate", e["id"]))


def _items(grade: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    return [*grade.get("gates", []), *grade.get("criteria", [])] if grade else []


def oracle_flags(records: Sequence[Attempt | Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """(flags, reasons) from the oracle's attempts at one task."""
    graded = [r for r in as_attempts(records) if r.graded]
    if not graded:
        return [], []
    passed = sum(1 for r in graded if r.passed)
    if passed == 0:
        failing = failing_checks(graded, limit=1)
        why = "; ".join(f"{f['id']}: {f['reasons'][0]}" for f in failing[:2] if f["reasons"]) or "score below threshold"
        return ["unsolvable"], [f"the oracle failed on all {len(graded)} seed(s) ({why})"]
    if passed < len(graded):
        return ["flaky"], [f"the oracle passed on {passed} of {len(graded)} seeds"]
    return [], []


def probe_flags(probe_records: Mapping[str, Sequence[Attempt | Mapping[str, Any]]],
                bound: float) -> tuple[list[str], list[str]]:
    """(flags, reasons) from probe agents' attempts at one task."""
    reasons = []
    for agent, records in sorted(probe_records.items()):
        graded = [r for r in as_attempts(records) if r.graded]
        if not graded:
            continue
        best = max(r.score_or_zero for r in graded)
        if any(r.passed for r in graded):
            reasons.append(f"{agent} passed (score {best:.2f})")
        elif best > bound:
            reasons.append(f"{agent} scored {best:.2f} > {bound:.2f}")
    return (["hackable"] if reasons else []), reasons


def regrade_flags(report: RegradeReport | None, bound: float) -> tuple[list[str], list[str]]:
    """(flags, reasons) from regrading stored trajectories."""
    if report is None:
        return [], []
    flags, reasons = [], []
    if report.flaky:
        flags.append("flaky")
        reasons.append("graded differently on replay: " + "; ".join(report.flaky[:3]))
    ambiguous = {cid: share for cid, share in report.ambiguity().items() if share > bound}
    if ambiguous:
        flags.append("ambiguous")
        reasons.extend(f"judge criterion {cid} disagreed with itself on {share:.0%} of trajectories"
                       for cid, share in sorted(ambiguous.items()))
    return flags, reasons


def decide(
    task: str,
    records: Sequence[Attempt | Mapping[str, Any]],
    config: CalibrationConfig,
    *,
    oracle: Sequence[Attempt | Mapping[str, Any]] = (),
    probes: Mapping[str, Sequence[Attempt | Mapping[str, Any]]] | None = None,
    regrade: RegradeReport | None = None,
    meta: Mapping[str, Any] | None = None,
) -> TaskCalibration:
    """The verdict on one task from its baseline attempts and the soundness evidence."""
    records = as_attempts(records)
    stats = task_stats(task, records, (1,), meta)
    first_group = records[0].group if records else None
    meta = meta or {}
    result = TaskCalibration(
        task=task, decision="keep", category=stats.category, difficulty=stats.difficulty,
        group=meta.get("group", first_group), n=stats.n, errors=stats.errors,
        pass_rate=stats.pass1, mean_score=stats.mean_score, failing=failing_checks(records),
    )
    for flags, reasons in (oracle_flags(oracle), probe_flags(probes or {}, config.hack_bound),
                           regrade_flags(regrade, config.ambiguity_bound)):
        result.flags += [f for f in flags if f not in result.flags]
        result.reasons += reasons
    if result.flags:
        result.decision = "remove"
    elif not records:
        result.decision = "inspect"
        result.reasons.append("the baseline has no attempt at this task")
    elif stats.n == 0:
        result.decision = "inspect"
        crashes = [r.crash.strip().splitlines()[-1] for r in records if r.crash]
        why = f" ({len(crashes)} crashed: {crashes[0]})" if crashes else ""
        result.reasons.append(f"all {stats.errors} attempt(s) ended in an error{why}; nothing was graded")
    elif config.apply_difficulty and stats.pass1 is not None and stats.pass1 >= config.drop_above:
        result.decision = "drop"
        result.reasons.append(f"pass rate {stats.pass1:.2f} >= {config.drop_above:.2f}: too easy for the baseline")
    elif config.apply_difficulty and stats.pass1 is not None and stats.pass1 <= config.inspect_below:
        result.decision = "inspect"
        result.reasons.append(f"pass rate {stats.pass1:.2f} <= {config.inspect_below:.2f}: check the failing "
                              "gates and criteria (a task nobody solves is often broken)")
    return result


# ------------------------------------------------------------------ orchestration
def task_folders(run_dir: Path, tasks: Sequence[str | Path] | None) -> list[Path]:
    """The task folders of a run: given explicitly, or as recorded in its ``run.json``."""
    if tasks:
        return find_tasks(list(tasks))
    if not run_dir.exists():
        raise OfficesimError(f"{run_dir}: the run folder does not exist; pass a folder made by 'officesim run'")
    if not run_dir.is_dir():
        raise OfficesimError(f"{run_dir} is not a folder; pass a run folder made by 'officesim run'")
    info = read_run_info(run_dir)
    if not info or not info.get("tasks"):
        raise OfficesimError(f"{run_dir} has no run.json listing its tasks; pass --tasks DIR")
    folders = [Path(p) for p in info["tasks"].values()]
    missing = [str(p) for p in folders if not (p / "task.yaml").is_file()]
    if missing:
        raise OfficesimError(f"task folders recorded in {run_dir / 'run.json'} are gone ({', '.join(missing[:3])}); "
                             "pass --tasks DIR")
    return sorted(folders)


def _folder_name(agent: str) -> str:
    return agent.replace(":", "-")


def soundness_runs(tasks: Sequence[Path], work_dir: Path, config: CalibrationConfig, *, workers: int = 1,
                   progress: bool = True, extra: Sequence[RunPlan] = (),
                   hashes: Mapping[str, tuple[str, str]] | None = None,
                   env_options: Mapping[str, Any] | None = None) -> dict[str, list[Attempt]]:
    """Run the oracle and the probes (plus any ``extra`` plans) in one pool; records per agent.

    ``env_options`` (the judge) grade these attempts too, so a probe cannot pass on points a
    judge would have refused it.
    """
    plans = list(extra)
    agents = []
    if config.oracle_seeds > 0:
        agents.append(("oracle", config.oracle_seeds))
    agents += [(name, 1) for name in config.probe_agents()]
    plans += [RunPlan(AgentSpec(name), n, work_dir / _folder_name(name)) for name, n in agents]
    if plans:
        run_plans(tasks, plans, workers=workers, progress=progress, label="calibration", hashes=hashes,
                  env_options=dict(env_options) if env_options else None)
    # A reused folder may hold more attempts than asked for now; count only those asked for.
    return {name: [r for r in read_attempts(work_dir / _folder_name(name)) if r.attempt < n] for name, n in agents}


def read_probe_runs(folder: Path) -> dict[str, list[Attempt]]:
    """Probe runs made earlier: every run folder under ``folder``, by the agent in its run.json."""
    found: dict[str, list[Attempt]] = {}
    for info_path in sorted(folder.glob("*/run.json")):
        info = read_run_info(info_path.parent) or {}
        name = (info.get("agent") or {}).get("name")
        if not isinstance(name, str):
            raise OfficesimError(f"{info_path} names no agent; it is not a run folder made by 'officesim run'")
        found.setdefault(name, []).extend(read_attempts(info_path.parent))
    return found


def current_records(records: Sequence[Attempt], hashes: Mapping[str, tuple[str, str]]) -> list[Attempt]:
    """Attempts at the tasks in ``hashes`` made with their current files (crashes kept, to be shown)."""
    return [r for r in records if r.task in hashes and (is_current(r, hashes) or r.crash is not None)]


def _by_task(records: Sequence[Attempt]) -> dict[str, list[Attempt]]:
    grouped: dict[str, list[Attempt]] = {}
    for record in records:
        grouped.setdefault(record.task, []).append(record)
    return grouped


def regrade_run(run_dir: Path, tasks: Mapping[str, Task], records: Sequence[Attempt],
                config: CalibrationConfig, env_options: Mapping[str, Any] | None = None) -> dict[str, RegradeReport]:
    """Regrade up to ``regrade_attempts`` stored trajectories per task (lowest attempt numbers)."""
    if config.regrade_attempts <= 0 or config.regrades <= 0:
        return {}
    by_task = _by_task([r for r in records if r.graded and r.grade])
    reports = {}
    for task_id, task in sorted(tasks.items()):
        chosen = sorted(by_task.get(task_id, []), key=lambda r: r.attempt)[: config.regrade_attempts]
        if not chosen:
            continue
        attempts = [(r.attempt, r.grade or {}, load_transcript(run_dir, r.task, r.attempt)) for r in chosen]
        reports[task_id] = regrade_task(task, attempts, times=config.regrades, env_options=env_options)
    return reports


def load_tasks(folders: Sequence[Path]) -> tuple[dict[str, Task], dict[str, str]]:
    """Load task folders once: (tasks by id, load error by folder name for those that fail)."""
    tasks, broken = {}, {}
    for folder in folders:
        try:
            task = load_task(folder)
        except OfficesimError as exc:
            broken[folder.name] = str(exc)
            continue
        tasks[task.id] = task
    return tasks, broken


def calibrate(
    run_dir: str | Path,
    *,
    tasks: Sequence[str | Path] | None = None,
    config: CalibrationConfig | None = None,
    probe_runs: str | Path | None = None,
    workers: int = 1,
    progress: bool = True,
    env_options: Mapping[str, Any] | None = None,
) -> Calibration:
    """Calibrate the tasks of a run and write ``calibration.json`` into the run folder.

    Args:
        run_dir: a run folder (``officesim run --out``) with the baseline's attempts.
        tasks: the task folders (default: those recorded in the run's ``run.json``).
        config: thresholds and checks.
        probe_runs: a folder of probe/oracle runs made earlier; default: run them into
            ``<run_dir>/calibration/`` (resumed when there).
        workers: processes for the oracle and probe runs.
        progress: show progress on stderr.
        env_options: ``OfficeEnv`` options for regrading (the judge).
    """
    run_dir = Path(run_dir)
    config = config or CalibrationConfig()
    folders = task_folders(run_dir, tasks)
    loaded, _broken = load_tasks(folders)
    hashes = hashes_of(loaded.values())
    records = current_records(read_attempts(run_dir), hashes)
    if probe_runs is not None:
        soundness = read_probe_runs(Path(probe_runs))
    else:
        soundness = soundness_runs(folders, run_dir / CALIBRATION_RUNS, config, workers=workers, progress=progress,
                                   hashes=hashes)
    soundness = {agent: current_records(rs, hashes) for agent, rs in soundness.items()}
    regrades = regrade_run(run_dir, loaded, records, config, env_options)
    info = read_run_info(run_dir) or {}
    calibration = build(folders, records, soundness, regrades, config, agent=info.get("agent"),
                        n=int(info.get("n", 0)))
    calibration.save(run_dir / CALIBRATION)
    return calibration


def build(folders: Sequence[Path], records: Sequence[Attempt], soundness: Mapping[str, Sequence[Attempt]],
          regrades: Mapping[str, RegradeReport], config: CalibrationConfig, *, agent: dict[str, Any] | None,
          n: int) -> Calibration:
    """Assemble the verdicts of every task from the evidence gathered."""
    baseline = _by_task(list(records))
    per_agent = {name: _by_task(list(rs)) for name, rs in soundness.items()}
    verdicts = {}
    for folder in folders:
        name = folder.name
        probes = {a: rs.get(name, []) for a, rs in per_agent.items() if a != "oracle"}
        meta = _meta_from(baseline.get(name) or [r for rs in per_agent.values() for r in rs.get(name, [])])
        verdicts[name] = decide(name, baseline.get(name, []), config,
                                oracle=per_agent.get("oracle", {}).get(name, []), probes=probes,
                                regrade=regrades.get(name), meta=meta)
    return Calibration(config=config, agent=agent, n=n, tasks=verdicts)


def _meta_from(records: Sequence[Attempt]) -> dict[str, Any]:
    for record in records:
        if record.category is not None:
            return {"category": record.category, "difficulty": record.difficulty, "group": record.group}
    return {}


def format_table(calibration: Calibration, *, show_failing: bool = True) -> str:
    """The verdicts as a table, then the failing checks of tasks to inspect."""
    rows = sorted(calibration.tasks.values(), key=lambda t: (t.decision, t.task))
    width = max([4, *(len(t.task) for t in rows)])
    lines = [f"{'task':<{width}}  {'decision':<8}  {'n':>3}  {'err':>3}  {'pass':>5}  reasons"]
    for t in rows:
        rate = "  -  " if t.pass_rate is None else f"{t.pass_rate:5.2f}"
        reasons = "; ".join(t.reasons)
        lines.append(f"{t.task:<{width}}  {t.decision:<8}  {t.n:>3}  {t.errors:>3}  {rate}  "
                     f"{reasons[:140]}{'...' if len(reasons) > 140 else ''}")
    counts = calibration.counts()
    lines.append("  ".join(f"{k}: {v}" for k, v in counts.items()))
    if show_failing:
        for t in rows:
            if t.decision != "inspect" or not t.failing:
                continue
            lines.append(f"\n{t.task}: failing gates and criteria")
            for f in t.failing:
                lines.append(f"  {f['role']} {f['id']} ({f['check']}) failed in {f['attempts']} attempt(s)")
                lines.extend(f"    - {reason}" for reason in f["reasons"])
    return "\n".join(lines)
