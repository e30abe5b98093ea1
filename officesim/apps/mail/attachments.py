"""Attachments: Drive files a sender may attach, and the copies of them a message carries.

A sender attaches Drive files by id and may attach only what they can view.  Who can view a file is
Drive's rule (owner, personal grants, domain grants, inherited from folders), kept in one place,
``officesim.apps.drive.access``; mail asks it rather than repeating it.

As in real mail, a message carries a *copy* of each attached file, taken when the message is
written (``file_copies``): recipients read that copy (``attachments_of``), whatever later happens
to the file in Drive (edited, unshared, trashed).  Graders read it too: "what the recipient got".
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from officesim.apps.drive.access import file_rank
from officesim.apps.drive.reading import files_by_id, find_files, sheet_csv
from officesim.errors import InvalidArgument, NotFound, PermissionDenied

if TYPE_CHECKING:
    from officesim.world import World

MAX_ATTACHMENTS = 20
MAX_ATTACHED_CHARS = 1_000_000  # one attachment's text (a doc is at most 200,000; sheets can be bigger)
_FILE_ID = re.compile(r"^f_\d+$")


def _name_hint(w: World, ref: str) -> str:
    """The id of a file the user can view whose name is ``ref`` (never one they cannot see)."""
    for row in [f for f in find_files(w, ref.strip()) if f["kind"] != "folder"][:20]:
        if file_rank(w, row["id"]) > 0:
            return f" There is a file named {row['name']!r} with id {row['id']!r}; attach it by that id."
    return ""


def check_attachments(w: World, refs: list[str] | None) -> list[str]:
    """Validate attachment ids for the acting user to send; returns them deduplicated in order.

    Raises:
        NotFound: an id names no Drive file (a file name instead of an id gets a hint).
        InvalidArgument: a folder, a trashed file, or too many attachments.
        PermissionDenied: the user cannot view the file in Drive.
    """
    ids: list[str] = []
    for ref in refs or []:
        file_id = ref.strip()
        if file_id not in ids:
            ids.append(file_id)
    if len(ids) > MAX_ATTACHMENTS:
        raise InvalidArgument(f"attachments: at most {MAX_ATTACHMENTS} files per message, got {len(ids)}")
    if not ids:
        return []
    rows = files_by_id(w, ids)
    for file_id in ids:
        row = rows.get(file_id)
        if row is None:
            shape = "" if _FILE_ID.match(file_id) else " Attachments are Drive file ids like 'f_12'."
            raise NotFound(f"attachments: no Drive file with id {file_id!r}.{shape}{_name_hint(w, file_id)} "
                           "Use drive_search_files to find the file's id")
        if file_rank(w, file_id) == 0:
            raise PermissionDenied(
                f"attachments: you cannot view the Drive file {file_id!r}, so you cannot attach it; ask its "
                "owner to share it with you, or attach a file you own"
            )
        if row["kind"] == "folder":
            raise InvalidArgument(f"attachments: {file_id!r} ({row['name']}) is a folder; attach docs or sheets")
        if row["trashed"]:
            raise InvalidArgument(f"attachments: {file_id!r} ({row['name']}) is in the Drive trash and can no "
                                  "longer be sent; attach another file (drive_search_files finds live ones)")
    return ids


def attachment_views(w: World, ids_json: str) -> list[dict[str, Any]]:
    """``[{id, name, kind}]`` for a message's attachment ids (a deleted file keeps its id)."""
    ids = json.loads(ids_json)
    rows = files_by_id(w, ids)
    views = []
    for file_id in ids:
        row = rows.get(file_id)
        views.append({"id": file_id, "name": row["name"] if row else "(deleted file)",
                      "kind": row["kind"] if row else None})
    return views


def file_copies(w: World, ids: list[str]) -> str:
    """The stored JSON of copies of Drive files ``ids`` as they are now (checked by ``check_attachments``).

    Raises:
        InvalidArgument: a file's text is larger than an attachment holds.
    """
    if not ids:
        return "[]"
    rows = files_by_id(w, ids)
    copies = []
    for file_id in ids:
        row = rows[file_id]
        content = sheet_csv(w, file_id, MAX_ATTACHED_CHARS) if row["kind"] == "sheet" else row["content"]
        if len(content) > MAX_ATTACHED_CHARS:
            raise InvalidArgument(
                f"attachments: {file_id!r} ({row['name']}) is over {MAX_ATTACHED_CHARS:,} characters as text, more "
                "than one attachment holds; share it with drive_share_file and mail a link to it instead"
            )
        copies.append({"file_id": file_id, "name": row["name"], "kind": row["kind"], "content": content})
    return json.dumps(copies, ensure_ascii=False)


def attachments_of(w: World, message_id: str) -> list[dict[str, Any]]:
    """What the recipients of ``message_id`` got: ``[{file_id, name, kind, content}]`` in attachment order.

    The content is the copy taken when the message was written, not the Drive file now.  An
    unknown message has no attachments.
    """
    row = w.db.execute("SELECT attachment_copies FROM mail_message WHERE id = ?", (message_id,)).fetchone()
    return json.loads(row[0]) if row is not None else []
