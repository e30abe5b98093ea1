"""CRM tools: customer accounts, their contacts, invoices and the activity log.

Permissions (deliberately open, like most small-company CRMs): every employee can read the whole
CRM, log activities, and create or update contacts and deals.  Nothing raises PermissionDenied;
instead every write records who made it (``updated_by`` on contacts and deals, ``person_id`` on
activities) and when (``updated_at``/``at``).  Writes log nothing beyond the row they change: a
contact or deal update does not add an activity, so graders see exactly what the agent did.

The deal and pipeline tools live in ``deals.py``; importing this module registers both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from annotated_types import MaxLen

from officesim.apps import people
from officesim.apps.crm import deals as deals  # importing registers the deal tools
from officesim.apps.crm import lookup
from officesim.apps.crm.render import ACTIVITY_SQL, CONTACT_SQL, INVOICE_SQL, activity_row, contact_row, invoice_row
from officesim.apps.search import match_all, query_terms
from officesim.errors import Conflict, InvalidArgument
from officesim.paging import bounded, clip, like, paged
from officesim.tools import tool

if TYPE_CHECKING:
    import sqlite3

    from officesim.world import World

_ACCOUNT_SQL = (
    "SELECT a.id, a.name, a.domain, a.industry, a.tier, a.city, a.country, a.owner_id, "
    "p.name AS owner_name, p.email AS owner_email, a.created_at "
    "FROM crm_account a LEFT JOIN directory_person p ON p.id = a.owner_id"
)
_LIST_BODY = 500  # activity bodies in lists; crm_get_activity reads the rest


# ------------------------------------------------------------------------------ accounts
@tool(app="crm", kind="read")
def crm_search_accounts(
    w: World,
    query: str | None = None,
    tier: str | None = None,
    owner: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search customer accounts (companies) in the CRM by name, domain, industry or location.

    Use this to find an account's id before reading its contacts, deals and invoices.

    Args:
        query: Words to find in the account name, mail domain, industry, city or country (case-insensitive;
            every word must match). Null lists all accounts.
        tier: Only accounts of this tier: strategic, enterprise, mid-market or smb.
        owner: Only accounts owned by this employee (id or email).
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    clauses, params = match_all(query_terms(query), ("a.name", "a.domain", "a.industry", "a.city", "a.country"))
    if tier is not None:
        clauses.append("a.tier = ?")
        params.append(lookup.tier(tier))
    if owner is not None:
        clauses.append("a.owner_id = ?")
        params.append(people.employee(w, owner, "owner")["id"])
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    order, order_params = _name_rank(query)
    return paged(w.db, f"{_ACCOUNT_SQL}{where} ORDER BY {order}a.name, a.id", [*params, *order_params],
                 cursor=cursor, limit=limit, key="accounts", render=dict)


def _name_rank(query: str | None) -> tuple[str, list[str]]:
    """The ORDER BY head that puts the account named exactly ``query`` first, then names starting with it.

    Words match anywhere (name, domain, city...), so a search for 'King LLC' also finds 'Brown LLC'
    of King's Lynn; alphabetical order alone listed it above the account the agent named.  Case is
    ignored and runs of spaces count as one, as people type names.
    """
    name = " ".join((query or "").replace('"', " ").split())
    if not name:
        return "", []
    prefix = like(name)[1:]  # 'name%': starts with it, wildcards in it escaped
    return ("CASE WHEN lower(a.name) = lower(?) THEN 0 WHEN a.name LIKE +? ESCAPE '\\' THEN 1 ELSE 2 END, ",
            [name, prefix])


@tool(app="crm", kind="read")
def crm_get_account(w: World, account_id: str) -> dict[str, Any]:
    """Get one account with its contacts, all its deals (open and closed), open invoices and latest activities.

    Args:
        account_id: The account's id (e.g. 'acc_3') or its exact name.
    """
    acc_id = lookup.account(w, account_id)["id"]
    out = dict(w.db.execute(f"{_ACCOUNT_SQL} WHERE a.id = ?", (acc_id,)).fetchone())
    contacts = w.db.execute(f"{CONTACT_SQL} WHERE c.account_id = ? ORDER BY c.name, c.id LIMIT 51", (acc_id,))
    bounded(out, "contacts", [_brief_contact(r, phone=True) for r in contacts], 50,
            f"use crm_search_contacts with account_id='{acc_id}' for the rest")
    deal_rows = w.db.execute(
        "SELECT d.id, d.name, d.stage, d.amount, d.currency, d.close_date, d.owner_id, p.name AS owner_name, "
        "d.next_step FROM crm_deal d LEFT JOIN directory_person p ON p.id = d.owner_id "
        "WHERE d.account_id = ? ORDER BY d.close_date DESC, d.id LIMIT 51",
        (acc_id,),
    )
    bounded(out, "deals", [dict(r) for r in deal_rows], 50,
            f"use crm_search_deals with account_id='{acc_id}' for the rest")
    today = w.now().date()
    invoices = w.db.execute(
        f"{INVOICE_SQL} WHERE i.account_id = ? AND i.status = 'open' ORDER BY i.due_on, i.id LIMIT 51", (acc_id,)
    )
    bounded(out, "open_invoices", [invoice_row(r, today) for r in invoices], 50,
            f"use crm_search_invoices with account_id='{acc_id}' for the rest")
    activities = w.db.execute(
        f"{ACTIVITY_SQL} WHERE t.account_id = ? ORDER BY t.at DESC, t.id DESC LIMIT 11", (acc_id,)
    )
    bounded(out, "recent_activities", [activity_row(r, _LIST_BODY) for r in activities], 10,
            f"use crm_list_activities with account_id='{acc_id}' for older ones")
    return out


# ------------------------------------------------------------------------------ contacts
@tool(app="crm", kind="read")
def crm_search_contacts(
    w: World,
    query: str | None = None,
    account_id: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search the people at customer accounts (CRM contacts) by name, email or job title.

    Use this to find a customer's email address, e.g. the finance contact at an account.

    Args:
        query: Words to find in the contact's name, email or title (case-insensitive; every word must
            match), e.g. 'finance' or 'jane'. Null lists all contacts.
        account_id: Only contacts at this account (id or exact name).
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    clauses, params = match_all(query_terms(query), ("c.name", "c.email", "c.title"))
    if account_id is not None:
        clauses.append("c.account_id = ?")
        params.append(lookup.account(w, account_id)["id"])
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return paged(w.db, f"{CONTACT_SQL}{where} ORDER BY c.name, c.id", params,
                 cursor=cursor, limit=limit, key="contacts", render=contact_row)


def _contact_out(w: World, contact_id: str) -> dict[str, Any]:
    row = w.db.execute(f"{CONTACT_SQL} WHERE c.id = ?", (contact_id,)).fetchone()
    out = contact_row(row)
    out.update(created_at=row["created_at"], updated_at=row["updated_at"], updated_by=row["updated_by"])
    return out


@tool(app="crm", kind="read")
def crm_get_contact(w: World, contact_id: str) -> dict[str, Any]:
    """Get one customer contact with their account and the latest activities logged with them.

    Args:
        contact_id: The contact's id (e.g. 'con_9') or email address.
    """
    con_id = lookup.contact(w, contact_id)["id"]
    out = _contact_out(w, con_id)
    activities = w.db.execute(
        f"{ACTIVITY_SQL} WHERE t.contact_id = ? ORDER BY t.at DESC, t.id DESC LIMIT 11", (con_id,)
    )
    bounded(out, "recent_activities", [activity_row(r, _LIST_BODY) for r in activities], 10,
            f"use crm_list_activities with contact_id='{con_id}' for older ones")
    return out


def _unique_email(w: World, address: str, *, except_id: str | None = None) -> None:
    clash = w.db.execute(
        "SELECT c.id, c.name, a.name AS account FROM crm_contact c LEFT JOIN crm_account a ON a.id = c.account_id "
        "WHERE c.email = ? COLLATE NOCASE AND c.id IS NOT ?",
        (address, except_id),
    ).fetchone()
    if clash is not None:
        raise Conflict(
            f"{address} already belongs to contact {clash['id']} ({clash['name']} at {clash['account']}); "
            "use crm_update_contact to change that contact instead"
        )


@tool(app="crm", kind="write")
def crm_create_contact(
    w: World,
    account_id: str,
    name: str,
    email: str,
    title: str | None = None,
    phone: str | None = None,
) -> dict[str, Any]:
    """Add a new contact (a person at a customer account) to the CRM.

    Check with crm_search_contacts first: an email address can belong to only one contact.

    Args:
        account_id: The account the person works at (id or exact name).
        name: The person's full name.
        email: Their email address.
        title: Their job title, e.g. 'VP Finance'.
        phone: Their phone number.
    """
    acc = lookup.account(w, account_id)
    row = {
        "account_id": acc["id"],
        "name": lookup.text(name, "name", limit=lookup.MAX_NAME),
        "email": lookup.email(email),
        "title": lookup.text(title or "", "title", limit=lookup.MAX_NAME, required=False),
        "phone": lookup.text(phone or "", "phone", limit=50, required=False),
    }
    _unique_email(w, row["email"])
    w.tick()
    now = w.now_ts()
    row.update(id=w.new_id("con"), created_at=now, updated_at=now, updated_by=w.user_id)
    columns = ", ".join(row)
    w.db.execute(f"INSERT INTO crm_contact ({columns}) VALUES ({', '.join('?' * len(row))})", tuple(row.values()))
    return _contact_out(w, row["id"])


@tool(app="crm", kind="write")
def crm_update_contact(
    w: World,
    contact_id: str,
    name: str | None = None,
    email: str | None = None,
    title: str | None = None,
    phone: str | None = None,
) -> dict[str, Any]:
    """Change a contact's details; only the fields you pass change (null leaves a field as it is).

    Args:
        contact_id: The contact's id (e.g. 'con_9') or current email address.
        name: The new full name.
        email: The new email address.
        title: The new job title ('' clears it).
        phone: The new phone number ('' clears it).
    """
    current = lookup.contact(w, contact_id)
    wanted: dict[str, str] = {}
    if name is not None:
        wanted["name"] = lookup.text(name, "name", limit=lookup.MAX_NAME)
    if email is not None:
        wanted["email"] = lookup.email(email)
        _unique_email(w, wanted["email"], except_id=current["id"])
    if title is not None:
        wanted["title"] = lookup.text(title, "title", limit=lookup.MAX_NAME, required=False)
    if phone is not None:
        wanted["phone"] = lookup.text(phone, "phone", limit=50, required=False)
    if not wanted:
        raise InvalidArgument("nothing to update: pass at least one of name, email, title, phone")
    changes = {k: v for k, v in wanted.items() if current[k] != v}
    if changes:  # a call that changes nothing is a no-op: no stamp, no clock tick
        w.tick()
        changes.update(updated_at=w.now_ts(), updated_by=w.user_id)
        assignments = ", ".join(f"{k} = ?" for k in changes)
        w.db.execute(f"UPDATE crm_contact SET {assignments} WHERE id = ?", (*changes.values(), current["id"]))
    out = _contact_out(w, current["id"])
    out["changed"] = sorted(k for k in changes if k not in ("updated_at", "updated_by"))
    return out


# ------------------------------------------------------------------------------ activities
@tool(app="crm", kind="write")
def crm_log_activity(
    w: World,
    kind: Literal["call", "meeting", "email", "note", "task"],
    subject: str,
    body: Annotated[str, MaxLen(lookup.MAX_BODY)] | None = None,
    account_id: str | None = None,
    contact_id: str | None = None,
    deal_id: str | None = None,
) -> dict[str, Any]:
    """Log a call, meeting, email, note or task in the CRM against an account, a contact and/or a deal.

    Link at least one of account_id, contact_id, deal_id. The account is filled in from the contact or
    deal when you leave it out; when you give several, they must belong together.

    Args:
        kind: What happened: call, meeting, email, note or task.
        subject: A one-line summary, e.g. 'Pricing call with their CFO'.
        body: The details (what was said, agreed, next steps).
        account_id: The account it concerns (id or exact name).
        contact_id: The contact it was with (id or email).
        deal_id: The deal it concerns (id).
    """
    if account_id is None and contact_id is None and deal_id is None:
        raise InvalidArgument("link the activity to something: pass account_id, contact_id and/or deal_id")
    row: dict[str, Any] = {
        "kind": kind,
        "subject": lookup.text(subject, "subject", limit=lookup.MAX_SUBJECT),
        "body": lookup.text(body or "", "body", limit=lookup.MAX_BODY, required=False),
        "account_id": lookup.account(w, account_id)["id"] if account_id is not None else None,
        "contact_id": None,
        "deal_id": None,
    }
    for ref, param, find in ((contact_id, "contact_id", lookup.contact), (deal_id, "deal_id", lookup.deal)):
        if ref is None:
            continue
        linked = find(w, ref)
        row[param] = linked["id"]
        if row["account_id"] is None:
            row["account_id"] = linked["account_id"]
        elif linked["account_id"] != row["account_id"]:
            raise InvalidArgument(
                f"{param} {linked['id']} belongs to account {linked['account_id']}, not {row['account_id']}; "
                "link records of one account (or leave account_id out and it is filled in)"
            )
    w.tick()
    row.update(id=w.new_id("act"), at=w.now_ts(), person_id=w.user_id)
    columns = ", ".join(row)
    w.db.execute(f"INSERT INTO crm_activity ({columns}) VALUES ({', '.join('?' * len(row))})", tuple(row.values()))
    return activity_row(w.db.execute(f"{ACTIVITY_SQL} WHERE t.id = ?", (row["id"],)).fetchone(), None)


@tool(app="crm", kind="read")
def crm_list_activities(
    w: World,
    account_id: str | None = None,
    contact_id: str | None = None,
    deal_id: str | None = None,
    kind: Literal["call", "meeting", "email", "note", "task"] | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """List logged calls, meetings, emails, notes and tasks, newest first.

    Long bodies are cut; read one in full with crm_get_activity.

    Args:
        account_id: Only activities linked to this account (id or exact name).
        contact_id: Only activities with this contact (id or email).
        deal_id: Only activities about this deal (id).
        kind: Only this kind: call, meeting, email, note or task.
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    clauses: list[str] = []
    params: list[Any] = []
    for ref, column, find in ((account_id, "t.account_id", lookup.account),
                              (contact_id, "t.contact_id", lookup.contact),
                              (deal_id, "t.deal_id", lookup.deal)):
        if ref is not None:
            clauses.append(f"{column} = ?")
            params.append(find(w, ref)["id"])
    if kind is not None:
        clauses.append("t.kind = ?")
        params.append(kind)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return paged(w.db, f"{ACTIVITY_SQL}{where} ORDER BY t.at DESC, t.id DESC", params, cursor=cursor,
                 limit=limit, key="activities", render=lambda r: activity_row(r, _LIST_BODY))


