"""Lookups are served by indexes (SQLite's query plans), so their cost does not grow with the world."""

from __future__ import annotations

import pytest

from officesim.apps.mail.mailbox import ENTRY_COLUMNS
from officesim.schema_sql import LOOKUP_INDEXES
from officesim.world import World

# (the lookup a tool makes, its parameters, the index that must serve it)
LOOKUPS = [
    ("SELECT * FROM chat_channel WHERE name = ? COLLATE NOCASE ORDER BY rowid", ("x",), "ix_chat_channel_name_nocase"),
    ("SELECT * FROM crm_account WHERE name = ? COLLATE NOCASE ORDER BY id LIMIT 1", ("x",),
     "ix_crm_account_name_nocase"),
    ("SELECT * FROM crm_contact WHERE email = ? COLLATE NOCASE ORDER BY id LIMIT 1", ("x",),
     "ix_crm_contact_email_nocase"),
    ("SELECT * FROM crm_deal WHERE name = ? COLLATE NOCASE LIMIT 3", ("x",), "ix_crm_deal_name_nocase"),
    ("SELECT id FROM crm_deal WHERE account_id = ? AND name = ? COLLATE NOCASE", ("a", "x"),
     "ix_crm_deal_account_name_nocase"),
    ("SELECT * FROM crm_invoice WHERE number = ? COLLATE NOCASE ORDER BY id LIMIT 3", ("x",),
     "ix_crm_invoice_number_nocase"),
    ("SELECT * FROM crm_invoice WHERE deal_id = ?", ("deal_1",), "ix_crm_invoice_deal_id"),
    ("SELECT * FROM directory_person WHERE name = ? COLLATE NOCASE ORDER BY length(id), id LIMIT 3", ("x",),
     "ix_directory_person_name_nocase"),
    ("SELECT * FROM directory_department WHERE name = ? COLLATE NOCASE", ("x",),
     "ix_directory_department_name_nocase"),
    ("SELECT id, name FROM drive_file WHERE name = ? COLLATE NOCASE AND trashed = 0 AND kind != 'folder'", ("x",),
     "ix_drive_file_name_nocase"),
    (f"SELECT {ENTRY_COLUMNS} FROM mail_message m CROSS JOIN mail_entry e ON e.message_id = m.id "
     "WHERE e.owner_id = ? AND m.thread_id = ? ORDER BY m.sent_at, length(m.id), m.id LIMIT ?", ("p_1", "thr_1", 5),
     "ix_mail_message_thread_id"),
]


# (a paged list over a whole table with a deep cursor, the index whose order it walks)
PAGES = [
    ("crm_search_accounts", "ix_crm_account_name_id"),
    ("crm_search_contacts", "ix_crm_contact_name_id"),
    ("crm_search_deals", "ix_crm_deal_close_date_id"),
    ("crm_search_invoices", "ix_crm_invoice_due_on_id"),
    ("crm_list_activities", "ix_crm_activity_at_id"),
    ("directory_search_people", "ix_directory_person_name_id"),
]


def plan(world: World, sql: str, params: tuple) -> str:
    return " / ".join(row[3] for row in world.db.execute(f"EXPLAIN QUERY PLAN {sql}", params))


@pytest.mark.parametrize(("sql", "params", "index"), LOOKUPS, ids=[case[2] for case in LOOKUPS])
def test_each_lookup_uses_its_index(tiny: World, sql: str, params: tuple, index: str) -> None:
    assert f"USING INDEX {index} " in plan(tiny, sql, params) + " "


@pytest.mark.parametrize(("tool", "index"), PAGES)
def test_deep_pages_walk_an_index_instead_of_sorting_the_table(tiny: World, tool: str, index: str) -> None:
    statements: list[str] = []
    tiny.db.set_trace_callback(statements.append)
    try:
        result = tiny.call(tool, {"cursor": "o5", "limit": 5})
    finally:
        tiny.db.set_trace_callback(None)
    assert "error" not in result, result
    page = plan(tiny, next(s for s in statements if "OFFSET" in s), ())
    assert f"SCAN {page.split()[1]} USING INDEX {index}" in page and "TEMP B-TREE FOR ORDER BY" not in page


