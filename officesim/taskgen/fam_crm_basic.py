"""Small CRM jobs: what an account owes, a contact from a mail signature, a call logged from a recap."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from officesim.grading.facts import phone_regex
from officesim.grading.record_checks import ChangedCheck, RecordCheck
from officesim.seeding import faker_for
from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import (
    READ_MARKS,
    accounts,
    allowed_changes,
    answer_tolerance,
    colleague_mail,
    contacts_of,
    day,
    first_name,
    invoice_numbers,
    judge,
    nth,
    open_deals,
    outside_mail,
    people_in,
    stamp,
    toolset,
)
from officesim.taskgen.factsheet import FactSheet, facts_check

CONTACT_TITLES = ["Head of Finance Systems", "Director of Analytics", "Data Platform Lead", "VP Operations",
                  "Procurement Lead", "Senior IT Manager", "Head of Business Intelligence", "Controller"]


def _us_accounts_without_invoices(stage: Stage) -> list[dict[str, Any]]:
    return accounts(stage, "country = 'United States' AND id NOT IN (SELECT account_id FROM crm_invoice)")



def _named(accounts: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The search result that is the account asked for, as a careful agent picks it (not merely the first:
    a search for 'King LLC' may rank 'Brown LLC' first)."""
    return next(a for a in accounts if a["name"] == name)

class InvoiceTotalAnswer(Family):
    """How much an account still owes: open invoices only, paid and void ones left out."""

    name = "invoice_total_answer"
    skills = ("fact_lookup", "aggregation")
    category = "finance-collections"
    difficulty = "easy"
    apps = ("crm",)
    variants = ("outstanding-mixed", "outstanding-all-open", "past-due-only")
    worlds = ("acme", "shopline", "counsel")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        stage.act_as(rng.choice(["role:controller", "role:ap_specialist", "role:cfo"]))
        stage.clock(stamp(day(0), 8, 40))
        account = nth(_us_accounts_without_invoices(stage), index, self.name)
        count = rng.randint(4, 6)
        numbers = invoice_numbers(rng, count)
        rows = []
        for position, number in enumerate(numbers):
            issued = day(-rng.randint(20, 95))
            due = issued.fromordinal(issued.toordinal() + rng.choice([30, 30, 45, 60]))
            status = "open"
            if variant == "outstanding-mixed" and position < 2:
                status = ("paid", "void")[position]
            elif variant == "past-due-only" and position == 0:
                status = "paid"
            amount = float(rng.randrange(1_500, 48_000, 50))
            row = {"number": number, "account_id": account["id"], "amount": amount, "currency": "USD",
                   "issued_on": issued.isoformat(), "due_on": due.isoformat(), "status": status,
                   "paid_on": due.isoformat() if status == "paid" else None}
            rows.append(row)
        if variant == "past-due-only":
            # at least one open invoice not yet due and one already past due
            rows[-1]["due_on"] = day(rng.randint(5, 25)).isoformat()
            rows[-2]["due_on"] = day(-rng.randint(3, 20)).isoformat()
        rng.shuffle(rows)
        stage.insert("crm_invoice", rows)
        stage.clock(stamp(day(0), 9, 15))
        today = day(0).isoformat()
        if variant == "past-due-only":
            wanted = [r for r in rows if r["status"] == "open" and r["due_on"] < today]
            question = rng.choice([
                f"How much of {account['name']}'s open balance is already past due? I only need the overdue part.",
                f"What's the total {account['name']} owes us on invoices that are past their due date?",
            ])
        else:
            wanted = [r for r in rows if r["status"] == "open"]
            question = rng.choice([
                f"Quick one: how much does {account['name']} still owe us in total? Just the outstanding invoices.",
                f"Before my call with {account['name']}, what's their total outstanding invoice balance with us?",
                f"Can you tell me the total of {account['name']}'s unpaid invoices?",
            ])
        total = sum(r["amount"] for r in wanted)
        # what a careless reading sums: every invoice, or every open one for the past-due question
        wrong = [sum(r["amount"] for r in rows), sum(r["amount"] for r in rows if r["status"] == "open")]
        instruction = f"{question} Reply with the amount."

        def solve(s: Solver) -> None:
            found = s.call("crm_search_accounts", query=account["name"])
            s.call("crm_search_invoices", account_id=_named(found["accounts"], account["name"])["id"], status="open")
            s.submit(f"{stage.money(total)} ({len(wanted)} invoices)")

        sheet = FactSheet()
        acc = sheet.entity(account["name"], key="account", kind="account")
        left_out = []
        for position, row in enumerate(sorted(rows, key=lambda r: r["number"]), start=1):
            key = sheet.entity(row["number"], key=f"invoice_{position}", kind="invoice")
            sheet.fact(key, "amount", row["amount"])
            if row not in wanted:
                left_out.append(key)
        sheet.fact(acc, "outstanding", total, wrong=wrong, tolerance=answer_tolerance(total, wrong))
        return Draft(
            instruction=instruction,
            tools=toolset(["crm"], distractors=["crm"]),
            gates=[allowed_changes(READ_MARKS)],
            criteria=[facts_check("total", 1, "answer", description="The outstanding total, one figure; invoices "
                                  "that do not count named only as left out.", require=[f"{acc}.outstanding"],
                                  subject=acc, exclude=left_out)],
            solve=solve, variant=variant, max_steps=12, facts=sheet,
        )


