"""Text of generated Drive documents: policies, meeting notes, briefs, account plans, reviews.

Every builder takes a seeded ``random.Random`` and the facts the document must agree with
(people, CRM deals, budget figures, policy limits), so a task can ask a question whose answer
is in a document and check it against the rest of the world.  No faker here: short hand-written
phrase pools read more like an office than lorem text, and cost nothing to fill.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from officesim.apps.money import money

TOPICS: dict[str, list[str]] = {
    "Finance": ["month-end close", "Q3 accruals", "the audit timeline", "vendor payment runs",
                "the FY budget refresh", "expense report backlog", "cash flow forecast"],
    "Sales": ["pipeline coverage", "the renewal forecast", "pricing approvals", "territory planning",
              "the enterprise deal desk", "quota attainment", "partner referrals"],
    "Operations": ["office move logistics", "the travel booking process", "vendor onboarding",
                   "the facilities budget", "supplier SLAs", "equipment procurement", "the offsite plan"],
    "Engineering": ["the release train", "on-call load", "the database migration", "API deprecations",
                    "test flakiness", "the platform roadmap", "incident follow-ups"],
    "Marketing": ["the product launch", "webinar series", "brand refresh", "lead scoring",
                  "the conference booth", "content calendar", "paid campaign results"],
    "People": ["open requisitions", "the onboarding program", "performance review cycle",
               "benefits renewal", "engagement survey results", "the referral bonus"],
    "Legal": ["contract templates", "the DPA backlog", "trademark renewals", "policy updates"],
    "Customer Success": ["renewal risks", "onboarding health", "QBR scheduling", "support escalations"],
    "Executive": ["board meeting prep", "the annual plan", "hiring priorities", "the all-hands agenda"],
    "IT": ["laptop refresh", "SSO rollout", "license true-up", "the helpdesk queue"],
}
GENERIC_TOPICS = ["quarterly priorities", "team capacity", "budget tracking", "process improvements",
                  "cross-team dependencies", "the roadmap review"]
NOTE_LINES = [
    "{p} reported that {t} is on track for {d}.",
    "{p} flagged a risk on {t}: two dependencies are still open.",
    "The team agreed to revisit {t} at the next sync.",
    "{p} shared an update on {t}; numbers are in the team folder.",
    "Decision: {t} moves forward with the reduced scope.",
    "{p} asked for more budget for {t}; to be raised with Finance.",
    "We are behind on {t} by about a week; {p} owns the recovery plan.",
    "{p} will draft a one-pager on {t} for leadership.",
]
ACTIONS = ["send the summary of {t} to the team", "update the tracker for {t}", "book a review of {t}",
           "collect numbers on {t}", "follow up with Finance on {t}", "write the proposal for {t}"]
CODENAMES = ["Atlas", "Beacon", "Cedar", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris",
             "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quartz",
             "Redwood", "Summit", "Tundra", "Umbra", "Vanguard", "Willow", "Zephyr", "Aurora",
             "Bluebird", "Cobalt", "Dune", "Evergreen", "Fjord"]
RISKS = ["a competing vendor is in late-stage talks", "budget approval slips to next quarter",
         "the executive sponsor is changing roles", "integration work depends on their IT team",
         "procurement requires a security review", "usage dropped in the last 60 days"]


@dataclass(frozen=True)
class TravelPolicy:
    """The numbers of the travel & expense policy; expense logs are generated against them."""

    hotel_cap: int  # per night
    meals_per_diem: int
    receipt_threshold: int  # receipts needed above this amount
    submit_within_days: int
    cfo_approval_over: int
    economy_under_hours: int
    mileage_rate: float

    @classmethod
    def draw(cls, rng: random.Random, scale: int = 1) -> TravelPolicy:
        """Limits in dollar-sized amounts times ``scale`` (80 in a rupee world)."""
        return cls(
            hotel_cap=rng.choice([200, 225, 250, 275]) * scale,
            meals_per_diem=rng.choice([60, 75, 85]) * scale,
            receipt_threshold=rng.choice([25, 50, 75]) * scale,
            submit_within_days=rng.choice([30, 45, 60]),
            cfo_approval_over=rng.choice([2500, 5000]) * scale,
            economy_under_hours=rng.choice([6, 8]),
            mileage_rate=0.70 * scale,
        )


def topics_for(department: str, pool: Sequence[str] | None = None) -> list[str]:
    """What a department's documents talk about: ``pool`` (the industry's topics) or the apps' own."""
    return list(pool) if pool else TOPICS.get(department, GENERIC_TOPICS)


