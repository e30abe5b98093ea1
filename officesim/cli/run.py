"""``officesim run TASKS --agent A --n N --out runs/NAME``: attempts in parallel, resumable, with metrics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from officesim.cli.options import (
    add_agent_options,
    add_judge_options,
    add_quiet_option,
    add_workers_option,
    agent_spec,
    bounded_int,
    env_options,
)
from officesim.errors import OfficesimError, SpecError
from officesim.pipeline.attempts import read_attempts
from officesim.pipeline.metrics import format_groups, summarize
from officesim.pipeline.runner import BACKENDS, hashes_of, run
from officesim.task import Task, find_tasks, load_task


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("run", help="run n attempts per task with an agent (parallel, resumable)")
    parser.add_argument("tasks", nargs="+", help="task folders or directories of task folders")
    add_agent_options(parser)
    add_judge_options(parser)
    parser.add_argument("--n", type=int, default=1, help="attempts per task (default 1)")
    parser.add_argument("--out", required=True, help="the run folder, e.g. runs/NAME (resumed when it exists)")
    add_workers_option(parser)
    parser.add_argument("--base-seed", type=int, default=0, help="mixed into every attempt seed (default 0)")
    parser.add_argument("--retry-errors", action="store_true", help="play again attempts recorded as error")
    parser.add_argument("--stop-after-repeats", type=bounded_int(2, what="--stop-after-repeats"), metavar="N",
                        help="end an episode after N identical failing calls in a row (graded as it stands; "
                        "recorded under 'stopped'); default: play the whole step budget")
    parser.add_argument("--k", type=bounded_int(1, what="--k"), nargs="*", default=[1, 5, 10],
                        help="k values for pass@k (default 1 5 10)")
    parser.add_argument("--drift", type=int, metavar="SEED", help="serve every task with a seeded drift of its tool "
                        "surface (renamed parameters, a deprecated tool...; see docs/tool-regression.md)")
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="local processes (default) or ray: --workers Ray actors (pip install 'officesim[ray]')")
    parser.add_argument("--address", default=None,
                        help="the Ray cluster to join with --backend ray (e.g. ray://head:10001 or auto; "
                             "default: start a local Ray instance)")
    add_quiet_option(parser)
    parser.set_defaults(func=run_command)


def _env_options(args: argparse.Namespace) -> dict[str, Any]:
    options = env_options(args)
    if args.stop_after_repeats is not None:
        options["stop_after_repeats"] = args.stop_after_repeats
    return options


def load_all(folders: list[Path]) -> list[Task]:
    """Every task folder loaded, or ``SpecError`` listing every broken one (nothing is played then)."""
    tasks, problems = [], []
    for folder in folders:
        try:
            tasks.append(load_task(folder))
        except SpecError as exc:
            problems.append(str(exc).replace("\n", "\n    "))
    if problems:
        raise SpecError(f"{len(problems)} of {len(folders)} task folder(s) are invalid; nothing was run "
                        "(see 'officesim tasks validate'):\n  " + "\n  ".join(problems))
    return tasks


def run_command(args: argparse.Namespace) -> int:
    if args.address and args.backend != "ray":
        raise OfficesimError("--address applies to --backend ray")
    folders = find_tasks(args.tasks)
    if not folders:
        print("officesim: no task folders found", file=sys.stderr)
        return 2
    tasks = load_all(folders)  # every folder checked before anything is played
    hashes = hashes_of(tasks)
    spec = agent_spec(args)
    out = Path(args.out)
    options = _env_options(args)
    if args.drift is not None:
        options["drift"] = args.drift
    mixed = sorted({r.drift for r in read_attempts(out)} - {args.drift}, key=str)  # None and seeds
    if mixed:
        print(f"officesim: {out} holds attempts played with drift {mixed[0]}, not {args.drift}; "
              "use another --out folder so the two conditions are not mixed", file=sys.stderr)
        return 2
    report = run(folders, spec, args.n, out, workers=args.workers, base_seed=args.base_seed,
                 retry_errors=args.retry_errors, env_options=options, progress=not args.quiet, hashes=hashes,
                 backend=args.backend, address=args.address,
                 loaded=dict(zip(folders, tasks, strict=True)))  # played here with --workers 1; workers load their own
    print(f"{spec.name}: {report.played} attempt(s) played, {report.skipped} already done, "
          f"{report.errors} error(s); results in {out / 'results.jsonl'}")
    ids = {t.name for t in folders}
    records = [r for r in read_attempts(out) if r.task in ids]
    summary = summarize(records, ks=[k for k in args.k if k <= args.n] or [1])
    print(format_groups(summary.categories.values(), "category"))
    print(format_groups(summary.difficulties.values(), "difficulty"))
    print(format_groups([summary.overall], "overall"))
    for k in summary.ks:
        if k in summary.overall.pass_at:
            print(f"pass@{k} {summary.overall.pass_at[k]:.3f}   pass^{k} {summary.overall.pass_hat[k]:.3f}")
    if report.crashes:
        shown = ", ".join(report.crashes[:5]) + (" ..." if len(report.crashes) > 5 else "")
        print(f"officesim: {len(report.crashes)} attempt(s) crashed (a bug or a broken task; the traceback is "
              f"under 'crash' in results.jsonl): {shown}", file=sys.stderr)
        return 1
    if report.errors:
        print(f"officesim: {report.errors} attempt(s) ended in an agent error (no score; the reason is under "
              f"'error' in results.jsonl); fix the cause and rerun with --retry-errors", file=sys.stderr)
        return 1
    return 0
