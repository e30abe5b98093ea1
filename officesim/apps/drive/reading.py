"""Drive's read interface for the rest of officesim: files by reference, sheet rows, sheets as CSV.

Mail (attachment copies), grading (sheet and doc checks, facts texts) and judge evidence read
Drive through these functions instead of their own SQL, so "the file named X" has one meaning
everywhere: a live (not trashed) file of the wanted kind whose id is X, or whose name is X up to
case, Unicode form and runs of whitespace (``name_key``).  A gate and the judge looking for the
same name see the same files.  No access rule applies here: these are the world's own reads
(the agent's reads go through the tools, which enforce the user's view).
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from officesim.world import World

FileKind = str  # "doc", "sheet" or "folder"


@dataclass(frozen=True)
class Tab:
    """One tab of a spreadsheet: its name, header and rows of cells, in order."""

    name: str
    columns: list[str]
    rows: list[list[Any]]


def name_key(name: Any) -> str:
    """What two file names must share to name the same file: case-folded NFKC text, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", str(name)).casefold().split())


def is_named(row: Any, ref: str) -> bool:
    """Whether a ``drive_file`` row is the file ``ref`` names (by id, or by name as ``name_key`` reads it)."""
    return bool(row["id"] == ref or name_key(row["name"]) == name_key(ref))


def find_files(w: World, ref: str, kind: FileKind | None = None) -> list[dict[str, Any]]:
    """Live files ``ref`` names (see the module docstring), of ``kind`` when given, in id order.

    Each is ``{id, name, kind, content, owner_id, parent_id}``; several files may share a name.
    """
    sql = "SELECT id, name, kind, content, owner_id, parent_id FROM drive_file WHERE trashed = 0"
    params: list[Any] = []
    if kind is not None:
        sql += " AND kind = ?"
        params.append(kind)
    rows = w.db.execute(sql + " ORDER BY length(id), id", params).fetchall()
    return [dict(r) for r in rows if is_named(r, ref)]


def files_by_id(w: World, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``{id: {id, name, kind, content, trashed}}`` of the files among ``ids`` that exist (trashed or not)."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    marks = ",".join("?" * len(wanted))
    rows = w.db.execute(f"SELECT id, name, kind, content, trashed FROM drive_file WHERE id IN ({marks})", wanted)
    return {r["id"]: dict(r) for r in rows}


def get_file(w: World, file_id: str) -> dict[str, Any] | None:
    """One file's ``{id, name, kind, content, trashed}``, or ``None``."""
    return files_by_id(w, [file_id]).get(file_id)


def sheet_tabs(w: World, file_id: str) -> list[Tab]:
    """Every tab of spreadsheet ``file_id`` with its rows (none for a file that is not a sheet)."""
    tabs = []
    for sheet in w.db.execute("SELECT id, name, columns FROM drive_sheet WHERE file_id = ? ORDER BY position, id",
                              (file_id,)).fetchall():
        rows = [json.loads(r["cells"]) for r in w.db.execute(
            "SELECT cells FROM drive_row WHERE sheet_id = ? ORDER BY position, id", (sheet["id"],))]
        tabs.append(Tab(sheet["name"], json.loads(sheet["columns"]), rows))
    return tabs


def sheet_of_row(w: World, sheet_id: str) -> str | None:
    """The file id of the spreadsheet a ``drive_sheet`` id belongs to."""
    row = w.db.execute("SELECT file_id FROM drive_sheet WHERE id = ?", (sheet_id,)).fetchone()
    return row["file_id"] if row is not None else None


def tabs_csv(tabs: Sequence[Tab], limit: int | None = None) -> str:
    """Tabs as CSV text, each under a ``## sheet: <name>`` line (empty cells empty); stops past ``limit``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for index, tab in enumerate(tabs):
        if index:
            out.write("\n")
        out.write(f"## sheet: {tab.name}\n")
        writer.writerow(tab.columns)
        for cells in tab.rows:
            writer.writerow(["" if c is None else c for c in cells])
            if limit is not None and out.tell() > limit:
                return out.getvalue()
    return out.getvalue()


def sheet_csv(w: World, file_id: str, limit: int | None = None) -> str:
    """Spreadsheet ``file_id`` as CSV text (see ``tabs_csv``): what an attachment carries and a judge reads."""
    return tabs_csv(sheet_tabs(w, file_id), limit)


def file_text(w: World, file_id: str) -> str | None:
    """A doc's text or a sheet's CSV; ``None`` for a file that does not exist."""
    found = get_file(w, file_id)
    if found is None:
        return None
    return sheet_csv(w, file_id) if found["kind"] == "sheet" else found["content"] or ""
