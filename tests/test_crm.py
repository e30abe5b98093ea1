"""The CRM app: accounts, contacts, deals, pipeline, invoices, activities, and their generation."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officesim import World
from officesim.apps.crm import generate as crm_generate
from officesim.apps.crm.lookup import CLOSED_STAGES, OPEN_STAGES, STAGES
from officesim.apps.directory import generate as directory_generate
from officesim.clock import parse_ts
from officesim.tools import registry
from officesim.world_spec import load_spec
from officesim.worldgen import GenContext

ROOT = Path(__file__).resolve().parent.parent
CRM_TABLES = ("crm_account", "crm_contact", "crm_deal", "crm_invoice", "crm_activity")


def ok(w: World, tool: str, /, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed."""
    result = w.call(tool, arguments)
    assert "error" not in result, result
    return result


def err(w: World, tool: str, /, **arguments: Any) -> dict[str, str]:
    """Call a tool that must fail; the error (type, message)."""
    result = w.call(tool, arguments)
    assert "error" in result, result
    return result["error"]


def one(w: World, sql: str, *params: Any) -> dict[str, Any]:
    row = w.db.execute(sql, params).fetchone()
    assert row is not None, sql
    return dict(row)


def crm_rows(w: World) -> dict[str, list[dict[str, Any]]]:
    return {t: w.rows(t) for t in CRM_TABLES}


def crm_only(name: str, seed: int | None = None) -> World:
    """A world with just the directory and the CRM (fast; independent of the other apps)."""
    spec = load_spec(ROOT / "worlds" / f"{name}.yaml")
    world = World.empty(clock=spec.start, meta={"currency": spec.currency, "domain": spec.domain})
    ctx = GenContext(world=world, spec=spec, seed=spec.seed if seed is None else seed)
    directory_generate.generate(ctx)
    crm_generate.generate(ctx)
    world.reload_meta()
    return world


# ------------------------------------------------------------------------------ generation
def test_generation_counts_follow_the_spec(tiny: World) -> None:
    size = load_spec(ROOT / "worlds" / "tiny.yaml").size
    counts = tiny.counts()
    assert counts["crm_account"] == size.accounts
    assert counts["crm_contact"] == size.accounts * size.contacts_per_account
    assert counts["crm_deal"] == size.deals
    assert counts["crm_activity"] == size.deals * size.activities_per_deal
    won = tiny.db.execute("SELECT count(*) FROM crm_deal WHERE stage = 'closed_won'").fetchone()[0]
    assert won <= counts["crm_invoice"] <= 2 * won
    # Counters continue after the generated rows.
    created = ok(tiny, "crm_create_contact", account_id="acc_1", name="Ada New", email="ada@new.test")
    assert created["id"] == f"con_{counts['crm_contact'] + 1}"


def test_generation_is_deterministic_and_seed_dependent() -> None:
    first, second = crm_only("tiny"), crm_only("tiny")
    assert crm_rows(first) == crm_rows(second)
    assert crm_rows(crm_only("tiny", seed=99))["crm_account"] != crm_rows(first)["crm_account"]


def test_generated_acme_crm_is_coherent() -> None:
    w = crm_only("acme")
    spec = load_spec(ROOT / "worlds" / "acme.yaml")
    start, window_start = spec.start, spec.start - timedelta(days=121)
    today = start.date().isoformat()
    accounts = {a["id"]: a for a in w.rows("crm_account")}
    deals = w.rows("crm_deal")
    assert {d["stage"] for d in deals} == set(STAGES)
    sales = {r[0] for r in w.db.execute(
        "SELECT p.id FROM directory_person p JOIN directory_department d ON d.id = p.department_id "
        "WHERE d.name = 'Sales'")}
    roles = {r[0] for r in w.db.execute(
        "SELECT id FROM directory_person WHERE role = 'head_of_sales' OR role LIKE 'sales_rep_%'")}
    assert all(a["owner_id"] in sales for a in accounts.values())
    assert sum(a["owner_id"] in roles for a in accounts.values()) > len(accounts) / 2
    for contact in w.rows("crm_contact"):
        assert contact["email"].endswith("@" + accounts[contact["account_id"]]["domain"])
    for account in accounts.values():
        assert account["domain"].endswith(".test")
        first = one(w, "SELECT title FROM crm_contact WHERE account_id = ? ORDER BY CAST(substr(id, 5) AS INT)",
                    account["id"])
        assert first["title"] in {"Chief Financial Officer", "VP Finance", "Financial Controller",
                                  "Accounts Payable Manager"}
    for deal in deals:
        assert 5_000 <= deal["amount"] <= 500_000
        assert window_start <= parse_ts(deal["created_at"]) <= parse_ts(deal["updated_at"]) < start
        if deal["stage"] in CLOSED_STAGES:
            assert deal["close_date"] < today and deal["next_step"] == ""
        else:
            assert deal["next_step"]
    for activity in w.rows("crm_activity"):
        assert window_start <= parse_ts(activity["at"]) < start
        deal = next(d for d in deals if d["id"] == activity["deal_id"])
        assert activity["account_id"] == deal["account_id"]
    invoices = w.rows("crm_invoice")
    won = {d["id"] for d in deals if d["stage"] == "closed_won"}
    assert invoices and all(i["deal_id"] in won for i in invoices)
    assert all(i["number"].startswith("INV-2026-") for i in invoices)
    assert any(i["status"] == "open" and i["due_on"] < today for i in invoices)
    assert any(i["status"] == "paid" and i["paid_on"] for i in invoices)