def _signature_phone(rng: random.Random) -> str:
    return f"+1 555 {rng.randint(200, 989)} {rng.randint(1000, 9999)}"


class ContactFromSignature(Family):
    """Add a new customer contact to the CRM from the signature of their introduction mail."""

    name = "contact_from_signature"
    skills = ("record_update", "fact_lookup")
    category = "crm-hygiene"
    difficulty = "easy"
    apps = ("mail", "crm")
    variants = ("intro-dashes", "intro-pipes", "handover-forward")
    worlds = ("acme", "shopline", "large")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        fake = faker_for(0, "en_US", self.name, index)
        account = nth(accounts(stage, "country = 'United States'"), index, self.name)
        owner = stage.person(account["owner_id"])
        stage.act_as(owner["id"])
        old_contact = contacts_of(stage, account["id"])[rng.randrange(2)]
        first, last = fake.first_name(), fake.last_name()
        name = f"{first} {last}"
        email = f"{first.lower()}.{last.lower()}@{account['domain']}"
        title = rng.choice(CONTACT_TITLES)
        phone = _signature_phone(rng)
        stage.clock(stamp(day(0), 7, 30))
        if variant == "intro-pipes":
            signature = f"{name} | {title} | {account['name']}\n{phone} | {email}"
        else:
            signature = f"--\n{name}\n{title}, {account['name']}\nPhone: {phone}\n{email}"
        subject = rng.choice(["Introduction", "Hello from the new project lead", "Taking over from "
                              f"{first_name(old_contact['name'])}"])
        body = (f"Hi {first_name(owner['name'])},\n\nI've just taken over the analytics rollout on our side from "
                f"{first_name(old_contact['name'])}, so I'll be your main contact from now on. Looking forward to "
                f"working together; happy to set up a call next week.\n\nBest,\n{first}\n\n{signature}\n")
        if variant == "handover-forward":
            outside_mail(stage, sender=old_contact["email"], sender_name=old_contact["name"], to=["user"],
                         cc=[email], subject=f"Handover: {name} is your new contact",
                         body=(f"Hi {first_name(owner['name'])},\n\nI'm moving to a new role; {name} ({title}) takes "
                               f"over our account work from today. {first} will introduce themselves "
                               f"separately.\n\nThanks for everything,\n{old_contact['name']}\n"),
                         at=stamp(day(-1), 16, 5))
        outside_mail(stage, sender=email, sender_name=name, to=["user"], subject=subject, body=body,
                     at=stamp(day(0), 7, 42))
        stage.clock(stamp(day(0), 9, 10))
        instruction = rng.choice([
            f"{name} from {account['name']} introduced themselves by mail this morning. Please add them to the "
            f"CRM as a contact on the {account['name']} account, with the name, title, phone and email from "
            "their signature.",
            f"Can you create a CRM contact for {first} at {account['name']}? Everything you need is in the "
            "signature of their intro mail; use it exactly as written.",
        ])

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query=first)
            s.call("mail_get_message", message_id=found["messages"][0]["id"])
            acc = _named(s.call("crm_search_accounts", query=account["name"])["accounts"], account["name"])
            s.call("crm_create_contact", account_id=acc["id"], name=name, email=email, title=title, phone=phone)

        return Draft(
            instruction=instruction,
            tools=toolset(["mail", "crm"], writes=["crm_create_contact"], distractors=["crm", "mail"]),
            gates=[
                RecordCheck(id="contact_created", check="record", table="crm_contact",
                            description="The contact exists on the right account with the signature's details.",
                            match={"email": email},
                            expect={"account_id": account["id"], "name": name,
                                                       "title": title, "phone": {"regex": phone_regex(phone)}},
                            count=1),
                allowed_changes("crm_contact", READ_MARKS, max_rows=1),
            ],
            criteria=[ChangedCheck(id="created", check="changed", points=1, table="crm_contact",
                                   description="A contact was added for the new person.", op="insert",
                                   match={"email": email})],
            solve=solve, variant=variant, max_steps=15,
        )


