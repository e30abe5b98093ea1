"""Generate the CRM: customer accounts, their contacts, a pipeline of deals, invoices and activities.

Runs right after the directory, so owners are real Sales people (``ctx.roles``) and later apps
(mail, chat, drive) can write about these accounts, contacts and deals.  The data is built to
support tasks, not just to fill tables: every stage is populated in proportion, won deals have
invoices (some paid, some open, at least one overdue when any is past due), and each account's
first contact works in finance (who to chase for payment).  Text comes from small hand-written
pools formatted with names and numbers: faker's sentences are gibberish and slow in loops.
"""

from __future__ import annotations

import math
import random
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from officesim.apps.crm.lookup import CLOSED_STAGES, OPEN_STAGES, STAGES
from officesim.clock import format_ts
from officesim.industries import currency_scale

if TYPE_CHECKING:
    from officesim.worldgen import GenContext

WINDOW_DAYS = 120  # generated activity lies within this many days before the clock start
INDUSTRIES = [
    "Retail", "Logistics", "Healthcare", "Financial Services", "Manufacturing", "Media", "Education",
    "Energy", "Telecommunications", "Hospitality", "Insurance", "Real Estate", "Software", "Biotech",
]
TIERS = {"strategic": 1.0, "enterprise": 2.5, "mid-market": 3.5, "smb": 3.0}  # tier -> weight
# tier -> (low, high) deal amounts; drawn log-uniformly and rounded to round-ish numbers.
TIER_AMOUNTS = {
    "strategic": (60_000, 500_000), "enterprise": (25_000, 300_000),
    "mid-market": (10_000, 120_000), "smb": (5_000, 40_000),
}
# (city, country, local currency, dialling code, weight): mostly home-market customers.
LOCATIONS = [
    ("New York", "United States", "USD", "+1", 4), ("Chicago", "United States", "USD", "+1", 3),
    ("San Francisco", "United States", "USD", "+1", 3), ("Austin", "United States", "USD", "+1", 2),
    ("Boston", "United States", "USD", "+1", 2), ("Seattle", "United States", "USD", "+1", 2),
    ("Atlanta", "United States", "USD", "+1", 2), ("Denver", "United States", "USD", "+1", 1),
    ("Toronto", "Canada", "CAD", "+1", 2), ("London", "United Kingdom", "GBP", "+44", 3),
    ("Manchester", "United Kingdom", "GBP", "+44", 1), ("Berlin", "Germany", "EUR", "+49", 2),
    ("Paris", "France", "EUR", "+33", 2), ("Amsterdam", "Netherlands", "EUR", "+31", 1),
    ("Dublin", "Ireland", "EUR", "+353", 1), ("Singapore", "Singapore", "SGD", "+65", 1),
    ("Sydney", "Australia", "AUD", "+61", 1),
]
# Deals are priced in the customer's currency only for these (half the time); else the home one.
LOCAL_PRICING = ("EUR", "GBP")
FINANCE_TITLES = ["Chief Financial Officer", "VP Finance", "Financial Controller", "Accounts Payable Manager"]
OTHER_TITLES = [
    "Chief Technology Officer", "Head of IT", "Director of Operations", "Head of Data", "Analytics Lead",
    "Chief Operating Officer", "Procurement Manager", "VP Engineering", "Head of Customer Experience",
    "Business Intelligence Manager", "IT Procurement Specialist", "Chief Information Officer",
]
PRODUCTS = [
    "Analytics Platform", "Platform renewal", "Seat expansion", "Data Connectors add-on", "Premium Support",
    "Professional Services", "Enterprise upgrade", "Pilot", "Forecasting module", "Training package",
]
STAGE_WEIGHTS = {"prospecting": 0.14, "qualification": 0.14, "proposal": 0.14, "negotiation": 0.13,
                 "closed_won": 0.27, "closed_lost": 0.18}
