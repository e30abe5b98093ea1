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
from officesim.calibrate import (
    Calibration,
    CalibrationConfig,
    build,
    current_records,
    load_tasks,
    regrade_run,
    soundness_runs,
)
from officesim.delivery_report import CHART, ReportInputs, draw_chart, render_report
from officesim.errors import OfficesimError
from officesim.metrics import summarize
from officesim.resources import rubric_path
from officesim.runner import AgentSpec, RunPlan, hashes_of, read_results, read_run_info
from officesim.spec import load_spec
from officesim.split import cut_groups, split_by_group
from officesim.task import Task, find_tasks, world_snapshot
from officesim.toolapi.lock import surface_stamp
from officesim.toolexport import dumps, export_tools, tools_version
from officesim.world import World

TASK_FILES = ("task.yaml", "grader.yaml", "solution.yaml")
MANIFEST = "manifest.json"
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
        info = read_run_info(options.runs)
        if info is None:
            raise OfficesimError(f"{options.runs} is not a run folder (no run.json); make one with 'officesim run'")
        agent = info["agent"]
        return None, options.runs, agent, int(info.get("n", 0)), agent.get("name") == MODEL_AGENT
    spec = options.agent or AgentSpec("random")
    model = str(spec.options.get("model", "")).replace("/", "_").replace(":", "_")
    folder = work / (f"{spec.name}-{model}" if model else spec.name.replace(":", "-"))
    return RunPlan(spec, options.n, folder), folder, spec.public(), options.n, spec.name == MODEL_AGENT


def _task_folders(options: DeliveryOptions) -> tuple[list[Path], str]:
    if options.tasks is not None:
        return find_tasks([options.tasks]), str(options.tasks)
    info = read_run_info(options.runs) if options.runs else None
    if not info or not info.get("tasks"):
        raise OfficesimError("no task library: pass --tasks DIR")
    return sorted(Path(p) for p in info["tasks"].values()), str(options.runs)


def _describe(agent: Mapping[str, Any]) -> str:
    name = agent.get("name", "?")
    model = (agent.get("options") or {}).get("model")
    if name == "random":
        return "random agent"
    return f"{name} ({model})" if model else str(name)


def deliver(options: DeliveryOptions) -> Delivery:
    """Build the delivery described by ``options`` and return what went into it."""
    _check_month(options.month)
    name = f"delivery-{options.month}"
    work = options.work or Path("runs") / name
    folders, source = _task_folders(options)
    if not folders:
        raise OfficesimError(f"no task folders found in {source}")
    tasks, broken = load_tasks(folders)
    hashes = hashes_of(tasks.values())
    good = [t.dir for t in tasks.values()]
    plan, baseline_dir, baseline_agent, n, model_used = _baseline(options, work)
    config = replace(options.calibration, apply_difficulty=model_used)
    soundness = soundness_runs(good, work, config, workers=options.workers, progress=options.progress,
                               extra=[plan] if plan else [], hashes=hashes)
    records = current_records(read_results(baseline_dir), hashes)
    if plan is not None:  # a reused work folder may hold more attempts than asked for now
        records = [r for r in records if r["attempt"] < plan.n]
    soundness = {agent: current_records(rs, hashes) for agent, rs in soundness.items()}
    # A model's trajectories are regraded; offline, the oracle on several seeds already grades the
    # same trajectory several times (the world does not depend on the seed), which is the check.
    regrades = regrade_run(baseline_dir, tasks, records, config, options.env_options) if model_used else {}
    calibration = build(good, records, soundness, regrades, config, agent=baseline_agent, n=n)

    kept = {t: tasks[t] for t, verdict in sorted(calibration.tasks.items()) if verdict.decision == "keep"}
    groups = {t: task.group for t, task in kept.items()}
    split = split_by_group(groups, options.heldout, options.split_seed)
    if cut_groups(split, groups):  # impossible by construction; never ship a leaking split
        raise OfficesimError(f"internal error: the split cuts groups {cut_groups(split, groups)}")

    staging = options.out / f".{name}.building"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    for side, ids in (("tasks", split.train), ("heldout", split.heldout)):
        for task_id in ids:
            _copy_task(kept[task_id], staging / side / task_id)
    _copy_support(kept.values(), staging)
    delivered = {t: {"category": k.category, "difficulty": k.difficulty, "group": k.group} for t, k in kept.items()}
    summary = summarize([r for r in records if r["task"] in kept], ks=(1,), task_meta=delivered)
    versions = _versions(tasks)
    description = _describe(baseline_agent)
    draw_chart(staging / CHART, summary, delivered,
               f"Baseline pass@1 per delivered task: {description}, n = {n}")
    calibration.save(staging / "calibration.json")
    report = ReportInputs(
        name=name, source=source, found=len(folders), delivered=delivered, split=split, calibration=calibration,
        summary=summary, baseline=description, n=n, model_used=model_used, oracle_seeds=config.oracle_seeds,
        probes=config.probe_agents(), broken=broken, versions=versions,
    )
    (staging / "report.md").write_text(render_report(report), encoding="utf-8")
    manifest = _manifest(staging, name, options, split, baseline_agent, n, model_used, versions, kept)
    manifest["considered"] = len(folders)
    manifest["invalid"] = sorted(broken)
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    final = options.out / name
    _replace(staging, final)
    return Delivery(path=final, train=split.train, heldout=split.heldout, calibration=calibration, manifest=manifest)


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
        spec = load_spec(task.spec_path)
        seed = spec.seed if task.spec.world.seed is None else task.spec.world.seed
        key = f"{task.spec_path.stem}@{seed}"
        if key not in worlds:
            state = World.restore(world_snapshot(task.spec_path, seed)).state_hash()
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
                  "heldout": len(split.heldout), "heldout_groups": list(split.heldout_groups)},
        "files": files,
    }


def _replace(staging: Path, final: Path) -> None:
    """Move the finished build into place; only ever deletes an earlier delivery (it has a manifest)."""
    if final.exists():
        if not (final / MANIFEST).is_file():
            shutil.rmtree(staging)
            raise OfficesimError(f"{final} exists and is not a delivery (no {MANIFEST}); move it away first")
        shutil.rmtree(final)
    staging.rename(final)
