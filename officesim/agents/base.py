"""The agent contract and the loop that plays one episode.

An agent sees observations and returns one action at a time: ``{"name": tool, "arguments":
{...}}`` (the built-in ``submit`` tool ends the episode).  Agents that receive several tool calls
at once (parallel tool calls) queue them and return them one by one.  An agent that cannot go on
for reasons outside the task (an API that keeps failing) raises ``AgentError``: the runner records
the attempt as ``error``, never as a score of 0.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


class AgentError(Exception):
    """The agent itself failed (API down, out of retries); the attempt is an error, not a 0."""


@runtime_checkable
class Agent(Protocol):
    """Plays episodes one action at a time."""

    name: str

    def reset(self, obs: dict[str, Any], *, seed: int) -> None:
        """Start a new episode from the reset observation."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        """The next action given the latest observation."""
