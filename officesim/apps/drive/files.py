"""Drive helpers shared by the tools: rendering files, naming rules, folders and sheets.

Kept apart from ``tools.py`` so that the tool module reads as the list of operations, and these
rules (unique names per folder, where a new file may go, how a sheet is found) live once.
"""

from __future__ import annotations

import difflib
import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from officesim.apps.drive.access import MAX_DEPTH, RANK_ROLE, file_rank, require_view
from officesim.apps.drive.cells import CellValue
from officesim.errors import Conflict, InvalidArgument, NotFound, PermissionDenied

if TYPE_CHECKING:
    from officesim.world import World

MAX_NAME = 200
ROOT_ALIASES = frozenset({"root", "my drive", "my-drive", "mydrive"})
TRASH = "trash"

# Columns of a file in lists: who owns it and what the acting user may do with it.  For queries
# with the ``visible`` CTE: a folder the user cannot open shows as no folder (its id is not theirs
# to know, as in "Shared with me").
LIST_COLUMNS = (
    "f.id, f.name, f.kind, CASE WHEN f.parent_id IN (SELECT id FROM visible) THEN f.parent_id END AS parent_id, "
    "f.owner_id, o.name AS owner_name, o.email AS owner_email, f.modified_at"
)
# The same for the contents of one folder the user can open (every parent is that folder).
FOLDER_COLUMNS = (
    "f.id, f.name, f.kind, f.parent_id, f.owner_id, o.name AS owner_name, o.email AS owner_email, f.modified_at"
)


def summary(row: sqlite3.Row | dict[str, Any], rank: int) -> dict[str, Any]:
    """A file as it appears in lists and search results."""
    return {
        "id": row["id"],
        "name": row["name"],
        "kind": row["kind"],
        "parent_id": row["parent_id"],
        "owner_name": row["owner_name"],
        "owner_email": row["owner_email"],
        "modified_at": row["modified_at"],
        "your_role": RANK_ROLE.get(rank),
    }


def visible_parent(w: World, parent_id: str | None) -> str | None:
    """``parent_id`` when the acting user can see that folder, else None (never a hidden folder's id)."""
    return parent_id if parent_id is not None and file_rank(w, parent_id) > 0 else None


def person_brief(w: World, person_id: str | None) -> dict[str, Any]:
    """Name and email of a person id (empty strings when unknown)."""
    row = w.db.execute("SELECT name, email FROM directory_person WHERE id = ?", (person_id,)).fetchone()
    return {"name": row["name"], "email": row["email"]} if row else {"name": "", "email": ""}


def clean_name(name: str, what: str) -> str:
    """A file name stripped of outer spaces; InvalidArgument when empty or too long."""
    cleaned = name.strip()
    if not cleaned:
        raise InvalidArgument(f"the {what} name is empty; give it a short descriptive name")
    if len(cleaned) > MAX_NAME:
        raise InvalidArgument(f"the {what} name is {len(cleaned)} characters long; keep it under {MAX_NAME}")
    return cleaned


def check_name_free(w: World, name: str, parent_id: str | None, *, exclude: str | None = None) -> None:
    """Conflict when a live file of that name (any kind, case-insensitive) is already in the folder.

    Names are unique per folder (per owner's root for My Drive) so that a name identifies a file.
    """
    if parent_id is None:
        row = w.db.execute(
            "SELECT id, kind FROM drive_file WHERE parent_id IS NULL AND owner_id = ? AND trashed = 0 "
            "AND name = ? COLLATE NOCASE AND id IS NOT ?",
            (w.user_id, name, exclude),
        ).fetchone()
        where = "your My Drive"
    else:
        row = w.db.execute(
            "SELECT id, kind FROM drive_file WHERE parent_id = ? AND trashed = 0 "
            "AND name = ? COLLATE NOCASE AND id IS NOT ?",
            (parent_id, name, exclude),
        ).fetchone()
        where = f"folder {parent_id}"
    if row is not None:
        fix = {"doc": "update it with drive_update_doc", "sheet": "add rows with drive_append_rows",
               "folder": "use it"}[row["kind"]]
        raise Conflict(
            f"{where} already has a {row['kind']} named {name!r} ({row['id']}); {fix}, or choose another name"
        )


