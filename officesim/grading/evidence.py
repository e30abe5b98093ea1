"""Evidence for the judge: the artifacts the agent produced and the source data they rest on.

A judge can only grade what it is shown.  Artifacts come from the final world (the mail the agent
sent, with the contents of its attachments; docs and sheets; chat posts; changed CRM rows; the
answer).  Source data comes from the start world, so an agent cannot rewrite the data it is
judged against.  Every block is clipped, so a huge artifact cannot crowd out the rubric.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from officesim.apps.mail.attachments import attachments_of
from officesim.grading.normalize import normalize_text
from officesim.grading.spec_base import crm_table
from officesim.results import like

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext, SentMail
    from officesim.world import World

BLOCK_LIMIT = 12_000
SOURCE_ROWS = 200


@dataclass(frozen=True)
class Block:
    """One fenced piece of evidence: what it is, and its text."""

    label: str
    text: str


def clip(text: str, limit: int = BLOCK_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters not shown]"


def render_file(world: World, file_id: str) -> str:
    """A doc's text, or a sheet as CSV per tab; empty when the file does not exist."""
    row = world.db.execute("SELECT id, name, kind, content FROM drive_file WHERE id = ?", (file_id,)).fetchone()
    if row is None:
        return f"(file {file_id} does not exist)"
    if row["kind"] != "sheet":
        return f"File {row['name']} ({row['id']}):\n{row['content']}"
    parts = [f"Spreadsheet {row['name']} ({row['id']}):"]
    for sheet in world.db.execute(
        "SELECT id, name, columns FROM drive_sheet WHERE file_id = ? ORDER BY position, id", (file_id,)
    ):
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(json.loads(sheet["columns"]))
        for data in world.db.execute(
            "SELECT cells FROM drive_row WHERE sheet_id = ? ORDER BY position, id", (sheet["id"],)
        ):
            writer.writerow(json.loads(data["cells"]))
        parts.append(f"[tab {sheet['name']}]\n{out.getvalue()}")
    return "\n".join(parts)


def _find_files(world: World, name: str, kind: str) -> list[str]:
    rows = world.db.execute(
        "SELECT id, name FROM drive_file WHERE kind = ? AND trashed = 0 AND (id = ? OR name LIKE ? ESCAPE '\\') "
        "ORDER BY id",
        (kind, name, like(name)),
    ).fetchall()
    exact = [r["id"] for r in rows if r["id"] == name or normalize_text(r["name"]) == normalize_text(name)]
    return exact or [r["id"] for r in rows]


def mail_text(world: World, mail: SentMail) -> str:
    """A sent message as the recipient read it: attachments are the copies it carried when sent."""
    lines = [f"To: {', '.join(mail.to)}"]
    if mail.cc:
        lines.append(f"Cc: {', '.join(mail.cc)}")
    if mail.bcc:
        lines.append(f"Bcc: {', '.join(mail.bcc)}")
    lines += [f"Subject: {mail.subject}", f"Sent: {mail.sent_at}", "", mail.body]
    copies = {c["file_id"]: c for c in attachments_of(world, mail.id)}
    for file_id in mail.attachments:
        copy = copies.get(file_id)
        text = f"File {copy['name']} ({file_id}):\n{copy.get('content') or ''}" if copy else "(no copy travelled)"
        lines += ["", f"--- attachment {file_id} (as sent) ---", text]
    return "\n".join(lines)


def _inbox_mail(world: World, subject: str, user_id: str) -> str:
    rows = world.db.execute(
        "SELECT DISTINCT m.* FROM mail_message m JOIN mail_entry e ON e.message_id = m.id "
        "WHERE e.owner_id = ? AND m.status = 'sent' AND m.subject LIKE ? ESCAPE '\\' ORDER BY m.sent_at, m.id",
        (user_id, like(subject)),
    ).fetchall()
    if not rows:
        return f"(no message with a subject containing {subject!r})"
    return "\n\n".join(
        f"From: {r['sender_name']} <{r['sender']}>\nTo: {', '.join(json.loads(r['to']))}\n"
        f"Subject: {r['subject']}\nSent: {r['sent_at']}\n\n{r['body']}"
        for r in rows
    )


