"""``officesim deliver``: build ``delivery-YYYY-MM/`` from the task library (offline by default)."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

from officesim.cli.options import (
    add_agent_options,
    add_calibration_options,
    add_judge_options,
    add_quiet_option,
    add_workers_option,
    agent_spec,
    calibration_config,
    env_options,
)
from officesim.pipeline.delivery import Delivery, DeliveryOptions, deliver
from officesim.resources import tasks_dir

THRESHOLDS = ("drop_above", "inspect_below", "hack_bound", "oracle_seeds")
THRESHOLD_HELP = {
    "drop_above": "with a model: drop tasks passing at least this often",
    "inspect_below": "with a model: set aside tasks passing at most this",
    "oracle_seeds": "oracle attempts per task",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "deliver", help="check the task library and build delivery-YYYY-MM/ (tasks, held-out split, report)")
    parser.add_argument("--tasks", help="the task library (default: $OFFICESIM_TASKS, ./tasks, the packaged "
                                            "library, or the tasks of --runs)")
    parser.add_argument("--runs", help="a model's run folder (officesim run --agent openai) used as the baseline")
    add_agent_options(parser, default_agent="random")
    add_judge_options(parser)
    parser.add_argument("--n", type=int, default=8, help="baseline attempts per task (default 8)")
    parser.add_argument("--heldout", type=float, default=0.2,
                        help="share of tasks held out, in whole groups (default 0.2)")
    parser.add_argument("--split-seed", type=int, default=0, help="the held-out split seed (default 0)")
    parser.add_argument("--month", help="YYYY-MM (default: the current month, UTC)")
    parser.add_argument("--out", default=".", help="where delivery-YYYY-MM/ is written (default: .)")
    parser.add_argument("--work", help="where calibration runs live (default: runs/delivery-YYYY-MM)")
    parser.add_argument("--uplift", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="two run folders compared on the held-out tasks; the uplift goes in the report")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing delivery folder even if it holds files officesim did not write")
    add_workers_option(parser)
    add_calibration_options(parser, THRESHOLDS, helps=THRESHOLD_HELP)
    add_quiet_option(parser, text="no progress bars")
    parser.set_defaults(func=deliver_command)


def deliver_command(args: argparse.Namespace) -> int:
    # The one place real time is read: the default name of this month's delivery.
    month = args.month or datetime.now(UTC).strftime("%Y-%m")
    # Default: $OFFICESIM_TASKS, ./tasks, else the packaged library (officesim.resources).
    tasks = Path(args.tasks) if args.tasks else (None if args.runs else tasks_dir())
    options = DeliveryOptions(
        month=month, tasks=tasks, runs=Path(args.runs) if args.runs else None,
        agent=None if args.runs else agent_spec(args), n=args.n, heldout=args.heldout, split_seed=args.split_seed,
        out=Path(args.out), work=Path(args.work) if args.work else None, workers=args.workers,
        calibration=calibration_config(args, THRESHOLDS), env_options=env_options(args), progress=not args.quiet,
        uplift=(Path(args.uplift[0]), Path(args.uplift[1])) if args.uplift else None, force=args.force,
    )
    result = deliver(options)
    print(format_counts(result))
    return 0


def format_counts(result: Delivery) -> str:
    """The summary line, from the same ``counts`` the manifest and the report state."""
    c = result.manifest["counts"]
    return (f"built {result.path}: {c['delivered']} tasks delivered ({c['train']} training + {c['heldout']} "
            f"held-out) of {c['considered']} considered; {c['removed']} removed ({c['remove']} unsound, "
            f"{c['invalid']} invalid), {c['drop']} dropped, {c['inspect']} set aside; see {result.path / 'report.md'}")
