"""What the calendar families share: the world's week, people's zones, free windows and slot picking.

Graders of scheduling tasks hold the constraints, not the reference's slot: ``free_windows``
computes every interval in which all the people are free inside their working hours (from the
calendar app's own primitives, on the world after setup), minus what colleagues ruled out in
their mail; any event inside one of those windows is right.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from officesim.apps.calendar.availability import free_slots, intersect, merge, subtract
from officesim.clock import format_ts
from officesim.grading.calendar_checks import Window
from officesim.grading.record_checks import AllowedChangesCheck, ChangedCheck
from officesim.taskgen.base import Solver, Stage, WorldLacks

Interval = tuple[datetime, datetime]
SLOT_STEP = timedelta(minutes=15)
CALENDAR_TABLES = ("calendar_event", "calendar_attendee")


def start_clock(stage: Stage) -> None:
    """Setup's first step: the clock at the world's own start (a calendar task is about its week)."""
    stage.clock(format_ts(stage.world.now()))


def begin(stage: Stage) -> dict[str, Any]:
    """Every calendar task's start: the operations manager acts, the clock at the world's start."""
    stage.act_as("role:ops_manager")
    start_clock(stage)
    return stage.world.user


def manager_of(stage: Stage, fallback: str = "role:ceo") -> dict[str, Any]:
    """The acting user's manager (``fallback``, a role, for someone who reports to nobody)."""
    manager = stage.world.user["manager_id"]
    return stage.person(manager) if manager else stage.person(fallback)


def calendar_and_mail_only(tables: Sequence[Any] = (*CALENDAR_TABLES, "mail_message", "mail_entry")
                           ) -> AllowedChangesCheck:
    """The collateral gate of the calendar families: nothing outside ``tables`` changes."""
    return AllowedChangesCheck(id="no_collateral_damage", check="allowed_changes", tables=list(tables),
                               description="Nothing changed outside what the task needs (the calendar, mail).")


def read_all_events(s: Solver, span: Interval) -> None:
    """The reference reads every page of the user's calendar in ``span``."""
    cursor = None
    while True:
        page = s.call("calendar_list_events", start=iso(span[0]), end=iso(span[1]),
                      **({"cursor": cursor} if cursor else {}))
        cursor = page["next_cursor"]
        if not cursor:
            return


def zone_of(stage: Stage, person_id: str) -> str:
    """The IANA zone of ``person_id``'s calendar."""
    return str(stage.one("SELECT time_zone FROM calendar_calendar WHERE owner_id = ?", person_id)["time_zone"])


def today(stage: Stage) -> date:
    """The world clock's date in the acting user's own zone."""
    return stage.world.now().astimezone(ZoneInfo(zone_of(stage, stage.world.user_id))).date()


def monday_after(day: date, weeks: int = 1) -> date:
    """The Monday ``weeks`` weeks after the week of ``day`` (1: next week)."""
    return day - timedelta(days=day.weekday()) + timedelta(weeks=weeks)


def at(zone: str, day: date, hour: int, minute: int = 0) -> datetime:
    """Wall-clock ``hour:minute`` on ``day`` in ``zone``, as an aware UTC moment."""
    return datetime.combine(day, time(hour, minute), ZoneInfo(zone)).astimezone(UTC)


def local_days(zone: str, first: date, days: int) -> Interval:
    """[midnight of ``first``, midnight ``days`` later) in ``zone``, in UTC."""
    return at(zone, first, 0), at(zone, first + timedelta(days=days), 0)


def daily_block(zone: str, first: date, days: int, start: time, end: time) -> list[Interval]:
    """The same local hours ``start``-``end`` blocked on each of ``days`` days from ``first``."""
    out = []
    for n in range(days):
        day = first + timedelta(days=n)
        out.append((at(zone, day, start.hour, start.minute),
                    at(zone, day, end.hour, end.minute) if end != time(0) else at(zone, day + timedelta(days=1), 0)))
    return out


def free_windows(stage: Stage, people: Sequence[str], span: Interval, minutes: int,
                 blocked: Iterable[Interval] = (), *, with_user: bool = True) -> list[Interval]:
    """Every interval of ``span`` of at least ``minutes`` in which all ``people`` (ids; the user too
    unless ``with_user`` is false) are free inside their working hours, minus the ``blocked`` intervals."""
    ids = list(dict.fromkeys([*([stage.world.user_id] if with_user else []), *people]))
    slots = free_slots(stage.world, ids, span[0], span[1], minutes=minutes, working_only=True)
    slots = subtract(merge(slots), merge(list(blocked)))
    return [(a, b) for a, b in slots if b - a >= timedelta(minutes=minutes)]


def some_free(stage: Stage, rng: random.Random, pool: Sequence[dict[str, Any]], span: Interval, minutes: int,
              n: int, *, windows: int = 1) -> list[dict[str, Any]]:
    """``n`` people of ``pool`` (in a seeded random order) who share at least ``windows`` free
    windows of ``minutes`` with the user in ``span``; fewer when the pool runs out.  Checked one by
    one, so a big pool costs only the people it looks at."""
    order = list(pool)
    rng.shuffle(order)
    found: list[dict[str, Any]] = []
    for person in order:
        if len(free_windows(stage, [person["id"]], span, minutes)) >= windows:
            found.append(person)
            if len(found) == n:
                break
    return found