# ------------------------------------------------------------------------------ accounts
def test_search_accounts_filters_and_pages(tiny: World) -> None:
    target = one(tiny, "SELECT * FROM crm_account ORDER BY id LIMIT 1")
    found = ok(tiny, "crm_search_accounts", query=target["name"].split()[0].strip(","))
    assert target["id"] in [a["id"] for a in found["accounts"]]
    hit = next(a for a in found["accounts"] if a["id"] == target["id"])
    owner = one(tiny, "SELECT name FROM directory_person WHERE id = ?", target["owner_id"])
    assert hit["owner_name"] == owner["name"] and hit["domain"] == target["domain"]

    spelled = target["tier"].replace("-", " ").upper()
    by_tier = ok(tiny, "crm_search_accounts", tier=spelled, limit=100)["accounts"]
    assert by_tier and {a["tier"] for a in by_tier} == {target["tier"]}
    by_owner = ok(tiny, "crm_search_accounts", owner=owner_email(tiny, target["owner_id"]))["accounts"]
    assert target["id"] in {a["id"] for a in by_owner} and {a["owner_id"] for a in by_owner} == {target["owner_id"]}

    first = ok(tiny, "crm_search_accounts", limit=4)
    assert len(first["accounts"]) == 4 and first["next_cursor"]
    rest = ok(tiny, "crm_search_accounts", limit=4, cursor=first["next_cursor"])
    assert rest["next_cursor"] is None
    ids = [a["id"] for a in first["accounts"] + rest["accounts"]]
    assert sorted(ids) == sorted(r["id"] for r in tiny.rows("crm_account"))


def owner_email(w: World, person_id: str) -> str:
    return one(w, "SELECT email FROM directory_person WHERE id = ?", person_id)["email"]


def test_search_accounts_rejects_bad_filters(tiny: World) -> None:
    bad = err(tiny, "crm_search_accounts", tier="enterprize")
    assert bad["type"] == "invalid_argument"
    assert "'enterprise'" in bad["message"] and "mid-market" in bad["message"]
    nobody = err(tiny, "crm_search_accounts", owner="ghost@nowhere.test")
    assert nobody["type"] == "not_found" and "directory_search_people" in nobody["message"]
    assert err(tiny, "crm_search_accounts", limit=500)["type"] == "invalid_argument"


def test_get_account_bundles_contacts_deals_invoices_activities(tiny: World) -> None:
    invoice = one(tiny, "SELECT * FROM crm_invoice WHERE status = 'open' ORDER BY id LIMIT 1")
    acc_id = invoice["account_id"]
    for i in range(12):
        ok(tiny, "crm_log_activity", kind="note", subject=f"note {i}", account_id=acc_id)
    account = ok(tiny, "crm_get_account", account_id=acc_id)
    assert account["id"] == acc_id and account["owner_email"].endswith("@tinyco.test")
    assert {c["id"] for c in account["contacts"]} == {
        r[0] for r in tiny.db.execute("SELECT id FROM crm_contact WHERE account_id = ?", (acc_id,))}
    assert {d["id"] for d in account["deals"]} == {
        r[0] for r in tiny.db.execute("SELECT id FROM crm_deal WHERE account_id = ?", (acc_id,))}
    assert invoice["id"] in {i["id"] for i in account["open_invoices"]}
    assert all(i["status"] == "open" for i in account["open_invoices"])
    recent = account["recent_activities"]
    assert len(recent) == 10 and recent[0]["subject"] == "note 11"
    assert [a["at"] for a in recent] == sorted((a["at"] for a in recent), reverse=True)
    assert "crm_list_activities" in account["recent_activities_more"]
    # By exact name too.
    assert ok(tiny, "crm_get_account", account_id=account["name"].upper())["id"] == acc_id


