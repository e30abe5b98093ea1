"""The machinery hack probes share: actions, a generator-driven probe base, reading tool results.

A probe is a plan written as a generator: each ``yield`` hands the environment one action and
receives the next observation, so a probe reads like the strategy it tests ("search, then delete
everything found").  Probes that replay the task's reference solution receive the task; the
others ignore it, so every probe is built the same way (``probe(task=task)``).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from officesim.task import Task

Action = dict[str, Any]
Plan = Generator[Action, dict[str, Any], None]
PAGE = 100


def submit(answer: str | None = None) -> Action:
    """The action that ends an episode."""
    return {"name": "submit", "arguments": {"answer": answer}}


def tool_names(obs: dict[str, Any]) -> set[str]:
    """Names of the tools an observation offers."""
    return {t["function"]["name"] for t in obs.get("tools") or [] if "function" in t}


def items(result: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The first list of objects in a tool result (people, messages, files...)."""
    for value in (result or {}).values():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return value
    return []


def failed(obs: dict[str, Any]) -> bool:
    """Whether the last tool call came back as an error."""
    result = obs.get("result")
    return not isinstance(result, dict) or "error" in result


def leaves(value: Any) -> Iterator[tuple[str, Any]]:
    """Every scalar in a JSON value with the key it sits under (list items keep their list's key)."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        key, node = stack.pop()
        if isinstance(node, dict):
            stack.extend(reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((key, item) for item in reversed(node))
        else:
            yield key, node


class ScriptedProbe:
    """A probe written as a generator of actions; it submits when its plan or the budget runs out.

    Args:
        task: The task being played; probes that replay its solution need it, others ignore it.
    """

    name = "probe"

    def __init__(self, task: Task | None = None) -> None:
        self.task = task
        self._plan: Plan | None = None
        self._answer: str | None = None
        self._started = False

    def reset(self, obs: dict[str, Any], *, seed: int) -> None:
        self._answer = None
        self._plan = self.plan(obs)
        self._started = False

    def plan(self, obs: dict[str, Any]) -> Plan:
        """Yield actions; each ``yield`` receives the next observation."""
        yield from ()

    def act(self, obs: dict[str, Any]) -> Action:
        if self._plan is None or obs.get("steps_left", 2) <= 1:
            return submit(self._answer)
        try:
            action = next(self._plan) if not self._started else self._plan.send(obs)
        except StopIteration:
            self._plan = None
            return submit(self._answer)
        self._started = True
        return action
