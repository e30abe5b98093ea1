"""The chat app: visibility rules, every tool's results and errors, and the generated workspace."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officesim import World
from officesim.apps.chat import generate as chat_generate
from officesim.apps.chat.models import dm_channel_name
from officesim.apps.directory import generate as directory_generate
from officesim.clock import format_ts, parse_ts
from officesim.tools import registry
from officesim.world_spec import load_spec
from officesim.worldgen import GenContext

ROOT = Path(__file__).resolve().parent.parent
CHAT_TOOLS = sorted(name for name, t in registry().items() if t.app == "chat")


def call(w: World, name: str, **arguments: Any) -> dict[str, Any]:
    return w.call(name, arguments)


def error(result: dict[str, Any], kind: str) -> str:
    """The message of an error result of ``kind`` (fails when the call succeeded)."""
    assert "error" in result, f"expected a {kind} error, got {result}"
    assert result["error"]["type"] == kind, result
    return result["error"]["message"]


def channel_id(w: World, name: str) -> str:
    return w.db.execute("SELECT id FROM chat_channel WHERE name = ?", (name,)).fetchone()[0]


def unjoined_public(w: World) -> str:
    """A public channel the acting user is not in."""
    return w.db.execute(
        "SELECT name FROM chat_channel c WHERE kind = 'public' AND NOT EXISTS (SELECT 1 FROM chat_member m "
        "WHERE m.channel_id = c.id AND m.person_id = ?) ORDER BY rowid LIMIT 1", (w.user_id,)
    ).fetchone()[0]


def message_in(w: World, channel: str, *, reply: bool = False) -> str:
    clause = "IS NOT NULL" if reply else "IS NULL"
    return w.db.execute(
        f"SELECT m.id FROM chat_message m JOIN chat_channel c ON c.id = m.channel_id WHERE c.name = ? "
        f"AND m.thread_id {clause} ORDER BY m.rowid LIMIT 1", (channel,)
    ).fetchone()[0]


def user_dm_partner(w: World) -> dict[str, Any]:
    row = w.db.execute(
        "SELECT p.* FROM chat_channel c JOIN chat_member me ON me.channel_id = c.id AND me.person_id = ? "
        "JOIN chat_member o ON o.channel_id = c.id AND o.person_id != ? JOIN directory_person p ON p.id = o.person_id "
        "WHERE c.kind = 'dm' ORDER BY c.rowid LIMIT 1", (w.user_id, w.user_id)
    ).fetchone()
    return dict(row)


# ----------------------------------------------------------------------------- listing channels
def test_list_channels_shows_public_own_private_and_dms_but_never_others_private(tiny: World) -> None:
    result = call(tiny, "chat_list_channels", limit=100)
    channels = {c["id"]: c for c in result["channels"]}
    names = {c["name"] for c in channels.values()}
    assert {"general", "random", "operations", "travel-approvals"} <= names
    assert "leadership" not in names  # private, the ops manager is not in it
    assert result["next_cursor"] is None
    kinds = [c["kind"] for c in result["channels"]]
    assert kinds == sorted(kinds, key=["public", "private", "dm"].index)
    unjoined = unjoined_public(tiny)
    assert any(c["name"] == unjoined and c["is_member"] is False for c in channels.values())
    for channel in channels.values():
        count = tiny.db.execute("SELECT count(*) FROM chat_member WHERE channel_id = ?", (channel["id"],)).fetchone()
        assert channel["member_count"] == count[0]
        if channel["kind"] != "public":
            assert channel["is_member"] is True
    dms = [c for c in channels.values() if c["kind"] == "dm"]
    partner = user_dm_partner(tiny)
    assert [d["name"] for d in dms] == [f"@{partner['name']}"]
    assert dms[0]["dm_with"] == {"id": partner["id"], "name": partner["name"], "email": partner["email"]}


def test_list_channels_without_unjoined_lists_only_memberships(tiny: World) -> None:
    result = call(tiny, "chat_list_channels", include_unjoined=False, limit=100)
    mine = {r[0] for r in tiny.db.execute("SELECT channel_id FROM chat_member WHERE person_id = ?", (tiny.user_id,))}
    assert {c["id"] for c in result["channels"]} == mine
    assert all(c["is_member"] for c in result["channels"])


def test_list_channels_pages_cover_everything_once(tiny: World) -> None:
    everything = call(tiny, "chat_list_channels", limit=100)["channels"]
    seen, cursor = [], None
    while True:
        page = call(tiny, "chat_list_channels", limit=3, cursor=cursor)
        assert len(page["channels"]) <= 3
        seen += page["channels"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == everything
    assert "cursor" in error(call(tiny, "chat_list_channels", cursor="bogus"), "invalid_argument")
    assert "limit" in error(call(tiny, "chat_list_channels", limit=500), "invalid_argument")


# ----------------------------------------------------------------------------- reading messages
def test_list_messages_is_newest_first_top_level_with_reply_counts_and_reactions(tiny: World) -> None:
    result = call(tiny, "chat_list_messages", channel="#general", limit=100)
    messages = result["messages"]
    assert result["channel"] == "#general" and result["channel_id"] == channel_id(tiny, "general")
    expected = tiny.db.execute(
        "SELECT id FROM chat_message WHERE channel_id = ? AND thread_id IS NULL ORDER BY posted_at DESC, rowid DESC",
        (result["channel_id"],),
    ).fetchall()
    assert [m["id"] for m in messages] == [r[0] for r in expected]
    assert all(m["thread_id"] is None for m in messages)
    for message in messages:
        replies = tiny.db.execute("SELECT count(*) FROM chat_message WHERE thread_id = ?", (message["id"],))
        assert message["reply_count"] == replies.fetchone()[0]
        author = tiny.person(message["author_id"])
        assert (message["author_name"], message["author_email"]) == (author["name"], author["email"])
        rows = tiny.db.execute("SELECT emoji, person_id FROM chat_reaction WHERE message_id = ?", (message["id"],))
        reacted = [(r[0], tiny.person(r[1])["name"]) for r in rows]
        assert sorted((r["emoji"], p) for r in message["reactions"] for p in r["people"]) == sorted(reacted)
        assert all(r["count"] == len(r["people"]) for r in message["reactions"])
    assert any(m["reply_count"] for m in messages)


@pytest.mark.parametrize("ref", ["#general", "general", "General", " #general ", "ch_1"])
def test_channels_are_found_by_id_or_name_in_any_spelling(tiny: World, ref: str) -> None:
    assert call(tiny, "chat_list_messages", channel=ref)["channel_id"] == channel_id(tiny, "general")


def test_a_dm_can_be_named_by_the_other_person(tiny: World) -> None:
    partner = user_dm_partner(tiny)
    dm = tiny.db.execute("SELECT id FROM chat_channel WHERE name = ?",
                         (dm_channel_name(tiny.user_id, partner["id"]),)).fetchone()[0]
    for ref in (f"@{partner['name']}", partner["email"], f"@{partner['id']}", dm):
        result = call(tiny, "chat_list_messages", channel=ref)
        assert result["channel_id"] == dm and result["channel"] == f"@{partner['name']}"
        assert result["messages"]


def test_naming_yourself_as_a_dm_says_so_instead_of_opening_someone_elses(tiny: World) -> None:
    message = error(call(tiny, "chat_list_messages", channel=f"@{tiny.user['name']}"), "invalid_argument")
    assert "is you" in message and "colleague" in message


_DM_BY_MEMBERSHIP = (
    "SELECT c.id FROM chat_channel c JOIN chat_member a ON a.channel_id = c.id AND a.person_id = ? "
    "JOIN chat_member b ON b.channel_id = c.id AND b.person_id = ? WHERE c.kind = 'dm' ORDER BY c.rowid LIMIT 1"
)


def test_a_dm_found_by_its_name_is_the_one_its_memberships_give(acme: World) -> None:
    """find_dm probes the name index; walking the memberships must give the same channel for every colleague."""
    from officesim.apps.chat.access import find_dm

    others = [r[0] for r in acme.db.execute("SELECT id FROM directory_person WHERE id != ?", (acme.user_id,))]
    found = {pid: (find_dm(acme, acme.user_id, pid) or {"id": None})["id"] for pid in others}
    walked = {pid: (acme.db.execute(_DM_BY_MEMBERSHIP, (acme.user_id, pid)).fetchone() or [None])[0]
              for pid in others}
    assert found == walked and sum(v is not None for v in found.values()) >= 3
    # a channel that only carries the pair's name, without both members, is not their DM
    stranger = next(pid for pid, dm in found.items() if dm is None)
    acme.db.execute("INSERT INTO chat_channel (id, name, kind, topic, created_by, created_at, archived) "
                    "VALUES ('ch_9999', ?, 'dm', '', ?, '2026-01-01T00:00:00Z', 0)",
                    (dm_channel_name(acme.user_id, stranger), acme.user_id))
    assert find_dm(acme, acme.user_id, stranger) is None
    plan = " ".join(str(tuple(r)) for r in acme.db.execute(
        "EXPLAIN QUERY PLAN SELECT c.* FROM chat_channel c WHERE c.name = ? AND c.kind = 'dm'", ("x",)))
    assert "ix_chat_channel_name" in plan


def test_unknown_channel_suggests_the_closest_visible_name(tiny: World) -> None:
    message = error(call(tiny, "chat_list_messages", channel="#generl"), "not_found")
    assert "'#general'" in message and "chat_list_channels" in message
    empty = error(call(tiny, "chat_list_messages", channel="#"), "invalid_argument")
    assert "channel id" in empty


def test_private_channels_of_others_are_invisible_and_never_suggested(tiny: World) -> None:
    hidden = channel_id(tiny, "leadership")
    for ref in ("leadership", "#leadership", hidden):
        message = error(call(tiny, "chat_list_messages", channel=ref), "not_found")
        assert "chat_list_channels" in message
    assert "leadership" not in error(call(tiny, "chat_list_messages", channel="leadershi"), "not_found").replace(
        "'#leadershi'", "")
    secret = message_in(tiny, "leadership")
    assert "no message" in error(call(tiny, "chat_get_thread", message_id=secret), "not_found")
    assert "no message" in error(call(tiny, "chat_react_message", message_id=secret, emoji="eyes"), "not_found")
    assert error(call(tiny, "chat_list_members", channel="leadership"), "not_found")
    assert error(call(tiny, "chat_join_channel", channel="leadership"), "not_found")
    secret_text = tiny.db.execute("SELECT text FROM chat_message WHERE id = ?", (secret,)).fetchone()[0]
    word = max(secret_text.split(), key=len).strip(".,:!?()")
    hits = call(tiny, "chat_search_messages", query=word, limit=100)["messages"]
    assert all(h["channel_id"] != hidden for h in hits)


def test_dms_of_others_are_invisible(tiny: World) -> None:
    other_dm = tiny.db.execute(
        "SELECT c.id FROM chat_channel c WHERE kind = 'dm' AND NOT EXISTS (SELECT 1 FROM chat_member m WHERE "
        "m.channel_id = c.id AND m.person_id = ?) LIMIT 1", (tiny.user_id,)
    ).fetchone()[0]
    assert error(call(tiny, "chat_list_messages", channel=other_dm), "not_found")
    assert error(call(tiny, "chat_post_message", channel=other_dm, text="hi"), "not_found")
    listed = {c["id"] for c in call(tiny, "chat_list_channels", limit=100)["channels"]}
    assert other_dm not in listed


def test_public_channels_need_joining_before_reading_or_writing(tiny: World) -> None:
    name = unjoined_public(tiny)
    for result in (call(tiny, "chat_list_messages", channel=name),
                   call(tiny, "chat_post_message", channel=name, text="hello"),
                   call(tiny, "chat_get_thread", message_id=message_in(tiny, name)),
                   call(tiny, "chat_search_messages", channel=name)):
        assert f"chat_join_channel(channel='{name}')" in error(result, "permission_denied")
    members = call(tiny, "chat_list_members", channel=name)  # the member list of a public channel is open
    assert members["member_count"] == len(members["members"]) > 0


def test_list_messages_date_range_and_paging(tiny: World) -> None:
    everything = call(tiny, "chat_list_messages", channel="general", limit=100)["messages"]
    middle = everything[len(everything) // 2]["posted_at"]
    after = call(tiny, "chat_list_messages", channel="general", after=middle, limit=100)["messages"]
    before = call(tiny, "chat_list_messages", channel="general", before=middle, limit=100)["messages"]
    assert all(m["posted_at"] >= middle for m in after) and all(m["posted_at"] < middle for m in before)
    assert len(after) + len(before) == len(everything)
    day = call(tiny, "chat_list_messages", channel="general", after=middle[:10], before=middle[:10] + "T23:59:59Z")
    assert middle in [m["posted_at"] for m in day["messages"]]
    pages, cursor = [], None
    while True:
        page = call(tiny, "chat_list_messages", channel="general", limit=2, cursor=cursor)
        pages += page["messages"]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert pages == everything
    assert "ISO format" in error(call(tiny, "chat_list_messages", channel="general", after="last week"),
                                 "invalid_argument")
    assert "earlier than" in error(
        call(tiny, "chat_list_messages", channel="general", after="2026-09-10", before="2026-09-01"),
        "invalid_argument")


def test_get_thread_returns_root_then_replies_from_any_member_of_the_thread(tiny: World) -> None:
    reply = message_in(tiny, "general", reply=True)
    root = tiny.db.execute("SELECT thread_id FROM chat_message WHERE id = ?", (reply,)).fetchone()[0]
    from_root = call(tiny, "chat_get_thread", message_id=root)
    from_reply = call(tiny, "chat_get_thread", message_id=reply)
    assert from_root == from_reply
    messages = from_root["messages"]
    assert messages[0]["id"] == root and messages[0]["thread_id"] is None
    assert all(m["thread_id"] == root for m in messages[1:])
    assert [m["posted_at"] for m in messages[1:]] == sorted(m["posted_at"] for m in messages[1:])
    assert from_root["reply_count"] == len(messages) - 1 == messages[0]["reply_count"]
    assert from_root["thread_id"] == root and from_root["channel"] == "#general"
    assert "cm_12" in error(call(tiny, "chat_get_thread", message_id="cm_99999"), "not_found")
    past_the_end = call(tiny, "chat_get_thread", message_id=root, cursor="o500")
    assert past_the_end["messages"] == [] and past_the_end["channel"] == "#general"


def test_search_finds_words_and_replies_in_member_channels_with_filters(tiny: World) -> None:
    mine = {r[0] for r in tiny.db.execute("SELECT channel_id FROM chat_member WHERE person_id = ?", (tiny.user_id,))}
    everything = call(tiny, "chat_search_messages", limit=100)
    assert everything["next_cursor"] is None or len(everything["messages"]) == 100
    assert {m["channel_id"] for m in everything["messages"]} <= mine
    assert any(m["thread_id"] for m in everything["messages"])
    sample = next(m for m in everything["messages"] if len(m["text"].split()) >= 3)
    words = sample["text"].split()[:2]
    found = call(tiny, "chat_search_messages", query=f"{words[1].upper()} {words[0].lower()}", limit=100)
    assert sample["id"] in [m["id"] for m in found["messages"]]
    assert all(all(w.lower() in m["text"].lower() for w in words) for m in found["messages"])
    phrase = call(tiny, "chat_search_messages", query=f'"{" ".join(words)}"', limit=100)
    assert sample["id"] in [m["id"] for m in phrase["messages"]]
    author = tiny.person(sample["author_id"])
    by_author = call(tiny, "chat_search_messages", author=author["email"], limit=100)["messages"]
    assert by_author and all(m["author_id"] == author["id"] for m in by_author)
    in_channel = call(tiny, "chat_search_messages", channel=sample["channel_id"], limit=100)["messages"]
    assert sample["id"] in [m["id"] for m in in_channel]
    assert all(m["channel_id"] == sample["channel_id"] for m in in_channel)
    dated = call(tiny, "chat_search_messages", before=sample["posted_at"], limit=100)["messages"]
    assert all(m["posted_at"] < sample["posted_at"] for m in dated)
    assert call(tiny, "chat_search_messages", query="zzqx-nothing-matches")["messages"] == []
    assert call(tiny, "chat_search_messages", query="100%")["messages"] == []  # wildcards are literal
    assert "directory_search_people" in error(call(tiny, "chat_search_messages", author="nobody@nowhere.test"),
                                              "not_found")


# ----------------------------------------------------------------------------- writing
def test_post_message_writes_a_row_ticks_the_clock_and_shows_first(tiny: World) -> None:
    before = tiny.now()
    posted = call(tiny, "chat_post_message", channel="#general", text="  Q3 close checklist is done.  ")
    row = dict(tiny.db.execute("SELECT * FROM chat_message WHERE id = ?", (posted["id"],)).fetchone())
    assert row["text"] == "Q3 close checklist is done." and row["author_id"] == tiny.user_id
    assert row["thread_id"] is None and row["channel_id"] == channel_id(tiny, "general")
    assert tiny.now() > before and row["posted_at"] == tiny.now_ts() == posted["posted_at"]
    assert posted["author_email"] == tiny.user["email"] and posted["reply_count"] == 0 and posted["reactions"] == []
    highest = max(int(r[0][3:]) for r in tiny.db.execute("SELECT id FROM chat_message WHERE id != ?", (posted["id"],)))
    assert posted["id"] == f"cm_{highest + 1}"
    assert call(tiny, "chat_list_messages", channel="general", limit=1)["messages"][0]["id"] == posted["id"]


def test_post_message_rejects_bad_text_and_leaves_no_trace(tiny: World) -> None:
    state = tiny.state_hash()
    assert "empty" in error(call(tiny, "chat_post_message", channel="general", text="   "), "invalid_argument")
    assert "at most" in error(call(tiny, "chat_post_message", channel="general", text="x" * 40_001),
                              "invalid_argument")
    assert error(call(tiny, "chat_post_message", channel=unjoined_public(tiny), text="hi"), "permission_denied")
    assert "required" in error(call(tiny, "chat_post_message", channel="general"), "invalid_argument")
    assert tiny.state_hash() == state


def test_archived_channels_are_read_only(tiny: World) -> None:
    tiny.db.execute("UPDATE chat_channel SET archived = 1 WHERE name = 'random'")
    assert "archived" in error(call(tiny, "chat_post_message", channel="random", text="hi"), "conflict")
    assert "archived" in error(call(tiny, "chat_reply_message", message_id=message_in(tiny, "random"), text="hi"),
                               "conflict")
    assert call(tiny, "chat_list_messages", channel="random")["messages"]


def test_reply_goes_to_the_root_thread_even_when_answering_a_reply(tiny: World) -> None:
    reply = message_in(tiny, "general", reply=True)
    root = tiny.db.execute("SELECT thread_id FROM chat_message WHERE id = ?", (reply,)).fetchone()[0]
    count = call(tiny, "chat_get_thread", message_id=root)["reply_count"]
    first = call(tiny, "chat_reply_message", message_id=root, text="Thanks, approved.")
    second = call(tiny, "chat_reply_message", message_id=reply, text="Following up here.")
    assert first["thread_id"] == second["thread_id"] == root
    thread = call(tiny, "chat_get_thread", message_id=root)
    assert thread["reply_count"] == count + 2
    assert [m["id"] for m in thread["messages"][-2:]] == [first["id"], second["id"]]
    top = call(tiny, "chat_list_messages", channel="general", limit=100)["messages"]
    assert first["id"] not in [m["id"] for m in top]
    assert next(m for m in top if m["id"] == root)["reply_count"] == count + 2
    assert "empty" in error(call(tiny, "chat_reply_message", message_id=root, text=""), "invalid_argument")


def test_send_dm_reuses_an_existing_conversation(tiny: World) -> None:
    partner = user_dm_partner(tiny)
    channels = tiny.db.execute("SELECT count(*) FROM chat_channel").fetchone()[0]
    sent = call(tiny, "chat_send_dm", person=partner["email"].upper(), text="Can you review the deck?")
    assert sent["dm_created"] is False and sent["channel"] == f"@{partner['name']}"
    assert tiny.db.execute("SELECT count(*) FROM chat_channel").fetchone()[0] == channels


def test_send_dm_opens_a_conversation_both_people_see(tiny: World) -> None:
    talked = {r[0] for r in tiny.db.execute(
        "SELECT o.person_id FROM chat_member me JOIN chat_member o ON o.channel_id = me.channel_id "
        "JOIN chat_channel c ON c.id = me.channel_id WHERE c.kind = 'dm' AND me.person_id = ?", (tiny.user_id,))}
    other = tiny.db.execute(
        f"SELECT * FROM directory_person WHERE id NOT IN ({','.join('?' * len(talked))}) AND id != ? LIMIT 1",
        (*talked, tiny.user_id),
    ).fetchone()
    sent = call(tiny, "chat_send_dm", person=other["name"], text="Hi! Quick question about travel.")
    assert sent["dm_created"] is True and sent["author_id"] == tiny.user_id
    channel = dict(tiny.db.execute("SELECT * FROM chat_channel WHERE id = ?", (sent["channel_id"],)).fetchone())
    assert channel["kind"] == "dm" and channel["name"] == dm_channel_name(tiny.user_id, other["id"])
    members = {r[0] for r in tiny.db.execute("SELECT person_id FROM chat_member WHERE channel_id = ?",
                                              (channel["id"],))}
    assert members == {tiny.user_id, other["id"]}
    again = call(tiny, "chat_send_dm", person=other["id"], text="Never mind, found it.")
    assert again["dm_created"] is False and again["channel_id"] == channel["id"]
    me = tiny.user
    with tiny.acting_as(other["id"]):
        listed = call(tiny, "chat_list_channels", include_unjoined=False, limit=100)["channels"]
        assert {"id": channel["id"], "name": f"@{me['name']}"}.items() <= next(
            c for c in listed if c["id"] == channel["id"]).items()
        history = call(tiny, "chat_list_messages", channel=f"@{me['email']}")["messages"]
        assert [m["id"] for m in history] == [again["id"], sent["id"]]


def test_send_dm_errors_say_what_to_do(tiny: World) -> None:
    assert "that is you" in error(call(tiny, "chat_send_dm", person=tiny.user["email"], text="hi"),
                                  "invalid_argument")
    assert "mail" in error(call(tiny, "chat_send_dm", person="buyer@customer.test", text="hi"), "not_found")
    assert "directory_search_people" in error(call(tiny, "chat_send_dm", person="Nobody Atall", text="hi"),
                                              "not_found")
    partner = user_dm_partner(tiny)
    assert "empty" in error(call(tiny, "chat_send_dm", person=partner["id"], text=" "), "invalid_argument")


def test_reactions_are_idempotent_and_accept_common_spellings(tiny: World) -> None:
    target = message_in(tiny, "general")
    first = call(tiny, "chat_react_message", message_id=target, emoji=":thumbsup:")
    assert first["added"] is True and first["emoji"] == "thumbsup"
    row = tiny.db.execute("SELECT * FROM chat_reaction WHERE id = ?", (first["id"],)).fetchone()
    assert (row["message_id"], row["person_id"], row["emoji"]) == (target, tiny.user_id, "thumbsup")
    state = tiny.state_hash()
    again = call(tiny, "chat_react_message", message_id=target, emoji="👍")
    assert again["added"] is False and again["id"] == first["id"]
    assert tiny.state_hash() == state  # a no-op: no row, no clock tick
    mine = next(r for r in again["reactions"] if r["emoji"] == "thumbsup")
    assert tiny.user["name"] in mine["people"]
    assert call(tiny, "chat_react_message", message_id=target, emoji="TADA")["emoji"] == "tada"
    shown = next(m for m in call(tiny, "chat_list_messages", channel="general", limit=100)["messages"]
                 if m["id"] == target)
    assert {"thumbsup", "tada"} <= {r["emoji"] for r in shown["reactions"]}
    assert "emoji name" in error(call(tiny, "chat_react_message", message_id=target, emoji="great job!"),
                                 "invalid_argument")


def test_list_members_pages_with_directory_details(tiny: World) -> None:
    result = call(tiny, "chat_list_members", channel="general", limit=7)
    assert result["member_count"] == 20 and len(result["members"]) == 7 and result["next_cursor"] == "o7"
    first = result["members"][0]
    person = tiny.person(first["id"])
    assert (first["name"], first["email"], first["title"]) == (person["name"], person["email"], person["title"])
    assert first["department"] and first["joined_at"]
    rest = call(tiny, "chat_list_members", channel="general", limit=100, cursor="o7")["members"]
    assert len({m["id"] for m in result["members"] + rest}) == 20


def test_join_channel_then_read_and_post(tiny: World) -> None:
    name = unjoined_public(tiny)
    joined = call(tiny, "chat_join_channel", channel=f"#{name}")
    assert joined["is_member"] is True and joined["name"] == name
    assert tiny.db.execute("SELECT count(*) FROM chat_member WHERE channel_id = ? AND person_id = ?",
                           (joined["id"], tiny.user_id)).fetchone()[0] == 1
    assert call(tiny, "chat_list_messages", channel=name)["messages"]
    assert "id" in call(tiny, "chat_post_message", channel=name, text="Hi all, joining to follow along.")
    assert "already a member" in error(call(tiny, "chat_join_channel", channel=name), "conflict")
    assert "already a member" in error(call(tiny, "chat_join_channel", channel="general"), "conflict")
    dm = call(tiny, "chat_list_channels", include_unjoined=False, limit=100)["channels"][-1]
    assert dm["kind"] == "dm"
    assert error(call(tiny, "chat_join_channel", channel=dm["id"]), "conflict")


def test_long_messages_are_clipped_with_a_marker_and_read_on(tiny: World) -> None:
    text = " ".join(f"line {i:05d}." for i in range(800))  # 9,599 characters
    posted = call(tiny, "chat_post_message", channel="general", text=text)
    assert posted["truncated"] is True and "chat_get_message(message_id=" in posted["text"]
    listed = call(tiny, "chat_list_messages", channel="general", limit=1)["messages"][0]
    assert listed["truncated"] and len(listed["text"]) < 1700
    full = call(tiny, "chat_get_message", message_id=posted["id"])
    assert full["truncated"] is True and full["text"].startswith(text[:4000])
    rest = call(tiny, "chat_get_message", message_id=posted["id"], offset=full["next_offset"])
    assert rest["text"].startswith(text[4000:8000])
    last = call(tiny, "chat_get_message", message_id=posted["id"], offset=8000)
    assert last["text"] == text[8000:] and last["truncated"] is False
    assert "offset" in error(call(tiny, "chat_get_message", message_id=posted["id"], offset=-1), "invalid_argument")


def test_failed_writes_roll_back_completely(tiny: World) -> None:
    state, clock = tiny.state_hash(), tiny.now_ts()
    call(tiny, "chat_reply_message", message_id="cm_0", text="hello")
    call(tiny, "chat_react_message", message_id=message_in(tiny, "general"), emoji="???")
    assert tiny.state_hash() == state and tiny.now_ts() == clock


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(CHAT_TOOLS),
    arguments=st.dictionaries(
        st.sampled_from(["channel", "message_id", "text", "person", "emoji", "query", "author", "after", "before",
                         "cursor", "limit", "offset", "include_unjoined", "bogus"]),
        st.one_of(st.none(), st.text(max_size=30), st.integers(-5, 500), st.booleans(),
                  st.sampled_from(["#general", "ch_1", "cm_3", "p_2", "2026-09-01", "o2", "thumbsup", "@"])),
        max_size=4,
    ),
)
def test_nothing_a_model_sends_raises(tiny: World, name: str, arguments: dict[str, Any]) -> None:
    result = tiny.call(name, arguments)
    assert isinstance(result, dict)
    if "error" in result:
        assert result["error"]["type"] in {"invalid_argument", "not_found", "permission_denied", "conflict"}
        assert len(result["error"]["message"]) > 20


REFS = st.sampled_from([
    "#general", "general", "ch_1", "ch_9", "leadership", "@", "#", "cm_3", "cm_999", "p_2", "p_3", "2026-09-01",
    "2026-13-45", "o2", "o500", "o-1", "thumbsup", "👍", ":x:", "", " ", "100%_", "\x00", "a" * 300,
])


def well_typed(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments of the right JSON types for ``name``'s schema, with hostile values."""
    values = {
        "string": st.one_of(REFS, st.text(max_size=40)),
        "integer": st.integers(-10, 10_000),
        "boolean": st.booleans(),
    }
    fields = {}
    for param, prop in registry()[name].parameters["properties"].items():
        kinds = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
        options = [values[k] for k in kinds if k in values]
        if "null" in kinds:
            options.append(st.none())
        fields[param] = st.one_of(*options)
    return st.fixed_dictionaries(fields)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("name", CHAT_TOOLS)
