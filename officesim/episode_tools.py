"""The built-in tools of an episode: ``submit`` ends it.

``submit`` is registered like an app's tool (its schema derives from this signature and
docstring, the registry validates its arguments), so every export and the env agree on it by
construction.  The env intercepts the call: it records the answer and grades the episode; the
function body is what the call returns once its arguments passed validation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from annotated_types import MaxLen

from officesim.tools import episode_tool

if TYPE_CHECKING:
    from officesim.world import World

SUBMIT = "submit"
MAX_ANSWER = 20_000  # characters of the submitted answer

Answer = Annotated[str | None, MaxLen(MAX_ANSWER)]


@episode_tool
def submit(w: World, answer: Answer = None) -> dict[str, Any]:
    """Finish the task. Call this once, when the work is done; pass your final answer if the task asks a question, otherwise null. No other tool can be called afterwards.

    Args:
        answer: The final answer to the task's question, or null when the task only asks you to do things.
    """
    return {"status": "submitted"}
