"""The ``calendar_event`` check kind: an event is on the calendar as the task's constraints require.

Scheduling has many right answers: any slot in which everyone is free, inside everyone's working
hours and outside what a colleague ruled out, is as good as the reference's.  So the check grades
the constraints (the windows the slot must fall in, who is invited, who is not, the room, the
length), never the literal slot the reference chose.  The generator computes the windows from the
world at setup (busy time, working hours per office and time zone, stated preferences); the agent
can change only its own calendar, and the family's ``allowed_changes`` gate bounds that.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from datetime import date, datetime, timedelta, timezone, tzinfo
from functools import partial
from typing import TYPE_CHECKING, Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field, field_validator, model_validator

from officesim.apps.calendar.timing import OFFICE_ZONES
from officesim.apps.mail.text import FORWARD_MARK
from officesim.apps.people import given_name, is_title
from officesim.clock import parse_ts
from officesim.grading.facts import DAY_FIRST_LOCALES
from officesim.grading.normalize import WEEKDAY_NAMES, matches, weekdays_named
from officesim.grading.spec_base import (
    CheckBase,
    Outcome,
    References,
    TableRef,
    _check_refs,
    _check_values,
    _Strict,
    listed,
    show,
)

if TYPE_CHECKING:

    from officesim.grading.context import GradeContext, SentMail


class Window(_Strict):
    """An interval (ISO UTC) a whole event must fit in."""

    start: str = Field(description="Window start, ISO UTC ('2026-10-12T14:00:00Z').")
    end: str = Field(description="Window end, ISO UTC; the event must end by then.")

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        try:
            first, last = parse_ts(self.start), parse_ts(self.end)
        except ValueError:
            raise ValueError(f"window {self.start!r}..{self.end!r}: use ISO UTC times like "
                             "'2026-10-12T14:00:00Z'") from None
        if last <= first:
            raise ValueError(f"window end {self.end} is not after its start {self.start}")
        return self


class CalendarEventCheck(CheckBase):
    """Holds when the event (a named one, or exactly ``count`` the user created) meets every constraint."""

    check: Literal["calendar_event"] = Field(description="The kind of check.")
    event: str | None = Field(None, description="An event id that existed at the start (a meeting to move or "
                              "change); default: the events the acting user created during the episode.")
    match: dict[str, Any] = Field(default_factory=dict, description="Created events only: field: value pairs "
                                  "that select which of them this check is about (e.g. {all_day: true}).")
    count: int = Field(1, ge=1, description="Created events only: exactly this many must match.")
    attendees: list[str] = Field(default_factory=list, description="Person refs or emails that must be invited.")
    only_attendees: bool = Field(False, description="Nobody but the organizer and `attendees` may be invited.")
    exclude: list[str] = Field(default_factory=list, description="Person refs or emails that must not be "
                               "invited (a namesake, someone on leave, a person who asked to be left out).")
    minutes: int | None = Field(None, ge=1, description="The event must last exactly this many minutes.")
    windows: list[Window] | None = Field(None, description="The event must lie wholly inside one of these "
                                         "intervals (the slots that meet every constraint).")
    rooms: list[str] | None = Field(None, description="The room booked must be one of these ids ([]: no room).")
    apart_from: list[str] = Field(default_factory=list, description="Event ids (existing at the start) the event "
                                  "must not overlap as they end up: meetings the episode moves too, so that the "
                                  "user is not double-booked by their own moves.")
    expect: dict[str, Any] = Field(default_factory=dict, description="Other calendar_event field values the event "
                                   "must have (tolerant comparison; {gt: x}-style operators).")
    told: list[str] = Field(default_factory=list, description="Person refs who must get mail during the episode "
                            "stating the event's day and time (in any attendee's zone), and no other day or time.")
    runner: str | None = Field(None, description="With told: a person ref who runs the event from now on (a cover, "
                               "a deputy); the mail must name them as running it ('Erika will run it', 'chaired by "
                               "Erika') and name nobody else as running it.")
    going_ahead: bool = Field(False, description="With told: the event goes ahead; a mail saying it is cancelled, "
                              "postponed or called off does not tell it.")
    away_days: list[str] = Field(default_factory=list, description="With told: ISO days the user is away, and the "
                                 "day they are back; a mail may name them where it says so ('I'm on leave October "
                                 "14-16', 'back Monday, October 19'), as no meeting's day.")

    _refs = field_validator("attendees", "exclude", "told")(_check_refs)

    @field_validator("runner")
    @classmethod
    def _runner_ref(cls, value: str | None) -> str | None:
        _check_refs([value] if value is not None else [])
        return value

    @field_validator("away_days")
    @classmethod
    def _iso_days(cls, values: list[str]) -> list[str]:
        for value in values:
            try:
                date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"away day {value!r} is not an ISO date ('2026-10-14')") from None
        return values
    _values = field_validator("match", "expect")(_check_values)

    @model_validator(mode="after")
    def _coherent(self) -> CalendarEventCheck:
        if self.event is not None and (self.match or self.count != 1):
            raise ValueError("match and count select created events; with event (an existing id) give neither")
        overlap = {a.lower() for a in self.attendees} & {e.lower() for e in self.exclude}
        if overlap:
            raise ValueError(f"{', '.join(sorted(overlap))} is both required and excluded")
        if not self.told and (self.runner is not None or self.going_ahead or self.away_days):
            raise ValueError("runner, going_ahead and away_days say what the told mails state: give told too")
        return self

    def references(self) -> References:
        return References(tables=(TableRef("calendar_event", (*self.match, *self.expect)),
                                  TableRef("calendar_attendee", ("event_id", "email"))))

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _calendar_event(self, ctx)


def _selected(check: CalendarEventCheck, ctx: GradeContext) -> tuple[list[dict[str, Any]], str | None]:
    """The events the check is about, or why none could be chosen."""
    db = ctx.final.db
    if check.event is not None:
        row = db.execute("SELECT * FROM calendar_event WHERE id = ?", (check.event,)).fetchone()
        if row is None:
            return [], f"event {check.event} no longer exists"
        return [dict(row)], None
    me = ctx.person_id("user")
    match = {name: ctx.resolve(name, value) for name, value in check.match.items()}
    created = [row for row in ctx.diff.table("calendar_event").inserted.values()
               if row["organizer_id"] == me and row["status"] == "confirmed"
               and all(matches(row.get(k), v) for k, v in match.items())]
    created.sort(key=lambda r: r["id"])
    what = f"events created by the user{f' matching {show(check.match)}' if check.match else ''}"
    if len(created) != check.count:
        ids = ", ".join(r["id"] for r in created) or "none"
        return created, f"{len(created)} {what} ({ids}), expected exactly {check.count}"
    return created, None


def _invited(ctx: GradeContext, event_id: str) -> frozenset[str]:
    """The emails an event invites in the final world (read once per grading: every told person asks)."""
    return ctx.remember(("invited", event_id), lambda: frozenset(
        str(r[0]).lower() for r in ctx.final.db.execute("SELECT email FROM calendar_attendee WHERE event_id = ?",
                                                        (event_id,))))


def _inside(first: datetime, last: datetime, windows: list[Window]) -> bool:
    return any(parse_ts(w.start) <= first and last <= parse_ts(w.end) for w in windows)


def _problems(check: CalendarEventCheck, ctx: GradeContext, row: dict[str, Any]) -> list[str]:
    """What is wrong with one event (empty: it meets every constraint)."""
    out: list[str] = []
    event = row["id"]
    if row["status"] != "confirmed" and "status" not in check.expect:
        out.append(f"{event} is {row['status']}")
    first, last = parse_ts(row["start_at"]), parse_ts(row["end_at"])
    if check.minutes is not None and (last - first).total_seconds() != check.minutes * 60:
        out.append(f"{event} lasts {int((last - first).total_seconds() // 60)} minutes, not {check.minutes}")
    if check.windows is not None and not _inside(first, last, check.windows):
        out.append(f"{event} at {row['start_at']}..{row['end_at']} is outside every slot that meets the constraints")
    invited = _invited(ctx, event)
    wanted = ctx.emails(check.attendees)
    missing = sorted(wanted - invited)
    if missing:
        out.append(f"{event} does not invite {', '.join(missing)}")
    unwanted = sorted(invited & ctx.emails(check.exclude))
    if unwanted:
        out.append(f"{event} invites {', '.join(unwanted)}, who must not be invited")
    if check.only_attendees:
        organizer = ctx.final.db.execute("SELECT email FROM directory_person WHERE id = ?",
                                          (row["organizer_id"],)).fetchone()
        extra = sorted(invited - wanted - ({str(organizer[0]).lower()} if organizer else set()))
        if extra:
            out.append(f"{event} also invites {', '.join(extra)}")
    allowed_rooms: list[str | None] = list(check.rooms) if check.rooms else [None]
    if check.rooms is not None and (row["room_id"] or None) not in allowed_rooms:
        out.append(f"{event} books room {row['room_id'] or 'none'}, expected "
                   f"{' or '.join(check.rooms) if check.rooms else 'no room'}")
    for name, expected in check.expect.items():
        value = ctx.resolve(name, expected)
        if not matches(row.get(name), value):
            out.append(f"{event}.{name} is {show(row.get(name))}, expected {show(expected)}")
    for other in check.apart_from:
        taken = ctx.final.db.execute("SELECT start_at, end_at, status FROM calendar_event WHERE id = ?",
                                     (other,)).fetchone()
        if other != event and taken is not None and taken["status"] == "confirmed" and (
                parse_ts(taken["start_at"]) < last and first < parse_ts(taken["end_at"])):
            out.append(f"{event} overlaps {other} ({taken['start_at']}..{taken['end_at']}): the user is double-booked")
    if check.told:
        for email in sorted(ctx.emails(check.told)):
            out += _told(ctx, email, row, *_episode_moments(ctx, email), check=check)
    return out


def _zones(ctx: GradeContext, event_id: str) -> list[str]:
    """The time zones of an event's attendees (employees), sorted; UTC when none is known."""
    return list(ctx.remember(("zones", event_id), lambda: tuple(str(r[0]) for r in ctx.final.db.execute(
        "SELECT DISTINCT c.time_zone FROM calendar_attendee a JOIN calendar_calendar c ON c.owner_id = a.person_id "
        "WHERE a.event_id = ? ORDER BY 1", (event_id,))) or ("UTC",)))


