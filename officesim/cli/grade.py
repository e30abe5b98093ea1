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
from typing import Any

from officesim.env import OfficeEnv
from officesim.errors import OfficesimError
from officesim.grading.judge import JudgeConfig
from officesim.grading.rubric import Grade
from officesim.task import load_task


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("grade", help="replay a transcript on a task and print its grade")
    parser.add_argument("task", help="the task folder")
    parser.add_argument("transcript", help="OpenAI chat messages: a JSON list, {'messages': [...]}, or JSON lines")
    parser.add_argument("--json", action="store_true", help="print the grade as JSON")
    parser.add_argument("--judge-model", help="judge model (default: $OFFICESIM_JUDGE_MODEL; none: unjudged)")
    parser.add_argument("--judge-base-url", help="judge endpoint (default: $OFFICESIM_JUDGE_BASE_URL)")
    parser.set_defaults(func=grade_command)


def read_transcript(path: Path) -> list[dict[str, Any]]:
    """Messages from a transcript file in any of the accepted shapes."""
    if not path.is_file():
        raise OfficesimError(f"transcript {path} does not exist")
    text = path.read_text()
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise OfficesimError(f"{path} is neither JSON nor JSON lines: {exc}") from exc
    if isinstance(data, dict):
        data = data.get("messages", data.get("transcript"))
    if not isinstance(data, list) or not all(isinstance(m, dict) for m in data):
        raise OfficesimError(f"{path}: expected a list of chat messages (or an object with 'messages')")
    return data


def tool_calls(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every assistant tool call, in order."""
    return [call for m in messages if m.get("role") == "assistant" for call in m.get("tool_calls") or []]


def replay(env: OfficeEnv, calls: list[dict[str, Any]]) -> tuple[Grade, int]:
    """Step ``env`` through ``calls``; returns the grade and how many calls came after the end."""
    env.reset(seed=0)
    for index, call in enumerate(calls):
        _, _, terminated, truncated, info = env.step(call)
        if terminated or truncated:
            return info["grade"], len(calls) - index - 1
    return env.finish(), 0


def grade_command(args: argparse.Namespace) -> int:
    task = load_task(args.task)
    overrides = {k: v for k, v in (("model", args.judge_model), ("base_url", args.judge_base_url)) if v}
    judge = JudgeConfig.from_env(**overrides)
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
