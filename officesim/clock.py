"""Simulated time.

The world never reads the real clock: every timestamp comes from the world's simulated clock,
stored in the database so that a snapshot carries it.  Timestamps are stored as ISO 8601 UTC
strings (``2026-09-14T09:30:00Z``) so that they sort correctly as text.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

ISO_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
RANGE_HINT = "dates run from 0001-01-01 to 9999-12-31, counted in UTC"


class OutOfRange(ValueError):
    """An ISO date or time that is well formed but falls outside what ``datetime`` holds in UTC."""


def format_ts(moment: datetime) -> str:
    """Render an aware datetime as the canonical stored text (always a 4-digit year, so it sorts)."""
    if moment.tzinfo is None:
        raise ValueError("naive datetimes are not allowed; attach a timezone")
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def parse_ts(text: str) -> datetime:
    """Parse a stored timestamp, or any ISO date/datetime a model might send, as aware UTC.

    A bare date (``2026-09-14``) means midnight UTC of that day.  The one place model-sent times
    are read, so the one place their range is checked.

    Raises:
        OutOfRange: a real ISO time whose UTC value is before year 1 or after year 9999
            (``0001-01-01T00:00:00+01:00``); a ``ValueError``, never an ``OverflowError``.
        ValueError: text that is not an ISO date or datetime.
    """
    cleaned = text.strip().replace("z", "Z")
    if len(cleaned) == 10:
        day = date.fromisoformat(cleaned)
        return datetime(day.year, day.month, day.day, tzinfo=UTC)
    moment = datetime.fromisoformat(cleaned.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise OutOfRange(f"{text.strip()[:40]!r} is out of range; {RANGE_HINT}") from None


def shift(text: str, **delta: float) -> str:
    """Return the stored timestamp ``text`` moved by a ``timedelta(**delta)``."""
    return format_ts(parse_ts(text) + timedelta(**delta))
