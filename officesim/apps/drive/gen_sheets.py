"""Content of generated spreadsheets whose numbers add up.

Budget totals equal the sum of their lines, the headcount sheet equals the directory's counts,
the pipeline export equals ``crm_deal``, and expense logs are drawn against the travel policy
(with a few deliberate violations for audit tasks).  Builders return plain ``Tab`` values; the
generator stores them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from officesim.apps.drive.cells import CellValue
from officesim.apps.drive.gen_docs import TravelPolicy


@dataclass
class Tab:
    """One sheet of a generated spreadsheet."""

    name: str
    columns: list[str]
    types: list[str]
    rows: list[list[CellValue]] = field(default_factory=list)


@dataclass(frozen=True)
class DeptBudget:
    """One department's quarterly budget and actual spend (actuals up to the current quarter)."""

    department: str
    budget: tuple[int, ...]  # Q1..Q4
    actual: tuple[int, ...]  # Q1..the last finished quarter


def draw_budgets(rng: random.Random, departments: Sequence[str], headcounts: Sequence[int],
                 quarters_done: int, scale: int = 1) -> list[DeptBudget]:
    """Quarterly budgets scaled by headcount (and ``scale``: 80 for rupees), actuals within about 15%."""
    out = []
    for name, heads in zip(departments, headcounts, strict=True):
        base = max(1, heads) * rng.randrange(18_000, 36_000, 1_000) * scale
        budget = tuple(int(round(base * rng.uniform(0.9, 1.1), -3)) for _ in range(4))
        actual = tuple(int(round(b * rng.uniform(0.85, 1.15), -2)) for b in budget[:quarters_done])
        out.append(DeptBudget(name, budget, actual))
    return out


def budget_tabs(budgets: Sequence[DeptBudget], quarters_done: int) -> list[Tab]:
    """'Budget' (Q1-Q4 and Total per department, plus a Total row) and 'Actuals' (year to date)."""
    plan = Tab("Budget", ["Department", "Q1", "Q2", "Q3", "Q4", "Total"], ["text", *["number"] * 5])
    lines = [[*b.budget, sum(b.budget)] for b in budgets]
    plan.rows = [[b.department, *line] for b, line in zip(budgets, lines, strict=True)]
    plan.rows.append(["Total", *(sum(column) for column in zip(*lines, strict=True))])
    done = [f"Q{i}" for i in range(1, quarters_done + 1)]
    actual = Tab("Actuals", ["Department", *done, "YTD total"], ["text", *["number"] * (len(done) + 1)])
    spent = [[*b.actual, sum(b.actual)] for b in budgets]
    actual.rows = [[b.department, *line] for b, line in zip(budgets, spent, strict=True)]
    actual.rows.append(["Total", *(sum(column) for column in zip(*spent, strict=True))])
    return [plan, actual]


def headcount_tab(rows: Sequence[tuple[str, str, int]]) -> Tab:
    """Department, head and headcount for every department, and a Total row."""
    tab = Tab("Headcount", ["Department", "Head", "Headcount"], ["text", "text", "number"])
    for department, head, count in rows:
        tab.rows.append([department, head, count])
    tab.rows.append(["Total", None, sum(r[2] for r in rows)])
    return tab


def pipeline_tab(deals: Sequence[dict[str, Any]], accounts: dict[str, str], people: dict[str, str]) -> Tab:
    """Every CRM deal, as exported from the CRM (same ids, stages, amounts and close dates)."""
    tab = Tab(
        "Pipeline",
        ["Deal ID", "Deal", "Account", "Stage", "Amount", "Currency", "Close date", "Owner"],
        ["text", "text", "text", "text", "number", "text", "date", "text"],
    )
    for d in sorted(deals, key=lambda d: (d["close_date"], d["id"])):
        amount = d["amount"]
        amount = int(amount) if float(amount).is_integer() else amount
        tab.rows.append([d["id"], d["name"], accounts.get(d["account_id"], ""), d["stage"], amount,
                         d["currency"], d["close_date"], people.get(d["owner_id"], "")])
    return tab


TRAVEL_VENDORS = {
    "Airfare": (["Delta", "United", "American Airlines", "JetBlue", "Air Canada"], 180, 900),
    "Lodging": (["Marriott", "Hilton", "Hyatt", "Holiday Inn", "Westin"], 140, 320),
    "Meals": (["Chipotle", "Local bistro", "Hotel restaurant", "Starbucks", "Sushi bar"], 12, 110),
    "Ground transport": (["Uber", "Lyft", "Hertz", "Yellow Cab", "Amtrak"], 15, 160),
}
OFFICE_VENDORS = {
    "Software": (["Figma", "Notion", "Zoom", "Atlassian", "Slack"], 15, 600),
    "Office supplies": (["Staples", "Amazon Business", "Office Depot"], 10, 300),
    "Training": (["Coursera", "O'Reilly", "Local workshop"], 50, 900),
}


