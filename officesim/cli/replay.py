"""``officesim replay RUN_OR_DELIVERY [--against REV]``: which results and grades a code change alters."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from officesim.errors import OfficesimError
from officesim.toolapi.replay import (
    as_digests,
    compare,
    corpus_of,
    corpus_text,
    execute,
    read_corpus,
    render,
    trajectories_of,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay", help="re-execute recorded tool calls with this code (or a revision) and report what changed",
        description="SOURCE is a run folder (its transcripts), or a delivery, task library or task folder "
                    "(the reference trajectories of its solutions). The base is the results recorded in the "
                    "run, a recorded corpus (--corpus) or another git revision (--against); the head is this "
                    "checkout (or --head REV). Exit 1 when anything changed (see --fail-on).")
    parser.add_argument("source", help="a run folder, a delivery, a task library or a task folder")
    parser.add_argument("--against", metavar="REV", help="the base: replay under this git revision")
    parser.add_argument("--head", metavar="REV", help="the head: replay under this git revision (default: this code)")
    parser.add_argument("--corpus", metavar="FILE", help="the base: a corpus recorded with --record")
    parser.add_argument("--record", metavar="FILE", help="write the head's results as a reference corpus")
    parser.add_argument("--repo", help="the git repository revisions refer to (default: here)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: CPUs)")
    parser.add_argument("--fail-on", choices=("results", "grades", "never"), default="results",
                        help="exit 1 when any result changed (default), only when a grade changed, or never")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=replay_command)


def replay_command(args: argparse.Namespace) -> int:
    if args.against and args.corpus:
        raise OfficesimError("--against and --corpus both name a base; give one")
    repo = Path(args.repo) if args.repo else None
    trajectories = trajectories_of(Path(args.source))
    head = execute(trajectories, args.head, repo=repo, workers=args.workers)
    if args.record:
        Path(args.record).write_text(corpus_text(corpus_of(head, trajectories)), encoding="utf-8")
    head_label = f"git:{args.head}" if args.head else "this checkout"
    if args.against:
        base = execute(trajectories, args.against, repo=repo, workers=args.workers)
        report = compare(trajectories, base, head, base_label=f"git:{args.against}", head_label=head_label)
    elif args.corpus:
        report = compare(trajectories, read_corpus(Path(args.corpus)), as_digests(head),
                         base_label=f"corpus {args.corpus}", head_label=head_label)
    elif all(t.recorded is not None for t in trajectories):
        report = compare(trajectories, None, head, base_label="the recorded transcripts", head_label=head_label)
    elif args.record:
        print(f"recorded {len(trajectories)} reference trajectories in {args.record}")
        return 0
    else:
        raise OfficesimError(f"{args.source} has no recorded results to compare with; pass --against REV "
                             "(e.g. main) or --corpus FILE, or --record FILE to record them")
    print(json.dumps(report.to_dict(), indent=2) if args.json else render(report))
    if args.fail_on == "never":
        return 0
    failing = report.grade_changes() if args.fail_on == "grades" else report.changed()
    return 1 if failing else 0
