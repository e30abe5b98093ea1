"""Generate the Drive: a company folder, one folder per department, documents and spreadsheets.

Layout: "Company" (owned by the CEO, shared with the whole domain) holds "Policies"; each
department has a folder owned by its head and shared (person grants, editor) with its members,
with a "Meeting Notes" subfolder.  Exactly ``size.docs`` documents and ``size.sheets``
spreadsheets follow, owned by real people of the right departments; some sit in their owner's
My Drive and are shared with individuals, some department files are also shared across teams.
Numbers agree with the rest of the world: the pipeline export is ``crm_deal``, headcount is the
directory, budget totals add up, quarterly reviews quote the budget sheet, account plans name
the CRM's contacts and deals.  Works when the CRM is empty (those files are skipped).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from officesim.apps.drive import gen_docs, gen_sheets
from officesim.apps.drive.files import dump_cells
from officesim.clock import format_ts
from officesim.industries import currency_scale

if TYPE_CHECKING:
    from officesim.worldgen import GenContext

HISTORY_DAYS = 120
POLICY_OWNERS = [  # title -> role key that owns it
    ("Travel & Expense Policy", "cfo"), ("Remote Work Policy", "hr_lead"), ("Code of Conduct", "legal_counsel"),
    ("Information Security Policy", "it_admin"), ("Procurement Policy", "cfo"), ("PTO Policy", "hr_lead"),
]
PERSONAL_SHARE = 0.15  # share of notes/briefs kept in the owner's My Drive and shared individually
CROSS_SHARE = 0.15  # share of department files also shared with someone outside the department


def quarter_of(day: date) -> tuple[int, int]:
    """(year, quarter) of a date."""
    return day.year, (day.month - 1) // 3 + 1


def quarter_bounds(year: int, quarter: int) -> tuple[date, date]:
    first = date(year, 3 * quarter - 2, 1)
    nxt = date(year + 1, 1, 1) if quarter == 4 else date(year, 3 * quarter + 1, 1)
    return first, nxt - timedelta(days=1)


@dataclass
class _Drive:
    """Rows being built, with id counters and the lookups every placement needs."""

    ctx: GenContext
    rng: random.Random
    start: datetime
    files: list[dict[str, Any]] = field(default_factory=list)
    sheets: list[dict[str, Any]] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    perms: list[dict[str, Any]] = field(default_factory=list)
    names: set[tuple[str, str]] = field(default_factory=set)
    dept_folder: dict[str, str] = field(default_factory=dict)  # department id -> folder id
    notes_folder: dict[str, str] = field(default_factory=dict)
    special: dict[str, str] = field(default_factory=dict)  # 'policies', 'account_plans', 'budgets'

    def __post_init__(self) -> None:
        self.people = {p["id"]: p for p in self.ctx.people}
        self.members: dict[str, list[dict[str, Any]]] = {}
        for person in self.ctx.people:
            self.members.setdefault(person["department_id"], []).append(person)
        # By kind ('Sales') and by the name this world uses ('Business Development').
        self.dept_by_name = {**{d["name"]: d for d in self.ctx.departments},
                             **{self.ctx.department_kind(d): d for d in self.ctx.departments}}
        self.ceo = self.people.get(self.ctx.roles.get("ceo", ""), self.ctx.people[0])
        self.scale = currency_scale(self.ctx.spec.currency)  # rupee budgets and expenses in rupee sizes

    # ------------------------------------------------------------------ helpers
    def person(self, role: str, department: str | None = None) -> dict[str, Any]:
        """The person with a role key, else the head of ``department``, else the CEO."""
        if role in self.ctx.roles:
            return self.people[self.ctx.roles[role]]
        dept = self.dept_by_name.get(department or "")
        if dept and dept["head_id"]:
            return self.people[dept["head_id"]]
        return self.ceo

    def topics(self, dept: dict[str, Any] | None) -> list[str] | None:
        """What documents of ``dept`` talk about: the industry's topics for its kind, else the apps' own."""
        if dept is None:
            return None
        kind = self.ctx.department_kind(dept)
        return list(self.ctx.industry.doc_topics.get(kind, ())) or gen_docs.TOPICS.get(kind)

    def department_name(self, person: dict[str, Any]) -> str:
        return next(d["name"] for d in self.ctx.departments if d["id"] == person["department_id"])

    def home(self, person: dict[str, Any]) -> str | None:
        """The folder of the person's department (None = their My Drive when it has none)."""
        return self.dept_folder.get(person["department_id"])

    def times(self, min_days: float = 1, max_days: float = HISTORY_DAYS) -> tuple[str, str]:
        """(created_at, modified_at) in office hours within the history window, modified later."""
        created = self.start - timedelta(days=self.rng.uniform(min_days, max_days))
        created = created.replace(hour=self.rng.randint(8, 17), minute=self.rng.randint(0, 59), second=0)
        room = max(0.0, (self.start - created).total_seconds() / 86400 - 0.5)
        modified = created + timedelta(days=self.rng.uniform(0, min(room, 30)))
        return format_ts(min(created, self.start)), format_ts(min(modified, self.start))

    def unique(self, name: str, kind: str, parent: str | None, owner_id: str) -> str:
        """``name``, or ``name (2)``... when taken: documents and sheets have company-wide unique
        names (tasks and graders name them), folders are unique within their parent."""
        key = (parent or f"root:{owner_id}") if kind == "folder" else ""
        candidate, n = name, 2
        while (key, candidate.casefold()) in self.names:
            candidate, n = f"{name} ({n})", n + 1
        self.names.add((key, candidate.casefold()))
        return candidate

    def add_file(self, name: str, kind: str, owner: dict[str, Any], parent: str | None, content: str = "",
                 when: tuple[str, str] | None = None) -> str:
        created, modified = when or self.times()
        file_id = f"f_{len(self.files) + 1}"
        self.files.append({
            "id": file_id, "name": self.unique(name, kind, parent, owner["id"]), "kind": kind,
            "parent_id": parent, "owner_id": owner["id"],
            "content": content, "created_at": created, "modified_at": modified, "modified_by": owner["id"],
            "trashed": False,
        })
        return file_id

    def grant(self, file_id: str, role: str, person_id: str | None = None) -> None:
        self.perms.append({"id": f"perm_{len(self.perms) + 1}", "file_id": file_id,
                           "principal": "domain" if person_id is None else "person",
                           "person_id": person_id, "role": role})

    def add_sheet(self, name: str, owner: dict[str, Any], parent: str | None, tabs: list[gen_sheets.Tab]) -> str:
        file_id = self.add_file(name, "sheet", owner, parent)
        for position, tab in enumerate(tabs):
            sheet_id = f"sh_{len(self.sheets) + 1}"
            self.sheets.append({"id": sheet_id, "file_id": file_id, "name": tab.name, "position": position,
                                "columns": dump_cells(list(tab.columns)), "column_types": json.dumps(tab.types)})
            for number, cells in enumerate(tab.rows, 1):
                self.rows.append({"id": f"row_{len(self.rows) + 1}", "sheet_id": sheet_id, "position": number,
                                  "cells": dump_cells(cells)})
        return file_id

    def place(self, file_id: str, owner: dict[str, Any]) -> None:
        """Maybe share a department file with one person from another department."""
        if self.rng.random() < CROSS_SHARE:
            others = [p for p in self.ctx.people if p["department_id"] != owner["department_id"]]
            if others:
                self.grant(file_id, self.rng.choice(["viewer", "editor"]), self.rng.choice(others)["id"])

    def personal(self) -> bool:
        """Whether the next file goes to its owner's My Drive, shared with a few colleagues."""
        return self.rng.random() < PERSONAL_SHARE

    def share_personally(self, file_id: str, owner: dict[str, Any]) -> None:
        others = [p for p in self.ctx.people if p["id"] != owner["id"]]
        for person in self.rng.sample(others, k=min(len(others), self.rng.randint(1, 3))):
            self.grant(file_id, self.rng.choice(["viewer", "editor"]), person["id"])


