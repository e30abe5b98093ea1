"""Every app follows the same conventions: file roles, tables, tool names, clock, rollback, visibility.

A conformance check run as a parametrized test over everything registered (Gymnasium's env
checker idea): an app or tool that breaks a convention fails here, not in somebody's episode.
Tools are exercised on the acme world with arguments found in it (``WRITES``, ``FAILS``,
``READS``); a tool missing from those catalogues fails ``test_every_tool_is_catalogued``, so a new
tool cannot slip past the checks.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import SQLModel

from officesim import World
from officesim import tools as tool_registry
from officesim.apps import app_names, get_app
from officesim.errors import Conflict
from officesim.tools import registry

ROOT = Path(__file__).resolve().parent.parent
TOOLS = registry()
WRITE_TOOLS = sorted(n for n, t in TOOLS.items() if t.kind == "write")
READ_TOOLS = sorted(n for n, t in TOOLS.items() if t.kind == "read")
Args = dict[str, Any]
# Ids the apps hand out for objects that can be hidden from the acting user.
HIDEABLE_ID = re.compile(r"\b(?:f|ch|cm|msg|thr)_\d+\b")


# ------------------------------------------------------------------------------ finding arguments
def one(w: World, sql: str, *params: Any) -> Any:
    """The first column of the first row, which the test needs to exist."""
    row = w.db.execute(sql, params).fetchone()
    assert row is not None, f"the acme world has no row for: {sql}"
    return row[0]


# What the catalogues need, found for the acting user (bound to ?1).
FIND = {
    "colleague": "SELECT email FROM directory_person WHERE id != ?1 ORDER BY length(id) DESC, id DESC",
    "unread": "SELECT m.id FROM mail_entry e JOIN mail_message m ON m.id = e.message_id WHERE e.owner_id = ?1 "
              "AND e.folder = 'inbox' AND e.is_read = 0 AND m.status = 'sent' ORDER BY m.sent_at DESC",
    "read": "SELECT message_id FROM mail_entry WHERE owner_id = ?1 AND folder = 'inbox' AND is_read = 1 ORDER BY id",
    "draft": "SELECT m.id FROM mail_entry e JOIN mail_message m ON m.id = e.message_id WHERE e.owner_id = ?1 "
             "AND m.status = 'draft' AND m.\"to\" != '[]' AND m.subject != '' ORDER BY m.id",
    "sent": "SELECT message_id FROM mail_entry WHERE owner_id = ?1 AND folder = 'sent' ORDER BY id",
    "channel": "SELECT c.id FROM chat_channel c JOIN chat_member m ON m.channel_id = c.id AND m.person_id = ?1 "
               "WHERE c.kind = 'public' AND c.archived = 0 ORDER BY length(c.id), c.id",
    "unjoined": "SELECT id FROM chat_channel c WHERE kind = 'public' AND archived = 0 AND NOT EXISTS (SELECT 1 "
                "FROM chat_member m WHERE m.channel_id = c.id AND m.person_id = ?1) ORDER BY id",
    # A top-level message with replies in a channel the acting user is a member of.
    "root": "SELECT m.id FROM chat_message m JOIN chat_member me ON me.channel_id = m.channel_id AND "
            "me.person_id = ?1 WHERE m.thread_id IS NULL AND EXISTS (SELECT 1 FROM chat_message r WHERE "
            "r.thread_id = m.id) ORDER BY m.posted_at DESC",
}


def find(w: World, what: str) -> str:
    return one(w, FIND[what], w.user_id)


def message_with_attachment(w: World) -> tuple[str, str]:
    row = w.db.execute("SELECT m.id, m.attachments FROM mail_entry e JOIN mail_message m ON m.id = e.message_id "
                       "WHERE e.owner_id = ? AND m.attachments != '[]' ORDER BY m.id", (w.user_id,)).fetchone()
    assert row is not None, "the acting user has no mail with attachments"
    return row[0], json.loads(row[1])[0]


def owned(w: World, kind: str) -> str:
    return one(w, "SELECT id FROM drive_file WHERE owner_id = ? AND kind = ? AND trashed = 0 ORDER BY id",
               w.user_id, kind)


def drive_file_with_role(w: World, kind: str, roles: tuple[str, ...]) -> str:
    """A file the tools say the acting user holds one of ``roles`` on (found through drive_search_files)."""
    cursor = None
    while True:
        page = w.call("drive_search_files", {"kind": kind, "limit": 100, "cursor": cursor})
        for item in page["files"]:
            if item["your_role"] in roles:
                return item["id"]
        cursor = page["next_cursor"]
        assert cursor, f"the acting user has no {kind} with role {roles}"


def other_owned_folder(w: World, file_id: str) -> str:
    parent = one(w, "SELECT coalesce(parent_id, '') FROM drive_file WHERE id = ?", file_id)
    return one(w, "SELECT id FROM drive_file WHERE owner_id = ? AND kind = 'folder' AND trashed = 0 AND id != ? "
                  "ORDER BY id", w.user_id, parent)


def sample_row(w: World, file_id: str) -> list[Any]:
    """One data row that fits the first sheet's column types."""
    types = json.loads(one(w, "SELECT column_types FROM drive_sheet WHERE file_id = ? ORDER BY position", file_id))
    value = {"text": "conformance", "number": 7, "date": "2026-10-01", "bool": True}
    return [value[t] for t in types]