# (what the recap says, the next step's keyword, how notes may name the point: its usual name first)
RECAP_POINTS = [
    ("they want SSO before rollout", "security review", ["SSO", "single sign-on", "single sign on"]),
    ("budget is confirmed for Q1", "order form", ["budget is confirmed", "budget confirmed", "confirmed budget",
                                                  "budget approved", "Q1 budget", "budget for Q1", "budget"]),
    ("legal needs the DPA redlines back by Friday", "DPA", ["DPA redlines", "redlines", "redline",
                                                            "data processing agreement"]),
    ("they asked for a 12-month price lock", "price lock", ["12-month price lock", "12 month price lock",
                                                           "12-month lock", "locked price", "price freeze",
                                                           "price lock"]),
    ("their CTO joins the next demo", "demo", ["CTO", "chief technology officer"]),
]
# aliases too generic to flag in another instance's notes (a deal may be about a budget)
LOOSE_ALIASES = {"budget", "redline", "redlines", "price lock"}
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December"]


def _weekday_aliases(moment: date) -> list[str]:
    """How notes may write a follow-up's deadline: the weekday, short, or the date itself."""
    weekday = moment.strftime("%A")
    month = MONTH_NAMES[moment.month - 1]
    return [weekday[:3], weekday[:3] + ".", moment.isoformat(), f"{month} {moment.day}", f"{month[:3]} {moment.day}",
            f"{moment.day} {month}", f"{moment.month}/{moment.day}"]


class LogCallFromMail(Family):
    """Log a CRM call on the right deal from a mailed recap of the call."""

    name = "log_call_from_mail"
    skills = ("record_update", "summarization")
    category = "crm-hygiene"
    difficulty = "easy"
    apps = ("mail", "crm")
    variants = ("colleague-recap", "customer-recap", "two-calls-thread")
    worlds = ("acme", "forge", "lantern")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        deals = [d for d in open_deals(stage) if len(contacts_of(stage, d["account_id"])) >= 2]
        deal = nth(deals, index, self.name)
        account = stage.one("SELECT * FROM crm_account WHERE id = ?", deal["account_id"])
        owner = stage.person(deal["owner_id"])
        stage.act_as(owner["id"])
        contact = rng.choice(contacts_of(stage, account["id"])[1:])
        fact, keyword, _ = point = rng.choice(RECAP_POINTS)
        others = [d for d in open_deals(stage, "account_id = ? AND id != ?", account["id"], deal["id"])]
        engineer = rng.choice(people_in(stage, stage.department("Sales"), exclude=[owner["id"]]))
        when = day(-1)
        stage.clock(stamp(when, 17, 20))
        lines = (f"Call with {contact['name']} ({account['name']}) about the {deal['name']} deal.\n"
                 f"- Main point: {fact}.\n- Next step: send the {keyword} follow-up by {day(3).strftime('%A')}.\n")
        if variant == "customer-recap":
            outside_mail(stage, sender=contact["email"], sender_name=contact["name"], to=["user"],
                         subject=f"Recap of today's call - {deal['name']}",
                         body=(f"Hi {first_name(owner['name'])},\n\nThanks for the call today. My notes:\n{lines}\n"
                               f"Best,\n{contact['name']}\n"), at=stamp(when, 17, 20))
        else:
            if variant == "two-calls-thread":
                stage.clock(stamp(day(-8), 15, 0))
                colleague_mail(stage, engineer["id"], ["user"], f"Call notes: {account['name']} kickoff",
                               f"Notes from last week's kickoff call with {account['name']}: intro only, "
                               "nothing to log yet.\n")
                stage.clock(stamp(when, 17, 20))
            colleague_mail(stage, engineer["id"], ["user"], f"Call recap: {contact['name']} / {account['name']}",
                           f"Hi {first_name(owner['name'])},\n\nRecap of the call I joined today:\n{lines}\n"
                           f"{first_name(engineer['name'])}\n")
        stage.clock(stamp(day(0), 9, 5))
        who = contact["name"] if variant == "customer-recap" else first_name(engineer["name"])
        instruction = rng.choice([
            f"Please log yesterday's call with {contact['name']} as a call activity in the CRM on the "
            f"{deal['name']} deal, linked to {first_name(contact['name'])}'s contact record. The recap {who} "
            "mailed me has the details.",
            f"Could you put yesterday's call with {first_name(contact['name'])} from {account['name']} into the "
            f"CRM? Log it as a call on the {deal['name']} deal (with {first_name(contact['name'])} as the contact), "
            f"using the recap from {who}.",
        ])
        if others:
            instruction += " Make sure it goes on the right deal."

        sheet = _recap_facts(point, day(3), two_calls=variant == "two-calls-thread")
        sheet.sources = ["mail:recap", "crm:crm_deal"]

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query="recap")
            s.call("mail_get_message", message_id=found["messages"][0]["id"])
            s.call("crm_search_deals", query=deal["name"])
            s.call("crm_search_contacts", account_id=account["id"])
            s.call("crm_log_activity", kind="call", subject=f"Call with {contact['name']}",
                   body=lines, account_id=account["id"], contact_id=contact["id"], deal_id=deal["id"])

        return Draft(
            instruction=instruction,
            tools=toolset(["mail", "crm"], writes=["crm_log_activity"], distractors=["crm"]),
            gates=[
                ChangedCheck(id="call_logged", check="changed", table="crm_activity", op="insert",
                             description="A call activity was logged on the deal.",
                             match={"deal_id": deal["id"], "kind": "call"}),
                # the point of the job is the notes: a call logged with "." is no call log
                facts_check("notes", None, "crm:crm_activity.body",
                            description="The notes carry the call's main point and its next step with its "
                                        "deadline, and no other call's points.",
                            name=["main_point"], require=["next_step.due"], candidates=sorted(
                                k for k in sheet.entities if k.startswith("other_")),
                            exclude=["kickoff"] if variant == "two-calls-thread" else ()),
                allowed_changes("crm_activity", READ_MARKS, max_rows=1),
            ],
            criteria=[
                ChangedCheck(id="on_deal", check="changed", points=2, table="crm_activity", op="insert",
                             description="The call is on the right deal.",
                             match={"deal_id": deal["id"], "kind": "call"}),
                ChangedCheck(id="with_contact", check="changed", points=1, table="crm_activity", op="insert",
                             description="The call is linked to the contact.",
                             match={"deal_id": deal["id"], "contact_id": contact["id"]}),
                judge("notes_match_recap", 1, "no_fabrication", ["crm:crm_activity"], ["mail:recap"],
                      "The logged notes carry the recap's points and nothing invented."),
            ],
            solve=solve, variant=variant, max_steps=15, facts=sheet,
        )


