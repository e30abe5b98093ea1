"""Generated worlds hang together across apps: one cast of people, and numbers that agree.

Each app generates its own rows; these tests read the acme world the way a grader or a careful
agent would and check that the apps tell one story: the people in mail, chat, Drive and the CRM
are the directory's, customer mail quotes the CRM's deals and invoices, chat links real files,
spreadsheets add up and match the records they summarise, and the acting employee has an office
life worth working in.  Generation time is the benchmarks' business, not asserted here.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from officesim import World
from officesim.apps import app_names
from officesim.apps.chat.models import dm_channel_name
from officesim.apps.money import money
from officesim.clock import parse_ts

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "worlds" / "tiny.yaml"
# An amount as generated text writes it ('$48,200', '€1,234.50', 'CAD 48,200').
MONEY = re.compile(r"(?:[$€£¥₹]|\b[A-Z]{3} )\d{1,3}(?:,\d{3})*(?:\.\d\d)?")
WINDOW = timedelta(days=121)  # generated activity lies in the ~120 days before the clock start


def rows(w: World, sql: str, *params: Any) -> list[dict[str, Any]]:
    return [dict(r) for r in w.db.execute(sql, params)]


def column(w: World, sql: str, *params: Any) -> set[Any]:
    return {r[0] for r in w.db.execute(sql, params)}


def addresses(message: dict[str, Any]) -> list[str]:
    return [message["sender"], *json.loads(message["to"]), *json.loads(message["cc"]), *json.loads(message["bcc"])]


def sheet(w: World, file_name: str, tab: str | None = None) -> tuple[list[str], list[list[Any]]]:
    """Columns and data rows of a generated spreadsheet's tab (the first tab when ``tab`` is None)."""
    tabs = rows(w, "SELECT s.id, s.name, s.columns FROM drive_sheet s JOIN drive_file f ON f.id = s.file_id "
                   "WHERE f.name = ? ORDER BY s.position", file_name)
    assert tabs, f"the world has no spreadsheet named {file_name!r}"
    chosen = tabs[0] if tab is None else next(t for t in tabs if t["name"] == tab)
    cells = [json.loads(r["cells"]) for r in rows(w, "SELECT cells FROM drive_row WHERE sheet_id = ? "
                                                     "ORDER BY position", chosen["id"])]
    return json.loads(chosen["columns"]), cells


# ------------------------------------------------------------------------------ one cast of people
def test_every_employee_reference_is_a_directory_person(acme: World) -> None:
    people = column(acme, "SELECT id FROM directory_person")
    references = {
        "department heads": "SELECT head_id FROM directory_department WHERE head_id IS NOT NULL",
        "managers": "SELECT manager_id FROM directory_person WHERE manager_id IS NOT NULL",
        "mailbox owners": "SELECT owner_id FROM mail_entry",
        "chat members": "SELECT person_id FROM chat_member",
        "chat authors": "SELECT author_id FROM chat_message",
        "chat reactions": "SELECT person_id FROM chat_reaction",
        "channel creators": "SELECT created_by FROM chat_channel",
        "drive owners": "SELECT owner_id FROM drive_file",
        "drive editors": "SELECT modified_by FROM drive_file",
        "drive grants": "SELECT person_id FROM drive_permission WHERE principal = 'person'",
        "account owners": "SELECT owner_id FROM crm_account",
        "deal owners": "SELECT owner_id FROM crm_deal",
        "activity authors": "SELECT person_id FROM crm_activity",
    }
    for what, sql in references.items():
        found = column(acme, sql)
        assert found, f"acme has no {what}"
        assert found <= people, f"{what} who are not in the directory: {sorted(found - people)[:5]}"


def test_mail_addresses_are_colleagues_or_crm_contacts(acme: World) -> None:
    domain = acme.meta("domain")
    staff = {r["email"]: r["name"] for r in rows(acme, "SELECT email, name FROM directory_person")}
    contacts = column(acme, "SELECT lower(email) FROM crm_contact")
    messages = rows(acme, 'SELECT sender, sender_name, "to", cc, bcc FROM mail_message')
    external = 0
    for message in messages:
        for address in addresses(message):
            if address.endswith(f"@{domain}"):
                assert address in staff, f"{address} is in the company domain but not in the directory"
            else:
                assert address in contacts, f"{address} is neither a colleague nor a CRM contact"
                external += 1
        if message["sender"] in staff:
            assert message["sender_name"] == staff[message["sender"]]
    assert external > 0, "nobody mails a customer"