def first_cell(w: World) -> Args:
    """A new value for the first column of the acting user's own sheet."""
    columns = json.loads(one(w, "SELECT columns FROM drive_sheet WHERE file_id = ?", owned(w, "sheet")))
    return {"column": columns[0], "value": sample_row(w, owned(w, "sheet"))[0]}


def unshared_colleague(w: World, file_id: str) -> str:
    return one(w, "SELECT email FROM directory_person p WHERE id != ? AND id NOT IN (SELECT person_id FROM "
                  "drive_permission WHERE file_id = ? AND person_id IS NOT NULL) ORDER BY length(id), id",
               w.user_id, file_id)


def open_deal(w: World) -> tuple[str, str]:
    row = w.db.execute("SELECT id, stage FROM crm_deal WHERE stage NOT LIKE 'closed%' ORDER BY id").fetchone()
    return row[0], row[1]


def my_event(w: World, *, organizer: bool, recurring: bool = False) -> str:
    """An event on the acting user's calendar that they organise (or were invited to)."""
    return one(w, "SELECT e.id FROM calendar_event e JOIN calendar_attendee a ON a.event_id = e.id AND "
                  "a.person_id = ?1 WHERE (e.organizer_id = ?1) = ?2 AND (e.recurrence != '') = ?3 AND "
                  "e.status = 'confirmed' ORDER BY length(e.id), e.id", w.user_id, organizer, recurring)


def my_occurrence(w: World) -> str:
    """An occurrence id of a recurring event the acting user organises, in the clock's week."""
    listed = ok(w, "calendar_list_events", {"start": w.now_ts()[:10], "end": "2026-10-17", "limit": 100})["events"]
    series = my_event(w, organizer=True, recurring=True)
    return next(item["id"] for item in listed if item["event_id"] == series)


def first_id(w: World, table: str) -> str:
    return one(w, f"SELECT id FROM {table} ORDER BY length(id), id")


# Valid calls: each must succeed and change the world.
WRITES: dict[str, Callable[[World], Args]] = {
    "mail_send_message": lambda w: {"to": [find(w, "colleague")], "subject": "Conformance", "body": "Checking."},
    "mail_reply_message": lambda w: {"message_id": find(w, "unread"), "body": "Thanks."},
    "mail_reply_all": lambda w: {"message_id": find(w, "unread"), "body": "Thanks, all."},
    "mail_forward_message": lambda w: {"message_id": find(w, "unread"), "to": [find(w, "colleague")], "body": "FYI"},
    "mail_create_draft": lambda w: {"to": [find(w, "colleague")], "subject": "Draft", "body": "Not yet."},
    "mail_update_draft": lambda w: {"draft_id": find(w, "draft"), "body": "Rewritten."},
    "mail_send_draft": lambda w: {"draft_id": find(w, "draft")},
    "mail_move_message": lambda w: {"message_id": find(w, "unread"), "folder": "archive"},
    "mail_label_message": lambda w: {"message_id": find(w, "unread"), "add": ["conformance"]},
    "mail_mark_message": lambda w: {"message_id": find(w, "unread"), "read": True},
    "mail_delete_message": lambda w: {"message_id": find(w, "unread")},
    "drive_create_doc": lambda w: {"name": "Conformance notes", "content": "Hello"},
    "drive_create_folder": lambda w: {"name": "Conformance folder"},
    "drive_create_sheet": lambda w: {"name": "Conformance sheet", "columns": ["A", "B"], "rows": [[1, "x"]]},
    "drive_update_doc": lambda w: {"file_id": drive_file_with_role(w, "doc", ("editor", "owner")),
                                   "content": "Appended line", "mode": "append"},
    "drive_append_rows": lambda w: {"file_id": owned(w, "sheet"), "rows": [sample_row(w, owned(w, "sheet"))]},
    "drive_update_rows": lambda w: {"file_id": owned(w, "sheet"), "row_numbers": [1], "values": [first_cell(w)]},
    "drive_delete_rows": lambda w: {"file_id": owned(w, "sheet"), "row_numbers": [1]},
    "drive_share_file": lambda w: {"file_id": owned(w, "sheet"), "person": unshared_colleague(w, owned(w, "sheet")),
                                   "role": "viewer"},
    "drive_move_file": lambda w: {"file_id": owned(w, "sheet"), "folder_id": other_owned_folder(w, owned(w, "sheet"))},
    "drive_delete_file": lambda w: {"file_id": owned(w, "sheet")},
    "chat_post_message": lambda w: {"channel": find(w, "channel"), "text": "Conformance check"},
    "chat_reply_message": lambda w: {"message_id": find(w, "root"), "text": "Reply"},
    "chat_react_message": lambda w: {"message_id": find(w, "root"), "emoji": "zap"},
    "chat_send_dm": lambda w: {"person": find(w, "colleague"), "text": "Hi"},
    "chat_join_channel": lambda w: {"channel": find(w, "unjoined")},
    "crm_create_contact": lambda w: {"account_id": first_id(w, "crm_account"), "name": "Casey Check",
                                     "email": "casey.check@conformance.test"},
    "crm_update_contact": lambda w: {"contact_id": first_id(w, "crm_contact"), "title": "Head of Conformance"},
    "crm_create_deal": lambda w: {"account_id": first_id(w, "crm_account"), "name": "Conformance deal",
                                  "amount": 1000, "close_date": "2026-12-01"},
    "crm_update_deal": lambda w: {"deal_id": open_deal(w)[0], "next_step": "Conformance follow-up"},
    "crm_move_deal": lambda w: {"deal_id": open_deal(w)[0],
                                "stage": "negotiation" if open_deal(w)[1] != "negotiation" else "proposal"},
    "crm_log_activity": lambda w: {"kind": "note", "subject": "Conformance", "deal_id": open_deal(w)[0]},
    "calendar_create_event": lambda w: {"title": "Conformance sync", "start": "2026-10-08T15:00",
                                        "end": "2026-10-08T15:30", "attendees": [find(w, "colleague")]},
    "calendar_update_event": lambda w: {"event_id": my_event(w, organizer=True), "title": "Conformance (moved)",
                                        "start": "2026-10-09T11:00"},
    "calendar_cancel_event": lambda w: {"event_id": my_occurrence(w)},
    "calendar_respond_event": lambda w: {"event_id": my_event(w, organizer=False), "response": "tentative",
                                         "comment": "Might be late"},
}

