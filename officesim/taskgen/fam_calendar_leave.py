"""Clearing the calendar for a leave: block it, cut the recurring meetings' occurrences, hand the
one-off meetings to a deputy (and tell their people), decline one-off invitations with a note.

The manager's approval mail holds the rules; what each event needs follows from them and from the
calendar at the start (so the world's own meetings in the window count, not only planted ones).
Traps: recurring meetings others run stay as they are, the deputy may be out on some of the days
(a backup covers those), a meeting the day after the leave stays, and in the hard tier a later mail
swaps the deputy.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

from officesim.apps.calendar.availability import events_of
from officesim.apps.calendar.timing import occurrence_id
from officesim.clock import format_ts, parse_ts
from officesim.grading.calendar_checks import CalendarEventCheck, Window
from officesim.grading.record_checks import RecordCheck
from officesim.taskgen.base import Draft, Family, Solver, Stage, WorldLacks
from officesim.taskgen.calendar_kit import (
    Interval,
    begin,
    calendar_and_mail_only,
    calendar_guards,
    free_windows,
    iso,
    local_days,
    manager_of,
    monday_after,
    own_event,
    read_all_events,
    slot_in,
    some_free,
    today,
    weekday_text,
    when_for,
    zone_of,
)
from officesim.taskgen.common import colleague_mail, first_name, mail_guards, toolset
from officesim.taskgen.fam_calendar import TOPICS

TOOLS = toolset(["calendar", "mail", "directory"],
                writes=["calendar_create_event", "calendar_update_event", "calendar_cancel_event",
                        "calendar_respond_event", "mail_send_message"], distractors=["calendar", "mail"])
NOTE = "I am on leave then, sorry."


@dataclass
class Work:
    """What the rules ask for the events in the leave window."""

    cut: dict[str, list[str]] = field(default_factory=dict)  # series id -> occurrence starts to cancel
    # event id -> (who runs it, its attendees' emails, its slot)
    handed: dict[str, tuple[dict[str, Any], list[str], Interval]] = field(default_factory=dict)
    declined: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # recurring invitations from others: leave alone


class OooCoverage(Family):
    """Before a leave: block it, cancel recurring occurrences, hand meetings to a deputy, decline invitations."""

    name = "ooo_coverage"
    skills = ("policy_application", "multi_step_process", "communication", "latest_instruction")
    category = "calendar"
    difficulty = "medium"
    apps = ("calendar", "mail", "directory")
    variants = ("one-day", "three-days", "named-cancellation", "deputy-away", "two-weeks")
    worlds = ("acme", "counsel", "forge", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        user = begin(stage)
        zone = zone_of(stage, user["id"])
        week = monday_after(today(stage))
        first_day, days = {"one-day": (week + timedelta(days=rng.randint(1, 3)), 1),
                           "three-days": (week + timedelta(days=2), 3),
                           "named-cancellation": (week + timedelta(days=rng.choice((0, 2))), 3),
                           "deputy-away": (week + timedelta(days=1), 3),
                           "two-weeks": (week + timedelta(days=3), 6)}[variant]
        leave = local_days(zone, first_day, days)
        self._clear_blocks(stage, leave)
        deputy, backup = self._deputies(stage, rng, leave)
        planted = self._plant(stage, rng, leave, first_day, days, zone)
        named = planted["named"] if variant == "named-cancellation" else None
        away_day = None
        if variant == "deputy-away":
            away_day = first_day + timedelta(days=1)
            own_event(stage, deputy["id"], "Out of office", *local_days(zone_of(stage, deputy["id"]), away_day, 1),
                      all_day=True, description="Dentist and errands.")
        manager = manager_of(stage)
        approval = self._approval(stage, variant, manager, deputy, backup, first_day, days, named)
        acting = deputy
        update: dict[str, Any] | None = None
        if variant == "two-weeks":
            update = colleague_mail(stage, manager["id"], ["user"], "Re: Your leave",
                                    f"One change: {first_name(deputy['name'])} is at the partner offsite that "
                                    f"week, so please hand your meetings to {backup['name']} instead.\n\n"
                                    + first_name(manager["name"]))
            acting = backup
        work = self._work(stage, leave, acting, backup, named, away_day, zone)
        if not work.handed:
            raise WorldLacks(f"{self.name}: no meeting of the user's to hand over")
        end_day = first_day + timedelta(days=days - 1)
        instruction = rng.choice([
            f"I'm off from {weekday_text(first_day)} to {weekday_text(end_day)}. Please get my calendar ready "
            f"the way {first_name(manager['name'])}'s approval mail says.",
            f"My leave ({weekday_text(first_day)} to {weekday_text(end_day)}) was approved. Can you sort out my "
            "calendar for it, following the approval mail?",
            f"Please prepare my calendar for my time off ({weekday_text(first_day)} to {weekday_text(end_day)}); "
            f"{first_name(manager['name'])} spelled out what to do.",
            f"Leave starts {weekday_text(first_day)} (back after {weekday_text(end_day)}). Could you set my calendar "
            "up for it the way the approval says?",
            f"While I'm away ({weekday_text(first_day)} to {weekday_text(end_day)}) my meetings need handling. "
            f"Please follow {first_name(manager['name'])}'s mail.",
        ] if days > 1 else [
            f"I'm taking {weekday_text(first_day)} off. Please set up my calendar as "
            f"{first_name(manager['name'])}'s approval mail says.",
            f"Can you clear my calendar for my day off on {weekday_text(first_day)}? Follow the approval mail.",
            f"{first_name(manager['name'])} approved my day off ({weekday_text(first_day)}). Please do what the "
            "mail asks for my calendar.",
            f"Before my day off on {weekday_text(first_day)}, could you handle my calendar as "
            f"{first_name(manager['name'])} asked?",
            f"I'll be out {weekday_text(first_day)}. Please get my meetings covered, cancelled or declined as the "
            "approval mail lays out."])
        hard = variant == "two-weeks"

        def solve(s: Solver) -> None:
            s.call("mail_search_messages", query="leave")
            s.call("mail_get_message", message_id=approval)
            if update is not None:
                s.call("mail_get_message", message_id=update["id"])
            read_all_events(s, leave)
            if away_day is not None:
                s.call("calendar_get_free_busy", people=[deputy["email"]], start=iso(leave[0]), end=iso(leave[1]))
            s.call("calendar_create_event", title="Out of office", start=first_day.isoformat(),
                   end=(first_day + timedelta(days=days)).isoformat(), all_day=True)
            for series, starts in work.cut.items():
                for start in starts:
                    s.call("calendar_cancel_event", event_id=occurrence_id(series, parse_ts(start), True),
                           note=NOTE)
            if named is not None:
                s.call("calendar_cancel_event", event_id=named, note=NOTE)
            for event_id, (who, emails, slot) in work.handed.items():
                if who["email"] not in emails:
                    s.call("calendar_update_event", event_id=event_id, add_attendees=[who["email"]])
                s.call("mail_send_message", to=sorted({*emails, who["email"]}), subject="While I am on leave",
                       body=f"Hi all,\n\n{who['name']} will run our meeting on "
                            f"{when_for(stage, slot[0], _people(stage, [*emails, who['email']]))} while I am "
                            "away.\n\n"
                            f"Thanks,\n{first_name(user['name'])}")
            for event_id in work.declined:
                s.call("calendar_respond_event", event_id=event_id, response="declined", comment=NOTE)

        gates: list[Any] = [
            CalendarEventCheck(id="leave_blocked", check="calendar_event", match={"all_day": True}, only_attendees=True,
                               windows=[Window(start=format_ts(leave[0]), end=format_ts(leave[1]))],
                               minutes=int((leave[1] - leave[0]).total_seconds() // 60),
                               description="One all-day out-of-office block covering the whole leave."),
            calendar_and_mail_only()]
        criteria: list[Any] = [gates[0].model_copy(update={"id": "leave_blocked_points", "points": 1})]
        for n, (series, starts) in enumerate(sorted(work.cut.items()), 1):
            row = stage.one("SELECT * FROM calendar_event WHERE id = ?", series)
            criteria.append(RecordCheck(
                id=f"series_{n}", check="record", table="calendar_event", match={"id": series}, points=1,
                expect={"status": "confirmed", "start_at": row["start_at"],
                        "exdates": sorted({*_exdates(row), *starts})},
                description=f"'{row['title']}' loses exactly its occurrences during the leave."))
            # cancelling the whole series (every later week, for everyone) is no way of cutting a day out of it
            gates.append(RecordCheck(
                id=f"series_kept_{n}", check="record", table="calendar_event", match={"id": series},
                expect={"status": "confirmed"},
                description=f"'{row['title']}' itself stays: only its occurrences during the leave are cancelled."))
        # the mails may name the leave's days and the day the user is back ("I'm out October 14-16, back
        # Monday"): as such, no meeting's day
        away_days = [(first_day + timedelta(days=d)).isoformat() for d in range(days + 1)]
        back = first_day + timedelta(days=days)
        while back.weekday() >= 5:
            back += timedelta(days=1)
            away_days.append(back.isoformat())
        for n, (event_id, (who, emails, slot)) in enumerate(sorted(work.handed.items()), 1):
            gates.append(CalendarEventCheck(
                id=f"handed_{n}", check="calendar_event", event=event_id,
                attendees=[*emails, who["email"]], only_attendees=True,
                exclude=[p["email"] for p in (deputy, backup) if p["id"] != who["id"] and p["email"] not in emails],
                windows=[Window(start=format_ts(slot[0]), end=format_ts(slot[1]))], told=[*emails, who["email"]],
                runner=who["email"], going_ahead=True, away_days=away_days,
                description=f"Handed to {who['name']} at the same time, and its people told by mail who runs it "
                            "(it goes ahead)."))
        for n, event_id in enumerate(work.declined, 1):
            criteria.append(RecordCheck(
                id=f"declined_{n}", check="record", table="calendar_attendee", points=1,
                match={"event_id": event_id, "person_id": "user"},
                expect={"response": "declined", "comment": {"not": ""}},
                description="A one-off invitation during the leave is declined with a note."))
        if named is not None:
            criteria.append(RecordCheck(id="named_cancelled", check="record", table="calendar_event", points=2,
                                        match={"id": named}, expect={"status": "cancelled"},
                                        description="The meeting the approval mail names is cancelled."))
        moved = [*work.cut, *work.handed, *([named] if named else [])]
        guards = calendar_guards(moved=moved, answered=work.declined)
        allowed = sorted({e for _, emails, _ in work.handed.values() for e in emails}
                         | {deputy["email"], backup["email"], manager["email"]})
        criteria += [*guards, *mail_guards(allowed, keep=[approval])]
        traps = ["a recurring series someone else runs stays as it is (neither declined nor cut)",
                 "the user's meeting the day after the leave stays"]
        if variant == "named-cancellation":
            traps.append("the meeting the approval mail names is cancelled outright, not handed over")
        if variant == "deputy-away":
            traps.append(f"{deputy['name']} is out one day of the leave: {backup['name']} runs that day's meetings")
        if variant == "two-weeks":
            traps.append(f"a later mail swaps the deputy: {backup['name']} runs the meetings, not {deputy['name']}")
        return Draft(instruction=instruction, tools=TOOLS, gates=gates, criteria=criteria, solve=solve,
                     variant=variant, max_steps=70 if hard else 45, traps=traps,
                     difficulty="hard" if hard else ("easy" if variant == "one-day" else "medium"))

    # ------------------------------------------------------------------ planting
    def _clear_blocks(self, stage: Stage, leave: Interval) -> None:
        """The user's own all-day blocks (travel, earlier time off) in the window are dropped first:
        the leave replaces them."""
        for event, _ in events_of(stage.world, stage.world.user_id, *leave):
            if event["all_day"] and event["organizer_id"] == stage.world.user_id:
                stage.act("user", "calendar_cancel_event", event_id=event["id"])

    @staticmethod
    def _deputies(stage: Stage, rng: random.Random, leave: Interval) -> tuple[dict[str, Any], dict[str, Any]]:
        user = stage.world.user
        reports = stage.rows("SELECT * FROM directory_person WHERE manager_id = ? AND location != 'Remote' "
                             "ORDER BY CAST(substr(id, 3) AS INTEGER)", user["id"])
        chosen = some_free(stage, rng, reports, leave, 60, 2)
        if len(chosen) < 2:
            raise WorldLacks("the user has fewer than two reports sharing their hours to act as deputies")
        return chosen[0], chosen[1]

    def _plant(self, stage: Stage, rng: random.Random, leave: Interval, first_day: date, days: int,
               zone: str) -> dict[str, Any]:
        """Meetings in and around the window: two the user runs, a one-off and a recurring invitation
        from others, and a meeting the day after the leave (which stays)."""
        user = stage.world.user
        people = stage.rows("SELECT * FROM directory_person WHERE role IS NULL AND id != ? AND location != 'Remote' "
                            "ORDER BY CAST(substr(id, 3) AS INTEGER)", user["id"])
        guests = some_free(stage, rng, people, leave, 45, 8)
        if len(guests) < 8:
            raise WorldLacks(f"{self.name}: too few colleagues share the user's hours")
        titles = rng.sample(TOPICS, 5)
        out: dict[str, Any] = {}
        for n, key in enumerate(("mine", "named")):
            span = local_days(zone, first_day + timedelta(days=min(n, days - 1)), 1)
            crew = next((pair for pair in ([guests[2 * n], guests[2 * n + 1]], *pairwise(people))
                         if free_windows(stage, [p["id"] for p in pair], span, 45)), None)
            if crew is None:
                raise WorldLacks(f"{self.name}: no two colleagues free with the user on a leave day")
            slot = slot_in(free_windows(stage, [g["id"] for g in crew], span, 45), 45, n)
            out[key] = own_event(stage, "user", titles[n].capitalize(), slot[0], slot[1],
                                 attendees=[g["email"] for g in crew])
        span = local_days(zone, first_day, days)
        slot = slot_in(free_windows(stage, [guests[4]["id"]], span, 30), 30, 1)
        out["invite"] = own_event(stage, guests[4]["id"], titles[2].capitalize(), slot[0], slot[1],
                                  attendees=["user", guests[5]["email"]])
        series_start = slot[0] - timedelta(weeks=3) + timedelta(hours=1)
        out["their_series"] = own_event(stage, guests[6]["id"], f"{titles[3].capitalize()} (weekly)", series_start,
                                        series_start + timedelta(minutes=30), attendees=["user"],
                                        recurrence="weekly")
        after = local_days(zone, first_day + timedelta(days=days + (2 if (first_day + timedelta(days=days))
                                                                   .weekday() >= 5 else 0)), 1)
        slot = slot_in(free_windows(stage, [guests[7]["id"]], after, 30), 30, 0)
        out["after"] = own_event(stage, "user", titles[4].capitalize(), slot[0], slot[1],
                                 attendees=[guests[7]["email"]])
        return out

    def _approval(self, stage: Stage, variant: str, manager: dict[str, Any], deputy: dict[str, Any],
                  backup: dict[str, Any], first_day: date, days: int, named: str | None) -> str:
        user = stage.world.user
        end = first_day + timedelta(days=days - 1)
        rules = [
            "- Put one all-day out-of-office block on your calendar for the whole time.",
            "- Your recurring meetings (1:1s and the like): cancel just the occurrences while you are away.",
            f"- Other meetings you run then: add {deputy['name']} to run them, and mail the attendees so they know.",
            "- One-off invitations from others during your leave: decline them with a short note. Leave recurring "
            "series other people run as they are.",
        ]
        if variant == "deputy-away":
            rules[2] = (f"- Other meetings you run then: add {deputy['name']} to run them (on any day "
                        f"{first_name(deputy['name'])} is out as well, {backup['name']} instead), and mail the "
                        "attendees so they know.")
        if named is not None:
            title = stage.one("SELECT title FROM calendar_event WHERE id = ?", named)["title"]
            rules.insert(2, f"- The '{title}' can wait: cancel it outright.")
        when = weekday_text(first_day) if days == 1 else f"{weekday_text(first_day)} to {weekday_text(end)}"
        mail = colleague_mail(stage, manager["id"], ["user"], "Your leave",
                              f"Hi {first_name(user['name'])},\n\nYour leave ({when}) is approved. Before you go, "
                              "please set up your calendar:\n" + "\n".join(rules) + "\n\nEnjoy the break,\n"
                              + first_name(manager["name"]))
        return str(mail["id"])

    @staticmethod
    def _work(stage: Stage, leave: Interval, deputy: dict[str, Any], backup: dict[str, Any], named: str | None,
              away_day: date | None, zone: str) -> Work:
        """What the rules ask of every event on the user's calendar in the window."""
        user_id = stage.world.user_id
        work = Work()
        deputy_zone = zone_of(stage, deputy["id"])
        for event, slot in events_of(stage.world, user_id, *leave):
            if event["all_day"] or event["id"] == named:
                continue
            if event["organizer_id"] == user_id and event["recurrence"]:
                work.cut.setdefault(event["id"], []).append(format_ts(slot[0]))
            elif event["organizer_id"] == user_id:
                emails = [str(r[0]) for r in stage.world.db.execute(
                    "SELECT email FROM calendar_attendee WHERE event_id = ? AND person_id IS NOT ? ORDER BY email",
                    (event["id"], user_id))]
                day = slot[0].astimezone(ZoneInfo(deputy_zone)).date()
                who = backup if away_day is not None and day == away_day else deputy
                work.handed[event["id"]] = (who, emails, slot)
            elif event["recurrence"]:
                work.kept.append(event["id"])
            elif event["my_response"] != "declined" and event["id"] not in work.declined:
                work.declined.append(event["id"])
        return work


def _people(stage: Stage, emails: list[str]) -> list[dict[str, Any]]:
    """The employees among ``emails`` (outside guests have no calendar here)."""
    return [p for e in emails for p in stage.rows("SELECT * FROM directory_person WHERE email = ?", e)]


def _exdates(row: dict[str, Any]) -> list[str]:
    return list(json.loads(row["exdates"] or "[]"))
