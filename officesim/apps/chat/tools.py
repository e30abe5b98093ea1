"""Chat tools (Slack-like): channels, direct messages, threads and reactions.

Every tool acts as the acting employee: the visibility rules are in ``access`` (public channels
are listed and joinable; private channels and DMs exist only for their members), the rendering of
messages in ``render``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from annotated_types import MaxLen

from officesim.apps.chat.access import (
    MAX_TEXT_CHARS,
    MESSAGE_SQL,
    check_writable,
    clean_text,
    dm_label,
    emoji_name,
    employee,
    find_dm,
    is_member,
    label,
    message_row,
    readable_channel,
    resolve_channel,
)
from officesim.apps.chat.models import dm_channel_name
from officesim.apps.chat.render import channel_dict, marks, member_count, paged_messages, reactions, render_messages
from officesim.apps.search import match_all, query_terms, time_window
from officesim.errors import Conflict, InvalidArgument, PermissionDenied
from officesim.paging import clip, paged
from officesim.tools import tool

if TYPE_CHECKING:
    import sqlite3

    from officesim.world import World

Text = Annotated[str, MaxLen(MAX_TEXT_CHARS)]  # checked by the registry before any work
_KIND_ORDER = "CASE c.kind WHEN 'public' THEN 0 WHEN 'private' THEN 1 ELSE 2 END"


def _insert_message(w: World, channel: sqlite3.Row, text: str, thread_id: str | None) -> dict[str, Any]:
    """Write one message by the acting user, stamped now (the caller ticked), and return it as the model sees it."""
    message_id = w.new_id("cm")
    w.db.execute(
        "INSERT INTO chat_message (id, channel_id, author_id, text, posted_at, thread_id) VALUES (?, ?, ?, ?, ?, ?)",
        (message_id, channel["id"], w.user_id, text, w.now_ts(), thread_id),
    )
    row = w.db.execute(f"{MESSAGE_SQL} WHERE m.id = ?", (message_id,)).fetchone()
    return render_messages(w, [row])[0]


@tool(app="chat", kind="read")
def chat_list_channels(
    w: World, include_unjoined: bool = True, cursor: str | None = None, limit: int = 20
) -> dict[str, Any]:
    """List the chat channels and direct-message conversations you can see.

    Public channels come first (by name), then your private channels, then your DMs (named
    '@<person>', with dm_with saying who that is).
    Each entry says whether you are a member; you can read and post only where is_member is true
    (join public channels with chat_join_channel).

    Args:
        include_unjoined: Also list public channels you have not joined. False lists only your
            channels and DMs.
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    sql = (
        "WITH mine AS (SELECT channel_id FROM chat_member WHERE person_id = ?) "
        "SELECT c.*, c.id IN mine AS is_member FROM chat_channel c "
        f"WHERE c.id IN mine OR (c.kind = 'public' AND ?) ORDER BY {_KIND_ORDER}, c.name, c.id"
    )
    page = paged(w.db, sql, [w.user_id, include_unjoined], cursor=cursor, limit=limit,
                 key="channels", render=lambda r: r)
    rows = page["channels"]
    ids = [r["id"] for r in rows]
    counts = dict(w.db.execute(
        f"SELECT channel_id, count(*) FROM chat_member WHERE channel_id IN ({marks(ids)}) GROUP BY channel_id", ids
    ).fetchall()) if rows else {}
    dm_ids = [r["id"] for r in rows if r["kind"] == "dm"]
    partners = {
        r[0]: {"id": r[1], "name": r[2], "email": r[3]}
        for r in w.db.execute(
            "SELECT m.channel_id, p.id, p.name, p.email FROM chat_member m "
            f"JOIN directory_person p ON p.id = m.person_id WHERE m.channel_id IN ({marks(dm_ids)}) "
            "AND m.person_id != ? ORDER BY m.rowid DESC",  # the first-joined other member wins
            [*dm_ids, w.user_id],
        )
    } if dm_ids else {}
    page["channels"] = [
        channel_dict(w, r, is_member=bool(r["is_member"]), member_count=counts.get(r["id"], 0),
                     partner=partners.get(r["id"], {"id": None}))
        for r in rows
    ]
    return page


