"""Simulated time.

The world never reads the real clock: every timestamp comes from the world's simulated clock,
stored in the database so that a snapshot carries it.  Timestamps are stored as ISO 8601 UTC
strings (``2026-09-14T09:30:00Z``) so that they sort correctly as text.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

ISO_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def format_ts(moment: datetime) -> str:
    """Render an aware datetime as the canonical stored text."""
    if moment.tzinfo is None:
        raise ValueError("naive datetimes are not allowed; attach a timezone")
    return moment.astimezone(UTC).strftime(ISO_FORMAT)


def parse_ts(text: str) -> datetime:
    """Parse a stored timestamp, or any ISO date/datetime a model might send, as aware UTC.

    A bare date (``2026-09-14``) means midnight UTC of that day.  Raises ``ValueError`` on text
    that is not an ISO date.
    """
    cleaned = text.strip().replace("z", "Z")
    if len(cleaned) == 10:
        day = date.fromisoformat(cleaned)
        return datetime(day.year, day.month, day.day, tzinfo=UTC)
    moment = datetime.fromisoformat(cleaned.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def shift(text: str, **delta: float) -> str:
    """Return the stored timestamp ``text`` moved by a ``timedelta(**delta)``."""
    return format_ts(parse_ts(text) + timedelta(**delta))
