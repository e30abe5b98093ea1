"""Who is busy when: the events on a calendar, busy intervals, working hours and common free time.

These are primitives: ``free_slots`` returns every interval in which all the people asked about
are free (inside their working hours when asked), not a chosen meeting time.  Deciding which slot
suits a task's constraints is the agent's work.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from officesim.apps.calendar.timing import occurrences
from officesim.errors import NotFound

if TYPE_CHECKING:
    import sqlite3

    from officesim.world import World

Interval = tuple[datetime, datetime]

# Events a person attends (the organizer is an attendee too) that may overlap a window.
_EVENTS_OF = (
    "SELECT e.*, a.response AS my_response FROM calendar_attendee a JOIN calendar_event e ON e.id = a.event_id "
    "WHERE a.person_id = ? AND e.status = 'confirmed' AND e.start_at < ? "
    "AND ((e.recurrence = '' AND e.end_at > ?) OR (e.recurrence != '' AND (e.recurrence_until = '' "
    "OR e.recurrence_until >= ?)))"
)


def calendar_of(w: World, person_id: str) -> sqlite3.Row:
    """The calendar row (time zone, working hours) of ``person_id``."""
    row = w.db.execute("SELECT * FROM calendar_calendar WHERE owner_id = ?", (person_id,)).fetchone()
    if row is None:
        raise NotFound(f"{person_id} has no calendar")
    return row


def events_of(w: World, person_id: str, start: datetime, end: datetime) -> list[tuple[sqlite3.Row, Interval]]:
    """Each occurrence on ``person_id``'s calendar overlapping [start, end), sorted by start."""
    bounds = (start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ"))
    found = []
    for event in w.db.execute(_EVENTS_OF, (person_id, bounds[1], bounds[0], bounds[0])):
        found += [(event, span) for span in occurrences(event, start, end)]
    found.sort(key=lambda item: (item[1][0], item[0]["id"]))
    return found


def merge(intervals: list[Interval]) -> list[Interval]:
    """Overlapping or touching intervals joined, sorted."""
    merged: list[Interval] = []
    for first, last in sorted(intervals):
        if merged and first <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def busy(w: World, person_id: str, start: datetime, end: datetime) -> list[Interval]:
    """When ``person_id`` is busy in [start, end): every occurrence they did not decline, merged."""
    spans = [(max(a, start), min(b, end)) for event, (a, b) in events_of(w, person_id, start, end)
             if event["my_response"] != "declined"]
    return merge(spans)


def working_hours(calendar: Any, start: datetime, end: datetime) -> list[Interval]:
    """The person's working hours (Monday to Friday, in their own zone) inside [start, end)."""
    tz = ZoneInfo(calendar["time_zone"])
    opens, closes = time.fromisoformat(calendar["work_start"]), time.fromisoformat(calendar["work_end"])
    day = start.astimezone(tz).date() - timedelta(days=1)
    spans: list[Interval] = []
    while datetime.combine(day, time(0), tz) < end:
        if day.weekday() < 5:
            first = datetime.combine(day, opens, tz).astimezone(UTC)
            last = datetime.combine(day, closes, tz).astimezone(UTC)
            if last > start and first < end:
                spans.append((max(first, start), min(last, end)))
        day += timedelta(days=1)
    return spans


def subtract(spans: list[Interval], taken: list[Interval]) -> list[Interval]:
    """``spans`` minus every interval of ``taken`` (both sorted and merged)."""
    out: list[Interval] = []
    for first, last in spans:
        cursor = first
        for busy_first, busy_last in taken:
            if busy_last <= cursor or busy_first >= last:
                continue
            if busy_first > cursor:
                out.append((cursor, busy_first))
            cursor = max(cursor, busy_last)
        if cursor < last:
            out.append((cursor, last))
    return out


def intersect(a: list[Interval], b: list[Interval]) -> list[Interval]:
    """The intervals in both ``a`` and ``b`` (each sorted and merged)."""
    out: list[Interval] = []
    i = j = 0
    while i < len(a) and j < len(b):
        first, last = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if first < last:
            out.append((first, last))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def free_slots(w: World, person_ids: list[str], start: datetime, end: datetime, *, minutes: int,
               working_only: bool) -> list[Interval]:
    """Every interval of at least ``minutes`` in which all ``person_ids`` are free."""
    common: list[Interval] = [(start, end)]
    for person_id in person_ids:
        mine = working_hours(calendar_of(w, person_id), start, end) if working_only else [(start, end)]
        common = intersect(common, subtract(mine, busy(w, person_id, start, end)))
    return [(a, b) for a, b in common if b - a >= timedelta(minutes=minutes)]
