"""The generator's post room: turns generated conversations into message and mailbox rows.

Generators describe conversations (who wrote what to whom, when); the ``Mailroom`` stores each
message once, gives the sender a 'sent' entry and every employee recipient an inbox entry whose
read flag, labels and folder look lived-in (old mail mostly read, some archived or filed, recent
mail often unread).  Ids are assigned at the end in chronological order, so ``msg_1`` is the oldest.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from officesim.apps.mail.templates import FILLERS, GREETINGS, GROUP_GREETINGS, LABEL_FOLDERS, SIGNOFFS, Script
from officesim.apps.mail.text import join_note, quote, reply_subject
from officesim.clock import format_ts

WINDOW_DAYS = 120  # generated mail lies within this many days before the clock start


@dataclass(frozen=True)
class Addr:
    """A mail participant: an employee (with ``person_id``) or an outsider (customer contact)."""

    email: str
    name: str
    person_id: str | None = None
    signature: str = ""  # lines under the name: title and organisation

    @property
    def first(self) -> str:
        return self.name.split()[0] if self.name else self.email.split("@")[0]


@dataclass
class Mailroom:
    """Collects generated messages and entries; tracks how much mail each employee received."""

    rng: random.Random
    start: datetime
    messages: list[dict[str, Any]] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)
    received: Counter[str] = field(default_factory=Counter)
    total_received: int = 0  # sum(received.values()), kept as it grows (the generator asks after each thread)
    threads: int = 0

    # ------------------------------------------------------------------ time
    def moment(self, low_days: float, high_days: float) -> datetime:
        """A time between ``high_days`` and ``low_days`` before the start, in office hours."""
        day = self.start - timedelta(days=self.rng.uniform(low_days, high_days))
        at = day.replace(hour=self.rng.randint(8, 17), minute=self.rng.randint(0, 59), second=0, microsecond=0)
        return min(at, self.start - timedelta(minutes=10))

    def later(self, at: datetime) -> datetime | None:
        """When the next message of a conversation arrives (``None`` when that is after the start)."""
        nxt = at + timedelta(minutes=self.rng.randint(15, 26 * 60))
        if not 8 <= nxt.hour < 19:
            nxt = (nxt + timedelta(days=1 if nxt.hour >= 19 else 0)).replace(
                hour=self.rng.randint(8, 10), minute=self.rng.randint(0, 59))
        return nxt if nxt < self.start - timedelta(minutes=5) else None

    # ------------------------------------------------------------------ text
    def body(self, to: list[Addr], text: str, sender: Addr, *, filler: float = 0.3) -> str:
        """Greeting, text, maybe an everyday filler line, sign-off and signature."""
        greeting = (self.rng.choice(GREETINGS).format(name=to[0].first) if len(to) == 1
                    else self.rng.choice(GROUP_GREETINGS))
        parts = [greeting, "", text[:1].upper() + text[1:]]
        if self.rng.random() < filler:
            parts += ["", self.rng.choice(FILLERS)]
        parts += ["", self.rng.choice(SIGNOFFS), sender.first if sender.person_id else sender.name]
        if sender.signature:
            parts.append(sender.signature)
        return "\n".join(parts)

    def reply_body(self, previous: dict[str, Any], to: list[Addr], text: str, sender: Addr) -> str:
        """A reply: short text over the quoted previous message, as the mail tools write it."""
        own = self.body(to, text, sender, filler=0.1)
        return join_note(own, quote(previous["body"], sender_name=previous["sender_name"],
                                    sender=previous["sender"], sent_at=previous["sent_at"]))

    # ------------------------------------------------------------------ posting
    def new_thread(self) -> str:
        self.threads += 1
        return f"t{self.threads}"

    def post(
        self,
        thread: str,
        sender: Addr,
        to: list[Addr],
        subject: str,
        body: str,
        at: datetime,
        *,
        cc: list[Addr] | None = None,
        bcc: list[Addr] | None = None,
        reply_to: dict[str, Any] | None = None,
        attachments: list[str] | None = None,
        label: str | None = None,
        status: str = "sent",
    ) -> dict[str, Any]:
        """Store one message and its mailbox entries; returns the message row."""
        cc, bcc = cc or [], bcc or []
        message = {
            "id": f"m{len(self.messages) + 1}", "thread_id": thread, "status": status, "sender": sender.email,
            "sender_name": sender.name, "to": json.dumps([a.email for a in to]),
            "cc": json.dumps([a.email for a in cc]), "bcc": json.dumps([a.email for a in bcc]),
            "subject": reply_subject(reply_to["subject"]) if reply_to else subject[:1].upper() + subject[1:],
            "body": body,
            "sent_at": format_ts(at), "in_reply_to": reply_to["id"] if reply_to else None,
            "attachments": json.dumps(attachments or []), "attachment_copies": "[]",  # copied by generate()
        }
        self.messages.append(message)
        if sender.person_id:
            folder = "drafts" if status == "draft" else "sent"
            self._entry(sender.person_id, message, folder, is_read=True, labels=[])
        if status == "draft":
            return message
        seen = {sender.person_id}
        for addr in [*to, *cc, *bcc]:
            if addr.person_id and addr.person_id not in seen:
                seen.add(addr.person_id)
                self._receive(addr.person_id, message, at, label)
        return message

    def _receive(self, person_id: str, message: dict[str, Any], at: datetime, label: str | None) -> None:
        age = (self.start - at).days
        is_read = self.rng.random() < (0.93 if age > 21 else 0.75 if age > 7 else 0.4)
        labels = [label] if label and self.rng.random() < 0.25 else []
        folder = "inbox"
        if is_read and age > 14:
            roll = self.rng.random()
            if roll < 0.18:
                folder = "archive"
            elif roll < 0.26 and label in LABEL_FOLDERS:
                folder = LABEL_FOLDERS[label]
            elif roll < 0.28 or (label == "news" and roll < 0.4):
                folder = "trash"
        self._entry(person_id, message, folder, is_read=is_read, labels=labels)
        self.received[person_id] += 1
        self.total_received += 1

    def _entry(self, owner: str, message: dict[str, Any], folder: str, *, is_read: bool, labels: list[str]) -> None:
        self.entries.append({"owner_id": owner, "message_id": message["id"], "folder": folder,
                             "labels": json.dumps(labels), "is_read": is_read})

    def conversation(
        self,
        script: Script,
        values: dict[str, Any],
        opener: Addr,
        to: list[Addr],
        at: datetime,
        *,
        turns: int,
        answerer: Addr | None = None,
        cc: list[Addr] | None = None,
        attachments: list[str] | None = None,
        label: str | None = None,
    ) -> list[dict[str, Any]]:
        """Post ``script``'s opening and its first ``turns`` replies (``answerer`` and ``opener`` alternate).

        Replies go to the person answered plus the other original recipients, cc kept, like reply-all.
        """
        cc = cc or []
        thread = self.new_thread()
        previous = self.post(thread, opener, to, script.subject.format(**values),
                             self.body(to, script.opening.format(**values), opener), at, cc=cc,
                             attachments=attachments, label=label)
        posted = [previous]
        speakers = (answerer or to[0], opener)
        moment: datetime | None = at
        for index, text in enumerate(script.replies[:turns]):
            moment = self.later(moment) if moment else None
            if moment is None:
                break
            author, other = speakers[index % 2], speakers[(index + 1) % 2]
            recipients = [other, *(a for a in to if a not in (author, other))]
            previous = self.post(thread, author, recipients, "",
                                 self.reply_body(previous, [other], text.format(**values), author), moment,
                                 cc=[c for c in cc if c != author], reply_to=previous, label=label)
            posted.append(previous)
        return posted

    # ------------------------------------------------------------------ output
    def rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
        """Messages and entries with final ids (chronological), and the number of threads."""
        order = sorted(self.messages, key=lambda m: (m["sent_at"], int(m["id"][1:])))
        message_ids = {m["id"]: f"msg_{i}" for i, m in enumerate(order, 1)}
        thread_ids: dict[str, str] = {}
        for message in order:
            thread_ids.setdefault(message["thread_id"], f"thr_{len(thread_ids) + 1}")
        messages = [{**m, "id": message_ids[m["id"]], "thread_id": thread_ids[m["thread_id"]],
                     "in_reply_to": message_ids.get(m["in_reply_to"]) if m["in_reply_to"] else None}
                    for m in order]
        position = {m["id"]: i for i, m in enumerate(order)}
        ordered = sorted(self.entries, key=lambda e: (position[e["message_id"]], e["owner_id"]))
        entries = [{"id": f"mbx_{i}", **e, "message_id": message_ids[e["message_id"]]}
                   for i, e in enumerate(ordered, 1)]
        return messages, entries, len(thread_ids)
