"""The ``officesim`` command: thin, one module per verb, friendly errors without tracebacks.

Each verb module exposes ``register(subparsers)`` that adds its parser and sets ``func``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from officesim.cli import calibrate as calibrate_cli
from officesim.cli import compare as compare_cli
from officesim.cli import deliver as deliver_cli
from officesim.cli import grade as grade_cli
from officesim.cli import run as run_cli
from officesim.cli import serve as serve_cli
from officesim.cli import split as split_cli
from officesim.cli import tasks as tasks_cli
from officesim.cli import tools as tools_cli
from officesim.cli import view as view_cli
from officesim.cli import world as world_cli
from officesim.errors import OfficesimError, ToolError

VERB_MODULES = [world_cli, tools_cli, tasks_cli, grade_cli, run_cli, calibrate_cli, deliver_cli, serve_cli,
                compare_cli, split_cli, view_cli]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="officesim", description="A simulated office for LLM agents.")
    subparsers = parser.add_subparsers(dest="verb", required=True)
    for module in VERB_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse, run the verb, turn user errors into one clear line and exit code 2."""
    args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
    except (OfficesimError, ToolError) as exc:
        print(f"officesim: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as exc:
        print(f"officesim: {exc.strerror}: {exc.filename}", file=sys.stderr)  # a path the user gave
        return 2
    except KeyboardInterrupt:
        print("officesim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``officesim tools list | head``): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