NEXT_STEPS = {
    "prospecting": ["Book a discovery call with {first}", "Identify the economic buyer", "Send intro deck"],
    "qualification": ["Confirm budget and timeline with {first}", "Schedule technical demo",
                      "Map stakeholders on the buying committee"],
    "proposal": ["Send proposal for the {product}", "Follow up on proposal with {first}",
                 "Answer security questionnaire"],
    "negotiation": ["Legal review of MSA redlines", "Final pricing approval from {first}",
                    "Send order form for signature"],
}
ACTIVITY_KINDS = {"call": 3, "meeting": 2, "email": 3, "note": 1, "task": 1}
SUBJECTS = {
    "call": ["Discovery call with {first}", "Pricing call with {first}", "Check-in call with {first}"],
    "meeting": ["Demo of the {product} for {account}", "On-site meeting at {account}",
                "Quarterly business review with {account}"],
    "email": ["Sent proposal for the {product}", "Follow-up email to {first}", "Shared reference customers"],
    "note": ["Internal note: {account} budget", "Champion update from {first}"],
    "task": ["Send revised quote to {first}", "Prepare contract redlines for {account}"],
}
BODIES = [
    "{first} confirmed budget for the {product}; procurement wants a signed DPA before moving forward.",
    "Walked {first} through pricing ({amount}). They asked for a multi-year discount.",
    "{first} is the champion; the CFO signs anything above {amount}.",
    "Competitor is also in the deal. {first} likes our reporting but worries about onboarding time.",
    "Agreed next step: {next_step}.",
    "Technical questions about SSO and data residency; sent the security whitepaper to {first}.",
    "{account} wants to start with a pilot before committing to the full {product}.",
    "Legal has the MSA; expect redlines within two weeks. {first} will chase internally.",
    "Timeline slipped a quarter: {first} says their reorganisation comes first.",
    "Good meeting. {first} asked for a proposal at {amount} with quarterly billing.",
]
PAYMENT_TERMS = (30, 30, 30, 45, 60)
INVOICE_FIRST_NUMBER = 1001  # leaves low numbers (INV-2026-0042) free for hand-written tasks


@dataclass
class _Timeline:
    start: datetime
    rng: random.Random

    def between(self, low: datetime, high: datetime) -> datetime:
        """A moment in [low, high] during office hours where possible (never outside the range)."""
        if high <= low:
            return low
        moment = low + timedelta(seconds=self.rng.randint(0, int((high - low).total_seconds())))
        office = moment.replace(hour=8 + moment.hour % 10)
        return office if low <= office <= high else moment

    def days_before(self, low: float, high: float) -> datetime:
        return self.between(self.start - timedelta(days=high), self.start - timedelta(days=low))


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "customer"


def _round_amount(value: float, scale: int = 1) -> float:
    """A round-ish amount within the tiers' range; ``scale`` sizes it for the currency (80 for INR)."""
    unit = value / scale
    step = (500 if unit < 20_000 else 1_000 if unit < 100_000 else 5_000) * scale
    return float(max(5_000 * scale, min(500_000 * scale, round(value / step) * step)))


def _allocate(total: int, weights: dict[str, float], rng: random.Random) -> list[str]:
    """``total`` labels in proportion to ``weights`` (largest remainder), shuffled."""
    scale = total / sum(weights.values())
    counts = {k: math.floor(v * scale) for k, v in weights.items()}
    rest = sorted(weights, key=lambda k: (-(weights[k] * scale - counts[k]), k))
    for key in rest[: total - sum(counts.values())]:
        counts[key] += 1
    labels = [k for k, n in counts.items() for _ in range(n)]
    rng.shuffle(labels)
    return labels


@dataclass
class _SalesTeam:
    """Who owns accounts and deals: mostly the sales reps and head of sales, then other Sales staff."""

    leads: list[str]  # role holders (sales_rep_*, head_of_sales)
    lead_weights: list[float]
    others: list[str]  # the rest of the Sales department (or everyone, without a Sales team)

    LEAD_SHARE = 0.7

    @classmethod
    def of(cls, ctx: GenContext) -> _SalesTeam:
        roles = (("sales_rep_1", 2.0), ("sales_rep_2", 2.0), ("sales_rep_3", 2.0), ("head_of_sales", 1.0))
        leads = [(ctx.roles[r], wt) for r, wt in roles if r in ctx.roles]
        sales = {d["id"] for d in ctx.departments if ctx.department_kind(d) == "Sales"}
        lead_ids = {pid for pid, _ in leads}
        others = [p["id"] for p in ctx.people if p["department_id"] in sales and p["id"] not in lead_ids]
        if not leads and not others:  # a directory without Sales: anyone may own customers
            others = [p["id"] for p in ctx.people]
        return cls([pid for pid, _ in leads], [wt for _, wt in leads], others)

    def pick(self, rng: random.Random) -> str:
        if self.leads and (not self.others or rng.random() < self.LEAD_SHARE):
            return rng.choices(self.leads, weights=self.lead_weights)[0]
        return rng.choice(self.others)