@tool(app="chat", kind="read")
def chat_list_messages(
    w: World,
    channel: str,
    after: str | None = None,
    before: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Read a channel's or DM's history, newest first.

    Lists top-level messages only; a message with reply_count > 0 has a thread you can read with
    chat_get_thread. You must be a member of the channel.

    Args:
        channel: The channel id ('ch_3'), name ('#finance' or 'finance'), or for a DM the other
            person ('@Jane Doe', an email or a person id).
        after: Only messages posted at or after this time, ISO date or datetime ('2026-09-01' means
            from the start of that day, UTC).
        before: Only messages posted before this time ('2026-09-30' means before that day starts).
        cursor: The next_cursor of a previous result, to read older messages.
        limit: Messages per page, 1 to 100.
    """
    room = readable_channel(w, channel, "read its messages")
    clauses, params = time_window("m.posted_at", after, before)
    where = "".join(f" AND {c}" for c in clauses)
    sql = (f"{MESSAGE_SQL} WHERE m.channel_id = ? AND m.thread_id IS NULL{where} "
           "ORDER BY m.posted_at DESC, m.rowid DESC")
    page = paged_messages(w, sql, [room["id"], *params], cursor, limit)
    return {"channel_id": room["id"], "channel": label(w, room), **page}


@tool(app="chat", kind="read")
def chat_get_thread(w: World, message_id: str, cursor: str | None = None, limit: int = 50) -> dict[str, Any]:
    """Read a whole thread: its root message first, then every reply, oldest first.

    Pass the id of the root or of any reply; both open the same thread.

    Args:
        message_id: A message id like 'cm_12' (from chat_list_messages or chat_search_messages).
        cursor: The next_cursor of a previous result, to read further replies.
        limit: Messages per page (the root counts as one), 1 to 100.
    """
    row = message_row(w, message_id, "read the thread")
    root = row["thread_id"] or row["id"]
    sql = (f"{MESSAGE_SQL} WHERE m.id = ? OR m.thread_id = ? "
           "ORDER BY m.thread_id IS NOT NULL, m.posted_at, m.rowid")
    page = paged_messages(w, sql, [root, root], cursor, limit)
    replies = w.db.execute("SELECT count(*) FROM chat_message WHERE thread_id = ?", (root,)).fetchone()[0]
    name = f"#{row['channel_name']}" if row["channel_kind"] != "dm" else dm_label(w, row["channel_id"])
    return {"thread_id": root, "channel_id": row["channel_id"], "channel": name, "reply_count": replies, **page}


@tool(app="chat", kind="read")
def chat_get_message(w: World, message_id: str, offset: int = 0) -> dict[str, Any]:
    """Get one message with its full text (lists and threads cut long messages with a marker).

    Args:
        message_id: A message id like 'cm_12'.
        offset: Character offset to read from, when a previous result said the text was truncated.
    """
    row = message_row(w, message_id, "read the message")
    item = render_messages(w, [row], preview=len(row["text"]) + 1)[0]
    body = clip(row["text"], offset=offset, how=f"Call chat_get_message(message_id='{row['id']}')")
    item.update(body)
    return item


@tool(app="chat", kind="read")
def chat_search_messages(
    w: World,
    query: str | None = None,
    channel: str | None = None,
    author: str | None = None,
    after: str | None = None,
    before: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search messages (thread replies included) in every channel and DM you are a member of, newest first.

    Every word of the query must appear in the message (case-insensitive); put a phrase in
    double quotes to match it as written.

    Args:
        query: Words to find, e.g. 'travel approval' or '"drive file f_12"'. Null or empty matches
            every message (filter by channel, author or dates instead).
        channel: Only this channel: id ('ch_3'), name ('#finance'), or '@person' for a DM.
        author: Only messages by this employee (email, person id or full name).
        after: Only messages posted at or after this time (ISO date or datetime).
        before: Only messages posted before this time (ISO date or datetime).
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    clauses, params = time_window("m.posted_at", after, before)
    words, word_params = match_all(query_terms(query), ("m.text",))
    clauses += words
    params += word_params
    if channel is not None and channel.strip():
        room = readable_channel(w, channel, "search it")
        clauses.append("m.channel_id = ?")
        params.append(room["id"])
    if author is not None and author.strip():
        clauses.append("m.author_id = ?")
        params.append(employee(w, author, "author")["id"])
    where = "".join(f" AND {c}" for c in clauses)
    sql = (f"{MESSAGE_SQL} JOIN chat_member me ON me.channel_id = m.channel_id AND me.person_id = ? "
           f"WHERE 1{where} ORDER BY m.posted_at DESC, m.rowid DESC")
    return paged_messages(w, sql, [w.user_id, *params], cursor, limit)


@tool(app="chat", kind="read")
def chat_list_members(w: World, channel: str, cursor: str | None = None, limit: int = 50) -> dict[str, Any]:
    """List the members of a channel (or DM) with their emails, titles and departments.

    Works for public channels you have not joined too.

    Args:
        channel: The channel id ('ch_3'), name ('#finance'), or '@person' for a DM.
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Members per page, 1 to 100.
    """
    room = resolve_channel(w, channel)
    sql = (
        "SELECT p.id, p.name, p.email, p.title, d.name AS department, m.joined_at FROM chat_member m "
        "JOIN directory_person p ON p.id = m.person_id LEFT JOIN directory_department d ON d.id = p.department_id "
        "WHERE m.channel_id = ? ORDER BY p.name, p.id"
    )
    page = paged(w.db, sql, [room["id"]], cursor=cursor, limit=limit, key="members", render=dict)
    return {"channel_id": room["id"], "channel": label(w, room), "member_count": member_count(w, room["id"]),
            **page}


# ----------------------------------------------------------------------------- write tools
@tool(app="chat", kind="write")
def chat_post_message(w: World, channel: str, text: Text) -> dict[str, Any]:
    """Post a new top-level message in a channel or DM you are a member of.

    To answer a specific message, use chat_reply_message (it keeps the thread together); to
    message a person privately, use chat_send_dm.

    Args:
        channel: The channel id ('ch_3'), name ('#finance' or 'finance'), or '@person' for an
            existing DM.
        text: The message (plain text; mention files as 'name (drive file f_12)').
    """
    room = readable_channel(w, channel, "post")
    check_writable(w, room)
    body = clean_text(text)
    w.tick()
    return _insert_message(w, room, body, None)


@tool(app="chat", kind="write")
def chat_reply_message(w: World, message_id: str, text: Text) -> dict[str, Any]:
    """Reply in the thread of a message (replying to a reply goes to the same thread).

    Args:
        message_id: The message to answer, e.g. 'cm_12'.
        text: The reply.
    """
    row = message_row(w, message_id, "reply")
    room = w.db.execute("SELECT * FROM chat_channel WHERE id = ?", (row["channel_id"],)).fetchone()
    check_writable(w, room)
    body = clean_text(text)
    w.tick()
    return _insert_message(w, room, body, row["thread_id"] or row["id"])


@tool(app="chat", kind="write")
def chat_send_dm(w: World, person: str, text: Text) -> dict[str, Any]:
    """Send a direct message to a colleague, opening the conversation if there is none yet.

    Args:
        person: The colleague's email, person id ('p_12') or full name.
        text: The message.
    """
    other = employee(w, person)
    if other["id"] == w.user_id:
        raise InvalidArgument("that is you; pass the email or person id of the colleague you want to message")
    body = clean_text(text)
    room = find_dm(w, w.user_id, other["id"])
    created = room is None
    if room is not None:
        check_writable(w, room)
    w.tick()  # one moment: a new conversation opens when its first message is sent
    if room is None:
        channel_id = w.new_id("ch")
        now = w.now_ts()
        w.db.execute(
            "INSERT INTO chat_channel (id, name, kind, topic, created_by, created_at, archived) "
            "VALUES (?, ?, 'dm', '', ?, ?, 0)",
            (channel_id, dm_channel_name(w.user_id, other["id"]), w.user_id, now),
        )
        w.db.executemany(
            "INSERT INTO chat_member (id, channel_id, person_id, joined_at) VALUES (?, ?, ?, ?)",
            [(w.new_id("mem"), channel_id, pid, now) for pid in (w.user_id, other["id"])],
        )
        room = w.db.execute("SELECT * FROM chat_channel WHERE id = ?", (channel_id,)).fetchone()
    message = _insert_message(w, room, body, None)
    return {**message, "dm_created": created}


@tool(app="chat", kind="write")
def chat_react_message(w: World, message_id: str, emoji: str) -> dict[str, Any]:
    """Add an emoji reaction to a message (e.g. 'white_check_mark' to acknowledge or approve).

    Idempotent: reacting again with an emoji you already added changes nothing and returns
    added=false.

    Args:
        message_id: The message to react to, e.g. 'cm_12'.
        emoji: A Slack-style emoji name such as 'thumbsup', 'white_check_mark', 'eyes' or 'tada'
            (colons optional; common emoji characters like 👍 are accepted).
    """
    row = message_row(w, message_id, "react")
    check_writable(w, w.db.execute("SELECT * FROM chat_channel WHERE id = ?", (row["channel_id"],)).fetchone())
    name = emoji_name(emoji)
    exists = w.db.execute(
        "SELECT id FROM chat_reaction WHERE message_id = ? AND person_id = ? AND emoji = ?",
        (row["id"], w.user_id, name),
    ).fetchone()
    if exists is None:
        reaction_id = w.new_id("rx")
        w.tick()
        w.db.execute(
            "INSERT INTO chat_reaction (id, message_id, person_id, emoji) VALUES (?, ?, ?, ?)",
            (reaction_id, row["id"], w.user_id, name),
        )
    else:
        reaction_id = exists["id"]
    return {"id": reaction_id, "message_id": row["id"], "emoji": name, "added": exists is None,
            "reactions": reactions(w, [row["id"]]).get(row["id"], [])}


@tool(app="chat", kind="write")
def chat_join_channel(w: World, channel: str) -> dict[str, Any]:
    """Join a public channel so you can read and post in it.

    Private channels cannot be joined: a member has to add you.

    Args:
        channel: The public channel's id ('ch_3') or name ('#finance' or 'finance').
    """
    room = resolve_channel(w, channel)
    if is_member(w, room["id"]):
        raise Conflict(
            f"you are already a member of {label(w, room)}; read it with chat_list_messages or post with "
            "chat_post_message"
        )
    if room["kind"] != "public":  # invisible to non-members, so unreachable today; kept as a guard
        raise PermissionDenied(f"#{room['name']} is private; ask one of its members to add you")
    if room["archived"]:
        raise Conflict(f"#{room['name']} is archived and cannot be joined; chat_list_channels shows the active "
                       "channels")
    w.tick()
    w.db.execute(
        "INSERT INTO chat_member (id, channel_id, person_id, joined_at) VALUES (?, ?, ?, ?)",
        (w.new_id("mem"), room["id"], w.user_id, w.now_ts()),
    )
    return channel_dict(w, room, is_member=True, member_count=member_count(w, room["id"]))
