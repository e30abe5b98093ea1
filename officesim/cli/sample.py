"""``officesim tasks sample``: draw one instance of a family (or count how many distinct ones it has).

``officesim tasks sample FAMILY [--world SPEC] [--seed S] [-o DIR]`` draws the instance of sample
seed ``S`` on the world (default acme) and writes it as a task folder under ``DIR`` (default: the
current directory), verified like every generated task.  ``--stats`` draws ``--draws`` instances
of each family named (or all) on each world and prints how many are distinct (see
``officesim.sampler.instance_stats``).  Registered on the ``tasks`` parser by ``officesim.cli.tasks``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from officesim.errors import SpecError


def add_sample(verbs: argparse._SubParsersAction) -> None:
    """Add ``sample`` to the ``tasks`` verbs."""
    sample = verbs.add_parser("sample", help="draw one fresh instance of a family (or --stats: count distinct ones)")
    sample.add_argument("family", nargs="?", help="the family (omit with --stats for every family)")
    sample.add_argument("--world", action="append", metavar="SPEC",
                        help="a world spec name or path (default acme; repeatable with --stats)")
    sample.add_argument("--world-seed", type=int, metavar="N", help="the world's generation seed (default: the spec's)")
    sample.add_argument("--seed", type=int, default=0, help="the sample seed (default 0): same seed, same task")
    sample.add_argument("-o", "--output", default=".", help="the directory to write the task folder into (default .)")
    sample.add_argument("--exclude", action="append", metavar="GROUP@WORLD", default=[],
                        help="never draw this held-out pair (repeatable; e.g. inbox_triage/urgent@acme, *@nordwerk)")
    sample.add_argument("--exclude-file", metavar="FILE",
                        help="held-out pairs, one a line (officesim split make --pairs FILE writes one)")
    sample.add_argument("--stats", action="store_true", help="count distinct instances per family instead")
    sample.add_argument("--draws", type=int, default=20, help="instances drawn per family and world for --stats")
    sample.add_argument("--json", dest="json_out", metavar="FILE", help="with --stats: also write the counts as JSON")
    sample.set_defaults(func=sample_command)


def sample_command(args: argparse.Namespace) -> int:
    from officesim.sampler import TaskSampler, family_totals, instance_stats

    if args.seed < 0:
        raise SpecError(f"--seed must be a non-negative whole number, not {args.seed}")
    worlds = args.world or ["acme"]
    seeds = None if args.world_seed is None else [args.world_seed]
    if args.stats:
        if args.draws < 2:
            raise SpecError(f"--draws must be at least 2 to find repeats, not {args.draws}")
        started = time.perf_counter()
        rows = instance_stats([args.family] if args.family else None, worlds, draws=args.draws, world_seeds=seeds,
                              progress=lambda line: print(f"  {line}", flush=True))
        print(_stats_table(rows))
        totals = family_totals(rows)
        if len(worlds) > 1 and totals:
            print(f"\nper family over {len(worlds)} worlds:")
            print(_totals_table(totals))
        print(f"({args.draws} draws per family and world, {time.perf_counter() - started:.1f}s)")
        if args.json_out:
            Path(args.json_out).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
        return 0
    if not args.family:
        raise SpecError("name a family to sample (officesim tasks sample FAMILY), or pass --stats")
    if len(worlds) > 1:
        raise SpecError("one instance lives on one world: pass --world once (several only with --stats)")
    started = time.perf_counter()
    sampler = TaskSampler([args.family], worlds, world_seeds=seeds, exclude=_excluded(args))
    drawn = sampler.sample(args.seed)
    folder = drawn.write(args.output)
    print(f"wrote {folder} ({drawn.group} on {drawn.world}, sample seed {args.seed}, "
          f"{time.perf_counter() - started:.1f}s)")
    return 0


def _excluded(args: argparse.Namespace) -> list[str]:
    pairs = list(args.exclude)
    if args.exclude_file:
        path = Path(args.exclude_file)
        if not path.is_file():
            raise SpecError(f"--exclude-file {path} does not exist (officesim split make --pairs FILE writes one)")
        pairs += [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return pairs


def _stats_table(rows: list[dict]) -> str:
    header = ["family", "world", "draws", "distinct instances", "instructions", "solutions", "groups",
              "instances (est.)", "solutions (est.)", "rejected", "s/draw"]
    body = [[r["family"], r["world"], str(r["draws"]), str(r["distinct"]), str(r["distinct_instructions"]),
             str(r["distinct_solutions"]), str(r["groups"]), r["estimate"], r["solution_estimate"], str(r["rejected"]),
             f"{r['seconds_per_draw']:.2f}" if "seconds_per_draw" in r else "-"]
            for r in rows]
    return _table(header, body)


def _totals_table(totals: list[dict]) -> str:
    header = ["family", "worlds", "draws", "distinct instances", "instances (est.)", "s/draw"]
    body = [[t["family"], str(t["worlds"]), str(t["draws"]), str(t["distinct"]), t["estimate"],
             f"{t['seconds_per_draw']:.2f}"] for t in totals]
    return _table(header, body)


def _table(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in [header, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
