"""``officesim view [PATH]``: a local, read-only web viewer of a world, an episode, a run or a delivery."""

from __future__ import annotations

import argparse

from officesim.view.app import serve_viewer


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("view", help="browse a world, an episode, a run or a delivery in a local web page")
    parser.add_argument("path", nargs="?", default=".",
                        help="a world (.db or spec .yaml), a transcript .json, a task, run or delivery folder "
                             "(default: .)")
    parser.add_argument("--task", help="with a transcript file: the task folder it was played on")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="the port (default 8765)")
    parser.set_defaults(func=view_command)


def view_command(args: argparse.Namespace) -> int:
    return serve_viewer(args.path, task=args.task, host=args.host, port=args.port)
