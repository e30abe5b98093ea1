"""Generate calendars that look lived-in: 1:1s, standups, team syncs, customer calls, meetings, time off.

Everything comes from what earlier apps made: managers and departments from the directory (1:1s
and standups), open CRM deals and their accounts' contacts (customer calls with outside guests),
offices from people's locations (rooms and time zones).  Recurring series began weeks to months
before the world's clock; one-off meetings, calls and time off fall in the weeks around it.
"""

from __future__ import annotations

import random
from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from officesim.apps.calendar.timing import HOME_ZONE, OFFICE_ZONES
from officesim.clock import format_ts

if TYPE_CHECKING:
    from officesim.worldgen import GenContext

ROOM_NAMES = ("Atlas", "Birch", "Cedar", "Delta", "Ember", "Fjord", "Granite", "Harbor", "Iris", "Juniper")
CAPACITIES = (4, 6, 8, 12, 20)
TOPICS = ("Q4 planning", "Budget review", "Vendor evaluation", "Hiring sync", "Offsite logistics",
          "Launch readiness", "Process retro", "Customer escalation review", "Roadmap walkthrough",
          "Contract review", "Security review", "Quarterly business review prep")
RESPONSES = (("accepted", 0.6), ("tentative", 0.1), ("declined", 0.1), ("needs_action", 0.2))


class _Calendars:
    """Accumulates events and attendees with sequential ids, then inserts them at once."""

    def __init__(self, ctx: GenContext) -> None:
        self.ctx = ctx
        self.rng = ctx.rng("calendar")
        self.people = {p["id"]: p for p in ctx.people}
        self.offices = office_zones(ctx)
        home = HOME_ZONE if ctx.spec.offices is None else ctx.spec.offices[0].time_zone  # remote people's zone
        self.zones = {p["id"]: self.offices.get(p["location"], home) for p in ctx.people}
        self.events: list[dict[str, Any]] = []
        self.attendees: list[dict[str, Any]] = []

    def at(self, person_id: str, day: datetime, hour: float) -> datetime:
        """``hour`` o'clock on ``day``'s date in ``person_id``'s own zone."""
        tz = ZoneInfo(self.zones[person_id])
        return datetime.combine(day.date(), time(int(hour), round(hour % 1 * 60)), tz)

    def add(self, organizer: str, title: str, start: datetime, minutes: int, guests: list[str], *, kind: str,
            recurrence: str = "", room: str | None = None, location: str = "", description: str = "",
            outsiders: tuple[str, ...] = (), all_day: bool = False, answers: str = "mixed") -> None:
        event_id = f"ev_{len(self.events) + 1}"
        created = format_ts(min(start, self.ctx.spec.start) - timedelta(days=7))
        self.events.append({
            "id": event_id, "organizer_id": organizer, "title": title, "description": description, "kind": kind,
            "start_at": format_ts(start), "end_at": format_ts(start + timedelta(minutes=minutes)),
            "time_zone": self.zones[organizer], "all_day": all_day, "room_id": room, "location": location,
            "recurrence": recurrence, "recurrence_until": "", "exdates": "[]", "status": "confirmed",
            "created_at": created, "updated_at": created,
        })
        self._attend(event_id, organizer, "accepted", created)
        for guest in dict.fromkeys(g for g in guests if g != organizer):
            self._attend(event_id, guest, "accepted" if answers == "accepted" else self._answer(), created)
        for email in outsiders:
            self.attendees.append({"id": f"att_{len(self.attendees) + 1}", "event_id": event_id, "person_id": None,
                                   "email": email, "response": self._answer(), "optional": False, "comment": "",
                                   "responded_at": None})

    def _answer(self) -> str:
        roll, total = self.rng.random(), 0.0
        for answer, share in RESPONSES:
            total += share
            if roll < total:
                return answer
        return "needs_action"

    def _attend(self, event_id: str, person_id: str, response: str, invited_at: str) -> None:
        """One employee's invitation; an answer is dated when the invitation went out, never before."""
        self.attendees.append({
            "id": f"att_{len(self.attendees) + 1}", "event_id": event_id, "person_id": person_id,
            "email": self.people[person_id]["email"], "response": response, "optional": False, "comment": "",
            "responded_at": None if response == "needs_action" else invited_at,
        })


def office_zones(ctx: GenContext) -> dict[str, str]:
    """City -> IANA zone of the world's offices (the spec's, else the classic five and their neighbours)."""
    if ctx.spec.offices is None:
        return OFFICE_ZONES
    return {office.city: office.time_zone for office in ctx.spec.offices}


def _monday(moment: datetime) -> datetime:
    return moment - timedelta(days=moment.weekday())


def _rooms(ctx: GenContext, rng: random.Random, zones: dict[str, str]) -> list[dict[str, Any]]:
    offices = sorted({p["location"] for p in ctx.people if p["location"] in zones})
    rooms: list[dict[str, Any]] = []
    for office in offices:
        for name in rng.sample(ROOM_NAMES, rng.randint(2, 4)):
            rooms.append({"id": f"room_{len(rooms) + 1}", "name": f"{office} {name}", "office": office,
                          "capacity": rng.choice(CAPACITIES)})
    return rooms