# Calls that must fail with a ToolError (something a model gets wrong), leaving no trace.
FAILS: dict[str, Callable[[World], Args]] = {
    "mail_send_message": lambda w: {"to": [f"nobody.here@{w.meta('domain')}"], "subject": "x", "body": "y"},
    "mail_reply_message": lambda w: {"message_id": "msg_0", "body": "x"},
    "mail_reply_all": lambda w: {"message_id": find(w, "unread"), "body": "  "},
    "mail_forward_message": lambda w: {"message_id": find(w, "unread"), "to": ["not an address"]},
    "mail_create_draft": lambda w: {"to": [], "subject": "", "body": "", "attachments": ["f_0"]},
    "mail_update_draft": lambda w: {"draft_id": find(w, "sent"), "body": "x"},
    "mail_send_draft": lambda w: {"draft_id": "msg_0"},
    "mail_move_message": lambda w: {"message_id": find(w, "unread"), "folder": "drafts"},
    "mail_label_message": lambda w: {"message_id": find(w, "unread")},
    "mail_mark_message": lambda w: {"message_id": "msg_0", "read": True},
    "mail_delete_message": lambda w: {"message_id": "msg_0"},
    "drive_create_doc": lambda w: {"name": "   "},
    "drive_create_folder": lambda w: {"name": "x", "folder_id": "f_0"},
    "drive_create_sheet": lambda w: {"name": "x", "columns": []},
    "drive_update_doc": lambda w: {"file_id": drive_file_with_role(w, "doc", ("viewer",)), "content": "x"},
    "drive_append_rows": lambda w: {"file_id": owned(w, "sheet"), "rows": [["too", "few"]]},
    "drive_update_rows": lambda w: {"file_id": owned(w, "sheet"), "values": [], "row_numbers": [1]},
    "drive_delete_rows": lambda w: {"file_id": owned(w, "sheet"), "row_numbers": [99_999]},
    "drive_share_file": lambda w: {"file_id": owned(w, "sheet"), "person": "buyer@customer.test"},
    "drive_move_file": lambda w: {"file_id": owned(w, "folder"), "folder_id": owned(w, "folder")},
    "drive_delete_file": lambda w: {"file_id": drive_file_with_role(w, "doc", ("viewer", "editor"))},
    "chat_post_message": lambda w: {"channel": find(w, "channel"), "text": "   "},
    "chat_reply_message": lambda w: {"message_id": "cm_0", "text": "x"},
    "chat_react_message": lambda w: {"message_id": find(w, "root"), "emoji": "not an emoji!"},
    "chat_send_dm": lambda w: {"person": w.user["email"], "text": "me"},
    "chat_join_channel": lambda w: {"channel": find(w, "channel")},
    "crm_create_contact": lambda w: {"account_id": first_id(w, "crm_account"), "name": "X", "email": "nope"},
    "crm_update_contact": lambda w: {"contact_id": first_id(w, "crm_contact")},
    "crm_create_deal": lambda w: {"account_id": "acc_0", "name": "x", "amount": 1, "close_date": "2026-12-01"},
    "crm_update_deal": lambda w: {"deal_id": open_deal(w)[0], "amount": -5},
    "crm_move_deal": lambda w: {"deal_id": open_deal(w)[0], "stage": open_deal(w)[1]},
    "crm_log_activity": lambda w: {"kind": "note", "subject": "x"},
    "calendar_create_event": lambda w: {"title": "Backwards", "start": "2026-10-08T15:00", "end": "2026-10-08T14:00"},
    "calendar_update_event": lambda w: {"event_id": my_event(w, organizer=False), "title": "Not mine"},
    "calendar_cancel_event": lambda w: {"event_id": my_event(w, organizer=False)},
    "calendar_respond_event": lambda w: {"event_id": my_event(w, organizer=True), "response": "declined"},
}