def test_well_typed_hostile_arguments_give_results_or_tool_errors(tiny: World, name: str, data: st.DataObject) -> None:
    result = tiny.call(name, data.draw(well_typed(name)))
    assert isinstance(result, dict)
    if "error" in result:
        assert result["error"]["type"] in {"invalid_argument", "not_found", "permission_denied", "conflict"}
    hidden = channel_id(tiny, "leadership")
    assert hidden not in ids_in(result)


def ids_in(value: Any) -> set[str]:
    """Every channel_id / id value anywhere in a result."""
    if isinstance(value, dict):
        found = {v for k, v in value.items() if k in ("id", "channel_id") and isinstance(v, str)}
        return found.union(*(ids_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(ids_in(v) for v in value))
    return set()


# ----------------------------------------------------------------------------- generation
@pytest.mark.parametrize("fixture", ["tiny", "acme"])
def test_generated_workspace_follows_the_spec_and_is_consistent(fixture: str, request: pytest.FixtureRequest) -> None:
    w: World = request.getfixturevalue(fixture)
    spec = load_spec(ROOT / "worlds" / f"{fixture}.yaml")
    size = spec.size
    channels = w.rows("chat_channel")
    departments = w.db.execute("SELECT count(*) FROM directory_department").fetchone()[0]
    assert sum(c["kind"] != "dm" for c in channels) == departments + size.channels
    assert sum(c["kind"] == "dm" for c in channels) == size.dms
    assert len({c["name"] for c in channels}) == len(channels)
    per_channel = dict(w.db.execute(
        "SELECT c.id, count(m.id) FROM chat_channel c LEFT JOIN chat_message m ON m.channel_id = c.id "
        "WHERE c.kind != 'dm' GROUP BY c.id").fetchall())
    assert set(per_channel.values()) == {size.messages_per_channel}
    members = {(r[0], r[1]) for r in w.db.execute("SELECT channel_id, person_id FROM chat_member")}
    assert len(members) == w.db.execute("SELECT count(*) FROM chat_member").fetchone()[0]  # no duplicates
    messages = {m["id"]: m for m in w.rows("chat_message")}
    start, earliest = spec.start, spec.start - timedelta(days=120)
    for message in messages.values():
        assert (message["channel_id"], message["author_id"]) in members
        assert format_ts(earliest) <= message["posted_at"] < format_ts(start)
        if message["thread_id"]:
            root = messages[message["thread_id"]]
            assert root["thread_id"] is None and root["channel_id"] == message["channel_id"]
            assert root["posted_at"] <= message["posted_at"]
    for reaction in w.rows("chat_reaction"):
        assert (messages[reaction["message_id"]]["channel_id"], reaction["person_id"]) in members
    assert w.db.execute("SELECT count(*) FROM chat_message WHERE thread_id IS NOT NULL").fetchone()[0] > 0
    assert w.db.execute("SELECT count(*) FROM chat_reaction").fetchone()[0] > 0
    for table, prefix in (("chat_channel", "ch"), ("chat_member", "mem"), ("chat_message", "cm"),
                          ("chat_reaction", "rx")):
        assert w.meta(f"seq:{prefix}") == str(w.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    # The acting employee: #general, #random, their department's channel and a few more.
    mine = {r[0] for r in w.db.execute(
        "SELECT c.name FROM chat_member m JOIN chat_channel c ON c.id = m.channel_id "
        "WHERE m.person_id = ? AND c.kind != 'dm'", (w.user_id,))}
    department = w.db.execute("SELECT d.name FROM directory_department d WHERE d.id = ?",
                              (w.user["department_id"],)).fetchone()[0]
    assert {"general", "random", department.lower().replace(" ", "-")} <= mine and len(mine) >= 4
    leadership = next(c for c in channels if c["name"] == "leadership")
    assert leadership["kind"] == "private"
    assert (leadership["id"], w.user_id) not in members


def test_acme_has_the_named_topic_channels(acme: World) -> None:
    kinds = {c["name"]: c["kind"] for c in acme.rows("chat_channel")}
    assert kinds["q3-close"] == kinds["deal-desk"] == "public"
    assert kinds["leadership"] == kinds["travel-approvals"] == "private"
    assert any(name.startswith("launch-") for name in kinds)


def test_generated_messages_cite_real_drive_files_and_crm_deals(acme: World) -> None:
    files = {r[0]: r[1] for r in acme.db.execute("SELECT id, name FROM drive_file")}
    deals = [r[0] for r in acme.db.execute("SELECT name FROM crm_deal")]
    texts = [r[0] for r in acme.db.execute("SELECT text FROM chat_message")]
    cited = [(text, file_id) for text in texts for file_id in re.findall(r"\(drive file (f_\d+)\)", text)]
    if files:
        assert len(cited) >= 10
        for text, file_id in cited:  # the name next to the id is that file's name
            assert f"{files[file_id]} (drive file {file_id})" in text, text
    if deals:
        assert sum(any(deal in text for deal in deals) for text in texts) >= 10


def test_generation_without_drive_or_crm_data_still_works() -> None:
    spec = load_spec(ROOT / "worlds" / "tiny.yaml")
    world = World.empty(clock=spec.start)
    ctx = GenContext(world=world, spec=spec, seed=3)
    directory_generate.generate(ctx)
    chat_generate.generate(ctx)
    texts = [r[0] for r in world.db.execute("SELECT text FROM chat_message")]
    assert len(texts) >= (spec.size.departments + spec.size.channels) * spec.size.messages_per_channel
    assert not any("drive file" in t or "{" in t for t in texts)


def test_generated_text_has_no_unfilled_slots(acme: World) -> None:
    assert acme.db.execute("SELECT count(*) FROM chat_message WHERE text LIKE '%{%' OR text LIKE '%}%'"
                           ).fetchone()[0] == 0
    assert parse_ts(acme.db.execute("SELECT max(posted_at) FROM chat_message").fetchone()[0]) < acme.now()


@pytest.mark.slow
def test_every_dm_in_every_shipped_start_state_carries_its_canonical_name() -> None:
    """What find_dm's name lookup relies on: a DM is named for exactly its two members, in every task."""
    from officesim import load_task
    from officesim.task import find_tasks

    wrong = []
    for path in find_tasks([ROOT / "tasks"]):
        task = load_task(path)
        world = task.start_world()
        for channel, name, members in world.db.execute(
                "SELECT c.id, c.name, group_concat(m.person_id) FROM chat_channel c JOIN chat_member m "
                "ON m.channel_id = c.id WHERE c.kind = 'dm' GROUP BY c.id"):
            pair = members.split(",")
            if len(set(pair)) != 2 or len(pair) != 2 or name != dm_channel_name(*pair):
                wrong.append((task.id, channel, name, pair))
    assert not wrong, wrong[:5]
