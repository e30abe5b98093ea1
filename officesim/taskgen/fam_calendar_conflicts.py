"""Resolving a calendar conflict: move the right meeting (never the immovable one), keep its people,
tell them the new time; everything else on the calendar stays as it was.

Which meeting may move is the trap: a meeting someone else organises cannot be moved by the
user, a customer call is never moved (the manager's standing rule, in a mail), a room clash is
solved by another room at the same time, a clash with one occurrence of a weekly series moves
that occurrence only, and in the hard tier a meeting that merely touches the new block stays.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from officesim.apps.calendar.timing import occurrence_id, occurrences
from officesim.clock import format_ts, parse_ts
from officesim.grading.calendar_checks import CalendarEventCheck, Window
from officesim.grading.record_checks import RecordCheck
from officesim.taskgen.base import Draft, Family, Solver, Stage, WorldLacks
from officesim.taskgen.calendar_kit import (
    Interval,
    at,
    begin,
    by_office,
    calendar_and_mail_only,
    calendar_guards,
    free_windows,
    iso,
    local_days,
    local_when,
    manager_of,
    monday_after,
    own_event,
    slot_in,
    some_free,
    today,
    weekday_text,
    when_for,
    window_models,
    zone_of,
)
from officesim.taskgen.common import colleague_mail, first_name, mail_guards, toolset
from officesim.taskgen.fam_calendar import TOPICS, room_free

TOOLS = toolset(["calendar", "mail", "directory"],
                writes=["calendar_update_event", "calendar_cancel_event", "calendar_create_event",
                        "calendar_respond_event", "mail_send_message", "mail_reply_message"],
                distractors=["calendar", "mail"])
HARD_TOOLS = [t for t in TOOLS if t != "calendar_find_free_time"]


def colleagues_near(stage: Stage, span: Interval, minutes: int, rng: random.Random, n: int,
                    office: str | None = None) -> list[dict[str, Any]]:
    """``n`` colleagues (no role key) who share working hours with the user in ``span``."""
    offices = by_office(stage, exclude=[stage.world.user_id])
    pool = offices.get(office, []) if office else [p for people in offices.values() for p in people]
    fitting = some_free(stage, rng, pool, span, minutes, n, windows=3)
    if len(fitting) < n:
        raise WorldLacks(f"fewer than {n} colleagues share working hours with the user")
    return fitting[:n]


class RescheduleConflict(Family):
    """Resolve a calendar clash by moving the meeting that may move, and tell its attendees the new time."""

    name = "reschedule_conflict"
    skills = ("rescheduling", "policy_application", "communication")
    category = "calendar"
    difficulty = "medium"
    apps = ("calendar", "mail", "directory")
    variants = ("double-booked", "customer-call", "room-taken", "series-occurrence", "planning-blocks")
    # not tiny: its 20 people leave fewer than three colleagues sharing the user's working hours, so three
    # of the five structures (customer-call, room-taken, planning-blocks) have no one to meet
    worlds = ("acme", "counsel", "forge", "carewell")
    count_per_world = 5

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        begin(stage)
        week = monday_after(today(stage))
        self.span = local_days(zone_of(stage, stage.world.user_id), week, 5)
        self.week = week
        builder = {"double-booked": self._double_booked, "customer-call": self._customer_call,
                   "room-taken": self._room_taken, "series-occurrence": self._series_occurrence,
                   "planning-blocks": self._planning_blocks}[variant]
        return builder(stage, rng, variant)

    # ------------------------------------------------------------------ pieces
    def _meeting(self, stage: Stage, rng: random.Random, guests: list[dict[str, Any]], minutes: int,
                 day_offset: int, room: str | None = None, spare: tuple[str, ...] = ()) -> tuple[str, str, Interval]:
        """A meeting the user organises on day ``day_offset`` of next week, at a time all are free."""
        zone = zone_of(stage, stage.world.user_id)
        for offset in [(day_offset + n) % 5 for n in range(5)]:
            day = local_days(zone, self.week + timedelta(days=offset), 1)
            windows = free_windows(stage, [g["id"] for g in guests], day, minutes)
            if room is not None:
                windows = [w for w in windows if room_free(stage, room, (w[0], w[0] + timedelta(minutes=minutes)))
                           and any(room_free(stage, r, (w[0], w[0] + timedelta(minutes=minutes))) for r in spare)]
            if windows:
                break
        slot = slot_in(windows, minutes, rng.randint(0, 1))
        title = rng.choice(TOPICS)
        title = title[0].upper() + title[1:]
        event = own_event(stage, "user", title, slot[0], slot[1], attendees=[g["email"] for g in guests], room=room)
        return event, title, slot

    def _move_check(self, stage: Stage, event: str, guests: list[dict[str, Any]], minutes: int,
                    blocked: Sequence[Interval] = (), check_id: str = "moved") -> tuple[CalendarEventCheck, Interval]:
        """The gate of a moved meeting: a free slot next week for its people, the same people, told."""
        windows = free_windows(stage, [g["id"] for g in guests], self.span, minutes, list(blocked))
        if not windows:
            raise WorldLacks(f"{self.name}: nowhere to move {event}")
        emails = [g["email"] for g in guests]
        gate = CalendarEventCheck(id=check_id, check="calendar_event", event=event, windows=window_models(windows),
                                  minutes=minutes, attendees=emails, only_attendees=True, told=emails,
                                  description="The meeting moved to a time next week when all its people are free "
                                              "(in their working hours), with the same people, who were told the "
                                              "new day and time by mail.")
        return gate, slot_in(windows, minutes, 1)

    @staticmethod
    def _unchanged(event_id: str, row: dict[str, Any], check_id: str = "left_alone") -> RecordCheck:
        return RecordCheck(id=check_id, check="record", table="calendar_event", match={"id": event_id},
                           expect={"start_at": row["start_at"], "end_at": row["end_at"], "status": "confirmed",
                                   "room_id": row["room_id"]},
                           description="The meeting that must not move is where it was.")

    def _draft(self, stage: Stage, variant: str, instruction: str, solve: Any, gates: list[Any], moved: list[str],
               told: list[str], hard: bool = False, points: list[Any] | None = None,
               traps: Sequence[str] = ()) -> Draft:
        criteria: list[Any] = list(points or [])
        criteria += [*calendar_guards(moved=moved), *mail_guards(told)]
        return Draft(instruction=instruction, tools=HARD_TOOLS if hard else TOOLS,
                     gates=[*gates, calendar_and_mail_only()],
                     criteria=criteria, solve=solve, variant=variant, max_steps=45 if hard else 25, traps=traps,
                     difficulty="hard" if hard else ("easy" if variant == "double-booked" else "medium"))

    def _notify(self, s: Solver, guests: list[dict[str, Any]], title: str, slot: Interval, stage: Stage) -> None:
        s.call("mail_send_message", to=[g["email"] for g in guests], subject=f"Moved: {title}",
               body=f"Hi all,\n\n{title} has moved to {when_for(stage, slot[0], guests)} (the invite is "
                    f"updated).\n\nThanks,\n{first_name(stage.world.user['name'])}")

    # ------------------------------------------------------------------ structures
    def _double_booked(self, stage: Stage, rng: random.Random, variant: str) -> Draft:
        guests = colleagues_near(stage, self.span, 30, rng, 2)
        event, title, slot = self._meeting(stage, rng, guests, 30, rng.randint(1, 3))
        boss = manager_of(stage)
        clash = own_event(stage, boss["id"], "Leadership check-in", slot[0] - timedelta(minutes=15),
                          slot[1] + timedelta(minutes=15), attendees=["user"])
        gate, target = self._move_check(stage, event, guests, 30)
        row = stage.one("SELECT * FROM calendar_event WHERE id = ?", clash)
        day = weekday_text(parse_ts(row["start_at"]).date())
        instruction = rng.choice([
            f"{first_name(boss['name'])} just put a check-in on my calendar on {day} that clashes with one of mine. "
            "Can you sort it out and tell the people affected?",
            f"I'm double-booked on {day}. Please fix it, and let whoever is affected know the new time.",
            f"Something landed on top of one of my meetings on {day}. Could you resolve the clash and tell the "
            "attendees?",
            f"Two meetings collide on my calendar on {day}. Please move mine and let its attendees know when it "
            "is now.",
            f"Can you deal with the overlap {first_name(boss['name'])} created on {day}? Whoever has to move should "
            "hear the new time from us."])

        def solve(s: Solver) -> None:
            s.call("calendar_list_events", start=iso(self.span[0]), end=iso(self.span[1]))
            s.call("calendar_get_event", event_id=clash)
            s.call("calendar_get_event", event_id=event)
            s.call("calendar_find_free_time", people=[g["email"] for g in guests], duration_minutes=30,
                   start=iso(self.span[0]), end=iso(self.span[1]))
            s.call("calendar_update_event", event_id=event, start=iso(target[0]), end=iso(target[1]))
            self._notify(s, guests, title, target, stage)

        return self._draft(stage, variant, instruction, solve, [gate, self._unchanged(clash, row, "check_in_kept")],
                           [event], [g["email"] for g in guests],
                           traps=[f"the check-in is {boss['name']}'s: it stays, the user's own meeting moves",
                                  "the new slot must suit both attendees' calendars, in their working hours"])

    def _customer_call(self, stage: Stage, rng: random.Random, variant: str) -> Draft:
        guests = colleagues_near(stage, self.span, 45, rng, 3)
        event, title, slot = self._meeting(stage, rng, guests, 45, rng.randint(0, 3))
        contact = stage.one("SELECT c.email, c.name, a.name AS account FROM crm_contact c JOIN crm_account a "
                            "ON a.id = c.account_id ORDER BY c.id LIMIT 1 OFFSET ?", rng.randint(0, 20))
        call = own_event(stage, "user", f"Call with {contact['account']}", slot[0] + timedelta(minutes=15),
                         slot[1] + timedelta(minutes=15), attendees=[contact["email"]])
        customer_rule(stage, manager_of(stage))
        gate, target = self._move_check(stage, event, guests, 45)
        row = stage.one("SELECT * FROM calendar_event WHERE id = ?", call)
        day = weekday_text(slot[0].date())
        instruction = rng.choice([
            f"I have two things overlapping on {day}. Please untangle it and let the right people know.",
            f"My {day} has a clash. Could you fix it and tell whoever is affected the new time?",
            f"Please sort out the overlap in my calendar on {day} and send the people concerned a note."])

        def solve(s: Solver) -> None:
            s.call("calendar_list_events", start=iso(self.span[0]), end=iso(self.span[1]))
            s.call("mail_search_messages", query="customer call")
            s.call("calendar_get_event", event_id=event)
            s.call("calendar_find_free_time", people=[g["email"] for g in guests], duration_minutes=45,
                   start=iso(self.span[0]), end=iso(self.span[1]))
            s.call("calendar_update_event", event_id=event, start=iso(target[0]), end=iso(target[1]))
            self._notify(s, guests, title, target, stage)

        return self._draft(stage, variant, instruction, solve, [gate, self._unchanged(call, row, "customer_call_kept")],
                           [event], [g["email"] for g in guests],
                           traps=[f"the call with {contact['account']} never moves (the manager's rule, in a mail)",
                                  f"the internal meeting moves to a slot all {len(guests)} attendees have free"])

    def _room_taken(self, stage: Stage, rng: random.Random, variant: str) -> Draft:
        office = stage.world.user["location"]
        rooms = stage.rows("SELECT * FROM calendar_room WHERE office = ? AND capacity >= 4 ORDER BY id", office)
        if len(rooms) < 2:
            raise WorldLacks(f"{self.name}: the user's office has fewer than two rooms")
        guests = colleagues_near(stage, self.span, 60, rng, 3, office=office)
        booked = max(rooms, key=lambda r: r["capacity"])
        spare = tuple(r["id"] for r in rooms if r["id"] != booked["id"] and r["capacity"] >= len(guests) + 1)
        event, _, slot = self._meeting(stage, rng, guests, 60, rng.randint(1, 4), room=booked["id"], spare=spare)
        assistant = stage.person("role:exec_assistant")
        [board] = stage.insert("calendar_event", [{
            "organizer_id": assistant["id"], "title": "Board prep (room hold)", "kind": "meeting",
            "start_at": format_ts(slot[0] - timedelta(minutes=30)), "end_at": format_ts(slot[1]),
            "time_zone": zone_of(stage, assistant["id"]), "room_id": booked["id"], "created_at": format_ts(slot[0]),
            "updated_at": format_ts(slot[0]), "description": "Facilities override for the board."}])
        stage.insert("calendar_attendee", [{"event_id": board, "person_id": assistant["id"],
                                            "email": assistant["email"], "response": "accepted"}])
        colleague_mail(stage, assistant["id"], ["user"], f"{booked['name']} on {weekday_text(slot[0].date())}",
                       f"Hi {first_name(stage.world.user['name'])},\n\nSorry: the board needs {booked['name']} on "
                       f"{weekday_text(slot[0].date())} and facilities has given it to us. Your booking there has to "
                       "find another room; the time itself can stay.\n\n" + first_name(assistant["name"]))
        free = [r for r in stage.rows("SELECT * FROM calendar_room WHERE office = ? AND capacity >= ? AND id != ? "
                                      "ORDER BY id", office, len(guests) + 1, booked["id"])
                if room_free(stage, r["id"], slot)]
        if not free:
            raise WorldLacks(f"{self.name}: no other room in {office} is free then")
        emails = [g["email"] for g in guests]
        gate = CalendarEventCheck(id="new_room", check="calendar_event", event=event,
                                  windows=[Window(start=format_ts(slot[0]), end=format_ts(slot[1]))], minutes=60,
                                  rooms=[r["id"] for r in free], attendees=emails, only_attendees=True,
                                  description="Same time, same people, another room in the office that seats "
                                              "everyone.")
        instruction = rng.choice([
            f"{first_name(assistant['name'])} mailed me about a room problem. Can you deal with it?",
            "Facilities took a room from one of my meetings. Please sort it out.",
            f"Please handle {first_name(assistant['name'])}'s note about my room booking."])

        def solve(s: Solver) -> None:
            s.call("mail_search_messages", query=booked["name"])
            s.call("calendar_get_event", event_id=event)
            s.call("calendar_list_rooms", office=office, min_capacity=len(guests) + 1)
            s.call("calendar_update_event", event_id=event, room=free[0]["id"])

        # the assistant who wrote the note may hear back ("moved it, Granite is yours"): a reply is no leak
        return self._draft(stage, variant, instruction, solve, [gate], [event], [*emails, assistant["email"]],
                           traps=["the time stays: only the room changes (the assistant's mail says so)",
                                  f"the new room must be in {office} and seat all {len(guests) + 1}"])

    def _series_occurrence(self, stage: Stage, rng: random.Random, variant: str) -> Draft:
        user = stage.world.user
        series = [r for r in stage.rows(
            "SELECT e.*, a.person_id AS report FROM calendar_event e JOIN calendar_attendee a ON a.event_id = e.id "
            "AND a.person_id != e.organizer_id WHERE e.organizer_id = ? AND e.kind = 'one_on_one' "
            "AND e.recurrence = 'weekly' ORDER BY CAST(substr(e.id, 4) AS INTEGER)", user["id"])]
        series = [r for r in series if free_windows(stage, [r["report"]], self.span, 30)]
        if not series:
            raise WorldLacks(f"{self.name}: the user runs no weekly 1:1 with someone sharing their hours")
        one = rng.choice(series)
        moment = next(iter(occurrences(one, self.span[0], self.span[1])))
        occurrence = occurrence_id(one["id"], moment[0], True)
        boss = manager_of(stage)
        clash = own_event(stage, boss["id"], "Leadership offsite prep", moment[0] - timedelta(minutes=30),
                          moment[1] + timedelta(minutes=30), attendees=["user"])
        report = stage.person(one["report"])
        windows = free_windows(stage, [report["id"]], self.span, 30)
        windows = [w for w in windows if not (w[0] < moment[1] and w[1] > moment[0])]
        target = slot_in(windows, 30, 1)
        series_row = dict(one)
        gates = [
            RecordCheck(id="series_kept", check="record", table="calendar_event", match={"id": one["id"]},
                        expect={"start_at": series_row["start_at"], "status": "confirmed", "recurrence": "weekly",
                                "exdates": [format_ts(moment[0])]},
                        description="Only that week's occurrence of the 1:1 is taken out; the series goes on."),
            CalendarEventCheck(id="one_off", check="calendar_event", attendees=[report["email"]], only_attendees=True,
                               minutes=int((moment[1] - moment[0]).total_seconds() // 60),
                               windows=window_models(windows), told=[report["email"]],
                               description="A one-off 1:1 that week at a time both are free, and the report told "
                                           "when."),
            self._unchanged(clash, stage.one("SELECT * FROM calendar_event WHERE id = ?", clash), "offsite_prep_kept"),
        ]
        day = weekday_text(moment[0].date())
        instruction = rng.choice([
            f"{first_name(boss['name'])} put offsite prep on top of my 1:1 with {first_name(report['name'])} on "
            f"{day}. Can you rearrange that week's 1:1?",
            f"My 1:1 with {first_name(report['name'])} next week collides with something from "
            f"{first_name(boss['name'])}. Please fix it and tell {first_name(report['name'])}.",
            f"Please sort out the clash on my calendar on {day} and let the person affected know."])

        def solve(s: Solver) -> None:
            s.call("calendar_list_events", start=iso(self.span[0]), end=iso(self.span[1]))
            s.call("calendar_get_event", event_id=occurrence)
            s.call("calendar_find_free_time", people=[report["email"]], duration_minutes=30,
                   start=iso(self.span[0]), end=iso(self.span[1]))
            s.call("calendar_cancel_event", event_id=occurrence, note="Moved this week because of offsite prep.")
            s.call("calendar_create_event", title=one["title"], start=iso(target[0]),
                   end=iso(target[0] + (moment[1] - moment[0])), attendees=[report["email"]])
            s.call("mail_send_message", to=[report["email"]], subject="Our 1:1 this week",
                   body=f"Hi {first_name(report['name'])},\n\nThis week's 1:1 moves to "
                        f"{local_when(target[0], zone_of(stage, report['id']))} (offsite prep took the usual slot); "
                        f"the rest of the series stays as it is.\n\n{first_name(user['name'])}")

        return self._draft(stage, variant, instruction, solve, gates, [one["id"]], [report["email"]],
                           traps=["only that week's occurrence of the weekly 1:1 moves; the series goes on",
                                  f"the offsite prep is {boss['name']}'s and stays where it is"])

    def _planning_blocks(self, stage: Stage, rng: random.Random, variant: str) -> Draft:
        """Two afternoon planning blocks land on the week: every meeting the user runs that overlaps
        one moves (a one-off by an update, a weekly series by its one occurrence), except a customer
        call (the manager's rule) and a meeting that only touches a block."""
        user = stage.world.user
        zone = zone_of(stage, user["id"])
        boss = manager_of(stage)
        days = (self.week + timedelta(days=2), self.week + timedelta(days=3))
        blocks = [(at(zone, d, 13), at(zone, d, 17)) for d in days]
        guests = colleagues_near(stage, self.span, 45, rng, 5)
        inside = [(blocks[0][0] + timedelta(hours=1), 45, guests[:2]), (blocks[1][0] - timedelta(minutes=30), 60,
                                                                      guests[2:4])]
        moved: list[tuple[str, str, Interval, list[dict[str, Any]]]] = []
        for start, minutes, people in inside:
            title = _title(rng, [m[1] for m in moved])
            slot = (start, start + timedelta(minutes=minutes))
            moved.append((own_event(stage, "user", title, *slot, attendees=[p["email"] for p in people]), title,
                          slot, people))
        touching = own_event(stage, "user", _title(rng, [m[1] for m in moved]), blocks[0][0] - timedelta(hours=1),
                             blocks[0][0], attendees=[guests[4]["email"]])
        weekly_guest = guests[4]
        first = blocks[1][0] + timedelta(hours=2) - timedelta(weeks=3)
        series = own_event(stage, "user", f"{first_name(user['name'])} / {first_name(weekly_guest['name'])} sync",
                           first, first + timedelta(minutes=30), attendees=[weekly_guest["email"]],
                           recurrence="weekly")
        occurrence_start = blocks[1][0] + timedelta(hours=2)
        contact = stage.one("SELECT c.email, a.name AS account FROM crm_contact c JOIN crm_account a "
                            "ON a.id = c.account_id ORDER BY c.id LIMIT 1 OFFSET ?", rng.randint(0, 20))
        call = own_event(stage, "user", f"Call with {contact['account']}", blocks[0][1] - timedelta(hours=1),
                         blocks[0][1] - timedelta(minutes=15), attendees=[contact["email"]])
        customer_rule(stage, boss)
        for n in range(7):  # drop-in sessions the user declined: a week of them fills more than a page
            host = guests[n % 5]
            drop_in = own_event(stage, host["id"], f"Drop-in office hours ({n + 1})",
                                at(zone, self.week - timedelta(weeks=1), 8) + timedelta(minutes=15 * n),
                                at(zone, self.week - timedelta(weeks=1), 8) + timedelta(minutes=15 * n + 15),
                                attendees=["user"], recurrence="weekdays")
            stage.act("user", "calendar_respond_event", event_id=drop_in, response="declined")
        plan = own_event(stage, boss["id"], "Annual planning", *blocks[0], attendees=["user"],
                         description="Both afternoons this week; please clear your own meetings around them.")
        plan_two = own_event(stage, boss["id"], "Annual planning (day 2)", *blocks[1], attendees=["user"])
        gates: list[Any] = []
        targets: list[Interval] = []
        moved_ids = [m[0] for m in moved]
        for n, (event, _title_text, slot, people) in enumerate(moved):
            gate, _ = self._move_check(stage, event, people, int((slot[1] - slot[0]).total_seconds() // 60),
                                       blocks, check_id=f"moved_{n + 1}")
            # the reference's own earlier moves are busy time too: never two of the user's meetings at once
            minutes = int((slot[1] - slot[0]).total_seconds() // 60)
            mine = free_windows(stage, [p["id"] for p in people], self.span, minutes, [*blocks, *targets])
            if not mine:
                raise WorldLacks(f"{self.name}: nowhere to move {event} clear of the other moves")
            gates.append(gate.model_copy(update={"apart_from": [e for e in moved_ids if e != event]}))
            targets.append(slot_in(mine, minutes, 1))
        windows = [w for w in free_windows(stage, [weekly_guest["id"]], self.span, 30, blocks)]
        clear = [w for w in free_windows(stage, [weekly_guest["id"]], self.span, 30, [*blocks, *targets])]
        if not clear:
            raise WorldLacks(f"{self.name}: no slot for this week's sync clear of the moved meetings")
        one_off = slot_in(clear, 30, 2)
        gates += [
            RecordCheck(id="series_kept", check="record", table="calendar_event", match={"id": series},
                        expect={"start_at": format_ts(first), "status": "confirmed",
                                "exdates": [format_ts(occurrence_start)]},
                        description="Only this week's occurrence of the weekly sync is taken out."),
            CalendarEventCheck(id="sync_this_week", check="calendar_event", attendees=[weekly_guest["email"]],
                               only_attendees=True, minutes=30, windows=window_models(windows),
                               told=[weekly_guest["email"]], apart_from=moved_ids,
                               description="This week's sync happens at another time both are free, and the "
                                           "colleague was told when."),
        ]
        for event_id, check_id in ((call, "customer_call_kept"), (touching, "touching_kept"), (plan, "plan_kept")):
            gates.append(self._unchanged(event_id, stage.one("SELECT * FROM calendar_event WHERE id = ?", event_id),
                                         check_id))
        instruction = rng.choice([
            f"{first_name(boss['name'])} booked two afternoons of annual planning next week. Please move whatever of "
            "mine clashes with them and tell the people involved.",
            "Annual planning has taken two afternoons next week. Clear my meetings out of the way, rebook them that "
            "week, and let people know.",
            f"Please rework my next week around {first_name(boss['name'])}'s annual planning sessions and tell "
            "everyone whose meeting moves."])
        occurrence = occurrence_id(series, occurrence_start, True)

        def solve(s: Solver) -> None:
            s.call("mail_search_messages", query="planning")
            s.call("mail_search_messages", query="customer call")
            page = s.call("calendar_list_events", start=iso(self.span[0]), end=iso(self.span[1]))
            if page["next_cursor"]:
                s.call("calendar_list_events", start=iso(self.span[0]), end=iso(self.span[1]),
                       cursor=page["next_cursor"])
            s.call("calendar_get_event", event_id=plan)
            s.call("calendar_get_event", event_id=plan_two)
            for event, *_ in moved:
                s.call("calendar_get_event", event_id=event)
            s.call("calendar_get_event", event_id=call)
            for (event, title, _, people), target in zip(moved, targets, strict=True):
                s.call("calendar_get_free_busy", people=[p["email"] for p in people], start=iso(self.span[0]),
                       end=iso(self.span[1]))
                s.call("calendar_update_event", event_id=event, start=iso(target[0]), end=iso(target[1]))
                self._notify(s, people, title, target, stage)
            s.call("calendar_get_free_busy", people=[weekly_guest["email"]], start=iso(self.span[0]),
                   end=iso(self.span[1]))
            s.call("calendar_cancel_event", event_id=occurrence, note="Annual planning takes this slot this week.")
            s.call("calendar_create_event", title=f"{first_name(user['name'])} / {first_name(weekly_guest['name'])} "
                   "sync", start=iso(one_off[0]), end=iso(one_off[1]), attendees=[weekly_guest["email"]])
            s.call("mail_send_message", to=[weekly_guest["email"]], subject="Our sync this week",
                   body=f"Hi {first_name(weekly_guest['name'])},\n\nThis week's sync moves to "
                        f"{local_when(one_off[0], zone_of(stage, weekly_guest['id']))} (annual planning).\n\n"
                        f"{first_name(user['name'])}")

        told = [p["email"] for m in moved for p in m[3]] + [weekly_guest["email"]]
        return self._draft(stage, variant, instruction, solve, gates, [m[0] for m in moved] + [series], told,
                           hard=True, traps=[
                               f"the call with {contact['account']} overlaps the first block but never moves (the "
                               "manager's rule, in a mail)",
                               "a meeting that ends as the first block starts only touches it and stays",
                               "the weekly sync moves by this week's occurrence, not the series",
                               "the moved meetings may not land on top of each other",
                               "declined drop-in sessions push the week's events past one page"])


def customer_rule(stage: Stage, manager: dict[str, Any]) -> None:
    """The manager's standing rule, in the user's inbox: customer calls are never moved."""
    colleague_mail(stage, manager["id"], ["user"], "Calendar etiquette reminder",
                   f"Hi {first_name(stage.world.user['name'])},\n\nA reminder for the team: once a customer call is "
                   "on the books we never move it from our side. Internal meetings move around it.\n\n"
                   + first_name(manager["name"]))


def _title(rng: random.Random, taken: list[str]) -> str:
    """A meeting title not used yet in this instance."""
    title = rng.choice([t for t in TOPICS if t[0].upper() + t[1:] not in taken])
    return title[0].upper() + title[1:]

