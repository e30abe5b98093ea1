"""Build ``delivery-YYYY-MM/``: the checked tasks, a group-aware held-out split, a report, a manifest.

The steps:

1. load every task folder (one that does not load is removed, with its error in the report);
2. run, in one pool of workers, the soundness agents (the oracle on several seeds, the null
   agent, every hack probe) and the baseline: the random agent offline, or a model
   (``--agent openai``), or read a model's run (``--runs``); runs live in a work folder and
   resume, so building again is quick;
3. calibrate: remove unsound tasks (unsolvable, flaky, ambiguous, hackable); with a model,
   drop the too-easy and set aside the never-solved, as ``officesim calibrate`` does;
4. split the kept tasks by group, copy their files, write ``report.md``, the chart,
   ``calibration.json`` and ``manifest.json`` (sha256 of every file; world, tools and grader
   versions).

Nothing in the delivery depends on time, worker count or order of execution: the same inputs
give byte-identical files (the manifest proves it).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from officesim import __version__
from officesim.errors import OfficesimError
from officesim.evidence import (
    FamilySoundness,
    coverage,
    judge_criteria,
    judge_summary,
    soundness_by_family,
    tally_judge,
)
from officesim.grading.judge import JudgeConfig
from officesim.pipeline import plots
from officesim.pipeline.attempts import Attempt, read_attempts
from officesim.pipeline.calibrate import (
    Calibration,
    CalibrationConfig,
    build,
    current_records,
    load_tasks,
    regrade_run,
    soundness_runs,
)
from officesim.pipeline.compare import UPLIFT_PLOT, compare_runs, draw_uplift
from officesim.pipeline.delivery_report import ReportInputs, render_card, render_report
from officesim.pipeline.metrics import Summary, summarize
from officesim.pipeline.runner import AgentSpec, RunPlan, hashes_of, read_run_info
from officesim.pipeline.split import cut_groups, split_tasks, world_name
from officesim.resources import rubric_path
from officesim.task import Task, find_tasks, world_content_hash
from officesim.toolapi.lock import surface_stamp
from officesim.toolexport import dumps, export_tools, tools_version

TASK_FILES = ("task.yaml", "grader.yaml", "solution.yaml")
MANIFEST = "manifest.json"
CARD = "dataset_card.md"
AUDIT = "split_audit.json"
MODEL_AGENT = "openai"


@dataclass(frozen=True)
class DeliveryOptions:
    """What to build and how.

    Attributes:
        month: ``YYYY-MM``; names the folder ``delivery-YYYY-MM``.
        tasks: the task library (a folder of task folders); with ``runs`` and no tasks given,
            the run's own task folders.
        runs: a run folder made by ``officesim run`` (a model's): the baseline, not re-run.
        agent: the baseline agent to run (default: the random agent).
        n: baseline attempts per task.
        heldout: the share of groups held out.
        split_seed: the split seed.
        out: where ``delivery-YYYY-MM/`` is written.
        work: where the calibration runs live (default ``runs/delivery-YYYY-MM``).
        workers: processes.
        calibration: thresholds and checks.
        env_options: ``OfficeEnv`` options (the judge).
        progress: progress bars on stderr.
        uplift: (before, after) run folders compared on the held-out tasks into the delivery.
        force: replace an earlier delivery folder even if it holds files officesim did not write.
    """

    month: str
    tasks: Path | None = Path("tasks")
    runs: Path | None = None
    agent: AgentSpec | None = None
    n: int = 8
    heldout: float = 0.2
    split_seed: int = 0
    out: Path = Path(".")
    work: Path | None = None
    workers: int = 1
    calibration: CalibrationConfig = field(default_factory=CalibrationConfig)
    env_options: Mapping[str, Any] | None = None
    progress: bool = True
    uplift: tuple[Path, Path] | None = None
    force: bool = False


@dataclass
class Delivery:
    """The built delivery."""

    path: Path
    train: tuple[str, ...]
    heldout: tuple[str, ...]
    calibration: Calibration
    manifest: dict[str, Any]


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check_month(month: str) -> None:
    parts = month.split("-")
    if len(parts) != 2 or len(parts[0]) != 4 or len(parts[1]) != 2 or not month.replace("-", "").isdigit() \
            or not 1 <= int(parts[1]) <= 12:
        raise OfficesimError(f"--month must look like 2026-05, not {month!r}")


def _baseline(options: DeliveryOptions, work: Path) -> tuple[RunPlan | None, Path, dict[str, Any], int, bool]:
    """(plan to run or None, its folder, agent as recorded, n, whether a model was used)."""
    if options.runs is not None:
        info = _run_info(options.runs)
        agent = info["agent"]
        return None, options.runs, agent, int(info.get("n", 0)), agent.get("name") == MODEL_AGENT
    spec = options.agent or AgentSpec("random")
    model = str(spec.options.get("model", "")).replace("/", "_").replace(":", "_")
    folder = work / (f"{spec.name}-{model}" if model else spec.name.replace(":", "-"))
    return RunPlan(spec, options.n, folder), folder, spec.public(), options.n, spec.name == MODEL_AGENT


def _run_info(runs: Path) -> dict[str, Any]:
    """The run.json of ``--runs``, with an error that says what is wrong with the folder."""
    if not runs.exists():
        raise OfficesimError(f"--runs {runs}: the folder does not exist; pass a run folder made by 'officesim run'")
    if not runs.is_dir():
        raise OfficesimError(f"--runs {runs}: not a folder; pass a run folder made by 'officesim run'")
    info = read_run_info(runs)
    if info is None:
        raise OfficesimError(f"{runs} is not a run folder (no run.json); make one with 'officesim run'")
    return info


def _task_folders(options: DeliveryOptions) -> tuple[list[Path], str]:
    if options.tasks is not None:
        return find_tasks([options.tasks]), str(options.tasks)
    info = _run_info(options.runs) if options.runs else None
    if not info or not info.get("tasks"):
        raise OfficesimError(f"{options.runs}/run.json lists no tasks: pass --tasks DIR" if options.runs
                             else "no task library: pass --tasks DIR")
    return sorted(Path(p) for p in info["tasks"].values()), str(options.runs)


def _describe(agent: Mapping[str, Any]) -> str:
    name = agent.get("name", "?")
    model = (agent.get("options") or {}).get("model")
    if name in ("random", "oracle", "null"):
        return f"{name} agent"
    return f"{name} ({model})" if model else str(name)


def _judge_public(env_options: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The judge as the report names it (never its key)."""
    config = (env_options or {}).get("judge")
    if not isinstance(config, JudgeConfig):
        return None
    return {"model": config.model, "base_url": config.base_url,
            "cache_dir": str(config.cache_dir) if config.cache_dir else None}


def _meta(task: Task) -> dict[str, Any]:
    return {"category": task.category, "difficulty": task.difficulty, "family": task.family, "group": task.group,
            "world": world_name(task), "solution_steps": len(task.solution.steps) if task.solution else 0}


def deliver(options: DeliveryOptions) -> Delivery:
    """Build the delivery described by ``options`` and return what went into it."""
    _check_month(options.month)
    name = f"delivery-{options.month}"
    work = options.work or Path("runs") / name
    final = options.out / name
    _check_target(final, options.force)
    folders, source = _task_folders(options)
    if not folders:
        raise OfficesimError(f"no task folders found in {source}")
    tasks, broken = load_tasks(folders)
    hashes = hashes_of(tasks.values())
    good = [t.dir for t in tasks.values()]
    plan, baseline_dir, baseline_agent, n, model_used = _baseline(options, work)
    config = replace(options.calibration, apply_difficulty=model_used)
    soundness = soundness_runs(good, work, config, workers=options.workers, progress=options.progress,
                               extra=[plan] if plan else [], hashes=hashes, env_options=options.env_options)
    records = current_records(read_attempts(baseline_dir), hashes)
    if plan is not None:  # a reused work folder may hold more attempts than asked for now
        records = [r for r in records if r.attempt < plan.n]
    soundness = {agent: current_records(rs, hashes) for agent, rs in soundness.items()}
    # A model's trajectories are regraded; offline, the oracle on several seeds already grades the
    # same trajectory several times (the world does not depend on the seed), which is the check.
    regrades = regrade_run(baseline_dir, tasks, records, config, options.env_options) if model_used else {}
    calibration = build(good, records, soundness, regrades, config, agent=baseline_agent, n=n)

    kept = {t: tasks[t] for t, verdict in sorted(calibration.tasks.items()) if verdict.decision == "keep"}
    split, pairs = split_tasks(kept.values(), options.heldout, options.split_seed)
    groups = {t: task.group for t, task in kept.items()}
    if cut_groups(split, groups):  # impossible by construction; never ship a leaking split
        raise OfficesimError(f"internal error: the split cuts groups {cut_groups(split, groups)}")
    twins = [p for p in pairs if groups[p.a] != groups[p.b]]
    across = [p for p in pairs if split.side(p.a) != split.side(p.b)]  # the audit; empty by construction

    staging = options.out / f".{name}.building"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    for side, ids in (("tasks", split.train), ("heldout", split.heldout)):
        for task_id in ids:
            _copy_task(kept[task_id], staging / side / task_id)
    _copy_support(kept.values(), staging)
    delivered = {t: _meta(k) for t, k in kept.items()}
    summary = summarize([r for r in records if r.task in kept], ks=(1,), task_meta=delivered)
    versions = _versions(tasks)
    description = _describe(baseline_agent)
    families = {t: k.family for t, k in tasks.items()}
    hackable = [t for t, v in calibration.tasks.items() if "hackable" in v.flags]
    criteria = judge_criteria(tasks)
    tally_judge(criteria, [*records, *(r for rs in soundness.values() for r in rs)])
    counts = {**calibration.counts(), "considered": len(folders), "invalid": len(broken),
              "delivered": len(kept), "train": len(split.train), "heldout": len(split.heldout)}
    counts["removed"] = counts["remove"] + counts["invalid"]
    family_soundness = soundness_by_family(families, soundness, hackable)
    judge = judge_summary(criteria, _judge_public(options.env_options))
    covered = [coverage(delivered, split, a) for a in ("category", "family", "difficulty", "world")]
    # Folders are named relative to the work folder so the same inputs give the same bytes wherever it is.
    work_label = work.as_posix() if options.work is None else work.name
    run_name = options.runs.as_posix() if options.runs is not None else f"{work_label}/{baseline_dir.name}"
    plots = _draw_plots(staging, summary, delivered, records, family_soundness, calibration, families,
                        f"{description}, n = {n}, run {run_name}")
    calibration.save(staging / "calibration.json")
    uplift = None
    if options.uplift is not None:
        comparison = compare_runs(*options.uplift, only=set(split.heldout), split_name="heldout")
        uplift = comparison.markdown(plot=UPLIFT_PLOT)
        draw_uplift(staging / UPLIFT_PLOT, comparison)
        (staging / "uplift.md").write_text(uplift + "\n")
        (staging / "uplift.json").write_text(json.dumps(comparison.to_dict(), indent=2, sort_keys=True) + "\n")
    report = ReportInputs(
        name=name, source=source, found=len(folders), delivered=delivered, split=split, calibration=calibration,
        summary=summary, baseline=description, baseline_agent=str(baseline_agent.get("name")),
        baseline_run=run_name, n=n, model_used=model_used, oracle_seeds=config.oracle_seeds,
        probes=config.probe_agents(), broken=broken, versions=versions, counts=counts, work=work_label,
        soundness=family_soundness, judge=judge, judge_criteria=criteria, coverage=covered, twins_joined=twins,
        twins_across=across, uplift=uplift, plots=plots,
    )
    (staging / "report.md").write_text(render_report(report), encoding="utf-8")
    (staging / CARD).write_text(render_card(report), encoding="utf-8")
    audit = {"joined": [p.to_dict() for p in twins], "across": [p.to_dict() for p in across]}
    (staging / AUDIT).write_text(json.dumps(audit, indent=2) + "\n", encoding="utf-8")
    manifest = _manifest(staging, name, options, split, baseline_agent, n, model_used, versions, kept)
    manifest["considered"] = len(folders)
    manifest["invalid"] = sorted(broken)
    manifest["counts"] = counts
    manifest["baseline"]["run"] = run_name
    manifest["judge"] = judge
    manifest["coverage"] = {c.attribute: c.to_dict() for c in covered}
    manifest["soundness"] = {f: {"oracle_passed": r.oracle_passed, "oracle_attempts": r.oracle_attempts,
                                 "best_probe": r.best_probe, "best_probe_agent": r.best_probe_agent}
                             for f, r in family_soundness.items()}
    manifest["split"]["twins_across"] = len(across)
    manifest["split"]["units"] = [list(u) for u in split.units]
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    _replace(staging, final, options.force)
    return Delivery(path=final, train=split.train, heldout=split.heldout, calibration=calibration, manifest=manifest)


def _draw_plots(folder: Path, summary: Summary, delivered: Mapping[str, Mapping[str, Any]],
                records: list[Attempt], soundness: Mapping[str, FamilySoundness], calibration: Calibration,
                families: Mapping[str, str], source: str) -> list[str]:
    """Every chart of the delivery; returns their file names."""
    plots.histogram_by_difficulty(folder / "pass_rates.png", summary, delivered, f"Baseline pass@1 per task: {source}")
    plots.pass_rate_per_category(folder / "pass_rate_per_category.png", summary, f"Baseline pass@1: {source}")
    scores: dict[str, list[float]] = {}
    for record in records:
        if record.task in delivered and record.graded:
            scores.setdefault(str(delivered[record.task]["family"]), []).append(record.score_or_zero)
    plots.score_per_family(folder / "score_per_family.png", scores,
                           {f: r.best_probe for f, r in soundness.items()}, f"Scores per family: {source}",
                           {f: r.oracle_passed / r.oracle_attempts for f, r in soundness.items() if r.oracle_attempts})
    plots.difficulty_features(folder / "difficulty.png", summary, delivered, f"Difficulty features: {source}")
    plots.calibration_per_family(folder / "calibration_per_family.png",
                                 {t: v.decision for t, v in calibration.tasks.items()}, families,
                                 "Calibration decisions per family")
    return ["pass_rates.png", "pass_rate_per_category.png", "score_per_family.png", "difficulty.png",
            "calibration_per_family.png"]


def _copy_task(task: Task, target: Path) -> None:
    """The task's files; ``tools.json`` is written from the registry so it matches what the env serves."""
    target.mkdir(parents=True)
    for file_name in TASK_FILES:
        source = task.dir / file_name
        if source.is_file():
            shutil.copyfile(source, target / file_name)
    (target / "tools.json").write_text(dumps(task.tools_json()), encoding="utf-8")


def _copy_support(tasks: Iterable[Task], target: Path) -> None:
    """What the tasks need beyond their folders, so the delivery loads with an installed officesim anywhere.

    ``worlds/`` and ``rubrics/`` beside ``tasks/`` and ``heldout/`` are found first when a task
    names a spec or rubric (``officesim.resources``), so the delivery keeps the exact specs and
    rubrics it was calibrated with; ``tools.json`` is the whole tool surface (OpenAI strict), and
    ``manifest.json`` records the officesim version.
    """
    for task in tasks:
        spec_copy = target / "worlds" / f"{Path(task.spec.world.spec).stem}.yaml"
        if not spec_copy.is_file():
            spec_copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(task.spec_path, spec_copy)
        elif spec_copy.read_bytes() != task.spec_path.read_bytes():
            raise OfficesimError(f"two different world specs are named {spec_copy.stem!r} ({task.spec_path} and "
                                 f"another task's); give them different file names so the delivery can carry both")
        for name in task.rubrics:
            rubric_copy = target / "rubrics" / f"{name}.yaml"
            if not rubric_copy.is_file():
                rubric_copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(rubric_path(name, task.dir), rubric_copy)
    (target / "tools.json").write_text(dumps(export_tools()))


def _versions(tasks: Mapping[str, Task]) -> dict[str, Any]:
    """officesim, the tool surface, and each world as its spec fingerprint and generated content hash."""
    worlds: dict[str, dict[str, str]] = {}
    for task in tasks.values():
        key = world_name(task)
        if key not in worlds:
            spec = task.world_spec()
            state = world_content_hash(spec, task.world_seed)  # memoised: once per world and process
            worlds[key] = {"spec": spec.fingerprint(), "state": state}
    return {"officesim": __version__, "tools": tools_version(), "worlds": dict(sorted(worlds.items())),
            "tool_surface": {k: v for k, v in surface_stamp().items() if k in ("version", "hash")}}


def _manifest(folder: Path, name: str, options: DeliveryOptions, split: Any, agent: Mapping[str, Any], n: int,
              model_used: bool, versions: Mapping[str, Any], kept: Mapping[str, Task]) -> dict[str, Any]:
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder).as_posix()
        if relative != MANIFEST:
            files[relative] = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
    return {
        "name": name,
        "month": options.month,
        "versions": {
            **versions,
            "tasks": {t: {"task": k.task_hash, "grader": k.grader_hash} for t, k in sorted(kept.items())},
        },
        "baseline": {"agent": dict(agent), "n": n, "model_used": model_used},
        "split": {"heldout_fraction": options.heldout, "seed": options.split_seed, "train": len(split.train),
                  "heldout": len(split.heldout), "realised": round(split.realised, 4),
                  "heldout_groups": list(split.heldout_groups), "uncovered": dict(split.uncovered)},
        "files": files,
    }