# Read calls: each must succeed; list calls are broad so the visibility scan sees a lot.
READS: dict[str, Callable[[World], list[Args]]] = {
    "directory_search_people": lambda w: [{"limit": 100}, {"query": "finance"}, {"manager": w.user_id}],
    "directory_get_person": lambda w: [{"person": w.user_id}, {"person": one(w, "SELECT head_id FROM "
                                                                              "directory_department ORDER BY id")}],
    "directory_list_departments": lambda w: [{}],
    "mail_search_messages": lambda w: [{"limit": 100}, {"folder": "trash", "limit": 100},
                                       {"folder": "drafts"}, {"unread_only": True, "limit": 100}],
    "mail_get_message": lambda w: [{"message_id": find(w, "unread")}, {"message_id": find(w, "draft")}],
    "mail_get_thread": lambda w: [{"thread_id": find(w, "unread")}],
    "mail_get_attachment": lambda w: [dict(zip(("message_id", "file_id"), message_with_attachment(w),
                                               strict=True))],
    "mail_list_folders": lambda w: [{}],
    "drive_search_files": lambda w: [{"limit": 100}, {"query": "budget"}, {"kind": "sheet", "limit": 100}],
    "drive_list_folder": lambda w: [{"limit": 100}, {"folder_id": "trash"}, {"folder_id": owned(w, "folder")}],
    "drive_get_file": lambda w: [{"file_id": owned(w, "sheet")},
                                 {"file_id": drive_file_with_role(w, "doc", ("viewer", "editor"))}],
    "drive_get_doc": lambda w: [{"file_id": drive_file_with_role(w, "doc", ("viewer", "editor", "owner"))}],
    "drive_read_sheet": lambda w: [{"file_id": owned(w, "sheet"), "limit": 100}],
    "chat_list_channels": lambda w: [{"limit": 100}],
    "chat_list_messages": lambda w: [{"channel": find(w, "channel"), "limit": 100}],
    "chat_get_thread": lambda w: [{"message_id": find(w, "root")}],
    "chat_get_message": lambda w: [{"message_id": find(w, "root")}],
    "chat_search_messages": lambda w: [{"limit": 100}, {"query": "drive file", "limit": 100}],
    "chat_list_members": lambda w: [{"channel": find(w, "channel"), "limit": 100}],
    "crm_search_accounts": lambda w: [{"limit": 100}],
    "crm_get_account": lambda w: [{"account_id": first_id(w, "crm_account")}],
    "crm_search_contacts": lambda w: [{"limit": 100}],
    "crm_get_contact": lambda w: [{"contact_id": first_id(w, "crm_contact")}],
    "crm_search_deals": lambda w: [{"limit": 100}, {"stage": "open"}],
    "crm_get_deal": lambda w: [{"deal_id": first_id(w, "crm_deal")}],
    "crm_list_pipeline": lambda w: [{}, {"group_by": "owner", "stage": "all"}],
    "crm_list_activities": lambda w: [{"limit": 100}],
    "crm_get_activity": lambda w: [{"activity_id": first_id(w, "crm_activity")}],
    "crm_search_invoices": lambda w: [{"limit": 100}, {"overdue_only": True}],
    "crm_get_invoice": lambda w: [{"invoice_id": first_id(w, "crm_invoice")}],
    "calendar_list_events": lambda w: [{"start": "2026-09-28", "end": "2026-10-19", "limit": 100}],
    "calendar_search_events": lambda w: [{"limit": 100}, {"query": "sync"}, {"query": "1:1", "after": "2026-09-01"}],
    "calendar_get_event": lambda w: [{"event_id": my_event(w, organizer=False)}, {"event_id": my_occurrence(w)}],
    "calendar_get_free_busy": lambda w: [{"people": [find(w, "colleague"), w.user_id], "start": "2026-10-05",
                                          "end": "2026-10-12"}],
    "calendar_find_free_time": lambda w: [{"people": [find(w, "colleague")], "duration_minutes": 30,
                                           "start": "2026-10-05", "end": "2026-10-12"}],
    "calendar_list_rooms": lambda w: [{}, {"min_capacity": 8}],
}


def ok(w: World, name: str, args: Args) -> dict[str, Any]:
    result = w.call(name, args)
    assert "error" not in result, f"{name}({args}) failed: {result}"
    return result


# ------------------------------------------------------------------------------ package layout
def test_every_tool_is_catalogued() -> None:
    assert sorted(WRITES) == sorted(FAILS) == WRITE_TOOLS
    assert sorted(READS) == READ_TOOLS


@pytest.mark.parametrize("app", app_names())
def test_app_package_has_models_tools_and_generate(app: str) -> None:
    folder = ROOT / "officesim" / "apps" / app
    for role in ("models.py", "tools.py", "generate.py"):
        assert (folder / role).is_file(), f"officesim/apps/{app} has no {role}"
    generate = importlib.import_module(f"officesim.apps.{app}.generate")
    assert callable(generate.generate)
    assert get_app(app).generate is generate.generate, f"the world generator does not run {app}'s generate"