def test_get_account_unknown_suggests_close_name(tiny: World) -> None:
    name = one(tiny, "SELECT name FROM crm_account ORDER BY id LIMIT 1")["name"]
    missing = err(tiny, "crm_get_account", account_id=name[:-1] + "x")
    assert missing["type"] == "not_found"
    assert name in missing["message"] and "crm_search_accounts" in missing["message"]
    assert err(tiny, "crm_get_account", account_id="acc_999")["type"] == "not_found"


# ------------------------------------------------------------------------------ contacts
def test_search_and_get_contacts(tiny: World) -> None:
    contact = one(tiny, "SELECT * FROM crm_contact ORDER BY id LIMIT 1")
    found = ok(tiny, "crm_search_contacts", query=contact["title"].split()[-1].lower(),
               account_id=contact["account_id"])["contacts"]
    assert contact["id"] in {c["id"] for c in found}
    assert all(c["account_id"] == contact["account_id"] for c in found)
    by_email = ok(tiny, "crm_get_contact", contact_id=contact["email"].upper())
    assert by_email["id"] == contact["id"] and by_email["account_name"]
    assert all(a["contact_id"] == contact["id"] for a in by_email["recent_activities"])
    assert ok(tiny, "crm_search_contacts", query="zzzz-nobody")["contacts"] == []
    assert err(tiny, "crm_get_contact", contact_id="con_999")["type"] == "not_found"


def test_create_contact_records_who_and_when(tiny: World) -> None:
    before = tiny.now()
    created = ok(tiny, "crm_create_contact", account_id="acc_2", name="  Grace Hopper ",
                 email="Grace.Hopper@Example.TEST", title="CTO", phone="+1 555 0100")
    row = one(tiny, "SELECT * FROM crm_contact WHERE id = ?", created["id"])
    assert row["name"] == "Grace Hopper" and row["email"] == "grace.hopper@example.test"
    assert row["account_id"] == "acc_2" and row["title"] == "CTO"
    assert row["updated_by"] == tiny.user_id and parse_ts(row["created_at"]) > before
    assert created["account_name"] == one(tiny, "SELECT name FROM crm_account WHERE id = 'acc_2'")["name"]


def test_create_contact_rejects_bad_input_and_rolls_back(tiny: World) -> None:
    existing = one(tiny, "SELECT * FROM crm_contact ORDER BY id LIMIT 1")
    state = tiny.state_hash()
    dup = err(tiny, "crm_create_contact", account_id="acc_1", name="X", email=existing["email"].upper())
    assert dup["type"] == "conflict" and existing["id"] in dup["message"] and "crm_update_contact" in dup["message"]
    bad_email = err(tiny, "crm_create_contact", account_id="acc_1", name="X", email="not-an-email")
    assert bad_email["type"] == "invalid_argument" and "email address" in bad_email["message"]
    blank = err(tiny, "crm_create_contact", account_id="acc_1", name="  ", email="x@y.test")
    assert blank["message"].startswith("name must not be empty")
    assert err(tiny, "crm_create_contact", account_id="acc_404", name="X", email="x@y.test")["type"] == "not_found"
    missing = err(tiny, "crm_create_contact", account_id="acc_1", name="X")
    assert "'email' is required" in missing["message"]
    assert tiny.state_hash() == state


def test_update_contact_changes_only_given_fields(tiny: World) -> None:
    contact = one(tiny, "SELECT * FROM crm_contact ORDER BY id LIMIT 1")
    updated = ok(tiny, "crm_update_contact", contact_id=contact["id"], title="Chief Revenue Officer", phone="")
    assert updated["changed"] == ["phone", "title"]
    row = one(tiny, "SELECT * FROM crm_contact WHERE id = ?", contact["id"])
    assert row["title"] == "Chief Revenue Officer" and row["phone"] == ""
    assert row["name"] == contact["name"] and row["email"] == contact["email"]
    assert row["updated_by"] == tiny.user_id
    again = ok(tiny, "crm_update_contact", contact_id=contact["id"], title="Chief Revenue Officer")
    assert again["changed"] == []

    other = one(tiny, "SELECT * FROM crm_contact WHERE id != ? ORDER BY id LIMIT 1", contact["id"])
    clash = err(tiny, "crm_update_contact", contact_id=contact["id"], email=other["email"])
    assert clash["type"] == "conflict" and other["id"] in clash["message"]
    nothing = err(tiny, "crm_update_contact", contact_id=contact["id"])
    assert nothing["type"] == "invalid_argument" and "name, email, title, phone" in nothing["message"]
    # Its own address is no conflict.
    assert ok(tiny, "crm_update_contact", contact_id=contact["id"], email=contact["email"])["changed"] == []