def target_folder(w: World, folder_id: str | None) -> str | None:
    """The folder a new or moved file goes into (None = My Drive); the user must be able to edit it."""
    if folder_id is None or folder_id.strip().casefold() in ROOT_ALIASES | {""}:
        return None
    if folder_id.strip().casefold() == TRASH:
        raise InvalidArgument("files cannot be put in the trash this way; use drive_delete_file")
    folder = require_view(w, folder_id)
    if folder["kind"] != "folder":
        raise InvalidArgument(
            f"{folder_id} is a {folder['kind']} ({folder['name']!r}), not a folder; pass a folder id "
            "(drive_search_files with kind='folder' finds folders) or null for My Drive"
        )
    if folder["role"] == "viewer":
        raise PermissionDenied(
            f"you can only view folder {folder['name']!r} ({folder_id}), not add files to it; "
            "pass folder_id=null to use your My Drive, or ask the folder's owner for editor access"
        )
    return folder_id


def descendants(w: World, file_id: str) -> list[str]:
    """The ids of a file and everything under it (any depth)."""
    rows = w.db.execute(
        "WITH RECURSIVE d(id) AS (SELECT ? UNION SELECT f.id FROM drive_file f JOIN d ON f.parent_id = d.id) "
        "SELECT id FROM d",
        (file_id,),
    ).fetchall()
    return [r[0] for r in rows]


def owned_subtree(w: World, file_id: str, *, trashed: bool = False) -> tuple[list[str], list[dict[str, Any]]]:
    """What deleting (or restoring) ``file_id`` touches: the acting user's own files under it, and
    the files of other people directly inside those (whose own subtrees stay theirs).

    Walks only through the user's files in the given trash state, so another owner's folder
    stops the walk: its contents are never the user's to trash.
    """
    rows = w.db.execute(
        "WITH RECURSIVE mine(id, depth) AS (SELECT ?1, 0 UNION SELECT f.id, m.depth + 1 FROM drive_file f "
        "JOIN mine m ON f.parent_id = m.id WHERE f.owner_id = ?2 AND f.trashed = ?3 AND m.depth < ?4) "
        "SELECT id FROM mine",
        (file_id, w.user_id, int(trashed), MAX_DEPTH),
    ).fetchall()
    mine = [r[0] for r in rows]
    marks = ",".join("?" * len(mine))
    others = w.db.execute(
        f"SELECT f.id, f.name, f.owner_id, p.email AS owner_email FROM drive_file f "
        f"LEFT JOIN directory_person p ON p.id = f.owner_id WHERE f.parent_id IN ({marks}) "
        "AND f.owner_id != ? AND f.trashed = 0 ORDER BY f.id",
        (*mine, w.user_id),
    ).fetchall()
    return mine, [dict(r) for r in others]


def free_root_name(w: World, name: str, owner_id: str, file_id: str) -> str:
    """``name``, or ``name (2)``, ``name (3)``... : the first one free in ``owner_id``'s My Drive."""
    candidate, number = name, 1
    while w.db.execute(
        "SELECT 1 FROM drive_file WHERE parent_id IS NULL AND owner_id = ? AND trashed = 0 "
        "AND name = ? COLLATE NOCASE AND id != ?", (owner_id, candidate, file_id)
    ).fetchone():
        number += 1
        candidate = f"{name} ({number})"
    return candidate


