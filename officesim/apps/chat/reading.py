"""Chat's read interface for grading and judge evidence: channel names, and channels by reference.

The world's own reads (no membership rule applies); the agent reads through the chat tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from officesim.world import World


def channel_names(w: World) -> dict[str, str]:
    """``{channel id: name}`` of every channel (DMs included)."""
    return {r["id"]: r["name"] for r in w.db.execute("SELECT id, name FROM chat_channel")}


def channels_named(w: World, ref: str) -> set[str]:
    """Ids of the channels ``ref`` names: an id, or a name (case-insensitive, a leading ``#`` ignored)."""
    name = ref.lstrip("#")
    return {r["id"] for r in w.db.execute("SELECT id FROM chat_channel WHERE id = ? OR name = ? COLLATE NOCASE",
                                          (name, name))}


def dms_of(w: World, person_id: str) -> set[str]:
    """Ids of the direct-message channels ``person_id`` is in."""
    return {r["channel_id"] for r in w.db.execute(
        "SELECT m.channel_id FROM chat_member m JOIN chat_channel c ON c.id = m.channel_id "
        "WHERE c.kind = 'dm' AND m.person_id = ?", (person_id,))}
