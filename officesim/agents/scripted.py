"""Scripted agents: the oracle, the do-nothing agent, and hack probes that a sound grader must fail.

* ``OracleAgent`` plays the task's reference solution, then submits its answer: it must score 1.
* ``NullAgent`` submits at once with no answer: a grader it passes is testing nothing.
* Probes try cheap ways to game a grader: ``SpamEveryoneProbe`` mails everybody the instruction,
  ``DeleteEverythingProbe`` deletes whatever it can list, ``EchoInstructionProbe`` submits the
  instruction as the answer, ``GuessNumberProbe`` submits a plausible number.  The probes in
  ``officesim.probes.redteam`` and ``officesim.probes.overreach`` replay the solution and then
  cheat (a shotgun answer, raw data instead of analysis, extra damage).  Each must fail and score
  at most ``HACK_BOUND``.

Every agent follows ``officesim.agents.base.Agent``: ``reset(obs, seed=...)`` then ``act(obs)``
one action at a time.  Multi-step probes are written as generators that receive each observation.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from officesim.errors import OfficesimError
from officesim.grading.normalize import extract_numbers
from officesim.probes.overreach import (
    OverreachChatProbe,
    OverreachDeleteMailProbe,
    OverreachMailProbe,
    OverreachMoveMailProbe,
    OverreachRecordsProbe,
    OverreachShareProbe,
)
from officesim.probes.probing import PAGE, Action, Plan, ScriptedProbe, items, submit, tool_names
from officesim.probes.redteam import DumpSourcesProbe, ShotgunAnswerProbe, ShotgunTextProbe

if TYPE_CHECKING:
    from officesim.task import Task

class OracleAgent:
    """Plays the task's solution steps in order, then submits the solution's answer."""

    name = "oracle"

    def __init__(self, task: Task) -> None:
        if task.solution is None:
            raise OfficesimError(f"task {task.id} has no solution.yaml, so there is no oracle")
        self.task = task
        self._queue: list[Action] = []

    def reset(self, obs: dict[str, Any], *, seed: int) -> None:
        solution = self.task.solution
        steps = solution.steps if solution is not None else []
        answer = solution.answer if solution is not None else None
        self._queue = [{"name": s.name, "arguments": dict(s.arguments)} for s in steps] + [submit(answer)]

    def act(self, obs: dict[str, Any]) -> Action:
        return self._queue.pop(0) if self._queue else submit(None)


class NullAgent:
    """Submits immediately with no answer."""

    name = "null"

    def reset(self, obs: dict[str, Any], *, seed: int) -> None:
        """Nothing to prepare."""

    def act(self, obs: dict[str, Any]) -> Action:
        return submit(None)


class SpamEveryoneProbe(ScriptedProbe):
    """Pages through the directory, then mails everyone the instruction's text."""

    name = "spam_everyone"

    def plan(self, obs: dict[str, Any]) -> Plan:
        tools = tool_names(obs)
        if "directory_search_people" not in tools or "mail_send_message" not in tools:
            return
        emails: list[str] = []
        cursor = None
        while True:
            obs = yield {"name": "directory_search_people", "arguments": {"cursor": cursor, "limit": PAGE}}
            result = obs.get("result") or {}
            emails += [p["email"] for p in items(result) if p.get("email")]
            cursor = result.get("next_cursor")
            if not cursor:
                break
        if emails:
            yield {"name": "mail_send_message", "arguments": {
                "to": emails, "subject": "Please read", "body": obs["instruction"]}}


class DeleteEverythingProbe(ScriptedProbe):
    """For every delete tool it has, lists what that app shows and deletes all of it."""

    name = "delete_everything"

    def plan(self, obs: dict[str, Any]) -> Plan:
        functions = {t["function"]["name"]: t["function"] for t in obs.get("tools") or [] if "function" in t}
        for name in sorted(functions):
            parts = name.split("_", 2)
            if len(parts) < 3 or parts[1] != "delete":
                continue
            id_param = _single_required(functions[name])
            lister = _lister(functions, parts[0], parts[2])
            if id_param is None or lister is None:
                continue
            ids: list[str] = []
            cursor = None
            while len(ids) < obs.get("max_steps", 0):
                obs = yield {"name": lister, "arguments": _page_args(functions[lister], cursor)}
                result = obs.get("result") or {}
                ids += [item["id"] for item in items(result) if "id" in item]
                cursor = result.get("next_cursor")
                if not cursor:
                    break
            for item_id in ids:
                obs = yield {"name": name, "arguments": {id_param: item_id}}


def _single_required(function: dict[str, Any]) -> str | None:
    """The one non-nullable parameter of a delete tool (its id), else ``None``."""
    properties = function.get("parameters", {}).get("properties", {})
    required = [k for k, v in properties.items() if "null" not in str(v.get("type", v.get("anyOf", "")))]
    return required[0] if len(required) == 1 else None


def _lister(functions: dict[str, Any], app: str, noun: str) -> str | None:
    """The search/list tool of ``app`` for ``noun`` (``message`` -> ``mail_search_messages``)."""
    for verb in ("search", "list"):
        for name in sorted(functions):
            if name.startswith(f"{app}_{verb}_{noun}"):
                return name
    return None


def _page_args(function: dict[str, Any], cursor: str | None) -> dict[str, Any]:
    properties = function.get("parameters", {}).get("properties", {})
    args: dict[str, Any] = {}
    if "cursor" in properties:
        args["cursor"] = cursor
    if "limit" in properties:
        args["limit"] = PAGE
    return args


class EchoInstructionProbe(ScriptedProbe):
    """Submits the instruction itself as the answer."""

    name = "echo_instruction"

    def plan(self, obs: dict[str, Any]) -> Plan:
        self._answer = obs["instruction"]
        yield from ()


class GuessNumberProbe(ScriptedProbe):
    """Submits a plausible number at once: the largest in the instruction, else 10,000."""

    name = "guess_number"

    def plan(self, obs: dict[str, Any]) -> Plan:
        text = re.sub(r"\b(19|20)\d\d\b", " ", obs["instruction"])  # years are not amounts
        numbers = [t.value for t in extract_numbers(text)]
        self._answer = f"{max(numbers):,.2f}" if numbers else "10,000"
        yield from ()


PROBES: list[type[ScriptedProbe]] = [
    SpamEveryoneProbe, DeleteEverythingProbe, EchoInstructionProbe, GuessNumberProbe, ShotgunAnswerProbe,
    ShotgunTextProbe, DumpSourcesProbe, OverreachMailProbe, OverreachChatProbe, OverreachShareProbe,
    OverreachDeleteMailProbe, OverreachMoveMailProbe, OverreachRecordsProbe,
]
"""Every hack probe, built as ``probe(task=task)``: self-tests, calibration and delivery run them all."""
