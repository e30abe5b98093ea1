"""The mail app: mailbox privacy, every tool's results and errors, and the generated mailboxes."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from string import Formatter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officesim import World
from officesim.apps.directory import generate as directory_generate
from officesim.apps.drive.access import file_rank
from officesim.apps.mail import generate as mail_generate
from officesim.apps.mail.attachments import attachments_of
from officesim.apps.mail.templates import (
    ANNOUNCEMENTS,
    DEAL_SCRIPTS,
    DEPARTMENT_UPDATES,
    INVOICE_SCRIPTS,
    TOPICS,
)
from officesim.clock import parse_ts
from officesim.industries import industries
from officesim.tools import registry
from officesim.world_spec import load_spec
from officesim.worldgen import GenContext

ROOT = Path(__file__).resolve().parent.parent
MAIL_TOOLS = sorted(name for name, t in registry().items() if t.app == "mail")
TOOL_ERRORS = {"invalid_argument", "not_found", "permission_denied", "conflict"}


def call(w: World, name: str, **arguments: Any) -> dict[str, Any]:
    return w.call(name, arguments)


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in result, result
    return result


def error(result: dict[str, Any], kind: str) -> str:
    """The message of an error result of ``kind`` (fails when the call succeeded)."""
    assert "error" in result, f"expected a {kind} error, got {result}"
    assert result["error"]["type"] == kind, result
    return result["error"]["message"]


def colleagues(w: World) -> list[dict[str, Any]]:
    """Everyone but the acting user, in id order."""
    return [dict(r) for r in w.db.execute(
        "SELECT * FROM directory_person WHERE id != ? ORDER BY length(id), id", (w.user_id,))]


def entry(w: World, owner: str, message_id: str) -> dict[str, Any] | None:
    row = w.db.execute("SELECT * FROM mail_entry WHERE owner_id = ? AND message_id = ?", (owner, message_id)
                       ).fetchone()
    return dict(row) if row else None


def stored(w: World, message_id: str) -> dict[str, Any]:
    return dict(w.db.execute("SELECT * FROM mail_message WHERE id = ?", (message_id,)).fetchone())


def mail_from(w: World, sender: dict[str, Any], **arguments: Any) -> str:
    """Have ``sender`` send a message (as task setup does) and return its id."""
    arguments.setdefault("to", [w.user["email"]])
    arguments.setdefault("subject", "Quarterly numbers")
    arguments.setdefault("body", "Please review the attached numbers.")
    with w.acting_as(sender["id"]):
        return ok(w.call("mail_send_message", arguments))["id"]


def files(w: World, *, visible: bool) -> list[str]:
    """Docs and sheets the acting user can (or cannot) open in Drive."""
    ids = [r[0] for r in w.db.execute(
        "SELECT id FROM drive_file WHERE kind != 'folder' AND trashed = 0 ORDER BY length(id), id")]
    return [f for f in ids if (file_rank(w, f) > 0) == visible]


# ----------------------------------------------------------------------------- reading
def test_search_lists_own_mailbox_newest_first_without_trash(tiny: World) -> None:
    result = ok(call(tiny, "mail_search_messages", limit=100))
    mine = {r[0] for r in tiny.db.execute(
        "SELECT message_id FROM mail_entry WHERE owner_id = ? AND folder != 'trash'", (tiny.user_id,))}
    assert {m["id"] for m in result["messages"]} == mine and mine
    times = [m["sent_at"] for m in result["messages"]]
    assert times == sorted(times, reverse=True)
    first = result["messages"][0]
    assert set(first) >= {"id", "thread_id", "from", "to", "subject", "snippet", "sent_at", "folder", "labels",
                          "is_read", "has_attachments"}
    trashed = ok(call(tiny, "mail_delete_message", message_id=first["id"]))
    assert trashed["folder"] == "trash"
    assert first["id"] not in {m["id"] for m in call(tiny, "mail_search_messages", limit=100)["messages"]}
    in_trash = ok(call(tiny, "mail_search_messages", folder="Trash"))["messages"]
    assert [m["id"] for m in in_trash] == [first["id"]]


def test_search_filters_by_text_people_dates_labels_and_flags(tiny: World) -> None:
    cfo, rep = colleagues(tiny)[0], colleagues(tiny)[4]
    tiny.set_clock("2026-10-06T09:00:00Z")
    budget = mail_from(tiny, cfo, subject="FY27 budget draft", body="The zebra line item needs your review.")
    tiny.set_clock("2026-10-08T09:00:00Z")
    other = mail_from(tiny, rep, subject="Lunch", body="Tacos on Friday?", cc=[cfo["email"]])

    def ids(**filters: Any) -> list[str]:
        return [m["id"] for m in ok(call(tiny, "mail_search_messages", limit=100, **filters))["messages"]]

    assert ids(query="zebra") == [budget]
    assert ids(query="budget zebra") == [budget]
    assert ids(query='"line item"') == [budget]
    assert ids(query='"item line"') == []
    assert budget in ids(sender=cfo["email"]) and other not in ids(sender=cfo["email"])
    assert ids(sender=cfo["id"]) == ids(sender=cfo["email"])
    assert ids(sender=rep["name"].split()[0], after="2026-10-08") == [other]
    assert ids(after="2026-10-06", before="2026-10-08") == [budget]
    assert other in ids(recipient=cfo["email"]) and budget not in ids(recipient=cfo["email"])
    ok(call(tiny, "mail_label_message", message_id=budget, add=["Planning"]))
    assert ids(label="planning") == [budget]
    ok(call(tiny, "mail_mark_message", message_id=budget, read=True))
    unread = ids(unread_only=True)
    assert other in unread and budget not in unread
    assert not any(m in ids(has_attachment=True) for m in (budget, other))
    assert {budget, other} <= set(ids(has_attachment=False))


def test_search_pages_with_cursors(tiny: World) -> None:
    everything = [m["id"] for m in ok(call(tiny, "mail_search_messages", limit=100))["messages"]]
    seen, cursor = [], None
    while True:
        page = ok(call(tiny, "mail_search_messages", limit=3, cursor=cursor))
        assert len(page["messages"]) <= 3
        seen += [m["id"] for m in page["messages"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == everything and len(seen) > 3
    assert "next_cursor" in error(call(tiny, "mail_search_messages", cursor="page2"), "invalid_argument")
    assert "between 1 and 100" in error(call(tiny, "mail_search_messages", limit=0), "invalid_argument")


def test_search_explains_bad_folders_and_dates(tiny: World) -> None:
    message = error(call(tiny, "mail_search_messages", folder="Inbx"), "invalid_argument")
    assert "inbox" in message and "mail_list_folders" in message
    assert "2026-09-14" in error(call(tiny, "mail_search_messages", after="last tuesday"), "invalid_argument")


def test_other_peoples_mail_is_invisible(tiny: World) -> None:
    a, b = colleagues(tiny)[0], colleagues(tiny)[1]
    secret = mail_from(tiny, a, to=[b["email"]], subject="Salary review", body="Confidential: platypus raise")
    for name, arguments in [("mail_get_message", {}), ("mail_reply_message", {"body": "hi"}),
                            ("mail_forward_message", {"to": [a["email"]]}), ("mail_mark_message", {"read": True}),
                            ("mail_move_message", {"folder": "archive"}), ("mail_delete_message", {})]:
        result = tiny.call(name, {"message_id": secret, **arguments})
        message = error(result, "not_found")
        assert "your mailbox" in message and "platypus" not in json.dumps(result)
    assert error(call(tiny, "mail_get_thread", thread_id=stored(tiny, secret)["thread_id"]), "not_found")
    assert call(tiny, "mail_search_messages", query="platypus")["messages"] == []


def test_get_message_returns_the_full_message_and_reads_on_from_an_offset(tiny: World) -> None:
    sender = colleagues(tiny)[2]
    body = "".join(f"line {i:05d} of the report\n" for i in range(400))  # 10,400 characters
    msg = mail_from(tiny, sender, body=body, cc=["auditor@external.test"])
    first = ok(call(tiny, "mail_get_message", message_id=msg))
    assert first["from"] == sender["email"] and first["from_name"] == sender["name"]
    assert first["to"] == [tiny.user["email"]] and first["cc"] == ["auditor@external.test"]
    assert first["folder"] == "inbox" and first["is_read"] is False and first["status"] == "sent"
    assert first["truncated"] is True and first["next_offset"] == 4000
    assert first["body"].startswith(body[:4000]) and "offset=4000" in first["body"]
    last = ok(call(tiny, "mail_get_message", message_id=msg, offset=8000))
    assert last["truncated"] is False and last["body"] == body[8000:]
    assert entry(tiny, tiny.user_id, msg)["is_read"] == 0  # reading does not mark read
    assert error(call(tiny, "mail_get_message", message_id="42"), "not_found").count("msg_12") == 1


def test_bcc_is_shown_only_to_the_sender(tiny: World) -> None:
    boss, spy = colleagues(tiny)[0], colleagues(tiny)[1]
    msg = mail_from(tiny, boss, bcc=[spy["email"]])
    assert "bcc" not in ok(call(tiny, "mail_get_message", message_id=msg))
    assert entry(tiny, spy["id"], msg)["folder"] == "inbox"
    with tiny.acting_as(boss["id"]):
        assert ok(call(tiny, "mail_get_message", message_id=msg))["bcc"] == [spy["email"]]
        assert msg in [m["id"] for m in call(tiny, "mail_search_messages", recipient=spy["email"])["messages"]]
    assert msg not in [m["id"] for m in call(tiny, "mail_search_messages", recipient=spy["email"])["messages"]]
    reply = ok(call(tiny, "mail_reply_all", message_id=msg, body="Thanks"))
    assert spy["email"] not in reply["to"] + reply["cc"]


def test_get_thread_lists_the_conversation_oldest_first(tiny: World) -> None:
    sender = colleagues(tiny)[3]
    first = mail_from(tiny, sender, subject="Offsite dates")
    reply = ok(call(tiny, "mail_reply_message", message_id=first, body="March works for me."))
    with tiny.acting_as(sender["id"]):
        third = ok(call(tiny, "mail_reply_message", message_id=reply["id"], body="Booked."))
    thread = ok(call(tiny, "mail_get_thread", thread_id=reply["thread_id"]))
    assert [m["id"] for m in thread["messages"]] == [first, reply["id"], third["id"]]
    assert thread["subject"] == "Offsite dates"
    assert [m["folder"] for m in thread["messages"]] == ["inbox", "sent", "inbox"]
    assert ok(call(tiny, "mail_get_thread", thread_id=third["id"]))["thread_id"] == reply["thread_id"]
    assert "thr_4" in error(call(tiny, "mail_get_thread", thread_id="thr_9999"), "not_found")


def test_list_folders_counts_messages_and_unread(tiny: World) -> None:
    result = ok(call(tiny, "mail_list_folders"))
    names = [f["name"] for f in result["folders"]]
    assert names[:5] == ["inbox", "sent", "drafts", "archive", "trash"]
    for folder in result["folders"]:
        total, unread = tiny.db.execute(
            "SELECT count(*), coalesce(sum(is_read = 0), 0) FROM mail_entry WHERE owner_id = ? AND folder = ?",
            (tiny.user_id, folder["name"])).fetchone()
        assert (folder["total"], folder["unread"]) == (total, unread)
    inbox = ok(call(tiny, "mail_search_messages", folder="inbox"))["messages"][0]["id"]
    ok(call(tiny, "mail_label_message", message_id=inbox, add=["urgent"]))
    labels = {x["name"]: x for x in call(tiny, "mail_list_folders")["labels"]}
    assert labels["urgent"]["total"] == 1


# ----------------------------------------------------------------------------- sending
def test_send_stores_one_message_and_delivers_to_colleagues_only(tiny: World) -> None:
    colleague, other = colleagues(tiny)[0], colleagues(tiny)[5]
    before = tiny.now()
    result = ok(call(tiny, "mail_send_message", to=[colleague["email"], "Buyer@Customer.test"], cc=[other["id"]],
                     subject="  Renewal   quote ", body="Attached the renewal quote."))
    assert result["to"] == [colleague["email"], "buyer@customer.test"] and result["cc"] == [other["email"]]
    assert result["subject"] == "Renewal quote" and result["status"] == "sent"
    assert result["delivered_to_colleagues"] == 2 and result["external_recipients"] == ["buyer@customer.test"]
    assert tiny.now() == before + timedelta(seconds=30) and result["sent_at"] == tiny.now_ts()
    row = stored(tiny, result["id"])
    assert row["sender"] == tiny.user["email"] and row["sender_name"] == tiny.user["name"]
    assert json.loads(row["to"]) == [colleague["email"], "buyer@customer.test"] and row["status"] == "sent"
    owners = {r["owner_id"]: r for r in tiny.rows("mail_entry") if r["message_id"] == result["id"]}
    assert set(owners) == {tiny.user_id, colleague["id"], other["id"]}
    assert owners[tiny.user_id]["folder"] == "sent" and owners[tiny.user_id]["is_read"] == 1
    assert owners[colleague["id"]]["folder"] == "inbox" and owners[colleague["id"]]["is_read"] == 0


def test_send_rejects_bad_recipients_with_hints_and_writes_nothing(tiny: World) -> None:
    state, domain = tiny.state_hash(), tiny.meta("domain")
    colleague = colleagues(tiny)[0]
    first = colleague["name"].split()[0]
    message = error(call(tiny, "mail_send_message", to=[first], subject="Hi", body="x"), "invalid_argument")
    assert "not an email address" in message and colleague["email"] in message
    assert "directory_search_people" in message
    message = error(call(tiny, "mail_send_message", to=[f"nobody.here@{domain}"], subject="Hi", body="x"),
                    "not_found")
    assert "directory_search_people" in message
    assert "at least one" in error(call(tiny, "mail_send_message", to=[], subject="Hi", body="x"),
                                   "invalid_argument")
    assert "subject" in error(call(tiny, "mail_send_message", to=[colleague["email"]], subject=" ", body="x"),
                              "invalid_argument")
    assert "body" in error(call(tiny, "mail_send_message", to=[colleague["email"]], subject="Hi", body=""),
                           "invalid_argument")
    assert error(call(tiny, "mail_send_message", to=["p_999"], subject="Hi", body="x"), "not_found")
    assert "'to'" in error(call(tiny, "mail_send_message", to="a@b.test", subject="Hi", body="x"),
                           "invalid_argument")
    assert tiny.state_hash() == state
    named = ok(call(tiny, "mail_send_message", to=[f"{colleague['name']} <{colleague['email']}>"],
                    subject="Hi", body="x"))
    assert named["to"] == [colleague["email"]]


def test_attachments_must_be_drive_files_the_sender_can_view(tiny: World) -> None:
    mine, hidden = files(tiny, visible=True)[0], files(tiny, visible=False)[0]
    to = [colleagues(tiny)[0]["email"]]
    state = tiny.state_hash()
    message = error(call(tiny, "mail_send_message", to=to, subject="S", body="B", attachments=[mine, hidden]),
                    "permission_denied")
    assert hidden in message and "share" in message
    assert tiny.state_hash() == state
    assert "drive_search_files" in error(call(tiny, "mail_send_message", to=to, subject="S", body="B",
                                              attachments=["f_9999"]), "not_found")
    name = tiny.db.execute("SELECT name FROM drive_file WHERE id = ?", (mine,)).fetchone()[0]
    assert repr(mine) in error(call(tiny, "mail_send_message", to=to, subject="S", body="B", attachments=[name]),
                               "not_found")
    folder = tiny.db.execute("SELECT id FROM drive_file WHERE kind = 'folder' AND owner_id = ?", (tiny.user_id,)
                             ).fetchone()[0]
    assert "folder" in error(call(tiny, "mail_send_message", to=to, subject="S", body="B", attachments=[folder]),
                             "invalid_argument")
    sent = ok(call(tiny, "mail_send_message", to=to, subject="S", body="B", attachments=[mine, mine]))
    kind = tiny.db.execute("SELECT kind FROM drive_file WHERE id = ?", (mine,)).fetchone()[0]
    assert sent["attachments"] == [{"id": mine, "name": name, "kind": kind}]
    with tiny.acting_as(colleagues(tiny)[0]["id"]):
        got = ok(call(tiny, "mail_get_message", message_id=sent["id"]))
        assert got["attachments"] == sent["attachments"]


def test_get_attachment_reads_docs_and_sheets_received_by_mail(tiny: World) -> None:
    doc = tiny.db.execute("SELECT id, content FROM drive_file WHERE kind = 'doc' ORDER BY id LIMIT 1").fetchone()
    sheet = tiny.db.execute("SELECT id FROM drive_file WHERE kind = 'sheet' ORDER BY id LIMIT 1").fetchone()[0]
    owner = tiny.db.execute("SELECT owner_id FROM drive_file WHERE id = ?", (sheet,)).fetchone()[0]
    doc_owner = tiny.db.execute("SELECT owner_id FROM drive_file WHERE id = ?", (doc["id"],)).fetchone()[0]
    msg = mail_from(tiny, {"id": owner}, attachments=[sheet])
    text = ok(call(tiny, "mail_get_attachment", message_id=msg, file_id=sheet))["text"]
    tab = tiny.db.execute("SELECT id, name, columns FROM drive_sheet WHERE file_id = ? ORDER BY position",
                          (sheet,)).fetchone()
    assert f"## sheet: {tab['name']}" in text and ",".join(json.loads(tab["columns"])) in text
    msg2 = mail_from(tiny, {"id": doc_owner}, attachments=[doc["id"]])
    got = ok(call(tiny, "mail_get_attachment", message_id=msg2, file_id=doc["id"]))
    assert got["text"].startswith(doc["content"][:100])
    assert sheet in error(call(tiny, "mail_get_attachment", message_id=msg2, file_id=sheet), "not_found")


def test_reply_goes_to_the_sender_in_the_same_thread_quoting_the_original(tiny: World) -> None:
    boss, cc = colleagues(tiny)[0], colleagues(tiny)[1]
    original = mail_from(tiny, boss, subject="Vendor list", body="Can you check row 4?", cc=[cc["email"]])
    reply = ok(call(tiny, "mail_reply_message", message_id=original, body="Done, row 4 fixed."))
    assert reply["to"] == [boss["email"]] and reply["cc"] == []
    assert reply["subject"] == "Re: Vendor list" and reply["in_reply_to"] == original
    assert reply["thread_id"] == stored(tiny, original)["thread_id"]
    body = stored(tiny, reply["id"])["body"]
    assert body.startswith("Done, row 4 fixed.") and "> Can you check row 4?" in body
    assert f"{boss['name']} <{boss['email']}> wrote:" in body
    assert "body" in error(call(tiny, "mail_reply_message", message_id=original, body=" "), "invalid_argument")
    again = ok(call(tiny, "mail_reply_message", message_id=reply["id"], body="Also row 5."))
    assert again["subject"] == "Re: Vendor list" and again["to"] == [boss["email"]]  # own mail: original to
    assert entry(tiny, boss["id"], reply["id"])["folder"] == "inbox"


def test_reply_all_answers_everyone_but_yourself(tiny: World) -> None:
    boss, peer, cc = colleagues(tiny)[0], colleagues(tiny)[1], colleagues(tiny)[2]
    original = mail_from(tiny, boss, to=[tiny.user["email"], peer["email"]], cc=[cc["email"], "x@partner.test"])
    reply = ok(call(tiny, "mail_reply_all", message_id=original, body="Agreed."))
    assert reply["to"] == [boss["email"], peer["email"]]
    assert reply["cc"] == [cc["email"], "x@partner.test"]
    assert tiny.user["email"] not in reply["to"] + reply["cc"]
    assert {e["owner_id"] for e in tiny.rows("mail_entry") if e["message_id"] == reply["id"]} == {
        tiny.user_id, boss["id"], peer["id"], cc["id"]}


def test_forward_carries_the_attachments_and_the_original(tiny: World) -> None:
    sheet = tiny.db.execute("SELECT id, owner_id FROM drive_file WHERE kind = 'sheet' ORDER BY id LIMIT 1"
                            ).fetchone()
    original = mail_from(tiny, {"id": sheet["owner_id"]}, subject="Budget", body="Numbers attached.",
                         attachments=[sheet["id"]])
    target = colleagues(tiny)[6]
    fwd = ok(call(tiny, "mail_forward_message", message_id=original, to=[target["email"]], body="FYI"))
    assert fwd["subject"] == "Fwd: Budget" and fwd["to"] == [target["email"]]
    assert [a["id"] for a in fwd["attachments"]] == [sheet["id"]]
    body = stored(tiny, fwd["id"])["body"]
    assert body.startswith("FYI") and "---------- Forwarded message ----------" in body
    assert "Numbers attached." in body and "Subject: Budget" in body
    assert entry(tiny, target["id"], fwd["id"])["folder"] == "inbox"
    assert "at least one" in error(call(tiny, "mail_forward_message", message_id=original, to=[]),
                                   "invalid_argument")


def test_draft_lifecycle(tiny: World) -> None:
    colleague = colleagues(tiny)[0]
    draft = ok(call(tiny, "mail_create_draft", to=[], subject="", body="Half-written thoughts"))
    assert draft["status"] == "draft" and draft["delivered_to_colleagues"] == 0
    assert [e["owner_id"] for e in tiny.rows("mail_entry") if e["message_id"] == draft["id"]] == [tiny.user_id]
    assert entry(tiny, tiny.user_id, draft["id"])["folder"] == "drafts"
    assert "'to' is empty" in error(call(tiny, "mail_send_draft", draft_id=draft["id"]), "invalid_argument")
    assert "draft" in error(call(tiny, "mail_reply_message", message_id=draft["id"], body="x"), "invalid_argument")
    assert "drafts" in error(call(tiny, "mail_move_message", message_id=draft["id"], folder="inbox"),
                             "invalid_argument")
    updated = ok(call(tiny, "mail_update_draft", draft_id=draft["id"], to=[colleague["email"]], subject="Plan"))
    assert updated["to"] == [colleague["email"]] and updated["subject"] == "Plan"
    assert stored(tiny, draft["id"])["body"] == "Half-written thoughts"
    sent = ok(call(tiny, "mail_send_draft", draft_id=draft["id"]))
    assert sent["id"] == draft["id"] and sent["status"] == "sent" and sent["sent_at"] == tiny.now_ts()
    assert entry(tiny, tiny.user_id, draft["id"])["folder"] == "sent"
    assert entry(tiny, colleague["id"], draft["id"])["folder"] == "inbox"
    assert "already sent" in error(call(tiny, "mail_send_draft", draft_id=draft["id"]), "conflict")
    assert error(call(tiny, "mail_update_draft", draft_id=draft["id"], body="x"), "conflict")


def test_move_message_between_folders(tiny: World) -> None:
    msg = mail_from(tiny, colleagues(tiny)[0])
    moved = ok(call(tiny, "mail_move_message", message_id=msg, folder="Archive"))
    assert moved["folder"] == "archive" and "created_folder" not in moved
    custom = ok(call(tiny, "mail_move_message", message_id=msg, folder="Vendor Quotes"))
    assert custom["folder"] == "Vendor Quotes" and custom["created_folder"] is True
    other = mail_from(tiny, colleagues(tiny)[1])
    again = ok(call(tiny, "mail_move_message", message_id=other, folder="vendor quotes"))
    assert again["folder"] == "Vendor Quotes" and "created_folder" not in again
    assert ok(call(tiny, "mail_move_message", message_id=other, folder="Vendor Quotes"))["unchanged"] is True
    assert {m["id"] for m in call(tiny, "mail_search_messages", folder="vendor quotes")["messages"]} == {msg, other}
    assert "only messages you sent" in error(call(tiny, "mail_move_message", message_id=msg, folder="sent"),
                                             "invalid_argument")
    assert "empty" in error(call(tiny, "mail_move_message", message_id=msg, folder="  "), "invalid_argument")
    assert entry(tiny, colleagues(tiny)[0]["id"], msg)["folder"] == "sent"  # the sender's copy stays


def test_labels_are_added_and_removed(tiny: World) -> None:
    msg = mail_from(tiny, colleagues(tiny)[0])
    result = ok(call(tiny, "mail_label_message", message_id=msg, add=["Follow-up", "follow-up", "Q4"]))
    assert result["labels"] == ["Follow-up", "Q4"]
    other = mail_from(tiny, colleagues(tiny)[1])
    assert ok(call(tiny, "mail_label_message", message_id=other, add=["FOLLOW-UP"]))["labels"] == ["Follow-up"]
    result = ok(call(tiny, "mail_label_message", message_id=msg, remove=["q4"]))
    assert result["labels"] == ["Follow-up"]
    assert json.loads(entry(tiny, tiny.user_id, msg)["labels"]) == ["Follow-up"]
    assert "no label 'urgent'" in error(call(tiny, "mail_label_message", message_id=msg, remove=["urgent"]),
                                        "invalid_argument")
    assert "add" in error(call(tiny, "mail_label_message", message_id=msg), "invalid_argument")


def test_mark_message_read_and_unread(tiny: World) -> None:
    msg = mail_from(tiny, colleagues(tiny)[0])
    assert ok(call(tiny, "mail_mark_message", message_id=msg, read=True))["is_read"] is True
    assert entry(tiny, tiny.user_id, msg)["is_read"] == 1
    assert ok(call(tiny, "mail_mark_message", message_id=msg, read=False))["is_read"] is False
    assert entry(tiny, tiny.user_id, msg)["is_read"] == 0


def test_delete_moves_to_trash_then_removes_only_your_copy(tiny: World) -> None:
    sender = colleagues(tiny)[0]
    msg = mail_from(tiny, sender)
    assert ok(call(tiny, "mail_delete_message", message_id=msg))["folder"] == "trash"
    assert ok(call(tiny, "mail_delete_message", message_id=msg)) == {"id": msg, "deleted": True}
    assert entry(tiny, tiny.user_id, msg) is None and entry(tiny, sender["id"], msg) is not None
    assert error(call(tiny, "mail_get_message", message_id=msg), "not_found")
    draft = ok(call(tiny, "mail_create_draft", to=[], subject="x", body="y"))["id"]
    call(tiny, "mail_delete_message", message_id=draft)
    call(tiny, "mail_delete_message", message_id=draft)
    assert tiny.db.execute("SELECT count(*) FROM mail_message WHERE id = ?", (draft,)).fetchone()[0] == 0


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("name", MAIL_TOOLS)
def test_hostile_arguments_give_results_or_tool_errors(tiny: World, name: str, data: st.DataObject) -> None:
    refs = st.sampled_from(["msg_1", "msg_3", "msg_99999", "thr_1", "p_2", "p_3", "f_27", "f_1", "inbox", "trash",
                            "sent", "drafts", "bob", "a@b.test", "x@tinyco.test", "2026-09-01", "2026-13-45",
                            "o2", "o-1", "", " ", "%_", "\x00", "a" * 300, '"quoted"'])
    strings = st.one_of(refs, st.text(max_size=40))
    values = {"string": strings, "integer": st.integers(-10, 10**6), "boolean": st.booleans(),
              "array": st.lists(strings, max_size=4)}
    fields = {}
    for param, prop in registry()[name].parameters["properties"].items():
        types = prop["type"] if "type" in prop else [v["type"] for v in prop["anyOf"]]
        kinds = types if isinstance(types, list) else [types]
        options = [values[k] for k in kinds if k in values]
        if "null" in kinds:
            options.append(st.none())
        fields[param] = st.one_of(*options)
    result = tiny.call(name, data.draw(st.fixed_dictionaries(fields)))
    assert isinstance(result, dict)
    if "error" in result:
        assert result["error"]["type"] in TOOL_ERRORS
        assert len(result["error"]["message"]) > 20


# ----------------------------------------------------------------------------- generation
@pytest.mark.parametrize("fixture", ["tiny", "acme"])
def test_generated_volume_follows_the_spec(fixture: str, request: pytest.FixtureRequest) -> None:
    w: World = request.getfixturevalue(fixture)
    spec = load_spec(ROOT / "worlds" / f"{fixture}.yaml")
    per_person = spec.size.mail_per_person
    received = w.db.execute("SELECT count(*) FROM mail_entry WHERE folder NOT IN ('sent', 'drafts')").fetchone()[0]
    assert 0.9 * per_person <= received / spec.size.people <= 1.5 * per_person
    mine = w.db.execute("SELECT folder, is_read, labels FROM mail_entry WHERE owner_id = ?", (w.user_id,)).fetchall()
    inbox = [r for r in mine if r["folder"] not in ("sent", "drafts")]
    assert len(inbox) >= 2 * per_person
    assert any(r["is_read"] for r in inbox) and any(not r["is_read"] for r in inbox)
    assert sum(r["folder"] == "drafts" for r in mine) >= 1 and sum(r["folder"] == "sent" for r in mine) >= 1
    if fixture == "acme":
        assert any(r["labels"] != "[]" for r in inbox)
        assert {r["folder"] for r in inbox} >= {"inbox", "archive"}


def test_generated_mail_is_consistent(acme: World) -> None:
    messages = {m["id"]: m for m in acme.rows("mail_message")}
    start = acme.now()
    for m in messages.values():
        sent = parse_ts(m["sent_at"])
        assert start - timedelta(days=121) <= sent < start
        assert "{" not in m["subject"] + m["body"] and "}" not in m["subject"] + m["body"]
        if m["in_reply_to"]:
            parent = messages[m["in_reply_to"]]
            assert parent["thread_id"] == m["thread_id"] and parent["sent_at"] <= m["sent_at"]
            assert m["subject"].startswith("Re: ") and "wrote:\n> " in m["body"]
    people = {p["email"]: p["id"] for p in acme.rows("directory_person")}
    entries = {(e["owner_id"], e["message_id"]): e for e in acme.rows("mail_entry")}
    assert all(message_id in messages for _, message_id in entries)
    for m in messages.values():
        if m["status"] == "draft":
            continue
        if m["sender"] in people:
            assert entries[(people[m["sender"]], m["id"])]["folder"] == "sent"
        for address in json.loads(m["to"]) + json.loads(m["cc"]) + json.loads(m["bcc"]):
            if address in people and address != m["sender"]:
                assert (people[address], m["id"]) in entries
    with_files = [m for m in messages.values() if m["attachments"] != "[]"]
    assert with_files
    for m in with_files:
        with acme.acting_as(people[m["sender"]]):
            assert all(file_rank(acme, f) > 0 for f in json.loads(m["attachments"]))
    result = ok(call(acme, "mail_send_message", to=["a@b.test"], subject="x", body="y"))
    assert result["id"] == f"msg_{len(messages) + 1}"
    assert int(result["thread_id"].split("_")[1]) == len({m["thread_id"] for m in messages.values()}) + 1


def test_customer_mail_talks_about_real_deals_and_invoices(acme: World) -> None:
    contacts = acme.rows("crm_contact")
    deals = acme.rows("crm_deal")
    mentioned = 0
    for deal in deals:
        emails = [c["email"] for c in contacts if c["account_id"] == deal["account_id"]]
        clause = " OR ".join(["sender = ? OR \"to\" LIKE ?"] * len(emails))
        params = [p for e in emails for p in (e, f'%"{e}"%')]
        text = " ".join(r[0] for r in acme.db.execute(
            f"SELECT subject || ' ' || body FROM mail_message WHERE {clause}", params))
        mentioned += deal["name"].split(" - ", 1)[-1] in text
    assert mentioned >= 0.4 * len(deals)  # about 60% of deals have a conversation
    today = acme.now().date().isoformat()
    overdue = [i for i in acme.rows("crm_invoice") if i["status"] == "open" and i["due_on"] < today]
    assert overdue
    for invoice in overdue:
        row = acme.db.execute("SELECT * FROM mail_message WHERE subject = ?", (f"Overdue: invoice {invoice['number']}",)
                              ).fetchone()
        assert row is not None, invoice["number"]
        contacts = {c["email"] for c in acme.rows("crm_contact") if c["account_id"] == invoice["account_id"]}
        assert set(json.loads(row["to"])) <= contacts


def test_generation_without_crm_or_drive_writes_internal_mail(tiny: World) -> None:
    spec = load_spec(ROOT / "worlds" / "tiny.yaml")
    world = World.empty(clock=spec.start, meta={"domain": spec.domain})
    ctx = GenContext(world=world, spec=spec, seed=spec.seed)
    directory_generate.generate(ctx)
    mail_generate.generate(ctx)
    world.reload_meta()
    rows = world.rows("mail_message")
    assert rows and all(m["sender"].endswith(f"@{spec.domain}") for m in rows)
    assert all(m["attachments"] == "[]" for m in rows)
    assert world.meta("seq:msg") == str(len(rows))


def test_every_template_fills_from_its_documented_keys() -> None:
    internal = {"first", "dept", "quarter", "next_quarter", "month", "amount", "amount2", "amount3", "percent",
                "weeks", "cost_line", "due_date", "weekday", "date", "city", "venue", "n", "candidate",
                "role_title", "concern", "project", "risk", "ref", "vendor", "system", "campaign", "account",
                "cfo_first", "reason", "company", "holiday", "receipt_limit"}
    deal = {"contact_first", "owner_first", "account", "deal", "product", "amount", "close_date", "next_step",
            "company", "weekday", "competitor", "percent"}
    invoice = {"number", "amount", "due_date", "issued_date", "account", "contact_first", "sender_first", "days",
               "pay_date", "company"}
    groups: list[tuple[set[str], list[str]]] = [
        (internal, [t for topic in (*TOPICS, *(t for p in industries().values() for t in p.mail_topics))
                    for s in topic.scripts for t in (s.subject, s.opening, *s.replies)]),
        (internal, [t for pair in DEPARTMENT_UPDATES for t in pair] + [t for a in ANNOUNCEMENTS for t in a[2:]]),
        (deal, [t for scripts in DEAL_SCRIPTS.values() for s in scripts for t in (s.subject, s.opening, *s.replies)]),
        (invoice, [t for s in INVOICE_SCRIPTS.values() for t in (s.subject, s.opening, *s.replies)]),
    ]
    for keys, templates in groups:
        for template in templates:
            used = {name for _, name, _, _ in Formatter().parse(template) if name}
            assert used <= keys, (template, used - keys)


# ------------------------------------------------------------------------------ attachments are copies
def test_an_attachment_is_the_file_as_sent_not_a_live_link(tiny: World) -> None:
    # A shared-then-trashed sheet filled with salaries reached the mail's recipient through the link.
    to = colleagues(tiny)[0]
    sheet = ok(tiny.call("drive_create_sheet", {"name": "Team lunch", "columns": ["Name", "Dish"],
                                               "rows": [["Ana", "Soup"]]}))["id"]
    sent = ok(call(tiny, "mail_send_message", to=[to["email"]], subject="Lunch", body="See sheet.",
                   attachments=[sheet]))
    ok(call(tiny, "drive_update_rows", file_id=sheet, row_numbers=[1], values=[{"column": "Dish", "value": "$250k"}]))
    ok(call(tiny, "drive_delete_file", file_id=sheet))
    as_sent = "## sheet: Sheet1\nName,Dish\nAna,Soup\n"
    assert attachments_of(tiny, sent["id"]) == [{"file_id": sheet, "name": "Team lunch", "kind": "sheet",
                                                 "content": as_sent}]
    with tiny.acting_as(to["id"]):
        got = ok(call(tiny, "mail_get_attachment", message_id=sent["id"], file_id=sheet))
        assert got["text"] == as_sent and "$250k" not in got["text"]
        forwarded = ok(call(tiny, "mail_forward_message", message_id=sent["id"], to=[colleagues(tiny)[1]["email"]]))
    assert attachments_of(tiny, forwarded["id"]) == attachments_of(tiny, sent["id"])  # passed on as received


def test_a_draft_sends_its_attachments_as_they_are_when_it_is_sent(tiny: World) -> None:
    to = colleagues(tiny)[0]["email"]
    doc = ok(tiny.call("drive_create_doc", {"name": "Offer letter", "content": "draft terms"}))["id"]
    draft = ok(call(tiny, "mail_create_draft", to=[to], subject="Offer", body="Attached.", attachments=[doc]))
    ok(call(tiny, "drive_update_doc", file_id=doc, content="final terms"))
    ok(call(tiny, "mail_send_draft", draft_id=draft["id"]))
    assert [c["content"] for c in attachments_of(tiny, draft["id"])] == ["final terms"]


def test_generated_mail_carries_copies_of_its_attachments(acme: World) -> None:
    rows = acme.db.execute("SELECT id, attachments FROM mail_message WHERE attachments != '[]'").fetchall()
    assert rows
    for row in rows:
        copies = attachments_of(acme, row["id"])
        assert [c["file_id"] for c in copies] == json.loads(row["attachments"]) and all(c["content"] for c in copies)
