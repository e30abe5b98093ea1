"""Colleagues who answer, and things that happen while the agent works.

A task may script colleagues: when the agent mails or DMs one of them (optionally about given
words), they answer after a delay on the simulated clock — with a fact only they hold, a question
back, a refusal, a delegation — one scripted reply per message, the last one repeating; a colleague
who is out of office answers every message at once with an auto-reply and nothing else.  Timed
events (a new mail at 10:30, an approval withdrawn) are setup steps that run once the clock passes
their moment.

Time moves with the agent: every step costs ``STEP_MINUTES`` of simulated time, and the built-in
``wait`` tool lets it pass on purpose.  Everything is a pure function of the task, the start state
and the agent's calls, so episodes replay exactly; ``log`` says who said what, and when.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from officesim.clock import format_ts, parse_ts
from officesim.person_refs import person_id
from officesim.schema_sql import CHANGES_TABLE
from officesim.task_setup import SetupStep, apply_setup

if TYPE_CHECKING:
    from officesim.world import World

STEP_MINUTES = 1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Reply(_Strict):
    """One scripted answer of a colleague."""

    text: str = Field(min_length=1, max_length=5000, description="What the colleague writes back.")
    after_minutes: int = Field(15, ge=0, le=7 * 24 * 60, description="Simulated minutes until the answer arrives.")
    via: Literal["same", "mail", "dm"] = Field("same", description="same: as the agent wrote (mail reply or DM).")


class Colleague(_Strict):
    """How one colleague answers the agent."""

    person: str = Field(description="Who: role:<key>, p_<n> or an email.")
    channel: Literal["any", "mail", "dm"] = Field("any", description="Which of the agent's messages they answer.")
    about: list[str] = Field(default_factory=list, max_length=20,
                             description="Words one of which the agent's message must contain (case-insensitive); "
                                         "empty: any message.")
    replies: list[Reply] = Field(default_factory=list, max_length=20,
                                 description="The answer to the 1st, 2nd, ... message; the last one repeats.")
    out_of_office: str | None = Field(None, max_length=2000,
                                      description="An auto-reply sent at once to every message instead of replies.")


class TimedEvent(_Strict):
    """Setup steps that run once the simulated clock passes a moment of the episode."""

    after_minutes: int = Field(ge=0, le=7 * 24 * 60, description="Minutes after the episode starts.")
    steps: list[SetupStep] = Field(min_length=1, description="What happens then (setup steps).")


class Office:
    """The colleagues and timed events of one episode: what is due, what was said."""

    def __init__(self, colleagues: list[Colleague], events: list[TimedEvent], world: World, *,
                 history: frozenset[str] | None = None) -> None:
        self.colleagues = colleagues
        self.events = sorted(events, key=lambda e: e.after_minutes)
        self.start = world.now()
        self.people = [person_id(world, c.person) for c in colleagues]
        self.emails = [world.person(p)["email"] for p in self.people]
        self.heard = [0] * len(colleagues)  # messages each colleague received from the agent
        self.pending: list[dict[str, Any]] = []  # replies on their way: due, colleague, how to answer
        self.fired = 0  # timed events that ran
        # the agent's messages already looked at: what the user sent before the episode (in setup or
        # the generated world) is history, not a question to answer.  It depends on the start state
        # alone, so an env passes the ``history`` it worked out for the task's first episode.
        self.seen: set[str] = set(self.history(world) if history is None else history)
        self.log: list[dict[str, Any]] = []

    @property
    def active(self) -> bool:
        return bool(self.colleagues or self.events)

    def after_step(self, world: World, *, minutes: int = STEP_MINUTES) -> None:
        """Let ``minutes`` pass, noticing the agent's new messages and delivering what fell due."""
        self._notice(world)
        deadline = world.now() + timedelta(minutes=minutes)
        while True:
            due = self._next_due()
            if due is None or due > deadline:
                break
            if due > world.now():
                world.set_clock(due)
            self._run_due(world)
            self._notice(world)  # an auto-reply cannot trigger anything, but a timed mail might be read next
        if deadline > world.now():
            world.set_clock(deadline)

    # ------------------------------------------------------------------------ internals
    def _next_due(self) -> Any:
        times = [parse_ts(p["due"]) for p in self.pending]
        if self.fired < len(self.events):
            times.append(self.start + timedelta(minutes=self.events[self.fired].after_minutes))
        return min(times) if times else None

    def _run_due(self, world: World) -> None:
        now = world.now()
        while self.fired < len(self.events) and self.start + timedelta(
                minutes=self.events[self.fired].after_minutes) <= now:
            event = self.events[self.fired]
            self.fired += 1
            apply_setup(world, list(event.steps), source=f"events[{self.fired - 1}]")
            self.log.append({"at": format_ts(now), "event": self.fired - 1})
        for reply in [p for p in self.pending if parse_ts(p["due"]) <= now]:
            self.pending.remove(reply)
            self._deliver(world, reply)

    def history(self, world: World) -> frozenset[str]:
        """The keys of every message the user has sent to a scripted colleague in ``world`` so far."""
        return frozenset(key for key, *_ in self._messages(world))

    def _notice(self, world: World) -> None:
        """Schedule answers to the agent's messages to scripted colleagues not looked at yet.

        Only messages the change log touched since the episode began are read: one it did not
        touch is as it was at the start, so it is already in ``seen`` when it counts at all (the
        log is cleared at the start state, which is where ``seen`` was taken).
        """
        for key, channel, text, target in self._messages(world, changed_only=True):
            if key in self.seen:
                continue
            self.seen.add(key)
            index = int(key.rsplit(":", 1)[1])
            self._heard(world, index, channel, text, target)

    def _messages(self, world: World, *, changed_only: bool = False) -> list[tuple[str, str, str, str]]:
        """The user's sent mail and DMs to scripted colleagues: (key, channel, text, reply target).

        ``changed_only``: only rows in the world's change log (inserted or updated since it was cleared).
        """
        me = world.user_id
        mine = world.user["email"]

        def rows_of(table: str) -> str:
            # With ``changed_only`` the change log drives the query (CROSS JOIN keeps it first): a
            # handful of rows, instead of every message the user ever sent.
            if changed_only:
                return f"{CHANGES_TABLE} x CROSS JOIN {table} m ON m.id = x.id AND x.tbl = '{table}'"
            return f"{table} m"

        found: list[tuple[str, str, str, str]] = []  # (key, channel, text, reply target)
        for row in world.db.execute(
                f"SELECT m.id, m.\"to\", m.cc, m.subject, m.body FROM {rows_of('mail_message')} "
                "WHERE m.sender = ? AND m.status = 'sent' ORDER BY m.sent_at, m.id", (mine,)):
            for index, email in enumerate(self.emails):
                if email in json.loads(row["to"]) + json.loads(row["cc"]):
                    found.append((f"mail:{row['id']}:{index}", "mail", f"{row['subject']}\n{row['body']}", row["id"]))
        for row in world.db.execute(
                f"SELECT m.id, m.text, c.name FROM {rows_of('chat_message')} "
                "JOIN chat_channel c ON c.id = m.channel_id WHERE m.author_id = ? AND c.kind = 'dm' "
                "ORDER BY m.posted_at, m.id", (me,)):
            for index, person in enumerate(self.people):
                if person in row["name"].split("-")[1:] and person != me:
                    found.append((f"dm:{row['id']}:{index}", "dm", row["text"], person))
        return found

    def _heard(self, world: World, index: int, channel: str, text: str, target: str) -> None:
        colleague = self.colleagues[index]
        if colleague.channel not in ("any", channel):
            return
        if colleague.about and not any(word.lower() in text.lower() for word in colleague.about):
            return
        now = world.now()
        if colleague.out_of_office is not None:
            self.pending.append({"due": format_ts(now), "colleague": index, "via": channel, "target": target,
                                 "text": colleague.out_of_office, "auto": True})
            return
        if not colleague.replies:
            return
        reply = colleague.replies[min(self.heard[index], len(colleague.replies) - 1)]
        self.heard[index] += 1
        via = channel if reply.via == "same" else reply.via
        self.pending.append({"due": format_ts(now + timedelta(minutes=reply.after_minutes)), "colleague": index,
                             "via": via, "target": target if via == channel else "", "text": reply.text,
                             "auto": False})

    def _deliver(self, world: World, reply: dict[str, Any]) -> None:
        index = reply["colleague"]
        person, user = self.people[index], world.user_id
        with world.acting_as(person):
            if reply["via"] == "mail" and reply["target"]:
                result = world.call("mail_reply_message", {"message_id": reply["target"], "body": reply["text"]})
            elif reply["via"] == "mail":
                result = world.call("mail_send_message", {"to": [user], "subject": "Re: your message",
                                                          "body": reply["text"]})
            else:
                result = world.call("chat_send_dm", {"person": user, "text": reply["text"]})
        self.log.append({"at": world.now_ts(), "from": self.emails[index], "via": reply["via"],
                         "text": reply["text"], "auto_reply": reply["auto"], "ok": "error" not in result})
