"""A time budget for every tool call: no call a model makes can hang an episode.

Queries run in SQLite, so SQLite's progress handler is the clock: every ``CHECK_EVERY`` virtual
machine instructions it asks whether the call's deadline has passed, and if so the statement
stops with "interrupted", which ``run_within`` turns into a ``Timeout`` (a ``ToolError``: the
model reads it, the tool layer rolls the call back).  Python-side work is bounded by the input
maxima every tool declares (``toolschema``), not by this clock.

The budget is the world's ``time_budget`` (seconds, ``None`` for none); a new world takes it from
``OFFICESIM_TOOL_TIMEOUT`` or ``DEFAULT_SECONDS``.
"""

from __future__ import annotations

import math
import os
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

from officesim.errors import OfficesimError, Timeout

DEFAULT_SECONDS = 2.0
ENV_VAR = "OFFICESIM_TOOL_TIMEOUT"
# The handler costs a Python call; every 10,000 instructions (~0.1 ms of SQLite work) is cheap and
# still stops a runaway query within milliseconds of its deadline.
CHECK_EVERY = 10_000
T = TypeVar("T")


def default_budget() -> float | None:
    """The budget from ``OFFICESIM_TOOL_TIMEOUT`` (seconds; 0 or 'none' for no budget), else 2 s."""
    raw = os.environ.get(ENV_VAR, "").strip()
    if not raw:
        return DEFAULT_SECONDS
    if raw.lower() in ("0", "none", "off"):
        return None
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise OfficesimError(f"{ENV_VAR}={raw!r} is not a number of seconds; set e.g. {ENV_VAR}=2, or 0 for none")
    return seconds


def run_within(conn: sqlite3.Connection, seconds: float | None, work: Callable[[], T]) -> T:
    """``work()`` with SQLite statements on ``conn`` stopped once ``seconds`` have passed.

    Raises:
        Timeout: a statement was interrupted at the deadline (the caller rolls back writes).
    """
    if seconds is None:
        return work()
    deadline = time.monotonic() + seconds
    conn.set_progress_handler(lambda: time.monotonic() > deadline, CHECK_EVERY)
    try:
        return work()
    except sqlite3.OperationalError as exc:
        if str(exc) != "interrupted":
            raise
        raise Timeout(
            f"the call ran past its time budget of {seconds:g} s and was stopped; nothing was changed. Ask for "
            "less at once (fewer or more specific search words, a narrower filter or range, a smaller page) "
            "and call again"
        ) from None
    finally:
        conn.set_progress_handler(None, 0)
