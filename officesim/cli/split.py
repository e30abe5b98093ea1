"""``officesim split audit DELIVERY``: look for near twins, by content, across a delivery's split."""

from __future__ import annotations

import argparse
from pathlib import Path

from officesim.errors import OfficesimError
from officesim.task import find_tasks, load_task
from officesim.twins import content_of, find_twins


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("split", help="check a delivery's held-out split")
    verbs = parser.add_subparsers(dest="split_verb", required=True)
    audit = verbs.add_parser("audit", help="near twins (instruction, facts, solution shape) across tasks/ and heldout/")
    audit.add_argument("delivery", help="a delivery folder (with tasks/ and heldout/)")
    audit.add_argument("--limit", type=int, default=50, help="pairs to print at most (default 50)")
    audit.set_defaults(func=audit_command)


def audit_command(args: argparse.Namespace) -> int:
    """Exit 0 when no group and no near-twin pair straddles the split, 1 when some do (each printed)."""
    root = Path(args.delivery)
    sides = {side: root / side for side in ("tasks", "heldout")}
    missing = [str(p) for p in sides.values() if not p.is_dir()]
    if missing:
        raise OfficesimError(f"{root} is not a delivery: {', '.join(missing)} missing "
                             "(make one with 'officesim deliver')")
    contents, side_of = [], {}
    for side, folder in sides.items():
        for path in find_tasks([folder]):
            task = load_task(path)
            contents.append(content_of(task))
            side_of[task.id] = side
    pairs = find_twins(contents, across=side_of, skip_same_group=False)
    groups = {c.task: c.group for c in contents}
    sides_of_group: dict[str, set[str]] = {}
    for task_id, side in side_of.items():
        sides_of_group.setdefault(groups[task_id], set()).add(side)
    cut = sorted(g for g, s in sides_of_group.items() if len(s) > 1)
    held = sum(1 for s in side_of.values() if s == "heldout")
    print(f"{root}: {len(side_of) - held} training and {held} held-out tasks compared by instruction, facts and "
          f"solution shape")
    for pair in pairs[: args.limit]:
        print(f"  near twins across the split: {pair.a} ({side_of[pair.a]}) / {pair.b} ({side_of[pair.b]}): "
              f"{pair.why()}")
    if len(pairs) > args.limit:
        print(f"  ... and {len(pairs) - args.limit} more")
    if cut:
        print(f"  groups cut by the split: {', '.join(cut)}")
    print(f"{len(pairs)} near-twin pair(s) and {len(cut)} group(s) straddle the split"
          + ("" if pairs or cut else ": the split holds"))
    return 1 if pairs or cut else 0
