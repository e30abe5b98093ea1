"""``officesim run TASKS --agent A --n N --out runs/NAME``: attempts in parallel, resumable, with metrics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from officesim.cli.options import (
    add_agent_options,
    add_judge_options,
    add_quiet_option,
    add_workers_option,
    agent_spec,
    env_options,
)
from officesim.errors import OfficesimError
from officesim.metrics import format_groups, summarize
from officesim.runner import BACKENDS, read_results, run
from officesim.task import find_tasks


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
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="local processes (default) or ray: --workers Ray actors (pip install 'officesim[ray]')")
    parser.add_argument("--address", default=None,
                        help="the Ray cluster to join with --backend ray (e.g. ray://head:10001 or auto; "
                             "default: start a local Ray instance)")
    parser.add_argument("--k", type=int, nargs="*", default=[1, 5, 10], help="k values for pass@k (default 1 5 10)")
    add_quiet_option(parser)
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    if args.address and args.backend != "ray":
        raise OfficesimError("--address applies to --backend ray")
    tasks = find_tasks(args.tasks)
    if not tasks:
        print("officesim: no task folders found", file=sys.stderr)
        return 2
    spec = agent_spec(args)
    out = Path(args.out)
    report = run(tasks, spec, args.n, out, workers=args.workers, base_seed=args.base_seed,
                 retry_errors=args.retry_errors, env_options=env_options(args), progress=not args.quiet,
                 backend=args.backend, address=args.address)
    print(f"{spec.name}: {report.played} attempt(s) played, {report.skipped} already done, "
          f"{report.errors} error(s); results in {out / 'results.jsonl'}")
    ids = {t.name for t in tasks}
    records = [r for r in read_results(out) if r["task"] in ids]
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
    return 0