def _tables(app: str) -> list[Any]:
    module = importlib.import_module(f"officesim.apps.{app}.models")
    return [obj.__table__ for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, SQLModel) and obj.__module__ == module.__name__
            and hasattr(obj, "__table__")]


@pytest.mark.parametrize("app", app_names())
def test_tables_are_prefixed_by_their_app_and_keyed_by_id(app: str) -> None:
    tables = _tables(app)
    assert tables, f"{app} defines no tables"
    for table in tables:
        assert table.name.startswith(f"{app}_"), f"table {table.name} of {app} lacks the '{app}_' prefix"
        assert [c.name for c in table.primary_key.columns] == ["id"], f"{table.name} needs an 'id' primary key"


def test_every_world_table_belongs_to_one_app(tiny: World) -> None:
    owned_tables = {t.name for app in app_names() for t in _tables(app)}
    assert set(tiny.tables()) == owned_tables


@pytest.mark.parametrize("app", app_names())
def test_tools_are_registered_under_their_app(app: str) -> None:
    mine = [t for t in TOOLS.values() if t.app == app]
    assert mine, f"{app} registers no tools"
    for spec in mine:
        assert spec.name.startswith(f"{app}_")
        assert spec.func.__module__.startswith(f"officesim.apps.{app}."), (
            f"{spec.name} is implemented in {spec.func.__module__}, outside the {app} package")


# ------------------------------------------------------------------------------ clock and rollback
@pytest.mark.parametrize("name", WRITE_TOOLS)
def test_write_tool_changes_the_world_and_advances_the_clock_once(acme: World, name: str) -> None:
    args = WRITES[name](acme)
    before, state = acme.now(), acme.state_hash()
    acme.clear_change_log()
    ok(acme, name, args)
    assert acme.now() - before == timedelta(seconds=30), f"{name} moved the clock by {acme.now() - before}"
    assert acme.changed_keys(), f"{name} succeeded without changing any app table"
    assert acme.state_hash() != state


def _granted(w: World) -> Args:
    row = w.db.execute("SELECT p.file_id, p.role, d.email FROM drive_permission p JOIN directory_person d ON "
                       "d.id = p.person_id JOIN drive_file f ON f.id = p.file_id WHERE f.owner_id = ? "
                       "ORDER BY p.id", (w.user_id,)).fetchone()
    assert row is not None, "the acting user shares nothing"
    return {"file_id": row[0], "role": row[1], "person": row[2]}


# Writes that ask for the state the world is already in: they succeed and change nothing, not even
# the clock (so graders and hashes see no action).
NO_OPS: dict[str, Callable[[World], Args]] = {
    "mail_mark_message": lambda w: {"message_id": find(w, "read"), "read": True},
    "mail_move_message": lambda w: {"message_id": find(w, "read"), "folder": "inbox"},
    "drive_share_file": _granted,
    "crm_update_contact": lambda w: {"contact_id": first_id(w, "crm_contact"),
                                     "name": one(w, "SELECT name FROM crm_contact WHERE id = ?",
                                                 first_id(w, "crm_contact"))},
    "crm_update_deal": lambda w: {"deal_id": open_deal(w)[0],
                                  "amount": one(w, "SELECT amount FROM crm_deal WHERE id = ?", open_deal(w)[0])},
}


@pytest.mark.parametrize("name", sorted(NO_OPS))
def test_write_that_changes_nothing_leaves_no_trace(acme: World, name: str) -> None:
    args = NO_OPS[name](acme)
    state = acme.state_hash()
    ok(acme, name, args)
    assert acme.state_hash() == state


def test_repeating_a_reaction_leaves_no_trace(acme: World) -> None:
    args = WRITES["chat_react_message"](acme)
    ok(acme, "chat_react_message", args)
    state = acme.state_hash()
    assert ok(acme, "chat_react_message", args)["added"] is False
    assert acme.state_hash() == state


@pytest.mark.parametrize("name", WRITE_TOOLS)
def test_write_tool_error_leaves_no_trace(acme: World, name: str) -> None:
    args = FAILS[name](acme)
    state, clock = acme.state_hash(), acme.now_ts()
    result = acme.call(name, args)
    assert "error" in result, f"{name}({args}) should have failed"
    assert len(result["error"]["message"]) > 20
    assert acme.state_hash() == state and acme.now_ts() == clock


