"""Calendar tools: your calendar, colleagues' free/busy, scheduling, invitations and rooms.

The acting employee sees the events they organise or were invited to, in full; of colleagues'
calendars only when they are busy (``calendar_get_free_busy``), as in any company calendar.
Times without an offset are read in the acting employee's own time zone.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal

from annotated_types import MaxLen

from officesim.apps.calendar.availability import busy, calendar_of, events_of, free_slots
from officesim.apps.calendar.timing import (
    MAX_DURATION,
    MAX_WINDOW,
    RULES,
    local_text,
    occurrences,
    read_time,
    read_window,
    split_occurrence_id,
)
from officesim.apps.calendar.views import event_detail, occurrence, room
from officesim.apps.people import employee
from officesim.apps.search import match_all, query_terms, time_window
from officesim.clock import format_ts, parse_ts
from officesim.errors import Conflict, InvalidArgument, NotFound, PermissionDenied
from officesim.paging import check_limit, paged
from officesim.tools import tool

if TYPE_CHECKING:
    import sqlite3

    from officesim.world import World

Rule = Literal["daily", "weekdays", "weekly", "biweekly", "monthly"]
Response = Literal["accepted", "declined", "tentative"]
MAX_TITLE = 200
MAX_DESCRIPTION = 5_000
MAX_ATTENDEES = 50
MAX_PEOPLE = 20
MAX_SLOTS = 50
Description = Annotated[str, MaxLen(MAX_DESCRIPTION)]
Guests = Annotated[list[str], MaxLen(MAX_ATTENDEES)]
People = Annotated[list[str], MaxLen(MAX_PEOPLE)]
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,190}\.[a-z]{2,24}$", re.IGNORECASE)


def _my_zone(w: World) -> str:
    return str(calendar_of(w, w.user_id)["time_zone"])


def _text(value: str | None, param: str, limit: int, *, required: bool = False) -> str:
    text = (value or "").strip()
    if required and not text:
        raise InvalidArgument(f"{param} is empty; give the event a {param}")
    if len(text) > limit:
        raise InvalidArgument(f"{param} is {len(text)} characters; the limit is {limit}")
    return text


def _my_event(w: World, ref: str) -> tuple[sqlite3.Row, datetime | None]:
    """The event ``ref`` names (an event or occurrence id) if it is on your calendar."""
    event_id, moment = split_occurrence_id(ref)
    row = w.db.execute(
        "SELECT e.*, a.response AS my_response FROM calendar_event e JOIN calendar_attendee a "
        "ON a.event_id = e.id AND a.person_id = ? WHERE e.id = ?", (w.user_id, event_id)).fetchone()
    if row is None:
        raise NotFound(f"no event {ref[:60]!r} on your calendar; calendar_list_events and calendar_search_events "
                       "find yours")
    if moment is not None and not (
            row["recurrence"] and any(a == moment for a, _ in occurrences(row, moment, moment + timedelta(1)))):
        raise NotFound(f"{row['id']} has no occurrence starting {format_ts(moment)}")
    return row, moment


def _organised(w: World, ref: str, verb: str) -> tuple[sqlite3.Row, datetime | None]:
    row, moment = _my_event(w, ref)
    if row["organizer_id"] != w.user_id:
        raise PermissionDenied(f"only the organizer can {verb} {row['id']}; to answer the invitation use "
                               "calendar_respond_event")
    if row["status"] == "cancelled":
        raise Conflict(f"{row['id']} is cancelled")
    return row, moment


def _guests(w: World, refs: list[str] | None) -> list[tuple[str | None, str]]:
    """(person id or None, email) for each attendee named: colleagues by id/email/name, outsiders by email."""
    if refs and len(refs) > MAX_ATTENDEES:
        raise InvalidArgument(f"{len(refs)} attendees; an event takes at most {MAX_ATTENDEES}")
    domain = (w.meta("domain") or "").lower()
    out: dict[str, tuple[str | None, str]] = {}
    for ref in refs or []:
        text = ref.strip()
        if "@" in text and not text.lower().endswith(f"@{domain}"):
            if not _EMAIL.match(text):
                raise InvalidArgument(f"attendee {text[:80]!r} is not an email address")
            out.setdefault(text.lower(), (None, text.lower()))
            continue
        person = employee(w, text, "attendee")
        out.setdefault(person["email"], (person["id"], person["email"]))
    return list(out.values())


def _room(w: World, ref: str) -> sqlite3.Row:
    text = ref.strip()
    row = w.db.execute("SELECT * FROM calendar_room WHERE id = ? OR name = ? COLLATE NOCASE ORDER BY id LIMIT 1",
                       (text, text)).fetchone()
    if row is None:
        raise NotFound(f"no room {text[:60]!r}; calendar_list_rooms lists them")
    return row


def _room_clash(w: World, room_id: str, spans: list[tuple[datetime, datetime]], skip: str | None) -> str | None:
    """The first booking of ``room_id`` that overlaps one of ``spans``, described, or None."""
    if not spans:
        return None
    start, end = spans[0][0], spans[-1][1]
    for booking in w.db.execute(
            "SELECT * FROM calendar_event WHERE room_id = ? AND status = 'confirmed' AND id != ? AND start_at < ?",
            (room_id, skip or "", format_ts(end))):
        for a, b in occurrences(booking, start, end):
            if any(a < y and b > x for x, y in spans):
                return f"{format_ts(a)} to {format_ts(b)}"
    return None


def _spans(first: datetime, last: datetime, rule: str, until: str, zone_name: str) -> list[tuple[datetime, datetime]]:
    """The occurrences of a new or moved event in the next 92 days (for room and attendee checks)."""
    shape = {"start_at": format_ts(first), "end_at": format_ts(last), "recurrence": rule, "time_zone": zone_name,
             "recurrence_until": until, "exdates": "[]"}
    return list(occurrences(shape, first, first + MAX_WINDOW))


def _busy_attendees(w: World, guests: list[tuple[str | None, str]], span: tuple[datetime, datetime],
                    skip: str | None = None) -> list[str]:
    """Emails of the colleagues among ``guests`` who already have something at ``span``."""
    clashing = []
    for person_id, email in guests:
        if person_id is None or person_id == w.user_id:
            continue
        if any(event["id"] != skip and event["my_response"] != "declined"
               for event, _ in events_of(w, person_id, span[0], span[1])):
            clashing.append(email)
    return clashing


# ------------------------------------------------------------------------------------------ reading
@tool(app="calendar", kind="read")
def calendar_list_events(w: World, start: str, end: str, cursor: str | None = None, limit: int = 50) -> dict[str, Any]:
    """List the events on your calendar between two times, each occurrence of a recurring event on its own.

    Args:
        start: Window start, e.g. '2026-10-06' or '2026-10-06T08:00' (your own time zone) or with an offset.
        end: Window end (exclusive); the window may span at most 92 days.
        cursor: next_cursor from a previous call, to read the next page.
        limit: Occurrences per page (1-100).
    """
    zone_name = _my_zone(w)
    first, last = read_window(start, end, zone_name)
    check_limit(limit)
    found = events_of(w, w.user_id, first, last)
    offset = int(cursor[1:]) if cursor and cursor[:1] == "o" and cursor[1:].isdigit() else 0
    if cursor and not offset:
        raise InvalidArgument(f"cursor {cursor[:40]!r} is not one this tool returned; pass next_cursor")
    page = found[offset: offset + limit]
    return {
        "time_zone": zone_name,
        "events": [occurrence(w, event, span, zone_name) for event, span in page],
        "next_cursor": f"o{offset + limit}" if len(found) > offset + limit else None,
    }


@tool(app="calendar", kind="read")
def calendar_search_events(
    w: World, query: str | None = None, after: str | None = None, before: str | None = None,
    cursor: str | None = None, limit: int = 20,
) -> dict[str, Any]:
    """Search the events on your calendar (each series once) by words in the title, description or location.

    Args:
        query: Words to find, e.g. 'quarterly review'; every word must appear ('"exact phrase"' in quotes).
        after: Only events (series) starting on or after this date, e.g. '2026-10-01'.
        before: Only events (series) starting before this date.
        cursor: next_cursor from a previous call.
        limit: Events per page (1-100).
    """
    clauses, params = match_all(query_terms(query), ("e.title", "e.description", "e.location"))
    window, window_params = time_window("e.start_at", after, before)
    sql = ("SELECT e.*, a.response AS my_response FROM calendar_attendee a JOIN calendar_event e ON e.id = a.event_id "
           f"WHERE {' AND '.join(['a.person_id = ?', *clauses, *window])} ORDER BY e.start_at DESC, e.id")
    zone_name = _my_zone(w)

    def render(row: sqlite3.Row) -> dict[str, Any]:
        first = parse_ts(row["start_at"])
        last = parse_ts(row["end_at"])
        return occurrence(w, row, (first, last), zone_name) | {"id": row["id"], "status": row["status"]}

    return paged(w.db, sql, [w.user_id, *params, *window_params], cursor=cursor, limit=limit, key="events",
                 render=render)


@tool(app="calendar", kind="read")
def calendar_get_event(w: World, event_id: str) -> dict[str, Any]:
    """Read one event on your calendar in full: times, recurrence, room, description, attendees and their answers.

    Args:
        event_id: An event id ('ev_12') or the id of one occurrence of a recurring event ('ev_12@20261006T1400Z').
    """
    row, moment = _my_event(w, event_id)
    zone_name = _my_zone(w)
    out = event_detail(w, row, w.user_id, zone_name)
    if moment is not None:
        length = parse_ts(row["end_at"]) - parse_ts(row["start_at"])
        out["occurrence"] = {"start": format_ts(moment), "end": format_ts(moment + length),
                             "start_local": local_text(moment, zone_name)}
    return out


@tool(app="calendar", kind="read")
def calendar_get_free_busy(w: World, people: People, start: str, end: str) -> dict[str, Any]:
    """When colleagues are busy between two times (no titles: only busy intervals), with their time zone and hours.

    Args:
        people: Colleagues' emails, person ids or full names (at most 20); include yourself if you like.
        start: Window start, e.g. '2026-10-06' (your own time zone unless an offset is given).
        end: Window end (exclusive); at most 92 days after start.
    """
    if not people or len(people) > MAX_PEOPLE:
        raise InvalidArgument(f"give between 1 and {MAX_PEOPLE} people")
    first, last = read_window(start, end, _my_zone(w))
    out = []
    for ref in people:
        person = employee(w, ref)
        calendar = calendar_of(w, person["id"])
        spans = busy(w, person["id"], first, last)
        out.append({"email": person["email"], "time_zone": calendar["time_zone"],
                    "working_hours": f"{calendar['work_start']}-{calendar['work_end']} Mon-Fri",
                    "busy": [{"start": format_ts(a), "end": format_ts(b)} for a, b in spans[:200]],
                    **({"busy_truncated": True} if len(spans) > 200 else {})})
    return {"people": out}


@tool(app="calendar", kind="read")
def calendar_find_free_time(
    w: World, people: People, duration_minutes: int, start: str, end: str, working_hours_only: bool = True,
    include_me: bool = True, limit: int = 20,
) -> dict[str, Any]:
    """Every interval in which all the given people are free for at least the duration (not a chosen slot).

    Args:
        people: Colleagues' emails, person ids or full names (at most 20).
        duration_minutes: The shortest free interval worth returning, in minutes (5-1440).
        start: Window start (your own time zone unless an offset is given).
        end: Window end (exclusive); at most 92 days after start.
        working_hours_only: Keep to the hours everyone works (Mon-Fri, each in their own time zone).
        include_me: Count your own calendar too.
        limit: At most this many intervals, earliest first (1-50).
    """
    if not people or len(people) > MAX_PEOPLE:
        raise InvalidArgument(f"give between 1 and {MAX_PEOPLE} people")
    if not 5 <= duration_minutes <= 1440:
        raise InvalidArgument(f"duration_minutes must be between 5 and 1440, got {duration_minutes}")
    if not 1 <= limit <= MAX_SLOTS:
        raise InvalidArgument(f"limit must be between 1 and {MAX_SLOTS}, got {limit}")
    zone_name = _my_zone(w)
    first, last = read_window(start, end, zone_name)
    ids = list(dict.fromkeys([*([w.user_id] if include_me else []), *(employee(w, p)["id"] for p in people)]))
    slots = free_slots(w, ids, first, last, minutes=duration_minutes, working_only=working_hours_only)
    return {
        "time_zone": zone_name,
        "free": [{"start": format_ts(a), "end": format_ts(b), "start_local": local_text(a, zone_name),
                  "end_local": local_text(b, zone_name)} for a, b in slots[:limit]],
        "more": len(slots) > limit,
    }


@tool(app="calendar", kind="read")
def calendar_list_rooms(w: World, office: str | None = None, min_capacity: int | None = None) -> dict[str, Any]:
    """List meeting rooms, optionally in one office or with room for at least some people.

    Args:
        office: An office, e.g. 'London' (the locations the directory shows).
        min_capacity: Only rooms for at least this many people.
    """
    sql = "SELECT * FROM calendar_room WHERE 1 = 1"
    params: list[str | int] = []
    if office is not None and office.strip():
        sql += " AND office = ? COLLATE NOCASE"
        params.append(office.strip()[:80])
    if min_capacity is not None:
        if not 0 <= min_capacity <= 10_000:
            raise InvalidArgument(f"min_capacity must be between 0 and 10,000, got {min_capacity}")
        sql += " AND capacity >= ?"
        params.append(min_capacity)
    rows = w.db.execute(sql + " ORDER BY office, name LIMIT 101", params).fetchall()
    return {"rooms": [room(r) for r in rows[:100]], **({"truncated": True} if len(rows) > 100 else {})}


# ------------------------------------------------------------------------------------------ writing
@tool(app="calendar", kind="write")
def calendar_create_event(
    w: World,
    title: str,
    start: str,
    end: str,
    attendees: Guests | None = None,
    description: Description | None = None,
    room: str | None = None,
    location: str | None = None,
    recurrence: Rule | None = None,
    until: str | None = None,
    all_day: bool = False,
) -> dict[str, Any]:
    """Create an event on your calendar and invite people; invitees answer with calendar_respond_event.

    Invitees who already have something at that time are listed under 'busy_attendees' (the
    event is still created: check calendar_find_free_time first to avoid that).

    Args:
        title: The event's title (at most 200 characters).
        start: Start, e.g. '2026-10-06T10:00' (your own time zone) or with an offset ('...+01:00', '...Z').
        end: End; after start, at most 31 days later.
        attendees: Colleagues (emails, person ids or full names) and outside guests (emails), at most 50.
        description: Agenda or notes (at most 5,000 characters).
        room: A meeting room id or name (calendar_list_rooms); it must be free at every occurrence.
        location: Free-text location for events outside the office, e.g. 'Zoom' or a customer's address.
        recurrence: Repeat 'daily', on 'weekdays', 'weekly', 'biweekly' or 'monthly' (same day of the month).
        until: Last day a recurring event may occur, e.g. '2026-12-18'.
        all_day: An all-day event: start and end are dates, and the end date is not included (start
            '2026-10-12', end '2026-10-15' blocks the 12th, 13th and 14th).
    """
    name = _text(title, "title", MAX_TITLE, required=True)
    notes = _text(description, "description", MAX_DESCRIPTION)
    place = _text(location, "location", 200)
    zone_name = _my_zone(w)
    first, last = read_time(start, "start", zone_name), read_time(end, "end", zone_name)
    if last <= first:
        raise InvalidArgument(f"end ({format_ts(last)}) must be after start ({format_ts(first)})")
    if last - first > MAX_DURATION:
        raise InvalidArgument(f"an event may last at most {MAX_DURATION.days} days")
    if recurrence is not None and recurrence not in RULES:
        raise InvalidArgument(f"recurrence must be one of {', '.join(RULES)}")
    if until and not recurrence:
        raise InvalidArgument("until only applies to a recurring event; give recurrence too")
    last_day = read_time(until, "until", zone_name) + timedelta(days=1) - timedelta(seconds=1) if until else None
    until_ts = format_ts(last_day) if last_day else ""
    if until_ts and until_ts < format_ts(first):
        raise InvalidArgument("until is before the first occurrence")
    guests = _guests(w, attendees)
    spans = _spans(first, last, recurrence or "", until_ts, zone_name)
    booked = _room(w, room) if room is not None and room.strip() else None
    if booked is not None:
        if len(guests) + 1 > booked["capacity"]:
            raise InvalidArgument(f"{booked['name']} seats {booked['capacity']}; this event has {len(guests) + 1} "
                                  "people: pick a bigger room (calendar_list_rooms with min_capacity)")
        clash = _room_clash(w, booked["id"], spans, None)
        if clash:
            raise Conflict(f"{booked['name']} is booked from {clash}; pick another time or room")
    busy_guests = _busy_attendees(w, guests, (first, last))
    w.tick()
    now = w.now_ts()
    event_id = w.new_id("ev")
    w.db.execute(
        "INSERT INTO calendar_event (id, organizer_id, title, description, kind, start_at, end_at, time_zone, all_day, "
        "room_id, location, recurrence, recurrence_until, exdates, status, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, 'meeting', ?, ?, ?, ?, ?, ?, ?, ?, '[]', 'confirmed', ?, ?)",
        (event_id, w.user_id, name, notes, format_ts(first), format_ts(last), zone_name, all_day,
         booked["id"] if booked is not None else None, place, recurrence or "", until_ts, now, now))
    me = w.user
    rows: list[tuple[str, str, str | None, str, str, str | None]] = [
        (w.new_id("att"), event_id, w.user_id, me["email"], "accepted", now)]
    rows += [(w.new_id("att"), event_id, pid, email, "needs_action", None) for pid, email in guests if pid != w.user_id]
    w.db.executemany("INSERT INTO calendar_attendee (id, event_id, person_id, email, response, optional, comment, "
                     "responded_at) VALUES (?, ?, ?, ?, ?, 0, '', ?)", rows)
    created = w.db.execute("SELECT *, 'accepted' AS my_response FROM calendar_event WHERE id = ?",
                           (event_id,)).fetchone()
    return {**event_detail(w, created, w.user_id, zone_name), "busy_attendees": busy_guests}


@tool(app="calendar", kind="write")
def calendar_update_event(
    w: World,
    event_id: str,
    title: str | None = None,
    start: str | None = None,
    end: str | None = None,
    description: Description | None = None,
    room: str | None = None,
    location: str | None = None,
    add_attendees: Guests | None = None,
    remove_attendees: Guests | None = None,
) -> dict[str, Any]:
    """Change an event you organise (the whole series for a recurring one); moving it asks invitees again.

    To move a single occurrence of a series, cancel that occurrence and create a one-off event.

    Args:
        event_id: The event id, e.g. 'ev_12'.
        title: A new title.
        start: A new start (your own time zone unless an offset is given).
        end: A new end.
        description: A new description (replaces the old one).
        room: A room id or name to book instead ('' to release the room).
        location: A new free-text location.
        add_attendees: People to invite as well (emails, person ids or full names).
        remove_attendees: People to take off the invitation.
    """
    if "@" in event_id:
        raise InvalidArgument("updates change the whole series; pass the event id without '@...', or cancel that "
                              "occurrence (calendar_cancel_event) and create a one-off event")
    row, _ = _organised(w, event_id, "change")
    zone_name = _my_zone(w)
    first = read_time(start, "start", zone_name) if start else parse_ts(row["start_at"])
    last = read_time(end, "end", zone_name) if end else parse_ts(row["end_at"])
    if start and not end:
        last = first + (parse_ts(row["end_at"])
                        - parse_ts(row["start_at"]))
    if last <= first:
        raise InvalidArgument(f"end ({format_ts(last)}) must be after start ({format_ts(first)})")
    if last - first > MAX_DURATION:
        raise InvalidArgument(f"an event may last at most {MAX_DURATION.days} days")
    moved = format_ts(first) != row["start_at"] or format_ts(last) != row["end_at"]
    new_title = _text(title, "title", MAX_TITLE, required=True) if title is not None else row["title"]
    new_notes = _text(description, "description", MAX_DESCRIPTION) if description is not None else row["description"]
    new_place = _text(location, "location", 200) if location is not None else row["location"]
    room_id = row["room_id"]
    if room is not None:
        room_id = _room(w, room)["id"] if room.strip() else None
    adding = _guests(w, add_attendees)
    removing = {email for _, email in _guests(w, remove_attendees)}
    present = {r["email"]: r for r in w.db.execute("SELECT * FROM calendar_attendee WHERE event_id = ?", (row["id"],))}
    organizer_email = w.user["email"]
    if organizer_email in removing:
        raise InvalidArgument("you organise this event; to drop it, cancel it with calendar_cancel_event")
    unknown = removing - set(present)
    if unknown:
        raise InvalidArgument(f"not invited: {', '.join(sorted(unknown))}")
    count = len(set(present) - removing) + len([e for _, e in adding if e not in present])
    if room_id and (moved or room_id != row["room_id"] or adding):
        booked = w.db.execute("SELECT * FROM calendar_room WHERE id = ?", (room_id,)).fetchone()
        if count > booked["capacity"]:
            raise InvalidArgument(f"{booked['name']} seats {booked['capacity']}; this event would have {count} people")
        clash = _room_clash(w, room_id, _spans(first, last, row["recurrence"], row["recurrence_until"],
                                               row["time_zone"]), row["id"])
        if clash:
            raise Conflict(f"{booked['name']} is booked from {clash}; pick another time or room")
    if not (moved or new_title != row["title"] or new_notes != row["description"] or new_place != row["location"]
            or room_id != row["room_id"] or adding or removing):
        raise InvalidArgument("nothing to change: give a new title, time, description, room, location or attendees")
    w.tick()
    now = w.now_ts()
    w.db.execute("UPDATE calendar_event SET title = ?, description = ?, location = ?, room_id = ?, start_at = ?, "
                 "end_at = ?, updated_at = ? WHERE id = ?",
                 (new_title, new_notes, new_place, room_id, format_ts(first), format_ts(last), now, row["id"]))
    if removing:
        marks = ",".join("?" * len(removing))
        w.db.execute(f"DELETE FROM calendar_attendee WHERE event_id = ? AND email IN ({marks})",
                     (row["id"], *sorted(removing)))
    w.db.executemany("INSERT INTO calendar_attendee (id, event_id, person_id, email, response, optional, comment, "
                     "responded_at) VALUES (?, ?, ?, ?, 'needs_action', 0, '', NULL)",
                     [(w.new_id("att"), row["id"], pid, email) for pid, email in adding if email not in present])
    if moved:
        w.db.execute("UPDATE calendar_attendee SET response = 'needs_action', responded_at = NULL, comment = '' "
                     "WHERE event_id = ? AND person_id IS NOT ?", (row["id"], w.user_id))
    updated, _ = _my_event(w, row["id"])
    busy_guests = _busy_attendees(w, _guests(w, [e for e in present if e not in removing] + [e for _, e in adding]),
                                  (first, last), skip=row["id"]) if moved or adding else []
    return {**event_detail(w, updated, w.user_id, zone_name), "busy_attendees": busy_guests}


@tool(app="calendar", kind="write")
def calendar_cancel_event(w: World, event_id: str, note: str | None = None) -> dict[str, Any]:
    """Cancel an event you organise: a whole series, or one occurrence when given an occurrence id.

    Args:
        event_id: 'ev_12' cancels the event (every occurrence); 'ev_12@20261006T1400Z' only that occurrence.
        note: A message for the attendees (at most 1,000 characters).
    """
    row, moment = _organised(w, event_id, "cancel")
    message = _text(note, "note", 1_000)
    w.tick()
    now = w.now_ts()
    if moment is not None:
        skipped = sorted({*json.loads(row["exdates"]), format_ts(moment)})
        w.db.execute("UPDATE calendar_event SET exdates = ?, updated_at = ? WHERE id = ?",
                     (json.dumps(skipped), now, row["id"]))
    else:
        description = row["description"] + (f"\n\nCancelled: {message}" if message else "")
        w.db.execute("UPDATE calendar_event SET status = 'cancelled', description = ?, updated_at = ? WHERE id = ?",
                     (description, now, row["id"]))
    return {"id": event_id.strip(), "status": "cancelled", "occurrence_only": moment is not None}


@tool(app="calendar", kind="write")
def calendar_respond_event(w: World, event_id: str, response: Response, comment: str | None = None) -> dict[str, Any]:
    """Answer an invitation: accept, decline or tentatively accept (for a series, every occurrence).

    Args:
        event_id: The event you were invited to, e.g. 'ev_12' (an occurrence id answers its series).
        response: 'accepted', 'declined' or 'tentative'.
        comment: A note for the organizer, e.g. 'I can join from 10:30' (at most 500 characters).
    """
    row, _ = _my_event(w, event_id)
    if row["organizer_id"] == w.user_id:
        raise InvalidArgument("you organise this event; to call it off use calendar_cancel_event")
    if row["status"] == "cancelled":
        raise Conflict(f"{row['id']} was cancelled by its organizer")
    text = _text(comment, "comment", 500)
    if response == row["my_response"] and not text:
        return {"id": row["id"], "response": response, "unchanged": True}
    w.tick()
    w.db.execute("UPDATE calendar_attendee SET response = ?, comment = ?, responded_at = ? WHERE event_id = ? "
                 "AND person_id = ?", (response, text, w.now_ts(), row["id"], w.user_id))
    return {"id": row["id"], "title": row["title"], "response": response}
