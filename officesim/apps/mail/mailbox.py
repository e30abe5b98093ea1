"""One person's mailbox: finding their entries, folders and labels, and delivering new mail.

A message is stored once; each mailbox holding it has one entry (folder, labels, read flag).
Everything here works on the acting user's entries only, which is what keeps other people's mail
invisible to the agent.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import TYPE_CHECKING, Any

from officesim.apps.mail.addresses import internal_people
from officesim.errors import InvalidArgument, NotFound

if TYPE_CHECKING:
    from officesim.world import World

SYSTEM_FOLDERS = ("inbox", "sent", "drafts", "archive", "trash")
MAX_NAME = 60
_NAME = re.compile(r"^[^\x00-\x1f\"\\]+$")
_MESSAGE_ID = re.compile(r"^msg_\d+$")

# The columns of an entry joined with its message, as every read tool needs them.
ENTRY_COLUMNS = (
    'e.id AS entry_id, e.owner_id, e.folder, e.labels, e.is_read, m.id, m.thread_id, m.status, m.sender, '
    'm.sender_name, m."to", m.cc, m.bcc, m.subject, m.body, m.sent_at, m.in_reply_to, m.attachments'
)
ENTRY_SQL = f"SELECT {ENTRY_COLUMNS} FROM mail_entry e JOIN mail_message m ON m.id = e.message_id"
NEWEST_FIRST = "m.sent_at DESC, length(m.id) DESC, m.id DESC"


def find_entry(w: World, message_id: str) -> sqlite3.Row:
    """The acting user's entry for ``message_id`` joined with the message; ``NotFound`` otherwise."""
    row = w.db.execute(f"{ENTRY_SQL} WHERE e.owner_id = ? AND e.message_id = ?",
                       (w.user_id, message_id.strip())).fetchone()
    if row is None:
        shape = "" if _MESSAGE_ID.match(message_id.strip()) else " Message ids look like 'msg_12'."
        raise NotFound(f"no message {message_id!r} in your mailbox.{shape} Use mail_search_messages to find "
                       "message ids")
    return row


def clean_name(name: str, what: str) -> str:
    """A folder or label name stripped and checked (non-empty, short, no control characters)."""
    text = name.strip()
    if not text:
        raise InvalidArgument(f"{what} name is empty; give a name such as 'archive' or 'Invoices'")
    if len(text) > MAX_NAME or not _NAME.match(text):
        raise InvalidArgument(f"{what} name {name[:80]!r} is not allowed: use at most {MAX_NAME} printable "
                              "characters without quotes or backslashes")
    return text


def user_folders(w: World, owner_id: str) -> list[str]:
    """The system folders, then the custom folders the owner uses, alphabetically."""
    rows = w.db.execute("SELECT DISTINCT folder FROM mail_entry WHERE owner_id = ?", (owner_id,)).fetchall()
    custom = sorted({r[0] for r in rows} - set(SYSTEM_FOLDERS), key=str.lower)
    return [*SYSTEM_FOLDERS, *custom]


def existing_folder(w: World, owner_id: str, name: str) -> str:
    """The stored spelling of an existing folder (case-insensitive), or ``InvalidArgument``."""
    text = clean_name(name, "folder")
    folders = user_folders(w, owner_id)
    for folder in folders:
        if folder.lower() == text.lower():
            return folder
    raise InvalidArgument(f"you have no folder {name!r}; your folders are: {', '.join(folders)}. "
                          "Call mail_list_folders to see them with counts")


def target_folder(w: World, owner_id: str, name: str) -> tuple[str, bool]:
    """The folder to move into and whether it is a new custom folder (created on first use)."""
    text = clean_name(name, "folder")
    for folder in user_folders(w, owner_id):
        if folder.lower() == text.lower():
            return folder, False
    return text, True


def clean_labels(w: World, owner_id: str, labels: list[str] | None) -> list[str]:
    """Label names checked and deduplicated; an existing label keeps its stored spelling."""
    if not labels:
        return []
    texts = [clean_name(label, "label") for label in labels]
    known = {name.lower(): name for name in _spellings(w, owner_id, texts)}
    out: list[str] = []
    seen: set[str] = set()
    for text in texts:
        text = known.get(text.lower(), text)
        if text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out