Moments = tuple[set[tuple[int, int]], set[date]]


def _moments(spans: list[tuple[datetime, datetime]], zones: list[str]) -> Moments:
    """The clock times (starts and ends) and days (of the starts) of ``spans`` in each zone."""
    times: set[tuple[int, int]] = set()
    days: set[date] = set()
    for first, last in spans:
        for name in zones:
            tz = ZoneInfo(name)
            times |= {(m.hour, m.minute) for m in (first.astimezone(tz), last.astimezone(tz))}
            days.add(first.astimezone(tz).date())
    return times, days


def _episode_moments(ctx: GradeContext, email: str) -> Moments:
    """Every day and clock time a correct note to ``email`` may mention: the old and new times of
    each event of theirs the episode created, moved or cut an occurrence of, in its attendees' zones
    (another person's meeting is none of their business).  Read once per grading and person."""
    times, days = ctx.remember(("episode_moments", email), lambda: _read_episode_moments(ctx, email))
    return set(times), set(days)


def _event_spans(row: dict[str, Any], change: dict[str, Any]) -> list[tuple[datetime, datetime]]:
    """One changed event's (start, end) as it is now and as it was (moved from, or cut occurrences)."""
    length = parse_ts(row["end_at"]) - parse_ts(row["start_at"])
    spans = [(parse_ts(row["start_at"]), parse_ts(row["end_at"]))]
    if "start_at" in change and change["start_at"][0]:
        old = parse_ts(change["start_at"][0])
        spans.append((old, old + length))
    if "exdates" in change:
        spans += [(parse_ts(ts), parse_ts(ts) + length) for ts in json.loads(change["exdates"][1] or "[]")]
    return spans


def _event_moments(ctx: GradeContext, row: dict[str, Any], change: dict[str, Any]) -> Moments:
    """The clock times and days of one changed event, as it is now and as it was, in its attendees' zones."""
    return _moments(_event_spans(row, change), _zones(ctx, row["id"]))


