"""One attempt of a run, as a line of ``results.jsonl``: a typed record read in one place.

The runner writes one JSON line per attempt; metrics, calibration, comparison, replay, the
delivery and the viewer read them.  Reading them as ``Attempt`` models (instead of each module
looking up ``record["score"]`` and ``record.get("passed")`` its own way) means a field renamed in
the runner is one change here, a line that lacks a required field is skipped with the same rule
everywhere, and a type checker sees every use.  Unknown fields are kept (``extra="allow"``):
lines written by a newer officesim, or an agent's extras such as ``model``, survive a rewrite.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

RESULTS = "results.jsonl"


class Attempt(BaseModel):
    """One attempt: which task, how it went, and what produced it."""

    model_config = ConfigDict(extra="allow")

    task: str
    attempt: int = 0
    seed: int | None = None
    agent: str | None = None
    score: float | None = None
    passed: bool | None = None
    status: str | None = None  # ok, truncated, error (see ``episode``)
    error: str | None = None
    crash: str | None = None  # the traceback of an officesim crash
    grade: dict[str, Any] | None = None
    steps: int | None = None
    tokens: dict[str, int] | int | None = None
    wall_time: float | None = None
    category: str | None = None
    difficulty: str | None = None
    family: str | None = None
    group: str | None = None
    versions: dict[str, Any] | None = None
    drift: Any = None
    stopped: dict[str, Any] | None = None

    @property
    def key(self) -> tuple[str, int]:
        return (self.task, self.attempt)

    @property
    def graded(self) -> bool:
        """The grader gave a verdict (an ``error`` attempt has none and counts for nothing)."""
        return self.status != "error"

    @property
    def score_or_zero(self) -> float:
        return float(self.score or 0.0)

    def line(self) -> dict[str, Any]:
        """The JSON object of this attempt's ``results.jsonl`` line."""
        return self.model_dump(mode="json", exclude_unset=True)


def as_attempts(records: Iterable[Attempt | Mapping[str, Any]]) -> list[Attempt]:
    """Attempts from models or from the mappings of result lines (tests and callers build both)."""
    return [r if isinstance(r, Attempt) else Attempt.model_validate(dict(r)) for r in records]


def read_attempts(path: str | Path) -> list[Attempt]:
    """Every complete attempt of a ``results.jsonl`` (or a run folder); broken lines are skipped.

    A line cut by a crash or a kill, or one without ``task`` and an integer ``attempt``, is not
    an attempt: that attempt simply runs again on resume.  When an attempt appears twice (re-run
    after an error), the later line wins.
    """
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS
    if not path.is_file():
        return []
    latest: dict[tuple[str, int], Attempt] = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or not isinstance(data.get("attempt"), int):
                continue
            attempt = Attempt.model_validate(data)
        except (json.JSONDecodeError, ValidationError):
            continue
        latest[attempt.key] = attempt
    return [latest[key] for key in sorted(latest)]
