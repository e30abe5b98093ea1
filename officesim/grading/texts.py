"""The texts a reader got from the agent: the answer, a mail as its recipients saw it, a doc, posts.

Fact checks read these, never a file found by name elsewhere: a mail's text is its body plus the
content of the files actually attached to it (by id), so an empty doc attached under the report's
name is an empty attachment, whatever a namesake doc holds.  A doc is one the agent wrote in the
episode (created or edited), chat posts are the agent's own.

``attachment_text`` is the one place that reads an attachment: the copy the message carries,
taken when it was sent (``officesim.apps.mail.attachments.attachments_of``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from officesim.apps.chat.reading import channels_named, dms_of
from officesim.apps.drive.reading import is_named
from officesim.apps.mail.attachments import attachments_of
from officesim.apps.mail.text import quote

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext, SentMail

TEXT_FORMS = "answer, sent_mail, messages, attachments, doc:<name>, chat_posts, crm:<table>.<field>"


@dataclass(frozen=True)
class Text:
    """One text a reader got: what it is (for reasons) and its content."""

    label: str
    content: str
    recipients: frozenset[str] = frozenset()


def attachment_text(ctx: GradeContext, mail: SentMail, file_id: str) -> str:
    """The copy of ``file_id`` that ``mail`` carries, as it was when the mail was sent (what the
    recipients got; later edits, a namesake elsewhere or the file's deletion change nothing)."""
    copy = next((c for c in attachments_of(ctx.final, mail.id) if c["file_id"] == file_id), None)
    if copy is None:
        return f"(no copy of {file_id} travelled with {mail.id})"
    return f"File {copy['name']} ({file_id}):\n{copy.get('content') or ''}"


def own_body(ctx: GradeContext, mail: SentMail) -> str:
    """The body the agent wrote: a reply's automatic quote of the original (exactly as the mail tool
    appends it) is the original sender's words, not the agent's claims, so it is cut.

    Only the exact quote of the message replied to is cut: lines the agent itself prefixes with
    ``>`` stay (hiding a hedge in a home-made quote must not work).
    """
    if not mail.in_reply_to:
        return mail.body
    row = ctx.final.db.execute("SELECT body, sender, sender_name, sent_at FROM mail_message WHERE id = ?",
                               (mail.in_reply_to,)).fetchone()
    if row is None:
        return mail.body
    tail = quote(row["body"] or "", sender_name=row["sender_name"], sender=row["sender"], sent_at=row["sent_at"])
    return mail.body[: -len(tail)].rstrip() if mail.body.endswith(tail) else mail.body


def mail_texts(ctx: GradeContext, mails: list[SentMail], *, body: bool = True) -> list[Text]:
    """Each mail as its recipients got it: the body the agent wrote (unless ``body`` is False; a reply's
    automatic quote of the original is not the agent's) and every attachment."""
    out = []
    for mail in mails:
        parts = [mail.subject, own_body(ctx, mail)] if body else []
        parts += [attachment_text(ctx, mail, file_id) for file_id in mail.attachments]
        out.append(Text(f"mail {mail.id} ({mail.subject!r})", "\n\n".join(parts), frozenset(mail.recipients())))
    return out


def _docs(ctx: GradeContext, name: str) -> list[Text]:
    diff = ctx.diff.table("drive_file")
    rows = [*diff.inserted.values(), *(change["_row"] for change in diff.updated.values())]
    return [Text(f"doc {r['id']} ({r['name']!r})", r["content"] or "")
            for r in sorted(rows, key=lambda r: r["id"])
            if r["kind"] == "doc" and not r["trashed"] and is_named(r, name)]


def _posts(ctx: GradeContext, channel: str | None) -> list[Text]:
    rows = sorted(ctx.diff.table("chat_message").inserted.values(), key=lambda r: (r["posted_at"], r["id"]))
    rows = [r for r in rows if r["author_id"] == ctx.user["id"]]
    if channel is not None:
        wanted = _channel_ids(ctx, channel)
        rows = [r for r in rows if r["channel_id"] in wanted]
    if not rows:
        return []
    return [Text("chat posts" + (f" in {channel}" if channel else ""), "\n\n".join(r["text"] or "" for r in rows))]


def _channel_ids(ctx: GradeContext, channel: str) -> set[str]:
    """A channel by id or name, or the DM with a person (a person ref)."""
    return channels_named(ctx.final, channel) or dms_of(ctx.final, ctx.person_id(channel))


def _fields(ctx: GradeContext, table: str, column: str) -> list[Text]:
    diff = ctx.diff.table(table)
    rows = [*diff.inserted.items(), *((k, change["_row"]) for k, change in diff.updated.items())]
    return [Text(f"{table} {key}.{column}", str(row.get(column) or "")) for key, row in sorted(rows)]


def texts(ctx: GradeContext, form: str, *, to: list[str] | None = None, channel: str | None = None) -> list[Text]:
    """The texts ``form`` names (see ``TEXT_FORMS``); mail only to ``to`` (all of them) when given."""
    kind, _, arg = form.partition(":")
    if form == "answer":
        return [Text("the answer", ctx.answer)] if ctx.answer and ctx.answer.strip() else []
    if form in ("sent_mail", "attachments"):
        mails = ctx.sent_mail
        if to is not None:
            wanted = ctx.emails(to)
            mails = [m for m in mails if wanted <= m.recipients()]
        return mail_texts(ctx, mails, body=form == "sent_mail")
    if form == "chat_posts":
        return _posts(ctx, channel)
    if form == "messages" and channel is not None:  # "told", wherever they would hear it
        return _told(ctx, to or [], channel)
    if form == "messages":  # "let them know": the mail to them; without one, the direct messages to the one person
        mailed = texts(ctx, "sent_mail", to=to)
        return mailed or (_posts(ctx, to[0]) if to is not None and len(to) == 1 else [])
    if kind == "doc":
        return _docs(ctx, arg)
    if kind == "crm":
        table, _, column = arg.partition(".")
        return _fields(ctx, table if table.startswith("crm_") else f"crm_{table}", column)
    raise ValueError(f"{form!r} is not a text form ({TEXT_FORMS})")


def _is_user(ctx: GradeContext, ref: str) -> bool:
    """Whether a person ref is the acting user ("user", their id or address, or their role)."""
    if ref in ("user", ctx.user["id"]) or ref.casefold() == ctx.user_email.casefold():
        return True
    return ref.startswith("role:") and ctx.person_id(ref) == ctx.user["id"]


def _told(ctx: GradeContext, to: list[str], channel: str) -> list[Text]:
    """``messages`` with a ``channel``: every way the people were told, each its own text.  ``to``: people
    whose mail (any mail to one of them: to, cc or bcc) and direct messages are read; ``channel``: more places,
    comma-separated: a channel (name or id: its posts), a person ref (their mail and DMs, as ``to``), or
    ``user`` (the answer: the user who asked for the work hears it there).  A check holds when one of the
    texts says it all and none breaks a rule."""
    people, channels, answer = list(to), [], False
    for place in (p.strip() for p in channel.split(",")):
        if not place:
            continue
        if _is_user(ctx, place):
            answer = True
        elif channels_named(ctx.final, place):
            channels.append(place)
        else:
            people.append(place)
    out = texts(ctx, "answer") if answer else []
    if people:
        wanted = ctx.emails(people)
        out += mail_texts(ctx, [m for m in ctx.sent_mail if wanted & m.recipients()])
        for ref in dict.fromkeys(ctx.person_id(ref) for ref in people):  # (one person by two refs: once)
            out += [Text(f"direct messages to {ref}", t.content) for t in _posts(ctx, ref)]
    for name in channels:
        out += _posts(ctx, name)
    return out
