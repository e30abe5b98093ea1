"""Planning an in-person day at an office: several sessions, each with its people, length, room and
place in the day, booked from the user's calendar in another time zone.

Each session is graded on its own constraints (a window of the office's day in which its people
are free, outside lunch, after the kickoff or late in the afternoon as the agenda says; a room of
that office that seats them; exactly its people), so any valid arrangement passes.  Traps: the
office's day is in another zone than the user's, someone listed is out that day, and in the hard
tier a revised agenda (a later reply) changes a session and the people.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from officesim.grading.calendar_checks import CalendarEventCheck
from officesim.taskgen.base import Draft, Family, Solver, Stage, WorldLacks
from officesim.taskgen.calendar_kit import (
    Interval,
    at,
    begin,
    calendar_and_mail_only,
    calendar_guards,
    daily_block,
    free_windows,
    iso,
    local_days,
    monday_after,
    own_event,
    quarter_slots,
    some_free,
    today,
    weekday_text,
    window_models,
)
from officesim.taskgen.common import colleague_mail, first_name, mail_guards, toolset
from officesim.taskgen.fam_calendar import room_free

TOOLS = toolset(["calendar", "mail", "directory"], writes=["calendar_create_event", "calendar_update_event",
                                                          "mail_send_message", "mail_reply_message"],
                distractors=["calendar", "mail"])
HARD_TOOLS = [t for t in TOOLS if t != "calendar_find_free_time"]
BREAKOUTS = ("Pricing", "Hiring", "Tooling", "Onboarding", "Partners", "Reporting")


@dataclass
class Session:
    """One session of the day: its title, people, length and the part of the day it may take."""

    title: str
    people: list[dict[str, Any]]
    minutes: int
    span: Interval
    windows: list[Interval] = field(default_factory=list)
    rooms: list[str] = field(default_factory=list)
    fixed: bool = False


class OffsitePlanning(Family):
    """Book an office's planning day: each session at a valid time for its people, in a room that seats them."""

    name = "offsite_planning"
    skills = ("scheduling", "multi_step_process", "reconciliation")
    category = "calendar"
    difficulty = "medium"
    apps = ("calendar", "mail", "directory")
    variants = ("one-workshop", "kickoff-breakouts", "with-wrap-up", "someone-away", "revised-agenda")
    worlds = ("acme", "forge", "carewell", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        user = begin(stage)
        for attempt in range(8):
            office, zone, people, day = self._setting(stage, rng, variant)
            lead, team = people[0], people[1:]
            away = team.pop() if variant in ("someone-away", "revised-agenda") else None
            lunch = daily_block(zone, day, 1, time(12), time(13))
            sessions = self._sessions(variant, zone, day, lead, team, away, rng)
            try:
                for session in sessions:
                    kickoff = next((k for k in sessions if k.fixed and k.windows), None)
                    if kickoff is not None and session.title.startswith("Breakout"):
                        session.span = (max(session.span[0], kickoff.windows[0][1]), session.span[1])
                    self._fit(stage, session, office, lunch)
                plan = self._reference(stage, sessions)
                break
            except WorldLacks:
                if attempt == 7:
                    raise
        if away is not None:
            own_event(stage, away["id"], "Out of office", *local_days(zone, day, 1), all_day=True,
                      description="Family matters.")
        first_sessions = self._as_first_mailed(sessions, variant)
        request = colleague_mail(stage, lead["id"], ["user"], f"{office} planning day",
                                 self._agenda_mail(user, lead, office, zone, day, first_sessions, away))
        if variant == "revised-agenda":
            stage.act(lead["id"], "mail_reply_message", message_id=request["id"],
                                 body=self._revision_text(sessions, office, lead))
        instruction = rng.choice([
            f"{first_name(lead['name'])} asked me to set up the {office} planning day. Please book all the sessions.",
            f"Can you book the sessions for {first_name(lead['name'])}'s planning day in {office}, rooms included?",
            f"Please put the {office} planning day on everyone's calendar, as {first_name(lead['name'])} laid it "
            "out.",
            f"Could you organise the {office} day {first_name(lead['name'])} mailed about? Every session needs a "
            "room.",
            f"{lead['name']}'s team is having a planning day in {office}. Please get the sessions and rooms booked "
            "from their mail.",
            f"I said I'd book the {office} planning day for {first_name(lead['name'])}. Could you do it? The agenda "
            "is in their mail.",
        ])
        hard = variant == "revised-agenda"

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query="planning day")
            s.call("mail_get_thread", thread_id=found["messages"][0]["thread_id"])
            everyone = list({p["email"]: p for session in sessions for p in session.people}.values())
            if hard:
                for person in everyone:
                    s.call("directory_search_people", query=person["name"])
                s.call("calendar_get_free_busy", people=[p["email"] for p in everyone],
                       start=iso(local_days(zone, day, 1)[0]), end=iso(local_days(zone, day, 1)[1]))
            else:
                for session in sessions:
                    if not session.fixed:
                        s.call("calendar_find_free_time", people=[p["email"] for p in session.people],
                               duration_minutes=session.minutes, start=iso(session.span[0]),
                               end=iso(session.span[1]), include_me=False)
            s.call("calendar_list_rooms", office=office)
            for session, (slot, room) in zip(sessions, plan, strict=True):
                s.call("calendar_create_event", title=session.title, start=iso(slot[0]), end=iso(slot[1]),
                       attendees=[p["email"] for p in session.people], room=room)

        criteria: list[Any] = []
        for n, session in enumerate(sessions, 1):
            criteria.append(CalendarEventCheck(
                id=f"session_{n}", check="calendar_event", points=2, match={"title": {"contains": session.title}},
                attendees=[p["email"] for p in session.people], only_attendees=True,
                exclude=[away["email"]] if away else [], minutes=session.minutes,
                windows=window_models(session.windows), rooms=session.rooms,
                description=f"'{session.title}': its people only, {session.minutes} minutes, at a time the agenda "
                            f"allows when they are all free, in a {office} room that seats them."))
        allowed = sorted({p["email"] for session in sessions for p in session.people})
        criteria += [*calendar_guards(), *mail_guards(allowed, keep=[request["id"]])]
        traps = ["lunch (12:00-13:00) stays free and each room must seat its session's people",
                 "the people already have meetings that day: every session fits around them"]
        if len(sessions) > 1:
            traps.append("the breakouts come after the kickoff")
        if away is not None:
            traps.append(f"{away['name']} is out of office that day and is left off every invite")
        if variant == "revised-agenda":
            traps.append(f"a later reply shortens '{sessions[2].title}' to {sessions[2].minutes} minutes and moves "
                         "it to the afternoon")
        return Draft(
            instruction=instruction, tools=HARD_TOOLS if hard else TOOLS, traps=traps,
            gates=[calendar_and_mail_only(),
                   CalendarEventCheck(id="sessions_booked", check="calendar_event", count=len(sessions),
                                      description="One new event per session of the agenda, nothing more.")],
            criteria=criteria, solve=solve, variant=variant, max_steps=50 if hard else 30,
            difficulty="hard" if hard else ("easy" if variant == "one-workshop" else "medium"))

    # ------------------------------------------------------------------ the scenario
    def _setting(self, stage: Stage, rng: random.Random, variant: str
                 ) -> tuple[str, str, list[dict[str, Any]], date]:
        """An office with rooms for the group, the group (lead first) and the day (next week)."""
        need = {"one-workshop": 5, "kickoff-breakouts": 7, "with-wrap-up": 7, "someone-away": 8,
                "revised-agenda": 9}[variant]
        offices = [r["office"] for r in stage.rows(
            "SELECT office FROM calendar_room GROUP BY office HAVING max(capacity) >= ? ORDER BY office", need + 1)]
        rng.shuffle(offices)
        day = monday_after(today(stage)) + timedelta(days=rng.randint(1, 3))
        for office in offices:
            zone = str(stage.one("SELECT c.time_zone FROM calendar_calendar c JOIN directory_person p "
                                 "ON p.id = c.owner_id WHERE p.location = ? LIMIT 1", office)["time_zone"])
            pool = stage.rows("SELECT * FROM directory_person WHERE location = ? AND id != ? AND role IS NULL "
                              "ORDER BY CAST(substr(id, 3) AS INTEGER)", office, stage.world.user_id)
            people = some_free(stage, rng, pool, local_days(zone, day, 1), 60, need, windows=2)
            if len(people) == need:
                return office, zone, people, day
        raise WorldLacks(f"{self.name}: no office with rooms and {need} colleagues free on the day")

    @staticmethod
    def _sessions(variant: str, zone: str, day: date, lead: dict[str, Any], team: list[dict[str, Any]],
                  away: dict[str, Any] | None, rng: random.Random) -> list[Session]:
        whole = local_days(zone, day, 1)
        everyone = [lead, *team]
        if variant == "one-workshop":
            return [Session("Planning workshop", everyone, 90, whole)]
        topics = rng.sample(BREAKOUTS, 2)
        half = len(team) // 2
        morning, midday = (at(zone, day, 9), at(zone, day, 12)), (at(zone, day, 9), at(zone, day, 15))
        sessions = [Session("Kickoff", everyone, 45, morning, fixed=True),
                    Session(f"Breakout: {topics[0]}", team[:half], 60, midday),
                    Session(f"Breakout: {topics[1]}", [lead, *team[half:]], 60, midday)]
        if variant in ("with-wrap-up", "revised-agenda"):
            sessions.append(Session("Wrap-up", everyone, 30, (at(zone, day, 15), whole[1])))
        if variant == "revised-agenda":
            sessions[2].minutes, sessions[2].span = 45, (at(zone, day, 13), at(zone, day, 15))
        return sessions

    def _fit(self, stage: Stage, session: Session, office: str, lunch: list[Interval]) -> None:
        """The session's windows and rooms; the kickoff gets one fixed slot everyone can make."""
        people = [p["id"] for p in session.people]
        windows = free_windows(stage, people, session.span, session.minutes, lunch, with_user=False)
        if session.fixed:
            slots = quarter_slots(windows, session.minutes, first_only=True)
            if not slots:
                raise WorldLacks(f"{self.name}: no morning slot for the kickoff")
            windows = [slots[0]]
        session.windows = windows
        session.rooms = [r["id"] for r in stage.rows("SELECT id FROM calendar_room WHERE office = ? AND capacity >= ? "
                                                     "ORDER BY id", office, len(session.people) + 1)]
        if not session.windows or not session.rooms:
            raise WorldLacks(f"{self.name}: no time or room for '{session.title}'")

    def _reference(self, stage: Stage, sessions: list[Session]) -> list[tuple[Interval, str]]:
        """A slot and room per session, later sessions after the kickoff, no room double-booked."""
        chosen: list[tuple[Interval, str]] = []
        kickoff_end = next((s.windows[0][1] for s in sessions if s.fixed), None)
        for session in sessions:
            fits = [(slot, room) for slot in quarter_slots(session.windows, session.minutes)
                    for room in session.rooms
                    if (session.fixed or kickoff_end is None or slot[0] >= kickoff_end)
                    and room_free(stage, room, slot)
                    and not any(r == room and a < slot[1] and b > slot[0] for (a, b), r in chosen)]
            if not fits:
                raise WorldLacks(f"{self.name}: no room free for '{session.title}'")
            chosen.append(fits[0])
        return chosen

    @staticmethod
    def _as_first_mailed(sessions: list[Session], variant: str) -> list[Session]:
        """The agenda as the first mail gives it (the hard tier's revision changes one breakout)."""
        if variant != "revised-agenda":
            return sessions
        first = [Session(s.title, list(s.people), s.minutes, s.span, s.windows, s.rooms, s.fixed) for s in sessions]
        first[2].minutes, first[2].span = 60, sessions[1].span
        return first

    @staticmethod
    def _agenda_mail(user: dict[str, Any], lead: dict[str, Any], office: str, zone: str, day: date,
                     sessions: list[Session], away: dict[str, Any] | None) -> str:
        zone_note = f"{office} time"
        lines = []
        for session in sessions:
            names = "everyone" if len(session.people) == len(sessions[0].people) \
                else ", ".join(p["name"] for p in session.people)
            if session.fixed:
                when = f"starting {_clock(session.windows[0][0], zone)} {zone_note}"
            elif session.title.startswith("Breakout") and session.span[1].astimezone(ZoneInfo(zone)).hour == 15 \
                    and session.minutes == 60:
                when = f"after the kickoff and before 15:00 {zone_note}"
            elif session.span == local_days(zone, day, 1):
                when = "any time that day"
            elif session.span[1] == local_days(zone, day, 1)[1]:
                when = f"from {_clock(session.span[0], zone)} {zone_note}, to close the day"
            else:
                when = f"between {_clock(session.span[0], zone)} and {_clock(session.span[1], zone)} " \
                       f"{zone_note}" + (", after the kickoff" if session.title.startswith("Breakout") else "")
            lines.append(f"- {session.title} ({names}): {session.minutes} minutes, {when}")
        everyone = ", ".join(p["name"] for p in sessions[0].people if p["id"] != lead["id"])
        extra = f"\n\n(The team: me, {everyone}" + (f", {away['name']}" if away else "") + \
            ". If anyone is out that day, leave them off the invites.)"
        return (f"Hi {first_name(user['name'])},\n\nCould you book our planning day in {office} on "
                f"{weekday_text(day)}? Agenda:\n" + "\n".join(lines) + "\n\nLunch is 12:00-13:00, please keep it "
                f"free. Each session needs a room here that seats everyone in it; please use these session names "
                f"as the titles.{extra}\n\nThanks,\n{first_name(lead['name'])}")

    @staticmethod
    def _revision_text(sessions: list[Session], office: str, lead: dict[str, Any]) -> str:
        changed = sessions[2]
        return (f"Small revision: make '{changed.title}' {changed.minutes} minutes and move it to the afternoon "
                f"(13:00 to 15:00 {office} time). The rest stands.\n\n{first_name(lead['name'])}")


def _clock(moment: datetime, zone: str) -> str:
    """'09:30' in ``zone``."""
    return moment.astimezone(ZoneInfo(zone)).strftime("%H:%M")
