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
from officesim.paging import like

MAX_TERMS = 10  # words and phrases in one query; more are a pasted paragraph, not a search
# Characters in one word or phrase: LIKE costs (text length x pattern length) on adversarial text,
# so a 200,000-character document against a 49,000-character "word" took 21 s.
MAX_TERM_CHARS = 100
LONG_TEXT = 20_000  # characters from which contains_sql searches with instr instead of LIKE
_TERMS = re.compile(r'"([^"]*)"|(\S+)')


def query_terms(query: str | None) -> list[str]:
    """The words and double-quoted phrases of ``query`` (stray quotes around words dropped).

    Raises:
        InvalidArgument: more than ``MAX_TERMS`` of them, or one longer than ``MAX_TERM_CHARS``.
    """
    terms = []
    for phrase, word in _TERMS.findall(query or ""):
        term = " ".join(phrase.split()) if phrase else word.strip("\"'")
        if len(term) > MAX_TERM_CHARS:
            raise InvalidArgument(
                f"the search {'phrase' if phrase else 'word'} {term[:40]!r}... is {len(term):,} characters; one word "
                f"or phrase has at most {MAX_TERM_CHARS}. Search for a few distinctive words from it"
            )
        if term:
            terms.append(term)
    if len(terms) > MAX_TERMS:
        raise InvalidArgument(
            f"query has {len(terms)} words or phrases; use at most {MAX_TERMS} of the most specific ones"
        )
    return terms


def contains_sql(column: str) -> str:
    """SQL that holds when ``column`` contains a term; its two parameters are ``contains_params(term)``.

    Case-insensitive for ASCII, as SQLite's LIKE is.  ``LIKE '%term%'`` costs up to (text length x
    term length) on repetitive text (a 200,000-character document the agent wrote, searched with
    one long "word", took seconds per row, between the checks of the time budget), so long values
    are searched with ``instr`` over ``lower()``, which stays linear in practice; short ones keep
    LIKE, the faster of the two on ordinary text.
    """
    return (f"(CASE WHEN length({column}) <= {LONG_TEXT} THEN {column} LIKE +? ESCAPE '\\' "
            f"ELSE instr(lower({column}), lower(?)) > 0 END)")


def contains_params(term: str) -> list[str]:
    """The parameters of one ``contains_sql`` clause."""
    return [like(term), term]


def match_all(terms: list[str], fields: tuple[str, ...]) -> tuple[list[str], list[Any]]:
    """WHERE clauses (and their parameters) requiring every term in at least one of ``fields``.

    Matching terms independently lets 'acme renewal' find 'Acme Corp - Platform renewal'.
    """
    clauses: list[str] = []
    params: list[Any] = []
    for term in terms:
        clauses.append("(" + " OR ".join(contains_sql(f) for f in fields) + ")")
        params += contains_params(term) * len(fields)
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