def _folders(d: _Drive) -> None:
    company = d.add_file("Company", "folder", d.ceo, None, when=d.times(HISTORY_DAYS - 1, HISTORY_DAYS))
    d.grant(company, "viewer")
    d.special["policies"] = d.add_file("Policies", "folder", d.ceo, company, when=d.times(HISTORY_DAYS - 1,
                                                                                          HISTORY_DAYS))
    for dept in d.ctx.departments:
        if not dept["head_id"]:
            continue
        head = d.people[dept["head_id"]]
        folder = d.add_file(dept["name"], "folder", head, None, when=d.times(HISTORY_DAYS - 2, HISTORY_DAYS))
        d.dept_folder[dept["id"]] = folder
        for member in d.members.get(dept["id"], []):
            if member["id"] != head["id"]:
                d.grant(folder, "editor", member["id"])
        d.notes_folder[dept["id"]] = d.add_file("Meeting Notes", "folder", head, folder,
                                                when=d.times(HISTORY_DAYS - 2, HISTORY_DAYS))
    for key, dept_name, name in (("account_plans", "Sales", "Account Plans"), ("budgets", "Finance", "Budgets")):
        named = d.dept_by_name.get(dept_name)
        if named and named["id"] in d.dept_folder:
            d.special[key] = d.add_file(name, "folder", d.people[named["head_id"]], d.dept_folder[named["id"]],
                                        when=d.times(HISTORY_DAYS - 3, HISTORY_DAYS))


