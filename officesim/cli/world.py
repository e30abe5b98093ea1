"""``officesim world build|show``: generate a world to a SQLite file and inspect one."""

from __future__ import annotations

import argparse
import time

from officesim.world import World


def register(subparsers: argparse._SubParsersAction) -> None:
    world = subparsers.add_parser("world", help="build and inspect worlds")
    verbs = world.add_subparsers(dest="world_verb", required=True)
    build = verbs.add_parser("build", help="generate a world from a spec into a SQLite file")
    build.add_argument("spec", help="a world spec: a name (acme, tiny, large) or a YAML path")
    build.add_argument("-o", "--output", required=True, help="the SQLite file to write")
    build.add_argument("--seed", type=int, default=None, help="override the spec's seed")
    build.set_defaults(func=build_world)
    show = verbs.add_parser("show", help="rows per table and the state hash of a saved world")
    show.add_argument("path", help="a SQLite file written by 'officesim world build'")
    show.set_defaults(func=show_world)


def build_world(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    world = World.generate(args.spec, seed=args.seed)
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
