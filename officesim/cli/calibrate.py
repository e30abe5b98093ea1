"""``officesim calibrate runs/NAME``: keep / drop / inspect each task, and flag unsound ones."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from officesim.calibrate import CALIBRATION, CalibrationConfig, calibrate, format_table
from officesim.grading.judge import JudgeConfig


def register(subparsers: argparse._SubParsersAction) -> None:
    defaults = CalibrationConfig()
    parser = subparsers.add_parser("calibrate", help="sort a run's tasks into keep/drop/inspect and flag unsound ones")
    parser.add_argument("run", help="a run folder made by 'officesim run'")
    parser.add_argument("--tasks", nargs="*", help="task folders (default: those recorded in the run)")
    parser.add_argument("--drop-above", type=float, default=defaults.drop_above,
                        help=f"drop tasks with a pass rate at least this (default {defaults.drop_above})")
    parser.add_argument("--inspect-below", type=float, default=defaults.inspect_below,
                        help=f"inspect tasks with a pass rate at most this (default {defaults.inspect_below})")
    parser.add_argument("--hack-bound", type=float, default=defaults.hack_bound,
                        help=f"a probe scoring above this makes a task hackable (default {defaults.hack_bound})")
    parser.add_argument("--ambiguity-bound", type=float, default=defaults.ambiguity_bound,
                        help="share of regrades on which a judge criterion may disagree with itself "
                             f"(default {defaults.ambiguity_bound})")
    parser.add_argument("--oracle-seeds", type=int, default=defaults.oracle_seeds,
                        help=f"oracle attempts per task; 0 skips the oracle (default {defaults.oracle_seeds})")
    parser.add_argument("--regrade-attempts", type=int, default=defaults.regrade_attempts,
                        help=f"stored trajectories regraded per task (default {defaults.regrade_attempts})")
    parser.add_argument("--regrades", type=int, default=defaults.regrades,
                        help=f"times each is regraded (default {defaults.regrades})")
    parser.add_argument("--no-probes", action="store_true", help="do not run the null agent and hack probes")
    parser.add_argument("--probe-runs", help="read oracle/probe runs from this folder instead of running them")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: CPUs)")
    parser.add_argument("--judge-model", help="judge model for regrading (default: $OFFICESIM_JUDGE_MODEL)")
    parser.add_argument("--judge-base-url", help="judge endpoint (default: $OFFICESIM_JUDGE_BASE_URL)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=calibrate_command)


def calibrate_command(args: argparse.Namespace) -> int:
    config = CalibrationConfig(
        drop_above=args.drop_above, inspect_below=args.inspect_below, hack_bound=args.hack_bound,
        ambiguity_bound=args.ambiguity_bound, oracle_seeds=args.oracle_seeds,
        regrade_attempts=args.regrade_attempts, regrades=args.regrades,
        probes=() if args.no_probes else None,
    )
    overrides = {k: v for k, v in (("model", args.judge_model), ("base_url", args.judge_base_url)) if v}
    judge = JudgeConfig.from_env(**overrides)
    result = calibrate(args.run, tasks=args.tasks, config=config, probe_runs=args.probe_runs,
                       workers=args.workers, progress=not args.quiet,
                       env_options={"judge": judge} if judge else None)
    print(format_table(result))
    print(f"wrote {Path(args.run) / CALIBRATION}")
    return 0
