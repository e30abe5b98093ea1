"""Scheduling a meeting across offices, time zones, rooms and what colleagues said in their mail.

The grader holds the constraints (the windows in which everyone is free inside their working
hours and outside what they ruled out, the people, the length, the room), so every valid slot
passes, not only the reference's.  The hard tier drops ``calendar_find_free_time``: the agent
reads each person's free/busy, time zone and hours and works the overlap out itself, in the
week after Europe leaves summer time while North America has not yet (the usual offsets are
one hour off).
"""

from __future__ import annotations

import random
from datetime import time, timedelta
from typing import Any

from officesim.apps.calendar.timing import occurrences
from officesim.grading.calendar_checks import CalendarEventCheck
from officesim.taskgen.base import Draft, Family, Solver, Stage, WorldLacks
from officesim.taskgen.calendar_kit import (
    Interval,
    begin,
    by_office,
    calendar_and_mail_only,
    calendar_guards,
    daily_block,
    free_windows,
    iso,
    local_days,
    local_when,
    monday_after,
    own_event,
    quarter_slots,
    slot_in,
    today,
    weekday_text,
    window_models,
    zone_of,
)
from officesim.taskgen.common import colleague_mail, first_name, mail_guards, toolset

REQUESTERS = ("role:cfo", "role:head_of_engineering", "role:marketing_lead", "role:hr_lead", "role:cs_lead",
              "role:legal_counsel", "role:controller", "role:ceo")
TOPICS = ("vendor shortlist review", "Q1 hiring plan", "pricing page refresh", "onboarding revamp",
          "security questionnaire walkthrough", "partner programme kickoff", "budget reforecast",
          "support tooling review", "data retention policy", "office move planning")
SCHEDULE_TOOLS = toolset(["calendar", "mail", "directory"],
                         writes=["calendar_create_event", "calendar_update_event", "mail_send_message",
                                 "mail_reply_message", "mail_reply_all"],
                         distractors=["calendar", "mail"])
HARD_TOOLS = [t for t in SCHEDULE_TOOLS if t != "calendar_find_free_time"]


def room_free(stage: Stage, room_id: str, slot: Interval) -> bool:
    """Whether no confirmed booking of ``room_id`` overlaps ``slot``."""
    for booking in stage.rows("SELECT * FROM calendar_event WHERE room_id = ? AND status = 'confirmed'", room_id):
        if any(a < slot[1] and b > slot[0] for a, b in occurrences(booking, slot[0], slot[1])):
            return False
    return True


class _Plan:
    """One scheduling scenario as the build works it out."""

    def __init__(self, requester: dict[str, Any], guests: list[dict[str, Any]], minutes: int, first_day: Any,
                 days: int = 5) -> None:
        self.requester = requester
        self.guests = guests
        self.minutes = minutes
        self.first_day = first_day
        self.days = days
        self.blocked: list[Interval] = []
        self.exclude: list[dict[str, Any]] = []
        self.rooms: list[dict[str, Any]] | None = None

    @property
    def people(self) -> list[dict[str, Any]]:
        return [self.requester, *self.guests]


