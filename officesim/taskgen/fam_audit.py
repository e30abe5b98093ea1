"""Hard review jobs: audit expense claims against the travel policy, find accounts where an overdue
invoice meets an imminent renewal."""

from __future__ import annotations

import random
from typing import Any

from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import (
    MAIL_TABLES,
    accounts,
    allowed_changes,
    day,
    first_name,
    invoice_numbers,
    mail_guards,
    shared_sheet,
    stamp,
    toolset,
)
from officesim.taskgen.factsheet import FactSheet, facts_check, key_of
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
             r"\bnot (?:included|an exception|a violation|flagged|listed)\b|\bdo(?:es)? not qualify\b|"
             r"\bexcluded\b|\bleft out\b|\bno (?:issues?|problems?)\b|\b(?:is|are) fine\b|\bin policy\b|"
             r"\bnear[\s-]?miss")


class ExpenseAudit(Family):
    """Check a month of expense claims against the travel policy and mail the exceptions, nothing else."""

    name = "expense_audit"
    skills = ("policy_application", "aggregation", "exhaustive_search")
    category = "finance-compliance"
    difficulty = "medium"  # 3-7 reference calls: below the hard bar (>= 12 calls, unstated traps, paging)
    apps = ("drive", "mail")
    variants = ("sales-claims", "marketing-claims", "engineering-claims")
    worlds = ("acme", "counsel", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        department = stage.department({"sales-claims": "Sales", "marketing-claims": "Marketing",
                                       "engineering-claims": "Engineering"}[variant])
        stage.act_as(rng.choice(["role:controller", "role:ap_specialist"]))
        recipient_role = rng.choice(["role:cfo", "role:controller"] if stage.acting_user != "role:controller"
                                    else ["role:cfo"])
        recipient = stage.person(recipient_role)
        hotel = {c: rng.randrange(180, 400, 5) for c in CITIES}
        meals = {c: rng.randrange(55, 100, 5) for c in CITIES}
        stage.clock(stamp(day(-40), 10, 0))
        set_travel_policy(stage, hotel, meals, 0.67)
        people = stage.rows("SELECT p.name FROM directory_person p JOIN directory_department d ON "
                            "d.id = p.department_id WHERE d.name = ? ORDER BY p.id", department)
        ids = rng.sample(range(1000, 9999), 12)
        claims: list[dict[str, Any]] = []
        kinds = ["hotel_over", "meals_over", "no_receipt", rng.choice(["hotel_over", "meals_over", "no_receipt"])]
        kinds += ["ok"] * (12 - len(kinds))
        rng.shuffle(kinds)
        for n, kind in enumerate(kinds):
            city = rng.choice(CITIES)
            # a missing receipt only breaks the policy above the receipt limit: hotels and flights always are
            choices = ["Hotel", "Airfare"] if kind == "no_receipt" else ["Hotel", "Meals", "Airfare"]
            category = {"hotel_over": "Hotel", "meals_over": "Meals"}.get(kind, rng.choice(choices))
            units = rng.randint(1, 4)
            if category == "Hotel":
                cap = hotel[city] * units
            elif category == "Meals":
                cap = meals[city] * units
            else:
                cap = None
            over: float | None = None  # how far an over-the-limit claim is over (hotel and meals only)
            if cap is None:
                amount = round(rng.uniform(250, 900), 2)
            elif kind in ("hotel_over", "meals_over"):
                amount = float(cap + rng.randrange(15, 160, 5))
                over = round(amount - cap, 2)
            else:
                amount = float(cap - rng.randrange(0, 40, 5))
            receipt = kind != "no_receipt"
            claims.append({"id": f"EC-{ids[n]}", "date": day(-rng.randint(5, 34)).isoformat(),
                           "employee": rng.choice(people)["name"], "city": city, "category": category,
                           "units": units if category != "Airfare" else 1, "amount": amount, "receipt": receipt,
                           "kind": kind, "over": over})
        claims.sort(key=lambda c: (c["date"], c["id"]))
        sheet = f"{department} expense claims - September 2026"
        stage.clock(stamp(day(-2), 11, 0))
        file_id = shared_sheet(stage, "role:travel_coordinator", sheet,
                               ["Claim ID", "Date", "Employee", "City", "Category", "Nights/Days", "Amount",
                                "Receipt attached"],
                               ["text", "date", "text", "text", "text", "number", "number", "bool"],
                               [[c["id"], c["date"], c["employee"], c["city"], c["category"], c["units"], c["amount"],
                                 c["receipt"]] for c in claims])
        stage.clock(stamp(day(0), 9, 0))
        bad = [c for c in claims if c["kind"] != "ok"]
        good = [c for c in claims if c["kind"] == "ok"]
        limit = stage.money(RECEIPT_LIMIT, cents=False)
        instruction = rng.choice([
            f"Please audit the claims in '{sheet}' against our {POLICY_NAME} (hotel caps per night, meal allowances "
            f"per day, receipts above {limit}) and mail {first_name(recipient['name'])} the claims that break "
            "it: claim ID, the rule broken and, for caps, how much it is over. Don't list the compliant ones.",
            f"{first_name(recipient['name'])} wants the policy exceptions in '{sheet}'. Check every claim against the "
            f"{POLICY_NAME} and send {first_name(recipient['name'])} a mail with each exception's claim ID, which "
            "rule it breaks and by how much (where there's a cap). Only the exceptions.",
        ])

        def solve(s: Solver) -> None:
            s.call("drive_search_files", query=POLICY_NAME)
            policy = s.call("drive_search_files", query=POLICY_NAME)["files"][0]
            s.call("drive_get_doc", file_id=policy["id"])
            s.call("drive_read_sheet", file_id=file_id)
            lines = []
            for c in bad:
                if c["kind"] == "no_receipt":
                    lines.append(f"- {c['id']} ({c['employee']}): no receipt for {stage.money(c['amount'])}")
                else:
                    lines.append(f"- {c['id']} ({c['employee']}): {c['category'].lower()} cap exceeded by "
                                 f"{stage.money(c['over'])}")
            s.call("mail_send_message", to=[recipient["email"]], subject=f"Policy exceptions: {sheet}",
                   body=f"Hi {first_name(recipient['name'])},\n\n{len(bad)} claims break the policy:\n"
                        + "\n".join(lines) + "\n\nBest")

        facts = FactSheet(sources=[f"doc:{POLICY_NAME}", f"sheet:{sheet}"])
        rules = {kind: facts.entity(name, key=f"rule_{kind}", aliases=aliases, kind="rule")
                 for kind, name, aliases in RULES}
        bad_keys, over_keys, rule_keys = [], [], []
        for c in claims:
            key = facts.entity(c["id"], key=key_of(c["id"]), kind="claim")
            per_unit = {"Hotel": hotel, "Meals": meals}.get(c["category"], {}).get(c["city"])
            if per_unit is not None:
                facts.figure(per_unit * c["units"])  # the claim's cap, a careful worker's supporting figure
            if c["kind"] == "ok":
                continue
            bad_keys.append(key)
            rule = {"hotel_over": "hotel", "meals_over": "meals"}.get(c["kind"], "receipt")
            # "hotel or meal cap" is a hedge; a receipt may be mentioned beside any cap ("receipt attached")
            other_cap = {"hotel": ["meals"], "meals": ["hotel"]}.get(rule, [])
            rule_keys.append(facts.fact(key, "rule", rules[rule], wrong=[rules[r] for r in other_cap]))
            if c["over"] is not None and per_unit is not None:
                # the overrun against one night's or one day's cap, whatever the claim's length
                over_keys.append(facts.fact(key, "over", c["over"], wrong=[round(c["amount"] - per_unit, 2)]))
        good_keys = [key_of(c["id"]) for c in good]
        to = [recipient_role]
        return Draft(
            instruction=instruction,
            tools=toolset(["drive", "mail"], writes=["mail_send_message"], distractors=["mail", "drive"]),
            gates=[
                facts_check("exceptions_sent", None, "sent_mail", to=to, name=bad_keys, require=over_keys,
                            exclude=good_keys, excluded_if=COMPLIANT,
                            description="The mail names every exception, each cap exception with how much it is "
                                        "over (stated with its claim); no compliant claim is presented as an "
                                        "exception, no figure is tied to the wrong claim or made up."),
                allowed_changes(*MAIL_TABLES),
            ],
            criteria=[
                facts_check("rules_named", 2, "sent_mail", to=to, require=rule_keys, headings=True,
                            description="Each exception names the rule it breaks (hotel cap, meal allowance, "
                                        "receipt), stated with its claim."),
                *mail_guards(to),
            ],
            solve=solve, variant=variant, max_steps=20, facts=facts,
        )


class RenewalRiskDigest(Family):
    """List the accounts where an overdue invoice meets an open renewal closing soon, with the amounts."""

    name = "renewal_risk_digest"
    skills = ("cross_app_join", "aggregation", "communication")
    category = "account-management"
    difficulty = "medium"  # 3-7 reference calls: below the hard bar (>= 12 calls, unstated traps, paging)
    apps = ("crm", "mail")
    variants = ("sixty-days", "this-quarter", "ninety-days")
    worlds = ("acme", "carewell", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        horizon = {"sixty-days": 60, "this-quarter": (day(0).replace(month=12, day=31) - day(0)).days,
                   "ninety-days": 90}[variant]
        window = {"sixty-days": "in the next 60 days", "this-quarter": "by the end of this quarter (December 31)",
                  "ninety-days": "in the next 90 days"}[variant]
        stage.act_as(rng.choice(["role:cs_lead", "role:controller"]))
        recipient_role = rng.choice(["role:cfo", "role:head_of_sales", "role:ceo"])
        recipient = stage.person(recipient_role)
        stage.clock(stamp(day(-1), 17, 0))
        fresh = accounts(stage, "id NOT IN (SELECT account_id FROM crm_invoice) AND id NOT IN (SELECT account_id "
                                "FROM crm_deal WHERE name LIKE '%renewal%')")
        planted = rng.sample(fresh, 6)
        numbers = iter(invoice_numbers(rng, 12))
        for position, account in enumerate(planted):
            # 0-2 qualify; 3: renewal too late; 4: invoice paid; 5: invoice open but not yet due
            close = day(rng.randint(10, horizon - 5)) if position != 3 else day(horizon + rng.randint(10, 40))
            stage.insert("crm_deal", [{"account_id": account["id"], "name": f"{account['name']} - Renewal 2027",
                                       "stage": rng.choice(["proposal", "negotiation"]),
                                       "amount": float(rng.randrange(20_000, 200_000, 1_000)), "currency": "USD",
                                       "close_date": close.isoformat(), "owner_id": account["owner_id"],
                                       "next_step": "Send renewal quote", "updated_by": account["owner_id"]}])
            status, due = "open", day(-rng.randint(5, 45))
            if position == 4:
                status = "paid"
            elif position == 5:
                due = day(rng.randint(5, 25))
            stage.insert("crm_invoice", [{"number": next(numbers), "account_id": account["id"],
                                          "amount": float(rng.randrange(4_000, 60_000, 50)), "currency": "USD",
                                          "issued_on": day(-80).isoformat(), "due_on": due.isoformat(),
                                          "status": status, "paid_on": due.isoformat() if status == "paid" else None}])
        today, last = day(0).isoformat(), day(horizon).isoformat()
        qualifying = stage.rows(
            "SELECT a.id, a.name, (SELECT sum(amount) FROM crm_invoice i WHERE i.account_id = a.id AND i.status = "
            "'open' AND i.due_on < ?) AS overdue FROM crm_account a WHERE EXISTS (SELECT 1 FROM crm_invoice i WHERE "
            "i.account_id = a.id AND i.status = 'open' AND i.due_on < ?) AND EXISTS (SELECT 1 FROM crm_deal d WHERE "
            "d.account_id = a.id AND d.name LIKE '%renewal%' AND d.stage NOT IN ('closed_won', 'closed_lost') AND "
            "d.close_date BETWEEN ? AND ?) ORDER BY a.name", today, today, today, last)
        for row in qualifying:
            row["renewals"] = stage.rows(
                "SELECT amount FROM crm_deal WHERE account_id = ? AND name LIKE '%renewal%' AND stage NOT IN "
                "('closed_won', 'closed_lost') AND close_date BETWEEN ? AND ?", row["id"], today, last)
        stage.clock(stamp(day(0), 9, 0))
        instruction = rng.choice([
            f"Please send {recipient['name']} a list of the customers that have an overdue invoice and also an open "
            f"renewal deal closing {window}. For each one give the total overdue amount and the renewal's value.",
            f"{first_name(recipient['name'])} wants to know which accounts are at risk: an overdue invoice plus an "
            f"open renewal closing {window}. Mail {first_name(recipient['name'])} the list with the overdue total and "
            "the renewal amount for each.",
        ])

        sheet = FactSheet()
        keys: list[str] = []
        for row in qualifying:
            keys.append(sheet.entity(row["name"], key=f"account_{len(keys) + 1}", kind="account"))
            sheet.fact(keys[-1], "overdue", row["overdue"], label=OVERDUE_LABEL)
            for i, deal in enumerate(row["renewals"], start=1):
                sheet.fact(keys[-1], f"renewal_{i}", deal["amount"], label=RENEWAL_LABEL)
        miss_keys: list[str] = []
        for account in planted[3:]:
            if account["name"] in {r["name"] for r in qualifying}:
                continue
            miss_keys.append(sheet.entity(account["name"], key=f"near_miss_{len(miss_keys) + 1}", kind="account"))
            for row in stage.rows("SELECT amount FROM crm_invoice WHERE account_id = ?", account["id"]):
                sheet.figure(row["amount"])
            for row in stage.rows("SELECT amount FROM crm_deal WHERE account_id = ? AND name LIKE '%renewal%'",
                                  account["id"]):
                sheet.figure(row["amount"])

        overdue_keys = [f"{k}.overdue" for k in keys]
        renewal_keys = [f"{k}.renewal_{i}" for k, r in zip(keys, qualifying, strict=True)
                        for i in range(1, len(r["renewals"]) + 1)]

        def solve(s: Solver) -> None:
            s.call("crm_search_invoices", status="open", overdue_only=True, limit=100)
            s.call("crm_search_deals", query="renewal", stage="open", close_after=today, close_before=last,
                   limit=100)
            lines = "\n".join(f"- {r['name']}: overdue {stage.money(r['overdue'])}, renewal "
                              f"{', '.join(stage.money(d['amount'], cents=False) for d in r['renewals'])}"
                              for r in qualifying)
            s.call("mail_send_message", to=[recipient["email"]], subject="Accounts at renewal risk",
                   body=f"Hi {first_name(recipient['name'])},\n\nAccounts with an overdue invoice and a renewal "
                        f"closing {window}:\n{lines}\n\nBest")

        return Draft(
            instruction=instruction,
            tools=toolset(["crm", "mail"], writes=["mail_send_message"], distractors=["mail", "crm"]),
            gates=[
                facts_check("list_sent", None, "sent_mail", to=[recipient_role], trace_to="facts",
                            description="Every at-risk account is named with its overdue total and renewal value "
                                        "(one reading each); an account that does not qualify only as a near miss; "
                                        "no figure tied to the wrong account or made up.",
                            name=keys, exclude=miss_keys, require=[*overdue_keys, *renewal_keys]),
                allowed_changes(*MAIL_TABLES),
            ],
            criteria=[
                facts_check("overdue_amounts", 2, "sent_mail", to=[recipient_role], trace_to="facts",
                            description="Each account's overdue total, stated with it.",
                            require=overdue_keys),
                facts_check("renewal_values", 1, "sent_mail", to=[recipient_role], trace_to="facts",
                            description="Each account's renewal value, stated with it.",
                            require=renewal_keys),
                *mail_guards([recipient_role]),
            ],
            solve=solve, variant=variant, max_steps=25, facts=sheet,
        )
