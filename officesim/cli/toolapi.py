"""``officesim tools diff|lock``: what a change to the tool surface breaks, and accepting it on review."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from officesim.toolapi.diff import diff_surfaces, render
from officesim.toolapi.lock import LOCK_FILE, check_lock, write_lock
from officesim.toolapi.surface import load_surface


def register_tools_verbs(verbs: argparse._SubParsersAction) -> None:
    """Add ``diff`` and ``lock`` under ``officesim tools``."""
    diff = verbs.add_parser(
        "diff", help="classify every change between two tool surfaces (exit 1 when one is breaking)",
        description="OLD and NEW are each a tools.json/tools.lock (any export format), a delivery or task "
                    "folder, a project folder, or a git revision (main, HEAD~1, a commit).")
    diff.add_argument("old", help="the surface before the change")
    diff.add_argument("new", help="the surface after the change")
    diff.add_argument("--json", action="store_true", help="print the changes as JSON")
    diff.add_argument("--repo", default=None, help="the git repository revisions refer to (default: here)")
    diff.set_defaults(func=diff_command)
    lock = verbs.add_parser("lock", help="accept the current tool surface into tools.lock (bumps its version)")
    lock.add_argument("--file", default=str(LOCK_FILE), help=f"the lock file (default {LOCK_FILE.name} at the root)")
    lock.add_argument("--check", action="store_true", help="only check: exit 1 and show the changes when it differs")
    lock.set_defaults(func=lock_command)


def diff_command(args: argparse.Namespace) -> int:
    repo = Path(args.repo) if args.repo else None
    result = diff_surfaces(load_surface(args.old, repo=repo), load_surface(args.new, repo=repo))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(render(result))
    return 1 if result.breaking else 0


def lock_command(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if args.check:
        problem = check_lock(path)
        if problem:
            print(problem, file=sys.stderr)
            return 1
        print(f"{path} matches the code")
        return 0
    old, new, result = write_lock(path)
    if result is None:
        print(f"wrote {path}: version {new}")
    elif not result.changes and old == new:
        print(f"{path} already matches the code (version {new})")
    else:
        print(render(result))
        print(f"wrote {path}: version {old} -> {new}")
    return 0