def _episode_spans(ctx: GradeContext, email: str) -> list[tuple[datetime, datetime]]:
    """The spans of every event of ``email``'s that the episode created or changed (old and new)."""
    return [span for row, change in _changes(ctx) if email in _invited(ctx, row["id"])
            for span in _event_spans(row, change)]


def _changes(ctx: GradeContext) -> list[tuple[Any, dict[str, Any]]]:
    table = ctx.diff.table("calendar_event")
    changes: list[tuple[Any, dict[str, Any]]] = [(row, {}) for row in table.inserted.values()]
    return changes + [(c["_row"], c) for c in table.updated.values()]


def _read_episode_moments(ctx: GradeContext, email: str) -> Moments:
    times: set[tuple[int, int]] = set()
    days: set[date] = set()
    for row, change in _changes(ctx):
        if email not in _invited(ctx, row["id"]):
            continue
        more_times, more_days = ctx.remember(("event_moments", row["id"]), partial(_event_moments, ctx, row, change))
        times |= more_times
        days |= more_days
    return times, days


def _told(ctx: GradeContext, email: str, row: dict[str, Any], times: set[tuple[int, int]],
          days: set[date], *, check: CalendarEventCheck | None = None) -> list[str]:
    """Why no mail to ``email`` states the event's day and start in their own zone (empty: one does,
    and every other day or time it states belongs to an event of theirs this episode created or moved;
    a day named as the user's time away or return, one of ``check.away_days``, is none of those).
    With ``check.runner`` the mail must name that person as running the event and nobody else; with
    ``check.going_ahead`` it must not call the event cancelled or postponed."""
    event = row["id"]
    mails = [m for m in ctx.sent_mail if email in m.recipients()]
    if not mails:
        return [f"{email} got no mail about {event}"]
    first = parse_ts(row["start_at"])
    span = [(first, parse_ts(row["end_at"]))]
    own_zone = _own_zone(ctx, email)
    # the reader must find the time in their own zone (an outsider: any attendee's); other zones'
    # times for the same moment may be given too
    readers = [own_zone] if own_zone is not None else _zones(ctx, event)
    starts = {(m.hour, m.minute) for m in (first.astimezone(ZoneInfo(z)) for z in readers)}
    _, mine_days = _moments(span, readers)
    any_times, any_days = _moments(span, _zones(ctx, event))
    away = [date.fromisoformat(d) for d in check.away_days] if check is not None else []
    reasons = []
    for mail in mails:
        stated_times, stated_days, zoned, context_days = _stated(ctx, mail.id, mail.body, first.year)
        if starts & _offered(ctx, mail.id, mail.body):
            reasons.append(f"the mail to {email} ({mail.id}) offers the start time beside another: one time, "
                           "not a choice")
            continue
        # a day named only as the user's time away or their return ("I'm on leave October 14-16") is
        # no meeting's day; the meeting's own day must be stated outside such words (when any is)
        excused = {d for d in context_days if any(_same_day(d, a) for a in away)}
        plain_days = stated_days - context_days if away else stated_days
        # a time written with its zone ("08:00 UTC") is read in that zone
        zoned_start = any(_clock_in(first, zone) == at for at, zone in zoned)
        states_it = (bool(stated_times & starts) or zoned_start) and any(
            _same_day(d, real) for d in (plain_days or stated_days) for real in mine_days)
        mentioned = [*_episode_spans(ctx, email), *span] if zoned else []
        stray: set[Any] = stated_times - times - any_times or {
            (at, zone) for at, zone in zoned
            if not any(at in (_clock_in(a, zone), _clock_in(b, zone)) for a, b in mentioned)} or {
            d for d in stated_days - excused if not any(_same_day(d, real) for real in days | any_days)}
        if states_it and not stray:
            said = _what_it_says(ctx, check, row, mail) if check is not None else None
            if said is None:
                return []
            reasons.append(f"the mail to {email} ({mail.id}) {said}")
            continue
        reasons.append(f"the mail to {email} ({mail.id}) " + (
            "states a day or time none of their changed events has" if stray else "does not state the day and time"))
    return reasons[-1:]


def _own_zone(ctx: GradeContext, email: str) -> str | None:
    """The time zone of the calendar of the employee with ``email`` (``None``: an outsider), read once per
    grading: every check that wants ``email`` told, and every event it is told about, asks (the email is
    compared in lower case, a scan of the directory)."""
    def read() -> str | None:
        row = ctx.final.db.execute("SELECT c.time_zone FROM calendar_calendar c JOIN directory_person p "
                                   "ON p.id = c.owner_id WHERE lower(p.email) = ?", (email,)).fetchone()
        return str(row[0]) if row else None
    return ctx.remember(("own zone", email), read)


Stated = tuple[set[tuple[int, int]], set[date | str], set[tuple[tuple[int, int], str]], set[date | str]]


def _stated(ctx: GradeContext, mail_id: str, body: str, year: int) -> Stated:
    """The clock times, days and zoned times ("08:00 UTC": ((8, 0), 'UTC')) a sent mail's own text
    states, and the days it names only as the writer's time away or return ("I'm out October 14-16",
    "back Monday"), read once per grading and mail."""
    def read() -> tuple[frozenset[tuple[int, int]], frozenset[date | str], frozenset[tuple[tuple[int, int], str]],
                        frozenset[date | str]]:
        text = own_text(body)
        locale = ctx.final.meta("locale") or "en_US"
        day_first = locale.startswith(DAY_FIRST_LOCALES)
        zoned = zoned_times(text)
        text = _ZONED.sub(lambda m: " " * len(m[0]), text)
        days = mentioned_days(text, year, day_first=day_first)
        plain = mentioned_days(_AWAY.sub(lambda m: " " * len(m[0]), text), year, day_first=day_first)
        return (frozenset(clock_times(text, french=locale.startswith("fr"))), frozenset(days), frozenset(zoned),
                frozenset(days - plain))
    times, days, zoned, context = ctx.remember(("stated", mail_id, year), read)
    return set(times), set(days), set(zoned), set(context)


def _offered(ctx: GradeContext, mail_id: str, body: str) -> frozenset[tuple[int, int]]:
    """The clock times a sent mail's own text offers as alternatives (read once per grading and mail)."""
    locale = ctx.final.meta("locale") or "en_US"
    # a time with its zone beside the same moment in another ("9am CT / 14:00 UTC") offers no choice
    return ctx.remember(("offered", mail_id), lambda: frozenset(offered_times(
        _ZONED.sub(lambda m: " " * len(m[0]), own_text(body)), french=locale.startswith("fr"))))