def _recap_facts(point: tuple[str, str, list[str]], due: date, *, two_calls: bool) -> FactSheet:
    """The recap's facts: its main point, the next step and its deadline; the other points a recap
    can make are candidates the notes must not offer (a list of every point is no call log)."""
    _, keyword, names = point
    sheet = FactSheet()
    sheet.entity(names[0], key="main_point", aliases=names[1:], kind="point")
    sheet.entity(keyword, key="next_step", aliases=[f"{keyword} follow-up", f"{keyword} follow up", "follow-up",
                                                    "follow up", "follow-ups"], kind="next step")
    sheet.entity(due.strftime("%A"), key="deadline", aliases=_weekday_aliases(due), kind="deadline")
    sheet.fact("next_step", "due", "deadline")
    mine = {keyword.casefold(), *(n.casefold() for n in names)}
    for number, (_, other_keyword, other_names) in enumerate(p for p in RECAP_POINTS if p[1] != keyword):
        words = [n for n in other_names if n.casefold() not in LOOSE_ALIASES | mine]
        if words:
            sheet.entity(words[0], key=f"other_point_{number}", aliases=words[1:], kind="another call's point")
        if other_keyword.casefold() not in mine | LOOSE_ALIASES:
            sheet.entity(other_keyword, key=f"other_step_{number}", kind="another call's next step")
    # another deadline offered beside the right one is a hedge; the days of the call and of the log
    # (and a day the recap itself names) may be written for what they are
    said = {due.strftime("%A"), *(d.strftime("%A") for d in (due - timedelta(days=4), due - timedelta(days=3)))}
    for weekday in WEEKDAYS:
        if weekday not in said and weekday not in point[0]:
            sheet.entity(weekday, key=f"other_day_{weekday.casefold()}", aliases=[weekday[:3] + "."],
                         kind="another deadline")
    if two_calls:
        sheet.entity("intro only", key="kickoff", aliases=["kickoff", "kick-off"], kind="other call")
    return sheet
