"""Generate every mailbox: company announcements, customer and invoice mail, colleagues' threads.

Mail is generated last, so it can talk about the world the other apps made: CRM deals and invoices
(``gen_customers``), Drive files as attachments, and the directory's departments and roles.  Volume
follows ``size.mail_per_person``: internal conversations are added until employees have received
about that many messages each on average.  The acting user takes part in a good share of threads
(and has drafts), so the agent's own inbox looks like a real one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from officesim.apps.mail.attachments import file_copies
from officesim.apps.mail.gen_cast import Cast, load_cast
from officesim.apps.mail.gen_customers import customer_mail
from officesim.apps.mail.gen_mailroom import WINDOW_DAYS, Addr, Mailroom
from officesim.apps.mail.templates import (
    ANNOUNCEMENTS,
    CAMPAIGNS,
    CONCERNS,
    COST_LINES,
    DEPARTMENT_UPDATES,
    HOLIDAYS,
    PROJECTS,
    REASONS,
    RISKS,
    SYSTEMS,
    TOPICS,
    VENUES,
    Topic,
)
from officesim.clock import parse_ts
from officesim.industries import currency_scale

if TYPE_CHECKING:
    from officesim.worldgen import GenContext

_PROJECT = re.compile(r"^project (\w+)")
CITIES = ("New York", "London", "Austin", "Toronto", "Singapore", "Chicago", "Berlin", "Lisbon", "Denver")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
USER_SHARE = 5  # the acting user receives about this many times mail_per_person
DEPARTMENT_UPDATE_SHARE = 0.1  # of internal conversations
REF_PREFIXES = {"expenses": "EXP", "escalation": "TCK", "purchase_order": "PO", "matter": "MAT", "grant": "GR"}


class _AllBut(Sequence[str]):
    """``people`` without one person, without copying the list: ``rng.choice`` on it draws exactly
    what it would draw from the copy (same length, same order), in O(1) instead of O(people)."""

    def __init__(self, people: list[str], index: int) -> None:
        self.people, self.skip = people, index

    def __len__(self) -> int:
        return len(self.people) - 1

    def __getitem__(self, position: int) -> str:  # type: ignore[override]
        return self.people[position + (position >= self.skip)]


def _quarter(at: datetime, ahead: int = 0) -> str:
    index = (at.month - 1) // 3 + ahead
    return f"Q{index % 4 + 1} {at.year + index // 4}"


def _day(at: datetime) -> str:
    """A working day as people write it in mail ('Tuesday, September 8'); weekends move to Monday."""
    if at.weekday() >= 5:
        at += timedelta(days=7 - at.weekday())
    return f"{at:%A}, {at:%B} {at.day}"


class _Writer:
    """Writes internal mail: topics between colleagues, department updates, announcements, drafts."""

    def __init__(self, ctx: GenContext, cast: Cast, room: Mailroom, user: str) -> None:
        fake = ctx.faker("mail", "pools")
        self.rng = ctx.rng("mail", "internal")
        self.cast, self.room, self.user = cast, room, user
        self.ctx = ctx
        self.scale = currency_scale(cast.currency)
        profile = ctx.industry
        self.cost_lines = profile.cost_lines or COST_LINES
        self.systems = profile.systems or SYSTEMS
        self.holidays = ctx.locale.holidays or HOLIDAYS
        self.cities = ctx.cities(CITIES)
        # Topics name department kinds; the cast knows departments by the names this world uses.
        self.topics = [replace(t, departments=tuple(profile.department(k) for k in t.departments))
                       for t in (*TOPICS, *profile.mail_topics)]
        self.everyone = list(cast.people)
        self.position = {p: i for i, p in enumerate(self.everyone)}
        self.team_position = {p: i for team in cast.members.values() for i, p in enumerate(team)}
        self.titles: dict[str, list[str]] = {}
        self.candidates = [fake.name() for _ in range(40)]
        self.vendors = [fake.company() for _ in range(30)]
        self.accounts = [a["name"] for a in cast.accounts.values()] or self.vendors
        # Projects that Drive has briefs or trackers for, so mail and files talk about the same work.
        found = sorted({m.group(1).title() for name in cast.files.values() if (m := _PROJECT.match(name))})
        self.projects = [f"Project {p}" for p in found] or list(ctx.industry.projects or PROJECTS)

    def _titles(self, dept: str) -> list[str]:
        """The job titles in ``dept``, sorted (computed once per department: mail asks thousands of times)."""
        if dept not in self.titles:
            members = self.cast.members.get(dept, [])
            self.titles[dept] = sorted({self.cast.people[p].signature.split(",")[0] for p in members})
        return self.titles[dept]

    def values(self, at: datetime, dept: str, topic: str = "") -> dict[str, Any]:
        """Every template key, filled for a message written at ``at`` by someone in ``dept``."""
        rng, cur = self.rng, self.cast.currency
        money, scale = self.ctx.money, self.scale
        plan = rng.randrange(80, 900) * 1000 * scale
        percent = rng.randint(62, 114) if topic == "budget_review" else rng.randint(5, 35)
        titles = self._titles(dept)
        prefix = REF_PREFIXES.get(topic, "REF")
        return {
            "first": "all", "dept": dept or "the team", "quarter": _quarter(at), "next_quarter": _quarter(at, 1),
            "month": f"{at:%B}", "amount": money(plan * percent // 100, cur), "amount2": money(plan, cur),
            "amount3": money(rng.randrange(20, 400) * 100 * scale, cur), "percent": percent,
            "weeks": rng.randint(2, 9), "cost_line": rng.choice(self.cost_lines),
            "due_date": _day(at + timedelta(days=rng.randint(3, 10))), "weekday": rng.choice(WEEKDAYS),
            "date": _day(at + timedelta(days=rng.randint(7, 40))), "city": rng.choice(self.cities),
            "venue": rng.choice(VENUES), "n": rng.randint(3, 14), "candidate": rng.choice(self.candidates),
            "role_title": rng.choice(titles) if titles else "Analyst", "concern": rng.choice(CONCERNS),
            "project": rng.choice(self.projects), "risk": rng.choice(RISKS),
            "ref": f"{prefix}-{rng.randint(1000, 9999)}", "vendor": rng.choice(self.vendors),
            "system": rng.choice(self.systems), "campaign": rng.choice(CAMPAIGNS), "account": rng.choice(self.accounts),
            "cfo_first": self.cast.first_name("cfo", "the CFO"), "reason": rng.choice(REASONS),
            "company": self.cast.company, "holiday": rng.choice(self.holidays),
            "receipt_limit": money(25 * scale, cur),  # no draw: the announcement's fixed limit
        }

    # ------------------------------------------------------------------ who writes to whom
    def _topics_for(self, person: str) -> list[Topic]:
        """Topics this person would plausibly start (their role's, their department's, or anyone's)."""
        role = next((r for r, p in self.cast.roles.items() if p == person), None)
        dept = self.cast.department_of[person]
        return [t for t in self.topics if t.sender_role == role or dept in t.departments or not t.departments]

    def _sender(self, topic: Topic) -> str:
        cast, rng = self.cast, self.rng
        if topic.sender_role and topic.sender_role in cast.roles and rng.random() < 0.6:
            return cast.roles[topic.sender_role]
        for dept in topic.departments:
            if cast.members.get(dept) and rng.random() < 0.8:
                return rng.choice(cast.members[dept])
        return rng.choice(list(cast.people))

    def _recipients(self, sender: str) -> list[str]:
        cast, rng = self.cast, self.rng
        team = cast.members[cast.department_of[sender]]
        colleagues = _AllBut(team, self.team_position[sender])
        others = _AllBut(self.everyone, self.position[sender])
        chosen: list[str] = []
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
            pool = colleagues if colleagues and rng.random() < 0.65 else others
            pick = rng.choice(pool)
            if pick not in chosen:
                chosen.append(pick)
        return chosen

    # ------------------------------------------------------------------ conversations
    def topic_thread(self, with_user: bool) -> None:
        """A conversation between colleagues about one topic; ``with_user`` makes the acting user take part."""
        cast, rng, room = self.cast, self.rng, self.room
        if with_user and rng.random() < 0.3:
            sender_id = self.user
            topic = rng.choice(self._topics_for(sender_id))
            to_ids = self._recipients(sender_id)
        else:
            topic = rng.choice(self.topics)
            sender_id = self._sender(topic)
            to_ids = self._recipients(sender_id)
            if with_user and sender_id != self.user and self.user not in to_ids:
                to_ids[rng.randrange(len(to_ids))] = self.user
        manager = cast.manager_of.get(sender_id)
        cc_ids = [manager] if manager and manager not in (*to_ids, sender_id) and rng.random() < 0.2 else []
        script = rng.choice(topic.scripts)
        if script.personal:
            to_ids = [self.user] if with_user and self.user in to_ids else to_ids[:1]
        at = room.moment(0.1, WINDOW_DAYS)
        values = self.values(at, cast.department_of[sender_id], topic.key)
        to = [cast.people[p] for p in to_ids]
        values["first"] = to[0].first
        attachments = []
        if rng.random() < 0.3:
            keywords = (values["project"].lower(),) if topic.key == "project_update" else topic.keywords
            file_id = cast.pick_file(rng, sender_id, keywords)
            attachments = [file_id] if file_id else []
        answerer = to[0]
        if with_user and self.user in to_ids and rng.random() < 0.6:
            answerer = cast.people[self.user]
        room.conversation(script, values, cast.people[sender_id], to, at, turns=rng.randint(0, len(script.replies)),
                          answerer=answerer, cc=[cast.people[p] for p in cc_ids], attachments=attachments,
                          label=topic.label)

    def department_update(self, dept: str) -> None:
        """One message from a department's head to (up to 40 of) its members."""
        cast, rng, room = self.cast, self.rng, self.room
        head = cast.heads.get(dept) or cast.members[dept][0]
        members = [p for p in cast.members[dept] if p != head]
        if not members:
            return
        to = [cast.people[p] for p in (rng.sample(members, 40) if len(members) > 40 else members)]
        at = room.moment(0.1, WINDOW_DAYS)
        values = self.values(at, dept)
        subject, text = rng.choice(DEPARTMENT_UPDATES)
        room.post(room.new_thread(), cast.people[head], to, subject.format(**values),
                  room.body(to, text.format(**values), cast.people[head]), at, label="team")

    def announcements(self, count: int) -> None:
        """Company-wide mail, addressed to the sender and blind-copied to everyone else."""
        cast, rng, room = self.cast, self.rng, self.room
        for role, label, subject, text in rng.sample(ANNOUNCEMENTS, min(count, len(ANNOUNCEMENTS))):
            sender_id = cast.roles.get(role) or next(iter(cast.people))
            sender = cast.people[sender_id]
            everyone = [a for p, a in cast.people.items() if p != sender_id]
            at = room.moment(1, WINDOW_DAYS - 5)
            values = self.values(at, cast.department_of[sender_id])
            room.post(room.new_thread(), sender, [sender], subject.format(**values),
                      room.body(everyone, text.format(**values), sender), at, bcc=everyone, label=label)

    def drafts(self) -> None:
        """Two unsent drafts for the acting user (one a reply) and one for about one person in twenty."""
        cast, rng, room = self.cast, self.rng, self.room
        me = cast.people[self.user]
        received = [m for m in room.messages if m["sender"] != me.email and f'"{me.email}"' in m["to"]
                    and m["status"] == "sent" and m["bcc"] == "[]"]
        at = room.start - timedelta(hours=rng.randint(2, 30))
        if received:
            original = max(received, key=lambda m: m["sent_at"])
            sender_id = cast.by_email.get(original["sender"])
            to = [cast.people[sender_id] if sender_id else Addr(original["sender"], original["sender_name"])]
            body = room.reply_body(original, to, "Thanks - I'll look into this and get back to you by Friday.", me)
            written = parse_ts(original["sent_at"])
            written += (room.start - written) * rng.uniform(0.3, 0.9)  # after the original, before now
            room.post(original["thread_id"], me, to, "", body, written.replace(second=0),
                      reply_to=original, status="draft")
        for person in [self.user, *(p for p in cast.people if p != self.user and rng.random() < 0.05)]:
            topic = rng.choice(self._topics_for(person))
            script = rng.choice(topic.scripts)
            values = self.values(at, cast.department_of[person], topic.key)
            colleague = cast.people[rng.choice([p for p in cast.people if p != person] or [person])]
            values["first"] = colleague.first
            room.post(room.new_thread(), cast.people[person], [colleague], script.subject.format(**values),
                      room.body([colleague], script.opening.format(**values), cast.people[person]),
                      at - timedelta(hours=rng.randint(1, 48)), status="draft")


def generate(ctx: GenContext) -> None:
    """Messages and mailbox entries for every employee, sized by ``size.mail_per_person``."""
    size = ctx.spec.size
    cast = load_cast(ctx)
    user = ctx.world.meta("user_id") or ""  # set by the directory generator (user_id is read on reload)
    if not cast.people or size.mail_per_person == 0 or user not in cast.people:
        return
    rng = ctx.rng("mail", "plan")
    room = Mailroom(ctx.rng("mail", "mailroom"), ctx.spec.start)
    writer = _Writer(ctx, cast, room, user)
    writer.announcements(max(1, size.mail_per_person // 6))
    customer_mail(room, cast, ctx.rng("mail", "customers"), writer.vendors)
    target = len(cast.people) * size.mail_per_person
    user_target = USER_SHARE * size.mail_per_person
    departments = sorted(d for d, m in cast.members.items() if len(m) > 1)
    for _ in range(target * 2):  # a bound, not a count: each conversation delivers at least one message
        if room.total_received >= target:
            break
        if departments and rng.random() < DEPARTMENT_UPDATE_SHARE:
            writer.department_update(rng.choice(departments))
        else:
            writer.topic_thread(room.received[user] < user_target and rng.random() < 0.35)
    writer.drafts()
    messages, entries, threads = room.rows()
    for message in messages:  # each message carries copies of its attachments, as sent
        message["attachment_copies"] = file_copies(ctx.world, json.loads(message["attachments"]))
    ctx.insert("mail_message", messages)
    ctx.insert("mail_entry", entries)
    ctx.set_counter("msg", len(messages))
    ctx.set_counter("mbx", len(entries))
    ctx.set_counter("thr", threads)
