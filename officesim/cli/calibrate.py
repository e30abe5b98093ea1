"""``officesim calibrate runs/NAME``: keep / drop / inspect each task, and flag unsound ones."""

from __future__ import annotations

import argparse
from pathlib import Path

from officesim.cli.options import (
    add_calibration_options,
    add_judge_options,
    add_quiet_option,
    add_workers_option,
    calibration_config,
    env_options,
)
from officesim.pipeline.calibrate import CALIBRATION, calibrate, format_table

THRESHOLDS = ("drop_above", "inspect_below", "hack_bound", "ambiguity_bound", "oracle_seeds", "regrade_attempts",
              "regrades")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("calibrate", help="sort a run's tasks into keep/drop/inspect and flag unsound ones")
    parser.add_argument("run", help="a run folder made by 'officesim run'")
    parser.add_argument("--tasks", nargs="*", help="task folders (default: those recorded in the run)")
    add_calibration_options(parser, THRESHOLDS)
    parser.add_argument("--no-probes", action="store_true", help="do not run the null agent and hack probes")
    parser.add_argument("--probe-runs", help="read oracle/probe runs from this folder instead of running them")
    add_workers_option(parser)
    add_judge_options(parser, purpose="regrading")
    add_quiet_option(parser)
    parser.set_defaults(func=calibrate_command)


def calibrate_command(args: argparse.Namespace) -> int:
    config = calibration_config(args, THRESHOLDS, probes=() if args.no_probes else None)
    result = calibrate(args.run, tasks=args.tasks, config=config, probe_runs=args.probe_runs,
                       workers=args.workers, progress=not args.quiet, env_options=env_options(args) or None)
    print(format_table(result))
    print(f"wrote {Path(args.run) / CALIBRATION}")
    return 0
