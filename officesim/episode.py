"""Play one episode: reset the env, let the agent act until the episode ends, collect the verdict.

The status of an attempt says whose fault an unfinished episode is:

* ``ok``: the agent submitted and the grader scored the final state;
* ``truncated``: the step budget ran out, or the env stopped a model repeating one failing call
  (``stopped`` then says why); graded like any other end state;
* ``error``: the agent itself failed (``AgentError``: an API that kept failing), or the grade stayed
  ``incomplete`` (a judge that failed, regraded ``REGRADES`` times); the attempt has no score and
  is excluded from pass rates, never counted as a 0 or a pass, and ``run --retry-errors`` plays it
  again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from officesim.agents.base import Agent, AgentError
from officesim.env import AgentRun, is_harness

Status = Literal["ok", "error", "truncated"]
REGRADES = 2  # a judge failure is often transient: grade the same end state again this many times


@dataclass
class EpisodeResult:
    """The outcome of one attempt, as the runner records it."""

    score: float | None
    passed: bool | None
    status: Status
    grade: dict[str, Any] | None
    steps: int
    tokens: dict[str, int] | None
    wall_time: float
    transcript: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    stopped: dict[str, Any] | None = None  # why the env ended the episode early (stop_after_repeats)

    def to_dict(self, *, transcript: bool = False) -> dict[str, Any]:
        """JSON-ready fields (the transcript only on request: it is stored apart)."""
        # Built by hand: dataclasses.asdict deep-copies the grade and transcript (measurably slow).
        names = [f.name for f in fields(self) if transcript or f.name != "transcript"]
        return {name: getattr(self, name) for name in names}


def _grade_dict(grade: Any) -> dict[str, Any] | None:
    if grade is None:
        return None
    if isinstance(grade, dict):
        return grade
    if hasattr(grade, "model_dump"):
        return grade.model_dump(mode="json")
    raise TypeError(f"cannot serialise a grade of type {type(grade).__name__}")


def _transcript(env: Any, agent: Agent) -> list[dict[str, Any]]:
    """The agent's own record when it keeps one (the model's system prompt, text replies and nudges,
    which the env never sees), else the env's; the env's harness notes (a stop) are kept either way."""
    env_messages = list(getattr(env, "transcript", []) or [])
    own = getattr(agent, "transcript", None)
    if not isinstance(own, list):
        return env_messages
    notes = [m for m in env_messages if m.get("role") not in ("assistant", "tool") and is_harness(m)]
    return [*own, *notes]


def run_episode(env: Any, agent: Agent, seed: int, *, max_actions: int | None = None) -> EpisodeResult:
    """Run ``agent`` in ``env`` from ``env.reset(seed=seed)`` until it ends.

    Args:
        env: an ``OfficeEnv`` (or anything with the same reset/step/transcript contract).
        agent: plays the episode; an ``AgentError`` it raises makes the attempt ``error``.
        seed: the episode seed, given to both the env and the agent.
        max_actions: a safety bound for envs without a step budget (default: the env's
            ``max_steps`` + 1, so the env's own truncation always comes first).
    """
    started = time.perf_counter()
    loop = AgentRun(env, agent, seed=seed, max_actions=max_actions)
    status: Status = "ok"
    error: str | None = None
    try:
        loop.run()
        if loop.truncated:
            status = "truncated"
    except AgentError as exc:
        status, error = "error", str(exc)
    info, steps = loop.info, loop.steps
    verdict: Any = info.get("grade")
    for _ in range(REGRADES):
        if status == "error" or not getattr(verdict, "incomplete", False) or not hasattr(env, "regrade"):
            break
        verdict = env.regrade()
    usage = getattr(agent, "usage", None)
    if status != "error" and getattr(verdict, "incomplete", False):
        reasons = "; ".join(r.reason for r in verdict.results() if r.status == "error")
        status, error = "error", f"incomplete grade: {reasons}"[:500]
        return EpisodeResult(score=None, passed=None, status=status, grade=_grade_dict(verdict), steps=steps,
                             tokens=dict(usage) if usage else None,
                             wall_time=time.perf_counter() - started,
                             transcript=list(getattr(env, "transcript", []) or []), error=error)
    info = {**info, "grade": verdict}
    grade = _grade_dict(info.get("grade")) if status != "error" else None
    score = float(grade["score"]) if grade and grade.get("score") is not None else None
    passed = bool(grade["passed"]) if grade and grade.get("passed") is not None else None
    if status != "error" and grade is None:
        # The env ended without a verdict (e.g. truncated before grading): nothing passed.
        score, passed = 0.0, False
    return EpisodeResult(
        score=score,
        passed=passed,
        status=status,
        grade=grade,
        steps=steps,
        tokens=dict(usage) if usage else None,
        wall_time=time.perf_counter() - started,
        transcript=_transcript(env, agent),
        error=error,
        stopped=info.get("stopped"),
    )