def expense_tab(
    rng: random.Random, people: Sequence[dict[str, Any]], first_day: date, last_day: date,
    policy: TravelPolicy, rows: int, *, travel_only: bool, scale: int = 1,
) -> Tab:
    """Expense lines in a date range; lodging above the cap and missing receipts occur now and then."""
    tab = Tab(
        "Expenses",
        ["Date", "Employee", "Category", "Vendor", "Amount", "Receipt", "Status"],
        ["date", "text", "text", "text", "number", "bool", "text"],
    )
    catalog = dict(TRAVEL_VENDORS) if travel_only else {**TRAVEL_VENDORS, **OFFICE_VENDORS}
    categories = sorted(catalog)
    span = max(0, (last_day - first_day).days)
    lines = []
    for _ in range(rows):
        category = rng.choice(categories)
        vendors, low, high = catalog[category]
        amount = round(rng.uniform(low * scale, high * scale), 2)
        if category == "Lodging" and rng.random() < 0.8:
            amount = round(rng.uniform(low * scale, policy.hotel_cap), 2)  # most nights respect the cap
        receipt = amount <= policy.receipt_threshold or rng.random() < 0.9
        status = rng.choices(["approved", "pending", "rejected"], weights=[6, 3, 1])[0]
        day = first_day + timedelta(days=rng.randint(0, span))
        lines.append([day.isoformat(), rng.choice(people)["name"], category, rng.choice(vendors), amount,
                      receipt, status])
    tab.rows = sorted(lines, key=lambda r: (str(r[0]), str(r[1])))
    return tab


VENDORS = [
    ("Northwind Traders", "Office supplies"), ("Globex Logistics", "Shipping"), ("Initech IT", "IT services"),
    ("Umbrella Catering", "Catering"), ("Stark Facilities", "Facilities"), ("Wayne Travel", "Travel agency"),
    ("Acme Cleaning", "Cleaning"), ("Soylent Foods", "Catering"), ("Hooli Cloud", "Cloud hosting"),
    ("Vandelay Imports", "Furniture"), ("Pied Piper Storage", "Cloud storage"), ("Cyberdyne Security", "Security"),
]


def vendor_tab(rng: random.Random, today: date, count: int) -> Tab:
    """Vendors with contacts (at '.test' domains), annual spend and contract end dates."""
    tab = Tab(
        "Vendors",
        ["Vendor", "Category", "Contact email", "Annual spend", "Contract end", "Active"],
        ["text", "text", "text", "number", "date", "bool"],
    )
    for name, category in rng.sample(VENDORS, k=min(count, len(VENDORS))):
        slug = "".join(ch for ch in name.lower() if ch.isalnum())
        end = today + timedelta(days=rng.randint(-60, 400))
        tab.rows.append([name, category, f"accounts@{slug}.test", rng.randrange(2_000, 180_000, 500),
                         end.isoformat(), end >= today])
    return tab


TASK_VERBS = ["Draft", "Review", "Finalize", "Schedule", "Audit", "Migrate", "Document", "Test"]


def tracker_tab(
    rng: random.Random, topics: Sequence[str], people: Sequence[dict[str, Any]], today: date, count: int
) -> Tab:
    """A project task tracker: task, owner, status, due date, done flag (consistent with status)."""
    tab = Tab("Tasks", ["Task", "Owner", "Status", "Due date", "Done"], ["text", "text", "text", "date", "bool"])
    for index in range(count):
        status = rng.choice(["not started", "in progress", "blocked", "done"])
        due = today + timedelta(days=rng.randint(-30, 45))
        task = f"{rng.choice(TASK_VERBS)} {topics[index % len(topics)]}"
        tab.rows.append([task, rng.choice(people)["name"], status, due.isoformat(), status == "done"])
    return tab


def invoice_tab(invoices: Sequence[dict[str, Any]], accounts: dict[str, str]) -> Tab:
    """Every CRM invoice, as tracked by Finance (same numbers, amounts, dates and status)."""
    tab = Tab(
        "Invoices",
        ["Invoice", "Account", "Amount", "Currency", "Issued", "Due", "Status", "Paid on"],
        ["text", "text", "number", "text", "date", "date", "text", "date"],
    )
    for inv in sorted(invoices, key=lambda i: (i["issued_on"], i["number"])):
        amount = inv["amount"]
        amount = int(amount) if float(amount).is_integer() else amount
        tab.rows.append([inv["number"], accounts.get(inv["account_id"], ""), amount, inv["currency"],
                         inv["issued_on"], inv["due_on"], inv["status"], inv.get("paid_on")])
    return tab
