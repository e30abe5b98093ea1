"""``officesim regress --tasks DIR --agent A --base REV --head REV``: does a tool change hurt real agents?"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from officesim.agents.registry import check_agent
from officesim.cli.options import add_agent_options, agent_spec
from officesim.errors import OfficesimError
from officesim.task import find_tasks
from officesim.toolapi.regress import Side, regress, render


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "regress", help="the same agent on the same tasks under two tool-surface versions, compared",
        description="Plays n attempts per task on the base and on the head (each this checkout, a git revision, "
                    "and optionally a drift seed) with the same seeds, and reports pass-rate and score changes per "
                    "task, category and overall with paired 95%% intervals. Exit 1 when the head is worse beyond "
                    "the interval. With --drift alone it measures robustness to API drift.")
    parser.add_argument("--tasks", nargs="+", required=True, help="task folders or directories of task folders")
    add_agent_options(parser)
    parser.add_argument("--base", metavar="REV", help="the base code: a git revision (default: this checkout)")
    parser.add_argument("--head", metavar="REV", help="the head code: a git revision (default: this checkout)")
    parser.add_argument("--drift", type=int, metavar="SEED", help="serve the head with this drift seed")
    parser.add_argument("--base-drift", type=int, metavar="SEED", help="serve the base with this drift seed")
    parser.add_argument("--n", type=int, default=1, help="attempts per task on each side (default 1)")
    parser.add_argument("--base-seed", type=int, default=0, help="mixed into every attempt seed (default 0)")
    parser.add_argument("--repo", help="the git repository revisions refer to (default: here)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: CPUs)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=regress_command)


def regress_command(args: argparse.Namespace) -> int:
    base, head = Side(args.base, args.base_drift), Side(args.head, args.drift)
    if base == head:
        raise OfficesimError("base and head are the same condition; give --base/--head revisions or --drift")
    if args.n < 1:
        raise OfficesimError("--n must be at least 1")
    tasks = find_tasks(args.tasks)
    if not tasks:
        raise OfficesimError("no task folders found")
    spec = agent_spec(args)
    check_agent(spec.name, spec.options)
    report = regress(tasks, spec, args.n, base, head, repo=Path(args.repo) if args.repo else None,
                     workers=args.workers, base_seed=args.base_seed)
    print(json.dumps(report.to_dict(), indent=2) if args.json else render(report))
    return 1 if report.regressed() else 0
