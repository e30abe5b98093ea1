"""Trajectories: the reference solution as editable data, and the agent that replays an edit.

Variants and probes are transformations of the task's reference trajectory (its tool calls and
final answer).  Most edits are static (reword a mail body, drop a read); a few need what an
earlier call returned (the id of a doc the edit created itself), so a step may also be a
function of the results seen so far.  ``Reference`` is the solution played once on the task's
start state, with every result: the material edits are made from (ids it saw, messages read).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from officesim.probes.probing import Action, failed, submit
from officesim.tools import registry

if TYPE_CHECKING:
    from officesim.task import Task

TEXT_FIELDS = ("body", "content", "text", "notes", "next_step")
MAIL_WRITES = ("mail_send_message", "mail_reply_message", "mail_reply_all", "mail_forward_message")


@dataclass(frozen=True)
class Essential:
    """A step the rest depends on: when it fails, the replay stops and submits no answer (a probe
    whose damage did not happen must not pass as the plain reference)."""

    action: Action | Callable[[list[Any]], Action | None]


# A step is a tool call, a function of the results of the steps played before it, or essential.
Step = Action | Essential | Callable[[list[Any]], Action | None]


def is_read(name: str) -> bool:
    """Whether ``name`` is a registered read tool (reads never change the world)."""
    spec = registry().get(name)
    return spec is not None and spec.kind == "read"


def text_field(action: Action) -> str | None:
    """The free-text argument of a write (mail body, doc content, chat text, call notes)."""
    if is_read(action["name"]):
        return None
    return next((f for f in TEXT_FIELDS if isinstance(action["arguments"].get(f), str)), None)


@dataclass
class Trajectory:
    """Tool calls in order, then the answer passed to ``submit``."""

    steps: list[Step]
    answer: str | None = None

    def copy(self) -> Trajectory:
        return Trajectory([copy.deepcopy(s) if isinstance(s, dict) else s for s in self.steps], self.answer)

    def actions(self) -> Iterator[Action]:
        """The static steps (tool calls known in advance)."""
        return (s for s in self.steps if isinstance(s, dict))

    def writes(self) -> list[Action]:
        return [s for s in self.actions() if not is_read(s["name"])]

    def texts(self) -> list[str]:
        """Every free text the trajectory delivers: write texts and the answer."""
        found = [s["arguments"][f] for s in self.actions() if (f := text_field(s))]
        return found + ([self.answer] if self.answer else [])

    def map_texts(self, edit: Callable[[str], str], *, answer: bool = True, names: tuple[str, ...] = ()) -> Trajectory:
        """A copy with ``edit`` applied to every write's text (of ``names`` when given) and the answer."""
        out = self.copy()
        for step in out.actions():
            fld = text_field(step)
            if fld and (not names or step["name"] in names):
                step["arguments"][fld] = edit(step["arguments"][fld])
        if answer and out.answer:
            out.answer = edit(out.answer)
        return out


@dataclass
class Reference:
    """The reference solution played once: each step with its result."""

    task: Task
    trajectory: Trajectory
    results: list[Any] = field(default_factory=list)

    @classmethod
    def of(cls, task: Task, transcript: list[dict[str, Any]]) -> Reference:
        """From the oracle's transcript (its tool messages hold the results, in order)."""
        solution = task.solution
        planned = solution.steps if solution else []
        steps: list[Step] = [{"name": s.name, "arguments": dict(s.arguments)} for s in planned]
        results = [json.loads(m["content"]) for m in transcript if m["role"] == "tool"][: len(steps)]
        return cls(task, Trajectory(steps, solution.answer if solution else None), results)

    def read_results(self) -> list[Any]:
        """Results of the solution's reads that did not fail."""
        return [r for s, r in zip(self.trajectory.actions(), self.results, strict=False)
                if is_read(s["name"]) and isinstance(r, dict) and "error" not in r]

    def result_of(self, index: int) -> Any:
        return self.results[index] if index < len(self.results) else None

    def room(self) -> int:
        """How many extra calls the step budget leaves (submit included)."""
        return self.task.max_steps - len(self.trajectory.steps) - 1


class ReplayAgent:
    """Plays a ``Trajectory``: static calls as written, dynamic ones built from earlier results.

    A dynamic step that returns ``None`` is skipped (its result is ``None``, so results stay
    indexed by step); an essential one that fails or cannot be built ends the episode with no
    answer.  When the budget runs low it submits.
    """

    def __init__(self, name: str, trajectory: Trajectory) -> None:
        self.name = name
        self.trajectory = trajectory
        self._queue: list[Step] = []
        self._results: list[Any] = []
        self._waiting = False
        self._essential = False

    def reset(self, obs: dict[str, Any], *, seed: int) -> None:
        self._queue = list(self.trajectory.steps)
        self._results = []
        self._waiting = False

    def act(self, obs: dict[str, Any]) -> Action:
        if self._waiting:
            self._results.append(obs.get("result") if not failed(obs) else None)
            self._waiting = False
            if self._essential and failed(obs):
                self._queue = []
                return submit(None)
        while self._queue and obs.get("steps_left", 2) > 1:
            step = self._queue.pop(0)
            self._essential = isinstance(step, Essential)
            inner = step.action if isinstance(step, Essential) else step
            action = inner if isinstance(inner, dict) else inner(self._results)
            if action is not None:
                self._waiting = True
                return action
            if self._essential:
                self._queue = []
                return submit(None)
            self._results.append(None)
        return submit(self.trajectory.answer)