@dataclass
class _Facts:
    """World facts the documents and sheets must agree with."""

    accounts: list[dict[str, Any]]
    deals: list[dict[str, Any]]
    contacts: list[dict[str, Any]]
    invoices: list[dict[str, Any]]
    policy: gen_docs.TravelPolicy
    budgets: list[gen_sheets.DeptBudget]
    quarter: tuple[int, int]  # the last finished quarter (year, q)
    codenames: list[str]


def _rows(ctx: GenContext, table: str, order: str) -> list[dict[str, Any]]:
    return [dict(r) for r in ctx.world.db.execute(f"SELECT * FROM {table} ORDER BY {order}")]


def _facts(d: _Drive) -> _Facts:
    today = d.start.date()
    year, q = quarter_of(today)
    last = (year - 1, 4) if q == 1 else (year, q - 1)
    names = [dept["name"] for dept in d.ctx.departments]
    counts = [len(d.members.get(dept["id"], [])) for dept in d.ctx.departments]
    codenames = list(gen_docs.CODENAMES)
    d.rng.shuffle(codenames)
    return _Facts(
        accounts=_rows(d.ctx, "crm_account", "id"), deals=_rows(d.ctx, "crm_deal", "id"),
        contacts=_rows(d.ctx, "crm_contact", "id"), invoices=_rows(d.ctx, "crm_invoice", "id"),
        policy=gen_docs.TravelPolicy.draw(d.rng, d.scale),
        budgets=gen_sheets.draw_budgets(d.rng, names, counts, last[1], d.scale), quarter=last, codenames=codenames,
    )