def test_every_mailbox_entry_belongs_to_a_participant(acme: World) -> None:
    """A person holds a message only as its sender or one of its recipients (bcc included)."""
    emails = {r["id"]: r["email"] for r in rows(acme, "SELECT id, email FROM directory_person")}
    for entry in rows(acme, 'SELECT e.owner_id, m.sender, m."to", m.cc, m.bcc, m.status FROM mail_entry e '
                            "JOIN mail_message m ON m.id = e.message_id"):
        assert emails[entry["owner_id"]] in addresses(entry)
        if entry["status"] == "draft":
            assert emails[entry["owner_id"]] == entry["sender"], "a draft is only in its author's mailbox"


def test_chat_authors_and_reactors_are_members_and_dms_are_named_after_their_pair(acme: World) -> None:
    assert not rows(acme, "SELECT m.id FROM chat_message m WHERE NOT EXISTS (SELECT 1 FROM chat_member x "
                          "WHERE x.channel_id = m.channel_id AND x.person_id = m.author_id)")
    assert not rows(acme, "SELECT r.id FROM chat_reaction r JOIN chat_message m ON m.id = r.message_id WHERE NOT "
                          "EXISTS (SELECT 1 FROM chat_member x WHERE x.channel_id = m.channel_id AND "
                          "x.person_id = r.person_id)")
    dms = rows(acme, "SELECT id, name FROM chat_channel WHERE kind = 'dm'")
    assert dms
    for dm in dms:
        pair = sorted(column(acme, "SELECT person_id FROM chat_member WHERE channel_id = ?", dm["id"]))
        assert len(pair) == 2 and dm["name"] == dm_channel_name(*pair)


def test_crm_links_stay_within_one_account(acme: World) -> None:
    checks = {
        "contacts": "SELECT id FROM crm_contact c WHERE account_id NOT IN (SELECT id FROM crm_account)",
        "deals": "SELECT id FROM crm_deal WHERE account_id NOT IN (SELECT id FROM crm_account)",
        "invoices of other accounts' deals": "SELECT i.id FROM crm_invoice i JOIN crm_deal d ON d.id = i.deal_id "
                                             "WHERE d.account_id != i.account_id",
        "activities with another account's contact": "SELECT a.id FROM crm_activity a JOIN crm_contact c ON "
                                                     "c.id = a.contact_id WHERE c.account_id != a.account_id",
        "activities on another account's deal": "SELECT a.id FROM crm_activity a JOIN crm_deal d ON "
                                                "d.id = a.deal_id WHERE d.account_id != a.account_id",
    }
    for what, sql in checks.items():
        assert not rows(acme, sql), f"broken CRM links: {what}"


def test_generated_activity_lies_in_the_history_window(acme: World) -> None:
    start = acme.now()
    stamped = (("mail_message", "sent_at"), ("chat_message", "posted_at"), ("chat_channel", "created_at"),
               ("drive_file", "created_at"), ("drive_file", "modified_at"), ("crm_activity", "at"),
               ("crm_deal", "created_at"), ("crm_deal", "updated_at"), ("crm_account", "created_at"))
    for table, name in stamped:
        low, high = acme.db.execute(f"SELECT min({name}), max({name}) FROM {table}").fetchone()
        assert start - WINDOW <= parse_ts(low) and parse_ts(high) <= start, f"{table}.{name} spans {low}..{high}"


# ------------------------------------------------------------------------------ mail about the CRM
def _customer_mail(w: World) -> list[tuple[dict[str, Any], str]]:
    """Sent messages with a CRM contact among their participants, with that contact's account id."""
    account_of = {r["email"].lower(): r["account_id"] for r in rows(w, "SELECT email, account_id FROM crm_contact")}
    out = []
    for message in rows(w, "SELECT * FROM mail_message WHERE status = 'sent' ORDER BY id"):
        accounts = {account_of[a] for a in addresses(message) if a in account_of}
        if accounts:
            assert len(accounts) == 1, f"{message['id']} mails contacts of several accounts"
            out.append((message, accounts.pop()))
    return out


