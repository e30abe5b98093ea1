"""``officesim compare RUN_BEFORE RUN_AFTER``: the uplift, paired by task, with bootstrap intervals."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from officesim.errors import OfficesimError
from officesim.pipeline.compare import UPLIFT_PLOT, compare_runs, draw_uplift
from officesim.pipeline.runner import read_run_info
from officesim.pipeline.split import split_tasks
from officesim.task import load_task


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("compare",
                                   help="uplift between two runs: pass@1, pass@k, pass^k, score per category")
    parser.add_argument("before", help="the run before (e.g. the base model)")
    parser.add_argument("after", help="the run after (e.g. the trained model)")
    parser.add_argument("--split", choices=("all", "train", "heldout"), default="all",
                        help="compare only one side of the delivery's split (default: all tasks)")
    parser.add_argument("--delivery", help="take the split from this delivery folder's tasks/ and heldout/")
    parser.add_argument("--heldout", type=float, default=0.2, help="without --delivery: share held out (default 0.2)")
    parser.add_argument("--split-seed", type=int, default=0, help="without --delivery: the split seed (default 0)")
    parser.add_argument("--k", type=int, help="k for pass@k and pass^k (default: the smaller run's attempts per task)")
    parser.add_argument("--out", help="also write uplift.md, uplift.json and uplift.png into this folder")
    parser.set_defaults(func=compare_command)


def _side_ids(args: argparse.Namespace) -> set[str] | None:
    """The task ids of the chosen side of the split, or None for all."""
    if args.split == "all":
        return None
    if args.delivery:
        folder = Path(args.delivery) / ("heldout" if args.split == "heldout" else "tasks")
        if not folder.is_dir():
            raise OfficesimError(f"{folder} does not exist: --delivery must be a folder made by 'officesim deliver'")
        return {p.name for p in folder.iterdir() if (p / "task.yaml").is_file()}
    paths: dict[str, str] = {}
    for run in (args.before, args.after):
        paths.update((read_run_info(run) or {}).get("tasks", {}))
    tasks = [load_task(Path(p)) for _, p in sorted(paths.items()) if (Path(p) / "task.yaml").is_file()]
    if not tasks:
        raise OfficesimError("the runs' run.json list no task folders that still exist; pass --delivery DIR")
    split, _ = split_tasks(tasks, args.heldout, args.split_seed)
    return set(split.heldout if args.split == "heldout" else split.train)


def compare_command(args: argparse.Namespace) -> int:
    comparison = compare_runs(args.before, args.after, only=_side_ids(args), split_name=args.split, k=args.k)
    print(comparison.table())
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        draw_uplift(out / UPLIFT_PLOT, comparison)
        (out / "uplift.md").write_text(comparison.markdown(plot=UPLIFT_PLOT) + "\n", encoding="utf-8")
        (out / "uplift.json").write_text(json.dumps(comparison.to_dict(), indent=2, sort_keys=True) + "\n",
                                         encoding="utf-8")
        print(f"wrote {out / 'uplift.md'}, {out / 'uplift.json'}, {out / UPLIFT_PLOT}")
    return 0