# ------------------------------------------------------------------------------ deals
def test_search_deals_filters(tiny: World) -> None:
    deals = tiny.rows("crm_deal")
    won = ok(tiny, "crm_search_deals", stage="Closed Won", limit=100)["deals"]
    assert {d["id"] for d in won} == {d["id"] for d in deals if d["stage"] == "closed_won"}
    open_ = ok(tiny, "crm_search_deals", stage="open", limit=100)["deals"]
    assert {d["id"] for d in open_} == {d["id"] for d in deals if d["stage"] in OPEN_STAGES}
    amounts = sorted(d["amount"] for d in deals)
    low, high = amounts[2], amounts[-3]
    ranged = ok(tiny, "crm_search_deals", min_amount=low, max_amount=high, limit=100)["deals"]
    assert {d["id"] for d in ranged} == {d["id"] for d in deals if low <= d["amount"] <= high}
    dates = sorted(d["close_date"] for d in deals)
    window = ok(tiny, "crm_search_deals", close_after=dates[1], close_before=dates[-2] + "T12:00:00Z",
                limit=100)["deals"]
    assert {d["id"] for d in window} == {d["id"] for d in deals if dates[1] <= d["close_date"] <= dates[-2]}
    assert [d["close_date"] for d in window] == sorted(d["close_date"] for d in window)
    target = deals[0]
    account_name = one(tiny, "SELECT name FROM crm_account WHERE id = ?", target["account_id"])["name"]
    by_words = ok(tiny, "crm_search_deals", query=f"{account_name.split()[0].strip(',')} {target['name'][-4:]}")
    assert target["id"] in {d["id"] for d in by_words["deals"]}
    mine = ok(tiny, "crm_search_deals", owner=target["owner_id"], account_id=target["account_id"])["deals"]
    assert target["id"] in {d["id"] for d in mine}


def test_search_deals_rejects_bad_filters(tiny: World) -> None:
    stage = err(tiny, "crm_search_deals", stage="won-ish")
    assert stage["type"] == "invalid_argument"
    assert all(s in stage["message"] for s in STAGES)
    swapped = err(tiny, "crm_search_deals", min_amount=10, max_amount=5)
    assert "swap" in swapped["message"]
    assert "swap" in err(tiny, "crm_search_deals", close_after="2026-12-01", close_before="2026-11-01")["message"]
    day = err(tiny, "crm_search_deals", close_after="next tuesday")
    assert day["type"] == "invalid_argument" and "ISO date like '2026-11-30'" in day["message"]
    assert err(tiny, "crm_search_deals", min_amount=-1)["type"] == "invalid_argument"
    assert err(tiny, "crm_search_deals", cursor="page2")["type"] == "invalid_argument"


def test_get_deal_joins_account_owner_activities(tiny: World) -> None:
    deal = one(tiny, "SELECT * FROM crm_deal WHERE stage = 'closed_won' ORDER BY id LIMIT 1")
    got = ok(tiny, "crm_get_deal", deal_id=deal["id"])
    owner = one(tiny, "SELECT * FROM directory_person WHERE id = ?", deal["owner_id"])
    assert got["owner_name"] == owner["name"] and got["owner_email"] == owner["email"]
    assert got["account_name"] == one(tiny, "SELECT name FROM crm_account WHERE id = ?", deal["account_id"])["name"]
    assert {a["id"] for a in got["activities"]} == {
        r[0] for r in tiny.db.execute("SELECT id FROM crm_activity WHERE deal_id = ?", (deal["id"],))}
    assert got["invoices"] and all(i["deal_id"] == deal["id"] for i in got["invoices"])
    assert got["account_contacts"]
    assert ok(tiny, "crm_get_deal", deal_id=deal["name"])["id"] == deal["id"]
    missing = err(tiny, "crm_get_deal", deal_id="deal_999")
    assert missing["type"] == "not_found" and "crm_search_deals" in missing["message"]


def test_create_deal_defaults_and_normalises(tiny: World) -> None:
    deal = ok(tiny, "crm_create_deal", account_id="acc_1", name="Acme - Pilot", amount=12000,
              close_date="2026-12-15")
    row = one(tiny, "SELECT * FROM crm_deal WHERE id = ?", deal["id"])
    assert row["stage"] == "prospecting" and row["currency"] == "USD" and row["owner_id"] == tiny.user_id
    assert row["amount"] == 12000.0 and row["close_date"] == "2026-12-15" and row["updated_by"] == tiny.user_id
    assert row["created_at"] == tiny.now_ts()
    rep = one(tiny, "SELECT * FROM directory_person WHERE role = 'sales_rep_1'")
    other = ok(tiny, "crm_create_deal", account_id="acc_1", name="Acme - Renewal", amount=5e4,
               close_date="2027-01-31T10:00:00Z", currency="eur", stage="Negotiation", owner=rep["email"])
    assert (other["stage"], other["currency"], other["owner_id"], other["close_date"]) == (
        "negotiation", "EUR", rep["id"], "2027-01-31")


