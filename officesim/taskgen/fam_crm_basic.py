"""Small CRM jobs: what an account owes, a contact from a mail signature, a call logged from a recap."""

from __future__ import annotations

import random
import re
import unicodedata
from datetime import date
from typing import Any

from officesim.grading.facts import phone_regex
from officesim.grading.normalize import asks_exact_values
from officesim.grading.record_checks import ChangedCheck, RecordCheck
from officesim.seeding import faker_for
from officesim.taskgen.base import Draft, Family, Solver, Stage, WorldLacks
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
from officesim.taskgen.factsheet import FactSheet, facts_check, seen_gate

CONTACT_TITLES = ["Head of Finance Systems", "Director of Analytics", "Data Platform Lead", "VP Operations",
                  "Procurement Lead", "Senior IT Manager", "Head of Business Intelligence", "Controller"]


def _accounts_without_invoices(stage: Stage) -> list[dict[str, Any]]:
    """Accounts the world billed nothing yet (on any world: the family plants their invoices)."""
    return accounts(stage, "id NOT IN (SELECT account_id FROM crm_invoice)")


def _named(accounts: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The search result that is the account asked for, as a careful agent picks it (not merely the first:
    a search for 'King LLC' may rank 'Brown LLC' first)."""
    return next(a for a in accounts if a["name"] == name)


SISTER_SUFFIXES = ["International", "Holdings", "Europe", "Services", "Group"]


def _invoice_rows(stage: Stage, rng: random.Random, account_id: str, count: int, *, deal_id: str | None = None,
                  statuses: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """``count`` invoices of an account in the world's currency, open unless ``statuses`` says otherwise."""
    currency = stage.world.meta("currency") or "USD"
    rows = []
    for position, number in enumerate(invoice_numbers(rng, count)):
        issued = day(-rng.randint(20, 95))
        due = issued.fromordinal(issued.toordinal() + rng.choice([30, 30, 45, 60]))
        status = (statuses or {}).get(position, "open")
        rows.append({"number": number, "account_id": account_id, "deal_id": deal_id,
                     "amount": float(rng.randrange(1_500, 48_000, 50)), "currency": currency,
                     "issued_on": issued.isoformat(), "due_on": due.isoformat(), "status": status,
                     "paid_on": due.isoformat() if status == "paid" else None})
    return rows


class InvoiceTotalAnswer(Family):
    """How much an account still owes: open invoices only, paid and void ones left out.

    Structures: a mix of paid, void and open invoices; all open; only the past-due part; a sister
    account with a near-identical name and its own open invoices (only the one asked about counts);
    the invoices of one deal of an account that has two; and (hard) the past-due balance of a whole
    sales rep's book, read account by account without the invoice search's filters, with a
    near-namesake account of another rep and not-yet-due invoices to leave out.
    """

    name = "invoice_total_answer"
    skills = ("fact_lookup", "aggregation", "exhaustive_search")
    category = "finance-collections"
    difficulty = "easy"
    apps = ("crm",)
    variants = ("outstanding-mixed", "outstanding-all-open", "past-due-only", "sister-account", "deal-scoped",
                "portfolio-past-due")
    worlds = ("acme", "shopline", "counsel", "forge", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        if variant == "portfolio-past-due":
            return self._portfolio(stage, index, rng)
        stage.act_as(rng.choice(["role:controller", "role:ap_specialist", "role:cfo"]))
        stage.clock(stamp(day(0), 8, 40))
        account = nth(_accounts_without_invoices(stage), index, self.name)
        count = rng.randint(4, 6)
        statuses = {"outstanding-mixed": {0: "paid", 1: "void"}, "past-due-only": {0: "paid"},
                    "sister-account": {0: "paid"}}.get(variant, {})
        deal_id = None
        if variant == "deal-scoped":
            # two deals of the account, each billed: only the one asked about counts
            deal_rows = stage.insert("crm_deal", [
                {"account_id": account["id"], "name": f"{account['name']} - {label}", "stage": "closed_won",
                 "amount": float(rng.randrange(40_000, 160_000, 1_000)), "currency": stage.world.meta("currency")
                 or "USD", "close_date": day(-rng.randint(100, 140)).isoformat(), "owner_id": account["owner_id"],
                 "next_step": "", "created_at": stamp(day(-200)), "updated_at": stamp(day(-100))}
                for label in rng.sample(["Platform licence", "Implementation", "Support renewal", "Analytics add-on"],
                                        2)])
            deal_id = deal_rows[0]
        rows = _invoice_rows(stage, rng, account["id"], count, deal_id=deal_id, statuses=statuses)
        others: list[dict[str, Any]] = []
        if variant == "deal-scoped":
            others = _invoice_rows(stage, rng, account["id"], rng.randint(2, 3), deal_id=deal_rows[1])
        if variant == "past-due-only":
            # at least one open invoice not yet due and one already past due
            rows[-1]["due_on"] = day(rng.randint(5, 25)).isoformat()
            rows[-2]["due_on"] = day(-rng.randint(3, 20)).isoformat()
        sister = None
        if variant == "sister-account":
            sister_name = f"{account['name']} {rng.choice(SISTER_SUFFIXES)}"
            sister = {**{k: v for k, v in account.items() if k != "id"}, "name": sister_name,
                      "domain": "x" + account["domain"]}
            sister["id"] = stage.insert("crm_account", [sister])[0]
            others = _invoice_rows(stage, rng, sister["id"], rng.randint(2, 3))
        every = rows + others
        rng.shuffle(every)
        stage.insert("crm_invoice", [{k: v for k, v in r.items() if v is not None or k == "paid_on"} for r in every])
        stage.clock(stamp(day(0), 9, 15))
        today = day(0).isoformat()
        deal_name = ""
        if variant == "past-due-only":
            wanted = [r for r in rows if r["status"] == "open" and r["due_on"] < today]
            question = rng.choice([
                f"How much of {account['name']}'s open balance is already past due? I only need the overdue part.",
                f"What's the total {account['name']} owes us on invoices that are past their due date?",
                f"{account['name']} is on my chase list: what do they owe us that's already late?",
            ])
        elif variant == "deal-scoped":
            deal_name = stage.one("SELECT name FROM crm_deal WHERE id = ?", deal_id)["name"]
            wanted = [r for r in rows if r["status"] == "open"]
            question = rng.choice([
                f"How much is still unpaid on the invoices for the {deal_name} deal? Only that deal, not the "
                "account's other work.",
                f"Finance wants the open balance billed under the {deal_name} deal specifically. What is it?",
            ])
        elif variant == "sister-account":
            wanted = [r for r in rows if r["status"] == "open"]
            question = rng.choice([
                f"What does {account['name']} still owe us on open invoices? (Just that account.)",
                f"I'm calling {account['name']}'s AP team: what's their outstanding invoice total?",
            ])
        else:
            wanted = [r for r in rows if r["status"] == "open"]
            question = rng.choice([
                f"Quick one: how much does {account['name']} still owe us in total? Just the outstanding invoices.",
                f"Before my call with {account['name']}, what's their total outstanding invoice balance with us?",
                f"Can you tell me the total of {account['name']}'s unpaid invoices?",
                f"What's the open receivable on {account['name']} right now?",
            ])
        total = sum(r["amount"] for r in wanted)
        # what a careless reading sums: every invoice, or every open one for the past-due question,
        # or the namesake's / other deal's open invoices too
        wrong = [sum(r["amount"] for r in rows), sum(r["amount"] for r in rows if r["status"] == "open")]
        if others:
            wrong.append(total + sum(r["amount"] for r in others if r["status"] == "open"))
        wrong = [w for w in wrong if abs(w - total) > 1e-9]
        instruction = f"{question} Reply with the amount."

        def solve(s: Solver) -> None:
            found = s.call("crm_search_accounts", query=account["name"])
            acc_id = _named(found["accounts"], account["name"])["id"]
            if variant == "deal-scoped":
                s.call("crm_search_deals", query=deal_name)
                s.call("crm_get_deal", deal_id=deal_id)
            else:
                s.call("crm_search_invoices", account_id=acc_id, status="open")
            s.submit(f"{stage.money(total)} ({len(wanted)} invoices)")

        sheet = FactSheet()
        acc = sheet.entity(account["name"], key="account", kind="account")
        left_out = []
        for position, row in enumerate(sorted(every, key=lambda r: r["number"]), start=1):
            key = sheet.entity(row["number"], key=f"invoice_{position}", kind="invoice")
            sheet.fact(key, "amount", row["amount"])
            if row not in wanted:
                left_out.append(key)
        if sister is not None:
            left_out.append(sheet.entity(sister["name"], key="sister", kind="another account"))
        sheet.fact(acc, "outstanding", total, wrong=wrong, tolerance=answer_tolerance(total, wrong))
        return Draft(
            instruction=instruction,
            tools=toolset(["crm"], distractors=["crm"]),
            gates=[allowed_changes(READ_MARKS), seen_gate(figures=[r["amount"] for r in wanted])],
            criteria=[facts_check("total", 1, "answer", description="The outstanding total, one figure; invoices "
                                  "that do not count named only as left out.", require=[f"{acc}.outstanding"],
                                  subject=acc, exclude=left_out)],
            solve=solve, variant=variant, max_steps=12, facts=sheet, traps={
                "outstanding-mixed": ("a paid and a void invoice are in the account's list: neither is owed",),
                "outstanding-all-open": ("the total is every open invoice, due or not yet due",),
                "past-due-only": ("a paid invoice and an open one not yet due are in the list: neither is past due",),
                "sister-account": (f"{sister['name'] if sister else ''} is a near-namesake account with its own open "
                                   "invoices: they do not count", "a paid invoice is in the account's list"),
                "deal-scoped": ("the account's other deal has open invoices of its own: only the named deal's count",),
            }[variant],
        )

    def _portfolio(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        """Hard: the past-due total over every account a rep owns, without the invoice search.

        The agent lists the rep's accounts (more than one page of five) and reads each one's open
        invoices; unstated traps: open invoices not yet due, and an account of another rep whose
        name differs from one of this rep's by a word, with past-due invoices of its own.
        """
        owners = stage.rows("SELECT owner_id, count(*) AS n FROM crm_account GROUP BY owner_id "
                            "HAVING n BETWEEN 5 AND 20 ORDER BY n DESC, owner_id")
        rep = stage.person(nth(owners, index, self.name, salt="rep")["owner_id"])
        stage.act_as(rng.choice(["role:controller", "role:cfo"]))
        stage.clock(stamp(day(0), 8, 30))
        # three accounts the rep was given this quarter, billed but not yet in anyone's head
        template = accounts(stage, "owner_id = ?", rep["id"])[0]
        fake = faker_for(0, stage.world.meta("locale") or "en_US", self.name, "book", index)
        for _ in range(3):
            company = fake.company()
            stage.insert("crm_account", [{**{k: v for k, v in template.items() if k != "id"}, "name": company,
                                          "domain": _ascii(company)[:24] + ".test", "created_at": stamp(day(-30))}])
        book = accounts(stage, "owner_id = ?", rep["id"])
        planted: list[dict[str, Any]] = []
        for account in book[-3:] + rng.sample(book[:-3], 2):
            rows = _invoice_rows(stage, rng, account["id"], 3, statuses={0: "paid"})
            rows[1]["due_on"] = day(-rng.randint(3, 40)).isoformat()  # past due
            rows[2]["due_on"] = day(rng.randint(4, 25)).isoformat()  # open but not yet due
            planted += rows
        namesake_of = rng.choice(book)
        other_rep = stage.one("SELECT owner_id FROM crm_account WHERE owner_id != ? ORDER BY id LIMIT 1",
                              rep["id"])["owner_id"]
        namesake = {**{k: v for k, v in namesake_of.items() if k != "id"}, "owner_id": other_rep,
                    "name": f"{namesake_of['name']} {rng.choice(SISTER_SUFFIXES)}",
                    "domain": "x" + namesake_of["domain"]}
        namesake["id"] = stage.insert("crm_account", [namesake])[0]
        namesake_rows = _invoice_rows(stage, rng, namesake["id"], 2)
        for row in namesake_rows:
            row["due_on"] = day(-rng.randint(5, 30)).isoformat()
        stage.insert("crm_invoice", [{k: v for k, v in r.items() if k != "deal_id"} for r in planted + namesake_rows])
        stage.clock(stamp(day(0), 9, 0))
        today = day(0).isoformat()
        ids = [a["id"] for a in book]
        marks = ",".join("?" * len(ids))
        open_rows = stage.rows(f"SELECT * FROM crm_invoice WHERE status = 'open' AND account_id IN ({marks})", *ids)
        late = [r for r in open_rows if r["due_on"] < today]
        if not late:
            raise WorldLacks(f"{self.name}: {rep['name']}'s book has no past-due invoice")
        total = sum(r["amount"] for r in late)
        wrong = [sum(r["amount"] for r in open_rows), total + sum(r["amount"] for r in namesake_rows)]
        wrong = [w for w in wrong if abs(w - total) > 1e-9]
        instruction = rng.choice([
            f"Before the collections review: what is the total past-due balance across all of {rep['name']}'s "
            "accounts? One figure, please.",
            f"How much do {first_name(rep['name'])}'s customers owe us that is already late? I need the total "
            f"over {rep['name']}'s whole book of accounts.",
            f"Give me the overdue receivables for every account {rep['name']} owns, as one total.",
        ])

        def solve(s: Solver) -> None:
            s.call("directory_search_people", query=rep["name"])
            found, cursor = [], None
            while True:
                page = s.call("crm_search_accounts", owner=rep["id"], limit=5,
                              **({"cursor": cursor} if cursor else {}))
                found += page["accounts"]
                cursor = page.get("next_cursor")
                if not cursor:
                    break
            for account in found:
                s.call("crm_get_account", account_id=account["id"])
            s.submit(f"{stage.money(total)} past due over {len(found)} accounts ({len(late)} invoices)")

        sheet = FactSheet()
        who = sheet.entity(rep["name"], key="rep", kind="account owner")
        left_out = [sheet.entity(namesake["name"], key="namesake", kind="another rep's account")]
        sheet.fact(who, "past_due", total, wrong=wrong, tolerance=answer_tolerance(total, wrong))
        tools = [t for t in toolset(["crm"], distractors=["crm"]) if t != "crm_search_invoices"]
        return Draft(
            instruction=instruction, tools=tools, gates=[allowed_changes(READ_MARKS)],
            criteria=[facts_check("total", 1, "answer", description="The past-due total over the rep's own accounts, "
                                  "one figure; not-yet-due invoices and other reps' accounts left out.",
                                  require=[f"{who}.past_due"], subject=who, exclude=left_out)],
            solve=solve, variant="portfolio-past-due", max_steps=2 * len(book) + 20, facts=sheet, difficulty="hard",
            traps=(f"{namesake['name']} is a near-namesake account of another rep: its invoices are not in the book",
                   "open invoices not yet due are in the balance but not past due",
                   "the three accounts the rep got this quarter are past the first page of five"),
        )


# country calling codes of the countries world specs place accounts in (others read as +1)
CALLING_CODES = {"United States": "1", "Canada": "1", "United Kingdom": "44", "Germany": "49", "France": "33",
                 "India": "91", "Czechia": "420", "United Arab Emirates": "971", "Singapore": "65", "Spain": "34",
                 "Netherlands": "31", "Belgium": "32", "Switzerland": "41", "Austria": "43", "Italy": "39"}


def _signature_phone(rng: random.Random, country: str = "United States") -> str:
    """A phone as a signature writes it: the account's country code and ten national digits."""
    code = CALLING_CODES.get(country, "1")
    if code == "1":
        return f"+1 555 {rng.randint(200, 989)} {rng.randint(1000, 9999)}"
    return f"+{code} {rng.randint(20, 89)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"


def _phone_expected(phone: str, instruction: str) -> str:
    """The regex a contact's stored phone must match: the number alone, however punctuated ("X or Y" is no phone
    field); where the instruction asks for the signature's values exactly as written, the number as the
    signature writes it ("+1 555 627 1296", not "+15556271296" nor "(555) 627-1296"), but for the spaces."""
    if asks_exact_values(instruction):
        return r"^\s*" + r"\s+".join(re.escape(part) for part in phone.split()) + r"\s*$"
    return rf"^\W*{phone_regex(phone)}\W*$"


def _ascii(text: str) -> str:
    """Letters of a name as a mail address spells them ('Müller-Lüdenscheidt' -> 'mullerludenscheidt')."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(ch for ch in plain.lower() if ch.isalnum())


class ContactFromSignature(Family):
    """Add a new customer contact to the CRM from the signature of their introduction mail.

    Structures: a signature with dashes; one with pipes; a handover mail from the old contact
    before the intro; a second mail announcing a new direct line (the later number wins); and the
    person already in the CRM with an old title and number (update them, never a duplicate).
    Runs on any world: names, phones and currency follow the account's country and the world's locale.
    """

    name = "contact_from_signature"
    skills = ("record_update", "fact_lookup", "latest_instruction")
    category = "crm-hygiene"
    difficulty = "easy"
    apps = ("mail", "crm")
    variants = ("intro-dashes", "intro-pipes", "handover-forward", "new-direct-line", "already-in-crm")
    worlds = ("acme", "shopline", "large", "counsel", "forge")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        fake = faker_for(0, stage.world.meta("locale") or "en_US", self.name, index)
        account = nth(accounts(stage), index, self.name)
        owner = stage.person(account["owner_id"])
        stage.act_as(owner["id"])
        old_contact = contacts_of(stage, account["id"])[rng.randrange(2)]
        first, last = fake.first_name(), fake.last_name()
        name = f"{first} {last}"
        email = f"{_ascii(first)}.{_ascii(last)}@{account['domain']}"
        title = rng.choice(CONTACT_TITLES)
        phone = _signature_phone(rng, account["country"])
        old_phone = _signature_phone(rng, account["country"])
        stage.clock(stamp(day(0), 7, 30))

        def signature(number: str) -> str:
            if variant == "intro-pipes":
                return f"{name} | {title} | {account['name']}\n{number} | {email}"
            return f"--\n{name}\n{title}, {account['name']}\nPhone: {number}\n{email}"

        subject = rng.choice(["Introduction", "Hello from the new project lead", "Taking over from "
                              f"{first_name(old_contact['name'])}"])
        body = (f"Hi {first_name(owner['name'])},\n\nI've just taken over the analytics rollout on our side from "
                f"{first_name(old_contact['name'])}, so I'll be your main contact from now on. Looking forward to "
                f"working together; happy to set up a call next week.\n\nBest,\n{first}\n\n")
        existing = None
        if variant == "handover-forward":
            outside_mail(stage, sender=old_contact["email"], sender_name=old_contact["name"], to=["user"],
                         cc=[email], subject=f"Handover: {name} is your new contact",
                         body=(f"Hi {first_name(owner['name'])},\n\nI'm moving to a new role; {name} ({title}) takes "
                               f"over our account work from today. {first} will introduce themselves "
                               f"separately.\n\nThanks for everything,\n{old_contact['name']}\n"),
                         at=stamp(day(-1), 16, 5))
        if variant == "already-in-crm":
            # a colleague typed the person in weeks ago from a conference badge: old title, old number
            existing = stage.insert("crm_contact", [{
                "account_id": account["id"], "name": name, "email": email,
                "title": rng.choice([t for t in CONTACT_TITLES if t != title]), "phone": old_phone,
                "created_at": stamp(day(-40), 11, 0), "updated_at": stamp(day(-40), 11, 0),
                "updated_by": owner["id"]}])[0]
        if variant == "new-direct-line":
            outside_mail(stage, sender=email, sender_name=name, to=["user"], subject=subject,
                         body=body + signature(old_phone) + "\n", at=stamp(day(-3), 10, 12))
            outside_mail(stage, sender=email, sender_name=name, to=["user"], subject="My new direct line",
                         body=(f"Hi {first_name(owner['name'])},\n\nQuick note: our switchboard moved, so the number "
                               f"in my earlier mail no longer works. Please use my new direct line below.\n\n"
                               f"Thanks,\n{first}\n\n{signature(phone)}\n"), at=stamp(day(0), 7, 42))
        else:
            outside_mail(stage, sender=email, sender_name=name, to=["user"], subject=subject,
                         body=body + signature(phone) + "\n", at=stamp(day(0), 7, 42))
        stage.clock(stamp(day(0), 9, 10))
        if variant == "already-in-crm":
            instruction = rng.choice([
                f"{name} from {account['name']} introduced themselves by mail this morning. Can you make sure the "
                "CRM has them as a contact on that account, with the name, title, phone and email from their "
                "signature?",
                f"Please get {first} at {account['name']} into the CRM properly: their intro mail's signature has "
                "the current title, phone and email.",
            ])
        else:
            instruction = rng.choice([
                f"{name} from {account['name']} introduced themselves by mail. Please add them to the "
                f"CRM as a contact on the {account['name']} account, with the name, title, phone and email from "
                "their signature.",
                f"Can you create a CRM contact for {first} at {account['name']}? Everything you need is in the "
                "signature of their mail; use it exactly as written.",
                f"New contact at {account['name']}: {name}. Could you set them up in the CRM from their mail "
                "(name, title, phone, email)?",
            ])

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query=first)
            for message in found["messages"][:2 if variant == "new-direct-line" else 1]:
                s.call("mail_get_message", message_id=message["id"])
            acc = _named(s.call("crm_search_accounts", query=account["name"])["accounts"], account["name"])
            if existing is not None:
                s.call("crm_search_contacts", query=name, account_id=acc["id"])
                s.call("crm_update_contact", contact_id=existing, title=title, phone=phone)
            else:
                s.call("crm_create_contact", account_id=acc["id"], name=name, email=email, title=title, phone=phone)

        op = "update" if existing is not None else "insert"
        writes = ["crm_create_contact", "crm_update_contact"]
        return Draft(
            instruction=instruction,
            tools=toolset(["mail", "crm"], writes=writes, distractors=["crm", "mail"]),
            gates=[
                RecordCheck(id="contact_created", check="record", table="crm_contact",
                            description="The contact exists once, on the right account, with the signature's "
                                        "(latest) details.",
                            match={"email": email},
                            expect={"account_id": account["id"], "name": name,
                                    "title": title, "phone": {"regex": _phone_expected(phone, instruction)}},
                            count=1),
                allowed_changes("crm_contact", READ_MARKS, max_rows=1),
            ],
            criteria=[ChangedCheck(id="created", check="changed", points=1, table="crm_contact",
                                   description="The new person's contact was added or brought up to date.", op=op,
                                   match={"email": email})],
            solve=solve, variant=variant, max_steps=15, traps={
                "intro-dashes": ("the signature holds the title, phone and email: the sender line alone is not "
                                 "enough",),
                "intro-pipes": ("the signature packs title, phone and email on one line between pipes",),
                "handover-forward": (f"the handover mail is from {old_contact['name']}, who is leaving: their details "
                                     "are not the new contact's",),
                "new-direct-line": ("a later mail replaces the intro's phone with a new direct line: the later number "
                                    "wins",),
                "already-in-crm": ("the person is already in the CRM with an old title and number: update them, "
                                   "never add a duplicate",),
            }[variant],
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
    """Log a CRM call on the right deal from a mailed recap of the call.

    Structures: a colleague's recap; the customer's own recap; a thread with an older call's notes;
    a recap followed by a correction of the next step's deadline (the later day is the one to log,
    the instruction does not say so); and a second open deal of the account whose name contains
    this deal's (the call goes on the one the recap names).
    """

    name = "log_call_from_mail"
    skills = ("record_update", "summarization")
    category = "crm-hygiene"
    difficulty = "easy"
    apps = ("mail", "crm")
    variants = ("colleague-recap", "customer-recap", "two-calls-thread", "corrected-deadline", "sibling-deal")
    worlds = ("acme", "forge", "lantern", "tiny")

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
        due = day(4) if variant == "corrected-deadline" else day(3)
        if variant == "sibling-deal":
            stage.clock(stamp(day(-20), 10, 0))
            sibling = stage.insert("crm_deal", [{**{k: v for k, v in deal.items() if k != "id"},
                                                 "name": f"{deal['name']} - Phase 2", "created_at": stamp(day(-20))}])
            others.append({"id": sibling[0]})
        stage.clock(stamp(when, 17, 20))
        lines = (f"Call with {contact['name']} ({account['name']}) about the {deal['name']} deal.\n"
                 f"- Main point: {fact}.\n- Next step: send the {keyword} follow-up by {day(3).strftime('%A')}.\n")
        logged = lines.replace(day(3).strftime("%A"), due.strftime("%A"))
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
        if variant == "corrected-deadline":
            stage.clock(stamp(day(0), 8, 15))
            colleague_mail(stage, engineer["id"], ["user"], f"Correction: {contact['name']} / {account['name']}",
                           f"Hi {first_name(owner['name'])},\n\nOne correction to my recap: "
                           f"{first_name(contact['name'])} asked for the {keyword} follow-up by "
                           f"{due.strftime('%A')}, not {day(3).strftime('%A')}. Everything else stands.\n\n"
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

        sheet = _recap_facts(point, due, two_calls=variant == "two-calls-thread")
        sheet.sources = ["mail:recap", "crm:crm_deal"]

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query="recap")
            s.call("mail_get_message", message_id=found["messages"][0]["id"])
            if variant == "corrected-deadline":
                correction = s.call("mail_search_messages", query="correction")
                s.call("mail_get_message", message_id=correction["messages"][0]["id"])
            s.call("crm_search_deals", query=deal["name"])
            s.call("crm_search_contacts", account_id=account["id"])
            s.call("crm_log_activity", kind="call", subject=f"Call with {contact['name']}",
                   body=logged, account_id=account["id"], contact_id=contact["id"], deal_id=deal["id"])

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
                # weighs more than the judged point: the judge adds quality, it never makes up for a
                # call logged without its contact (``tasks validate``'s judge-flip check)
                ChangedCheck(id="with_contact", check="changed", points=2, table="crm_activity", op="insert",
                             description="The call is linked to the contact.",
                             match={"deal_id": deal["id"], "contact_id": contact["id"]}),
                judge("notes_match_recap", 1, "no_fabrication", ["crm:crm_activity"], ["mail:recap"],
                      "The logged notes carry the recap's points and nothing invented."),
            ],
            solve=solve, variant=variant, max_steps=15, facts=sheet, traps={
                "colleague-recap": ("the recap names one next step: another call's points or steps are not in it",),
                "customer-recap": ("the recap comes from the customer, not a colleague: the notes are still theirs "
                                   "to log",),
                "two-calls-thread": ("an older kickoff call's notes ('intro only') are not yesterday's call",),
                "corrected-deadline": (f"this morning's correction moves the follow-up to {due.strftime('%A')}: the "
                                       "recap's day is stale",),
                "sibling-deal": (f"'{deal['name']} - Phase 2' is another open deal of the account: the call goes "
                                 "on the one the recap names",),
            }[variant],
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
    said = {due.strftime("%A"), *(d.strftime("%A") for d in (day(-1), day(0)))}  # the call's and the log's days
    for weekday in WEEKDAYS:
        if weekday not in said and weekday not in point[0]:
            sheet.entity(weekday, key=f"other_day_{weekday.casefold()}", aliases=[weekday[:3] + "."],
                         kind="another deadline")
    if two_calls:
        sheet.entity("intro only", key="kickoff", aliases=["kickoff", "kick-off"], kind="other call")
    return sheet