def _clock_in(moment: datetime, zone: str) -> tuple[int, int]:
    local = moment.astimezone(_tzinfo(zone))
    return local.hour, local.minute


def _tzinfo(zone: str) -> tzinfo:
    """An IANA zone, or a fixed offset written 'UTC+04:00' (as ``zoned_times`` reads 'UTC+4', 'GMT+5:30')."""
    offset = re.fullmatch(r"UTC([+-])(\d{2}):(\d{2})", zone)
    if offset is None:
        return ZoneInfo(zone)
    minutes = int(offset[2]) * 60 + int(offset[3])
    return timezone(timedelta(minutes=minutes if offset[1] == "+" else -minutes))


# Zone names written after a time (abbreviations in capitals: "et" is French for "and"), as the zone a
# reader converts with (IANA zones keep daylight saving right); a range's zone holds for both ends
# ("16:30-17:15 UTC"); an offset ("UTC+4", "GMT+05:30") is read as that fixed offset
ZONE_WORDS = {"UTC": "UTC", "GMT": "UTC", "Z": "UTC", "BST": "Europe/London", "CET": "Europe/Berlin",
              "CEST": "Europe/Berlin", "MEZ": "Europe/Berlin", "MESZ": "Europe/Berlin", "IST": "Asia/Kolkata",
              "SGT": "Asia/Singapore", "GST": "Asia/Dubai", "ET": "America/New_York",
              "EST": "America/New_York", "EDT": "America/New_York", "CT": "America/Chicago",
              "CST": "America/Chicago", "CDT": "America/Chicago", "MT": "America/Denver", "MST": "America/Denver",
              "MDT": "America/Denver", "PT": "America/Los_Angeles", "PST": "America/Los_Angeles",
              "PDT": "America/Los_Angeles", "AEST": "Australia/Sydney", "AEDT": "Australia/Sydney"}
# zones written as words ("11:30 Central", "Gulf Standard Time", "Dubai time"): a region's name, alone
# or with "(Standard|Daylight) Time"; a city of the worlds' offices with "time"
_ZONE_NAMES = (
    (r"Central(?:\s+(?:Standard|Daylight))?(?:\s+[Tt]ime)?", "America/Chicago"),
    (r"Eastern(?:\s+(?:Standard|Daylight))?(?:\s+[Tt]ime)?", "America/New_York"),
    (r"Pacific(?:\s+(?:Standard|Daylight))?(?:\s+[Tt]ime)?", "America/Los_Angeles"),
    (r"Mountain(?:\s+(?:Standard|Daylight))?(?:\s+[Tt]ime)?", "America/Denver"),
    (r"Gulf(?:\s+Standard)?\s+[Tt]ime", "Asia/Dubai"),
    (r"India(?:n)?\s+Standard\s+[Tt]ime", "Asia/Kolkata"),
    (r"Singapore\s+(?:Standard\s+)?[Tt]ime", "Asia/Singapore"),
    (r"Central\s+European\s+(?:Summer\s+)?[Tt]ime", "Europe/Berlin"),
    (r"British\s+Summer\s+[Tt]ime|UK\s+[Tt]ime|London\s+[Tt]ime|Manchester\s+[Tt]ime", "Europe/London"),
    (r"Greenwich\s+Mean\s+[Tt]ime|Coordinated\s+Universal\s+[Tt]ime", "UTC"),
    (r"Chicago\s+[Tt]ime", "America/Chicago"),
    (r"(?:New\s+York|NYC?|Boston)\s+[Tt]ime", "America/New_York"),
    (r"Toronto\s+[Tt]ime", "America/Toronto"),
    (r"(?:Los\s+Angeles|LA|San\s+Francisco)\s+[Tt]ime", "America/Los_Angeles"),
    (r"(?:Berlin|Stuttgart|Chemnitz)\s+[Tt]ime", "Europe/Berlin"),
    (r"Paris\s+[Tt]ime", "Europe/Paris"),
    (r"Vienna\s+[Tt]ime", "Europe/Vienna"),
    (r"Brussels\s+[Tt]ime", "Europe/Brussels"),
    (r"Dubai\s+[Tt]ime|UAE\s+[Tt]ime", "Asia/Dubai"),
    (r"(?:Kolkata|Mumbai|Delhi|Bengaluru|Bangalore|Pune|India)\s+[Tt]ime", "Asia/Kolkata"),
    (r"Sydney\s+[Tt]ime", "Australia/Sydney"),
    (r"(?:Prague|Brno|Czech)\s+[Tt]ime", "Europe/Prague"),
    (r"(?:Minneapolis)\s+[Tt]ime", "America/Chicago"),
    (r"(?:Columbus|Greenville)\s+[Tt]ime", "America/New_York"),
    (r"(?:Denver)\s+[Tt]ime", "America/Denver"),
    (r"(?:Seattle)\s+[Tt]ime", "America/Los_Angeles"),
    (r"(?:Montr[ée]al)\s+[Tt]ime", "America/Toronto"),
    (r"(?:Dakar)\s+[Tt]ime", "Africa/Dakar"),
    (r"(?:Shenzhen|Shanghai|Beijing|China)\s+[Tt]ime", "Asia/Shanghai"),
    # every office the directory places people in ("09:45 (Austin time)": the sender's office names a zone)
    *((re.escape(city).replace(r"\ ", r"\s+") + r"\s+[Tt]ime", zone) for city, zone in OFFICE_ZONES.items()),
)
_OFFSET = r"(?:UTC|GMT)[+\-−](?:1[0-4]|0?\d)(?::?[0-5]\d)?"  # "UTC - 17:15" is a zone and a range
_ZONE = "|".join([_OFFSET, *(f"(?:{name})" for name, _ in sorted(_ZONE_NAMES, key=lambda n: len(n[0]), reverse=True)),
                  *sorted(ZONE_WORDS, key=len, reverse=True)])


