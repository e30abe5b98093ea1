"""Bounded tool results: page cursors for lists, clipped long text with a marker.

A model's context is finite; a tool that can return 10,000 rows must not.  Every list tool pages
through ``paged`` and every long body goes through ``clip``, whose marker says how to read on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from officesim.errors import InvalidArgument

MAX_LIMIT = 100
DEFAULT_TEXT_LIMIT = 4000
# SQLite refuses LIKE patterns longer than this (SQLITE_MAX_LIKE_PATTERN_LENGTH) with an OperationalError.
MAX_LIKE_BYTES = 50_000


def decode_cursor(cursor: str | None) -> int:
    """The row offset a cursor stands for (cursors look like ``"o40"``)."""
    if cursor is None or cursor == "":
        return 0
    # ASCII digits only ('²'.isdigit() is true but int() rejects it), and short enough for SQLite's OFFSET.
    if not (cursor.startswith("o") and cursor[1:].isascii() and cursor[1:].isdigit() and len(cursor) <= 13):
        raise InvalidArgument(f"cursor {cursor!r} is not one this tool returned; pass next_cursor from a result")
    return int(cursor[1:])


def check_limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    return limit


def paged(
    conn: sqlite3.Connection,
    sql: str,
    params: Sequence[Any],
    *,
    cursor: str | None,
    limit: int,
    key: str,
    render: Callable[[sqlite3.Row], Any],
) -> dict[str, Any]:
    """Run ``sql`` (without LIMIT) one page at a time: ``{key: [...], "next_cursor": ...}``."""
    offset = decode_cursor(cursor)
    check_limit(limit)
    rows = conn.execute(f"{sql} LIMIT ? OFFSET ?", (*params, limit + 1, offset)).fetchall()
    more = len(rows) > limit
    return {
        key: [render(r) for r in rows[:limit]],
        "next_cursor": f"o{offset + limit}" if more else None,
    }


def clip(
    text: str, *, offset: int = 0, limit: int = DEFAULT_TEXT_LIMIT, how: str = "", key: str = "text"
) -> dict[str, Any]:
    """A window of ``text`` from ``offset``; says how to read the rest when cut.

    Returns ``{key: ..., "truncated": bool}`` plus ``"next_offset"`` when more remains; ``key``
    names the field as the tool's result calls it ('body' for mail and CRM activities).
    """
    if offset < 0:
        raise InvalidArgument(f"offset must be >= 0, got {offset}")
    window = text[offset : offset + limit]
    rest = len(text) - offset - len(window)
    if rest <= 0:
        return {key: window, "truncated": False}
    marker = f"\n[... truncated: {rest} more characters. {how or 'Call again'} with offset={offset + limit}]"
    return {key: window + marker, "truncated": True, "next_offset": offset + limit}


def bounded(out: dict[str, Any], key: str, rows: list[Any], cap: int, hint: str) -> None:
    """Put at most ``cap`` rows under ``key`` (fetch ``cap + 1``); say how to see the rest when cut.

    For lists nested in a get result (an account's contacts, a file's grants), which cannot page.
    """
    out[key] = rows[:cap]
    if len(rows) > cap:
        out[f"{key}_more"] = f"only the first {cap} are shown; {hint}"


def like(text: str) -> str:
    """A LIKE pattern matching ``text`` anywhere, with SQL wildcards in it escaped (use ESCAPE '\\').

    Bind it as ``LIKE +?``, never ``LIKE ?``: SQLite marks a statement whose LIKE pattern is a bare
    parameter for re-preparing on every new binding (to try its prefix optimisation, which a
    ``%...%`` pattern never allows), so each call of a search would parse and plan its whole
    statement again (3x the time of drive_search_files).  ``+?`` is the same text, and the
    prepared statement stays cached.
    """
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    if len(pattern.encode("utf-8", "surrogatepass")) > MAX_LIKE_BYTES:
        raise InvalidArgument(f"search text of {len(text)} characters is too long; search for a few words from it")
    return pattern
