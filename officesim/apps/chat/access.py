"""Who sees which chat channel and message, and how tool arguments are read.

The visibility rules live here, in one place, so every chat tool enforces them alike:

* public channels are visible to everyone (listed, members listed, joinable); only members read
  and post in them;
* private channels and DMs exist only for their members: to anyone else they are ``NotFound``,
  never listed, never suggested by name.

Channel references accept an id (``ch_3``), a name with or without ``#`` (``'Q3 close'`` finds
``#q3-close``), or for a DM the other person (``@Jane Doe``, an email, a person id).
"""

from __future__ import annotations

import difflib
import re
import sqlite3
from typing import TYPE_CHECKING, Any

from officesim.apps import people
from officesim.apps.chat.models import dm_channel_name
from officesim.errors import Conflict, InvalidArgument, NotFound, PermissionDenied

if TYPE_CHECKING:
    from officesim.world import World

MAX_TEXT_CHARS = 40_000  # Slack's own limit for one message
MESSAGE_SQL = (
    "SELECT m.id, m.channel_id, m.author_id, m.text, m.posted_at, m.thread_id, c.name AS channel_name, "
    "c.kind AS channel_kind, p.name AS author_name, p.email AS author_email "
    "FROM chat_message m JOIN chat_channel c ON c.id = m.channel_id "
    "LEFT JOIN directory_person p ON p.id = m.author_id"
)
_CHANNEL_ID = re.compile(r"^ch_\d+$")
_EMOJI_NAME = re.compile(r"^[a-z0-9_+\-]{1,40}$")
# What models type instead of a Slack emoji name.
_EMOJI_ALIASES = {
    "👍": "thumbsup", "+1": "thumbsup", "thumbs_up": "thumbsup", "👎": "thumbsdown", "-1": "thumbsdown",
    "✅": "white_check_mark", "check": "white_check_mark", "✔️": "heavy_check_mark", "🎉": "tada",
    "❤️": "heart", "❤": "heart", "👀": "eyes", "😂": "joy", "🙏": "pray", "🔥": "fire", "🚀": "rocket",
    "👏": "clap", "😄": "smile", "🙂": "slightly_smiling_face", "💯": "100", "👋": "wave",
}


def is_member(w: World, channel_id: str) -> bool:
    """Whether the acting user belongs to the channel (one probe of the (channel, person) index)."""
    return w.db.execute(
        "SELECT 1 FROM chat_member WHERE channel_id = ? AND person_id = ? LIMIT 1", (channel_id, w.user_id)
    ).fetchone() is not None


def visible(w: World, channel: sqlite3.Row) -> bool:
    """Public channels are visible to everyone; private ones and DMs only to their members."""
    return channel["kind"] == "public" or is_member(w, channel["id"])


def dm_partner(w: World, channel_id: str) -> sqlite3.Row | None:
    """The other person in a DM (id, name, email), from the acting user's side."""
    return w.db.execute(
        "SELECT p.id, p.name, p.email FROM chat_member m JOIN directory_person p ON p.id = m.person_id "
        "WHERE m.channel_id = ? AND m.person_id != ? ORDER BY m.rowid LIMIT 1",
        (channel_id, w.user_id),
    ).fetchone()


def label(w: World, channel: sqlite3.Row) -> str:
    """How the model sees a channel's name: '#finance', or '@Jane Doe' for a DM."""
    return f"#{channel['name']}" if channel["kind"] != "dm" else dm_label(w, channel["id"])


def dm_label(w: World, channel_id: str) -> str:
    """A DM's name as the acting user sees it: '@' and the other person's name."""
    partner = dm_partner(w, channel_id)
    return f"@{partner['name']}" if partner else "@(nobody else)"


def employee(w: World, ref: str, param: str = "person") -> dict[str, Any]:
    """An employee by id, email or exact name (chat reaches colleagues only)."""
    return people.employee(w, ref, param, outsiders="Chat only reaches colleagues; use mail_send_message to "
                           "write to people outside the company.")


def find_dm(w: World, person_a: str, person_b: str) -> sqlite3.Row | None:
    """The DM channel between two people, whoever opened it.

    Every DM is stored under its canonical name (``dm_channel_name``: generation and
    ``chat_send_dm`` both name it so), which the name index finds in one probe however many
    channels the user belongs to; walking the user's memberships instead grew with the world.
    Both memberships are still required, so a channel that only carries the name is never taken.
    """
    return w.db.execute(
        "SELECT c.* FROM chat_channel c WHERE c.name = ? AND c.kind = 'dm' "
        "AND EXISTS (SELECT 1 FROM chat_member a WHERE a.channel_id = c.id AND a.person_id = ?) "
        "AND EXISTS (SELECT 1 FROM chat_member b WHERE b.channel_id = c.id AND b.person_id = ?) "
        "ORDER BY c.rowid LIMIT 1",
        (dm_channel_name(person_a, person_b), person_a, person_b),
    ).fetchone()