def _zone_named(written: str) -> str:
    """The zone a zone word, name or offset ('CT', 'Central Time', 'UTC+4') stands for."""
    offset = re.fullmatch(r"(?:UTC|GMT)([+\-−])(\d{1,2})(?::?([0-5]\d))?", written)
    if offset is not None:
        return f"UTC{'+' if offset[1] == '+' else '-'}{int(offset[2]):02d}:{offset[3] or '00'}"
    if written in ZONE_WORDS:
        return ZONE_WORDS[written]
    return next(zone for name, zone in _ZONE_NAMES if re.fullmatch(name, written))


_HALF = r"(?i:a\.?m\.?|p\.?m\.?)"
# [start -|to] time zone: a range's start needs its minutes or am/pm ("Oct 14 - 16:30 UTC" is a day and a time)
_ZONED = re.compile(
    r"(?<![\w:.$€£₹])(?:(?P<h1>[01]?\d|2[0-3])(?=[:.h][0-5]\d|\s*" + _HALF + r")(?:[:.h](?P<m1>[0-5]\d))?\s*"
    r"(?P<p1>" + _HALF + r")?\s*(?:-|–|—|(?i:to|until|till))\s*)?"
    r"(?P<h2>[01]?\d|2[0-3])(?:[:.h](?P<m2>[0-5]\d))?\s*(?P<p2>" + _HALF + r")?\s*\(?(?P<zone>" + _ZONE
    + r")\)?(?![\w+]|:\d)")


def _clock(match: re.Match[str]) -> tuple[int, int] | None:
    """(hour, minute) of a clock-time match (groups: hour, minute, am/pm); ``None`` for a bare number."""
    return _at(match[1], match[2], match[3])


def _at(hour_text: str, minute_text: str | None, half_text: str | None) -> tuple[int, int] | None:
    hour, minute, half = int(hour_text), int(minute_text or 0), (half_text or "").lower().replace(".", "")
    if minute_text is None and not half:
        return None  # a bare number is no time
    if half == "pm" and hour < 12:
        hour += 12
    elif half == "am" and hour == 12:
        hour = 0
    return hour, minute


# between the two ends of a time range: "5:30-6:00 pm", "2:00 PM (until 2:45)", "2 to 2:45pm"
_RANGE_BETWEEN = re.compile(r"\s*(?:(?:your|my|their|local)\s+time\s*,?\s*)?(?:[-–—]|to|till|until|\(\s*until|"
                            r"\(\s*till)\s*", re.IGNORECASE)


def _in_range(text: str, found: list[tuple[re.Match[str], tuple[int, int]]], i: int) -> tuple[int, int]:
    """The time of ``found[i]``, with the half of day of the range's other end where only that end gives
    one: "5:30-6:00 pm" is 17:30 to 18:00, "2:00 PM (until 2:45)" 14:00 to 14:45 (never a range that runs
    backwards: "11:30-12:15 pm" starts at 11:30)."""
    match, at = found[i]
    if match[3] or at[0] >= 12:
        return at
    for j in (i + 1, i - 1):
        if not 0 <= j < len(found):
            continue
        other, other_at = found[j]
        first, second = (match, other) if j > i else (other, match)
        if not other[3] or not other[3].lower().startswith("p") or not _RANGE_BETWEEN.fullmatch(
                text, first.end(), second.start()):
            continue
        later = (at[0] + 12, at[1])
        if (j > i and later <= other_at) or (j < i and later >= other_at):
            return later
    return at


def zoned_times(text: str) -> set[tuple[tuple[int, int], str]]:
    """Clock times written with their zone ('08:00 UTC', '4pm (GMT)', '10:30 IST', '11:30 Central',
    '08:45 (UTC+4)'), as ((hour, minute), zone); both ends of a range ('16:30-17:15 UTC')."""
    out = set()
    for m in _ZONED.finditer(text):
        zone = _zone_named(m["zone"])
        end = _at(m["h2"], m["m2"], m["p2"])
        if end is None:
            continue
        out.add((end, zone))
        if m["h1"] is not None:
            start = _at(m["h1"], m["m1"], m["p1"])
            if m["p1"] is None and m["p2"] is not None:  # "1:00-1:45 PM": the start shares the end's half
                shared = _at(m["h1"], m["m1"], m["p2"])
                start = shared if shared is not None and shared <= end else start
            if start is not None:
                out.add((start, zone))
    return out


_CLOCK = re.compile(r"(?<![\w:.$€£₹])([01]?\d|2[0-3])(?:[:.h]([0-5]\d))?\s*(a\.?m\.?|p\.?m\.?)?(?![\w:])", re.I)
# "16 Uhr", "16.30 Uhr" (German); "16h" is French, and only read in a French world ("a 2h workshop")
_UHR = re.compile(r"(?<![\w:.$€£₹])([01]?\d|2[0-3])(?:[:.]([0-5]\d))?\s?Uhr\b")
_FRENCH_HOUR = re.compile(r"(?<![\w:.$€£₹])([01]?\d|2[0-3])h(?![\w])")
# numeric days: "13/10", "13/10/26", "13.10.2026", "13.10." (a dot form needs its year or its
# closing dot: "16.30" is a time, "4.5" a number); never read as clock times
_NUMERIC_DAY = re.compile(r"(?<![\w/.:,$€£₹-])(\d{1,2})([/.])(\d{1,2})(?:\2(\d{4}|\d{2})(?!\d)|(\.))?(?![\w/:]|[.,]\d)")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
# a month is its name or its abbreviation, never a word that starts like one ("mardi 13", "maybe 10")
_MONTH_WORD = "|".join(sorted({*_MONTHS, *(m[:3] for m in _MONTHS), "sept"}, key=len, reverse=True))
_MONTH_DAY = re.compile(r"\b(" + _MONTH_WORD + r")\b\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b|"
                        r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + _MONTH_WORD + r")\b|"
                        r"\b(\d{4})-(\d{2})-(\d{2})\b", re.I)


_QUOTE_HEADER = re.compile(r"^On [^\n]* wrote:$", re.M)


def own_text(body: str) -> str:
    """What the sender wrote: the body above a quoted or forwarded original, without '> ' lines."""
    cut = min([m.start() for m in _QUOTE_HEADER.finditer(body)] + [len(body)])
    forwarded = body.find(FORWARD_MARK)
    if forwarded != -1:
        cut = min(cut, forwarded)
    return "\n".join(line for line in body[:cut].splitlines() if not line.lstrip().startswith(">")).strip()


