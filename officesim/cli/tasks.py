"""``officesim tasks validate|schemas|stats``: check task folders, publish their JSON Schemas, measure them.

``validate`` loads every task folder under the given paths (strict models: file and field of any
error), runs the self-tests (oracle passes, null and hack probes fail, grading is deterministic,
generated correct variants pass and generated probes fail), and prints a table of families with
their instances, categories, difficulties, variants passed, probes run and the highest probe
score, and the medians ``tasks stats`` measures (reference calls, KiB read, apps, traps,
colleagues, revisions); its total line counts the distinct skills the families test.  Exit 1 on
any failure.  Other verbs (``generate``) register on the same ``tasks`` parser in ``register``.

The handlers import the task machinery when they run, so ``officesim tasks validate --help``
answers without importing the apps (see ``officesim.cli``).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from officesim.cli.generate import add_generate
from officesim.cli.sample import add_sample
from officesim.errors import SpecError

if TYPE_CHECKING:
    from officesim.pipeline.selftest import SelfTestReport
    from officesim.pipeline.taskstats import TaskStats
    from officesim.task import Task

SCHEMAS_DIR = Path(__file__).resolve().parents[1] / "schemas"


def register(subparsers: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """Add ``tasks`` and its verbs; returns the verbs' subparsers so other modules can add theirs."""
    tasks = subparsers.add_parser("tasks", help="validate task folders and publish their schemas")
    verbs = tasks.add_subparsers(dest="tasks_verb", required=True)
    validate = verbs.add_parser("validate", help="validate task folders and run their self-tests")
    validate.add_argument("paths", nargs="+", help="task folders or directories holding them")
    validate.add_argument("--no-selftest", action="store_true", help="only check the files (no episodes)")
    validate.add_argument("--judge", action="store_true",
                          help="judge judge-criteria in self-tests (model from OFFICESIM_JUDGE_MODEL)")
    validate.add_argument("--json", dest="json_out", metavar="FILE", help="also write the full report as JSON")
    validate.set_defaults(func=validate_command)
    schemas = verbs.add_parser("schemas", help="write (or --check) officesim/schemas/*.json from the models")
    schemas.add_argument("--check", action="store_true", help="fail if the published schemas are stale")
    schemas.add_argument("-o", "--output", default=str(SCHEMAS_DIR), help="the directory to write")
    schemas.set_defaults(func=schemas_command)
    stats = verbs.add_parser("stats", help="per family and difficulty: reference calls, bytes read, apps, traps, ...")
    stats.add_argument("paths", nargs="*", default=["tasks"], help="task folders or directories (default: tasks)")
    stats.add_argument("--json", dest="json_out", metavar="FILE", help="also write every task's figures as JSON")
    stats.set_defaults(func=stats_command)
    add_generate(verbs)
    add_sample(verbs)
    return verbs


def stats_command(args: argparse.Namespace) -> int:
    """Play every reference solution once and print the per-family difficulty table."""
    from dataclasses import asdict

    from officesim.pipeline.taskstats import HEADER, measure, rows, summary
    from officesim.task import find_tasks, load_task

    folders = find_tasks(args.paths)
    if not folders:
        raise SpecError(f"no task folders (with task.yaml) under {', '.join(args.paths)}")
    stats = [measure(load_task(folder)) for folder in folders]
    print(_table(rows(stats), HEADER))
    total = summary(stats)
    print(f"\n{total['tasks']} tasks, {total['families']} families, {total['groups']} groups; median reference calls "
          f"{total['median_reference_calls']:g} (hard: {total['hard_median_reference_calls']:g}, with a median of "
          f"{total['hard_median_traps']:g} traps)")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"summary": total, "tasks": [asdict(s) for s in stats]}, indent=1),
                                       encoding="utf-8")
    return 0


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)


def _counts(values: list[str]) -> str:
    return ", ".join(f"{name} {count}" for name, count in sorted(Counter(values).items()))


MIN_VARIANT_KINDS = 6  # alternative correct solutions a family must generate (issue 9)


def _selftest_columns(reports: list[SelfTestReport]) -> list[str]:
    """Variants passed / run (distinct kinds), probes run, and the highest probe score (by whom)."""
    variants = [run for r in reports for run in r.of_kind("variant")]
    probes = [run for r in reports for run in r.runs if run.expected == "fail" and run.agent != "null"]
    kinds = len({run.agent for run in variants})
    top = max(probes, key=lambda run: run.score, default=None)
    highest = f"{top.score:.2f} ({top.agent.removeprefix('probe:')})" if top is not None and top.score > 0 else "0.00"
    return [f"{sum(run.ok for run in variants)}/{len(variants)}", str(kinds), str(len(probes)), highest]