def generate(ctx: GenContext) -> None:
    """Accounts, contacts, deals, invoices and activities sized by ``ctx.spec.size``."""
    if not ctx.people:
        return  # nothing can own customers without a directory
    start = ctx.spec.start
    team = _SalesTeam.of(ctx)
    accounts, contacts = _accounts(ctx, start, team)
    deals = _deals(ctx, start, accounts, contacts, team)
    invoices = _invoices(ctx, start, deals)
    activities = _activities(ctx, start, accounts, deals, contacts, team)
    for table, rows, prefix in (("crm_account", accounts, "acc"), ("crm_contact", contacts, "con"),
                                ("crm_deal", deals, "deal"), ("crm_invoice", invoices, "inv"),
                                ("crm_activity", activities, "act")):
        clean = [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows]
        ctx.insert(table, clean)
        ctx.set_counter(prefix, len(rows))


def _accounts(
    ctx: GenContext, start: datetime, team: _SalesTeam
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    size = ctx.spec.size
    rng = ctx.rng("crm", "accounts")
    fake = ctx.faker("crm", "accounts")
    people_fake = ctx.faker("crm", "contacts")
    clock = _Timeline(start, rng)
    tiers = _allocate(size.accounts, TIERS, rng)
    cities = ctx.locale.customer_cities or LOCATIONS
    industries = ctx.industry.customer_industries or INDUSTRIES
    other_titles = list(ctx.industry.customer_titles or OTHER_TITLES)
    locations = rng.choices(cities, weights=[loc[4] for loc in cities], k=size.accounts)
    accounts: list[dict[str, Any]] = []
    contacts: list[dict[str, Any]] = []
    names: set[str] = set()
    domains: set[str] = set()
    for index in range(size.accounts):
        name = fake.company()
        while name in names:
            name = fake.company()
        names.add(name)
        domain = f"{_slug(name)}.test"
        while domain in domains:
            domain = f"{_slug(name)}-{rng.randint(2, 99)}.test"
        domains.add(domain)
        city, country, local_currency, dial, _ = locations[index]
        account = {
            "id": f"acc_{index + 1}", "name": name, "domain": domain, "industry": rng.choice(industries),
            "tier": tiers[index], "owner_id": team.pick(rng),
            "city": city, "country": country, "created_at": format_ts(clock.days_before(WINDOW_DAYS - 25, WINDOW_DAYS)),
            "_currency": local_currency,
        }
        accounts.append(account)
        titles = [rng.choice(FINANCE_TITLES), *rng.sample(other_titles, k=len(other_titles))]
        titles += rng.choices(FINANCE_TITLES + other_titles, k=max(0, size.contacts_per_account - len(titles)))
        taken: set[str] = set()
        for title in titles[: size.contacts_per_account]:
            person = people_fake.name()
            plain = unicodedata.normalize("NFKD", person.lower().replace("ß", "ss")).encode("ascii", "ignore").decode()
            parts = [p for p in re.sub(r"[^a-z ]", "", plain).split() if p]  # 'Zoé' -> 'zoe', as mail allows
            local = ".".join([parts[0], parts[-1]]) if len(parts) > 1 else (parts[0] if parts else "contact")
            address, n = f"{local}@{domain}", 2
            while address in taken:
                address, n = f"{local}{n}@{domain}", n + 1
            taken.add(address)
            contacts.append({
                "id": f"con_{len(contacts) + 1}", "account_id": account["id"], "name": person,
                "email": address, "title": title,
                "phone": f"{dial} 555 {rng.randint(100, 999)} {rng.randint(1000, 9999)}",
                "created_at": account["created_at"], "updated_at": account["created_at"],
                "updated_by": account["owner_id"],
            })
    return accounts, contacts


def _deals(
    ctx: GenContext,
    start: datetime,
    accounts: list[dict[str, Any]],
    contacts: list[dict[str, Any]],
    team: _SalesTeam,
) -> list[dict[str, Any]]:
    size = ctx.spec.size
    rng = ctx.rng("crm", "deals")
    clock = _Timeline(start, rng)
    stages = _allocate(size.deals, STAGE_WEIGHTS, rng)
    # Every account gets a deal first (when there are enough), then bigger tiers get more.
    order = rng.sample(accounts, k=len(accounts))[: size.deals]
    tier_pull = {"strategic": 4, "enterprise": 3, "mid-market": 2, "smb": 1}
    order += rng.choices(accounts, weights=[tier_pull[a["tier"]] for a in accounts], k=size.deals - len(order))
    first_contact: dict[str, dict[str, Any]] = {}
    for person in contacts:
        first_contact.setdefault(person["account_id"], person)
    home = ctx.spec.currency
    names: set[tuple[str, str]] = set()
    deals: list[dict[str, Any]] = []
    products = ctx.industry.products or PRODUCTS
    for index, (account, stage) in enumerate(zip(order, stages, strict=True)):
        product = rng.choice(products)
        name = f"{account['name']} - {product}"
        if (account["id"], name) in names:
            name = f"{name} ({start.year + 1})"
        while (account["id"], name) in names:
            name = f"{name} II"
        names.add((account["id"], name))
        low, high = TIER_AMOUNTS[account["tier"]]
        local = account["_currency"]
        currency = local if local != home and local in LOCAL_PRICING and rng.random() < 0.5 else home
        scale = currency_scale(currency)  # rupee deals run to lakhs and crores
        low, high = low * scale, high * scale
        acc_created = datetime.fromisoformat(account["created_at"].replace("Z", "+00:00"))
        if stage in CLOSED_STAGES:  # closed weeks ago, so many invoices are already due
            closed = clock.days_before(10, WINDOW_DAYS - 30)
            created = clock.between(max(acc_created, closed - timedelta(days=90)), closed - timedelta(days=5))
            close_date = closed.date()
            updated = closed
        else:
            created = clock.between(acc_created, start - timedelta(days=3))
            offset = rng.randint(-15, -1) if rng.random() < 0.1 else rng.randint(5, 120)
            close_date = (start + timedelta(days=offset)).date()
            updated = clock.between(created, start - timedelta(hours=1))
        position = STAGES.index(stage)
        previous = None
        if stage == "closed_lost":
            previous = rng.choice(OPEN_STAGES)
        elif position > 0:
            previous = STAGES[position - 1]
        contact = first_contact.get(account["id"])
        first = contact["name"].split()[0] if contact else "the customer"
        owner = account["owner_id"] if rng.random() < 0.85 else team.pick(rng)
        next_step = rng.choice(NEXT_STEPS[stage]) if stage in NEXT_STEPS else ""
        deals.append({
            "id": f"deal_{index + 1}", "account_id": account["id"], "name": name, "stage": stage,
            "amount": _round_amount(math.exp(rng.uniform(math.log(low), math.log(high))), scale),
            "currency": currency, "close_date": close_date.isoformat(), "owner_id": owner,
            "next_step": next_step.format(first=first, product=product),
            "created_at": format_ts(created), "updated_at": format_ts(updated), "updated_by": owner,
            "previous_stage": previous,
            "stage_changed_at": format_ts(updated) if previous else None,
            "_product": product, "_created": created, "_updated": updated,
        })
    return deals


def _invoices(ctx: GenContext, start: datetime, deals: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Invoices for won deals, numbered in issue order; statuses allocated so collections work exists."""
    rng = ctx.rng("crm", "invoices")
    today = start.date()
    drafts: list[dict[str, Any]] = []
    for deal in (d for d in deals if d["stage"] == "closed_won"):
        closed = date.fromisoformat(deal["close_date"])
        issued = min(closed + timedelta(days=rng.randint(0, 3)), today - timedelta(days=1))
        parts = [(issued, deal["amount"])]
        second = issued + timedelta(days=30)
        if rng.random() < 0.3 and second < today:  # billed in two instalments
            half = round(deal["amount"] / 2, 2)
            parts = [(issued, half), (second, round(deal["amount"] - half, 2))]
        for day, value in parts:
            due = day + timedelta(days=rng.choice(PAYMENT_TERMS))
            drafts.append({"account_id": deal["account_id"], "deal_id": deal["id"], "amount": value,
                           "currency": deal["currency"], "issued_on": day.isoformat(),
                           "due_on": due.isoformat(), "status": "open", "paid_on": None})
    drafts.sort(key=lambda d: (d["issued_on"], d["deal_id"]))
    past = [d for d in drafts if d["due_on"] < today.isoformat()]
    upcoming = [d for d in drafts if d["due_on"] >= today.isoformat()]
    past_mix = _allocate(len(past), {"open": 0.4, "paid": 0.55, "void": 0.05}, rng)
    if past and "open" not in past_mix:  # any world with past-due invoices has one to chase
        past_mix[-1] = "open"
    upcoming_mix = _allocate(len(upcoming), {"open": 0.8, "paid": 0.2}, rng)
    for group, mix in ((past, past_mix), (upcoming, upcoming_mix)):
        for draft, status in zip(group, mix, strict=True):
            draft["status"] = status
            if status == "paid":
                issued, due = date.fromisoformat(draft["issued_on"]), date.fromisoformat(draft["due_on"])
                latest = min(due + timedelta(days=20), today - timedelta(days=1))
                draft["paid_on"] = (issued + timedelta(days=rng.randint(0, max(0, (latest - issued).days)))).isoformat()
    for index, draft in enumerate(drafts):
        number = f"INV-{draft['issued_on'][:4]}-{INVOICE_FIRST_NUMBER + index:04d}"
        draft.update(id=f"inv_{index + 1}", number=number)
    return [{k: d[k] for k in ("id", "number", "account_id", "deal_id", "amount", "currency", "issued_on",
                               "due_on", "status", "paid_on")} for d in drafts]


def _activities(
    ctx: GenContext,
    start: datetime,
    accounts: list[dict[str, Any]],
    deals: list[dict[str, Any]],
    contacts: list[dict[str, Any]],
    team: _SalesTeam,
) -> list[dict[str, Any]]:
    per_deal = ctx.spec.size.activities_per_deal
    rng = ctx.rng("crm", "activities")
    clock = _Timeline(start, rng)
    by_account: dict[str, list[dict[str, Any]]] = {}
    for known in contacts:
        by_account.setdefault(known["account_id"], []).append(known)
    kinds, kind_weights = list(ACTIVITY_KINDS), list(ACTIVITY_KINDS.values())
    account_names = {a["id"]: a["name"] for a in accounts}
    rows: list[dict[str, Any]] = []
    for deal in deals:
        people = by_account.get(deal["account_id"], [])
        for _ in range(per_deal):
            contact = rng.choice(people) if people else None
            kind = rng.choices(kinds, weights=kind_weights)[0]
            values = {
                "first": contact["name"].split()[0] if contact else "the customer",
                "product": deal["_product"], "account": account_names[deal["account_id"]],
                "amount": ctx.money(deal["amount"], deal["currency"]),
                "next_step": deal["next_step"] or "stay in touch",
            }
            person = deal["owner_id"] if rng.random() < 0.85 else team.pick(rng)
            rows.append({
                "kind": kind, "subject": rng.choice(SUBJECTS[kind]).format(**values),
                "body": rng.choice(BODIES).format(**values),
                "at": format_ts(clock.between(deal["_created"], deal["_updated"])),
                "person_id": person,
                "account_id": deal["account_id"], "contact_id": contact["id"] if contact else None,
                "deal_id": deal["id"],
            })
    rows.sort(key=lambda r: (r["at"], r["deal_id"]))
    for index, row in enumerate(rows):
        row["id"] = f"act_{index + 1}"
    return rows