def _suggest(w: World, name: str) -> str:
    """'Did you mean' among the channels the user can see (never a private channel they are not in)."""
    names = [r[0] for r in w.db.execute(
        "SELECT c.name FROM chat_channel c WHERE c.kind = 'public' OR (c.kind = 'private' AND EXISTS "
        "(SELECT 1 FROM chat_member m WHERE m.channel_id = c.id AND m.person_id = ?))",
        (w.user_id,),
    )]
    close = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.6)
    return f" Did you mean '#{close[0]}'?" if close else ""


def resolve_channel(w: World, ref: str) -> sqlite3.Row:
    """A channel the acting user can see, from an id, a name ('#finance', 'finance') or '@person'."""
    text = ref.strip()
    if not text.lstrip("#@"):
        raise InvalidArgument("channel is empty; pass a channel id like 'ch_3' or a name like '#general'")
    if _CHANNEL_ID.match(text):
        row = w.db.execute("SELECT * FROM chat_channel WHERE id = ?", (text,)).fetchone()
        if row is not None and visible(w, row):
            return row
        raise NotFound(f"no channel with id {text!r} that you can see; use chat_list_channels to see channels")
    if "@" in text:
        person = employee(w, text)
        if person["id"] == w.user_id:
            raise InvalidArgument(f"{text!r} is you; a direct message is with a colleague: pass '@' and their "
                                  "name or email, e.g. '@Jane Doe'")
        dm = find_dm(w, w.user_id, person["id"])
        if dm is None:
            raise NotFound(
                f"you have no direct messages with {person['name']} yet; use chat_send_dm(person="
                f"'{person['email']}', ...) to start the conversation"
            )
        return dm
    name = text.lstrip("#").strip()
    for candidate in dict.fromkeys((name, re.sub(r"\s+", "-", name.lower()))):
        rows = w.db.execute(
            "SELECT * FROM chat_channel WHERE name = ? COLLATE NOCASE ORDER BY rowid", (candidate,)
        ).fetchall()
        for row in rows:
            if visible(w, row):
                return row
    raise NotFound(
        f"no channel named '#{name}' that you can see.{_suggest(w, name)} Use chat_list_channels to see "
        "channels, or chat_send_dm to message a person"
    )


def readable_channel(w: World, ref: str, action: str) -> sqlite3.Row:
    """A channel the acting user is a member of (public non-members are told to join first)."""
    channel = resolve_channel(w, ref)
    require_member(w, channel, action)
    return channel


def require_member(w: World, channel: sqlite3.Row, action: str) -> None:
    """Refuse non-members, telling them how to join and what to do next."""
    if not is_member(w, channel["id"]):
        raise PermissionDenied(
            f"you are not a member of #{channel['name']}; call chat_join_channel(channel='{channel['name']}') "
            f"first, then {action}"
        )


def check_writable(w: World, channel: sqlite3.Row) -> None:
    """Archived channels keep their history but take no new messages."""
    if channel["archived"]:
        raise Conflict(f"{label(w, channel)} is archived and read-only; post in another channel instead")


def message_row(w: World, message_id: str, action: str) -> sqlite3.Row:
    """A message in a channel the acting user is a member of."""
    text = message_id.strip()
    row = w.db.execute(f"{MESSAGE_SQL} WHERE m.id = ?", (text,)).fetchone()
    if row is None or (row["channel_kind"] != "public" and not is_member(w, row["channel_id"])):
        raise NotFound(
            f"no message {message_id!r} in the channels you can see; message ids look like 'cm_12' and come "
            "from chat_list_messages or chat_search_messages"
        )
    if not is_member(w, row["channel_id"]):
        raise PermissionDenied(
            f"message {text!r} is in #{row['channel_name']}, which you have not joined; call "
            f"chat_join_channel(channel='{row['channel_name']}') first, then {action}"
        )
    return row


# ----------------------------------------------------------------------------- argument checks
def clean_text(text: str) -> str:
    """A message text, stripped; empty or oversized texts are refused with what to do instead."""
    cleaned = text.strip()
    if not cleaned:
        raise InvalidArgument("text is empty; write the message you want to post")
    if len(cleaned) > MAX_TEXT_CHARS:
        raise InvalidArgument(
            f"text is {len(cleaned)} characters; a chat message holds at most {MAX_TEXT_CHARS}. Shorten it, "
            "or put the long content in a document and post a link"
        )
    return cleaned


def emoji_name(raw: str) -> str:
    """A Slack emoji name from ':thumbsup:', 'Thumbsup', '+1' or '👍' alike."""
    text = raw.strip()
    name = _EMOJI_ALIASES.get(text) or _EMOJI_ALIASES.get(text.strip(":").lower()) or text.strip(":").lower()
    if not _EMOJI_NAME.match(name):
        raise InvalidArgument(
            f"emoji {raw!r} is not an emoji name; pass a Slack-style name like 'thumbsup', 'white_check_mark', "
            "'eyes' or 'tada' (colons optional)"
        )
    return name