def clock_times(text: str, *, french: bool = False) -> set[tuple[int, int]]:
    """The clock times a text states ('9:30', '09:30', '2pm', '2:30 p.m.', '14h30', '16 Uhr'; '16h' in a
    French world), as (hour, minute); a numeric day ('13.10.2026') is no time."""
    return {at for *_, at in _clock_spots(text, french=french)}


def _clock_spots(text: str, *, french: bool) -> list[tuple[int, int, tuple[int, int]]]:
    """Where ``text`` writes clock times, in order: (start, end, (hour, minute)), on ``text`` as written."""
    text = _NUMERIC_DAY.sub(lambda m: " " * len(m[0]) if _numeric_day(m, False, 2000) else m[0], text)
    found = [(m, at) for m in _CLOCK.finditer(text) if (at := _clock(m)) is not None]
    spots = [(m.start(), m.end(), _in_range(text, found, i)) for i, (m, _) in enumerate(found)]
    for pattern in (_UHR, _FRENCH_HOUR) if french else (_UHR,):
        spots += [(m.start(), m.end(), (int(m[1]), int(m[2] or 0) if pattern.groups > 1 else 0))
                  for m in pattern.finditer(text)]
    return sorted(spots)


def offered_times(text: str, *, french: bool = False) -> set[tuple[int, int]]:
    """The clock times a text offers as alternatives to one another ("9:00 or 9:30", "2pm / 3pm",
    "16 oder 16.30 Uhr"): none of them is told as the time, whatever the others are."""
    out: set[tuple[int, int]] = set()
    for (_, end, first), (start, _, second) in itertools.pairwise(_clock_spots(text, french=french)):
        if first != second and start >= end and _OR_BETWEEN.fullmatch(text, end, start):
            out |= {first, second}
    return out


# between two times offered in its place: "or", "oder", "ou", "/" (a maybe after it)
_OR_BETWEEN = re.compile(r"\s*,?\s*(?:or|oder|ou|/)\s*(?:else\s+|maybe\s+|perhaps\s+|possibly\s+|vielleicht\s+|"
                         r"peut-être\s+|at\s+|um\s+|à\s+)*", re.IGNORECASE)


def _numeric_day(match: re.Match[str], day_first: bool, year: int) -> date | None:
    """The day a ``_NUMERIC_DAY`` match writes (in the locale's order unless the first number is over 12)."""
    first, separator, second, written_year, closing = match[1], match[2], match[3], match[4], match[5]
    if separator == "." and written_year is None and closing is None:
        return None
    if match[0] == "24/7":  # "24/7 support" is no day
        return None
    a, b = int(first), int(second)
    day, month = (a, b) if (day_first or a > 12) and b <= 12 else (b, a)
    if written_year is not None:
        year = int(written_year) + (2000 if len(written_year) == 2 else 0)
    try:
        return date(year, month, day)
    except ValueError:
        return None


def mentioned_days(text: str, year: int, *, day_first: bool = False) -> set[date | str]:
    """The days a text names: dates ('October 13', '13 Oct', '2026-10-13', '13/10', '13.10.2026', in the
    locale's order) and weekdays ('Tuesday', 'Tue', 'Dienstag', 'mardi')."""
    out: set[date | str] = set(weekdays_named(text))
    for match in _MONTH_DAY.finditer(text):
        try:
            if match[7]:
                out.add(date(int(match[5]), int(match[6]), int(match[7])))
            else:
                month = next(i for i, m in enumerate(_MONTHS, 1) if m.startswith((match[1] or match[4]).lower()))
                out.add(date(year, month, int(match[2] or match[3])))
        except ValueError:
            continue
    for match in _NUMERIC_DAY.finditer(text):
        found = _numeric_day(match, day_first, year)
        if found is not None:
            out.add(found)
    return out


def _same_day(stated: date | str, real: date) -> bool:
    return stated == real if isinstance(stated, date) else stated == WEEKDAY_NAMES[real.weekday()]


# ------------------------------------------------------------------ what a told mail says of the event
_WEEKDAY_WORD = (r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun|montag|dienstag|"
                 r"mittwoch|donnerstag|freitag|lundi|mardi|mercredi|jeudi|vendredi")
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
_A_DAY = (r"(?:(?:(?:next|this|on)\s+)?(?:" + _WEEKDAY_WORD + r")\.?,?\s*(?:the\s+)?)?(?:(?:" + _MONTH_WORD
          + r")\.?\s+" + _ORDINAL + r"|" + _ORDINAL + r"(?:\s*[-–]\s*" + _ORDINAL + r")?\s+(?:of\s+)?(?:" + _MONTH_WORD
          + r")\b\.?|\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?\.?|\d{4}-\d{2}-\d{2})|(?:(?:next|this)\s+)?(?:"
          + _WEEKDAY_WORD + r")\b")
# the writer's time away or return, and the days it names: "I'm on leave October 14-16", "while I'm out
# (Wednesday, October 14 to Friday, October 16)", "I'm back Monday, October 19", "returning on the 19th"
_AWAY = re.compile(
    r"(?i:\b(?:on\s+leave|leave|(?:I'?m|I’m|I\s+am|I'?ll\s+be|I’ll\s+be|I\s+will\s+be|be|being|while)\s+(?:out|off|away)"
    r"|out\s+of\s+(?:the\s+)?office|OOO|time\s+off|days?\s+off|on\s+(?:holiday|vacation|PTO)|back|return(?:s|ing)?"
    r"|in\s+the\s+office\s+again)\b)[\s(:]*(?i:(?:from|on|until|till|through|thru|between|starting|as\s+of|after|"
    r"again|in\s+the\s+office|the)\s+)*(?i:" + _A_DAY + r")(?i:\s*(?:-|–|—|to|through|thru|until|till|and|&)\s*"
    r"(?:the\s+)?(?:" + _A_DAY + r"|" + _ORDINAL + r"\b))*")
_SENTENCE = re.compile(r"(?<=[!?;])\s+|(?<=\.)\s+(?=[A-Z(])|\s*\n+\s*")
# what a sentence calls the meeting without its title: "it", "the session", and what a meeting is for ("Laura
# will lead the discussion", "the sync", "the agenda")
_GENERIC = re.compile(r"\b(?:it|meetings?|sessions?|call|one|discussions?|conversations?|agenda|syncs?|stand-?ups?|"
                      r"check-?ins?|catch-?ups?|huddles?|1:1s?|one-on-ones?|termin|besprechung|réunion|séance)\b",
                      re.IGNORECASE)
