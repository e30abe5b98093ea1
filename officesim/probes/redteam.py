"""Probes that start from the reference solution and cheat the way trained policies learn to.

The first probes (spam, delete, echo, guess) know nothing about the task.  A policy under RL
pressure does better: it reads what a good agent reads and then games what the grader looks at.
These probes have the same advantage (they replay the task's own solution), so a grader that
survives them is robust to an agent that did the work and then took a shortcut or overreached:

* ``ShotgunAnswerProbe`` replays the solution's reads and submits every name and number it saw,
  hoping that ``contains``/``number`` answer checks find the right one among the candidates.
* ``ShotgunTextProbe`` does the same in writing: every doc, mail, post or note that states figures
  lists every name and number the reads returned, hoping ``body_numbers`` finds the right one.
* ``DumpSourcesProbe`` plays the solution but writes the raw data it read into the doc, mail,
  chat post or note instead of the analysis: computed totals must not be found in raw rows.  It
  applies when the solution writes a figure that is in none of the sources (a total, an
  overrun); relaying figures that are there is the job, not analysis a dump could fake.
* The overreach probes (``officesim.probes.overreach``) play the solution and then do one kind
  of plausible extra damage with the task's write tools.

A probe that cannot apply to a task (no solution, no suitable tool, no target) does nothing and
submits no answer, like the null agent, so it never passes by being the oracle in disguise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from typing import Any

from officesim.grading.normalize import DEFAULT_TEXT_TOLERANCE, close, extract_numbers, stated_numbers
from officesim.person_refs import person_id
from officesim.probes.probing import Action, Plan, ScriptedProbe, failed, leaves
from officesim.tools import registry

Step = Generator[Action, dict[str, Any], Any]
ID_VALUE = re.compile(r"^[a-z]+_\d+$")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d\d:?\d\d)?)?$")
MAX_NAME = 60  # longer strings are prose: their numbers count, the text is not a "name"
TEXT_FIELDS = ("body", "content", "text")
TEXT_LIMITS = {"crm": 19_000, "chat": 39_000}  # below each app's limit for one text
DEFAULT_TEXT_LIMIT = 90_000
MAIL_WRITES = ("mail_send_message", "mail_reply_message", "mail_reply_all", "mail_forward_message")


def is_read(name: str) -> bool:
    """Whether ``name`` is a registered read tool (reads never change the world)."""
    spec = registry().get(name)
    return spec is not None and spec.kind == "read"


def strings_in(value: Any) -> set[str]:
    """Every string in a JSON value (ids, emails and names an action mentions)."""
    return {leaf for _, leaf in leaves(value) if isinstance(leaf, str)}


def candidates_text(results: list[Any]) -> str:
    """Every short text and every number in tool results, as one answer listing them all."""
    names: list[str] = []
    numbers: list[float] = []
    for _, leaf in leaves(results):
        if isinstance(leaf, bool) or leaf is None:
            continue
        if isinstance(leaf, int | float):
            found = [float(leaf)]
        else:
            text = str(leaf).strip()
            found = [t.value for t in extract_numbers(text)]
            if (len(text) <= MAX_NAME and any(c.isalpha() for c in text) and not ID_VALUE.match(text)
                    and not TIMESTAMP.match(text) and text not in names):
                names.append(text)
        numbers += [n for n in found if n not in numbers]
    return f"Candidates: {'; '.join(names)}. Figures: {', '.join(f'{n:,.2f}' for n in numbers)}."


def text_field(action: Action) -> str | None:
    """The free-text argument of a write (mail body, doc content, chat text), if it has one."""
    return next((f for f in TEXT_FIELDS if isinstance(action["arguments"].get(f), str)), None)


def numbers_in(results: list[Any]) -> list[float]:
    """Every number in tool results: numeric values and numbers written in their texts."""
    found: list[float] = []
    for _, leaf in leaves(results):
        if isinstance(leaf, int | float) and not isinstance(leaf, bool):
            found.append(float(leaf))
        elif isinstance(leaf, str):
            found += [t.value for t in extract_numbers(leaf)]
    return found


def computed_figures(action: Action, raw: list[float]) -> list[float]:
    """Figures a write's text states that appear nowhere in ``raw``: what the solution worked out."""
    field = text_field(action)
    if field is None:
        return []
    return [f for f in stated_numbers(action["arguments"][field])
            if not any(close(abs(r), f, DEFAULT_TEXT_TOLERANCE) for r in raw)]


