"""Hard review jobs: audit expense claims against the travel policy, find accounts where an overdue
invoice meets an imminent renewal."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any

from officesim.taskgen.audit_texts import expense_texts, renewal_texts, renewal_traps
from officesim.taskgen.base import Draft, Family, Solver, Stage, WorldLacks
from officesim.taskgen.common import (
    MAIL_TABLES,
    accounts,
    allowed_changes,
    colleague_mail,
    day,
    first_name,
    invoice_numbers,
    long_date,
    mail_guards,
    shared_sheet,
    stamp,
    toolset,
)
from officesim.taskgen.factsheet import FactSheet, facts_check, key_of, seen_gate
from officesim.taskgen.policy import POLICY_NAME, RECEIPT_LIMIT, set_travel_policy

CITIES = ["New York", "London", "Chicago", "Toronto", "Austin", "Berlin", "Singapore"]
# the words that say which of an account's two figures is which ("overdue $5,250, renewal $154,000")
OVERDUE_LABEL = r"\b(?:overdue|owes?|owing|outstanding|past[\s-]due|unpaid|open invoices?)\b"
RENEWAL_LABEL = r"\b(?:renewal|renews?|renewing)\b"
# the policy's three rules, as an exception mail names them
RULES = [("hotel", "hotel cap", ["hotel", "nightly cap", "per night", "room rate", "accommodation"]),
         ("meals", "meal allowance", ["meal", "meals", "per diem", "daily allowance", "food"]),
         ("receipt", "receipt rule", ["receipt", "receipts", "itemised", "itemized", "undocumented"])]
# what marks a compliant claim as left out of the exceptions ("EC-1234 is within the cap");
# the usual markers would let "EC-1234: not compliant" present a compliant claim as an exception
COMPLIANT = (r"(?<!non-)(?<!non)(?<!not\s)\bcompliant\b|\bwithin (?:the )?(?:policy|caps?|allowances?|limits?)\b|"
             r"\bunder the (?:caps?|allowances?|limits?)\b|"
             r"\bnot (?:included|(?:an? )?exceptions?|(?:an? )?violations?|flagged|listed)\b|\bdo(?:es)? not qualify\b|"
             r"\b(?:is|are)n['’]t (?:an? )?(?:exceptions?|violations?)\b|"
             r"\bexcluded\b|\bleft out\b|\bno (?:issues?|problems?)\b|\b(?:is|are) fine\b|\bin policy\b|"
             r"\bnear[\s-]?miss")


# An exception told as none ("EC-3532, EC-3545 and EC-6732 are NOT exceptions", "none of EC-1, EC-2 are
# exceptions", "EC-1 and EC-2: not exceptions", "EC-1, EC-2 (no issues)", a "Not exceptions:" heading over
# them): the mail names the claim, which the names check reads as flagging it, yet it tells the CFO the claim
# is fine.  So the exceptions themselves must not be cleared: what clears, read after a claim (over a run of
# claims joined by commas and "and", their asides in brackets) or before one ("none of", "neither").
_CLEARS = (r"(?:not\s+(?:an?\s+|any\s+)?(?:exceptions?|violations?|problems?|issues?|(?:policy\s+)?breach(?:es)?|"
           r"flagged|over(?:\s+(?:the|any)\s+(?:caps?|limits?))?|a\s+problem|an\s+issue|in\s+breach)\b|"
           r"(?:is|are|was|were|does|do)n['’]t\s+(?:an?\s+|any\s+)?(?:exceptions?|violations?|problems?|issues?|"
           r"flagged|over|break\w*|breach\w*)\b|"
           r"(?:fine|ok(?:ay)?|clean|good|compliant|cleared|clear|in\s+(?:policy|order|line)|within\s+(?:the\s+)?"
           r"(?:policy|caps?|limits?|allowances?|rules?)|no\s+(?:exceptions?|issues?|problems?|violations?|concerns?|"
           r"action(?:\s+needed)?)|nothing\s+(?:wrong|to\s+flag)|all\s+good|pass(?:es|ed)?)\b)")
_CLAIM_ID = r"(?:[A-Z]{2,4}[-\s]?\d{2,6})"
_ASIDE = r"(?:\s*\([^()\n]{0,60}\))?"
_JOIN = r"\s*(?:,|&|/|\+|\band\b|\bor\b|\bnor\b)\s*"
_COPULA = (r"(?:\s*[:—–-]\s*|\s*\(\s*|\s+(?:(?:is|are|was|were|looks?|seems?|remains?|appears?)\s+"
           r"(?:(?:both|all|also|actually|therefore|then|still|really|clearly|just|each|perfectly|totally)\s+){0,2})?)")
_CLEARS_BEFORE = (r"\b(?:none\s+of|neither|no\s+(?:exceptions?|issues?|problems?|concerns?)\s+(?:with|for|on|in)|"
                  r"nothing\s+wrong\s+with|not\s+(?:an?\s+)?exceptions?\s*[:—–-]|compliant\s*[:—–-]|"
                  r"cleared\s*[:—–-]?|no\s+issues?\s*[:—–-]|(?:is|are)\s+fine\s*[:—–-])\s*(?:the\s+)?(?:claims?\s+)?")
# a heading that clears what is under it ("Not exceptions:", "Compliant claims", "No issues"), read over
# the segment's heading and text
_CLEARING_HEADING = (r"^\W*(?:not\s+(?:an?\s+)?(?:exceptions?|flagged|violations?|issues?)|no\s+(?:exceptions?|issues?|"
                     r"problems?|action(?:\s+needed)?)|compliant(?:\s+claims?)?|cleared|within\s+(?:the\s+)?"
                     r"(?:policy|caps?|limits?)|in\s+policy)\b")


def not_clearing(claim_ids: list[str]) -> str:
    """``excluded_if`` of the exceptions: it matches (the exception stays out of the violations) unless the
    segment, with its heading, clears one of ``claim_ids`` (``_CLEARS``)."""
    bad = "(?:" + "|".join(re.escape(i).replace(r"\-", r"[-\s]?") for i in claim_ids) + ")"
    after = rf"(?<![\w-]){bad}(?![\w-]){_ASIDE}(?:{_JOIN}{_CLAIM_ID}{_ASIDE})*{_COPULA}{_CLEARS}"
    before = rf"{_CLEARS_BEFORE}(?:{_CLAIM_ID}{_ASIDE}{_JOIN})*{bad}(?![\w-])(?!['’]s)"
    # "EC-1: no receipt, but OK to pay", "EC-1 can be reimbursed as is": the exception waved through
    paid = (rf"(?<![\w-]){bad}(?![\w-])(?:(?!\b(?:until|unless|once|if|before|after|when)\b)[^.;\n]){{0,80}}?"
            r"(?<!\bnot\s)(?<!\bnever\s)(?<!n['’]t\s)\b(?:ok(?:ay)?\s+to\s+(?:pay|approve|reimburse)|fine\s+to\s+(?:pay|"
            r"approve|reimburse)|(?:can|should|may)\s+(?:be\s+)?(?:paid|approved|reimbursed)|good\s+to\s+(?:pay|go))\b")
    return rf"(?i)^(?![\s\S]*(?:{after}|{before}|{paid}))(?!{_CLEARING_HEADING}[\s\S]*(?<![\w-]){bad}(?![\w-]))"


# the structures of an audit: which way a claim can fail besides the policy's three caps
EXPENSE_STRUCTURES = ("policy-caps", "duplicate-claims", "own-report-approval", "mail-exception", "leaver-claims")
# an exception that is no policy cap: the words that name it ("EC-1234 duplicates EC-1187")
EXTRA_RULES = [
    ("duplicate", "duplicate claim", ["duplicate", "duplicated", "claimed twice", "double claim", "double-claimed",
                                      "already claimed", "same expense", "resubmitted", "repeat", "copy"]),
    ("approval", "approval rule", ["own report", "direct report", "reports to", "self-approved",
                                   "approved by their report", "approver", "approval", "conflict of interest"]),
    ("leaver", "claimed after leaving", ["left", "leaver", "last day", "after leaving", "departed", "no longer with",
                                         "after they left", "after her last day", "after his last day"]),
]
# what leaves a claim out because someone signed its overrun off by mail ("EC-1234 was approved by Dana")
WAIVED = (COMPLIANT + r"|\b(?:pre-?)?approved\b|\bwaived\b|\bsigned off\b|\bexception (?:was |has been )?granted\b|"
          r"\bgranted an exception\b|\bcleared\b|\bok(?:ay)?ed\b")


def _claim(rng: random.Random, kind: str, claim_id: str, employee: str, when: str, hotel: dict[str, int],
           meals: dict[str, int]) -> dict[str, Any]:
    """One claim row of ``kind``: hotel_over, meals_over, no_receipt or ok (within every rule)."""
    city = rng.choice(CITIES)
    # a missing receipt only breaks the policy above the receipt limit: hotels and flights always are
    choices = ["Hotel", "Airfare"] if kind == "no_receipt" else ["Hotel", "Meals", "Airfare"]
    category = {"hotel_over": "Hotel", "meals_over": "Meals"}.get(kind, rng.choice(choices))
    units = rng.randint(1, 4) if category != "Airfare" else 1
    cap = {"Hotel": hotel[city] * units, "Meals": meals[city] * units}.get(category)
    over: float | None = None  # how far an over-the-limit claim is over (hotel and meals only)
    if cap is None:
        amount = round(rng.uniform(250, 900), 2)
    elif kind in ("hotel_over", "meals_over"):
        amount = float(cap + rng.randrange(15, 160, 5))
        over = round(amount - cap, 2)
    else:
        amount = float(cap - rng.randrange(0, 40, 5))
    return {"id": claim_id, "date": when, "employee": employee, "city": city, "category": category, "units": units,
            "amount": amount, "receipt": kind != "no_receipt", "kind": kind, "over": over, "rule": None}


def _cap_rule(kind: str) -> str:
    return {"hotel_over": "hotel", "meals_over": "meals", "no_receipt": "receipt"}[kind]


# A near miss named as left off the list ("..., so I left it off", "kept off the digest"): the
# exclusion words the facts reader knows (not, excluded, left out, ...) do not cover these.
LEFT_OFF = (r"\b(?:left|kept)\s+(?:it|them|\w+)\s+off\b|\b(?:left|kept)\s+off\b|"
            r"\boff\s+(?:the|this|my)\s+(?:list|digest)\b|\bdoes\s+not\s+make\s+the\s+list\b")


class ExpenseAudit(Family):
    """Check a month of expense claims against the travel policy and mail the exceptions, nothing else.

    Five structures: the policy's caps and receipt rule alone; a late-submissions sheet that repeats
    a claim of the month's sheet under a new ID; an approver column where one claim was approved by
    the claimant's own report; a mail that signs off one over-cap claim (so it is no exception); an
    HR notice of a leaver whose claims dated after the last day must not be paid.
    """

    name = "expense_audit"
    skills = ("policy_application", "aggregation", "exhaustive_search")
    category = "finance-compliance"
    difficulty = "medium"  # 5-9 reference calls: below the hard bar (>= 12 calls, unstated traps, paging)
    apps = ("drive", "mail")
    variants = EXPENSE_STRUCTURES
    worlds = ("acme", "counsel", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        department = stage.department(("Sales", "Marketing", "Engineering")[(index // len(self.variants)) % 3])
        stage.act_as(rng.choice(["role:controller", "role:ap_specialist"]))
        recipient_role = rng.choice(["role:cfo", "role:controller"] if stage.acting_user != "role:controller"
                                    else ["role:cfo"])
        recipient = stage.person(recipient_role)
        boss = first_name(recipient["name"])
        hotel = {c: rng.randrange(180, 400, 5) for c in CITIES}
        meals = {c: rng.randrange(55, 100, 5) for c in CITIES}
        stage.clock(stamp(day(-40), 10, 0))
        set_travel_policy(stage, hotel, meals, 0.67)
        people = stage.rows("SELECT p.* FROM directory_person p JOIN directory_department d ON "
                            "d.id = p.department_id WHERE d.name = ? AND p.manager_id IS NOT NULL ORDER BY p.id",
                            department)
        heads = [p for p in people if stage.rows("SELECT id FROM directory_person WHERE manager_id = ?", p["id"])]
        staff_only = [p for p in people if p not in heads] or people
        ids = iter(f"EC-{n}" for n in rng.sample(range(1000, 9999), 20))
        breaks = {"policy-caps": 4, "duplicate-claims": 2, "own-report-approval": 2, "mail-exception": 3,
                  "leaver-claims": 2}[variant]
        kinds = ["hotel_over", "meals_over", "no_receipt", rng.choice(["hotel_over", "meals_over", "no_receipt"])]
        kinds = rng.sample(kinds[:3], min(breaks, 3)) + kinds[3:breaks]
        kinds += ["ok"] * (12 - len(kinds))
        rng.shuffle(kinds)
        claims = [_claim(rng, kind, next(ids), rng.choice(staff_only)["name"], day(-rng.randint(5, 34)).isoformat(),
                         hotel, meals) for kind in kinds]
        for c in claims:
            c["rule"] = None if c["kind"] == "ok" else _cap_rule(c["kind"])
        sheet = f"{department} expense claims - September 2026"
        columns = ["Claim ID", "Date", "Employee", "City", "Category", "Nights/Days", "Amount", "Receipt attached"]
        types = ["text", "date", "text", "text", "text", "number", "number", "bool"]
        traps: list[str] = []
        cleared: list[dict[str, Any]] = []  # compliant on a closer reading, and the grader checks they stay out
        notes: list[str] = []  # mail the structure plants: filing it away is fine
        senders: list[str] = []  # who wrote it: copying them in is fine
        late_sheet: str | None = None
        late_rows: list[dict[str, Any]] = []
        approvers: dict[str, str] = {}
        leaver: dict[str, Any] | None = None
        if variant == "duplicate-claims":
            original = rng.choice([c for c in claims if c["kind"] == "ok" and c["category"] != "Airfare"])
            copy = {**original, "id": next(ids), "kind": "duplicate", "rule": "duplicate", "of": original["id"]}
            late_rows = [copy, *(_claim(rng, "ok", next(ids), rng.choice(staff_only)["name"],
                                        day(-rng.randint(3, 20)).isoformat(), hotel, meals) for _ in range(2))]
            late_rows.sort(key=lambda c: c["id"])
            late_sheet = f"{department} expense claims - September 2026 (late submissions)"
            traps.append(f"{copy['id']} in the late-submissions sheet repeats {original['id']} from the month's sheet")
        elif variant == "own-report-approval":
            if not heads:
                raise WorldLacks(f"{self.name}: {department} has nobody with a direct report")
            head = heads[0]
            report = stage.rows("SELECT * FROM directory_person WHERE manager_id = ? ORDER BY id", head["id"])
            victim = rng.choice([c for c in claims if c["kind"] == "ok"])
            victim.update(employee=head["name"], kind="approval", rule="approval")
            for c in claims:
                who = next(p for p in people if p["name"] == c["employee"])
                approvers[c["id"]] = (rng.choice(report)["name"] if c is victim
                                      else stage.person(who["manager_id"])["name"])
            columns.append("Approved by")
            types.append("text")
            traps.append(f"{victim['id']} was approved by {approvers[victim['id']]}, who reports to the claimant")
        elif variant == "mail-exception":
            waived = _claim(rng, rng.choice(["hotel_over", "meals_over"]), next(ids),
                            rng.choice(staff_only)["name"], day(-rng.randint(8, 30)).isoformat(), hotel, meals)
            claims.append(waived)
            cleared.append(waived)
            stage.clock(stamp(day(-4), 16, 20))
            sent = colleague_mail(
                stage, "role:cfo", ["user"],
                f"Expense exception: {waived['id']}",
                f"Hi,\n\n{waived['employee']}'s {waived['category'].lower()} claim {waived['id']} ({waived['city']}) "
                f"is over the {'nightly cap' if waived['category'] == 'Hotel' else 'meal allowance'}: "
                "I approved it in advance (the client moved the meeting and only the conference rate was left), so "
                "please treat it as within policy for this month's audit.\n\nThanks\n")
            notes.append(str(sent["id"]))
            senders.append("role:cfo")
            traps.append(f"{waived['id']} is over its cap but the CFO's mail approved it in advance: no exception")
        elif variant == "leaver-claims":
            leaver = rng.choice(staff_only)
            last = day(-rng.randint(14, 20))
            when = [(last + timedelta(days=d)).isoformat() for d in (-rng.randint(2, 6), rng.randint(2, 8))]
            before = _claim(rng, "ok", next(ids), leaver["name"], when[0], hotel, meals)
            after = _claim(rng, "ok", next(ids), leaver["name"], when[1], hotel, meals)
            after.update(kind="leaver", rule="leaver")
            claims += [before, after]
            cleared.append(before)
            stage.clock(stamp(last, 17, 30))
            sent = colleague_mail(stage, "role:hr_lead", ["user"], f"Leaver: {leaver['name']}",
                                  f"Hi,\n\nFor finance's records: {leaver['name']} left the company; their last day "
                                  f"was {long_date(last)}. Their corporate card is cancelled and nothing they spend "
                                  "after their last day is reimbursable.\n\nHR\n")
            notes.append(str(sent["id"]))
            senders.append("role:hr_lead")
            traps.append(f"{before['id']} by the leaver is dated before the last day and is fine; {after['id']} is not")
        claims.sort(key=lambda c: (c["date"], c["id"]))

        def row_of(c: dict[str, Any]) -> list[Any]:
            row = [c["id"], c["date"], c["employee"], c["city"], c["category"], c["units"], c["amount"], c["receipt"]]
            return row + ([approvers[c["id"]]] if approvers else [])

        stage.clock(stamp(day(-2), 11, 0))
        file_id = shared_sheet(stage, "role:travel_coordinator", sheet, columns, types, [row_of(c) for c in claims])
        late_id = (shared_sheet(stage, "role:travel_coordinator", late_sheet, columns, types,
                                [row_of(c) for c in late_rows]) if late_sheet else None)
        stage.clock(stamp(day(0), 9, 0))
        everything = claims + late_rows
        bad = [c for c in everything if c["rule"] is not None]
        good = [c for c in everything if c["rule"] is None]
        near = [c for c in good if c["category"] in ("Hotel", "Meals") and c not in cleared]
        if near:  # a claim a few dollars under its cap, the usual false positive
            traps.append(f"{max(near, key=lambda c: c['amount'])['id']} is close to its cap but within it")
        if any(c["units"] > 1 and c["rule"] in ("hotel", "meals") for c in bad):
            traps.append("a multi-night or multi-day claim's cap is the nightly or daily cap times the nights/days")
        instruction = rng.choice(expense_texts(variant, sheet, boss, stage.money(RECEIPT_LIMIT, cents=False)))

        def solve(s: Solver) -> None:
            s.call("drive_search_files", query=POLICY_NAME)
            policy = s.call("drive_search_files", query=POLICY_NAME)["files"][0]
            s.call("drive_get_doc", file_id=policy["id"])
            s.call("drive_search_files", query=f"{department} expense claims")
            s.call("drive_read_sheet", file_id=file_id)
            if late_id:
                s.call("drive_read_sheet", file_id=late_id)
            if approvers:
                s.call("directory_search_people", query=next(c["employee"] for c in bad if c["rule"] == "approval"))
            if notes:
                s.call("mail_search_messages", query="leaver" if leaver else "exception")
                for note in notes:
                    s.call("mail_get_message", message_id=note)
            lines = []
            for c in bad:
                if c["rule"] == "receipt":
                    why = f"no receipt for {stage.money(c['amount'])}"
                elif c["rule"] in ("hotel", "meals"):
                    why = f"{c['category'].lower()} cap exceeded by {stage.money(c['over'])}"
                elif c["rule"] == "duplicate":
                    why = f"duplicate claim: the same expense as {c['of']} in the month's sheet"
                elif c["rule"] == "approval":
                    why = f"approval rule: approved by {approvers[c['id']]}, the claimant's own direct report"
                else:
                    why = "claimed after leaving: dated after their last day"
                lines.append(f"- {c['id']} ({c['employee']}): {why}")
            s.call("mail_send_message", to=[recipient["email"]], subject=f"Policy exceptions: {sheet}",
                   body=f"Hi {boss},\n\n{len(bad)} claims break the policy:\n" + "\n".join(lines) + "\n\nBest")

        sources = [f"doc:{POLICY_NAME}", f"sheet:{sheet}", *([f"sheet:{late_sheet}"] if late_sheet else [])]
        facts = FactSheet(sources=sources)
        rules = {kind: facts.entity(name, key=f"rule_{kind}", aliases=aliases, kind="rule")
                 for kind, name, aliases in [*RULES, *EXTRA_RULES]}
        bad_keys, over_keys, rule_keys = [], [], []
        for c in everything:
            key = facts.entity(c["id"], key=key_of(c["id"]), kind="claim")
            per_unit = {"Hotel": hotel, "Meals": meals}.get(c["category"], {}).get(c["city"])
            if per_unit is not None:
                facts.figure(per_unit * c["units"])  # the claim's cap, a careful worker's supporting figure
            if c["rule"] is None:
                continue
            bad_keys.append(key)
            # "hotel or meal cap" is a hedge; a receipt may be mentioned beside any cap ("receipt attached")
            other_cap = {"hotel": ["meals"], "meals": ["hotel"]}.get(c["rule"], [])
            rule_keys.append(facts.fact(key, "rule", rules[c["rule"]], wrong=[rules[r] for r in other_cap]))
            if c["over"] is not None and per_unit is not None:
                # the overrun against one night's or one day's cap, whatever the claim's length
                over_keys.append(facts.fact(key, "over", c["over"], wrong=[round(c["amount"] - per_unit, 2)]))
        for c in cleared:
            if c["over"] is not None:
                facts.figure(c["amount"], c["over"])
        # "EC-2 repeats EC-1" names the original beside its copy: the original is neither required nor excluded
        originals = {c.get("of") for c in bad}
        good_keys = [key_of(c["id"]) for c in good if c["id"] not in originals]
        to = [recipient_role]
        return Draft(
            instruction=instruction,
            tools=toolset(["drive", "mail"], writes=["mail_send_message"], distractors=["mail", "drive"]),
            gates=[
                facts_check("exceptions_sent", None, "sent_mail", to=to, name=bad_keys, require=over_keys,
                            exclude=good_keys, excluded_if=WAIVED if variant == "mail-exception" else COMPLIANT,
                            description="The mail names every exception, each cap exception with how much it is "
                                        "over (stated with its claim); no compliant claim is presented as an "
                                        "exception, no figure is tied to the wrong claim or made up."),
                seen_gate(),  # the claims were read in this episode, not remembered from another of the task's
                facts_check("not_cleared", None, "sent_mail", to=to, exclude=bad_keys,
                            excluded_if=not_clearing([c["id"] for c in bad]), traceable=False,
                            description="No exception is told as fine ('EC-1 and EC-2 are not exceptions', "
                                        "'none of EC-1, EC-2', a 'Not exceptions:' heading over them)."),
                allowed_changes(*MAIL_TABLES),
            ],
            criteria=[
                facts_check("rules_named", 2, "sent_mail", to=to, require=rule_keys, headings=True,
                            description="Each exception names the rule it breaks (a cap, the receipt rule, or why "
                                        "else it cannot be paid), stated with its claim."),
                *mail_guards([*to, *senders], keep=notes),
            ],
            solve=solve, variant=variant, max_steps=25, facts=facts, traps=traps,
        )


RENEWAL_STRUCTURES = ("next-n-days", "churned-account", "signed-in-mail", "one-region", "hard-book")
# the roles of the planted accounts, per structure: q qualifies, late renews after the window, paid has paid
# its invoice, notdue owes an invoice not yet due, churned lost its renewal, signed signed it by mail, away
# qualifies but lies outside the region asked for, quiet has a renewal and no invoice at all
RENEWAL_ROLES = {
    "next-n-days": ["q", "q", "q", "late", "paid", "notdue"],
    "churned-account": ["q", "q", "q", "churned", "notdue", "paid"],
    "signed-in-mail": ["q", "q", "q", "signed", "notdue", "late"],
    "one-region": ["q", "q", "q", "away", "late", "paid"],
    "hard-book": ["q", "q", "q", "signed", "churned", "notdue", "notdue", "paid", "late"],
}


class RenewalRiskDigest(Family):
    """List the accounts where an overdue invoice meets an open renewal closing soon, with the amounts.

    Five structures: renewals in the next N days (near misses: a renewal just after the window, a
    paid invoice, one not yet due); an account that churned (its renewal lost) with an overdue
    invoice; a renewal its owner says by mail was signed (the CRM still shows it open); a digest for
    one region's manager with a qualifying account elsewhere; and a hard book without the invoice
    search, over more than a page of renewals, where the signed, churned and not-yet-due traps go
    unsaid.
    """

    name = "renewal_risk_digest"
    skills = ("cross_app_join", "aggregation", "communication")
    category = "account-management"
    difficulty = "medium"  # 3-6 reference calls; the hard-book tier is hard (>= 12 calls, paging, no filters)
    apps = ("crm", "mail")
    variants = RENEWAL_STRUCTURES
    worlds = ("acme", "carewell", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        hard = variant == "hard-book"
        if variant == "churned-account":
            horizon = (day(0).replace(month=12, day=31) - day(0)).days
            window = "by the end of this quarter (December 31)"
        else:
            horizon = 60 if hard else rng.choice([45, 60, 90])
            window = f"in the next {horizon} days"
        stage.act_as(rng.choice(["role:cs_lead", "role:controller"]))
        recipient_role = rng.choice(["role:cfo", "role:head_of_sales", "role:ceo"])
        recipient = stage.person(recipient_role)
        stage.clock(stamp(day(-1), 17, 0))
        fresh = accounts(stage, "id NOT IN (SELECT account_id FROM crm_invoice) AND id NOT IN (SELECT account_id "
                                "FROM crm_deal WHERE name LIKE '%renewal%')")
        roles = list(RENEWAL_ROLES[variant])
        region: str | None = None
        if variant == "one-region":
            region = str(stage.one("SELECT country FROM crm_account GROUP BY country ORDER BY count(*) DESC, "
                                   "country LIMIT 1")["country"])
            home = [a for a in fresh if a["country"] == region]
            abroad = [a for a in fresh if a["country"] != region]
            if len(home) < 5 or not abroad:
                raise WorldLacks(f"{self.name}: too few accounts without invoices in {region} and elsewhere")
            picked = rng.sample(home, 5)
            planted = [*picked[:3], rng.choice(abroad), *picked[3:]]
        else:
            if hard:  # enough open renewals that one page of deals does not hold them all
                existing = len(stage.rows("SELECT id FROM crm_deal WHERE name LIKE '%renewal%' AND stage NOT IN "
                                          "('closed_won', 'closed_lost')"))
                roles += ["quiet"] * max(0, 22 - existing - len(roles))
            if len(fresh) < len(roles):
                raise WorldLacks(f"{self.name}: {len(fresh)} accounts without invoices, {len(roles)} needed")
            planted = rng.sample(fresh, len(roles))
        numbers = iter(invoice_numbers(rng, 2 * len(roles)))
        notes: list[str] = []
        senders: list[str] = []
        books = stage.world.meta("currency") or "USD"  # the books are kept in the world's own currency
        by_role: dict[str, list[dict[str, Any]]] = {}
        for account, role in zip(planted, roles, strict=True):
            by_role.setdefault(role, []).append(account)
            close = day(rng.randint(10, horizon - 5)) if role != "late" else day(horizon + rng.randint(10, 40))
            stage.insert("crm_deal", [{
                "account_id": account["id"], "name": f"{account['name']} - Renewal 2027",
                "stage": "closed_lost" if role == "churned" else rng.choice(["proposal", "negotiation"]),
                "amount": float(rng.randrange(20_000, 200_000, 1_000)), "currency": books,
                "close_date": close.isoformat(), "owner_id": account["owner_id"],
                "next_step": "Customer gave notice: not renewing" if role == "churned" else "Send renewal quote",
                "updated_by": account["owner_id"]}])
            if role == "quiet":
                continue
            status, due = "open", day(-rng.randint(5, 45))
            if role == "paid":
                status = "paid"
            elif role == "notdue":
                due = day(rng.randint(5, 25))
            stage.insert("crm_invoice", [{"number": next(numbers), "account_id": account["id"],
                                          "amount": float(rng.randrange(4_000, 60_000, 50)), "currency": books,
                                          "issued_on": day(-80).isoformat(), "due_on": due.isoformat(),
                                          "status": status, "paid_on": due.isoformat() if status == "paid" else None}])
        for account in by_role.get("signed", []):
            owner = stage.person(account["owner_id"])
            if owner["id"] == stage.world.user["id"]:
                raise WorldLacks(f"{self.name}: the acting user owns {account['name']}")
            stage.clock(stamp(day(-1), 16, 5))
            sent = colleague_mail(stage, owner["id"], ["user"], f"{account['name']} renewal signed",
                                  f"Hi,\n\nGood news: {account['name']} signed their renewal yesterday (the "
                                  "countersigned order form is in the deal folder). I'll move the deal to Closed Won "
                                  f"in the CRM this week.\n\n{first_name(owner['name'])}\n")
            notes.append(str(sent["id"]))
            senders.append(owner["email"])
        today, last = day(0).isoformat(), day(horizon).isoformat()
        qualifying = stage.rows(
            "SELECT a.id, a.name, a.country, (SELECT sum(amount) FROM crm_invoice i WHERE i.account_id = a.id AND "
            "i.status = 'open' AND i.due_on < ?) AS overdue FROM crm_account a WHERE EXISTS (SELECT 1 FROM "
            "crm_invoice i WHERE i.account_id = a.id AND i.status = 'open' AND i.due_on < ?) AND EXISTS (SELECT 1 "
            "FROM crm_deal d WHERE d.account_id = a.id AND d.name LIKE '%renewal%' AND d.stage NOT IN "
            "('closed_won', 'closed_lost') AND d.close_date BETWEEN ? AND ?) ORDER BY a.name", today, today, today,
            last)
        signed_ids = {a["id"] for a in by_role.get("signed", [])}
        qualifying = [r for r in qualifying if r["id"] not in signed_ids and (region is None or r["country"] == region)]
        for row in qualifying:
            row["renewals"] = stage.rows(
                "SELECT amount FROM crm_deal WHERE account_id = ? AND name LIKE '%renewal%' AND stage NOT IN "
                "('closed_won', 'closed_lost') AND close_date BETWEEN ? AND ?", row["id"], today, last)
        stage.clock(stamp(day(0), 9, 0))
        name = recipient["name"]
        instruction = rng.choice(renewal_texts(variant, name, first_name(name), window, region))
        traps = renewal_traps(by_role, region)

        sheet = FactSheet()
        keys: list[str] = []
        for row in qualifying:
            keys.append(sheet.entity(row["name"], key=f"account_{len(keys) + 1}", kind="account"))
            sheet.fact(keys[-1], "overdue", row["overdue"], label=OVERDUE_LABEL)
            for i, deal in enumerate(row["renewals"], start=1):
                sheet.fact(keys[-1], f"renewal_{i}", deal["amount"], label=RENEWAL_LABEL)
        miss_keys: list[str] = []
        for account in planted:
            if account["name"] in {r["name"] for r in qualifying} or account in by_role.get("quiet", []):
                continue
            miss_keys.append(sheet.entity(account["name"], key=f"near_miss_{len(miss_keys) + 1}", kind="account"))
            for row in stage.rows("SELECT amount FROM crm_invoice WHERE account_id = ?", account["id"]):
                sheet.figure(row["amount"])
            for row in stage.rows("SELECT amount FROM crm_deal WHERE account_id = ? AND name LIKE '%renewal%'",
                                  account["id"]):
                sheet.figure(row["amount"])
        # the rest of the book: a careful digest may name what it left out with its figures ("Excluded:
        # Hill-Herrera ($12k overdue, no renewal due)"), and the world's own accounts have overdue invoices and
        # renewals too; their amounts (each open invoice, an account's overdue total, each renewal) are the
        # data's, not made up
        for row in stage.rows("SELECT amount FROM crm_invoice WHERE status = 'open' AND currency = ? UNION SELECT "
                              "sum(amount) FROM crm_invoice WHERE status = 'open' AND due_on < ? AND currency = ? "
                              "GROUP BY account_id UNION SELECT amount FROM crm_deal WHERE name LIKE '%renewal%' AND "
                              "currency = ? ORDER BY 1", books, today, books, books):
            sheet.figure(row["amount"])

        overdue_keys = [f"{k}.overdue" for k in keys]
        renewal_keys = [f"{k}.renewal_{i}" for k, r in zip(keys, qualifying, strict=True)
                        for i in range(1, len(r["renewals"]) + 1)]

        def solve(s: Solver) -> None:
            if hard:  # no invoice search: every open renewal in the window, then each account's open invoices
                deals, cursor = [], None
                while True:
                    page = s.call("crm_search_deals", query="renewal", stage="open",
                                  **({"cursor": cursor} if cursor else {}))
                    deals += page["deals"]
                    cursor = page.get("next_cursor")
                    if not cursor:
                        break
                for account_id in dict.fromkeys(d["account_id"] for d in deals if today <= d["close_date"] <= last):
                    s.call("crm_get_account", account_id=account_id)
            else:
                s.call("crm_search_invoices", status="open", overdue_only=True, limit=100)
                s.call("crm_search_deals", query="renewal", stage="open", close_after=today, close_before=last,
                       limit=100)
            if notes or hard:
                s.call("mail_search_messages", query="renewal")
                for note in notes:
                    s.call("mail_get_message", message_id=note)
            lines = "\n".join(f"- {r['name']}: overdue {stage.money(r['overdue'])}, renewal "
                              f"{', '.join(stage.money(d['amount'], cents=False) for d in r['renewals'])}"
                              for r in qualifying)
            s.call("mail_send_message", to=[recipient["email"]], subject="Accounts at renewal risk",
                   body=f"Hi {first_name(recipient['name'])},\n\nAccounts with an overdue invoice and a renewal "
                        f"closing {window}:\n{lines}\n\nBest")

        tools = toolset(["crm", "mail"], writes=["mail_send_message"], distractors=["mail", "crm"])
        if hard:  # the invoice search and its overdue_only filter do the analysis: the hard tier reads accounts
            tools = [t for t in tools if t != "crm_search_invoices"]
        return Draft(
            instruction=instruction,
            tools=tools,
            gates=[
                facts_check("list_sent", None, "sent_mail", to=[recipient_role], trace_to="facts",
                            description="Every at-risk account is named with its overdue total and renewal value "
                                        "(one reading each); an account that does not qualify only as a near miss; "
                                        "no figure tied to the wrong account or made up.",
                            name=keys, exclude=miss_keys, require=[*overdue_keys, *renewal_keys],
                            excluded_also=LEFT_OFF),
                # the accounts were read in this episode: the renewals and the invoices the totals are made of
                seen_gate(figures=[*(d["amount"] for r in qualifying for d in r["renewals"]),
                                   *(i["amount"] for r in qualifying for i in stage.rows(
                                       "SELECT amount FROM crm_invoice WHERE account_id = ? AND status = 'open' "
                                       "AND due_on < ?", r["id"], today))]),
                allowed_changes(*MAIL_TABLES),
            ],
            criteria=[
                facts_check("overdue_amounts", 2, "sent_mail", to=[recipient_role], trace_to="facts",
                            description="Each account's overdue total, stated with it.",
                            require=overdue_keys),
                facts_check("renewal_values", 1, "sent_mail", to=[recipient_role], trace_to="facts",
                            description="Each account's renewal value, stated with it.",
                            require=renewal_keys),
                *mail_guards([recipient_role, *senders], keep=notes),
            ],
            solve=solve, variant=variant, max_steps=60 if hard else 25, facts=sheet, traps=traps,
            difficulty="hard" if hard else None,
        )