def _docs(d: _Drive, facts: _Facts) -> None:
    spec, rng = d.ctx.spec, d.rng
    total = spec.size.docs
    qlabel = f"Q{facts.quarter[1]} {facts.quarter[0]}"
    jobs: list[Callable[[], None]] = []

    def policy_job(title: str, role: str) -> Callable[[], None]:
        def run() -> None:
            owner = d.person(role, "Executive")
            text = (gen_docs.travel_policy(facts.policy, spec.company, spec.currency, owner, spec.locale)
                    if title.startswith("Travel") else gen_docs.simple_policy(title, owner, spec.company, rng))
            d.add_file(title, "doc", owner, d.special["policies"], text)
        return run

    n_policies = min(len(POLICY_OWNERS), max(1, total // 4))
    jobs += [policy_job(title, role) for title, role in POLICY_OWNERS[:n_policies]]
    by_account: dict[str, list[dict[str, Any]]] = {}
    for deal in facts.deals:
        by_account.setdefault(deal["account_id"], []).append(deal)
    planned = rng.sample(facts.accounts, k=min(len(facts.accounts), total // 5))
    for account in sorted(planned, key=lambda a: a["id"]):
        def plan(account: dict[str, Any] = account) -> None:
            owner = d.people.get(account["owner_id"]) or d.person("head_of_sales", "Sales")
            contacts = [c for c in facts.contacts if c["account_id"] == account["id"]][:4]
            text = gen_docs.account_plan(rng, account, owner, contacts, by_account.get(account["id"], []), spec.locale)
            d.add_file(f"Account plan: {account['name']}", "doc", owner,
                       d.special.get("account_plans") or d.home(owner), text)
        jobs.append(plan)
    jobs = jobs[:total]
    once: set[tuple[str, str]] = set()
    staffed = [dept for dept in d.ctx.departments if dept["id"] in d.dept_folder]
    while len(jobs) < total:
        dept = rng.choice(staffed) if staffed else None
        kind = rng.choices(["notes", "brief", "review", "okrs", "onboarding"], weights=[5, 3, 1, 1, 1])[0]
        if dept is None or (kind in ("review", "okrs", "onboarding") and (kind, dept["id"]) in once):
            kind = "notes" if dept else "brief"
        if dept is not None:
            once.add((kind, dept["id"]))
        jobs.append(_doc_job(d, facts, kind, dept, qlabel))
    for job in jobs:
        job()


def _doc_job(d: _Drive, facts: _Facts, kind: str, dept: dict[str, Any] | None, qlabel: str) -> Callable[[], None]:
    rng, spec = d.rng, d.ctx.spec

    def run() -> None:
        team = d.members.get(dept["id"], []) if dept else d.ctx.people
        team = team or d.ctx.people
        dname = dept["name"] if dept else d.department_name(d.ceo)
        head = d.people[dept["head_id"]] if dept and dept["head_id"] else d.ceo
        owner = rng.choice(team)
        if kind == "notes":
            created, modified = d.times(2, HISTORY_DAYS)
            day = datetime.fromisoformat(created.replace("Z", "+00:00")).date()
            attendees = rng.sample(team, k=min(len(team), rng.randint(2, 5)))
            text = gen_docs.meeting_notes(rng, dname, attendees, day, d.topics(dept))
            personal = d.personal()
            parent = None if personal or not dept else d.notes_folder.get(dept["id"])
            file_id = d.add_file(f"{dname} weekly sync - {day.isoformat()}", "doc", owner, parent, text,
                                 when=(created, modified))
        elif kind == "brief":
            codename = facts.codenames.pop() if facts.codenames else f"Initiative {len(d.files)}"
            stakeholders = rng.sample(d.ctx.people, k=min(3, len(d.ctx.people)))
            text = gen_docs.project_brief(rng, codename, dname, owner, stakeholders,
                                          (d.start - timedelta(days=rng.randint(10, 90))).date(), spec.currency,
                                          d.topics(dept), spec.locale)
            personal = d.personal()
            file_id = d.add_file(f"Project {codename}: brief", "doc", owner, None if personal else d.home(owner), text)
        elif kind == "review":
            owner, personal = head, False
            budget = next(b for b in facts.budgets if b.department == dname)
            q = facts.quarter[1] - 1
            text = gen_docs.quarterly_review(dname, qlabel, head, len(d.members.get(head["department_id"], [])),
                                             budget.budget[q], budget.actual[q], spec.currency, rng,
                                             d.topics(dept), spec.locale)
            file_id = d.add_file(f"{qlabel} {dname} quarterly review", "doc", head, d.home(head), text,
                                 when=d.times(1, 10))
        elif kind == "okrs":
            owner, personal = head, False
            year, q = facts.quarter
            nxt = f"Q1 {year + 1}" if q == 4 else f"Q{q + 1} {year}"
            file_id = d.add_file(f"{dname} OKRs {nxt}", "doc", head, d.home(head),
                                 gen_docs.okrs(dname, nxt, head, rng, d.topics(dept)))
        else:
            personal = False
            it_contact = d.person("it_admin", "IT")
            file_id = d.add_file(f"{dname} onboarding checklist", "doc", owner, d.home(owner),
                                 gen_docs.onboarding(dname, rng.choice(team), it_contact))
        if personal:
            d.share_personally(file_id, owner)
        else:
            d.place(file_id, owner)

    return run


def _sheets(d: _Drive, facts: _Facts) -> None:
    total, rng = d.ctx.spec.size.sheets, d.rng
    year, q = facts.quarter
    qlabel = f"Q{q} {year}"
    first, last = quarter_bounds(year, q)
    first = max(first, (d.start - timedelta(days=HISTORY_DAYS - 1)).date())
    last = min(last, (d.start - timedelta(days=1)).date())
    today = d.start.date()
    names = {p["id"]: p["name"] for p in d.ctx.people}
    accounts = {a["id"]: a["name"] for a in facts.accounts}
    jobs: list[Callable[[], None]] = []

    def budget() -> None:
        owner = d.person("cfo", "Finance")
        d.add_sheet(f"FY{year} Budget", owner, d.special.get("budgets") or d.home(owner),
                    gen_sheets.budget_tabs(facts.budgets, q))

    def headcount() -> None:
        owner = d.person("hr_lead", "People")
        rows = [(dept["name"], names.get(dept["head_id"] or "", ""), len(d.members.get(dept["id"], [])))
                for dept in d.ctx.departments]
        d.add_sheet("Headcount by department", owner, d.home(owner), [gen_sheets.headcount_tab(rows)])

    def pipeline() -> None:
        owner = d.person("head_of_sales", "Sales")
        d.add_sheet("Sales pipeline export", owner, d.home(owner),
                    [gen_sheets.pipeline_tab(facts.deals, accounts, names)])

    def travel() -> None:
        owner = d.person("travel_coordinator", "Operations")
        tab = gen_sheets.expense_tab(rng, d.ctx.people, first, last, facts.policy, rng.randint(25, 40), scale=d.scale,
                                     travel_only=True)
        d.add_sheet(f"{qlabel} travel expenses", owner, d.home(owner), [tab])

    jobs += [budget, headcount]
    if facts.deals:
        jobs.append(pipeline)
    jobs.append(travel)
    if facts.invoices:
        def invoices() -> None:
            owner = d.person("controller", "Finance")
            d.add_sheet("Invoice tracker", owner, d.home(owner), [gen_sheets.invoice_tab(facts.invoices, accounts)])
        jobs.append(invoices)

    def vendors() -> None:
        owner = d.person("ops_manager", "Operations")
        d.add_sheet("Vendor list", owner, d.home(owner), [gen_sheets.vendor_tab(rng, today, rng.randint(8, 12))])
    jobs.append(vendors)
    staffed = [dept for dept in d.ctx.departments if dept["id"] in d.dept_folder]
    while len(jobs) < total:
        dept = rng.choice(staffed) if staffed else None
        jobs.append(_sheet_job(d, dept, rng.random() < 0.5, qlabel, first, last, facts))
    for job in jobs[:total]:
        job()


def _sheet_job(d: _Drive, dept: dict[str, Any] | None, expenses: bool, qlabel: str, first: date, last: date,
               facts: _Facts) -> Callable[[], None]:
    rng = d.rng

    def run() -> None:
        team = (d.members.get(dept["id"], []) if dept else []) or d.ctx.people
        dname = dept["name"] if dept else d.department_name(d.ceo)
        owner = rng.choice(team)
        if expenses:
            tab = gen_sheets.expense_tab(rng, team, first, last, facts.policy, rng.randint(12, 30), travel_only=False,
                                         scale=d.scale)
            file_id = d.add_sheet(f"{dname} expenses {qlabel}", owner, d.home(owner), [tab])
        else:
            codename = facts.codenames.pop() if facts.codenames else f"Initiative {len(d.files)}"
            tab = gen_sheets.tracker_tab(rng, gen_docs.topics_for(dname), team, d.start.date(), rng.randint(8, 15))
            file_id = d.add_sheet(f"Project {codename} tracker", owner, d.home(owner), [tab])
        d.place(file_id, owner)

    return run


def generate(ctx: GenContext) -> None:
    """Folders, sharing, ``size.docs`` documents and ``size.sheets`` spreadsheets (see module doc)."""
    if not ctx.people:
        return
    d = _Drive(ctx=ctx, rng=ctx.rng("drive"), start=ctx.spec.start)
    _folders(d)
    facts = _facts(d)
    _docs(d, facts)
    _sheets(d, facts)
    ctx.insert("drive_file", d.files)
    ctx.insert("drive_sheet", d.sheets)
    ctx.insert("drive_row", d.rows)
    ctx.insert("drive_permission", d.perms)
    for prefix, rows in (("f", d.files), ("sh", d.sheets), ("row", d.rows), ("perm", d.perms)):
        ctx.set_counter(prefix, len(rows))
