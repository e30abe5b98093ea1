"""Replaying a transcript: the tool calls of a saved episode, run again on the task's start state.

The world is deterministic, so replaying an episode's tool calls reaches exactly the final state
it reached; grades therefore come from the world, never from what a transcript file claims.
``officesim grade`` and the regrading done by calibration share this one implementation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from officesim.env import OfficeEnv, is_harness
from officesim.errors import OfficesimError
from officesim.grading.scoring import Grade

__all__ = ["is_harness", "model_messages", "read_transcript", "replay", "tool_calls"]


def read_transcript(path: Path) -> list[dict[str, Any]]:
    """Messages from a transcript file: a JSON list, ``{"messages": [...]}``, or JSON lines.

    An empty file, an empty list or anything that is not chat messages (each a JSON object with a
    ``role``) is refused with ``OfficesimError``: graded, it would silently be the do-nothing
    episode, and a wrong path or a truncated log would pass for a model's failure.
    """
    if not path.is_file():
        raise OfficesimError(f"transcript {path} does not exist")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise OfficesimError(f"{path} is not UTF-8 text (byte {exc.start}); a transcript is JSON chat "
                             "messages") from None
    if not text.strip():
        raise OfficesimError(f"{path} is empty; a transcript is a JSON list of chat messages "
                             "(env.transcript, or runs/NAME/transcripts/TASK/N.json)")
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
    if not data:
        raise OfficesimError(f"{path} holds no messages; a transcript has at least the task's user message")
    for index, message in enumerate(data):
        if not isinstance(message.get("role"), str):
            raise OfficesimError(f"{path}: message {index} has no 'role'; expected OpenAI chat messages "
                                 "({'role': 'assistant', 'tool_calls': [...]}, ...)")
    return data


def model_messages(messages: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """A transcript without the harness's messages: what the model saw and said, for training data.

    Replaying needs the harness's calls too (they are part of the episode); this is for learning.
    """
    return [m for m in messages if not is_harness(m)]


def tool_calls(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every assistant tool call of a transcript, in order; ``OfficesimError`` for one that is not a tool call.

    Transcripts come from files and trainers, so a malformed call is the caller's input to report,
    not a harness bug to raise ``TypeError`` for half-way through the replay.
    """
    calls = []
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        found = message.get("tool_calls") or []
        if not isinstance(found, list):
            raise OfficesimError(f"message {index}: tool_calls must be a list of tool calls, not {found!r:.80}")
        for call in found:
            shaped = isinstance(call, Mapping) and (
                isinstance(call["function"], Mapping) if "function" in call else "name" in call)
            if not shaped:
                raise OfficesimError(f"message {index}: {call!r:.80} is not a tool call "
                                     "({'function': {'name', 'arguments'}} or {'name', 'arguments'})")
            calls.append(call)
    return calls


def replay(env: OfficeEnv, calls: list[dict[str, Any]]) -> tuple[Grade, int]:
    """Step a fresh episode through ``calls``; returns the grade and how many calls came after its end.

    An episode whose calls never submit is ended with ``env.finish()`` (graded with no answer).
    """
    env.reset(seed=0)
    for index, call in enumerate(calls):
        _, _, terminated, truncated, info = env.step(call)
        if terminated or truncated:
            return info["grade"], len(calls) - index - 1
    return env.finish(), 0