class ScheduleMeeting(Family):
    """Book a meeting for several colleagues across offices and time zones, keeping to every constraint."""

    name = "schedule_meeting"
    skills = ("scheduling", "cross_app_join", "reconciliation")
    category = "calendar"
    difficulty = "medium"
    apps = ("calendar", "mail", "directory")
    variants = ("two-offices", "three-zones", "room-in-office", "out-of-office", "stated-preference",
                "dst-correction")
    worlds = ("acme", "counsel", "forge", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        user = begin(stage)
        plan = self._plan(stage, variant, rng)
        topic = rng.choice(TOPICS)
        requester = plan.requester
        hello = first_name(user["name"])
        sign = first_name(requester["name"])
        names = ", ".join(g["name"] for g in plan.guests)
        week = weekday_text(plan.first_day)
        length = {30: "half an hour", 45: "45 minutes", 60: "an hour"}[plan.minutes]
        body = (f"Hi {hello},\n\nCould you find {length} next week for the {topic}? It should be me, {names}. "
                "Please send the invite from your calendar.\n\nThanks,\n" + sign)
        if variant == "room-in-office":
            body = (f"Hi {hello},\n\nCould you book {length} next week for the {topic}, in person at our "
                    f"{requester['location']} office? It should be me, {names}; please put it in a room there "
                    "that fits all of us.\n\nThanks,\n" + sign)
        if variant == "dst-correction":
            body = (f"Hi {hello},\n\nCould you set up 45 minutes in the week of {week} for the {topic}? It should be "
                    f"me, {names}.\n\nThanks,\n" + sign)
        request = colleague_mail(stage, requester["id"], ["user"], f"Scheduling: {topic}", body,
                                 cc=[g["email"] for g in plan.guests])
        self._plant_twists(stage, variant, plan, request, rng)
        span = local_days(zone_of(stage, user["id"]), plan.first_day, plan.days)
        windows = free_windows(stage, [p["id"] for p in plan.people], span, plan.minutes, plan.blocked)
        if not windows:
            raise WorldLacks(f"{self.name}: no common free time for the planned people")
        slot = slot_in(windows, plan.minutes, rng.randint(0, 2))
        room = None
        if plan.rooms is not None:
            choice = [(s, r) for s in quarter_slots(windows, plan.minutes) for r in plan.rooms
                      if room_free(stage, r["id"], s)]
            if not choice:
                raise WorldLacks(f"{self.name}: no room free in the common free time")
            slot, room = choice[0]
        hard = variant == "dst-correction"
        instruction = self._instruction(rng, variant, requester, topic)
        emails = [p["email"] for p in plan.people]

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query=topic)
            thread = found["messages"][0]["thread_id"]
            s.call("mail_get_thread", thread_id=thread)
            start, end = iso(span[0]), iso(span[1])
            if hard:
                for person in plan.people:
                    s.call("directory_search_people", query=first_name(person["name"]))
                for person in plan.exclude:
                    s.call("directory_get_person", person=person["email"])
                s.call("calendar_get_free_busy", people=emails, start=start, end=end)
                s.call("calendar_list_events", start=start, end=end, limit=100)
            else:
                s.call("calendar_find_free_time", people=emails, duration_minutes=plan.minutes, start=start, end=end)
            if room is not None:
                s.call("calendar_list_rooms", office=requester["location"], min_capacity=len(emails) + 1)
            arguments: dict[str, Any] = {"title": topic[0].upper() + topic[1:], "start": iso(slot[0]),
                                         "end": iso(slot[1]), "attendees": emails}
            if room is not None:
                arguments["room"] = room["id"]
            s.call("calendar_create_event", **arguments)
            when = local_when(slot[0], zone_of(stage, requester["id"]))
            s.call("mail_reply_message", message_id=request["id"],
                   body=f"Hi {sign},\n\nDone: the {topic} is booked for {when}"
                        f"{' in ' + room['name'] if room else ''}; everyone has the invite.\n\nBest,\n{hello}")

        people_refs = [p["email"] for p in plan.people]
        time_check = dict(windows=window_models(windows), minutes=plan.minutes)
        criteria: list[Any] = [
            CalendarEventCheck(id="right_people", check="calendar_event", points=2, attendees=people_refs,
                               only_attendees=True, exclude=[p["email"] for p in plan.exclude],
                               description="The invite goes to exactly the people asked for (as the thread "
                                           "finally settled them)."),
            CalendarEventCheck(id="right_time", check="calendar_event", points=3, **time_check,
                               description="The meeting has the length asked for and falls where everyone is free, "
                                           "inside everyone's working hours and outside what they ruled out."),
        ]
        if plan.rooms is not None:
            criteria.append(CalendarEventCheck(id="right_room", check="calendar_event", points=1,
                                               rooms=[r["id"] for r in plan.rooms],
                                               description="A room in the requested office that seats everyone."))
        criteria += [*calendar_guards(), *mail_guards(people_refs, keep=[request["id"]])]
        return Draft(
            instruction=instruction, tools=HARD_TOOLS if hard else SCHEDULE_TOOLS, traps=self._traps(variant, plan),
            gates=[CalendarEventCheck(id="meeting_booked", check="calendar_event", attendees=people_refs,
                                      only_attendees=True, exclude=[p["email"] for p in plan.exclude],
                                      told=[requester["email"]], rooms=[r["id"] for r in plan.rooms] if plan.rooms
                                      else None, **time_check,
                                      description="Exactly one new meeting meeting every constraint, and the "
                                                  "requester told by mail the day and time it is booked for."),
                   calendar_and_mail_only()],
            criteria=criteria, solve=solve, variant=variant, max_steps=40 if hard else 25,
            difficulty="hard" if hard else ("easy" if variant == "two-offices" else "medium"))

    @staticmethod
    def _traps(variant: str, plan: _Plan) -> list[str]:
        """What this instance's plan hides from a quick reading."""
        hours = "the slot must sit inside every guest's working hours in their own time zone"
        if variant == "room-in-office":
            return ["the room must be in the requester's office and seat everyone", hours]
        if variant == "out-of-office":
            return [f"{plan.guests[0]['name']} is out of office part of the week (an all-day event on their "
                    "calendar)", hours]
        if variant == "stated-preference":
            return [f"{plan.guests[-1]['name']} replied to the thread: no early mornings their time, and one day "
                    "out", hours]
        if variant == "dst-correction":
            dropped, twin = plan.exclude
            return [f"a later mail in the thread makes it an hour and swaps {dropped['name']} for "
                    f"{plan.guests[-1]['name']}",
                    f"{twin['name']} shares {first_name(plan.guests[-1]['name'])}'s first name in another "
                    "department and is not invited",
                    f"{plan.guests[0]['name']} can only start at 10:00 their time or later"]
        return [hours]

    # ------------------------------------------------------------------ the scenario
    def _plan(self, stage: Stage, variant: str, rng: random.Random) -> _Plan:
        user = stage.world.user
        week = monday_after(today(stage), 3 if variant == "dst-correction" else 1)
        minutes = {"two-offices": 30, "three-zones": 45, "room-in-office": 60, "out-of-office": 45,
                   "stated-preference": 30, "dst-correction": 60}[variant]
        span = local_days(zone_of(stage, user["id"]), week, 5)
        for _ in range(30):
            requester = stage.person(rng.choice(REQUESTERS))
            if requester["id"] == user["id"] or requester["location"] == "Remote":
                continue
            offices = by_office(stage, exclude=[user["id"], requester["id"]])
            guests = self._guests(variant, requester, offices, rng)
            if guests is None:
                continue
            plan = _Plan(requester, guests, minutes, week)
            if variant == "room-in-office":
                plan.rooms = stage.rows("SELECT * FROM calendar_room WHERE office = ? AND capacity >= ? ORDER BY id",
                                        requester["location"], len(guests) + 2)
                if not plan.rooms:
                    continue
            if len(free_windows(stage, [p["id"] for p in plan.people], span, minutes)) >= 3:
                return plan
        raise WorldLacks(f"{self.name}: no set of colleagues with enough common working hours for {variant}")

    @staticmethod
    def _guests(variant: str, requester: dict[str, Any], offices: dict[str, list[dict[str, Any]]],
                rng: random.Random) -> list[dict[str, Any]] | None:
        elsewhere = [o for o in sorted(offices) if o != requester["location"]]
        if variant == "room-in-office":
            pool = offices.get(requester["location"], [])
            return rng.sample(pool, 3) if len(pool) >= 3 else None
        count = {"two-offices": 1, "three-zones": 3, "out-of-office": 2, "stated-preference": 2,
                 "dst-correction": 3}[variant]
        if len(elsewhere) < min(count, 2):
            return None
        chosen_offices = rng.sample(elsewhere, min(count, len(elsewhere)))
        while len(chosen_offices) < count:
            chosen_offices.append(rng.choice(elsewhere))
        guests: list[dict[str, Any]] = []
        for office in chosen_offices:
            pool = [p for p in offices[office] if p not in guests]
            if not pool:
                return None
            guests.append(rng.choice(pool))
        return guests

    def _plant_twists(self, stage: Stage, variant: str, plan: _Plan, request: dict[str, Any],
                      rng: random.Random) -> None:
        """What the instruction does not say: leave, preferences, a correction, a namesake."""
        if variant == "out-of-office":
            away = plan.guests[0]
            zone = zone_of(stage, away["id"])
            start_day = plan.first_day + timedelta(days=rng.choice((0, 1)))
            days = rng.choice((2, 3))
            first, last = local_days(zone, start_day, days)
            own_event(stage, away["id"], "Out of office", first, last, all_day=True,
                      description="Annual leave; back after.")
        if variant == "stated-preference":
            picky = plan.guests[-1]
            zone = zone_of(stage, picky["id"])
            cutoff = rng.choice((11, 12))
            free_day = plan.first_day + timedelta(days=rng.choice((0, 4)))
            stage.act(picky["id"], "mail_reply_all", message_id=request["id"],
                      body=f"Happy to join. Two things: nothing before {cutoff}:00 my time please (I am on the floor "
                           f"every morning), and I am out all of {weekday_text(free_day)}.\n\n"
                           f"{first_name(picky['name'])}")
            plan.blocked += daily_block(zone, plan.first_day, plan.days, time(0), time(cutoff))
            plan.blocked.append(local_days(zone, free_day, 1))
        if variant == "dst-correction":
            self._correction(stage, plan, request, rng)

    def _correction(self, stage: Stage, plan: _Plan, request: dict[str, Any], rng: random.Random) -> None:
        """The requester changes the plan later in the thread: an hour, one person swapped for a
        colleague named by first name and department (a namesake elsewhere must not be invited);
        and a guest who cannot start early in their own zone."""
        dropped = plan.guests.pop(0)
        taken = {p["id"] for p in [*plan.people, dropped, stage.world.user]}
        pairs = stage.rows(
            "SELECT a.*, d.name AS department, b.id AS twin_id FROM directory_person a JOIN directory_person b "
            "ON substr(a.name, 1, instr(a.name, ' ')) = substr(b.name, 1, instr(b.name, ' ')) AND a.id != b.id "
            "AND a.department_id != b.department_id JOIN directory_department d ON d.id = a.department_id "
            "WHERE a.role IS NULL AND a.location != 'Remote' ORDER BY CAST(substr(a.id, 3) AS INTEGER)")
        pairs = [p for p in pairs if p["id"] not in taken and p["twin_id"] not in taken
                 and zone_of(stage, p["id"]) != "Asia/Singapore"]
        if not pairs:
            raise WorldLacks(f"{self.name}: no two colleagues share a first name across departments")
        added = rng.choice(pairs)
        twin = stage.person(added["twin_id"])
        plan.guests.append(stage.person(added["id"]))
        plan.exclude = [dropped, twin]
        early = plan.guests[0]
        zone = zone_of(stage, early["id"])
        stage.act(early["id"], "mail_reply_all", message_id=request["id"],
                  body=f"Works for me as long as it starts at 10:00 my time or later.\n\n{first_name(early['name'])}")
        stage.act(plan.requester["id"], "mail_reply_all", message_id=request["id"],
                  body=f"Change of plan: please make it a full hour, and {first_name(dropped['name'])} has moved to "
                       f"another project, so leave them out and invite {first_name(added['name'])} from "
                       f"{added['department']} instead.\n\n{first_name(plan.requester['name'])}")
        plan.blocked += daily_block(zone, plan.first_day, plan.days, time(0), time(10))

    @staticmethod
    def _instruction(rng: random.Random, variant: str, requester: dict[str, Any], topic: str) -> str:
        who = first_name(requester["name"])
        texts = {
            "two-offices": [f"{who} asked me to set up the {topic}. Can you find a time and send the invite?",
                            f"Please book the {topic} meeting {who} mailed me about.",
                            f"Could you sort out the {topic} slot {who} wants? Invite everyone and let {who} "
                            "know."],
            "three-zones": [f"{who} needs the {topic} scheduled with people in a few offices. Find a time that works "
                            "for all of them and send the invite.",
                            f"Can you get the {topic} on everyone's calendar? {who}'s mail has who should come.",
                            f"Please handle {who}'s scheduling request for the {topic}."],
            "room-in-office": [f"{who} wants an in-person {topic}. Please book it, room included.",
                               f"Could you set up the {topic} {who} asked for, with a room?",
                               f"Please take care of {who}'s {topic} booking."],
            "out-of-office": [f"Please schedule the {topic} {who} asked me about.",
                              f"{who} mailed me about a {topic} meeting; can you find a slot and invite everyone?",
                              f"Could you book {who}'s {topic}? Make sure everyone can actually attend."],
            "stated-preference": [f"Please book the {topic} {who} asked for, taking into account what people "
                                  "replied.",
                                  f"{who} wants the {topic} scheduled; can you handle it?",
                                  f"Could you set up the {topic} from {who}'s thread?"],
            "dst-correction": [f"{who} asked me to schedule the {topic}. Please book it and confirm to {who}.",
                               f"Can you take care of the {topic} scheduling thread from {who}? Book it and let them "
                               "know.",
                               f"Please get {who}'s {topic} meeting on the calendar."],
        }
        close = rng.choice([f" Let {who} know when it is.", f" Then tell {who} the time.",
                            f" {who} will want to hear back with the time.", " Reply with the time once it is booked."])
        text = rng.choice(texts[variant])
        return text if "know" in text or "confirm" in text else text + close


