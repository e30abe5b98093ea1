"""The world's calendar page: the acting user's week, each event's attendees and answers, the rooms.

Unlike the other world pages, this one goes through the calendar tools (``world.call``), so
recurring series are expanded, times shown in the user's own zone, and only what the user may see
is shown, exactly as the app itself decides; the viewer does not re-implement any of it.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from officesim.view.html import esc, link, search_form, table
from officesim.world import World

MAX_PAGES = 5  # of 100 occurrences: a week never has more, and a page must stay bounded


def _monday(world: World, week: str | None) -> date:
    """The Monday of ``week`` (any ISO date in it) or, by default, of the world's clock in the user's zone."""
    if week:
        try:
            day = date.fromisoformat(week)
        except ValueError:
            day = None
        if day is not None:
            return day - timedelta(days=day.weekday())
    row = world.db.execute("SELECT time_zone FROM calendar_calendar WHERE owner_id = ?", (world.user_id,)).fetchone()
    now = world.now()
    local = now.astimezone(ZoneInfo(row[0])) if row else now
    return local.date() - timedelta(days=local.weekday())


def _error(result: dict[str, Any]) -> str | None:
    return str(result["error"]) if "error" in result else None


def _week_events(world: World, monday: date) -> tuple[list[dict[str, Any]], str, str | None]:
    """The week's occurrences, the user's time zone, and an error from the tool if there was one."""
    events: list[dict[str, Any]] = []
    cursor: str | None = None
    zone = ""
    for _ in range(MAX_PAGES):
        result = world.call("calendar_list_events", {"start": monday.isoformat(),
                                                     "end": (monday + timedelta(days=7)).isoformat(),
                                                     "limit": 100, **({"cursor": cursor} if cursor else {})})
        if (problem := _error(result)) is not None:
            return events, zone, problem
        zone = result["time_zone"]
        events += result["events"]
        cursor = result.get("next_cursor")
        if not cursor:
            break
    return events, zone, None


def _attendees(detail: dict[str, Any]) -> str:
    if (problem := _error(detail)) is not None:
        return f"<span class='muted'>{esc(problem)}</span>"
    people = [f"{esc(a['email'])}: <strong>{esc(a['response'])}</strong>" + (" (optional)" if a["optional"] else "")
              + (f" <span class='muted'>“{esc(a['comment'])}”</span>" if a.get("comment") else "")
              for a in detail["attendees"]]
    more = " …and more" if detail.get("attendees_truncated") else ""
    return "<br>".join(people) + more


def _when(event: dict[str, Any]) -> str:
    start = datetime.fromisoformat(event["start_local"])
    end = datetime.fromisoformat(event["end_local"])
    if event["all_day"]:
        return f"{start:%a %d %b} all day"
    return f"{start:%a %d %b %H:%M}–{end:%H:%M}"


def calendar(world: World, prefix: str, query: str | None, week: str | None) -> str:
    """The calendar section: the week's events (or a search of them) and the rooms."""
    if "calendar_event" not in world.tables():
        return "<p>This world has no calendar (it was built before the calendar app).</p>"
    monday = _monday(world, week)
    nav = (f"<p>{link(f'{prefix}/calendar', '← previous week', week=(monday - timedelta(days=7)).isoformat())} | "
           f"{link(f'{prefix}/calendar', 'this week')} | "
           f"{link(f'{prefix}/calendar', 'next week →', week=(monday + timedelta(days=7)).isoformat())}</p>")
    body = search_form(f"{prefix}/calendar", query, "search events") + nav
    if query:
        found = world.call("calendar_search_events", {"query": query, "limit": 50})
        if (problem := _error(found)) is not None:
            return body + f"<p>{esc(problem)}</p>"
        rows: list[tuple[str, ...]]
        rows = [(esc(e["start_local"]), esc(e["title"]), esc(e["kind"]), esc(e["status"]), esc(e["recurrence"] or ""),
                 esc(e["organizer"]), esc(e["my_response"])) for e in found["events"]]
        body += f"<h2>Events matching “{esc(query)}”</h2>" + table(
            ["first start", "title", "kind", "status", "repeats", "organizer", "my answer"], rows, sortable=True)
    else:
        events, zone, problem = _week_events(world, monday)
        details: dict[str, dict[str, Any]] = {}
        for event in events:
            if event["event_id"] not in details:
                details[event["event_id"]] = world.call("calendar_get_event", {"event_id": event["event_id"]})
        rows = [(esc(_when(e)), esc(e["title"]), esc(e["kind"]), esc(e["room"] or e["location"] or ""),
                 esc(e["recurrence"] or ""), esc(e["organizer"]), esc(e["my_response"]),
                 _attendees(details[e["event_id"]])) for e in events]
        body += (f"<h2>Week of {monday:%A %d %B %Y} ({esc(zone)})</h2>"
                 + (f"<p>{esc(problem)}</p>" if problem else "")
                 + table(["when", "title", "kind", "room / place", "repeats", "organizer", "my answer",
                          "attendees and answers"], rows, css_id="calendar-week"))
    rooms = world.call("calendar_list_rooms", {})
    room_rows = [(esc(r["id"]), esc(r["name"]), esc(r["office"]), str(r["capacity"])) for r in rooms.get("rooms", [])]
    return body + "<h2>Rooms</h2>" + table(["id", "name", "office", "capacity"], room_rows, sortable=True)
