"""Attachments are Drive files referenced by id; a sender may attach only what they can view.

Who can view a file is Drive's rule (owner, personal grants, domain grants, inherited from folders),
kept in one place, ``officesim.apps.drive.access``; mail asks it rather than repeating it, and
reads ``drive_file`` only for names in its own messages.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from officesim.apps.drive.access import file_rank
from officesim.errors import InvalidArgument, NotFound, PermissionDenied

if TYPE_CHECKING:
    from officesim.world import World

MAX_ATTACHMENTS = 20
_FILE_ID = re.compile(r"^f_\d+$")


def _name_hint(w: World, ref: str) -> str:
    """The id of a file the user can view whose name is ``ref`` (never one they cannot see)."""
    rows = w.db.execute(
        "SELECT id, name FROM drive_file WHERE name = ? COLLATE NOCASE AND trashed = 0 AND kind != 'folder' "
        "ORDER BY length(id), id LIMIT 20", (ref.strip(),)
    ).fetchall()
    for row in rows:
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
    marks = ",".join("?" * len(ids))
    rows = {r["id"]: r for r in w.db.execute(
        f"SELECT id, name, kind, trashed FROM drive_file WHERE id IN ({marks})", ids)}
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
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = {r["id"]: r for r in w.db.execute(f"SELECT id, name, kind FROM drive_file WHERE id IN ({marks})", ids)}
    views = []
    for file_id in ids:
        row = rows.get(file_id)
        views.append({"id": file_id, "name": row["name"] if row else "(deleted file)",
                      "kind": row["kind"] if row else None})
    return views