def _family_skills(families: set[str]) -> set[str]:
    """The distinct skills (``Family.skills``) the generated families among ``families`` declare."""
    from officesim.taskgen import FAMILIES

    return {skill for name in families if name in FAMILIES for skill in FAMILIES[name].skills}


def _difficulties(tasks: list[Task]) -> str:
    """Instances per tier as easy/medium/hard (other labels appended by name)."""
    counts = Counter(t.difficulty for t in tasks)
    shown = "/".join(str(counts.pop(tier, 0)) for tier in ("easy", "medium", "hard"))
    return shown + "".join(f" {name} {count}" for name, count in sorted(counts.items()))


def _stats_columns(items: list[TaskStats]) -> list[str]:
    """Medians of what the reference solutions needed (``tasks stats``); calls also for the hard tier."""
    from officesim.pipeline.taskstats import median

    hard = [i.calls for i in items if i.difficulty == "hard"]
    calls = f"{median(i.calls for i in items):g}" + (f" ({median(hard):g})" if hard else "")
    return [calls, f"{median(i.bytes_read for i in items) / 1024:.1f}", f"{median(i.apps for i in items):g}",
            f"{median(i.traps for i in items):g}", f"{median(i.colleagues for i in items):g}", "any"]


STATS_HEADER = ["calls", "KiB", "apps", "traps", "coll.", "rev."]


def family_table(tasks: list[Task], reports: list[SelfTestReport] | None = None,
                 stats: list[TaskStats] | None = None) -> str:
    """One row per family: instances, groups and instances per tier (easy/medium/hard); with
    self-test reports also variants passed / run, their distinct kinds, probes run and the highest
    probe score (by whom); with the reference solutions' figures (``officesim.pipeline.taskstats``) their
    medians: tool calls (the hard tier's in brackets), KiB read, apps touched, traps, colleagues,
    and the revisions an episode allows.  Kept within 120 columns."""
    by_family: dict[str, list[Task]] = defaultdict(list)
    for task in tasks:
        by_family[task.family].append(task)
    by_id = {r.task_id: r for r in reports or []}
    stats_of = {s.task_id: s for s in stats or []}
    header = ["family", "tasks", "grps", "e/m/h"]
    if reports is not None:
        header += ["variants", "kinds", "probes", "top"]
    if stats is not None:
        header += STATS_HEADER
    rows = []
    for family, items in sorted(by_family.items()):
        row = [family, str(len(items)), str(len({t.group for t in items})), _difficulties(items)]
        if reports is not None:
            row += _selftest_columns([by_id[t.id] for t in items if t.id in by_id])
        if stats is not None:
            row += _stats_columns([stats_of[t.id] for t in items if t.id in stats_of])
        rows.append(row)
    skills = _family_skills(set(by_family))
    total = [f"total: {len(skills)} skills", str(len(tasks)), str(len({t.group for t in tasks})),
             _difficulties(tasks)]
    if reports is not None:
        total += _selftest_columns(reports)
    if stats is not None:
        total += _stats_columns(list(stats_of.values()))
    rows.append(total)
    return _table(rows, header)


def thin_families(tasks: list[Task], reports: list[SelfTestReport]) -> list[str]:
    """Families whose validated instances generated fewer than ``MIN_VARIANT_KINDS`` variant kinds."""
    by_id = {r.task_id: r for r in reports}
    kinds: dict[str, set[str]] = defaultdict(set)
    for task in tasks:
        kinds[task.family] |= {run.agent for run in by_id[task.id].of_kind("variant")} if task.id in by_id else set()
    return [f"family {family}: only {len(found)} kind(s) of correct variant apply "
            f"({', '.join(sorted(found)) or 'none'}); at least {MIN_VARIANT_KINDS} are expected"
            for family, found in sorted(kinds.items()) if len(found) < MIN_VARIANT_KINDS]