def _spellings(w: World, owner_id: str, texts: list[str]) -> list[str]:
    """The labels of ``owner_id``'s mailbox (trash included) that may be spellings of ``texts``, in
    the order ``label_counts`` lists them (each stored label once, at its first row).

    Only the rows whose stored list can hold one are read: the text as a JSON string in any ASCII
    case (``LIKE``), or a row with anything else (non-ASCII, escapes) that the pattern cannot
    judge.  A large world's mailbox carries many labelled messages; labelling one reads a few.
    """
    if not all(t.isascii() and t.isprintable() for t in texts):
        return list(label_counts(w, owner_id, include_trash=True))
    likes = " OR ".join("labels LIKE +? ESCAPE '!'" for _ in texts)
    patterns = ["%" + json.dumps(t)[:-1].replace("!", "!!").replace("%", "!%").replace("_", "!_") + '"%' for t in texts]
    sql = (f"SELECT labels FROM mail_entry WHERE owner_id = ? AND labels != '[]' AND ({likes} "
           "OR labels GLOB '*[^ -~]*' OR instr(labels, '\\') > 0)")
    found: dict[str, None] = {}
    for (stored,) in w.db.execute(sql, (owner_id, *patterns)):
        found.update(dict.fromkeys(json.loads(stored)))
    return list(found)


def label_counts(w: World, owner_id: str, *, include_trash: bool = False) -> dict[str, tuple[int, int]]:
    """Each label of ``owner_id``'s mailbox (stored spelling) with its message and unread counts.

    Labels are read in Python, not with ``json_each``: see ``officesim.connection`` for why the
    world never reads virtual tables.
    """
    sql = "SELECT labels, is_read FROM mail_entry WHERE owner_id = ? AND labels != '[]'"
    if not include_trash:
        sql += " AND folder != 'trash'"
    counts: dict[str, tuple[int, int]] = {}
    for labels, is_read in w.db.execute(sql, (owner_id,)):
        for label in json.loads(labels):
            total, unread = counts.get(label, (0, 0))
            counts[label] = (total + 1, unread + (not is_read))
    return counts


def new_entry(w: World, owner_id: str, message_id: str, folder: str, *, is_read: bool) -> dict[str, Any]:
    """Insert one mailbox entry and return it."""
    entry = {"id": w.new_id("mbx"), "owner_id": owner_id, "message_id": message_id, "folder": folder,
             "labels": "[]", "is_read": is_read}
    w.db.execute("INSERT INTO mail_entry (id, owner_id, message_id, folder, labels, is_read) "
                 "VALUES (:id, :owner_id, :message_id, :folder, :labels, :is_read)", entry)
    return entry


def insert_message(w: World, message: dict[str, Any]) -> None:
    """Store a message row (lists JSON-encoded by the caller)."""
    w.db.execute(
        'INSERT INTO mail_message (id, thread_id, status, sender, sender_name, "to", cc, bcc, subject, body, '
        "sent_at, in_reply_to, attachments, attachment_copies) VALUES (:id, :thread_id, :status, :sender, "
        ":sender_name, :to, :cc, :bcc, :subject, :body, :sent_at, :in_reply_to, :attachments, "
        ":attachment_copies)", message)


def deliver(w: World, message_id: str, sender_id: str, recipients: list[str]) -> int:
    """Put a just-sent message into every employee recipient's inbox; returns how many got it.

    The sender keeps a single entry (their 'sent' copy) even when they mailed themselves.
    External addresses get nothing: their mail server is outside the world.
    """
    people = internal_people(w, recipients)
    delivered = 0
    for person_id in dict.fromkeys(people[e] for e in recipients if e in people):
        if person_id == sender_id:
            continue
        new_entry(w, person_id, message_id, "inbox", is_read=False)
        delivered += 1
    return delivered


def encode(values: list[str]) -> str:
    """A list as stored in the JSON text columns."""
    return json.dumps(values)