def test_create_deal_rejects_bad_input(tiny: World) -> None:
    base = {"account_id": "acc_1", "name": "New deal", "amount": 1000.0, "close_date": "2026-12-01"}
    cases = {
        "amount": (-5.0, "amount must be a number >= 0"),
        "currency": ("dollars", "3-letter ISO code"),
        "close_date": ("31/12/2026", "ISO date"),
        "stage": ("won", "Valid stages: prospecting"),
        "owner": ("p_999", "directory_search_people"),
        "account_id": ("acc_999", "crm_search_accounts"),
    }
    for field, (value, fragment) in cases.items():
        problem = err(tiny, "crm_create_deal", **{**base, field: value})
        assert fragment in problem["message"], (field, problem)
    ok(tiny, "crm_create_deal", **base)
    twin = err(tiny, "crm_create_deal", **{**base, "name": "NEW DEAL"})
    assert twin["type"] == "conflict" and "crm_update_deal" in twin["message"]
    assert tiny.counts()["crm_deal"] == load_spec(ROOT / "worlds" / "tiny.yaml").size.deals + 1


def test_update_deal_changes_only_given_fields(tiny: World) -> None:
    deal = one(tiny, "SELECT * FROM crm_deal WHERE stage = 'proposal' ORDER BY id LIMIT 1")
    rep = one(tiny, "SELECT * FROM directory_person WHERE role = 'sales_rep_2'")
    out = ok(tiny, "crm_update_deal", deal_id=deal["id"], amount=77000, next_step="Send MSA", owner=rep["id"])
    assert out["changed"] == ["amount", "next_step", "owner_id"]
    row = one(tiny, "SELECT * FROM crm_deal WHERE id = ?", deal["id"])
    assert (row["amount"], row["next_step"], row["owner_id"]) == (77000.0, "Send MSA", rep["id"])
    assert (row["name"], row["stage"], row["close_date"], row["currency"]) == (
        deal["name"], deal["stage"], deal["close_date"], deal["currency"])
    assert row["updated_at"] == tiny.now_ts() and row["updated_by"] == tiny.user_id
    nothing = err(tiny, "crm_update_deal", deal_id=deal["id"])
    assert "crm_move_deal" in nothing["message"]
    stage = err(tiny, "crm_update_deal", deal_id=deal["id"], stage="closed_won")
    assert "'stage' is not a parameter" in stage["message"]


def test_move_deal_records_the_change(tiny: World) -> None:
    deal = one(tiny, "SELECT * FROM crm_deal WHERE stage = 'proposal' ORDER BY id LIMIT 1")
    moved = ok(tiny, "crm_move_deal", deal_id=deal["id"], stage=" Closed-WON ")
    assert moved["stage"] == "closed_won" and moved["previous_stage"] == "proposal"
    row = one(tiny, "SELECT * FROM crm_deal WHERE id = ?", deal["id"])
    assert row["stage"] == "closed_won" and row["stage_changed_at"] == tiny.now_ts()
    assert row["updated_by"] == tiny.user_id and row["close_date"] == deal["close_date"]
    # No activity is logged on the side.
    assert tiny.db.execute("SELECT count(*) FROM crm_activity WHERE at = ?", (tiny.now_ts(),)).fetchone()[0] == 0
    same = err(tiny, "crm_move_deal", deal_id=deal["id"], stage="closed won")
    assert same["type"] == "conflict" and "already" in same["message"]
    unknown = err(tiny, "crm_move_deal", deal_id=deal["id"], stage="Closed Lots")
    assert unknown["type"] == "invalid_argument" and "'closed_lost'" in unknown["message"]
    assert "open" not in unknown["message"].split("Valid stages:")[1]  # groups only where they make sense


def test_any_employee_may_write_and_is_recorded(tiny: World) -> None:
    engineer = one(tiny, "SELECT * FROM directory_person WHERE role = 'head_of_engineering'")
    deal = one(tiny, "SELECT * FROM crm_deal WHERE stage = 'negotiation' ORDER BY id LIMIT 1")
    with tiny.acting_as(engineer["email"]):
        ok(tiny, "crm_move_deal", deal_id=deal["id"], stage="closed_lost")
        contact = ok(tiny, "crm_create_contact", account_id=deal["account_id"], name="Eng Buddy",
                     email="eng.buddy@customer.test")
        note = ok(tiny, "crm_log_activity", kind="note", subject="Lost on price", deal_id=deal["id"])
    assert one(tiny, "SELECT updated_by FROM crm_deal WHERE id = ?", deal["id"])["updated_by"] == engineer["id"]
    assert one(tiny, "SELECT updated_by FROM crm_contact WHERE id = ?", contact["id"])["updated_by"] == engineer["id"]
    assert note["person_id"] == engineer["id"] and note["person_name"] == engineer["name"]


