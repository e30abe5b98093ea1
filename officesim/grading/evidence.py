"""Evidence for the judge: the artifacts the agent produced and the source data they rest on.

A judge can only grade what it is shown.  Artifacts come from the final world (the mail the agent
sent, with the contents of its attachments; docs and sheets; chat posts; changed CRM rows; the
answer).  Source data comes from the start world, so an agent cannot rewrite the data it is
judged against.  Every block is clipped, so a huge artifact cannot crowd out the rubric.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from officesim.apps.chat.reading import channel_names
from officesim.apps.drive.reading import find_files, get_file, sheet_csv, sheet_of_row
from officesim.apps.mail.attachments import attachments_of
from officesim.apps.mail.reading import received_with_subject
from officesim.grading.spec_base import crm_table

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
    """A doc's text, or a sheet as CSV per tab (as an attachment carries it), for the judge."""
    found = get_file(world, file_id)
    if found is None:
        return f"(file {file_id} does not exist)"
    if found["kind"] != "sheet":
        return f"File {found['name']} ({found['id']}):\n{found['content']}"
    return f"Spreadsheet {found['name']} ({found['id']}):\n{sheet_csv(world, file_id)}"


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
    rows = received_with_subject(world, user_id, subject)
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
    names = channel_names(ctx.final)
    posts = [f"#{names.get(r['channel_id'], r['channel_id'])} ({r['posted_at']}): {r['text']}"
             for r in rows if r["author_id"] == ctx.user["id"]]
    return "\n".join(posts) or "(no chat posts)"


def _files(world: World, name: str, kind: str) -> str:
    found = find_files(world, name, kind)  # the files a doc_contains or sheet_cells check of that name reads
    if not found:
        return f"(no {kind} named {name!r})"
    return "\n\n".join(render_file(world, f["id"]) for f in found)


def _changed_files(ctx: GradeContext) -> str:
    diff = ctx.diff.table("drive_file")
    ids = sorted({*diff.inserted, *diff.updated})
    sheets = ctx.diff.table("drive_row")
    for change in [*sheets.inserted.values(), *(c["_row"] for c in sheets.updated.values())]:
        file_id = sheet_of_row(ctx.final, change["sheet_id"])
        if file_id is not None and file_id not in ids:
            ids.append(file_id)
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