def travel_policy(policy: TravelPolicy, company: str, currency: str, owner: dict[str, Any],
                  locale: str = "en_US") -> str:
    """The travel & expense policy: the limits expense tasks are checked against."""
    return f"""# {company} Travel & Expense Policy

Owner: {owner['name']} ({owner['email']}). Applies to all employees and contractors.

## 1. Booking travel
- Book flights through the company travel desk. Economy class for flights under
  {policy.economy_under_hours} hours; premium economy may be approved for longer flights.
- Hotels: up to {money(policy.hotel_cap, currency, locale=locale)} per night, before taxes. Higher rates need
  written approval from your manager before booking.
- Personal car use is reimbursed at {policy.mileage_rate:.2f} {currency} per mile.

## 2. Meals
- Meals while travelling are covered up to {money(policy.meals_per_diem, currency, locale=locale)} per day
  (per diem), including tips.
- Alcohol is not reimbursable except at approved client entertainment.

## 3. Receipts and submission
- Itemised receipts are required for every expense above {money(policy.receipt_threshold, currency, locale=locale)}.
- Submit expense reports within {policy.submit_within_days} days of the trip's end; late reports need
  the controller's sign-off.
- Reports above {money(policy.cfo_approval_over, currency, locale=locale)} need approval from the CFO in addition to
  your manager.

## 4. Non-reimbursable
Upgrades, minibar, personal entertainment, traffic fines, and loyalty-program fees.
"""


def simple_policy(title: str, owner: dict[str, Any], company: str, rng: random.Random) -> str:
    """A shorter company policy (remote work, PTO, security, procurement, conduct)."""
    facts = {
        "Remote Work Policy": [
            f"Employees may work remotely up to {rng.choice([2, 3])} days per week with manager approval.",
            f"Home-office equipment is reimbursed up to {rng.choice([300, 500, 750])} once every two years.",
            "Core collaboration hours are 10:00-15:00 in your home office's time zone.",
        ],
        "PTO Policy": [
            f"Full-time employees accrue {rng.choice([20, 22, 25])} days of paid time off per year.",
            f"Up to {rng.choice([5, 10])} unused days carry over into the next year.",
            "Request time off at least two weeks in advance for absences longer than three days.",
        ],
        "Information Security Policy": [
            "Multi-factor authentication is mandatory on every company account.",
            f"Laptops lock after {rng.choice([5, 10])} minutes of inactivity; disks are encrypted.",
            "Report suspected phishing to the IT team within one hour.",
        ],
        "Procurement Policy": [
            f"Purchases above {rng.choice([5000, 10000])} need three competing quotes.",
            "New vendors complete a security questionnaire before contract signature.",
            "Purchase orders are raised before the invoice arrives, never after.",
        ],
        "Code of Conduct": [
            "Treat colleagues, customers and partners with respect.",
            f"Gifts above {rng.choice([50, 100])} in value must be declared to Legal.",
            "Report concerns to your manager, People team, or the anonymous hotline.",
        ],
    }[title]
    body = "\n".join(f"{i}. {line}" for i, line in enumerate(facts, 1))
    return f"# {company} {title}\n\nOwner: {owner['name']} ({owner['email']}).\n\n## Rules\n{body}\n"


def meeting_notes(
    rng: random.Random, department: str, attendees: Sequence[dict[str, Any]], day: date,
    pool: Sequence[str] | None = None,
) -> str:
    """Notes of a team meeting with decisions and action items (owners and due dates)."""
    topics = rng.sample(topics_for(department, pool), k=min(3, len(topics_for(department, pool))))
    names = [a["name"] for a in attendees]
    lines = []
    for topic in topics:
        template = rng.choice(NOTE_LINES)
        due = day + timedelta(days=rng.randint(7, 30))
        lines.append("- " + template.format(p=rng.choice(names), t=topic, d=due.isoformat()))
    actions = []
    for topic in topics[:2]:
        due = day + timedelta(days=rng.randint(3, 14))
        action = rng.choice(ACTIONS).format(t=topic)
        actions.append(f"- [ ] {rng.choice(names)}: {action} (due {due.isoformat()})")
    agenda = "\n".join(f"{i}. {t[0].upper()}{t[1:]}" for i, t in enumerate(topics, 1))
    return (
        f"# {department} weekly sync - {day.isoformat()}\n\n"
        f"Attendees: {', '.join(names)}\n\n## Agenda\n{agenda}\n\n## Notes\n" + "\n".join(lines)
        + "\n\n## Action items\n" + "\n".join(actions) + "\n"
    )


