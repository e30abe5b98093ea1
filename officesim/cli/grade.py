"""``officesim grade TASK_DIR TRANSCRIPT``: replay a transcript's tool calls and print the grade.

The transcript is the episode in OpenAI chat messages (``env.transcript``, or what a runner or an
API log recorded): a JSON list of messages, a JSON object with ``messages``, or JSON lines.  Its
assistant tool calls are replayed, in order, on the task's start snapshot (tool results in the
file are ignored: the world is deterministic), so the grade comes from the world, not from what
the file claims.  Exit 0 when passed, 1 when not.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from officesim.cli.options import add_judge_options, env_options
from officesim.env import OfficeEnv
from officesim.replay import read_transcript, replay, tool_calls
from officesim.task import load_task


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("grade", help="replay a transcript on a task and print its grade")
    parser.add_argument("task", help="the task folder")
    parser.add_argument("transcript", help="OpenAI chat messages: a JSON list, {'messages': [...]}, or JSON lines")
    parser.add_argument("--json", action="store_true", help="print the grade as JSON")
    add_judge_options(parser, purpose="judge criteria (none configured: they are unjudged)")
    parser.set_defaults(func=grade_command)


def grade_command(args: argparse.Namespace) -> int:
    task = load_task(args.task)
    judge = env_options(args).get("judge")
    calls = tool_calls(read_transcript(Path(args.transcript)))
    env = OfficeEnv(task, judge=judge)
    result, ignored = replay(env, calls)
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        print(result.summary())
        print(f"  replayed {env.steps} tool call(s) on {task.id}; judge: {judge.model if judge else 'none'}")
    if ignored:
        print(f"officesim: {ignored} tool call(s) after the episode ended were ignored", file=sys.stderr)
    return 0 if result.passed else 1
