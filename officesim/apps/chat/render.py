"""How chat messages and channels look to the model.

Messages are rendered a page at a time: one query for the reply counts and one for the
reactions of the whole page, so a page of 20 costs a few index probes, not 40 queries.  Long
texts are clipped with a marker that says how to read on (``chat_get_message``).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from officesim.apps.chat.access import dm_label, dm_partner
from officesim.paging import clip, paged

if TYPE_CHECKING:
    from officesim.world import World

PREVIEW_CHARS = 1500  # text shown per message in lists and threads; chat_get_message reads on


def marks(items: list[Any]) -> str:
    """Placeholders for an ``IN (...)`` list of ``items``."""
    return ",".join("?" * len(items))


def reactions(w: World, ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Reactions per message id: ``[{emoji, count, people}]`` in the order they were first added."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    if not ids:
        return {}
    rows = w.db.execute(
        "SELECT r.message_id, r.emoji, coalesce(p.name, r.person_id) AS who FROM chat_reaction r "
        f"LEFT JOIN directory_person p ON p.id = r.person_id WHERE r.message_id IN ({marks(ids)}) "
        "ORDER BY r.rowid",
        ids,
    )
    for message_id, emoji, who in rows:
        entry = out.setdefault(message_id, {}).setdefault(emoji, {"emoji": emoji, "count": 0, "people": []})
        entry["count"] += 1
        entry["people"].append(who)
    return {key: list(by_emoji.values()) for key, by_emoji in out.items()}


def render_messages(w: World, rows: list[sqlite3.Row], *, preview: int = PREVIEW_CHARS) -> list[dict[str, Any]]:
    """Messages as the model sees them, with reply counts and reactions fetched for the whole page."""
    if not rows:
        return []
    ids = [r["id"] for r in rows]
    replies = dict(w.db.execute(
        f"SELECT thread_id, count(*) FROM chat_message WHERE thread_id IN ({marks(ids)}) GROUP BY thread_id", ids
    ).fetchall())
    reacted = reactions(w, ids)
    labels: dict[str, str] = {}
    out = []
    for row in rows:
        channel_id = row["channel_id"]
        if channel_id not in labels:
            labels[channel_id] = (
                f"#{row['channel_name']}" if row["channel_kind"] != "dm" else dm_label(w, channel_id)
            )
        body = clip(row["text"], limit=preview, how=f"Call chat_get_message(message_id='{row['id']}')")
        item = {
            "id": row["id"], "channel_id": channel_id, "channel": labels[channel_id],
            "author_id": row["author_id"], "author_name": row["author_name"], "author_email": row["author_email"],
            "text": body["text"], "posted_at": row["posted_at"], "thread_id": row["thread_id"],
            "reply_count": replies.get(row["id"], 0), "reactions": reacted.get(row["id"], []),
        }
        if body["truncated"]:
            item["truncated"] = True
        out.append(item)
    return out


def paged_messages(
    w: World, sql: str, params: list[Any], cursor: str | None, limit: int, key: str = "messages"
) -> dict[str, Any]:
    """Page through message rows selected by ``sql`` (MESSAGE_SQL plus clauses) and render them."""
    page = paged(w.db, sql, params, cursor=cursor, limit=limit, key=key, render=lambda r: r)
    page[key] = render_messages(w, page[key])
    return page


def channel_dict(
    w: World, channel: sqlite3.Row, *, is_member: bool, member_count: int, partner: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A channel entry; a DM is named after the other person ('@Jane Doe') and says who that is.

    ``partner`` (id, name, email) saves a query when the caller already joined the other person.
    """
    item: dict[str, Any] = {
        "id": channel["id"], "name": channel["name"], "kind": channel["kind"], "topic": channel["topic"],
        "member_count": member_count, "is_member": is_member, "archived": bool(channel["archived"]),
    }
    if channel["kind"] == "dm":
        if partner is None:
            found = dm_partner(w, channel["id"])
            partner = dict(found) if found else None
        if partner is not None and partner["id"] is None:
            partner = None
        item["name"] = f"@{partner['name']}" if partner else "@(nobody else)"
        item["dm_with"] = partner
    return item


def member_count(w: World, channel_id: str) -> int:
    """How many people are in a channel."""
    return w.db.execute("SELECT count(*) FROM chat_member WHERE channel_id = ?", (channel_id,)).fetchone()[0]