def project_brief(
    rng: random.Random, codename: str, department: str, owner: dict[str, Any],
    stakeholders: Sequence[dict[str, Any]], start: date, currency: str,
    pool: Sequence[str] | None = None, locale: str = "en_US",
) -> str:
    """A project brief with objective, milestones, budget and stakeholders."""
    topic = rng.choice(topics_for(department, pool))
    budget = rng.randrange(15_000, 250_000, 5_000)
    milestones = []
    moment = start
    for step in ("Discovery complete", "Pilot live", "Rollout to all teams"):
        moment = moment + timedelta(days=rng.randint(14, 45))
        milestones.append(f"- {step}: {moment.isoformat()}")
    people = "\n".join(f"- {p['name']}, {p['title']}" for p in stakeholders)
    return (
        f"# Project {codename}: brief\n\nOwner: {owner['name']} ({department})\n\n"
        f"## Objective\nImprove {topic} so that the {department} team spends less time on manual work "
        f"and reports progress weekly.\n\n## Budget\n{money(budget, currency, locale=locale)} approved for this "
        "fiscal year.\n\n"
        f"## Milestones\n" + "\n".join(milestones) + f"\n\n## Stakeholders\n{people}\n"
    )


def account_plan(
    rng: random.Random, account: dict[str, Any], owner: dict[str, Any],
    contacts: Sequence[dict[str, Any]], deals: Sequence[dict[str, Any]], locale: str = "en_US",
) -> str:
    """An account plan naming the account's CRM contacts and deals (stages, amounts, close dates)."""
    contact_lines = "\n".join(f"- {c['name']}, {c['title']} ({c['email']})" for c in contacts) or "- (none yet)"
    open_deals = [d for d in deals if not d["stage"].startswith("closed")]
    won = [d for d in deals if d["stage"] == "closed_won"]
    deal_lines = "\n".join(
        f"- {d['name']}: {d['stage'].replace('_', ' ')}, {money(d['amount'], d['currency'], locale=locale)}, "
        f"expected close {d['close_date']}"
        for d in open_deals
    ) or "- No open opportunities."
    won_totals: dict[str, float] = {}
    for d in won:  # amounts in different currencies are never added up
        won_totals[d["currency"]] = won_totals.get(d["currency"], 0.0) + d["amount"]
    won_text = " + ".join(money(total, cur, locale=locale)
                          for cur, total in sorted(won_totals.items())) or "nothing yet"
    return (
        f"# Account plan: {account['name']}\n\nAccount owner: {owner['name']} ({owner['email']})\n"
        f"Tier: {account['tier']} | Industry: {account['industry']}\n\n## Key contacts\n{contact_lines}\n\n"
        f"## Open opportunities\n{deal_lines}\n\n## History\nClosed-won to date: {won_text} "
        f"across {len(won)} deal(s).\n\n## Risks\n- {rng.choice(RISKS)}\n- {rng.choice(RISKS)}\n"
    )


def quarterly_review(
    department: str, quarter: str, head: dict[str, Any], headcount: int,
    budget: float, actual: float, currency: str, rng: random.Random,
    pool: Sequence[str] | None = None, locale: str = "en_US",
) -> str:
    """A department's quarterly review; budget and actuals match the company budget sheet."""
    variance = actual - budget
    word = "over" if variance > 0 else "under"
    wins = rng.sample(topics_for(department, pool), k=min(2, len(topics_for(department, pool))))
    return (
        f"# {quarter} {department} quarterly review\n\nPrepared by {head['name']}.\n\n## Numbers\n"
        f"- Headcount: {headcount}\n- Budget for {quarter}: {money(budget, currency, locale=locale)}\n"
        f"- Actual spend: {money(actual, currency, locale=locale)} "
        f"({money(abs(variance), currency, locale=locale)} {word} budget)\n\n"
        f"## Highlights\n- Progress on {wins[0]}\n- Progress on {wins[-1]}\n\n"
        f"## Next quarter\nFocus on {rng.choice(topics_for(department, pool))} and hiring plans.\n"
    )


def okrs(department: str, quarter: str, owner: dict[str, Any], rng: random.Random,
         pool: Sequence[str] | None = None) -> str:
    """A department's objectives and key results for the coming quarter."""
    topics = rng.sample(topics_for(department, pool), k=min(3, len(topics_for(department, pool))))
    body = "\n".join(
        f"## Objective {i}: Improve {t}\n- KR: cut cycle time by {rng.choice([10, 20, 30])}%\n"
        f"- KR: report weekly status to {owner['name']}"
        for i, t in enumerate(topics, 1)
    )
    return f"# {department} OKRs {quarter}\n\nOwner: {owner['name']}\n\n{body}\n"


def onboarding(department: str, buddy: dict[str, Any], it_contact: dict[str, Any]) -> str:
    """A department's onboarding checklist for new hires."""
    return (
        f"# {department} onboarding checklist\n\n## Week 1\n- [ ] Laptop and accounts (ask {it_contact['name']}, "
        f"{it_contact['email']})\n- [ ] Meet your onboarding buddy: {buddy['name']}\n"
        f"- [ ] Read the Travel & Expense Policy and the Code of Conduct in the Company folder\n\n"
        f"## Week 2\n- [ ] Shadow two {department} meetings\n- [ ] Set 30/60/90-day goals with your manager\n"
    )
