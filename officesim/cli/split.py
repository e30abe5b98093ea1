"""``officesim split audit DELIVERY``: look for near twins, by content, across a delivery's split.

``officesim split make TASKS [--by group|world|both]`` prints the held-out split of a task library
(``officesim.pipeline.split.split_tasks``): by group (near twins never straddle it), by world (whole
companies never seen in training) or both; ``--pairs FILE`` writes the held-out side as
``group@world`` lines for ``officesim tasks sample --exclude-file`` / ``TaskSampler(exclude=...)``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from officesim.errors import OfficesimError
from officesim.pipeline.split import instruction_key
from officesim.pipeline.twins import content_of, find_twins
from officesim.task import find_tasks, load_task


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("split", help="make a held-out split (by group or world) or check a delivery's")
    verbs = parser.add_subparsers(dest="split_verb", required=True)
    audit = verbs.add_parser("audit", help="near twins (instruction, facts, solution shape) across tasks/ and heldout/")
    audit.add_argument("delivery", help="a delivery folder (with tasks/ and heldout/)")
    audit.add_argument("--limit", type=int, default=50, help="pairs to print at most (default 50)")
    audit.set_defaults(func=audit_command)
    make = verbs.add_parser("make", help="split a task library by group, by world or both; print the sides")
    make.add_argument("tasks", help="a directory of task folders")
    make.add_argument("--by", choices=("group", "world", "both"), default="group",
                      help="hold out groups (default), whole worlds, or both")
    make.add_argument("--heldout", type=float, default=0.2, help="the share of tasks held out (default 0.2)")
    make.add_argument("--seed", type=int, default=0, help="the split seed (default 0)")
    make.add_argument("--world", action="append", metavar="NAME",
                      help="with --by world/both: hold out this world (repeatable; default: chosen by share)")
    make.add_argument("--pairs", metavar="FILE", help="write the held-out (group@world) pairs, one a line")
    make.set_defaults(func=make_command)


def make_command(args: argparse.Namespace) -> int:
    """Print the split's sides (tasks, groups, worlds held out); ``--pairs`` writes the held-out pairs."""
    from officesim.pipeline.split import heldout_pairs, shared_instructions, split_tasks, world_of

    tasks = [load_task(path) for path in find_tasks([args.tasks])]
    if not tasks:
        raise OfficesimError(f"no task folders under {args.tasks}")
    if args.world and args.by == "group":
        raise OfficesimError("--world names held-out worlds: use it with --by world or --by both")
    try:
        split, _ = split_tasks(tasks, args.heldout, args.seed, by=args.by, worlds=args.world)
    except ValueError as exc:
        raise OfficesimError(str(exc)) from None
    worlds = sorted({world_of(t) for t in tasks})
    print(f"split of {len(tasks)} tasks on {len(worlds)} world(s) ({', '.join(worlds)}) by {split.by}, "
          f"seed {split.seed}: {len(split.train)} train, {len(split.heldout)} held out ({split.realised:.1%} of "
          f"{split.fraction:.0%} asked)")
    if split.heldout_worlds:
        print(f"  held-out worlds: {', '.join(split.heldout_worlds)}")
    print(f"  groups with held-out tasks: {len(split.heldout_groups)} of {len({t.group for t in tasks})}")
    for value, why in split.uncovered:
        print(f"  not covered: {value}: {why}")
    if split.moved_for_text:
        print(f"  moved to held out: {len(split.moved_for_text)} training task(s) whose instruction text a held-out "
              "world has word for word")
    print(f"  instruction texts on both sides: {len(shared_instructions(split, tasks))}")
    if args.pairs:
        pairs = heldout_pairs(split, tasks)
        Path(args.pairs).write_text("".join(f"{pair}\n" for pair in pairs), encoding="utf-8")
        print(f"wrote {len(pairs)} held-out pair(s) to {args.pairs}")
    return 0


def audit_command(args: argparse.Namespace) -> int:
    """Exit 0 when no group and no near-twin pair straddles the split, 1 when some do (each printed)."""
    root = Path(args.delivery)
    sides = {side: root / side for side in ("tasks", "heldout")}
    missing = [str(p) for p in sides.values() if not p.is_dir()]
    if missing:
        raise OfficesimError(f"{root} is not a delivery: {', '.join(missing)} missing "
                             "(make one with 'officesim deliver')")
    contents, side_of = [], {}
    texts: dict[str, dict[str, list[str]]] = {}  # instruction text -> side -> task ids
    for side, folder in sides.items():
        for path in find_tasks([folder]):
            task = load_task(path)
            contents.append(content_of(task))
            side_of[task.id] = side
            texts.setdefault(instruction_key(task.instruction), {}).setdefault(side, []).append(task.id)
    shared = {text: ids for text, ids in sorted(texts.items()) if len(ids) > 1}
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
    for text, ids in list(shared.items())[: args.limit]:
        print(f"  the same instruction on both sides: {', '.join(ids['tasks'])} (tasks) / "
              f"{', '.join(ids['heldout'])} (heldout): {text[:80]!r}")
    print(f"{len(pairs)} near-twin pair(s), {len(cut)} group(s) and {len(shared)} instruction text(s) straddle the "
          "split" + ("" if pairs or cut or shared else ": the split holds"))
    return 1 if pairs or cut or shared else 0