def within(windows: list[Interval], span: Interval) -> list[Interval]:
    """The parts of ``windows`` inside ``span``."""
    return intersect(windows, [span])


def quarter_slots(windows: list[Interval], minutes: int, *, first_only: bool = False) -> list[Interval]:
    """Slots of ``minutes`` starting on quarter hours inside the windows, earliest first, every half
    hour (``first_only``: the earliest of each window)."""
    length = timedelta(minutes=minutes)
    out = []
    for first, last in windows:
        start = first + (-(first - first.replace(minute=0, second=0)) % SLOT_STEP)
        while start + length <= last:
            out.append((start, start + length))
            if first_only:
                break
            start += 2 * SLOT_STEP
    return out


def slot_in(windows: list[Interval], minutes: int, which: int = 0) -> Interval:
    """The earliest slot of ``minutes`` in window ``which`` (the last window when there are fewer)."""
    fitting = quarter_slots(windows, minutes, first_only=True)
    if not fitting:
        raise WorldLacks(f"no {minutes}-minute slot in the free windows")
    return fitting[min(which, len(fitting) - 1)]


def window_models(windows: list[Interval]) -> list[Window]:
    """The windows as the ``calendar_event`` check holds them."""
    return [Window(start=format_ts(a), end=format_ts(b)) for a, b in windows]


def iso(moment: datetime) -> str:
    """ISO UTC text, the way the calendar tools accept a time with an offset."""
    return format_ts(moment)


def hour_text(moment: datetime, zone: str) -> str:
    """'10:30' in ``zone``."""
    return moment.astimezone(ZoneInfo(zone)).strftime("%H:%M")


def local_when(moment: datetime, zone: str) -> str:
    """'Tuesday, October 13 at 10:30 your time' for a reader in ``zone``."""
    return f"{weekday_text(moment.astimezone(ZoneInfo(zone)).date())} at {hour_text(moment, zone)} your time"


def when_for(stage: Stage, moment: datetime, people: Sequence[dict[str, Any]]) -> str:
    """The moment as each reader reads it: 'Tuesday, October 13 at 10:00 Chicago time; Tuesday,
    October 13 at 16:00 London time' (one entry per time zone among ``people``, sorted)."""
    zones = sorted({zone_of(stage, p["id"]) for p in people})
    return "; ".join(f"{weekday_text(moment.astimezone(ZoneInfo(z)).date())} at {hour_text(moment, z)} "
                     f"{z.rsplit('/', 1)[-1].replace('_', ' ')} time" for z in zones)


def weekday_text(day: date) -> str:
    """'Tuesday, October 13'."""
    return f"{day.strftime('%A')}, {day.strftime('%B')} {day.day}"


def by_office(stage: Stage, exclude: Iterable[str] = ()) -> dict[str, list[dict[str, Any]]]:
    """Ordinary colleagues (no role key) per office (Remote left out), in id order."""
    skip = set(exclude)
    out: dict[str, list[dict[str, Any]]] = {}
    for person in stage.rows("SELECT * FROM directory_person WHERE role IS NULL AND location != 'Remote' "
                             "ORDER BY CAST(substr(id, 3) AS INTEGER)"):
        if person["id"] not in skip:
            out.setdefault(person["location"], []).append(person)
    return out


def own_event(stage: Stage, who: str, title: str, start: datetime, end: datetime, *,
              attendees: Sequence[str] = (), room: str | None = None, description: str = "",
              recurrence: str | None = None, all_day: bool = False) -> str:
    """An event ``who`` (a person id or ref) organises, created through the calendar tool; its id."""
    arguments: dict[str, Any] = {"title": title, "start": iso(start), "end": iso(end)}
    if attendees:
        arguments["attendees"] = list(attendees)
    if room:
        arguments["room"] = room
    if description:
        arguments["description"] = description
    if recurrence:
        arguments["recurrence"] = recurrence
    if all_day:
        arguments["all_day"] = True
    return str(stage.act(who, "calendar_create_event", **arguments)["id"])


def calendar_guards(moved: Sequence[str] = (), answered: Sequence[str] = ()) -> list[ChangedCheck]:
    """Penalties every calendar task shares: an event that existed changed (other than ``moved``),
    an invitation answered (other than ``answered``), attendees taken off an existing event."""
    events: dict[str, Any] = {"id": {"not_in": list(moved)}} if moved else {}
    answers: dict[str, Any] = {"person_id": "user"}
    if answered:
        answers["event_id"] = {"not_in": list(answered)}
    return [
        ChangedCheck(id="changed_other_events", check="changed", points=-3, table="calendar_event", op="update",
                     match=events, description="An event that existed before was changed or cancelled although "
                     "the task did not ask for it."),
        ChangedCheck(id="answered_invitations", check="changed", points=-3, table="calendar_attendee", op="update",
                     match=answers, description="An invitation on the calendar was answered although nobody asked."),
        ChangedCheck(id="dropped_attendees", check="changed", points=-3, table="calendar_attendee", op="delete",
                     description="Someone was taken off an existing event's invitation."),
    ]
