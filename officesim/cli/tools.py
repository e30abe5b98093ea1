"""``officesim tools export|call|list``: the tool surface as files, and a way to poke a world by hand."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from officesim.cli.toolapi import register_tools_verbs
from officesim.errors import OfficesimError
from officesim.task import load_task
from officesim.toolapi.lock import surface_stamp
from officesim.toolexport import FORMATS, SCHEMA_MODES, dumps, export_tools
from officesim.tools import registry
from officesim.world import World

DEFAULT_WORLD = "acme"  # the packaged spec, found from any directory


def register(subparsers: argparse._SubParsersAction) -> None:
    tools = subparsers.add_parser("tools", help="export, list and call tools")
    verbs = tools.add_subparsers(dest="tools_verb", required=True)
    export = verbs.add_parser("export", help="print the tool list (OpenAI chat format unless --format), or -o FILE")
    export.add_argument("-o", "--output", default="-",
                        help="file to write (default '-': stdout; '-o tools.json' regenerates the checked-in file)")
    export.add_argument("--format", choices=FORMATS, default="openai", help="tool list shape")
    export.add_argument("--schema", choices=SCHEMA_MODES, default=None,
                        help="strict (OpenAI strict mode: all required, optional nullable) or relaxed (optional "
                             "not required); default strict for openai/responses, relaxed for anthropic/mcp")
    export.add_argument("--only", nargs="*", default=None, help="export just these tool names")
    export.add_argument("--task", default=None, help="a task folder or id: its tools plus submit")
    export.add_argument("--tasks", default=None, help="the tasks directory for a task id (default $OFFICESIM_TASKS, "
                                                      "./tasks, the packaged library)")
    export.set_defaults(func=export_command)
    listing = verbs.add_parser("list", help="one line per tool: name, app, kind")
    listing.set_defaults(func=list_command)
    call = verbs.add_parser("call", help="run one tool call on a world and print the JSON result")
    call.add_argument("name", help="tool name, e.g. mail_search_messages")
    call.add_argument("arguments", nargs="?", default="{}", help="JSON object of arguments")
    call.add_argument("--world", default=None, help="a world spec YAML or a saved .db (default: the acme spec)")
    call.add_argument("--as", dest="as_user", default=None, help="act as this person (email or id)")
    call.set_defaults(func=call_command)
    register_tools_verbs(verbs)


def export_command(args: argparse.Namespace) -> int:
    if args.task and args.only is not None:
        raise OfficesimError("--only and --task both choose the tools; pass one of them")
    try:
        if args.task:
            text = dumps(load_task(args.task, args.tasks).tools_json(args.format, args.schema))
        else:
            text = dumps(export_tools(args.only, args.format, args.schema))
    except ValueError as exc:
        raise OfficesimError(str(exc)) from exc
    stamp = {**surface_stamp(), "format": args.format, "exported": len(json.loads(text))}
    if args.output == "-":
        sys.stdout.write(text)
        print(f"tool surface {stamp['version']} ({stamp['hash']})", file=sys.stderr)
    else:
        output = Path(args.output)
        output.write_text(text, encoding="utf-8")
        # The list formats have no room for metadata, so the stamp goes beside the file.
        stamp_file = stamp_path(output)
        stamp_file.write_text(json.dumps(stamp, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {stamp['exported']} tools ({args.format} format) to {args.output}: tool surface "
              f"{stamp['version']} ({stamp['hash']}), stamped in {stamp_file}")
    return 0


def stamp_path(output: Path) -> Path:
    """Where an export's version stamp goes: ``tools.json`` -> ``tools.surface.json``."""
    return output.with_name(f"{output.stem}.surface.json")


def list_command(args: argparse.Namespace) -> int:
    for name, tool in registry().items():
        print(f"{name:<28} {tool.app:<10} {tool.kind}")
    return 0


def _open_world(ref: str | None) -> World:
    path = Path(ref or DEFAULT_WORLD)
    if path.suffix in {".db", ".sqlite", ".sqlite3"}:
        return World.load(path)
    return World.generate(path)


def call_command(args: argparse.Namespace) -> int:
    world = _open_world(args.world)
    if args.as_user:
        world.set_user(args.as_user)
    result = world.call(args.name, args.arguments)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 1 if "error" in result else 0