# ------------------------------------------------------------------------------ pipeline
def test_pipeline_by_stage_adds_up(tiny: World) -> None:
    pipeline = ok(tiny, "crm_list_pipeline")
    assert [g["stage"] for g in pipeline["groups"]] == list(OPEN_STAGES)
    for group in pipeline["groups"]:
        rows = tiny.db.execute("SELECT currency, amount FROM crm_deal WHERE stage = ?", (group["stage"],)).fetchall()
        assert group["count"] == len(rows) == len(group["deals"])
        totals: dict[str, float] = {}
        for currency, amount in rows:
            totals[currency] = totals.get(currency, 0) + amount
        assert group["total"] == pytest.approx(totals)
    assert pipeline["count"] == sum(g["count"] for g in pipeline["groups"])
    closed = ok(tiny, "crm_list_pipeline", stage="closed")
    assert [g["stage"] for g in closed["groups"]] == list(CLOSED_STAGES)
    won = ok(tiny, "crm_list_pipeline", stage="Closed Won")
    assert won["stages"] == ["closed_won"]


def test_pipeline_by_owner(tiny: World) -> None:
    pipeline = ok(tiny, "crm_list_pipeline", group_by="owner", stage="all")
    assert pipeline["count"] == tiny.counts()["crm_deal"]
    for group in pipeline["groups"]:
        ids = {r[0] for r in tiny.db.execute("SELECT id FROM crm_deal WHERE owner_id = ?", (group["owner_id"],))}
        assert {d["id"] for d in group["deals"]} == ids and group["owner_email"]
    owner = pipeline["groups"][0]["owner_id"]
    only = ok(tiny, "crm_list_pipeline", group_by="owner", owner=owner, stage="all")
    assert [g["owner_id"] for g in only["groups"]] == [owner]
    assert err(tiny, "crm_list_pipeline", group_by="region")["type"] == "invalid_argument"


# ------------------------------------------------------------------------------ activities
def test_log_activity_links_and_derives_account(tiny: World) -> None:
    contact = one(tiny, "SELECT * FROM crm_contact ORDER BY id LIMIT 1")
    logged = ok(tiny, "crm_log_activity", kind="call", subject="Intro call", body="Talked budget.",
                contact_id=contact["email"])
    row = one(tiny, "SELECT * FROM crm_activity WHERE id = ?", logged["id"])
    assert row["account_id"] == contact["account_id"] and row["contact_id"] == contact["id"]
    assert row["person_id"] == tiny.user_id and row["at"] == tiny.now_ts() and row["deal_id"] is None
    deal = one(tiny, "SELECT * FROM crm_deal WHERE account_id = ? LIMIT 1", contact["account_id"])
    both = ok(tiny, "crm_log_activity", kind="meeting", subject="QBR", account_id=contact["account_id"],
              contact_id=contact["id"], deal_id=deal["id"])
    assert (both["deal_name"], both["contact_name"]) == (deal["name"], contact["name"])


def test_log_activity_rejects_unlinked_or_mismatched(tiny: World) -> None:
    state = tiny.state_hash()
    alone = err(tiny, "crm_log_activity", kind="note", subject="Orphan")
    assert alone["type"] == "invalid_argument" and "account_id, contact_id and/or deal_id" in alone["message"]
    contact = one(tiny, "SELECT * FROM crm_contact ORDER BY id LIMIT 1")
    elsewhere = one(tiny, "SELECT * FROM crm_deal WHERE account_id != ? LIMIT 1", contact["account_id"])
    mixed = err(tiny, "crm_log_activity", kind="note", subject="Mixed", contact_id=contact["id"],
                deal_id=elsewhere["id"])
    assert mixed["type"] == "invalid_argument" and elsewhere["account_id"] in mixed["message"]
    wrong_kind = err(tiny, "crm_log_activity", kind="lunch", subject="x", account_id="acc_1")
    assert wrong_kind["type"] == "invalid_argument" and "'call'" in wrong_kind["message"]
    assert err(tiny, "crm_log_activity", kind="note", subject="", account_id="acc_1")["type"] == "invalid_argument"
    assert tiny.state_hash() == state