_AUX = (r"(?:will|shall|can|could|would|is|are|has|have|kindly|happily|gladly|also|now|then|still|be|been|being|"
        r"going|to|agreed|offered|'ll|’ll|'s|’s|not|never|won't|won’t|can't|can’t|isn't|isn’t|cannot|doesn't|"
        r"doesn’t)")
_RUNS = (r"(?:run|runs|running|chair|chairs|chairing|lead|leads|leading|host|hosts|hosting|cover|covers|covering|"
         r"facilitate|facilitates|facilitating|handle|handles|handling|moderate|moderates|moderating|own|owns|"
         r"deputi[sz]e|deputi[sz]es|deputi[sz]ing|conduct\w*|anchor\w*|steer\w*|drive|drives|driving|"
         r"take\s+over|takes\s+over|taking\s+over|took\s+over|"
         # "take it", "take the kickoff", "take Pricing page refresh" (not "take the notes")
         r"(?:take|takes|taking)\s+(?:charge|it|this|that|(?:the|our|your)\s+(?!notes\b|minutes\b)\w+|(?-i:[A-Z])\w*)|"
         r"step\w*\s+(?:in|up)|stand\w*\s+in|look\w*\s+after|in\s+charge|(?:the|your|our)\s+(?:host|chair|lead|"
         r"owner|cover|facilitator|runner)|in\s+the\s+chair|(?:it|this|that|things)\s+covered)\b")
# a person named as running the meeting: "Erika will run", "Erika's covering", "Erika (covering)",
# "with Erika as host" (after the name); "chaired by Erika", "handing it over to Erika", "Cover: Erika" (before)
_RUNNER_AFTER = re.compile(r"(?i:\s*,?\s*(?:" + _AUX + r"\s*){0,5}" + _RUNS + r"|\s*\(\s*(?:covering|cover|host|chair|"
                           r"lead|running)\b|\s+as\s+(?:the\s+)?(?:host|chair|lead|owner|cover|facilitator|runner)\b|"
                           r"\s+(?:will|can|shall|would|could)(?:\s+(?:instead|too|then))?\s*(?=[.;,!)]|$)|"
                           # German and French: "Pascale leitet / wird das Meeting am Mittwoch leiten", "Claire animera"
                           r"\s+(?:wird\s+(?:[^\s;!?]+\s+){0,16}?)?(?:leitet|leiten|übernimmt|übernehmen|moderiert|"
                           r"moderieren|vertritt|vertreten|führt|führen|hostet|hosten)\b|"
                           r"\s+(?:va\s+)?(?:anim\w+|présid\w+|dirig\w+|assur\w+|remplac\w+|prendra\s+le\s+relais))")
_RUNNER_BEFORE = re.compile(r"(?i:(?:\b(?:run|led|chaired|hosted|covered|facilitated|handled|moderated|owned|"
                            r"taken\s+over)\s+by|\b(?:hand(?:ed|ing|s)?|pass(?:ed|ing|es)?|delegat\w*|(?:re)?assign\w*|over)\b"
                            r"[^.;:!?\n]{0,80}?\bto|"
                            r"\b(?:cover|covering|host|chair|runner|lead|owner|facilitator|in\s+charge|Vertretung|"
                            r"Leitung|Moderation)\s*[:–—-]|\b(?:geleitet|moderiert|übernommen)\s+von|\b(?:übernimmt|"
                            r"leitet|moderiert)|\b(?:anim\w+|présid\w+|dirig\w+)\s+par|\bconfiée?s?\s+à)\s*)$")
_NEXT_WORD = re.compile(r"\s+(\S+)")
_NEGATED = re.compile(r"(?i:\bnot\b|n't|n’t|\bnever\b|\bcannot\b|\bnicht\b|\bpas\b)")
_CALLED_OFF = re.compile(
    r"(?i:\b(?:cancel(?:l?ed|s|l?ing|lation)?|called\s+off|call(?:ing)?\s+(?:it\s+)?off|postpon\w*|reschedul\w*|"
    r"push(?:ed|ing)?\s+(?:it\s+)?(?:back|out)|delayed|scrapped|on\s+hold|paused|off\s+the\s+calendar|"
    r"(?:won't|won’t|will\s+not|isn't|isn’t|is\s+not|not)\s+(?:be\s+)?"
    r"(?:take\s+place|taking\s+place|happen\w*|go\w*\s+ahead|be\s+held|held)|abgesagt|verschoben|entfällt|"
    r"fällt\s+(?:\w+\s+){0,4}?aus|annulée?s?|reportée?s?)\b)")
# the meeting said to be off ("the meeting is off", "it's off"); a person who is off ("Erika is off that day",
# "I'm off") says nothing of it
_IS_OFF = (r"\s*(?:is|'s|’s|was|will\s+be|has\s+been)\s+(?:now\s+|also\s+|definitely\s+|simply\s+|just\s+)?off\b"
           r"(?!\s+(?:to\b|for\s+(?:me|him|her|them|you)\b|work\b|sick\b|duty\b|the\s+hook\b))")
_OFF = re.compile(r"(?i:\b(?:it|this|that|(?:the\s+|our\s+|this\s+)?(?:meeting|session|call|one))" + _IS_OFF + ")")


def _called_off(segment: str, title: str) -> list[tuple[re.Match[str], str]]:
    """Where ``segment`` calls the meeting off, and the word for it: the usual words ("cancelled"), or the
    meeting (or its title) "is off"."""
    found = [(m, m[0]) for m in _CALLED_OFF.finditer(segment)] + [(m, "off") for m in _OFF.finditer(segment)]
    if title:
        found += [(m, "off") for m in re.finditer(r"(?i:" + re.escape(title) + _IS_OFF + ")", segment)]
    return found


# not said of it, or only as a possibility: "is not cancelled", "rather than cancel it", "if it has to be
# rescheduled"
_NOT_BEFORE = re.compile(r"(?i:\b(?:not|no|never|nor|nothing|instead\s+of|rather\s+than|without|if|unless|whether|"
                         r"may|might|could|should|need\s+to|nicht|kein\w*|falls|pas|si)\b|n't|n’t)")