def _table_rows(rows: list[dict[str, Any]]) -> str:
    return "\n".join(json.dumps(row, ensure_ascii=False, default=str) for row in rows) or "(no rows)"


def _changed_rows(ctx: GradeContext, table: str) -> str:
    diff = ctx.diff.table(table)
    lines = [f"inserted: {json.dumps(r, default=str)}" for r in diff.inserted.values()]
    for key, change in diff.updated.items():
        fields = {f: list(v) for f, v in change.items() if f != "_row"}
        lines.append(f"updated {key}: {json.dumps(fields, default=str)}")
    lines += [f"deleted: {json.dumps(r, default=str)}" for r in diff.deleted.values()]
    return "\n".join(lines) or "(nothing changed)"


def _chat_posts(ctx: GradeContext) -> str:
    rows = sorted(ctx.diff.table("chat_message").inserted.values(), key=lambda r: (r["posted_at"], r["id"]))
    names = {r["id"]: r["name"] for r in ctx.final.db.execute("SELECT id, name FROM chat_channel")}
    posts = [f"#{names.get(r['channel_id'], r['channel_id'])} ({r['posted_at']}): {r['text']}"
             for r in rows if r["author_id"] == ctx.user["id"]]
    return "\n".join(posts) or "(no chat posts)"


def _files(world: World, name: str, kind: str) -> str:
    found = _find_files(world, name, kind)
    if not found:
        return f"(no {kind} named {name!r})"
    return "\n\n".join(render_file(world, file_id) for file_id in found)


def _changed_files(ctx: GradeContext) -> str:
    diff = ctx.diff.table("drive_file")
    ids = sorted({*diff.inserted, *diff.updated})
    sheets = ctx.diff.table("drive_row")
    for change in [*sheets.inserted.values(), *(c["_row"] for c in sheets.updated.values())]:
        row = ctx.final.db.execute("SELECT file_id FROM drive_sheet WHERE id = ?", (change["sheet_id"],)).fetchone()
        if row is not None and row["file_id"] not in ids:
            ids.append(row["file_id"])
    return "\n\n".join(render_file(ctx.final, i) for i in ids) or "(no files changed)"


def collect(ctx: GradeContext, forms: list[str], *, source: bool) -> list[Block]:
    """Evidence blocks for ``forms``: artifacts from the final world, or sources from the start world."""
    world = ctx.start if source else ctx.final
    blocks: list[Block] = []
    for form in forms:
        kind, _, arg = form.partition(":")
        if form == "sent_mail":
            mails = ctx.sent_mail
            text = "\n\n=====\n\n".join(mail_text(ctx.final, m) for m in mails) if mails else "(no mail sent)"
        elif form == "answer":
            text = ctx.answer if ctx.answer is not None else "(no answer submitted)"
        elif form == "instruction":
            text = ctx.instruction
        elif form == "chat_posts":
            text = _chat_posts(ctx)
        elif form == "changed_files":
            text = _changed_files(ctx)
        elif kind in ("doc", "sheet"):
            text = _files(world, arg, kind)
        elif kind == "mail":
            text = _inbox_mail(world, arg, str(ctx.user["id"]))
        elif kind == "crm":
            table = crm_table(form)
            if source:
                rows = [dict(r) for r in world.db.execute(f"SELECT * FROM {table} ORDER BY id LIMIT {SOURCE_ROWS}")]
                text = _table_rows(rows)
            else:
                text = _changed_rows(ctx, table)
        else:
            text = f"(unknown evidence form {form!r})"
        blocks.append(Block(form, clip(text)))
    return blocks