@pytest.mark.parametrize("name", WRITE_TOOLS)
def test_write_tool_rolls_back_everything_when_it_fails_after_writing(
    acme: World, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ToolError raised after every write of a valid call (rows, ids, clock) undoes all of it."""
    spec = TOOLS[name]

    def fail_late(w: World, **kwargs: Any) -> dict[str, Any]:
        spec.func(w, **kwargs)
        raise Conflict("failed on purpose after writing")

    monkeypatch.setitem(tool_registry._REGISTRY, name, dataclasses.replace(spec, func=fail_late))
    args = WRITES[name](acme)
    state, clock = acme.state_hash(), acme.now()
    assert acme.call(name, args)["error"]["type"] == "conflict"
    assert acme.state_hash() == state and acme.now() == clock
    monkeypatch.undo()
    ok(acme, name, args)  # the rolled-back world still takes the same call: ids and counters intact


@pytest.mark.parametrize("name", READ_TOOLS)
def test_read_tool_leaves_the_state_unchanged(acme: World, name: str) -> None:
    state = acme.state_hash()
    for args in READS[name](acme):
        ok(acme, name, args)
    assert acme.state_hash() == state


# ------------------------------------------------------------------------------ visibility
def _visible_files(w: World) -> set[str]:
    """Drive's sharing rules, computed here independently of the app: owned or granted, then inherited."""
    user = w.user_id
    files = {r["id"]: r for r in w.db.execute("SELECT id, parent_id, owner_id, trashed FROM drive_file")}
    granted = {r[0] for r in w.db.execute(
        "SELECT file_id FROM drive_permission WHERE principal = 'domain' OR person_id = ?", (user,))}
    children: dict[str, list[str]] = {}
    for row in files.values():
        children.setdefault(row["parent_id"], []).append(row["id"])
    reach = [f for f, r in files.items() if not r["trashed"] and (r["owner_id"] == user or f in granted)]
    seen: set[str] = set()
    while reach:
        current = reach.pop()
        if current in seen or files[current]["trashed"]:
            continue
        seen.add(current)
        reach += children.get(current, [])
    return seen


def hidden_ids(w: World) -> set[str]:
    """Ids of things the acting user must never be shown, minus ids written in text they may read."""
    user, db = w.user_id, w.db

    def rows(sql: str, *params: Any) -> set[str]:
        return {r[0] for r in db.execute(sql, params)}

    private = rows("SELECT id FROM chat_channel c WHERE kind != 'public' AND NOT EXISTS "
                   "(SELECT 1 FROM chat_member m WHERE m.channel_id = c.id AND m.person_id = ?)", user)
    marks = ",".join("?" * len(private))
    private_messages = rows(f"SELECT id FROM chat_message WHERE channel_id IN ({marks})", *private)
    mine = rows("SELECT message_id FROM mail_entry WHERE owner_id = ?", user)
    others_mail = rows("SELECT id FROM mail_message") - mine
    my_threads = rows("SELECT DISTINCT m.thread_id FROM mail_entry e JOIN mail_message m ON m.id = e.message_id "
                      "WHERE e.owner_id = ?", user)
    others_threads = rows("SELECT thread_id FROM mail_message") - my_threads
    attached = {f for (raw,) in db.execute("SELECT m.attachments FROM mail_entry e JOIN mail_message m ON "
                                           "m.id = e.message_id WHERE e.owner_id = ?", (user,))
                for f in json.loads(raw)}
    own_trash = rows("SELECT id FROM drive_file WHERE owner_id = ? AND trashed = 1", user)
    visible = _visible_files(w)
    unshared = rows("SELECT id FROM drive_file") - visible - attached - own_trash
    # Ids written inside text the user may read (a chat post linking 'drive file f_9') are not leaks.
    readable = [r[0] for r in db.execute(
        "SELECT m.text FROM chat_message m JOIN chat_channel c ON c.id = m.channel_id WHERE c.kind = 'public' OR "
        "EXISTS (SELECT 1 FROM chat_member x WHERE x.channel_id = c.id AND x.person_id = ?)", (user,))]
    readable += [r[0] + r[1] for r in db.execute(
        "SELECT m.subject, m.body FROM mail_entry e JOIN mail_message m ON m.id = e.message_id WHERE e.owner_id = ?",
        (user,))]
    readable += [r["content"] for r in db.execute("SELECT id, content FROM drive_file") if r["id"] in visible]
    mentioned = set(HIDEABLE_ID.findall("\n".join(readable)))
    return (private | private_messages | others_mail | others_threads | unshared) - mentioned


def _every_page(w: World, name: str, args: Args, pages: int = 40) -> list[dict[str, Any]]:
    results = [ok(w, name, {**args, "cursor": None})]
    while results[-1].get("next_cursor") and len(results) < pages:
        results.append(ok(w, name, {**args, "cursor": results[-1]["next_cursor"]}))
    return results


def _leaks(result: Any, hidden: set[str]) -> set[str]:
    return set(HIDEABLE_ID.findall(json.dumps(result))) & hidden


def test_hidden_ids_are_real(acme: World) -> None:
    """The scan below means something: the acme user cannot see plenty of channels, mail and files."""
    hidden = hidden_ids(acme)
    for prefix in ("ch_", "cm_", "msg_", "thr_", "f_"):
        assert sum(1 for h in hidden if h.startswith(prefix)) >= 3, f"too few hidden {prefix} ids to test"


# Whose view is scanned: the spec's acting user, a sales rep, the most recently hired employee, and
# someone who was given a file inside a folder they cannot open.
VIEWERS = ("acting_user", "sales_rep_1", "newest", "cross_shared")


def act_as(w: World, viewer: str) -> None:
    if viewer == "newest":
        w.set_user(one(w, "SELECT id FROM directory_person ORDER BY length(id) DESC, id DESC"))
    elif viewer == "cross_shared":
        parents = dict(w.db.execute("SELECT id, parent_id FROM drive_file").fetchall())
        for (person,) in w.db.execute("SELECT id FROM directory_person ORDER BY length(id), id").fetchall():
            w.set_user(person)
            visible = _visible_files(w)
            if any(parents[f] and parents[f] not in visible for f in visible):
                return
        pytest.fail("nobody in acme holds a file inside a folder they cannot see")
    elif viewer != "acting_user":
        w.set_user(one(w, "SELECT id FROM directory_person WHERE role = ?", viewer))


@pytest.mark.parametrize("viewer", VIEWERS)
def test_no_read_result_shows_what_the_user_may_not_see(acme: World, viewer: str) -> None:
    act_as(acme, viewer)
    hidden = hidden_ids(acme)
    results: list[tuple[str, Any]] = []
    if viewer == "acting_user":  # the catalogue's arguments are found for the acting user
        for name in READ_TOOLS:
            results += [(name, ok(acme, name, args)) for args in READS[name](acme)]
    listings = (("mail_search_messages", {"limit": 100}, "messages"),
                ("mail_search_messages", {"limit": 100, "folder": "trash"}, "messages"),
                ("drive_search_files", {"limit": 100}, "files"), ("drive_list_folder", {"limit": 100}, "files"),
                ("drive_list_folder", {"limit": 100, "folder_id": "trash"}, "files"),
                ("chat_search_messages", {"limit": 100}, "messages"),
                ("chat_list_channels", {"limit": 100}, "channels"))
    for name, args, key in listings:
        for page in _every_page(acme, name, args):
            results.append((name, page))
            for item in page[key]:
                results += _details(acme, name, item)
    leaks = [(name, found) for name, result in results if (found := _leaks(result, hidden))]
    assert not leaks, f"results show {viewer} ids they may not see: {leaks}"


def _details(w: World, listing: str, item: dict[str, Any]) -> list[tuple[str, Any]]:
    """The get calls a model would make on one listed item."""
    if listing == "mail_search_messages":
        return [("mail_get_message", ok(w, "mail_get_message", {"message_id": item["id"]})),
                ("mail_get_thread", ok(w, "mail_get_thread", {"thread_id": item["thread_id"]}))]
    if listing.startswith("drive_") and "trashed" not in item:
        return [("drive_get_file", ok(w, "drive_get_file", {"file_id": item["id"]}))]
    if listing == "chat_search_messages" and item["thread_id"] is None and item["reply_count"]:
        return [("chat_get_thread", ok(w, "chat_get_thread", {"message_id": item["id"]}))]
    if listing == "chat_list_channels":
        return [("chat_list_members", ok(w, "chat_list_members", {"channel": item["id"]}))]
    return []


@pytest.mark.parametrize("name", WRITE_TOOLS)
def test_no_write_result_shows_what_the_user_may_not_see(acme: World, name: str) -> None:
    hidden = hidden_ids(acme)
    assert not _leaks(ok(acme, name, WRITES[name](acme)), hidden)


def test_hidden_objects_are_refused_without_their_content(acme: World) -> None:
    db, user = acme.db, acme.user_id
    others = db.execute(
        "SELECT m.id, m.subject, m.thread_id FROM mail_message m WHERE m.status = 'sent' AND NOT EXISTS (SELECT 1 "
        "FROM mail_entry e WHERE e.message_id = m.id AND e.owner_id = ?) ORDER BY length(m.subject) DESC", (user,),
    ).fetchone()
    private = db.execute(
        "SELECT c.id, c.name, c.topic FROM chat_channel c WHERE c.kind = 'private' AND NOT EXISTS (SELECT 1 FROM "
        "chat_member m WHERE m.channel_id = c.id AND m.person_id = ?) ORDER BY c.id", (user,)).fetchone()
    secret = db.execute("SELECT id, text FROM chat_message WHERE channel_id = ? ORDER BY length(text) DESC",
                        (private["id"],)).fetchone()
    visible = _visible_files(acme)
    unshared = next(r for r in db.execute("SELECT id, name FROM drive_file WHERE kind = 'doc' AND trashed = 0 "
                                          "ORDER BY id") if r["id"] not in visible)
    attempts = [
        ("mail_get_message", {"message_id": others["id"]}, others["subject"]),
        ("mail_get_thread", {"thread_id": others["thread_id"]}, others["subject"]),
        ("mail_reply_message", {"message_id": others["id"], "body": "hi"}, others["subject"]),
        ("chat_list_messages", {"channel": private["id"]}, private["topic"]),
        ("chat_list_members", {"channel": private["name"]}, private["topic"]),
        ("chat_join_channel", {"channel": private["name"]}, private["topic"]),
        ("chat_get_message", {"message_id": secret["id"]}, secret["text"][:30]),
        ("chat_get_thread", {"message_id": secret["id"]}, secret["text"][:30]),
        ("chat_react_message", {"message_id": secret["id"], "emoji": "eyes"}, secret["text"][:30]),
        ("drive_get_doc", {"file_id": unshared["id"]}, unshared["name"]),
        ("drive_get_file", {"file_id": unshared["id"]}, unshared["name"]),
        ("drive_list_folder", {"folder_id": unshared["id"]}, unshared["name"]),
        ("drive_update_doc", {"file_id": unshared["id"], "content": "x"}, unshared["name"]),
        ("mail_send_message", {"to": [find(acme, "colleague")], "subject": "s", "body": "b",
                               "attachments": [unshared["name"]]}, unshared["id"]),
    ]
    state = acme.state_hash()
    for name, args, secret_text in attempts:
        result = acme.call(name, args)
        assert result.get("error", {}).get("type") in ("not_found", "permission_denied"), f"{name}: {result}"
        assert secret_text not in json.dumps(result), f"{name} revealed {secret_text!r}: {result}"
    assert acme.state_hash() == state


# ------------------------------------------------------------------------------ one argument language
QUERY_TOOLS = sorted(n for n, t in TOOLS.items() if "query" in t.parameters["properties"])
WINDOW_TOOLS = sorted(n for n, t in TOOLS.items() if {"after", "before"} <= set(t.parameters["properties"]))
PERSON_PARAMS = ("person", "owner", "author", "manager")
PERSON_ARGS = sorted((n, p) for n, t in TOOLS.items() for p in t.parameters["properties"] if p in PERSON_PARAMS)
# The field of a search result whose words the query test looks for.
SEARCHED = {"mail_search_messages": ("messages", "subject"), "chat_search_messages": ("messages", "text"),
            "crm_search_accounts": ("accounts", "name"), "crm_search_contacts": ("contacts", "name"),
            "crm_search_deals": ("deals", "name"), "directory_search_people": ("people", "name"),
            "drive_search_files": ("files", "name"), "calendar_search_events": ("events", "title")}


def base_args(w: World, name: str) -> Args:
    """Valid arguments for any tool, from the catalogues."""
    return WRITES[name](w) if name in WRITES else READS[name](w)[0]


def test_argument_catalogues_cover_every_shared_parameter() -> None:
    assert set(QUERY_TOOLS) == set(SEARCHED)
    assert len(WINDOW_TOOLS) >= 3 and len(PERSON_ARGS) >= 8


@pytest.mark.parametrize("name", QUERY_TOOLS)
def test_queries_match_every_word_or_a_quoted_phrase_in_every_app(acme: World, name: str) -> None:
    key, field = SEARCHED[name]
    item = next(i for i in ok(acme, name, {"limit": 100})[key] if len(i[field].split()) >= 2)
    first, second = item[field].split()[:2]

    def finds(query: str) -> bool:
        for page in _every_page(acme, name, {"query": query, "limit": 100}):
            if any(i["id"] == item["id"] for i in page[key]):
                return True
        return False

    assert finds(f"{second.upper()} {first.lower()}"), f"{name}: words in any order and case"
    assert finds(f'"{first} {second}"'), f"{name}: a quoted phrase"
    too_many = acme.call(name, {"query": " ".join(f"word{i}" for i in range(11))})
    assert too_many["error"]["type"] == "invalid_argument" and "at most 10" in too_many["error"]["message"]


@pytest.mark.parametrize("name", WINDOW_TOOLS)
def test_time_windows_read_the_same_in_every_app(acme: World, name: str) -> None:
    args = base_args(acme, name)
    bad = acme.call(name, {**args, "after": "last week"})["error"]
    assert bad["type"] == "invalid_argument" and "ISO format" in bad["message"] and "'2026-09-14'" in bad["message"]
    swapped = acme.call(name, {**args, "after": "2026-09-10", "before": "2026-09-01"})["error"]
    assert "earlier than" in swapped["message"]
    key = "events" if name.startswith("calendar_") else "messages"
    everything = {i["id"] for p in _every_page(acme, name, {**args, "limit": 100}) for i in p[key]}
    early = {i["id"] for p in _every_page(acme, name, {**args, "limit": 100, "before": "2026-09-01"}) for i in p[key]}
    late = {i["id"] for p in _every_page(acme, name, {**args, "limit": 100, "after": "2026-09-01"}) for i in p[key]}
    assert early and late and early | late == everything and not early & late


@pytest.mark.parametrize(("name", "param"), PERSON_ARGS)
def test_people_are_named_the_same_way_in_every_app(acme: World, name: str, param: str) -> None:
    """An id, an email in any case, or an '@Full Name' all work; a stranger is not_found with a pointer."""
    base = base_args(acme, name)
    if name == "drive_share_file":
        base.pop("domain", None)
    target = next(r for r in acme.db.execute(
        "SELECT id, email, name FROM directory_person p WHERE id != ? AND (SELECT count(*) FROM directory_person q "
        "WHERE q.name = p.name) = 1 ORDER BY length(id) DESC, id DESC", (acme.user_id,)))
    stranger = acme.call(name, {**base, param: f"nobody.here@{acme.meta('domain')}"})["error"]
    assert stranger["type"] == "not_found" and "directory_search_people" in stranger["message"]
    if TOOLS[name].kind == "write":
        return  # the write itself is covered above; one success per call is enough
    results = [json.dumps(ok(acme, name, {**base, param: ref}), sort_keys=True)
               for ref in (target["id"], target["email"].upper(), f"@{target['name']}")]
    assert results[0] == results[1] == results[2]
