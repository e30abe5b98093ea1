"""``officesim world build|show``: generate a world to a SQLite file and inspect one."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from officesim.errors import OfficesimError
from officesim.pipeline.progress import format_duration
from officesim.world import World
from officesim.world_spec import load_spec
from officesim.worldgen import StageCallback

# Specs estimated above this many records (acme: ~3,000, large: ~27,000) show which app is
# generating: the biggest take a minute or two, and a silent minute looks like a hang.
PROGRESS_ABOVE = 20_000


def register(subparsers: argparse._SubParsersAction) -> None:
    world = subparsers.add_parser("world", help="build and inspect worlds")
    verbs = world.add_subparsers(dest="world_verb", required=True)
    build = verbs.add_parser("build", help="generate a world from a spec into a SQLite file")
    build.add_argument("spec", help="a world spec: a shipped name (acme, forge, counsel, carewell, ...) or a YAML path")
    build.add_argument("-o", "--output", help="the SQLite file to write (omitted: build, report and discard)")
    build.add_argument("--seed", type=int, default=None, help="override the spec's seed")
    build.add_argument("--quiet", action="store_true", help="no progress lines on stderr for big worlds")
    build.set_defaults(func=build_world)
    show = verbs.add_parser("show", help="rows per table and the state hash of a saved world")
    show.add_argument("path", help="a SQLite file written by 'officesim world build'")
    show.set_defaults(func=show_world)
    new = verbs.add_parser("new", help="draft a world spec to edit: an industry, a locale and a head count")
    new.add_argument("name", help="the spec's short name, e.g. 'brightpath' (also the file name by default)")
    new.add_argument("--industry", required=True, help="software, manufacturing, legal, clinic, retail or nonprofit")
    new.add_argument("--locale", required=True, help="e.g. en_US, en_GB, en_IN, de_DE, fr_FR (any faker locale)")
    new.add_argument("--people", required=True, type=int, help="employees, 5-2,000 (other sizes follow)")
    new.add_argument("--company", help="the company's name (default: from the name and the industry)")
    new.add_argument("--currency", help="ISO 4217 home currency (default: the locale's, e.g. INR for en_IN)")
    new.add_argument("--seed", type=int, default=0, help="the spec's seed (default 0)")
    new.add_argument("-o", "--output", help="the YAML file to write (default: NAME.yaml here); '-' prints it")
    new.add_argument("--force", action="store_true", help="overwrite an existing file")
    new.set_defaults(func=new_world)


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
    if args.output:
        world.save(args.output)
    elapsed = time.perf_counter() - started
    where = args.output or "memory (not saved; pass -o FILE to keep it)"
    print(f"built {where} from {args.spec} (seed {world.meta('seed')}) in {elapsed:.2f}s")
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


def new_world(args: argparse.Namespace) -> int:
    """Write a drafted spec (``officesim.industries.draft``) that builds as it is and reads well to edit."""
    from officesim.industries.draft import draft_spec, spec_text

    text = spec_text(draft_spec(args.name, args.industry, args.locale, args.people, company=args.company,
                                currency=args.currency, seed=args.seed))
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    path = Path(args.output or f"{args.name}.yaml")
    if path.exists() and not args.force:
        raise OfficesimError(f"{path} exists; pass --force to overwrite it or -o to write elsewhere")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OfficesimError(f"cannot write {path}: {exc.strerror}") from None
    print(f"wrote {path}: {args.industry}, {args.locale}, {args.people:,} people; edit it, then "
          f"'officesim world build {path}'")
    return 0
