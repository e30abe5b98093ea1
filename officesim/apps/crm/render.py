"""How CRM rows look to a model: the joined SELECTs and the flat dicts built from them.

Shared by the account/contact tools and the deal tools so one record reads the same in every
result (an invoice in ``crm_get_account`` looks like one from ``crm_search_invoices``).
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from officesim.paging import clip

if TYPE_CHECKING:
    import sqlite3

CONTACT_SQL = (
    "SELECT c.id, c.name, c.email, c.title, c.phone, c.account_id, a.name AS account_name, "
    "c.created_at, c.updated_at, c.updated_by "
    "FROM crm_contact c LEFT JOIN crm_account a ON a.id = c.account_id"
)
ACTIVITY_SQL = (
    "SELECT t.id, t.kind, t.subject, t.body, t.at, t.person_id, p.name AS person_name, "
    "t.account_id, a.name AS account_name, t.contact_id, c.name AS contact_name, t.deal_id, d.name AS deal_name "
    "FROM crm_activity t LEFT JOIN directory_person p ON p.id = t.person_id "
    "LEFT JOIN crm_account a ON a.id = t.account_id LEFT JOIN crm_contact c ON c.id = t.contact_id "
    "LEFT JOIN crm_deal d ON d.id = t.deal_id"
)
INVOICE_SQL = (
    "SELECT i.id, i.number, i.account_id, a.name AS account_name, i.deal_id, d.name AS deal_name, i.amount, "
    "i.currency, i.issued_on, i.due_on, i.status, i.paid_on "
    "FROM crm_invoice i LEFT JOIN crm_account a ON a.id = i.account_id LEFT JOIN crm_deal d ON d.id = i.deal_id"
)


def contact_row(row: sqlite3.Row) -> dict[str, Any]:
    """A contact as listed: who, how to reach them, where they work."""
    return {k: row[k] for k in ("id", "name", "email", "title", "phone", "account_id", "account_name")}


def activity_row(row: sqlite3.Row, cut: int | None) -> dict[str, Any]:
    """An activity; a body longer than ``cut`` characters is cut with a marker saying how to read on."""
    out = dict(row)
    if cut is not None and len(out["body"] or "") > cut:
        out.update(clip(out["body"], limit=cut, key="body",
                        how=f"Call crm_get_activity(activity_id='{out['id']}')"))
    return out


def invoice_row(row: sqlite3.Row, today: date) -> dict[str, Any]:
    """An invoice with ``overdue`` (open and due before ``today``) and how many days late it is."""
    out = dict(row)
    late = (today - date.fromisoformat(out["due_on"])).days if out["status"] == "open" else 0
    out["overdue"] = late > 0
    out["days_overdue"] = max(late, 0)
    return out