# the reader themselves named as running it, in a mail to the runner alone: "you'll be running it",
# "could you take over", "over to you"
_YOU_RUN = re.compile(r"(?i:\byou\b\s*(?:(?:" + _AUX + r"|mind|please)\s*){0,5}" + _RUNS + r"|\b(?:by|to)\s+you\b)")


def _people_names(ctx: GradeContext) -> tuple[re.Pattern[str], dict[str, frozenset[str]]]:
    """A pattern of every employee's name (in any case) and first name (capitalised as written, or in
    capitals: "will" is no Will), and which person ids each names, keyed in lower case (a first name may
    be several people's), read once per grading and compiled once per directory."""
    def read() -> tuple[re.Pattern[str], dict[str, frozenset[str]]]:
        rows = tuple((str(i), str(n)) for i, n in ctx.final.db.execute("SELECT id, name FROM directory_person"))
        return _names_pattern(rows)
    return ctx.remember(("people names",), read)


@functools.lru_cache(maxsize=64)
def _names_pattern(rows: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str], dict[str, frozenset[str]]]:
    """``_people_names`` of a directory's (id, name) rows: a library world's thousand names make a pattern
    that takes milliseconds to compile, and every episode of a task has the same directory."""
    ids: dict[str, set[str]] = {}
    full: set[str] = set()
    first: set[str] = set()
    for person_id, name in rows:
        plain = " ".join(part for part in name.split() if not is_title(part))
        given = given_name(name)
        for written in {name, plain, given}:
            if written:
                ids.setdefault(written.casefold(), set()).add(person_id)
        full |= {name, plain} - {given}
        first |= {given, given.upper()}

    def alternatives(names: set[str]) -> str:
        return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True) if n)
    pattern = re.compile(r"(?<![\w@.])(?:(?i:" + alternatives(full) + r")|" + alternatives(first) + r")(?![\w@])")
    return pattern, {written: frozenset(people) for written, people in ids.items()}  # kept: none may change it


def _runners(ctx: GradeContext, segment: str) -> list[frozenset[str]]:
    """The people a sentence names as running a meeting (not "won't run"): a set of person ids each."""
    pattern, ids = _people_names(ctx)
    out = []
    for m in pattern.finditer(segment):
        end = m.end()
        while (word := _NEXT_WORD.match(segment, end)) is not None and word[1][0].isupper() and is_title(word[1]):
            end = word.end()  # post-nominals and titles after the name ("Pascale Söding B.Eng. will run")
        after = _RUNNER_AFTER.match(segment, end)
        before = _RUNNER_BEFORE.search(segment[max(0, m.start() - 120):m.start()])
        if (after is not None and not _NEGATED.search(after[0])) or (after is None and before is not None):
            out.append(ids[m[0].casefold()])
    return out


def _about(ctx: GradeContext, row: dict[str, Any], segment: str, others: list[str], year: int) -> bool:
    """Whether a sentence of a mail is about the event: it names its title or its start, or (naming no
    time and no other changed event) speaks of a meeting or "it" with no other day."""
    text = segment.casefold()
    if row["title"].casefold() in text:
        return True
    first = parse_ts(row["start_at"])
    zones = _zones(ctx, row["id"])
    zoned = zoned_times(segment)
    plain = _ZONED.sub(lambda m: " " * len(m[0]), segment)
    times = clock_times(plain)
    if any(_clock_in(first, z) == at for at, z in zoned) or times & {_clock_in(first, z) for z in zones}:
        return True
    if times or zoned or any(t.casefold() in text for t in others):
        return False
    _, real = _moments([(first, parse_ts(row["end_at"]))], zones)
    days = mentioned_days(plain, year, day_first=(ctx.final.meta("locale") or "en_US").startswith(DAY_FIRST_LOCALES))
    return (not days or any(_same_day(d, r) for d in days for r in real)) and bool(_GENERIC.search(segment))


def _what_it_says(ctx: GradeContext, check: CalendarEventCheck, row: dict[str, Any],
                  mail: SentMail) -> str | None:
    """What is wrong with what a mail that states the event's day and time says of it (``None``: nothing):
    the runner named as running it and nobody else, and it not called off (as ``check`` asks)."""
    if check.runner is None and not check.going_ahead:
        return None
    year = parse_ts(row["start_at"]).year
    others = [str(r["title"]) for r, _ in _changes(ctx) if r["id"] != row["id"] and r["title"]]
    segments = [s for s in _SENTENCE.split(_AWAY.sub(lambda m: " " * len(m[0]), own_text(mail.body))) if s.strip()]
    about = [s for s in segments if _about(ctx, row, s, others, year)]
    if check.going_ahead:
        for segment in about:
            for m, word in _called_off(segment, str(row["title"] or "")):
                clause = re.split(r"[,:—–(]", segment[max(0, m.start() - 30):m.start()])[-1]
                if not _NOT_BEFORE.search(clause):
                    return f"says {row['title']!r} is {word}, but it goes ahead"
    if check.runner is not None:
        runner = ctx.person_id(check.runner)
        name = ctx.person(check.runner)["name"]
        alone = mail.recipients() == {ctx.person(check.runner)["email"].lower()}
        if not any(runner in ids for s in segments for ids in _runners(ctx, s)) and not (
                alone and any(_YOU_RUN.search(s) for s in segments)):
            return f"does not name {name} as running {row['title']!r}"
        if any(runner not in ids for s in about for ids in _runners(ctx, s)):
            return f"names someone other than {name} as running {row['title']!r}"
    return None


def _calendar_event(check: CalendarEventCheck, ctx: GradeContext) -> Outcome:
    rows, problem = _selected(check, ctx)
    evidence: dict[str, Any] = {"events": [{k: r[k] for k in ("id", "start_at", "end_at", "room_id", "status")}
                                           for r in rows[:10]]}
    if problem:
        return Outcome(False, problem, evidence)
    wrong = [p for row in rows for p in _problems(check, ctx, row)]
    if wrong:
        return Outcome(False, listed(wrong), evidence)
    shown = "; ".join(f"{r['id']} {r['start_at']}..{r['end_at']}" for r in rows)
    return Outcome(True, f"{shown} meets the constraints", json.loads(json.dumps(evidence)))