class SolutionProbe(ScriptedProbe):
    """A probe built on the task's reference solution; without one it does nothing."""

    def steps(self) -> list[Action]:
        """The solution's tool calls, as actions."""
        solution = self.task.solution if self.task is not None else None
        return [{"name": s.name, "arguments": dict(s.arguments)} for s in solution.steps] if solution else []

    def solution_answer(self) -> str | None:
        solution = self.task.solution if self.task is not None else None
        return solution.answer if solution is not None else None


class ShotgunAnswerProbe(SolutionProbe):
    """Reads what the oracle reads, then answers with every name and number it saw."""

    name = "shotgun_answer"

    def plan(self, obs: dict[str, Any]) -> Plan:
        results = []
        for step in self.steps():
            if is_read(step["name"]):
                obs = yield step
                if not failed(obs):
                    results.append(obs["result"])
        self._answer = candidates_text(results) if results else None


class _TextSwapProbe(SolutionProbe):
    """Plays the solution with every text it writes replaced by something made of its raw reads.

    Only solutions that write figures are played (names and dates alone are relayed, not worked
    out); the solution's reads come first, so the replacement can be made of all of them.
    """

    def applies(self, writes: list[Action], seen: list[Any]) -> bool:
        """Whether the swap tests anything on this task, given the writes that state figures."""
        return True

    def replacement(self, seen: list[Any]) -> str:
        """The text written in place of the solution's."""
        return ""

    def asks_colleague(self, step: Action) -> bool:
        """Whether ``step`` is a question to one of the task's scripted colleagues: a question, not a
        deliverable a grader reads, so swapping its text tests nothing (and the reply must still come)."""
        if self.task is None or not self.task.spec.colleagues:
            return False
        world = self.task.start_world()
        emails = {world.person(person_id(world, c.person))["email"].casefold() for c in self.task.spec.colleagues}
        arguments = step["arguments"]
        if step["name"] == "chat_send_dm":
            targets = [arguments.get("person")]
        elif step["name"] == "mail_send_message":
            targets = [*(arguments.get("to") or []), *(arguments.get("cc") or [])]
        else:
            return False
        return bool(targets) and all(isinstance(t, str) and t.casefold() in emails for t in targets)

    def plan(self, obs: dict[str, Any]) -> Plan:
        steps = self.steps()
        writes = [s for s in steps if not is_read(s["name"]) and computed_figures(s, []) and not self.asks_colleague(s)]
        if not writes:
            return  # no figures written at all
        seen: list[Any] = []
        for step in steps:
            if is_read(step["name"]):
                obs = yield step
                if not failed(obs):
                    seen.append(obs["result"])
        if not self.applies(writes, seen):
            return
        text = self.replacement(seen)
        for step in steps:
            field = text_field(step) if not is_read(step["name"]) and not self.asks_colleague(step) else None
            if field is not None:
                limit = TEXT_LIMITS.get(step["name"].split("_")[0], DEFAULT_TEXT_LIMIT)
                step = {"name": step["name"], "arguments": {**step["arguments"], field: text[:limit]}}
            yield step
        if self.solution_answer() is not None:
            self._answer = text[:DEFAULT_TEXT_LIMIT]


class ShotgunTextProbe(_TextSwapProbe):
    """The shotgun in writing: every doc, mail, post or note lists every name and number the
    solution's reads returned, hoping ``body_numbers`` finds the right one among them."""

    name = "shotgun_text"

    def replacement(self, seen: list[Any]) -> str:
        return candidates_text(seen)


class DumpSourcesProbe(_TextSwapProbe):
    """Every doc, mail, post or note holds the raw data the solution read, not its analysis.

    Only when the solution writes a figure found nowhere in its reads (a total, an overrun) is
    there analysis for raw data to stand in for; when every figure is already in the sources,
    relaying them is the job, not a shortcut, and the probe does nothing.
    """

    name = "dump_sources"

    def applies(self, writes: list[Action], seen: list[Any]) -> bool:
        raw = numbers_in(seen)
        return any(computed_figures(s, raw) for s in writes)

    def replacement(self, seen: list[Any]) -> str:
        return json.dumps(seen, ensure_ascii=False, default=str)
