"""Where the HTTP server runs a step: on the event loop when the step is known to be cheap, else in a thread.

Handing a step to a worker thread and back costs two thread wake-ups and a GIL hand-over, about
as much as a typical tool call itself; measured over oracle episodes, running the cheap steps on
the loop cut the server's CPU per episode by about a fifth.  But a step on the loop stalls every
other session's requests while it runs, and some calls are slow: a search over a large world, a
hostile query that runs up to its time budget (2 s by default), or a grading that waits on a judge.

So the rule is by what each tool has cost lately on this server:

* a step that may wait on the LLM judge (it may end the episode and so grade it, and the grader
  has judged checks: ``OfficeEnv.may_ask_judge``) always runs in a thread;
* any other step (a ``submit`` graded by code alone included) runs on the loop, unless its tool
  was slow (over ``slow_seconds``) lately: a slow call sends the tool's next ``cooldown`` calls to
  the thread pool, and every one of those that is slow again starts the count anew.

A policy that keeps making one tool slow therefore stalls the loop once, then runs in threads for
as long as it keeps at it.  ``threaded=True`` sends every step to the thread pool, for deployments
where no session may ever wait for another's call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A typical tool call takes 20-300 us on acme, 1.5 ms at most in the library's reference solutions.
# A thread gains nothing below the GIL's switch interval (5 ms): another thread holds the loop that
# long anyway.  Above it a call is slow, by its input or the world's size (or a rare pause).
SLOW_SECONDS = 0.005
# Calls of a slow tool sent to the thread pool before the loop tries it again: a tool kept slow on
# purpose stalls the loop for one call in every 65 at most.
COOLDOWN = 64
# Tools remembered as slow (names come from clients, so the memory is bounded).
MAX_REMEMBERED = 1024


@dataclass
class StepScheduler:
    """Per-server memory of which tools were slow lately (see the module docstring)."""

    threaded: bool = False
    slow_seconds: float = SLOW_SECONDS
    cooldown: int = COOLDOWN
    _in_threads: dict[str, int] = field(default_factory=dict)  # tool -> calls left in the thread pool

    def inline(self, tool: str, *, waits: bool) -> bool:
        """Whether the step calling ``tool`` runs on the event loop (else in a worker thread);
        ``waits``: the step may wait on something outside the process (the judge)."""
        if self.threaded or waits:
            return False
        left = self._in_threads.get(tool)
        if left is None:
            return True
        if left <= 1:
            del self._in_threads[tool]
        else:
            self._in_threads[tool] = left - 1
        return False

    def observe(self, tool: str, seconds: float) -> None:
        """Record a step's duration: a slow one sends its tool's next calls to the thread pool."""
        if seconds <= self.slow_seconds:
            return
        if tool not in self._in_threads and len(self._in_threads) >= MAX_REMEMBERED:
            self._in_threads.clear()  # a client inventing names: forget, and learn again
        self._in_threads[tool] = self.cooldown

    def slow_tools(self) -> dict[str, int]:
        """The tools now sent to the thread pool, with the calls each has left there."""
        return dict(self._in_threads)