def test_list_activities_filters_pages_and_truncates(tiny: World) -> None:
    deal = one(tiny, "SELECT * FROM crm_deal ORDER BY id LIMIT 1")
    long_body = "Minutes. " * 600
    logged = ok(tiny, "crm_log_activity", kind="meeting", subject="Long meeting", body=long_body, deal_id=deal["id"])
    ok(tiny, "crm_log_activity", kind="task", subject="Follow up", deal_id=deal["id"])
    listed = ok(tiny, "crm_list_activities", deal_id=deal["id"], limit=1)
    assert listed["activities"][0]["subject"] == "Follow up" and listed["next_cursor"] == "o1"
    page2 = ok(tiny, "crm_list_activities", deal_id=deal["id"], limit=1, cursor=listed["next_cursor"])
    cut = page2["activities"][0]
    assert cut["id"] == logged["id"] and cut["truncated"] is True
    assert "crm_get_activity" in cut["body"] and len(cut["body"]) < len(long_body)
    meetings = ok(tiny, "crm_list_activities", account_id=deal["account_id"], kind="meeting", limit=100)
    assert meetings["activities"] and {a["kind"] for a in meetings["activities"]} == {"meeting"}
    full = ok(tiny, "crm_get_activity", activity_id=logged["id"])
    assert full["truncated"] is True and full["body"].startswith(long_body[:4000])
    tail = ok(tiny, "crm_get_activity", activity_id=logged["id"], offset=full["next_offset"])
    assert tail["truncated"] is False and tail["body"] == long_body.strip()[4000:]
    assert err(tiny, "crm_list_activities", contact_id="con_999")["type"] == "not_found"


# ------------------------------------------------------------------------------ invoices
def test_search_invoices_overdue_and_status(tiny: World) -> None:
    today = tiny.now().date().isoformat()
    invoices = tiny.rows("crm_invoice")
    overdue = ok(tiny, "crm_search_invoices", overdue_only=True, limit=100)["invoices"]
    expected = {i["id"] for i in invoices if i["status"] == "open" and i["due_on"] < today}
    assert expected and {i["id"] for i in overdue} == expected
    assert all(i["overdue"] and i["days_overdue"] > 0 for i in overdue)
    paid_or_not = ok(tiny, "crm_search_invoices", status="open", limit=100)["invoices"]
    assert {i["id"] for i in paid_or_not} == {i["id"] for i in invoices if i["status"] == "open"}
    acc = invoices[0]["account_id"]
    assert {i["account_id"] for i in ok(tiny, "crm_search_invoices", account_id=acc)["invoices"]} == {acc}
    # Overdue follows the world clock.
    tiny.set_clock("2030-01-01T00:00:00Z")
    later = ok(tiny, "crm_search_invoices", overdue_only=True, limit=100)["invoices"]
    assert {i["id"] for i in later} == {i["id"] for i in invoices if i["status"] == "open"}
    assert err(tiny, "crm_search_invoices", status="unpaid")["type"] == "invalid_argument"


def test_get_invoice_by_id_or_number(tiny: World) -> None:
    invoice = one(tiny, "SELECT * FROM crm_invoice ORDER BY id LIMIT 1")
    by_number = ok(tiny, "crm_get_invoice", invoice_id=invoice["number"].lower())
    assert by_number["id"] == invoice["id"] and by_number["amount"] == invoice["amount"]
    assert by_number["account_name"] and by_number["account_contacts"]
    assert ok(tiny, "crm_get_invoice", invoice_id=invoice["id"])["number"] == invoice["number"]
    tiny.db.execute(
        "INSERT INTO crm_invoice (id, number, account_id, amount, currency, issued_on, due_on, status) "
        "VALUES ('inv_900', ?, 'acc_1', 1, 'USD', '2026-01-01', '2026-02-01', 'open')", (invoice["number"],))
    twice = err(tiny, "crm_get_invoice", invoice_id=invoice["number"])
    assert "inv_900" in twice["message"] and "pass the invoice id" in twice["message"]
    missing = err(tiny, "crm_get_invoice", invoice_id="INV-1999-0001")
    assert missing["type"] == "not_found" and "crm_search_invoices" in missing["message"]


# ------------------------------------------------------------------------------ robustness
CRM_TOOLS = sorted(name for name in registry() if name.startswith("crm_"))
_JSON = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30), st.sampled_from(["acc_1", "con_1", "deal_1", "inv_1", "act_1", "open", "Closed Won",
                                           "INV-2026-1001", "2026-11-01", "o2", ""]),
    st.lists(st.text(max_size=5), max_size=3),
)