@tool(app="crm", kind="read")
def crm_get_activity(w: World, activity_id: str, offset: int = 0) -> dict[str, Any]:
    """Get one logged activity with its full body (read long bodies in windows with offset).

    Args:
        activity_id: The activity's id (e.g. 'act_20').
        offset: Character offset into the body to read from (from a truncated result's next_offset).
    """
    row = w.db.execute(f"{ACTIVITY_SQL} WHERE t.id = ?", (lookup.activity(w, activity_id)["id"],)).fetchone()
    out = activity_row(row, None)
    out.update(clip(row["body"], offset=offset, key="body",
                    how=f"Call crm_get_activity(activity_id='{row['id']}')"))
    return out


# ------------------------------------------------------------------------------ invoices
@tool(app="crm", kind="read")
def crm_search_invoices(
    w: World,
    account_id: str | None = None,
    status: Literal["open", "paid", "void"] | None = None,
    overdue_only: bool = False,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search invoices billed to customer accounts, ordered by due date (for collections and revenue work).

    An invoice is overdue when it is still open and its due date is before today.

    Args:
        account_id: Only invoices of this account (id or exact name).
        status: Only invoices with this status: open, paid or void.
        overdue_only: True to list only overdue invoices (open and past their due date).
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    today = w.now().date()
    clauses: list[str] = []
    params: list[Any] = []
    if account_id is not None:
        clauses.append("i.account_id = ?")
        params.append(lookup.account(w, account_id)["id"])
    if status is not None:
        clauses.append("i.status = ?")
        params.append(status)
    if overdue_only:
        clauses.append("i.status = 'open' AND i.due_on < ?")
        params.append(today.isoformat())
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return paged(w.db, f"{INVOICE_SQL}{where} ORDER BY i.due_on, i.id", params, cursor=cursor,
                 limit=limit, key="invoices", render=lambda r: invoice_row(r, today))


@tool(app="crm", kind="read")
def crm_get_invoice(w: World, invoice_id: str) -> dict[str, Any]:
    """Get one invoice, by id or by its number, with the account's contacts (to chase payment).

    Args:
        invoice_id: The invoice's id (e.g. 'inv_5') or its number (e.g. 'INV-2026-0042').
    """
    inv_id = lookup.invoice(w, invoice_id)["id"]
    row = w.db.execute(f"{INVOICE_SQL} WHERE i.id = ?", (inv_id,)).fetchone()
    out = invoice_row(row, w.now().date())
    contacts = w.db.execute(
        f"{CONTACT_SQL} WHERE c.account_id = ? ORDER BY c.name, c.id LIMIT 51", (row["account_id"],)
    )
    bounded(out, "account_contacts", [_brief_contact(r) for r in contacts], 50,
            f"use crm_search_contacts with account_id='{row['account_id']}' for the rest")
    return out


def _brief_contact(row: sqlite3.Row, *, phone: bool = False) -> dict[str, Any]:
    """A contact nested in an account or invoice result (the account is already known there)."""
    out = {"id": row["id"], "name": row["name"], "email": row["email"], "title": row["title"]}
    if phone:
        out["phone"] = row["phone"]
    return out

