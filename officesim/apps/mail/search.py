"""Searching one person's mailbox: filters to SQL, then one page of summaries.

Paging sorts on covering indexes first and reads full rows (bodies overflow to extra pages) only
for the page returned; this keeps the most frequent call of an episode fast on large mailboxes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from officesim.apps.mail.addresses import normalize_address
from officesim.apps.mail.mailbox import ENTRY_COLUMNS, NEWEST_FIRST, existing_folder
from officesim.apps.mail.views import summary
from officesim.apps.search import match_all, query_terms, time_window
from officesim.paging import check_limit, decode_cursor, like

if TYPE_CHECKING:
    from officesim.world import World

_PERSON_ID = re.compile(r"^p_\d+$")


def _who(w: World, text: str, field: str) -> str:
    """A person filter as a LIKE fragment: a person id becomes their email."""
    who = text.strip()
    return normalize_address(w, who, field) if _PERSON_ID.match(who) else who


def search(
    w: World,
    *,
    query: str | None,
    sender: str | None,
    recipient: str | None,
    folder: str | None,
    label: str | None,
    after: str | None,
    before: str | None,
    has_attachment: bool | None,
    unread_only: bool,
    cursor: str | None,
    limit: int,
) -> dict[str, Any]:
    """``{"messages": [summary, ...], "next_cursor": ...}`` for the acting user, newest first."""
    clauses, params = ["e.owner_id = ?"], [w.user_id]
    if folder is not None:
        clauses.append("e.folder = ?")
        params.append(existing_folder(w, w.user_id, folder))
    else:
        clauses.append("e.folder != 'trash'")
    words, word_params = match_all(query_terms(query), ("m.subject", "m.body"))
    clauses += words
    params += word_params
    if sender is not None and sender.strip():
        who = _who(w, sender, "sender")
        clauses.append("(m.sender LIKE +? ESCAPE '\\' OR m.sender_name LIKE +? ESCAPE '\\')")
        params += [like(who)] * 2
    if recipient is not None and recipient.strip():
        who = _who(w, recipient, "recipient")
        clauses.append("(m.\"to\" LIKE +? ESCAPE '\\' OR m.cc LIKE +? ESCAPE '\\' "
                       "OR (m.sender = ? AND m.bcc LIKE +? ESCAPE '\\'))")
        params += [like(who), like(who), w.person(w.user_id)["email"], like(who)]
    if label is not None:
        clauses.append("json_list_has(e.labels, ?)")
        params.append(label.strip())
    window, window_params = time_window("m.sent_at", after, before)
    clauses += window
    params += window_params
    if has_attachment is not None:
        clauses.append("m.attachments != '[]'" if has_attachment else "m.attachments = '[]'")
    if unread_only:
        clauses.append("e.is_read = 0")
    # Sort and page on the covering indexes first, then read only one page of full rows.
    offset = decode_cursor(cursor)
    check_limit(limit)
    page = (f"SELECT e.rowid AS entry FROM mail_entry e JOIN mail_message m ON m.id = e.message_id "
            f"WHERE {' AND '.join(clauses)} ORDER BY {NEWEST_FIRST} LIMIT ? OFFSET ?")
    rows = w.db.execute(
        f"SELECT {ENTRY_COLUMNS} FROM ({page}) page JOIN mail_entry e ON e.rowid = page.entry "
        f"JOIN mail_message m ON m.id = e.message_id ORDER BY {NEWEST_FIRST}", (*params, limit + 1, offset),
    ).fetchall()
    return {"messages": [summary(r) for r in rows[:limit]],
            "next_cursor": f"o{offset + limit}" if len(rows) > limit else None}
