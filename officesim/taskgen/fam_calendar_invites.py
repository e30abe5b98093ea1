"""Answering pending invitations by the rules a colleague wrote down: decline what clashes with a
meeting already accepted (saying why), tentative for what the rules say, accept the rest.

The right answer for each invitation is computed from the calendar at the start (what the user had
already accepted or runs), so the trap meetings are real ones: an overlap with a meeting the user
declined or only tentatively accepted is no clash, an invitation outside the window is not to be
answered, and in the hard tier a later mail changes one rule.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from officesim.apps.calendar.availability import events_of
from officesim.grading.record_checks import ChangedCheck, RecordCheck
from officesim.taskgen.base import Draft, Family, Solver, Stage, WorldLacks
from officesim.taskgen.calendar_kit import (
    Interval,
    at,
    begin,
    by_office,
    calendar_and_mail_only,
    calendar_guards,
    local_days,
    manager_of,
    monday_after,
    own_event,
    read_all_events,
    today,
    weekday_text,
    zone_of,
)
from officesim.taskgen.common import READ_MARKS, colleague_mail, first_name, toolset
from officesim.taskgen.fam_calendar import TOPICS

TOOLS = toolset(["calendar", "mail", "directory"], writes=["calendar_respond_event", "mail_send_message"],
                distractors=["calendar", "mail"])
LARGE = 8


@dataclass
class Invite:
    """One planted or pending invitation and the answer the rules give it."""

    event_id: str
    title: str
    slot: Interval
    organizer: dict[str, Any]
    invited: int
    answer: str = "accepted"
    why: str = ""


class InvitationTriage(Family):
    """Answer next week's pending invitations by the written rules: decline clashes with a reason, tentative, accept."""

    name = "invitation_triage"
    skills = ("policy_application", "triage", "latest_instruction")
    category = "calendar"
    difficulty = "medium"
    apps = ("calendar", "mail", "directory")
    variants = ("clashes", "large-meetings", "other-departments", "out-of-office", "policy-update")
    worlds = ("acme", "counsel", "forge", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        user = begin(stage)
        zone = zone_of(stage, user["id"])
        weeks = 2 if variant == "policy-update" else 1
        week = monday_after(today(stage))
        span = local_days(zone, week, 7 * weeks - 2)
        self._settle_pending(stage, span)
        away: list[Interval] = []
        if variant == "out-of-office":
            first_off = week + timedelta(days=rng.choice((1, 3)))
            away = [local_days(zone, first_off, 1)]
            own_event(stage, "user", "Out of office", *away[0], all_day=True, description="Personal day.")
        if variant == "policy-update":
            self._filler(stage, week)
        invites = self._plant(stage, rng, variant, span, week, weeks)
        later = self._plant_later(stage, rng, week + timedelta(weeks=weeks))
        _, update = self._rules(stage, variant, user)
        for invite in invites:
            self._judge(stage, invite, variant, away, zone)
        needed = {"accepted", "declined"} | ({"tentative"} if variant not in ("clashes", "out-of-office") else set())
        if {i.answer for i in invites} != needed:
            raise WorldLacks(f"{self.name}: the planted invitations do not exercise every rule")
        window = "the next two weeks" if weeks == 2 else f"next week (from {weekday_text(week)})"
        writer = first_name(manager_of(stage, "role:exec_assistant")["name"])
        instruction = rng.choice([
            f"Please go through my pending calendar invitations for {window} and answer them the way my calendar "
            "rules say.",
            f"Could you answer the invitations waiting on my calendar for {window}? Follow the rules I was sent.",
            f"My invites for {window} need answers. Please handle them according to the calendar rules in my mail.",
            f"Can you work through the invitations I haven't answered for {window}? {writer} mailed me how to "
            "answer them.",
            *{"clashes": [f"A few invitations for {window} are still open. Sort them out per {writer}'s rules, "
                          "please."],
              "large-meetings": [f"Lots of invites came in for {window}. Can you answer them by the rules "
                                 f"{writer} sent me?"],
              "other-departments": [f"Other teams keep inviting me. Please answer what is pending for {window}, "
                                    f"the way {writer}'s rules say."],
              "out-of-office": [f"I'm out one day {window}. Please answer my open invitations for that week by "
                                "my calendar rules."],
              "policy-update": [f"Could you clear my pending invitations for {window}? {writer} sent the rules "
                                "(and later changed them)."]}[variant],
        ])

        def solve(s: Solver) -> None:
            s.call("mail_search_messages", query="calendar rules")
            if update is not None:
                s.call("mail_get_message", message_id=update)
            read_all_events(s, span)
            for invite in invites:
                s.call("calendar_get_event", event_id=invite.event_id)
            for invite in invites:
                extra = {"comment": invite.why} if invite.answer == "declined" else {}
                s.call("calendar_respond_event", event_id=invite.event_id, response=invite.answer, **extra)

        criteria: list[Any] = []
        for n, invite in enumerate(invites, 1):
            expect: dict[str, Any] = {"response": invite.answer}
            if invite.answer == "declined":
                expect["comment"] = {"not": ""}
            criteria.append(RecordCheck(
                id=f"answer_{n}", check="record", table="calendar_attendee", points=1,
                match={"event_id": invite.event_id, "person_id": "user"}, expect=expect,
                description=f"'{invite.title}' on {weekday_text(invite.slot[0].astimezone(ZoneInfo(zone)).date())} "
                            f"is answered {invite.answer}" + (" with a reason" if invite.answer == "declined" else "")
                            + " as the rules say."))
        accept_ids = [i.event_id for i in invites if i.answer != "declined"]
        clash_ids = [i.event_id for i in invites if i.answer == "declined"]
        criteria += [
            ChangedCheck(id="declined_wrongly", check="changed", points=-3, table="calendar_attendee", op="update",
                         match={"person_id": "user", "event_id": {"in": accept_ids}, "response": "declined"},
                         description="An invitation the rules accept was declined."),
            ChangedCheck(id="accepted_a_clash", check="changed", points=-3, table="calendar_attendee", op="update",
                         match={"person_id": "user", "event_id": {"in": clash_ids}, "response": "accepted"},
                         description="An invitation that clashes (or falls on a day off) was accepted."),
            *[g for g in calendar_guards(answered=[i.event_id for i in invites]) if g.id != "changed_other_events"],
        ]
        if later:
            criteria.append(ChangedCheck(id="answered_outside_window", check="changed", points=-3,
                                         table="calendar_attendee", op="update",
                                         match={"person_id": "user", "event_id": {"in": later}},
                                         description="An invitation outside the window was answered."))
        clashes = sum(i.why.startswith("Sorry, this clashes") for i in invites)
        traps = [f"{clashes} invitations overlap a meeting the user already accepted or runs: declined, with a reason",
                 "an invitation just after the window is pending too and is left unanswered"]
        traps += {
            "clashes": [],
            "large-meetings": [f"a big invitation (more than {LARGE} people) that clashes is declined, not tentative"],
            "other-departments": ["invitations from the user's own department are accepted, the others' tentative"],
            "out-of-office": ["invitations on the user's all-day 'Out of office' day are declined as out of office"],
            "policy-update": [
                "the later rules mail makes the all-hands an accept however big, and 16:00-or-later a tentative",
                "one invitation overlaps only a meeting the user declined or left tentative: no clash",
                f"a big invitation (more than {LARGE} people) that clashes is declined, not tentative"],
        }[variant]
        return Draft(
            instruction=instruction, tools=TOOLS, traps=traps,
            gates=[calendar_and_mail_only([{"calendar_attendee": ["response", "comment", "responded_at"]},
                                           READ_MARKS])],
            criteria=criteria, solve=solve, variant=variant, max_steps=60 if weeks == 2 else 35,
            difficulty="hard" if variant == "policy-update" else ("easy" if variant == "clashes" else "medium"))

    # ------------------------------------------------------------------ planting
    @staticmethod
    def _settle_pending(stage: Stage, span: Interval) -> None:
        """Invitations already pending in the window were answered before the task (accepted), so
        the pending ones are exactly those the family plants."""
        user_id = stage.world.user_id
        pending = {event["id"] for event, _ in events_of(stage.world, user_id, span[0], span[1])
                   if event["my_response"] == "needs_action" and event["organizer_id"] != user_id}
        for event_id in sorted(pending):
            stage.act("user", "calendar_respond_event", event_id=event_id, response="accepted")

    def _plant(self, stage: Stage, rng: random.Random, variant: str, span: Interval, week: Any,
               weeks: int) -> list[Invite]:
        user = stage.world.user
        zone = zone_of(stage, user["id"])
        offices = by_office(stage, exclude=[user["id"]])
        colleagues = [p for people in offices.values() for p in people]
        mine = [p for p in colleagues if p["department_id"] == user["department_id"]]
        others = [p for p in colleagues if p["department_id"] != user["department_id"]]
        if len(mine) < 2 or len(others) < 10:
            raise WorldLacks(f"{self.name}: too few colleagues in and outside the user's department")
        accepted = [(e, s) for e, s in events_of(stage.world, user["id"], span[0], span[1])
                    if (e["my_response"] == "accepted" or e["organizer_id"] == user["id"]) and not e["all_day"]]
        soft = [(e, s) for e, s in events_of(stage.world, user["id"], span[0], span[1])
                if e["my_response"] in ("declined", "tentative") and e["organizer_id"] != user["id"]]
        count = 12 if weeks == 2 else 6
        plans: list[tuple[str, int]] = []  # (kind of slot, invitees)
        plans += [("clash", 3), ("clash", LARGE + 3)] if variant in ("large-meetings", "policy-update") \
            else [("clash", 3), ("clash", 4)]
        if variant == "policy-update":
            plans += [("soft", 4), ("late", 3), ("late", LARGE + 2), ("free", LARGE + 4), ("ceo", LARGE + 6)]
        if variant == "large-meetings":
            plans += [("free", LARGE + 2), ("free", LARGE + 5)]
        if variant == "out-of-office":
            plans += [("away", 3), ("away", 5)]
        while len(plans) < count:
            plans.append(("free", rng.randint(2, 5)))
        taken: list[Interval] = [s for _, s in accepted]
        invites: list[Invite] = []
        days = [week + timedelta(days=d + 7 * w) for w in range(weeks) for d in range(5)]
        for kind, size in plans:
            slot = self._slot(stage, rng, kind, days, zone, accepted, soft, taken)
            if kind == "ceo":
                host = stage.person("role:ceo")
            elif variant == "other-departments":
                host = rng.choice(mine if len(invites) % 2 else others)
            else:
                host = rng.choice(others)
            pool = [p for p in colleagues if p["id"] != host["id"]]
            guests = ["user", *[p["email"] for p in rng.sample(pool, size - 1)]]
            title = "Company all-hands" if kind == "ceo" else _topic(rng, [i.title for i in invites])
            event = own_event(stage, host["id"], title, *slot, attendees=guests)
            invites.append(Invite(event, title, slot, host, size + 1))
            taken.append(slot)
        rng.shuffle(invites)
        return invites

    @staticmethod
    def _slot(stage: Stage, rng: random.Random, kind: str, days: list[Any], zone: str,
              accepted: list[tuple[Any, Interval]], soft: list[tuple[Any, Interval]],
              taken: list[Interval]) -> Interval:
        """A time for one invitation: over an accepted meeting ('clash'), over a declined or tentative
        one only ('soft'), late in the day ('late'), or clear of everything."""
        def clear(slot: Interval, avoid: list[Interval]) -> bool:
            return not any(a < slot[1] and b > slot[0] for a, b in avoid)

        options: list[Interval] = []
        if kind == "clash":
            options = [(s[0], s[0] + timedelta(minutes=30)) for _, s in accepted
                       if clear((s[0], s[0] + timedelta(minutes=30)), taken[len(accepted):])
                       and 9 <= s[0].astimezone(ZoneInfo(zone)).hour < 16]
        elif kind == "soft":
            options = [s for _, s in soft if clear(s, taken)]
        else:
            hours = (16, 16.5) if kind == "late" else (9.5, 10, 11, 13.5, 14, 15)
            for day in days:
                for hour in hours:
                    start = at(zone, day, int(hour), int(hour % 1 * 60))
                    slot = (start, start + timedelta(minutes=30))
                    if clear(slot, taken) and clear(slot, [s for _, s in soft]):
                        options.append(slot)
        if not options:
            raise WorldLacks(f"no time for a '{kind}' invitation")
        return rng.choice(options)

    def _plant_later(self, stage: Stage, rng: random.Random, day: Any) -> list[str]:
        """A pending invitation just after the window: not to be answered now."""
        host = stage.person(rng.choice(["role:cfo", "role:head_of_sales", "role:cs_lead"]))
        zone = zone_of(stage, stage.world.user_id)
        start = at(zone, day, 10)
        return [own_event(stage, host["id"], _topic(rng, []), start, start + timedelta(minutes=30),
                          attendees=["user"])]

    def _filler(self, stage: Stage, week: Any) -> None:
        """Drop-in sessions the user declined long ago: two weeks of them fill more than one page."""
        zone = zone_of(stage, stage.world.user_id)
        hosts = [p for people in by_office(stage, exclude=[stage.world.user_id]).values() for p in people][:6]
        for n, host in enumerate(hosts):
            first = at(zone, week - timedelta(weeks=2), 12) + timedelta(minutes=10 * n)
            event = own_event(stage, host["id"], f"Drop-in office hours ({n + 1})", first,
                              first + timedelta(minutes=10), attendees=["user"], recurrence="weekdays")
            stage.act("user", "calendar_respond_event", event_id=event, response="declined")

    def _rules(self, stage: Stage, variant: str, user: dict[str, Any]) -> tuple[str, str | None]:
        """Mail the rules from the user's assistant or manager; the hard tier's update later."""
        writer = manager_of(stage, "role:exec_assistant")
        hello, sign = first_name(user["name"]), first_name(writer["name"])
        lines = ["- Decline anything that overlaps a meeting you had already accepted or that you run, and say why "
                 "in the reply."]
        if variant in ("large-meetings", "policy-update"):
            lines.append(f"- Big meetings (more than {LARGE} people invited): tentative, unless they clash.")
        if variant == "other-departments":
            lines.append("- From your own department: accept. From other departments: tentative, unless they clash.")
        if variant == "out-of-office":
            lines.append("- Anything on a day you are out of office: decline, with a note that you are out.")
        lines.append("- Everything else: accept.")
        first = colleague_mail(stage, writer["id"], ["user"], "Your calendar rules",
                               f"Hi {hello},\n\nAs agreed, here are the calendar rules for your invitations:\n"
                               + "\n".join(lines) + f"\n\n{sign}")
        if variant != "policy-update":
            return first["id"], None
        update = colleague_mail(stage, writer["id"], ["user"], "Update to your calendar rules",
                                f"Hi {hello},\n\nTwo changes to the calendar rules: the company all-hands is always "
                                "an accept, however big; and anything starting at 16:00 or later your time is a "
                                f"tentative (unless it clashes). The rest stands.\n\n{sign}")
        return first["id"], update["id"]

    @staticmethod
    def _judge(stage: Stage, invite: Invite, variant: str, away: list[Interval], zone: str) -> None:
        """The answer the rules give ``invite``, from what the user had accepted or runs."""
        user = stage.world.user
        clash = any(e["id"] != invite.event_id and not e["all_day"] and
                    (e["my_response"] == "accepted" or e["organizer_id"] == user["id"])
                    for e, _ in events_of(stage.world, user["id"], *invite.slot))
        local = invite.slot[0].astimezone(ZoneInfo(zone))
        if any(a <= invite.slot[0] < b for a, b in away):
            invite.answer, invite.why = "declined", "Sorry, I am out of office that day."
        elif clash:
            invite.answer, invite.why = "declined", "Sorry, this clashes with a meeting I already have."
        elif variant == "policy-update" and invite.title == "Company all-hands":
            invite.answer = "accepted"
        else:
            late = variant == "policy-update" and (local.hour, local.minute) >= (16, 0)
            large = variant in ("large-meetings", "policy-update") and invite.invited > LARGE
            elsewhere = variant == "other-departments" and invite.organizer["department_id"] != user["department_id"]
            if late or large or elsewhere:
                invite.answer = "tentative"


INVITE_TOPICS = (*TOPICS, "Quarterly numbers preview", "Tooling demo", "Team lunch planning", "Hiring debrief",
                 "Process mapping session", "Customer feedback readout", "Release retro", "Roadmap Q&A")


def _topic(rng: random.Random, taken: list[str]) -> str:
    title = rng.choice([t for t in INVITE_TOPICS if t[0].upper() + t[1:] not in taken])
    return title[0].upper() + title[1:]

