"""``officesim tasks generate``: write the task library from its family generators.

Registered on the ``tasks`` parser by ``officesim.cli.tasks``; the generators are imported when
the verb runs, so ``officesim tasks ... --help`` does not import every family.  Regenerating reproduces the
checked-in ``tasks/`` folder byte for byte, so a diff after running it is a real change.
"""

from __future__ import annotations

import argparse
import time


def add_generate(verbs: argparse._SubParsersAction) -> None:
    """Add ``generate`` to the ``tasks`` verbs."""
    generate = verbs.add_parser("generate", help="write task folders from the family generators")
    generate.add_argument("-o", "--output", default="tasks", help="the tasks directory to write (default: tasks)")
    generate.add_argument("--family", action="append", metavar="NAME",
                          help="only this family (repeatable; an unknown name lists the families)")
    generate.add_argument("--world", action="append", metavar="SPEC",
                          help="generate on this world instead of each family's own list (repeatable; a spec "
                               "name or path); ids on a world other than acme are <slug>-<world>-NNN")
    generate.set_defaults(func=generate_command)


def generate_command(args: argparse.Namespace) -> int:
    from officesim.taskgen import generate_all

    started = time.perf_counter()
    written = generate_all(args.output, args.family, progress=lambda line: print(f"  {line}"), worlds=args.world)
    elapsed = time.perf_counter() - started
    print(f"wrote {len(written)} task folders to {args.output} in {elapsed:.1f}s")
    return 0