def _foreign_files(final: Path) -> list[str]:
    """Files in an earlier delivery that officesim did not write (or that changed since it did)."""
    try:
        written = json.loads((final / MANIFEST).read_text(encoding="utf-8")).get("files", {})
    except (OSError, json.JSONDecodeError, AttributeError):
        return [MANIFEST]
    foreign = []
    for path in sorted(p for p in final.rglob("*") if p.is_file()):
        relative = path.relative_to(final).as_posix()
        if relative == MANIFEST:
            continue
        entry = written.get(relative)
        if not isinstance(entry, dict) or entry.get("sha256") != sha256_file(path):
            foreign.append(relative)
    return foreign


def _check_target(final: Path, force: bool) -> None:
    """Refuse, before any work, to replace a folder holding files officesim did not write (unless forced)."""
    if not final.exists() or force:
        return
    if not (final / MANIFEST).is_file():
        raise OfficesimError(f"{final} exists and is not a delivery (no {MANIFEST}); move it away first")
    foreign = _foreign_files(final)
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise OfficesimError(f"{final} holds {len(foreign)} file(s) officesim did not write or that changed since "
                             f"({shown}); move them out, or pass --force to replace the folder anyway")


def _replace(staging: Path, final: Path, force: bool = False) -> None:
    """Move the finished build into place; deletes only an earlier delivery whose files are all officesim's."""
    if final.exists():
        try:
            _check_target(final, force)
        except OfficesimError:
            shutil.rmtree(staging)
            raise
        shutil.rmtree(final)
    staging.rename(final)
