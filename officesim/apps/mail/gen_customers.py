"""Customer mail: account owners and their contacts about CRM deals, and invoice collections.

Each conversation is anchored on real CRM rows: deal mail quotes the deal's name, amount, stage,
close date and next step and happens while the deal was active; invoice mail cites the invoice
number, amount and dates and goes to the account's finance contact with the owner in copy.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from officesim.apps.mail.gen_cast import Cast
from officesim.apps.mail.gen_mailroom import WINDOW_DAYS, Addr, Mailroom
from officesim.apps.mail.templates import DEAL_SCRIPTS, INVOICE_SCRIPTS
from officesim.apps.money import money
from officesim.clock import parse_ts

_DEAL_KEYWORDS = ("proposal", "pricing", "quote", "order form")  # combined with the account name


def _day(text: str) -> str:
    day = date.fromisoformat(text[:10])
    return f"{day:%B} {day.day}, {day.year}"


def deal_thread(room: Mailroom, cast: Cast, deal: dict[str, Any], competitors: list[str]) -> None:
    """A conversation between the deal owner and a contact of the account, in the deal's stage."""
    rng = room.rng
    account = cast.accounts[deal["account_id"]]
    contacts = cast.contacts[deal["account_id"]]
    contact = contacts[1] if len(contacts) > 1 and rng.random() < 0.7 else contacts[0]
    owner = cast.people[deal["owner_id"]]
    stage = deal["stage"] if deal["stage"] in DEAL_SCRIPTS else "qualification"
    next_step = deal["next_step"] or "a short follow-up call"
    values = {
        "contact_first": contact.first, "owner_first": owner.first, "account": account["name"],
        "deal": deal["name"], "product": deal["name"].split(" - ", 1)[-1],
        "amount": money(deal["amount"], deal["currency"], locale=cast.locale), "close_date": _day(deal["close_date"]),
        "next_step": next_step[0].lower() + next_step[1:], "company": cast.company,
        "weekday": rng.choice(("Monday", "Tuesday", "Wednesday", "Thursday")),
        "competitor": rng.choice(competitors), "percent": rng.choice((5, 8, 10, 12, 15)),
    }
    low = max(0.2, (room.start - parse_ts(deal["updated_at"])).total_seconds() / 86400)
    high = max(low + 0.5, min(WINDOW_DAYS, (room.start - parse_ts(deal["created_at"])).total_seconds() / 86400))
    cc: list[Addr] = []
    helper = cast.role("cs_lead" if stage == "closed_won" else "head_of_sales")
    if helper and helper != owner.person_id and rng.random() < 0.3:
        cc = [cast.people[helper]]
    attachments = []
    if stage in ("proposal", "negotiation"):
        file_id = cast.pick_file(rng, owner.person_id or "", _DEAL_KEYWORDS, must=account["name"].lower(),
                                 fallback=False)
        attachments = [file_id] if file_id else []
    script = rng.choice(DEAL_SCRIPTS[stage])
    room.conversation(script, values, owner, [contact], room.moment(low, high), cc=cc, attachments=attachments,
                      turns=rng.randint(1, len(script.replies)), label="customers")


def invoice_thread(room: Mailroom, cast: Cast, invoice: dict[str, Any], sender: Addr) -> None:
    """A collections mail about one invoice to the account's finance contact, maybe with a reply."""
    rng = room.rng
    account = cast.accounts[invoice["account_id"]]
    contact = cast.contacts[invoice["account_id"]][0]
    owner = cast.people[account["owner_id"]]
    today = room.start.date()
    if invoice["status"] == "paid" and invoice["paid_on"]:
        kind, anchor = "paid", date.fromisoformat(invoice["paid_on"])
    elif invoice["due_on"] < today.isoformat():
        kind, anchor = "overdue", date.fromisoformat(invoice["due_on"]) + timedelta(days=rng.randint(3, 12))
    else:
        kind, anchor = "open", date.fromisoformat(invoice["issued_on"])
    days_back = max(0.3, (today - anchor).days - rng.uniform(0, 1.5))
    values = {
        "number": invoice["number"], "amount": money(invoice["amount"], invoice["currency"], locale=cast.locale),
        "due_date": _day(invoice["due_on"]), "issued_date": _day(invoice["issued_on"]),
        "account": account["name"], "contact_first": contact.first, "sender_first": sender.first,
        "days": (today - date.fromisoformat(invoice["due_on"])).days, "company": cast.company,
        "pay_date": _day((today + timedelta(days=rng.randint(3, 14))).isoformat()),
    }
    cc = [owner] if owner.person_id != sender.person_id else []
    answered = rng.random() < {"overdue": 0.6, "open": 0.4, "paid": 0.3}[kind]
    room.conversation(INVOICE_SCRIPTS[kind], values, sender, [contact], room.moment(max(0.2, days_back - 1),
                      days_back), cc=cc, turns=1 if answered else 0, label="finance")


def customer_mail(room: Mailroom, cast: Cast, rng: random.Random, competitors: list[str]) -> None:
    """Deal conversations for most deals, and collections mail for every overdue invoice and some others."""
    for deal in cast.deals:
        if rng.random() < 0.6:
            deal_thread(room, cast, deal, competitors)
    collector_id = cast.role("ap_specialist") or cast.role("controller")
    today = room.start.date().isoformat()
    for invoice in cast.invoices:
        if invoice["status"] == "void":
            continue
        overdue = invoice["status"] == "open" and invoice["due_on"] < today
        if overdue or rng.random() < 0.3:
            account = cast.accounts[invoice["account_id"]]
            invoice_thread(room, cast, invoice, cast.people[collector_id or account["owner_id"]])