def test_every_lookup_index_exists_and_is_used_by_a_tested_query(tiny: World) -> None:
    names = {row[0] for row in tiny.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {name for name, _, _ in LOOKUP_INDEXES} <= names
    assert {name for name, _, _ in LOOKUP_INDEXES} <= {case[2] for case in LOOKUPS} | {i for _, i in PAGES} | {
        "ix_mail_entry_owner_labels"}


def test_labelling_reads_only_the_labelled_entries_from_their_index(tiny: World) -> None:
    message = tiny.db.execute("SELECT message_id FROM mail_entry WHERE owner_id = ? LIMIT 1",
                              (tiny.user_id,)).fetchone()[0]
    statements: list[str] = []
    tiny.db.set_trace_callback(statements.append)
    try:
        result = tiny.call("mail_label_message", {"message_id": message, "add": ["follow-up"]})
    finally:
        tiny.db.set_trace_callback(None)
    assert "follow-up" in result["labels"], result
    query = next(s for s in statements if "labels LIKE" in s)
    assert "USING COVERING INDEX ix_mail_entry_owner_labels" in plan(tiny, query, ())


def test_a_label_keeps_its_stored_spelling_whatever_else_the_mailbox_holds(tiny: World) -> None:
    entries = [row[0] for row in tiny.db.execute("SELECT message_id FROM mail_entry WHERE owner_id = ? "
                                                 "AND folder != 'trash' LIMIT 4", (tiny.user_id,))]
    tiny.call("mail_label_message", {"message_id": entries[0], "add": ["Follow-Up", "Café", "50%_off"]})
    # other spellings and labels the LIKE pattern cannot tell apart are found as before
    assert tiny.call("mail_label_message", {"message_id": entries[1], "add": ["FOLLOW-UP"]})["labels"] == ["Follow-Up"]
    assert tiny.call("mail_label_message", {"message_id": entries[2], "add": ["CAFÉ", "50%_OFF"]})["labels"] == [
        "Café", "50%_off"]
    assert tiny.call("mail_label_message", {"message_id": entries[3], "add": ["50x_off"]})["labels"] == ["50x_off"]


def test_mail_get_thread_reads_the_thread_not_the_mailbox(tiny: World) -> None:
    thread = tiny.db.execute("SELECT m.thread_id FROM mail_entry e JOIN mail_message m ON m.id = e.message_id "
                             "WHERE e.owner_id = ? LIMIT 1", (tiny.user_id,)).fetchone()[0]
    statements: list[str] = []
    tiny.db.set_trace_callback(statements.append)
    try:
        result = tiny.call("mail_get_thread", {"thread_id": thread})
    finally:
        tiny.db.set_trace_callback(None)
    assert result["thread_id"] == thread and result["messages"]
    query = next(s for s in statements if "thread_id =" in s)
    assert "SEARCH m USING INDEX ix_mail_message_thread_id" in plan(tiny, query, ())


# (a tool whose SQL matches text with LIKE, the arguments of three calls that differ only in their words)
SEARCHES = [
    ("drive_search_files", [{"query": word} for word in ("budget", "policy", "notes")]),
    ("mail_search_messages", [{"query": word} for word in ("invoice", "meeting", "update")]),
    ("mail_search_messages", [{"sender": word} for word in ("a", "b", "c")]),
    ("crm_search_accounts", [{"query": word} for word in ("a", "b", "c")]),
    ("crm_search_contacts", [{"query": word} for word in ("a", "b", "c")]),
    ("crm_search_deals", [{"query": word} for word in ("a", "b", "c")]),
    ("directory_search_people", [{"query": word} for word in ("a", "b", "c")]),
]


@pytest.mark.parametrize(("tool", "calls"), SEARCHES, ids=[f"{t}-{sorted(c[0])[0]}" for t, c in SEARCHES])
def test_a_search_reuses_its_prepared_statements_when_only_its_words_change(tiny: World, tool: str,
                                                                            calls: list[dict]) -> None:
    """A ``LIKE ?`` pattern would make SQLite re-prepare the statement for every binding (``LIKE +?`` does not):
    SQLite asks the authorizer only while preparing, so the third call must not ask it at all."""
    asked: list[int] = []
    guard = tiny.db._authorize

    def counting(*args: object) -> int:
        asked.append(1)
        return guard(*args)  # type: ignore[arg-type]

    tiny.db.set_authorizer(counting)
    for arguments in calls[:2]:
        assert "error" not in tiny.call(tool, arguments)
    asked.clear()
    result = tiny.call(tool, calls[2])
    assert "error" not in result, result
    assert not asked, f"{tool} re-prepared its statements for new words ({len(asked)} authorizer calls)"
