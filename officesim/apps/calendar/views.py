"""How calendar rows look to the model: occurrences, events with attendees, rooms."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from officesim.apps.calendar.timing import local_text, occurrence_id
from officesim.clock import format_ts, parse_ts
from officesim.paging import clip

if TYPE_CHECKING:
    import sqlite3

    from officesim.world import World

MAX_ATTENDEES_SHOWN = 50


def _email(w: World, person_id: str) -> str:
    row = w.db.execute("SELECT email FROM directory_person WHERE id = ?", (person_id,)).fetchone()
    return str(row[0]) if row else person_id


def _room_name(w: World, room_id: str | None) -> str | None:
    if not room_id:
        return None
    row = w.db.execute("SELECT name FROM calendar_room WHERE id = ?", (room_id,)).fetchone()
    return str(row[0]) if row else None


def occurrence(w: World, event: sqlite3.Row, span: tuple[datetime, datetime], viewer_zone: str) -> dict[str, Any]:
    """One occurrence as a list entry: times in UTC and in the viewer's own zone."""
    first, last = span
    count = w.db.execute("SELECT count(*) FROM calendar_attendee WHERE event_id = ?", (event["id"],)).fetchone()[0]
    return {
        "id": occurrence_id(event["id"], first, bool(event["recurrence"])),
        "event_id": event["id"],
        "title": event["title"],
        "kind": event["kind"],
        "start": format_ts(first),
        "end": format_ts(last),
        "start_local": local_text(first, viewer_zone),
        "end_local": local_text(last, viewer_zone),
        "all_day": bool(event["all_day"]),
        "organizer": _email(w, event["organizer_id"]),
        "room": _room_name(w, event["room_id"]),
        "location": event["location"],
        "recurrence": event["recurrence"] or None,
        "attendees": count,
        "my_response": event["my_response"],
    }


def event_detail(w: World, event: sqlite3.Row, viewer_id: str, viewer_zone: str) -> dict[str, Any]:
    """A whole event (series): times, rule, room, description and every attendee's answer."""
    attendees = w.db.execute(
        "SELECT person_id, email, response, optional, comment FROM calendar_attendee WHERE event_id = ? "
        "ORDER BY (person_id IS NULL), email LIMIT ?", (event["id"], MAX_ATTENDEES_SHOWN + 1)).fetchall()
    mine = next((a["response"] for a in attendees if a["person_id"] == viewer_id), None)
    first = parse_ts(event["start_at"])
    last = parse_ts(event["end_at"])
    out: dict[str, Any] = {
        "id": event["id"],
        "title": event["title"],
        "kind": event["kind"],
        "status": event["status"],
        "start": event["start_at"],
        "end": event["end_at"],
        "start_local": local_text(first, viewer_zone),
        "end_local": local_text(last, viewer_zone),
        "time_zone": event["time_zone"],
        "all_day": bool(event["all_day"]),
        "recurrence": event["recurrence"] or None,
        "recurrence_until": event["recurrence_until"] or None,
        "organizer": _email(w, event["organizer_id"]),
        "room": _room_name(w, event["room_id"]),
        "location": event["location"],
        **clip(event["description"], key="description", how="Call calendar_get_event again"),
        "my_response": mine,
        "attendees": [{"email": a["email"], "response": a["response"], "optional": bool(a["optional"]),
                       **({"comment": a["comment"]} if a["comment"] else {})}
                      for a in attendees[:MAX_ATTENDEES_SHOWN]],
    }
    if len(attendees) > MAX_ATTENDEES_SHOWN:
        out["attendees_truncated"] = True
    return out


def room(row: sqlite3.Row) -> dict[str, Any]:
    return {"id": row["id"], "name": row["name"], "office": row["office"], "capacity": row["capacity"]}
