"""Search arguments read the same way by every app: query words and phrases, time windows.

A model learns one syntax and it works everywhere: every word of a query must appear
(case-insensitive, anywhere in the searched fields), a phrase in double quotes must appear as
written, and ``after``/``before`` take ISO dates or datetimes (``after`` inclusive, ``before``
exclusive).  Parsing them in one place keeps mail, drive, chat, CRM and the directory from
drifting apart, and gives every app the same error messages.
"""

from __future__ import annotations

import re
from typing import Any

from officesim.clock import OutOfRange, format_ts, parse_ts
from officesim.errors import InvalidArgument
from officesim.results import like

MAX_TERMS = 10  # words and phrases in one query; more are a pasted paragraph, not a search
_TERMS = re.compile(r'"([^"]*)"|(\S+)')


def query_terms(query: str | None) -> list[str]:
    """The words and double-quoted phrases of ``query`` (stray quotes around words dropped).

    Raises:
        InvalidArgument: more than ``MAX_TERMS`` of them.
    """
    terms = []
    for phrase, word in _TERMS.findall(query or ""):
        term = " ".join(phrase.split()) if phrase else word.strip("\"'")
        if term:
            terms.append(term)
    if len(terms) > MAX_TERMS:
        raise InvalidArgument(
            f"query has {len(terms)} words or phrases; use at most {MAX_TERMS} of the most specific ones"
        )
    return terms


def match_all(terms: list[str], fields: tuple[str, ...]) -> tuple[list[str], list[Any]]:
    """WHERE clauses (and their parameters) requiring every term in at least one of ``fields``.

    Matching terms independently lets 'acme renewal' find 'Acme Corp - Platform renewal'.
    """
    clauses: list[str] = []
    params: list[Any] = []
    for term in terms:
        clauses.append("(" + " OR ".join(f"{f} LIKE ? ESCAPE '\\'" for f in fields) + ")")
        params += [like(term)] * len(fields)
    return clauses, params


def timestamp(value: str, param: str) -> str:
    """An ISO date or datetime a model sent, as stored text (a bare date is midnight UTC).

    Raises:
        InvalidArgument: ``value`` is not an ISO date.
    """
    try:
        return format_ts(parse_ts(value))
    except OutOfRange as exc:
        raise InvalidArgument(f"{param}={exc}") from None
    except ValueError:
        raise InvalidArgument(
            f"{param}={value[:60]!r} is not a date; use ISO format like '2026-09-14' or '2026-09-14T09:00:00Z'"
        ) from None


def time_window(column: str, after: str | None, before: str | None) -> tuple[list[str], list[Any]]:
    """WHERE clauses (and parameters) for ``after <= column < before``; empty bounds are ignored.

    Raises:
        InvalidArgument: a bound is not a date, or the window ends before it starts.
    """
    start = timestamp(after, "after") if after is not None and after.strip() else None
    end = timestamp(before, "before") if before is not None and before.strip() else None
    if start and end and start >= end:
        raise InvalidArgument(f"after ({start}) must be earlier than before ({end}); swap or widen the range")
    clauses, params = [], []
    if start:
        clauses.append(f"{column} >= ?")
        params.append(start)
    if end:
        clauses.append(f"{column} < ?")
        params.append(end)
    return clauses, params
