"""Writing mail: checking what a model composed, then storing and delivering it.

Every write path (send, reply, forward, drafts) ends here so that validation messages, timestamps,
ids and delivery rules are the same whichever tool the model used.  Callers validate everything
first; ``send`` and ``save_draft`` are the only places that write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from officesim.apps.mail.addresses import internal_people
from officesim.apps.mail.attachments import attachment_views, file_copies
from officesim.apps.mail.mailbox import deliver, encode, insert_message, new_entry
from officesim.apps.mail.text import snippet
from officesim.errors import InvalidArgument

if TYPE_CHECKING:
    from officesim.world import World

MAX_SUBJECT = 300
MAX_BODY = 100_000


@dataclass
class Draft:
    """A message being composed, already validated field by field."""

    to: list[str]
    subject: str
    body: str
    cc: list[str] = field(default_factory=list)
    bcc: list[str] = field(default_factory=list)
    attachments: list[str] = field(default_factory=list)
    thread_id: str | None = None
    in_reply_to: str | None = None
    # The stored copies of the attachments, when they come from another message (a forward);
    # None: copy the Drive files now.
    copies: str | None = None


def check_subject(subject: str, *, required: bool) -> str:
    """A subject on one line, within length; required when sending."""
    text = " ".join(subject.split())
    if required and not text:
        raise InvalidArgument("subject is empty; give the message a short subject line")
    if len(text) > MAX_SUBJECT:
        raise InvalidArgument(f"subject is {len(text)} characters; keep it under {MAX_SUBJECT} and put details "
                              "in the body")
    return text


def check_body(body: str, *, required: bool) -> str:
    """A body within length; required when sending a new message."""
    if required and not body.strip():
        raise InvalidArgument("body is empty; write the message text in body")
    if len(body) > MAX_BODY:
        raise InvalidArgument(f"body is {len(body)} characters; the limit is {MAX_BODY}. Attach a Drive file "
                              "for long content")
    return body


def check_ready(draft: Draft) -> None:
    """A draft must have recipients and a subject before it can be sent."""
    if not draft.to:
        raise InvalidArgument("'to' is empty; a message needs at least one recipient in 'to' (emails, e.g. "
                              "from directory_search_people)")
    check_subject(draft.subject, required=True)


def sent_view(w: World, message: dict[str, Any], delivered: int) -> dict[str, Any]:
    """What a write tool returns about the message it stored (the sender's view, no full body)."""
    to, cc, bcc = (list(message[k]) for k in ("to_list", "cc_list", "bcc_list"))
    everyone = [*to, *cc, *bcc]
    internal = internal_people(w, everyone)
    return {
        "id": message["id"], "thread_id": message["thread_id"], "status": message["status"],
        "from": message["sender"], "to": to, "cc": cc, "bcc": bcc, "subject": message["subject"],
        "snippet": snippet(message["body"]), "sent_at": message["sent_at"],
        "in_reply_to": message["in_reply_to"], "attachments": attachment_views(w, message["attachments"]),
        "delivered_to_colleagues": delivered,
        "external_recipients": [e for e in dict.fromkeys(everyone) if e not in internal],
    }


def _row(w: World, me: dict[str, Any], draft: Draft, *, message_id: str, status: str) -> dict[str, Any]:
    return {
        "id": message_id, "thread_id": draft.thread_id or w.new_id("thr"), "status": status,
        "sender": me["email"], "sender_name": me["name"], "to": encode(draft.to), "cc": encode(draft.cc),
        "bcc": encode(draft.bcc), "subject": draft.subject, "body": draft.body, "sent_at": w.now_ts(),
        "in_reply_to": draft.in_reply_to, "attachments": encode(draft.attachments),
        "attachment_copies": draft.copies if draft.copies is not None else file_copies(w, draft.attachments),
        "to_list": draft.to, "cc_list": draft.cc, "bcc_list": draft.bcc,
    }


def send(w: World, me: dict[str, Any], draft: Draft) -> dict[str, Any]:
    """Store and deliver a validated message as sent by ``me``; ticks the clock once."""
    check_ready(draft)
    w.tick()
    message = _row(w, me, draft, message_id=w.new_id("msg"), status="sent")
    insert_message(w, message)
    new_entry(w, me["id"], message["id"], "sent", is_read=True)
    delivered = deliver(w, message["id"], me["id"], [*draft.to, *draft.cc, *draft.bcc])
    return sent_view(w, message, delivered)


def save_draft(w: World, me: dict[str, Any], draft: Draft, *, draft_id: str | None = None) -> dict[str, Any]:
    """Create (or, with ``draft_id``, overwrite) a draft in ``me``'s drafts folder."""
    w.tick()
    message = _row(w, me, draft, message_id=draft_id or w.new_id("msg"), status="draft")
    if draft_id is None:
        insert_message(w, message)
        new_entry(w, me["id"], message["id"], "drafts", is_read=True)
    else:
        w.db.execute(
            'UPDATE mail_message SET "to" = :to, cc = :cc, bcc = :bcc, subject = :subject, body = :body, '
            "attachments = :attachments, attachment_copies = :attachment_copies, sent_at = :sent_at "
            "WHERE id = :id AND status = 'draft'", message)
    return sent_view(w, message, 0)


def send_existing_draft(w: World, me: dict[str, Any], draft: Draft, draft_id: str, thread_id: str) -> dict[str, Any]:
    """Turn a stored draft into a sent message: same id and thread, stamped now, delivered."""
    check_ready(draft)
    w.tick()
    draft.thread_id = thread_id
    message = _row(w, me, draft, message_id=draft_id, status="sent")
    # The attachments are copied again now: recipients get the files as they are when it is sent.
    w.db.execute("UPDATE mail_message SET status = 'sent', sent_at = :sent_at, attachment_copies = "
                 ":attachment_copies WHERE id = :id", message)
    w.db.execute("UPDATE mail_entry SET folder = 'sent', is_read = 1 WHERE owner_id = ? AND message_id = ?",
                 (me["id"], draft_id))
    delivered = deliver(w, draft_id, me["id"], [*draft.to, *draft.cc, *draft.bcc])
    return sent_view(w, message, delivered)