def generate(ctx: GenContext) -> None:
    """Calendars, rooms, recurring and one-off events with attendees and their answers."""
    cal = _Calendars(ctx)
    rng = cal.rng
    clock = ctx.spec.start
    series_start = _monday(clock) - timedelta(weeks=4)
    work_start, work_end = ctx.industry.working_hours
    ctx.insert("calendar_calendar", [
        {"id": f"cal_{i}", "owner_id": p["id"], "time_zone": cal.zones[p["id"]], "work_start": work_start,
         "work_end": "18:00" if p["location"] == "Singapore" and work_end == "17:30" else work_end}
        for i, p in enumerate(ctx.people, 1)])
    rooms = _rooms(ctx, rng, cal.offices)
    meeting_topics = ctx.industry.meeting_topics or TOPICS
    hour, minute = work_start.split(":")
    standup = int(hour) + int(minute) / 60 + 0.5  # half an hour into the working day
    ctx.insert("calendar_room", rooms)
    rooms_by_office: dict[str, list[dict[str, Any]]] = {}
    for room in rooms:
        rooms_by_office.setdefault(room["office"], []).append(room)

    def a_room(person_id: str, seats: int) -> str | None:
        fits = [r for r in rooms_by_office.get(cal.people[person_id]["location"], []) if r["capacity"] >= seats]
        return rng.choice(fits)["id"] if fits and rng.random() < 0.7 else None

    # Weekly 1:1s between every manager and report, at the manager's hour.
    for person in ctx.people:
        manager = person["manager_id"]
        if manager and manager in cal.people:
            day = series_start - timedelta(weeks=rng.randint(0, 20), days=-rng.randint(0, 3))
            start = cal.at(manager, day, rng.choice((10, 11, 13.5, 14, 15, 16)))
            first = cal.people[manager]["name"].split()[0]
            cal.add(manager, f"{first} / {person['name'].split()[0]} 1:1", start, 30, [person["id"]],
                    kind="one_on_one", recurrence="weekly", answers="accepted")
    # Department standups (daily, weekdays) and weekly syncs, run by the department head.
    members: dict[str, list[str]] = {}
    for person in ctx.people:
        members.setdefault(person["department_id"], []).append(person["id"])
    for department in ctx.departments:
        team = members.get(department["id"], [])
        head = department["head_id"] or (team[0] if team else None)
        if head is None or len(team) < 3:
            continue
        invited = team[:12]
        began = series_start - timedelta(weeks=rng.randint(4, 30))
        cal.add(head, f"{department['name']} standup", cal.at(head, began, standup), 15, invited,
                kind="standup", recurrence="weekdays", answers="accepted")
        cal.add(head, f"Weekly {department['name']} sync", cal.at(head, series_start + timedelta(days=1), 14), 45,
                invited, kind="meeting", recurrence="weekly", room=a_room(head, len(invited)), answers="accepted",
                description=f"Standing agenda: priorities, blockers, and anything {department['name']} needs "
                            "from other teams.")
    # Customer calls on open deals, with the account's contacts as outside guests.
    deals = ctx.world.db.execute(
        "SELECT d.id, d.name, d.stage, d.owner_id, d.next_step, a.name AS account, a.id AS account_id "
        "FROM crm_deal d JOIN crm_account a ON a.id = d.account_id "
        "WHERE d.stage NOT IN ('closed_won', 'closed_lost') ORDER BY d.id LIMIT ?",
        (ctx.spec.size.customer_calls,)).fetchall()
    for deal in deals:
        if deal["owner_id"] not in cal.people:
            continue
        contacts = tuple(r[0] for r in ctx.world.db.execute(
            "SELECT email FROM crm_contact WHERE account_id = ? ORDER BY id LIMIT 2", (deal["account_id"],)))
        day = clock + timedelta(days=rng.randint(-7, 14))
        start = cal.at(deal["owner_id"], day, rng.choice((9.5, 10, 11, 14, 15.5)))
        if start.weekday() >= 5:
            start += timedelta(days=7 - start.weekday())
        cal.add(deal["owner_id"], f"Call with {deal['account']}: {deal['name']}", start, 45, [], kind="customer_call",
                location="Zoom", outsiders=contacts,
                description=f"Deal {deal['id']} ({deal['stage']}). Next step: {deal['next_step']}")
    # One-off meetings each person organises with colleagues, in the weeks around the clock.
    people_ids = list(cal.people)
    for person in ctx.people:
        team = [p for p in members.get(person["department_id"], []) if p != person["id"]]
        for _ in range(ctx.spec.size.meetings_per_person):
            guests = [*rng.sample(team, min(len(team), rng.randint(1, 4))), rng.choice(people_ids)]
            day = clock + timedelta(days=rng.randint(-10, 20))
            if day.weekday() >= 5:
                day += timedelta(days=7 - day.weekday())
            start = cal.at(person["id"], day, rng.choice((9, 10, 11, 13, 14, 15, 16)))
            cal.add(person["id"], rng.choice(meeting_topics), start, rng.choice((30, 45, 60)), guests, kind="meeting",
                    room=a_room(person["id"], len(guests) + 1))
    # Time off and travel: all-day blocks in the next weeks.
    for person in ctx.people:
        roll = rng.random()
        if roll < 0.08:
            first_day = cal.at(person["id"], clock + timedelta(days=rng.randint(1, 28)), 0)
            cal.add(person["id"], "Out of office", first_day, 24 * 60 * rng.randint(1, 5), [], kind="out_of_office",
                    all_day=True, description="Vacation; reply expected when I am back.")
        elif roll < 0.13:
            city = rng.choice(sorted(cal.offices))  # acme: OFFICE_ZONES, as before
            first_day = cal.at(person["id"], clock + timedelta(days=rng.randint(1, 21)), 0)
            cal.add(person["id"], f"Travel: {city}", first_day, 24 * 60 * rng.randint(1, 3), [], kind="travel",
                    all_day=True, location=city)
    ctx.insert("calendar_event", cal.events)
    ctx.insert("calendar_attendee", cal.attendees)
    for prefix, count in (("cal", len(ctx.people)), ("room", len(rooms)), ("ev", len(cal.events)),
                          ("att", len(cal.attendees))):
        ctx.set_counter(prefix, count)