@pytest.mark.parametrize("name", CRM_TOOLS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_nothing_a_model_sends_raises(tiny_snapshot: bytes, name: str, data: st.DataObject) -> None:
    world = World.restore(tiny_snapshot)
    params = list(registry()[name].parameters["properties"])
    keys = st.sampled_from([*params, "bogus"])
    arguments = data.draw(st.dictionaries(keys, _JSON, max_size=len(params) + 1))
    result = world.call(name, arguments)
    assert isinstance(result, dict)
    if "error" in result:
        assert result["error"]["type"] in {"invalid_argument", "not_found", "conflict"}
        assert result["error"]["message"]


def test_every_crm_tool_is_registered_with_its_fixed_name() -> None:
    expected = {
        "crm_search_accounts", "crm_get_account", "crm_search_contacts", "crm_get_contact", "crm_create_contact",
        "crm_update_contact", "crm_search_deals", "crm_get_deal", "crm_create_deal", "crm_update_deal",
        "crm_move_deal", "crm_log_activity", "crm_list_activities", "crm_list_pipeline", "crm_search_invoices",
        "crm_get_invoice",
    }
    assert expected <= set(CRM_TOOLS)
    kinds = {name: registry()[name].kind for name in CRM_TOOLS}
    assert {n for n, k in kinds.items() if k == "write"} == {
        "crm_create_contact", "crm_update_contact", "crm_create_deal", "crm_update_deal", "crm_move_deal",
        "crm_log_activity"}


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("crm_search_deals", {"close_after": "0001-01-01T00:00:00+01:00"}),
        ("crm_search_deals", {"close_before": "9999-12-31T23:59:59-01:00"}),
        ("crm_create_deal", {"account_id": "acc_1", "name": "Far future", "amount": 5,
                             "close_date": "9999-12-31T23:59:59-01:00"}),
        ("crm_update_deal", {"deal_id": "deal_1", "close_date": "9999-12-31T23:59:59-01:00"}),
    ],
)
def test_a_time_outside_the_calendar_once_in_utc_is_an_invalid_argument(
    tiny: World, tool: str, arguments: dict[str, Any]
) -> None:
    # These raised OverflowError out of call() (over HTTP: a 500 and a dropped step).
    before = tiny.state_hash()
    result = tiny.call(tool, arguments)
    assert result["error"]["type"] == "invalid_argument"
    assert "out of range; dates run from 0001-01-01 to 9999-12-31, counted in UTC" in result["error"]["message"]
    assert tiny.state_hash() == before


def test_the_first_and_last_days_of_the_calendar_are_still_dates(tiny: World) -> None:
    assert "deals" in ok(tiny, "crm_search_deals", close_after="0001-01-01", close_before="9999-12-31")
    assert ok(tiny, "crm_update_deal", deal_id="deal_1", close_date="9999-12-31")["close_date"] == "9999-12-31"


def test_search_accounts_lists_the_exact_name_first_then_prefixes_then_the_rest() -> None:
    """A search for 'King LLC' on counsel listed 'Brown LLC' above King LLC: words match the city too."""
    w = crm_only("counsel")
    owner = one(w, "SELECT owner_id FROM crm_account LIMIT 1")["owner_id"]
    base = {"industry": "Retail", "tier": "smb", "owner_id": owner, "country": "United Kingdom",
            "created_at": "2026-01-05T09:00:00Z"}
    for n, (name, city) in enumerate([("Barton LLC", "Kestrelford"), ("Kestrel LLC Holdings", "Leeds"),
                                      ("Kestrel LLC", "York"), ("Abbey Kestrel LLC", "Bath")]):
        row = {"id": f"acc_k{n}", "name": name, "domain": f"k{n}.test", "city": city, **base}
        w.db.execute(f"INSERT INTO crm_account ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                     tuple(row.values()))
    names = [a["name"] for a in ok(w, "crm_search_accounts", query="kestrel  llc")["accounts"]]
    assert names[:2] == ["Kestrel LLC", "Kestrel LLC Holdings"]
    assert set(names[2:]) >= {"Barton LLC", "Abbey Kestrel LLC"}
    rest = names[2:]
    assert rest == sorted(rest)  # the rest stays alphabetical
    # every generated account comes first when searched by its own name, in any case
    for account in w.rows("crm_account"):
        for query in (account["name"], account["name"].upper()):
            assert ok(w, "crm_search_accounts", query=query)["accounts"][0]["id"] == account["id"], query
    # paging keeps the order: the exact name is on the first page only
    first = ok(w, "crm_search_accounts", query="Kestrel LLC", limit=1)
    second = ok(w, "crm_search_accounts", query="Kestrel LLC", limit=1, cursor=first["next_cursor"])
    assert [first["accounts"][0]["name"], second["accounts"][0]["name"]] == ["Kestrel LLC", "Kestrel LLC Holdings"]
