"""Mail tools: search and read your mailbox, send, reply, forward, drafts, folders and labels.

Every tool works on the acting user's own mailbox entries; other people's mail does not exist as
far as the agent can tell ("no message ... in your mailbox").  Writes go through ``compose`` (new
messages) or touch only the user's own entries (folders, labels, read flags).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from officesim.apps.mail.addresses import normalize_list
from officesim.apps.mail.attachments import check_attachments
from officesim.apps.mail.compose import (
    Draft,
    check_body,
    check_subject,
    save_draft,
    send,
    send_existing_draft,
)
from officesim.apps.mail.mailbox import (
    ENTRY_SQL,
    SYSTEM_FOLDERS,
    clean_labels,
    find_entry,
    label_counts,
    target_folder,
)
from officesim.apps.mail.reading import attachment_text
from officesim.apps.mail.search import search
from officesim.apps.mail.text import forward_block, forward_subject, join_note, quote, reply_subject
from officesim.apps.mail.views import THREAD_BODY_LIMIT, full
from officesim.errors import Conflict, InvalidArgument, NotFound
from officesim.tools import tool

if TYPE_CHECKING:
    import sqlite3

    from officesim.world import World

MAX_THREAD = 100


def _me(w: World) -> dict[str, Any]:
    return w.person(w.user_id)


def _not_draft(row: sqlite3.Row, action: str) -> None:
    if row["status"] == "draft":
        raise InvalidArgument(f"{row['id']} is a draft, which cannot be {action}; send it with mail_send_draft "
                              "or edit it with mail_update_draft")


def _state(message_id: str, folder: str, labels: list[str], is_read: bool, **extra: Any) -> dict[str, Any]:
    return {"id": message_id, "folder": folder, "labels": labels, "is_read": is_read, **extra}


# ------------------------------------------------------------------------------------------ reading
@tool(app="mail", kind="read")
def mail_search_messages(
    w: World,
    query: str | None = None,
    sender: str | None = None,
    recipient: str | None = None,
    folder: str | None = None,
    label: str | None = None,
    after: str | None = None,
    before: str | None = None,
    has_attachment: bool | None = None,
    unread_only: bool = False,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search your own mailbox, newest first; returns message summaries (no full bodies).

    Searches every folder except the trash unless you pass folder. Use mail_get_message to read a
    result in full and mail_get_thread to read a whole conversation.

    Args:
        query: Words to find in the subject or body (case-insensitive); every word must appear. Put a
            phrase in double quotes to match it exactly, e.g. 'invoice "INV-2026-0042"'.
        sender: Only mail from this sender: an email, a person id, or part of a name or address (e.g. 'priya').
        recipient: Only mail to or cc'd to this address, person id, or part of an address.
        folder: Only this folder: inbox, sent, drafts, archive, trash, or one of your custom folders.
        label: Only messages carrying this label.
        after: Only mail sent at or after this ISO date or datetime (e.g. '2026-09-01'; a date includes that day).
        before: Only mail sent before this ISO date or datetime (a date excludes that day).
        has_attachment: True for only messages with attachments, false for only those without.
        unread_only: True to show only unread messages.
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    return search(w, query=query, sender=sender, recipient=recipient, folder=folder, label=label, after=after,
                  before=before, has_attachment=has_attachment, unread_only=unread_only, cursor=cursor,
                  limit=limit)


@tool(app="mail", kind="read")
def mail_get_message(w: World, message_id: str, offset: int = 0) -> dict[str, Any]:
    """Read one message of your mailbox in full: headers, body, attachments, folder, labels.

    Long bodies are cut at 4000 characters; the result then says which offset to call again with.
    Reading does not mark the message read (use mail_mark_message for that).

    Args:
        message_id: The message id, e.g. 'msg_12' (from mail_search_messages or mail_get_thread).
        offset: Character offset in the body to start reading from (0 = beginning).
    """
    row = find_entry(w, message_id)
    return full(w, row, _me(w)["email"], offset=offset)


@tool(app="mail", kind="read")
def mail_get_thread(w: World, thread_id: str) -> dict[str, Any]:
    """Read a whole conversation: every message of the thread in your mailbox, oldest first.

    Bodies are cut shorter than in mail_get_message; read a long one there with its offset.

    Args:
        thread_id: The thread id, e.g. 'thr_4' (every message summary has one). A message id is accepted too.
    """
    me = _me(w)
    ref = thread_id.strip()
    if ref.startswith("msg_"):
        ref = find_entry(w, ref)["thread_id"]
    rows = w.db.execute(
        f"{ENTRY_SQL} WHERE e.owner_id = ? AND m.thread_id = ? ORDER BY m.sent_at, length(m.id), m.id LIMIT ?",
        (me["id"], ref, MAX_THREAD + 1),
    ).fetchall()
    if not rows:
        raise NotFound(f"no thread {thread_id!r} in your mailbox; thread ids look like 'thr_4' and come with "
                       "every result of mail_search_messages")
    known = {r["id"] for r in rows}
    messages = [full(w, r, me["email"], limit=THREAD_BODY_LIMIT, known=known) for r in rows[:MAX_THREAD]]
    out: dict[str, Any] = {"thread_id": ref, "subject": rows[0]["subject"], "messages": messages}
    if len(rows) > MAX_THREAD:
        out["note"] = f"only the first {MAX_THREAD} messages are shown; use mail_search_messages to find later ones"
    return out


@tool(app="mail", kind="read")
def mail_get_attachment(w: World, message_id: str, file_id: str, offset: int = 0) -> dict[str, Any]:
    """Read a file attached to a message in your mailbox (a doc's text, or a sheet as CSV text).

    Works even when the Drive file was not shared with you: you received it as an attachment.

    Args:
        message_id: The message the file is attached to, e.g. 'msg_12'.
        file_id: The attachment's Drive file id, e.g. 'f_7' (listed in the message's attachments).
        offset: Character offset to start reading from, for long files (0 = beginning).
    """
    row = find_entry(w, message_id)
    if file_id.strip() not in json.loads(row["attachments"]):
        raise NotFound(f"{message_id} has no attachment {file_id!r}; its attachments are "
                       f"{json.loads(row['attachments']) or 'none'}")
    return attachment_text(w, row["id"], file_id.strip(), offset)


@tool(app="mail", kind="read")
def mail_list_folders(w: World) -> dict[str, Any]:
    """List your mail folders and labels with how many messages each holds and how many are unread.

    Args:
    """
    me = _me(w)
    counts = {r[0]: (r[1], r[2]) for r in w.db.execute(
        "SELECT folder, count(*), sum(is_read = 0) FROM mail_entry WHERE owner_id = ? GROUP BY folder",
        (me["id"],))}
    custom = sorted(set(counts) - set(SYSTEM_FOLDERS), key=str.lower)
    folders = [{"name": f, "total": counts.get(f, (0, 0))[0], "unread": counts.get(f, (0, 0))[1] or 0}
               for f in (*SYSTEM_FOLDERS, *custom)]
    labels = [{"name": name, "total": total, "unread": unread}
              for name, (total, unread) in sorted(label_counts(w, me["id"]).items(), key=lambda kv: kv[0].lower())]
    return {"folders": folders, "labels": labels}


# ------------------------------------------------------------------------------------------ writing
@tool(app="mail", kind="write")
def mail_send_message(
    w: World,
    to: list[str],
    subject: str,
    body: str,
    cc: list[str] | None = None,
    bcc: list[str] | None = None,
    attachments: list[str] | None = None,
) -> dict[str, Any]:
    """Send a new email from your address to colleagues or outside contacts.

    Colleagues receive it in their inbox; other addresses (customers) receive it outside the office.
    To answer an existing message use mail_reply_message or mail_reply_all instead, so that it stays
    in the conversation.

    Args:
        to: Recipient email addresses (at least one), e.g. ['priya.shah@acme.test']; person ids like 'p_12'
            work too. Look colleagues up with directory_search_people.
        subject: The subject line.
        body: The message text (plain text).
        cc: Addresses to copy.
        bcc: Addresses to copy invisibly (other recipients do not see them).
        attachments: Drive file ids to attach, e.g. ['f_12']; you must be able to view each file.
    """
    me = _me(w)
    draft = Draft(to=normalize_list(w, to, "to"), subject=check_subject(subject, required=True),
                  body=check_body(body, required=True), cc=normalize_list(w, cc, "cc"),
                  bcc=normalize_list(w, bcc, "bcc"), attachments=check_attachments(w, attachments))
    return send(w, me, draft)


def _reply(w: World, message_id: str, body: str, attachments: list[str] | None, *, to_all: bool) -> dict[str, Any]:
    me = _me(w)
    row = find_entry(w, message_id)
    _not_draft(row, "replied to")
    original_to, original_cc = json.loads(row["to"]), json.loads(row["cc"])
    if row["sender"] == me["email"]:  # replying to your own message continues it with the same people
        to = list(original_to)
        cc = [a for a in original_cc if a != me["email"]] if to_all else []
    else:
        to = [row["sender"]]
        if to_all:
            to += [a for a in original_to if a not in (me["email"], row["sender"])]
        cc = [a for a in original_cc if a not in (me["email"], *to)] if to_all else []
    if not to:
        to = [row["sender"]]
    text = check_body(body, required=True)
    draft = Draft(
        to=to, cc=cc, subject=reply_subject(row["subject"]),
        body=join_note(text, quote(row["body"], sender_name=row["sender_name"], sender=row["sender"],
                                   sent_at=row["sent_at"])),
        attachments=check_attachments(w, attachments), thread_id=row["thread_id"],
        in_reply_to=row["id"],
    )
    return send(w, me, draft)


@tool(app="mail", kind="write")
def mail_reply_message(w: World, message_id: str, body: str, attachments: list[str] | None = None) -> dict[str, Any]:
    """Reply to the sender of a message (only them), in the same conversation, quoting the original.

    The subject becomes 'Re: <original subject>'. Use mail_reply_all to answer everyone on the message.
    Replying to a message you sent yourself writes to its original recipients.

    Args:
        message_id: The message to answer, e.g. 'msg_12'.
        body: Your reply text (the original is quoted below it automatically).
        attachments: Drive file ids to attach, e.g. ['f_12'].
    """
    return _reply(w, message_id, body, attachments, to_all=False)


@tool(app="mail", kind="write")
def mail_reply_all(w: World, message_id: str, body: str, attachments: list[str] | None = None) -> dict[str, Any]:
    """Reply to the sender and everyone else on the message (to and cc, except yourself).

    The sender and the original 'to' recipients go in 'to', the original cc in 'cc'; BCC recipients are
    not included. The original is quoted below your text.

    Args:
        message_id: The message to answer, e.g. 'msg_12'.
        body: Your reply text.
        attachments: Drive file ids to attach, e.g. ['f_12'].
    """
    return _reply(w, message_id, body, attachments, to_all=True)


@tool(app="mail", kind="write")
def mail_forward_message(
    w: World, message_id: str, to: list[str], body: str | None = None, cc: list[str] | None = None
) -> dict[str, Any]:
    """Forward a message, with its attachments, to other people; your note goes above the original.

    The subject becomes 'Fwd: <original subject>'.

    Args:
        message_id: The message to forward, e.g. 'msg_12'.
        to: Recipient email addresses (at least one).
        body: An optional note to write above the forwarded message.
        cc: Addresses to copy.
    """
    me = _me(w)
    row = find_entry(w, message_id)
    _not_draft(row, "forwarded")
    note = check_body(body or "", required=False)
    original = forward_block(row["body"], sender_name=row["sender_name"], sender=row["sender"],
                             sent_at=row["sent_at"], subject=row["subject"], to=json.loads(row["to"]),
                             cc=json.loads(row["cc"]))
    draft = Draft(
        to=normalize_list(w, to, "to"), cc=normalize_list(w, cc, "cc"), subject=forward_subject(row["subject"]),
        body=join_note(note, original), attachments=json.loads(row["attachments"]),
        thread_id=row["thread_id"], in_reply_to=row["id"],
    )
    return send(w, me, draft)


@tool(app="mail", kind="write")
def mail_create_draft(
    w: World,
    to: list[str],
    subject: str,
    body: str,
    cc: list[str] | None = None,
    bcc: list[str] | None = None,
    attachments: list[str] | None = None,
) -> dict[str, Any]:
    """Save a message as a draft in your drafts folder without sending it.

    Send it later with mail_send_draft, or change it with mail_update_draft.

    Args:
        to: Recipient email addresses (may be empty for now).
        subject: The subject line (may be empty for now).
        body: The message text.
        cc: Addresses to copy.
        bcc: Addresses to copy invisibly.
        attachments: Drive file ids to attach, e.g. ['f_12'].
    """
    me = _me(w)
    draft = Draft(to=normalize_list(w, to, "to"), subject=check_subject(subject, required=False),
                  body=check_body(body, required=False), cc=normalize_list(w, cc, "cc"),
                  bcc=normalize_list(w, bcc, "bcc"), attachments=check_attachments(w, attachments))
    return save_draft(w, me, draft)


def _draft_row(w: World, draft_id: str) -> sqlite3.Row:
    row = find_entry(w, draft_id)
    if row["status"] != "draft":
        raise Conflict(f"{row['id']} is not a draft (it was already sent); use mail_send_message or "
                       "mail_forward_message to send it again")
    return row


@tool(app="mail", kind="write")
def mail_update_draft(
    w: World,
    draft_id: str,
    to: list[str] | None = None,
    subject: str | None = None,
    body: str | None = None,
    cc: list[str] | None = None,
    bcc: list[str] | None = None,
    attachments: list[str] | None = None,
) -> dict[str, Any]:
    """Change a draft before sending it; fields you leave out (null) stay as they are.

    Args:
        draft_id: The draft's message id, e.g. 'msg_40'.
        to: New recipient list (replaces the old one).
        subject: New subject line.
        body: New message text (replaces the old text).
        cc: New cc list (replaces the old one).
        bcc: New bcc list (replaces the old one).
        attachments: New attachment file ids (replaces the old ones; [] removes all).
    """
    me = _me(w)
    row = _draft_row(w, draft_id)
    draft = Draft(
        to=normalize_list(w, to, "to") if to is not None else json.loads(row["to"]),
        subject=check_subject(subject, required=False) if subject is not None else row["subject"],
        body=check_body(body, required=False) if body is not None else row["body"],
        cc=normalize_list(w, cc, "cc") if cc is not None else json.loads(row["cc"]),
        bcc=normalize_list(w, bcc, "bcc") if bcc is not None else json.loads(row["bcc"]),
        attachments=(check_attachments(w, attachments) if attachments is not None
                     else json.loads(row["attachments"])),
        thread_id=row["thread_id"], in_reply_to=row["in_reply_to"],
    )
    return save_draft(w, me, draft, draft_id=row["id"])


@tool(app="mail", kind="write")
def mail_send_draft(w: World, draft_id: str) -> dict[str, Any]:
    """Send one of your drafts as it is now; it moves from drafts to sent.

    Args:
        draft_id: The draft's message id, e.g. 'msg_40' (search folder 'drafts' to find drafts).
    """
    me = _me(w)
    row = _draft_row(w, draft_id)
    draft = Draft(
        to=json.loads(row["to"]), subject=row["subject"], body=row["body"], cc=json.loads(row["cc"]),
        bcc=json.loads(row["bcc"]), attachments=check_attachments(w, json.loads(row["attachments"])),
        in_reply_to=row["in_reply_to"],
    )
    return send_existing_draft(w, me, draft, row["id"], row["thread_id"])


# ------------------------------------------------------------------------------------------ organising
@tool(app="mail", kind="write")
def mail_move_message(w: World, message_id: str, folder: str) -> dict[str, Any]:
    """Move a message of your mailbox to another folder (only your copy moves).

    Args:
        message_id: The message to move, e.g. 'msg_12'.
        folder: 'inbox', 'archive', 'trash', or a custom folder name (created if it does not exist yet,
            e.g. 'Invoices'). 'sent' and 'drafts' hold what you sent and your drafts and cannot be chosen
            for other mail.
    """
    me = _me(w)
    row = find_entry(w, message_id)
    target, created = target_folder(w, me["id"], folder)
    if row["status"] == "draft" and target not in ("drafts", "trash"):
        raise InvalidArgument(f"{row['id']} is a draft; drafts can only be in 'drafts' or 'trash'. Send it with "
                              "mail_send_draft first")
    if row["status"] != "draft" and target == "drafts":
        raise InvalidArgument("only drafts can be in 'drafts'; choose inbox, archive, trash or a custom folder")
    if target == "sent" and row["sender"] != me["email"]:
        raise InvalidArgument("only messages you sent can be in 'sent'; choose inbox, archive, trash or a custom "
                              "folder")
    labels = json.loads(row["labels"])
    if target == row["folder"]:
        return _state(row["id"], target, labels, bool(row["is_read"]), unchanged=True)
    w.tick()
    w.db.execute("UPDATE mail_entry SET folder = ? WHERE id = ?", (target, row["entry_id"]))
    extra = {"created_folder": True} if created else {}
    return _state(row["id"], target, labels, bool(row["is_read"]), **extra)


@tool(app="mail", kind="write")
def mail_label_message(
    w: World, message_id: str, add: list[str] | None = None, remove: list[str] | None = None
) -> dict[str, Any]:
    """Add labels to or remove labels from a message in your mailbox (a message can carry many labels).

    Args:
        message_id: The message to label, e.g. 'msg_12'.
        add: Labels to add, e.g. ['follow-up', 'Customers']; new labels are created on first use.
        remove: Labels to take off the message.
    """
    me = _me(w)
    row = find_entry(w, message_id)
    if not add and not remove:
        raise InvalidArgument("give labels to add and/or remove, e.g. add=['follow-up']")
    labels: list[str] = json.loads(row["labels"])
    present = {x.lower() for x in labels}
    for label in clean_labels(w, me["id"], add):
        if label.lower() not in present:
            present.add(label.lower())
            labels.append(label)
    for label in remove or []:
        text = label.strip()
        kept = [x for x in labels if x.lower() != text.lower()]
        if len(kept) == len(labels):
            raise InvalidArgument(f"{row['id']} has no label {label!r}; its labels are {labels or 'none'}")
        labels = kept
    w.tick()
    w.db.execute("UPDATE mail_entry SET labels = ? WHERE id = ?", (json.dumps(labels), row["entry_id"]))
    return _state(row["id"], row["folder"], labels, bool(row["is_read"]))


@tool(app="mail", kind="write")
def mail_mark_message(w: World, message_id: str, read: bool) -> dict[str, Any]:
    """Mark a message in your mailbox as read or unread.

    Args:
        message_id: The message, e.g. 'msg_12'.
        read: True to mark it read, false to mark it unread.
    """
    row = find_entry(w, message_id)
    labels = json.loads(row["labels"])
    if bool(row["is_read"]) != read:
        w.tick()
        w.db.execute("UPDATE mail_entry SET is_read = ? WHERE id = ?", (read, row["entry_id"]))
    return _state(row["id"], row["folder"], labels, read)


@tool(app="mail", kind="write")
def mail_delete_message(w: World, message_id: str) -> dict[str, Any]:
    """Delete a message from your mailbox: it goes to the trash; deleting it from the trash removes it for good.

    Only your copy is affected; other recipients keep theirs.

    Args:
        message_id: The message to delete, e.g. 'msg_12'.
    """
    row = find_entry(w, message_id)
    w.tick()
    if row["folder"] != "trash":
        w.db.execute("UPDATE mail_entry SET folder = 'trash' WHERE id = ?", (row["entry_id"],))
        return _state(row["id"], "trash", json.loads(row["labels"]), bool(row["is_read"]))
    w.db.execute("DELETE FROM mail_entry WHERE id = ?", (row["entry_id"],))
    if row["status"] == "draft":  # a draft exists only in its author's mailbox
        w.db.execute("DELETE FROM mail_message WHERE id = ? AND status = 'draft'", (row["id"],))
    return {"id": row["id"], "deleted": True}