def test_customer_mail_quotes_the_accounts_real_deals_and_invoices(acme: World) -> None:
    customer_mail = _customer_mail(acme)
    assert len(customer_mail) >= 20
    amounts: dict[str, set[str]] = {}
    for deal in rows(acme, "SELECT account_id, amount, currency FROM crm_deal"):
        amounts.setdefault(deal["account_id"], set()).add(money(deal["amount"], deal["currency"]))
    for invoice in rows(acme, "SELECT account_id, amount, currency FROM crm_invoice"):
        amounts.setdefault(invoice["account_id"], set()).add(money(invoice["amount"], invoice["currency"]))
    quoted = 0
    for message, account in customer_mail:
        for amount in MONEY.findall(message["subject"] + "\n" + message["body"]):
            assert amount in amounts.get(account, set()), (
                f"{message['id']} quotes {amount}, which is no deal or invoice of {account}")
            quoted += 1
    assert quoted >= 10, "customer mail hardly ever mentions an amount"


def test_customer_mail_names_real_deals_and_invoices_of_the_account(acme: World) -> None:
    deals = {(d["account_id"], d["name"]) for d in rows(acme, "SELECT account_id, name FROM crm_deal")}
    invoices = {(i["account_id"], i["number"]) for i in rows(acme, "SELECT account_id, number FROM crm_invoice")}
    subject_deal = re.compile(r"^(?:Re: )*(?:Proposal: (?P<a>.+)|(?P<b>.+): pricing and terms)$")
    named = numbered = 0
    for message, account in _customer_mail(acme):
        match = subject_deal.match(message["subject"])
        if match:
            assert (account, match["a"] or match["b"]) in deals, f"{message['id']}: {message['subject']!r}"
            named += 1
        for number in re.findall(r"\bINV-\d{4}-\d{4}\b", message["subject"] + message["body"]):
            assert (account, number) in invoices, f"{message['id']} cites {number}, not an invoice of {account}"
            numbered += 1
    assert named >= 3 and numbered >= 3


def test_every_overdue_invoice_has_collections_mail(acme: World) -> None:
    today = acme.now().date().isoformat()
    overdue = column(acme, "SELECT number FROM crm_invoice WHERE status = 'open' AND due_on < ?", today)
    assert overdue, "acme has no overdue invoice to chase"
    mentioned = "\n".join(r[0] for r in acme.db.execute("SELECT subject || ' ' || body FROM mail_message"))
    assert {n for n in overdue if n not in mentioned} == set()


# ------------------------------------------------------------------------------ chat about Drive and CRM
def test_chat_links_point_at_existing_files_by_their_name(acme: World) -> None:
    files = {r["id"]: r for r in rows(acme, "SELECT id, name, kind, trashed FROM drive_file")}
    links = 0
    for message in rows(acme, "SELECT id, text FROM chat_message WHERE text LIKE '%drive file f\\_%' ESCAPE '\\'"):
        for file_id in re.findall(r"drive file (f_\d+)", message["text"]):
            found = files.get(file_id)
            assert found is not None and not found["trashed"] and found["kind"] != "folder", (
                f"{message['id']} links {file_id}, which is no live document or sheet")
            assert f"{found['name']} (drive file {file_id})" in message["text"], (
                f"{message['id']} names {file_id} wrongly: {message['text']!r}")
            links += 1
    assert links >= 20


def test_chat_quotes_deal_amounts_and_stages_as_in_the_crm(acme: World) -> None:
    deals = rows(acme, "SELECT name, amount, currency, stage FROM crm_deal")
    checked = 0
    for message in rows(acme, "SELECT id, text FROM chat_message"):
        named = [d for d in deals if d["name"] in message["text"]]
        if not named:
            continue
        for amount in MONEY.findall(message["text"]):
            assert amount in {money(d["amount"], d["currency"]) for d in named}, (
                f"{message['id']} quotes {amount} for {[d['name'] for d in named]}")
            checked += 1
        for stage in re.findall(r"(?:now in|currently) ([a-z_ ]+?)[,.]", message["text"]):
            assert stage in {d["stage"].replace("_", " ") for d in named}, f"{message['id']}: stage {stage!r}"
    assert checked >= 5


def test_crm_activities_quote_their_deals_amount(acme: World) -> None:
    checked = 0
    for activity in rows(acme, "SELECT t.id, t.subject, t.body, d.amount, d.currency FROM crm_activity t "
                               "JOIN crm_deal d ON d.id = t.deal_id"):
        for amount in MONEY.findall(activity["subject"] + "\n" + activity["body"]):
            assert amount == money(activity["amount"], activity["currency"]), f"{activity['id']} quotes {amount}"
            checked += 1
    assert checked >= 5


