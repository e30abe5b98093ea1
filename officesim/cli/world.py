"""``officesim world build|show``: generate a world to a SQLite file and inspect one."""

from __future__ import annotations

import argparse
import sys
import time

from officesim.progress import format_duration
from officesim.spec import load_spec
from officesim.world import World
from officesim.worldgen import StageCallback

# Specs estimated above this many records (acme: ~3,000, large: ~27,000) show which app is
# generating: the biggest take a minute or two, and a silent minute looks like a hang.
PROGRESS_ABOVE = 20_000


def register(subparsers: argparse._SubParsersAction) -> None:
    world = subparsers.add_parser("world", help="build and inspect worlds")
    verbs = world.add_subparsers(dest="world_verb", required=True)
    build = verbs.add_parser("build", help="generate a world from a spec into a SQLite file")
    build.add_argument("spec", help="a world spec: a name (acme, tiny, large) or a YAML path")
    build.add_argument("-o", "--output", required=True, help="the SQLite file to write")
    build.add_argument("--seed", type=int, default=None, help="override the spec's seed")
    build.add_argument("--quiet", action="store_true", help="no progress lines on stderr for big worlds")
    build.set_defaults(func=build_world)
    show = verbs.add_parser("show", help="rows per table and the state hash of a saved world")
    show.add_argument("path", help="a SQLite file written by 'officesim world build'")
    show.set_defaults(func=show_world)


def stage_printer(estimated: int, started: float) -> StageCallback:
    """Print one line to stderr as each app starts generating, with the time so far."""

    def on_stage(app: str, index: int, total: int) -> None:
        elapsed = format_duration(time.perf_counter() - started)
        print(f"world build: generating {app} ({index + 1}/{total}, ~{estimated:,} records in all, "
              f"{elapsed} so far)", file=sys.stderr, flush=True)

    return on_stage


def build_world(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    spec = load_spec(args.spec)
    estimated = sum(spec.size.estimated_rows().values())
    show = not args.quiet and estimated > PROGRESS_ABOVE
    world = World.generate(spec, seed=args.seed, on_stage=stage_printer(estimated, started) if show else None)
    world.save(args.output)
    elapsed = time.perf_counter() - started
    print(f"built {args.output} from {args.spec} (seed {world.meta('seed')}) in {elapsed:.2f}s")
    print(f"state hash {world.state_hash()}")
    return 0


def show_world(args: argparse.Namespace) -> int:
    world = World.load(args.path)
    user = world.user
    print(f"{world.meta('company')} ({world.meta('domain')}), spec {world.meta('spec')}, seed {world.meta('seed')}")
    print(f"clock {world.now_ts()}, acting user {user['name']} <{user['email']}> ({user['title']})")
    counts = world.counts()
    width = max(len(t) for t in counts)
    for table, count in counts.items():
        print(f"  {table:<{width}}  {count:>7}")
    print(f"  {'total':<{width}}  {sum(counts.values()):>7}")
    print(f"state hash {world.state_hash()}")
    return 0