def visible_path(w: World, file_id: str) -> list[dict[str, str]]:
    """The folders above a file, outermost first, from the first one the user can see.

    Folders the user cannot open are left out, so the path never leaks their names.
    """
    chain = w.db.execute(
        "WITH RECURSIVE a(id, name, parent_id, depth) AS ("
        " SELECT p.id, p.name, p.parent_id, 1 FROM drive_file p JOIN drive_file f ON f.parent_id = p.id"
        " WHERE f.id = ? UNION ALL"
        " SELECT p.id, p.name, p.parent_id, a.depth + 1 FROM drive_file p JOIN a ON p.id = a.parent_id"
        " WHERE a.depth < 64) SELECT id, name FROM a ORDER BY depth DESC",
        (file_id,),
    ).fetchall()
    for index, row in enumerate(chain):
        if file_rank(w, row["id"]) > 0:  # visible here means visible all the way down
            return [{"id": r["id"], "name": r["name"]} for r in chain[index:]]
    return []


def require_kind(row: dict[str, Any], kind: str) -> None:
    """InvalidArgument pointing to the right tool when a file is not of the kind a tool reads."""
    if row["kind"] == kind:
        return
    use = {"doc": "drive_get_doc", "sheet": "drive_read_sheet", "folder": "drive_list_folder"}[row["kind"]]
    raise InvalidArgument(f"{row['id']} ({row['name']!r}) is a {row['kind']}, not a {kind}; use {use} for it")


def find_sheet(w: World, file: dict[str, Any], sheet: str | None) -> dict[str, Any]:
    """A spreadsheet's tab by name (case-insensitive), or its first tab; decoded columns and types."""
    tabs = w.db.execute(
        "SELECT * FROM drive_sheet WHERE file_id = ? ORDER BY position, id", (file["id"],)
    ).fetchall()
    if not tabs:
        raise NotFound(f"spreadsheet {file['name']!r} ({file['id']}) has no sheets")
    chosen = tabs[0]
    if sheet is not None:
        wanted = sheet.strip().casefold()
        chosen = next((t for t in tabs if t["name"].casefold() == wanted), None)
        if chosen is None:
            names = [t["name"] for t in tabs]
            close = difflib.get_close_matches(sheet, names, n=1, cutoff=0.5)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise NotFound(
                f"spreadsheet {file['name']!r} has no sheet {sheet!r}; {hint}its sheets are: {', '.join(names)} "
                "(or pass sheet=null for the first one)"
            )
    out = dict(chosen)
    out["columns"] = json.loads(out["columns"])
    out["column_types"] = json.loads(out["column_types"])
    return out


def render_row(position: int, cells: list[CellValue], columns: list[str]) -> dict[str, Any]:
    """A data row as ``{"row": n, <column>: value, ...}`` (``row_number`` if a column is named 'row')."""
    key = "row_number" if "row" in columns else "row"
    out: dict[str, Any] = {key: position}
    for index, column in enumerate(columns):
        out[column] = cells[index] if index < len(cells) else None
    return out


def dump_cells(cells: Sequence[CellValue]) -> str:
    """The stored JSON of a row's cells (compact, non-ASCII kept readable for search)."""
    return json.dumps(cells, ensure_ascii=False, separators=(",", ":"))


def touch(w: World, file_id: str) -> str:
    """Stamp a content change on a file (call after ``w.tick()``); returns the time."""
    now = w.now_ts()
    w.db.execute(
        "UPDATE drive_file SET modified_at = ?, modified_by = ? WHERE id = ?", (now, w.user_id, file_id)
    )
    return now


def new_file(w: World, name: str, kind: str, parent_id: str | None, content: str = "") -> dict[str, Any]:
    """Insert a file owned by the acting user (after validation and ``w.tick()``)."""
    now = w.now_ts()
    file_id = w.new_id("f")
    w.db.execute(
        "INSERT INTO drive_file (id, name, kind, parent_id, owner_id, content, created_at, modified_at, "
        "modified_by, trashed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
        (file_id, name, kind, parent_id, w.user_id, content, now, now, w.user_id),
    )
    return {"id": file_id, "name": name, "kind": kind, "parent_id": parent_id, "owner_id": w.user_id,
            "created_at": now}
