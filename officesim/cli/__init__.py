"""The ``officesim`` command: thin, one module per verb, friendly errors without tracebacks.

Each verb module exposes ``register(subparsers)`` that adds its parser and sets ``func``.  The
modules are listed in ``VERBS`` by import path and only the module of the verb being run is
imported: ``officesim --help`` and a verb's ``--help`` answer at once instead of importing every
verb's dependencies (FastAPI, uvicorn, matplotlib, openai, mcp).  To add a verb, add its line to
``VERBS``; its one-line help is the same text its module passes to ``add_parser``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from officesim.errors import OfficesimError, ToolError

# verb -> (module that registers it, one-line help shown by ``officesim --help``)
VERBS: dict[str, tuple[str, str]] = {
    "world": ("officesim.cli.world", "build and inspect worlds"),
    "tools": ("officesim.cli.tools", "export, list and call tools"),
    "tasks": ("officesim.cli.tasks", "validate task folders and publish their schemas"),
    "grade": ("officesim.cli.grade", "replay a transcript on a task and print its grade"),
    "run": ("officesim.cli.run", "run n attempts per task with an agent (parallel, resumable)"),
    "calibrate": ("officesim.cli.calibrate", "sort a run's tasks into keep/drop/inspect and flag unsound ones"),
    "deliver": ("officesim.cli.deliver",
                "check the task library and build delivery-YYYY-MM/ (tasks, held-out split, report)"),
    "serve": ("officesim.cli.serve", "serve tasks and worlds over HTTP or MCP"),
    "replay": ("officesim.cli.replay",
               "re-execute recorded tool calls with this code (or a revision) and report what changed"),
    "regress": ("officesim.cli.regress", "the same agent on the same tasks under two tool-surface versions, compared"),
    "compare": ("officesim.cli.compare", "uplift between two runs: pass@1, pass@k, pass^k, score per category"),
    "split": ("officesim.cli.split", "make a held-out split (by group or world) or check a delivery's"),
    "view": ("officesim.cli.view", "browse a world, an episode, a run or a delivery in a local web page"),
}


def _chosen_verb(argv: Sequence[str]) -> str | None:
    """The verb the command line names (its first word), if it is one."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in VERBS else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv``, only the verb it names is registered in full (the others by name).

    Without ``argv`` every verb module is imported and registered (for tests and docs).
    """
    parser = argparse.ArgumentParser(prog="officesim", description="A simulated office for LLM agents.")
    subparsers = parser.add_subparsers(dest="verb", required=True, metavar="{" + ",".join(VERBS) + "}")
    chosen = _chosen_verb(argv) if argv is not None else None
    for verb, (module, summary) in VERBS.items():
        if argv is None or verb == chosen:
            importlib.import_module(module).register(subparsers)
        else:
            subparsers.add_parser(verb, help=summary)  # a stand-in: never parsed, since it was not chosen
    return parser


def _safe_streams() -> None:
    """Never crash on printing: under a non-UTF-8 locale (``LC_ALL=C``) unencodable text is escaped.

    Files are always read and written as UTF-8; only the terminal's encoding is the locale's.
    """
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse, run the verb, turn user errors into one clear line and exit code 2."""
    _safe_streams()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(argv).parse_args(argv)
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
