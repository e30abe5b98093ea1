"""Attachments as readable text: a doc's content, or a sheet's tabs as CSV.

A received attachment is the recipient's copy, so reading it needs no Drive permission; this is the
only Drive content mail exposes, and only for files attached to mail in the reader's mailbox.
"""

from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING, Any

from officesim.errors import NotFound
from officesim.results import clip

if TYPE_CHECKING:
    from officesim.world import World


def _sheet_csv(w: World, file_id: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    tabs = w.db.execute("SELECT id, name, columns FROM drive_sheet WHERE file_id = ? ORDER BY position, id",
                        (file_id,)).fetchall()
    for index, tab in enumerate(tabs):
        if index:
            out.write("\n")
        out.write(f"## sheet: {tab['name']}\n")
        writer.writerow(json.loads(tab["columns"]))
        for row in w.db.execute("SELECT cells FROM drive_row WHERE sheet_id = ? ORDER BY position", (tab["id"],)):
            writer.writerow(["" if c is None else c for c in json.loads(row["cells"])])
    return out.getvalue()


def attachment_text(w: World, message_id: str, file_id: str, offset: int) -> dict[str, Any]:
    """``{id, name, kind, text, truncated[, next_offset]}`` for an attached file."""
    row = w.db.execute("SELECT id, name, kind, content FROM drive_file WHERE id = ?", (file_id,)).fetchone()
    if row is None:
        raise NotFound(f"the attached file {file_id!r} no longer exists in Drive")
    text = _sheet_csv(w, file_id) if row["kind"] == "sheet" else row["content"]
    how = f"Call mail_get_attachment(message_id={message_id!r}, file_id={file_id!r})"
    return {"id": row["id"], "name": row["name"], "kind": row["kind"], **clip(text, offset=offset, how=how)}
