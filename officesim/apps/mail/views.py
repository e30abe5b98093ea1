"""How a message looks to the person reading it: summaries for lists, full views for reading.

Views are per reader: BCC recipients appear only in the sender's view, and folder, labels and
read flag come from the reader's own entry.
"""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Any

from officesim.apps.mail.attachments import attachment_views
from officesim.apps.mail.text import snippet
from officesim.paging import clip

if TYPE_CHECKING:
    from officesim.world import World

BODY_LIMIT = 4000
THREAD_BODY_LIMIT = 1500
MAX_LISTED = 50  # recipients shown per field; company-wide mail can have hundreds


def _recipients(out: dict[str, Any], field: str, raw: str) -> None:
    values = json.loads(raw)
    out[field] = values[:MAX_LISTED]
    if len(values) > MAX_LISTED:
        out[f"{field}_total"] = len(values)


def _labels(raw: str) -> list[str]:
    return [] if raw == "[]" else json.loads(raw)


def summary(row: sqlite3.Row) -> dict[str, Any]:
    """A search result: who, what, when, where, without the body."""
    out: dict[str, Any] = {"id": row["id"], "thread_id": row["thread_id"], "from": row["sender"],
                           "from_name": row["sender_name"]}
    _recipients(out, "to", row["to"])
    out.update({
        "subject": row["subject"], "snippet": snippet(row["body"]), "sent_at": row["sent_at"],
        "folder": row["folder"], "labels": _labels(row["labels"]), "is_read": bool(row["is_read"]),
        "has_attachments": row["attachments"] != "[]",
    })
    if row["status"] == "draft":
        out["is_draft"] = True
    return out


def _replied_to(w: World, row: sqlite3.Row, known: set[str] | None) -> str | None:
    """The message this one answers, if it is in the reader's mailbox too (else its id is not theirs)."""
    parent = row["in_reply_to"]
    if parent is None or (known is not None and parent in known):
        return parent
    held = w.db.execute("SELECT 1 FROM mail_entry WHERE owner_id = ? AND message_id = ?",
                        (row["owner_id"], parent)).fetchone()
    return parent if held else None


def full(
    w: World, row: sqlite3.Row, me_email: str, *, offset: int = 0, limit: int = BODY_LIMIT,
    known: set[str] | None = None,
) -> dict[str, Any]:
    """The whole message as ``me_email`` (the entry's owner) sees it, body clipped from ``offset``.

    ``known`` holds message ids already known to be in the reader's mailbox (a thread's), which
    saves a lookup for ``in_reply_to``.
    """
    out: dict[str, Any] = {"id": row["id"], "thread_id": row["thread_id"], "status": row["status"],
                           "from": row["sender"], "from_name": row["sender_name"]}
    _recipients(out, "to", row["to"])
    _recipients(out, "cc", row["cc"])
    if row["sender"] == me_email:
        _recipients(out, "bcc", row["bcc"])
    out.update({"subject": row["subject"], "sent_at": row["sent_at"], "in_reply_to": _replied_to(w, row, known)})
    out.update(clip(row["body"], offset=offset, limit=limit, key="body",
                    how=f"Call mail_get_message(message_id={row['id']!r})"))
    out.update({
        "attachments": attachment_views(w, row["attachments"]), "folder": row["folder"],
        "labels": json.loads(row["labels"]), "is_read": bool(row["is_read"]),
    })
    return out