def validate_command(args: argparse.Namespace) -> int:
    from officesim.grading.judge import JudgeConfig
    from officesim.grading.scoring import judge_flips
    from officesim.pipeline.selftest import selftest, trap_problems
    from officesim.pipeline.taskstats import measure
    from officesim.task import find_tasks, load_task

    started = time.perf_counter()
    folders = find_tasks(args.paths)
    if not folders:
        raise SpecError(f"no task folders (with task.yaml) under {', '.join(args.paths)}")
    judge = JudgeConfig.from_env() if args.judge else None
    if args.judge and judge is None:
        raise SpecError("--judge needs OFFICESIM_JUDGE_MODEL (and OFFICESIM_JUDGE_BASE_URL for a local server)")
    tasks: list[Task] = []
    failures: list[str] = []
    warnings: list[str] = []
    reports = []
    stats: list[TaskStats] = []  # the reference solutions' figures, as ``tasks stats`` measures them
    seen: dict[str, Path] = {}
    from officesim.probes.gaps import KNOWN_GAPS_FILE, is_known, known_gaps

    gaps = known_gaps()
    known: list[str] = []  # failing runs that known_gaps.yaml lists
    seen_gaps: set[tuple[str, str]] = set()
    checked_families: set[str] = set()
    for folder in folders:
        try:
            task = load_task(folder)
        except SpecError as exc:
            failures.append(str(exc))
            continue
        if task.id in seen:
            failures.append(f"{folder}: task id {task.id!r} is also used by {seen[task.id]}")
            continue
        seen[task.id] = folder
        tasks.append(task)
        flip = judge_flips(task.grader, task.pass_threshold)
        if flip is not None:
            warnings.append(f"{folder}: {flip}")
        failures += [f"{folder}: {problem}" for problem in trap_problems(task)]  # a file check: both modes
        if args.no_selftest:
            continue
        try:
            stats.append(measure(task))
            report = selftest(task, judge=judge)
        except SpecError as exc:
            failures.append(str(exc))
            continue
        finally:
            task.release()  # hundreds of tasks: keep one start state in memory at a time
        reports.append(report)
        for problem in report.problems:
            failures.append(f"{folder}: {problem}")
        for run in report.runs:
            if run.ok:
                continue
            if is_known(run, task.family, gaps):
                seen_gaps.add((task.family, run.agent))
                known.append(f"{folder}: {run.reason}")
            else:
                failures.append(f"{folder}: {run.reason}")
        checked_families.add(task.family)
    # A listed gap that no longer occurs must leave the list, so the list never hides a fix.
    failures += [f"known gap {family} {agent} no longer occurs: delete its line from {KNOWN_GAPS_FILE}"
                 for family in sorted(checked_families) for agent in sorted(gaps.get(family, {}))
                 if (family, agent) not in seen_gaps and len(folders) > 1]
    if tasks:
        print(family_table(tasks, *((None, None) if args.no_selftest else (reports, stats))))
        print()
        for warning in [] if args.no_selftest else thin_families(tasks, reports):
            print(f"warning: {warning}")
    elapsed = time.perf_counter() - started
    checked = "files only" if args.no_selftest else "files and self-tests"
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(
            {"tasks": len(folders), "failures": failures, "warnings": warnings, "known_gaps": known,
             "selftests": [r.to_dict() for r in reports]}, indent=2),
            encoding="utf-8")
    if known:
        print(f"{len(known)} known grader gap(s) in {len({family for family, _ in seen_gaps})} family(ies), "
              f"listed in {KNOWN_GAPS_FILE} (not failures; fix the grader, then delete the line):")
        for family, agent in sorted(seen_gaps):
            count = sum(f" {agent} " in line for line in known if f"/{family.replace('_', '-')}-" in line)
            print(f"  known gap: {family} {agent} ({gaps[family][agent]}, {count} task(s))")
    if warnings:
        print(f"{len(warnings)} warning(s): the judge, not code, could decide these tasks")
        for warning in warnings:
            print("  warning: " + warning)
    if failures:
        print(f"{len(failures)} problem(s) in {len(folders)} task folder(s) ({checked}, {elapsed:.1f}s):")
        for failure in failures:
            print("  " + failure.replace("\n", "\n    "))
        return 1
    print(f"all {len(folders)} task folder(s) valid ({checked}, {elapsed:.1f}s)")
    return 0


def schemas_command(args: argparse.Namespace) -> int:
    from officesim.task import published_schema_files

    out = Path(args.output)
    stale = []
    for name, text in published_schema_files().items():
        path = out / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
            continue
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    if stale:
        print("stale schemas (run 'officesim tasks schemas'): " + ", ".join(stale))
        return 1
    return 0
