"""Attachments as readable text: the copy of a doc's content, or of a sheet as CSV, that came with the mail.

A received attachment is the recipient's copy (``attachments.attachments_of``), taken when the
message was sent: reading it needs no Drive permission and shows no later change to the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from officesim.apps.mail.attachments import attachments_of
from officesim.errors import NotFound
from officesim.paging import clip, like

if TYPE_CHECKING:
    from officesim.world import World


def attachment_text(w: World, message_id: str, file_id: str, offset: int) -> dict[str, Any]:
    """``{id, name, kind, text, truncated[, next_offset]}`` for a file attached to ``message_id``."""
    copy = next((c for c in attachments_of(w, message_id) if c["file_id"] == file_id), None)
    if copy is None:
        raise NotFound(f"{message_id} carries no copy of {file_id!r}; its sender attached none")
    how = f"Call mail_get_attachment(message_id={message_id!r}, file_id={file_id!r})"
    return {"id": file_id, "name": copy["name"], "kind": copy["kind"],
            **clip(copy["content"], offset=offset, how=how)}


def received_with_subject(w: World, person_id: str, subject: str) -> list[dict[str, Any]]:
    """Sent messages in ``person_id``'s mailbox whose subject contains ``subject``, oldest first.

    The world's own read (judge sources and evidence); the agent reads through the mail tools.
    """
    rows = w.db.execute(
        "SELECT DISTINCT m.* FROM mail_message m JOIN mail_entry e ON e.message_id = m.id "
        "WHERE e.owner_id = ? AND m.status = 'sent' AND m.subject LIKE +? ESCAPE '\\' ORDER BY m.sent_at, m.id",
        (person_id, like(subject)),
    ).fetchall()
    return [dict(r) for r in rows]
