"""CRM deal tools: search and read deals, create and change them, move them through the pipeline.

Stages run prospecting -> qualification -> proposal -> negotiation -> closed_won | closed_lost.
Every employee may create, update and move deals (see ``tools.py`` for the permission model);
each change stamps ``updated_at`` and ``updated_by``, and a stage move also keeps the stage it
left (``previous_stage``) and when (``stage_changed_at``), so the record says what happened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from officesim.apps import people
from officesim.apps.crm import lookup
from officesim.apps.crm.render import ACTIVITY_SQL, INVOICE_SQL, activity_row, invoice_row
from officesim.apps.search import match_all, query_terms
from officesim.errors import Conflict, InvalidArgument
from officesim.paging import bounded, paged
from officesim.tools import tool

if TYPE_CHECKING:
    from officesim.world import World

_DEAL_SQL = (
    "SELECT d.id, d.name, d.account_id, a.name AS account_name, d.stage, d.amount, d.currency, d.close_date, "
    "d.owner_id, p.name AS owner_name, p.email AS owner_email, d.next_step, d.created_at, d.updated_at, "
    "d.updated_by, d.previous_stage, d.stage_changed_at "
    "FROM crm_deal d LEFT JOIN crm_account a ON a.id = d.account_id LEFT JOIN directory_person p ON p.id = d.owner_id"
)
_LISTED = ("id", "name", "account_id", "account_name", "stage", "amount", "currency", "close_date",
           "owner_id", "owner_name", "next_step")
_GROUP_CAP = 25  # deals shown per pipeline group
_MAX_GROUPS = 30  # owner groups shown (stage groups are at most six)
_GROUP_DEAL = ("id", "name", "account_name", "amount", "currency", "close_date", "stage", "owner_name")


def _deal_out(w: World, deal_id: str) -> dict[str, Any]:
    return dict(w.db.execute(f"{_DEAL_SQL} WHERE d.id = ?", (deal_id,)).fetchone())


def _marks(values: tuple[str, ...]) -> str:
    return ", ".join("?" * len(values))


@tool(app="crm", kind="read")
def crm_search_deals(
    w: World,
    query: str | None = None,
    stage: str | None = None,
    owner: str | None = None,
    account_id: str | None = None,
    min_amount: float | None = None,
    max_amount: float | None = None,
    close_after: str | None = None,
    close_before: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search deals (sales opportunities), ordered by expected close date.

    Amount filters compare the deal's amount in its own currency.

    Args:
        query: Words to find in the deal name, account name or next step (case-insensitive; every word must
            match). Null matches every deal.
        stage: Only deals in this stage: prospecting, qualification, proposal, negotiation, closed_won,
            closed_lost; or 'open' (the first four), 'closed' (won or lost) or 'all'.
        owner: Only deals owned by this employee (id or email).
        account_id: Only deals with this account (id or exact name).
        min_amount: Only deals worth at least this much.
        max_amount: Only deals worth at most this much.
        close_after: Only deals closing on or after this date (YYYY-MM-DD).
        close_before: Only deals closing on or before this date (YYYY-MM-DD).
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    clauses, params = match_all(query_terms(query), ("d.name", "a.name", "d.next_step"))
    if stage is not None:
        stages = lookup.stage(stage, groups=True)
        clauses.append(f"d.stage IN ({_marks(stages)})")
        params += stages
    if owner is not None:
        clauses.append("d.owner_id = ?")
        params.append(people.employee(w, owner, "owner")["id"])
    if account_id is not None:
        clauses.append("d.account_id = ?")
        params.append(lookup.account(w, account_id)["id"])
    low = lookup.amount(min_amount, "min_amount") if min_amount is not None else None
    high = lookup.amount(max_amount, "max_amount") if max_amount is not None else None
    if low is not None and high is not None and low > high:
        raise InvalidArgument(f"min_amount ({low}) is larger than max_amount ({high}); swap them")
    for bound, op in ((low, ">="), (high, "<=")):
        if bound is not None:
            clauses.append(f"d.amount {op} ?")
            params.append(bound)
    after, before = lookup.ordered_days(close_after, close_before)
    for day, op in ((after, ">="), (before, "<=")):
        if day is not None:
            clauses.append(f"d.close_date {op} ?")
            params.append(day)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return paged(w.db, f"{_DEAL_SQL}{where} ORDER BY d.close_date, d.id", params, cursor=cursor, limit=limit,
                 key="deals", render=lambda r: {k: r[k] for k in _LISTED})


@tool(app="crm", kind="read")
def crm_get_deal(w: World, deal_id: str) -> dict[str, Any]:
    """Get one deal with its account, owner, logged activities, invoices and the account's contacts.

    Args:
        deal_id: The deal's id (e.g. 'deal_14'), or its exact name when no other deal has it.
    """
    row = lookup.deal(w, deal_id)
    out = _deal_out(w, row["id"])
    activities = w.db.execute(
        f"{ACTIVITY_SQL} WHERE t.deal_id = ? ORDER BY t.at DESC, t.id DESC LIMIT 21", (row["id"],)
    )
    bounded(out, "activities", [activity_row(r, 500) for r in activities], 20,
            f"use crm_list_activities with deal_id='{row['id']}' for older ones")
    today = w.now().date()
    invoices = w.db.execute(f"{INVOICE_SQL} WHERE i.deal_id = ? ORDER BY i.issued_on, i.id", (row["id"],))
    out["invoices"] = [invoice_row(r, today) for r in invoices]
    contacts = w.db.execute(
        "SELECT id, name, email, title FROM crm_contact WHERE account_id = ? ORDER BY name, id LIMIT 51",
        (row["account_id"],),
    )
    bounded(out, "account_contacts", [dict(r) for r in contacts], 50,
            f"use crm_search_contacts with account_id='{row['account_id']}' for the rest")
    return out


@tool(app="crm", kind="write")
def crm_create_deal(
    w: World,
    account_id: str,
    name: str,
    amount: float,
    close_date: str,
    currency: str | None = None,
    stage: str | None = None,
    owner: str | None = None,
    next_step: str | None = None,
) -> dict[str, Any]:
    """Create a new deal (sales opportunity) with a customer account.

    Args:
        account_id: The customer account (id or exact name).
        name: The deal's name, e.g. 'Globex - Platform renewal 2027'.
        amount: The expected value, a plain number (e.g. 48000).
        close_date: The expected close date, YYYY-MM-DD.
        currency: ISO currency code such as 'USD' or 'EUR'; null uses the company's home currency.
        stage: The starting stage (e.g. 'qualification'); null means 'prospecting'.
        owner: The employee who owns the deal (id or email); null means you.
        next_step: What has to happen next, e.g. 'Send proposal by Friday'.
    """
    acc = lookup.account(w, account_id)
    row: dict[str, Any] = {
        "account_id": acc["id"],
        "name": lookup.text(name, "name", limit=lookup.MAX_NAME),
        "stage": lookup.stage(stage)[0] if stage is not None else "prospecting",
        "amount": lookup.amount(amount),
        "currency": lookup.currency(w, currency),
        "close_date": lookup.iso_date(close_date, "close_date"),
        "owner_id": people.employee(w, owner, "owner")["id"] if owner is not None else w.user_id,
        "next_step": lookup.text(next_step or "", "next_step", limit=lookup.MAX_SUBJECT, required=False),
    }
    twin = w.db.execute(
        f"SELECT id FROM crm_deal WHERE account_id = ? AND name = ? COLLATE NOCASE "
        f"AND stage IN ({_marks(lookup.OPEN_STAGES)})",
        (acc["id"], row["name"], *lookup.OPEN_STAGES),
    ).fetchone()
    if twin is not None:
        raise Conflict(
            f"{acc['name']} already has an open deal named {row['name']!r} ({twin['id']}); "
            "use crm_update_deal or crm_move_deal to change it instead of creating a duplicate"
        )
    w.tick()
    now = w.now_ts()
    row.update(id=w.new_id("deal"), created_at=now, updated_at=now, updated_by=w.user_id)
    w.db.execute(f"INSERT INTO crm_deal ({', '.join(row)}) VALUES ({_marks(tuple(row))})", tuple(row.values()))
    return _deal_out(w, row["id"])


@tool(app="crm", kind="write")
def crm_update_deal(
    w: World,
    deal_id: str,
    name: str | None = None,
    amount: float | None = None,
    currency: str | None = None,
    close_date: str | None = None,
    next_step: str | None = None,
    owner: str | None = None,
) -> dict[str, Any]:
    """Change a deal's details; only the fields you pass change. To change its stage use crm_move_deal.

    Args:
        deal_id: The deal's id (e.g. 'deal_14').
        name: The new deal name.
        amount: The new expected value, a plain number.
        currency: The new ISO currency code, e.g. 'EUR'.
        close_date: The new expected close date, YYYY-MM-DD.
        next_step: The new next step ('' clears it).
        owner: The employee who should own the deal from now on (id or email).
    """
    current = lookup.deal(w, deal_id)
    wanted: dict[str, Any] = {}
    if name is not None:
        wanted["name"] = lookup.text(name, "name", limit=lookup.MAX_NAME)
    if amount is not None:
        wanted["amount"] = lookup.amount(amount)
    if currency is not None:
        wanted["currency"] = lookup.currency(w, currency)
    if close_date is not None:
        wanted["close_date"] = lookup.iso_date(close_date, "close_date")
    if next_step is not None:
        wanted["next_step"] = lookup.text(next_step, "next_step", limit=lookup.MAX_SUBJECT, required=False)
    if owner is not None:
        wanted["owner_id"] = people.employee(w, owner, "owner")["id"]
    if not wanted:
        raise InvalidArgument(
            "nothing to update: pass at least one of name, amount, currency, close_date, next_step, owner "
            "(to change the stage use crm_move_deal)"
        )
    changes = {k: v for k, v in wanted.items() if current[k] != v}
    if changes:  # a call that changes nothing is a no-op: no stamp, no clock tick
        w.tick()
        stamped = {**changes, "updated_at": w.now_ts(), "updated_by": w.user_id}
        assignments = ", ".join(f"{k} = ?" for k in stamped)
        w.db.execute(f"UPDATE crm_deal SET {assignments} WHERE id = ?", (*stamped.values(), current["id"]))
    out = _deal_out(w, current["id"])
    out["changed"] = sorted(changes)
    return out



@tool(app="crm", kind="write")
def crm_move_deal(w: World, deal_id: str, stage: str) -> dict[str, Any]:
    """Move a deal to another pipeline stage (also to close it as won or lost, or to reopen it).

    The close date is not changed; set it with crm_update_deal when a deal closes on another day.

    Args:
        deal_id: The deal's id (e.g. 'deal_14').
        stage: The new stage: prospecting, qualification, proposal, negotiation, closed_won or closed_lost
            ('Closed Won' and similar spellings work).
    """
    current = lookup.deal(w, deal_id)
    target = lookup.stage(stage)[0]
    if current["stage"] == target:
        raise Conflict(f"deal {current['id']} is already in stage {target!r}; nothing to move")
    w.tick()
    now = w.now_ts()
    w.db.execute(
        "UPDATE crm_deal SET stage = ?, previous_stage = ?, stage_changed_at = ?, updated_at = ?, updated_by = ? "
        "WHERE id = ?",
        (target, current["stage"], now, now, w.user_id, current["id"]),
    )
    return _deal_out(w, current["id"])


@tool(app="crm", kind="read")
def crm_list_pipeline(
    w: World,
    group_by: Literal["stage", "owner"] = "stage",
    owner: str | None = None,
    stage: str | None = None,
) -> dict[str, Any]:
    """Summarise the sales pipeline: per stage or per owner, the number of deals, totals and the deals.

    Only open deals count unless you ask for a closed stage ('closed_won', 'closed_lost', 'closed' or
    'all'). Totals are per currency (amounts in different currencies are never added up).

    Args:
        group_by: 'stage' for one group per pipeline stage, 'owner' for one group per deal owner.
        owner: Only deals owned by this employee (id or email).
        stage: Only this stage, or 'open' (default), 'closed' or 'all'.
    """
    stages = lookup.stage(stage, groups=True) if stage is not None else lookup.OPEN_STAGES
    params: list[Any] = list(stages)
    where = f"d.stage IN ({_marks(stages)})"
    if owner is not None:
        where += " AND d.owner_id = ?"
        params.append(people.employee(w, owner, "owner")["id"])
    rows = w.db.execute(
        "SELECT d.id, d.name, a.name AS account_name, d.amount, d.currency, d.close_date, d.stage, d.owner_id, "
        "p.name AS owner_name, p.email AS owner_email FROM crm_deal d "
        "LEFT JOIN crm_account a ON a.id = d.account_id LEFT JOIN directory_person p ON p.id = d.owner_id "
        f"WHERE {where} ORDER BY d.amount DESC, d.close_date, d.id",
        params,
    ).fetchall()
    groups: dict[str, dict[str, Any]] = {}
    if group_by == "stage":
        for name in stages:  # every asked stage appears, in pipeline order, even when empty
            groups[name] = {"stage": name, "count": 0, "total": {}, "deals": []}
    for row in rows:
        key = row["stage"] if group_by == "stage" else row["owner_id"]
        group = groups.get(key)
        if group is None:
            group = groups[key] = {"owner_id": row["owner_id"], "owner_name": row["owner_name"],
                                   "owner_email": row["owner_email"], "count": 0, "total": {}, "deals": []}
        group["count"] += 1
        group["total"][row["currency"]] = group["total"].get(row["currency"], 0.0) + row["amount"]
        if len(group["deals"]) < _GROUP_CAP:  # rows come largest first, so the cap keeps the biggest
            group["deals"].append({k: row[k] for k in _GROUP_DEAL})
    ordered = list(groups.values())
    if group_by == "owner":
        ordered.sort(key=lambda g: (g["owner_name"] or "", g["owner_id"]))
    grand: dict[str, float] = {}
    for group in ordered:
        for cur, value in group["total"].items():
            grand[cur] = grand.get(cur, 0.0) + value
        group["total"] = _rounded(group["total"])
        if group["count"] > _GROUP_CAP:
            group["deals_more"] = (
                f"only the {_GROUP_CAP} largest of {group['count']} deals are shown; "
                "use crm_search_deals to list them all"
            )
    out = {"group_by": group_by, "stages": list(stages), "count": len(rows), "total": _rounded(grand)}
    bounded(out, "groups", ordered, _MAX_GROUPS,
            "the totals above still count every deal; pass owner to see one owner's group")
    return out


def _rounded(totals: dict[str, float]) -> dict[str, float]:
    """Per-currency totals in currency order, rounded to cents (float sums drift)."""
    return {cur: round(value, 2) for cur, value in sorted(totals.items())}