def test_account_plans_list_the_accounts_crm_contacts_and_open_deals(acme: World) -> None:
    plans = rows(acme, "SELECT f.content, a.id AS account_id FROM drive_file f JOIN crm_account a ON "
                       "f.name = 'Account plan: ' || a.name")
    assert plans
    lines = 0
    for plan in plans:
        deals = rows(acme, "SELECT * FROM crm_deal WHERE account_id = ?", plan["account_id"])
        listed = re.findall(r"^- (.+): ([a-z ]+), (\S+(?: \S+)?), expected close (\S+)$", plan["content"], re.M)
        expected = [(d["name"], d["stage"].replace("_", " "), money(d["amount"], d["currency"]), d["close_date"])
                    for d in deals if not d["stage"].startswith("closed")]
        assert sorted(listed) == sorted(expected)
        lines += len(listed)
        for email in re.findall(r"\(([^()\s]+@[^()\s]+)\)", plan["content"].split("## Key contacts")[1]):
            assert acme.db.execute("SELECT 1 FROM crm_contact WHERE email = ? AND account_id = ?",
                                   (email, plan["account_id"])).fetchone(), f"{email} is no contact of the account"
        won: dict[str, float] = {}
        for d in deals:
            if d["stage"] == "closed_won":
                won[d["currency"]] = won.get(d["currency"], 0.0) + d["amount"]
        total = " + ".join(money(v, c) for c, v in sorted(won.items())) or "nothing yet"
        assert f"Closed-won to date: {total} across {sum(d['stage'] == 'closed_won' for d in deals)}" in plan["content"]
    assert lines >= 5, "account plans hardly list any deal"


# ------------------------------------------------------------------------------ sheets that add up
def test_budget_sheet_totals_equal_the_sum_of_their_lines(acme: World) -> None:
    year = acme.now().year
    for tab in ("Budget", "Actuals"):
        columns, lines = sheet(acme, f"FY{year} Budget", tab)
        *departments, total = lines
        assert total[0] == "Total" and departments
        for line in departments:
            assert line[-1] == sum(line[1:-1]), f"{tab}: {line[0]}'s total is not the sum of its quarters"
        for index in range(1, len(columns)):
            assert total[index] == sum(line[index] for line in departments), f"{tab}: column {columns[index]}"


def test_quarterly_reviews_quote_the_budget_sheet(acme: World) -> None:
    year = acme.now().year
    _, budget = sheet(acme, f"FY{year} Budget", "Budget")
    columns, actuals = sheet(acme, f"FY{year} Budget", "Actuals")
    reviews = rows(acme, "SELECT name, content FROM drive_file WHERE name LIKE '% quarterly review'")
    assert reviews
    currency = acme.meta("currency") or "USD"
    for review in reviews:
        quarter, department = re.match(r"(Q\d) \d{4} (.+) quarterly review", review["name"]).groups()
        plan = next(line for line in budget if line[0] == department)
        spent = next(line for line in actuals if line[0] == department)
        index = columns.index(quarter)
        assert f"Budget for {quarter} {year}: {money(plan[index], currency)}" in review["content"]
        assert f"Actual spend: {money(spent[index], currency)}" in review["content"]


def test_headcount_sheet_equals_the_directory(acme: World) -> None:
    _, lines = sheet(acme, "Headcount by department")
    *departments, total = lines
    directory = {r["name"]: (r["head"], r["headcount"]) for r in rows(
        acme, "SELECT d.name, h.name AS head, (SELECT count(*) FROM directory_person p WHERE p.department_id = d.id) "
              "AS headcount FROM directory_department d LEFT JOIN directory_person h ON h.id = d.head_id")}
    assert {line[0]: (line[1] or None, line[2]) for line in departments} == directory
    assert total == ["Total", None, len(column(acme, "SELECT id FROM directory_person"))]


def test_pipeline_export_equals_the_crm_deals(acme: World) -> None:
    columns, lines = sheet(acme, "Sales pipeline export")
    exported = {line[0]: dict(zip(columns, line, strict=True)) for line in lines}
    deals = rows(acme, "SELECT d.*, a.name AS account, p.name AS owner FROM crm_deal d JOIN crm_account a ON "
                       "a.id = d.account_id JOIN directory_person p ON p.id = d.owner_id")
    assert set(exported) == {d["id"] for d in deals}
    for deal in deals:
        line = exported[deal["id"]]
        assert (line["Deal"], line["Account"], line["Stage"], line["Amount"], line["Currency"], line["Close date"],
                line["Owner"]) == (deal["name"], deal["account"], deal["stage"], deal["amount"], deal["currency"],
                                   deal["close_date"], deal["owner"])


