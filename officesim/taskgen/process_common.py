"""Planting and solving helpers shared by the business-process families (``fam_process``).

A process family plants data at the scale of a real month (dozens of invoices, a sheet longer than
one page), so its helpers insert CRM rows directly, build sheets as their owners would, and let the
reference solution read every page the way an agent must.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import Any

from officesim.grading.record_checks import AllowedChangesCheck
from officesim.taskgen.base import Solver, Stage
from officesim.taskgen.common import accounts, allowed_changes, colleague_mail, day, shared_sheet, stamp, toolset

CLOSE_COLUMNS = ("Invoice", "Account", "Issued", "Amount", "Status")
CLOSE_TYPES = ("text", "text", "date", "number", "text")
# Tools that do the analysis a hard task asks for (totals per stage): left out of hard tool sets.
ANALYSIS_TOOLS = frozenset({"crm_list_pipeline"})


def at(offset: int, hour: int, minute: int = 0) -> str:
    """An ISO UTC moment ``offset`` days from today (negative: in the past) at ``hour``."""
    return stamp(day(offset), hour, minute)


def mail_to_user(stage: Stage, sender: str, subject: str, body: str, *, cc: Sequence[str] = ()) -> dict[str, Any]:
    """A colleague's mail to the acting user; returns the tool result (id, thread_id)."""
    return colleague_mail(stage, sender, ["user"], subject, body, cc=cc)


def home_currency(stage: Stage) -> str:
    """The world's own currency (what its books are kept in)."""
    return stage.world.meta("currency") or "USD"


def hard_tools(apps: Iterable[str], hard: bool, *, writes: Iterable[str] = (),
               distractors: Iterable[str] = ()) -> list[str]:
    """The allowed tools; a hard tier goes without the tools that would do its analysis."""
    names = toolset(apps, writes, distractors)
    return [n for n in names if not (hard and n in ANALYSIS_TOOLS)]


def changes_allowed(*tables: str | dict[str, list[str]]) -> AllowedChangesCheck:
    """The exhaustive collateral gate as a check model."""
    return allowed_changes(*tables)


def all_pages(s: Solver, tool: str, key: str, **arguments: Any) -> list[dict[str, Any]]:
    """Every item of a paged read, following ``next_cursor`` as an agent must."""
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = s.call(tool, **arguments, **({"cursor": cursor} if cursor else {}))
        items += page[key]
        cursor = page.get("next_cursor")
        if not cursor:
            return items


def _free_numbers(stage: Stage, rng: random.Random, n: int) -> list[str]:
    taken = {r["number"] for r in stage.rows("SELECT number FROM crm_invoice")}
    free = [f"INV-2026-{k:04d}" for k in range(100, 990) if f"INV-2026-{k:04d}" not in taken]
    return sorted(rng.sample(free, n))


def plant_invoices(stage: Stage, rng: random.Random, n: int, *, currency: str, month: str,
                   status: str | None = None, exclude_month_foreign: bool = False,
                   account_ids: Sequence[str] | None = None) -> list[str]:
    """Insert ``n`` invoices issued in ``month`` (YYYY-MM) on the world's accounts; returns their numbers.

    ``status`` fixes every status (default: about 60% open, the rest paid on time);
    ``exclude_month_foreign`` moves the world's own foreign-currency invoices of that month to the
    month before, so the month's books are in one currency.
    """
    if exclude_month_foreign:
        for row in stage.rows("SELECT id FROM crm_invoice WHERE issued_on LIKE ? AND currency != ?",
                              f"{month}-%", currency):
            stage.update("crm_invoice", {"id": row["id"]}, {"issued_on": _month_before(month)})
    pool = list(account_ids) if account_ids else [a["id"] for a in accounts(stage)]
    first = date.fromisoformat(f"{month}-01")
    numbers = _free_numbers(stage, rng, n)
    rows = []
    for number in numbers:
        issued = first + timedelta(days=rng.randrange(0, 28))
        due = issued + timedelta(days=30)
        state = status or ("open" if rng.random() < 0.6 else "paid")
        amount = float(rng.randrange(1_200, 48_000, 50))
        rows.append({"number": number, "account_id": rng.choice(pool), "amount": amount,
                     "currency": currency, "issued_on": issued.isoformat(), "due_on": due.isoformat(),
                     "status": state, "paid_on": (issued + timedelta(days=rng.randrange(5, 25))).isoformat()
                     if state == "paid" else None})
    stage.insert("crm_invoice", rows)
    return numbers


def _month_before(month: str) -> str:
    return (date.fromisoformat(f"{month}-01") - timedelta(days=3)).isoformat()


def sheet_row(invoice: dict[str, Any], status: str) -> list[Any]:
    """One close-sheet row for an invoice (as CRM rows joined with their account name give it)."""
    return [invoice["number"], invoice["account"], invoice["issued_on"], float(invoice["amount"]), status]


def shared_sheet_as(stage: Stage, owner: str, name: str, rows: Sequence[Sequence[Any]],
                    columns: Sequence[str] = CLOSE_COLUMNS, types: Sequence[str] = CLOSE_TYPES) -> str:
    """A sheet ``owner`` builds and shares with the acting user as an editor; returns its file id."""
    return shared_sheet(stage, owner, name, columns, types, rows, share_with=("user",), role="editor")


def row_regex(numbers: Iterable[str]) -> str:
    """A regex matching a sheet row's stored cells that hold none of ``numbers`` (an invented row)."""
    known = "|".join(re.escape(n) for n in sorted(set(numbers)))
    return rf'^(?![\s\S]*"(?:{known})")'


def wrong_status_regex(status_of: dict[str, str]) -> str:
    """A regex matching a close-sheet row's stored cells when its invoice (first cell) has a status
    (last cell) other than ``status_of`` gives: every copy of a row is held to the CRM, a duplicate too."""
    by_status: dict[str, list[str]] = {}
    for number, status in sorted(status_of.items()):
        by_status.setdefault(status, []).append(re.escape(number))
    parts = [rf'^\["(?:{"|".join(numbers)})"(?![\s\S]*,\s*"{re.escape(status)}"\s*\]$)'
             for status, numbers in sorted(by_status.items())]
    return "(?i)" + "|".join(parts)