def test_invoice_tracker_equals_the_crm_invoices(acme: World) -> None:
    columns, lines = sheet(acme, "Invoice tracker")
    tracked = {line[0]: dict(zip(columns, line, strict=True)) for line in lines}
    invoices = rows(acme, "SELECT i.*, a.name AS account FROM crm_invoice i JOIN crm_account a ON a.id = i.account_id")
    assert set(tracked) == {i["number"] for i in invoices}
    for invoice in invoices:
        line = tracked[invoice["number"]]
        assert (line["Account"], line["Amount"], line["Status"], line["Due"], line["Paid on"]) == (
            invoice["account"], invoice["amount"], invoice["status"], invoice["due_on"], invoice["paid_on"])


# ------------------------------------------------------------------------------ the acting user's office
def test_acting_user_has_a_lived_in_mailbox(acme: World) -> None:
    user = acme.user_id
    folders = Counter(r["folder"] for r in rows(acme, "SELECT folder FROM mail_entry WHERE owner_id = ?", user))
    unread = acme.db.execute("SELECT count(*) FROM mail_entry WHERE owner_id = ? AND folder = 'inbox' "
                             "AND is_read = 0", (user,)).fetchone()[0]
    assert folders["inbox"] >= 20 and folders["sent"] >= 5 and folders["drafts"] >= 1
    assert 3 <= unread < folders["inbox"], "an inbox is partly read, partly not"
    threads = rows(acme, "SELECT m.thread_id, count(*) AS n FROM mail_entry e JOIN mail_message m ON "
                         "m.id = e.message_id WHERE e.owner_id = ? GROUP BY m.thread_id HAVING n >= 2", user)
    assert len(threads) >= 5, "the user takes part in conversations, not only announcements"
    senders = column(acme, "SELECT m.sender FROM mail_entry e JOIN mail_message m ON m.id = e.message_id "
                           "WHERE e.owner_id = ? AND e.folder = 'inbox'", user)
    assert len(senders) >= 5
    # What the tools show agrees with the rows.
    listed = acme.call("mail_list_folders")["folders"]
    assert {f["name"]: f["unread"] for f in listed}["inbox"] == unread


def test_acting_user_has_channels_dms_and_files(acme: World) -> None:
    user = acme.user_id
    mine = rows(acme, "SELECT c.name, c.kind, (SELECT count(*) FROM chat_message m WHERE m.channel_id = c.id) AS n "
                      "FROM chat_channel c JOIN chat_member x ON x.channel_id = c.id AND x.person_id = ?", user)
    names = {c["name"] for c in mine}
    department = acme.db.execute("SELECT d.name FROM directory_department d JOIN directory_person p ON "
                                 "p.department_id = d.id WHERE p.id = ?", (user,)).fetchone()[0]
    assert {"general", "random", re.sub(r"[^a-z0-9]+", "-", department.lower()).strip("-")} <= names
    assert sum(c["kind"] == "public" for c in mine) >= 4 and sum(c["kind"] == "dm" for c in mine) >= 2
    assert all(c["n"] > 0 for c in mine), "every channel the user is in has history"
    files = acme.call("drive_search_files", {"limit": 100})["files"]
    assert len(files) >= 15 and {f["kind"] for f in files} == {"folder", "doc", "sheet"}
    assert any(f["your_role"] == "owner" for f in files)
    assert any(f["your_role"] in ("editor", "owner") and f["kind"] == "doc" for f in files)


# ------------------------------------------------------------------------------ determinism per app
@pytest.fixture(scope="module")
def tiny_worlds() -> tuple[World, World, World]:
    """Tiny generated twice with its own seed and once with another seed."""
    return World.generate(TINY), World.generate(TINY), World.generate(TINY, seed=8)


def _app_rows(w: World, app: str) -> dict[str, list[dict[str, Any]]]:
    return {t: w.rows(t) for t in w.tables() if t.startswith(f"{app}_")}


@pytest.mark.parametrize("app", app_names())
def test_same_seed_gives_the_same_rows_per_app(tiny_worlds: tuple[World, World, World], app: str) -> None:
    first, again, _ = tiny_worlds
    assert _app_rows(first, app) == _app_rows(again, app)
    assert all(_app_rows(first, app).values()), f"tiny has an empty {app} table"


@pytest.mark.parametrize("app", app_names())
def test_another_seed_gives_other_rows_per_app(tiny_worlds: tuple[World, World, World], app: str) -> None:
    first, _, other = tiny_worlds
    assert _app_rows(first, app) != _app_rows(other, app)
