"""Hard cross-app customer work: brief a colleague on an account, answer a question whose facts are
spread over mail, chat and the CRM."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from typing import Any

from officesim.industries import currency_scale, industries
from officesim.taskgen.base import Draft, Family, GenerationError, Solver, Stage
from officesim.taskgen.colleague_kit import CHATTER
from officesim.taskgen.common import (
    MAIL_TABLES,
    READ_MARKS,
    STAGE_LABELS,
    accounts,
    allowed_changes,
    answer_tolerance,
    colleague_mail,
    contacts_of,
    day,
    ensure_channel,
    first_name,
    invoice_numbers,
    judge,
    mail_guards,
    nth,
    open_deals,
    outside_mail,
    post,
    short_date,
    stamp,
    toolset,
)
from officesim.taskgen.factsheet import (
    FactSheet,
    facts_check,
    invoice_status_entities,
    seen_gate,
    stage_entities,
)
from officesim.taskgen.process_common import all_pages

# (name, how the escalation says it, other ways a colleague may put it): a software company's customers
ISSUES = [("SSO", "SSO logins failing for part of their users", ("single sign-on", "login", "log in", "logins")),
          ("data export", "the nightly data export timing out", ("export", "exports")),
          ("dashboard latency", "dashboard latency spikes during their month-end",
           ("dashboard", "dashboards", "latency")),
          ("billing address", "invoices going to an outdated billing address", ("billing", "address")),
          ("API rate limits", "their integration hitting API rate limits", ("rate limit", "rate-limit", "API limits",
                                                                            "throttling", "integration"))]
# what goes wrong for the customers of a firm of any other industry (a law firm, a clinic group, a maker)
GENERAL_ISSUES = [
    ("billing address", "invoices going to an outdated billing address", ("billing", "address")),
    ("client portal", "their staff unable to log in to our client portal", ("portal", "log in", "login", "logins")),
    ("response times", "slow replies from our team over the last month", ("response time", "slow replies",
                                                                          "responsiveness", "slow")),
    ("duplicate invoice", "being invoiced twice for the same work", ("invoiced twice", "billed twice", "duplicate",
                                                                     "double billing", "double-billed")),
    ("missed delivery", "a delivery date we missed last week", ("missed", "delivery", "late delivery", "delay"))]
# An invoice written as paid (or void) is set aside ("INV-0480 was paid", "INV-0480: $30,200.00, paid"): the facts
# name the statuses, and a name is no marker of what is left out, so the brief's checks say so here
PAID_WORDS = r"(?<!\bnot\s)(?<!\byet\s)\b(?:paid|settled|void(?:ed)?)\b"
PRODUCTS = ["Seat expansion", "Premium Support", "Forecasting module", "Data Connectors add-on", "Training package"]


def _home(stage: Stage) -> str:
    """The world's home currency: every account the families plant on deals in it."""
    return stage.world.meta("currency") or "USD"


def _products(stage: Stage) -> list[str]:
    """What this world's deals sell (its industry's products; a software company's by default)."""
    key = stage.world.meta("industry")
    profile = industries().get(key or "")
    return list(profile.products) if profile and profile.products else PRODUCTS


def _issues(stage: Stage) -> list[tuple[str, str, tuple[str, ...]]]:
    """Escalations a customer of this world's company could raise."""
    return ISSUES if (stage.world.meta("industry") or "software") == "software" else GENERAL_ISSUES


def _amount(stage: Stage, rng: random.Random, low: int, high: int, step: int) -> float:
    """A dollar-sized amount drawn from ``low..high`` in this world's currency (scaled for INR and the like)."""
    return float(rng.randrange(low, high, step) * currency_scale(_home(stage)))


def _home_accounts(stage: Stage, *, quiet: bool = False) -> list[dict[str, Any]]:
    """Accounts whose deals are all in the home currency and that have no invoices yet (a clean slate
    to plant on); ``quiet``: also never mentioned in chat, so the planted escalation is the only one that fits."""
    pool = accounts(stage, "id NOT IN (SELECT account_id FROM crm_deal WHERE currency != ?) AND id NOT IN "
                           "(SELECT account_id FROM crm_invoice)", _home(stage))
    if quiet:
        pool = [a for a in pool if not stage.rows("SELECT id FROM chat_message WHERE text LIKE ? LIMIT 1",
                                                  f"%{a['name']}%")]
    return pool


def _extra_deal(stage: Stage, rng: random.Random, account: dict[str, Any], stage_name: str) -> None:
    taken = {d["name"] for d in stage.rows("SELECT name FROM crm_deal WHERE account_id = ?", account["id"])}
    products = _products(stage)
    product = next(p for p in rng.sample(products, len(products)) if f"{account['name']} - {p}" not in taken)
    stage.insert("crm_deal", [{"account_id": account["id"], "name": f"{account['name']} - {product}",
                               "stage": stage_name, "amount": _amount(stage, rng, 12_000, 140_000, 500),
                               "currency": _home(stage), "close_date": day(rng.randint(25, 110)).isoformat(),
                               "owner_id": account["owner_id"], "next_step": "", "updated_by": account["owner_id"]}])


SISTER_SUFFIXES = ("Holdings", "Europe", "International", "Group", "Services")
# The reads that would do a hard tier's work for it: a search that finds the one chat message, the
# account page listing every deal and open invoice at once, a pipeline summary.
CONVENIENT = ("chat_search_messages", "crm_get_account", "crm_list_pipeline")
HISTORY_YEARS = (2023, 2024, 2025)


def _tools(hard: bool, writes: Sequence[str] = (), distractors: Sequence[str] = ("mail", "crm", "chat")) -> list[str]:
    """The allowed tools; a hard tier goes without the convenience reads."""
    names = toolset(["crm", "mail", "chat"], writes=writes, distractors=distractors)
    return [n for n in names if not (hard and n in CONVENIENT)]


def _sister(stage: Stage, rng: random.Random, account: dict[str, Any], deals: int) -> dict[str, Any]:
    """A near-duplicate account ('<name> Europe', its own domain) with ``deals`` open deals of its own:
    a search by the account's name finds both."""
    name = f"{account['name']} {rng.choice(SISTER_SUFFIXES)}"
    row = {**{k: v for k, v in account.items() if k != "id"}, "name": name, "domain": "eu-" + account["domain"]}
    row["id"] = stage.insert("crm_account", [row])[0]
    for _ in range(deals):
        _extra_deal(stage, rng, row, rng.choice(["proposal", "negotiation"]))
    return row


def _history(stage: Stage, rng: random.Random, account: dict[str, Any], n: int) -> None:
    """``n`` closed deals of earlier years (won and lost): an account with a long record, more deals than
    one result page holds."""
    products = _products(stage)
    rows = []
    for k in range(n):
        year = HISTORY_YEARS[k % len(HISTORY_YEARS)]
        rows.append({"account_id": account["id"], "name": f"{account['name']} - {products[k % len(products)]} "
                                                          f"{year} #{k // len(products) + 1}",
                     "stage": rng.choice(["closed_won", "closed_won", "closed_lost"]),
                     "amount": _amount(stage, rng, 8_000, 90_000, 500), "currency": _home(stage),
                     "close_date": f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                     "owner_id": account["owner_id"], "next_step": "", "updated_by": account["owner_id"]})
    stage.insert("crm_deal", rows)


def _lost(stage: Stage, rng: random.Random, account: dict[str, Any], contact: dict[str, Any],
          when: date) -> dict[str, Any]:
    """An open-looking deal that is lost: the CRM still has it in Negotiation, the owner's note on it
    (dated ``when``) says the customer signed elsewhere."""
    _extra_deal(stage, rng, account, "negotiation")
    deal = open_deals(stage, "account_id = ?", account["id"])[-1]
    stage.insert("crm_activity", [{
        "kind": "note", "subject": f"Lost: {deal['name'].split(' - ', 1)[-1]}",
        "body": f"{contact['name']} told me they signed with a competitor for this one; the deal is lost. I'll close "
                "it out in the CRM after the quarter review.",
        "at": stamp(when, 17, 10), "person_id": account["owner_id"], "account_id": account["id"],
        "contact_id": contact["id"], "deal_id": deal["id"]}])
    return deal


def _renegotiate(stage: Stage, rng: random.Random, deal: dict[str, Any], channel: str) -> float:
    """The head of sales posts a renegotiated amount the CRM does not show yet; returns it."""
    revised = _revised(stage, rng, deal["amount"])
    post(stage, "role:head_of_sales", channel, f"Update on {deal['name']}: we agreed "
                                               f"{stage.money(revised, cents=False)} on yesterday's call (down "
                                               f"from {stage.money(deal['amount'], cents=False)}). The CRM gets "
                                               "fixed once finance signs off; use the new figure in totals.")
    return revised


def _busy_channel(stage: Stage, rng: random.Random, channel: str, first: date, n: int,
                  keys: dict[int, Callable[[], Any]], skip: Sequence[str]) -> None:
    """``n`` messages of everyday deal-desk chatter about other accounts from ``first`` on (working hours,
    half an hour apart), with ``keys[i]`` posted in place of message ``i``: more than one page to read."""
    names = [a["name"] for a in accounts(stage) if a["name"] not in skip and not any(x in a["name"] for x in skip)]
    for i in range(n):
        stage.clock(stamp(first + timedelta(days=i // 18), 9 + (i % 18) // 2, 30 * (i % 2)))
        if i in keys:
            keys[i]()
        else:
            post(stage, rng.choice(["role:head_of_sales", "user"]), channel,
                 rng.choice(CHATTER).format(acc=rng.choice(names)))


class CustomerBrief(Family):
    """Brief a colleague by mail before a customer meeting: open deals, last contact, open invoices, issues.

    Structures: three meetings (the CEO's, a pipeline review, a renewal call) over the same data; an
    invoice the CRM shows open that the customer's remittance mail says is paid; a deal renegotiated
    in #deal-desk (the CRM amount is superseded); a near-duplicate account ('<name> Europe') with deals
    and an invoice of its own; and the hard account review: a long record (more deals and invoices
    than a page holds), the near-duplicate account, a deal the CRM shows open that its owner's note
    says is lost and a renegotiation buried in a busy #deal-desk, without the convenience reads.
    """

    name = "customer_brief"
    skills = ("cross_app_join", "summarization", "communication")
    category = "account-management"
    difficulty = "medium"  # the account review is the hard tier (>= 12 calls, unstated traps, paging)
    apps = ("crm", "mail", "chat")
    variants = ("ceo-meeting", "sales-review", "renewal-call", "paid-per-remittance", "account-review",
                "renegotiated", "sister-account")
    worlds = ("acme", "shopline", "large", "counsel", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        hard = variant == "account-review"
        stage.act_as(rng.choice(["role:cs_lead", "role:ops_manager"]))
        requester_role = {"ceo-meeting": "role:ceo", "sales-review": "role:head_of_sales",
                          "renewal-call": "role:cfo", "paid-per-remittance": "role:cfo",
                          "account-review": "role:ceo", "renegotiated": "role:head_of_sales",
                          "sister-account": "role:cfo"}[variant]
        requester = stage.person(requester_role)
        pool = _home_accounts(stage, quiet=True)
        account = nth(pool, index, self.name)
        stage.clock(stamp(day(-3), 9, 0))
        while len(open_deals(stage, "account_id = ?", account["id"])) < 2:
            _extra_deal(stage, rng, account, rng.choice(["qualification", "proposal", "negotiation"]))
        contact = rng.choice(contacts_of(stage, account["id"]))
        lost = None
        if hard:
            _history(stage, rng, account, 22)
            lost = _lost(stage, rng, account, contact, day(-12))
        sister = _sister(stage, rng, account, 1 if hard else 2) if variant in ("account-review",
                                                                              "sister-account") else None
        deals = open_deals(stage, "account_id = ?", account["id"])
        last = stage.one("SELECT coalesce(max(at), '2026-01-01T00:00:00Z') AS at FROM crm_activity "
                         "WHERE account_id = ?", account["id"])["at"]
        latest = date.fromisoformat(last[:10])
        when = min(max(day(-rng.randint(2, 6)), latest + timedelta(days=1)), day(-1))
        if when <= latest:
            raise GenerationError(f"{account['name']} already has an activity on {latest}; pick another account")
        topic = rng.choice(["renewal timeline", "seat count for next year", "the security review",
                            "their onboarding plan"])
        stage.insert("crm_activity", [{"kind": "call", "subject": f"Call with {contact['name']} about {topic}",
                                       "body": f"Talked through {topic}; they want a follow-up after the meeting.",
                                       "at": stamp(when, 15, 30), "person_id": account["owner_id"],
                                       "account_id": account["id"], "contact_id": contact["id"]}])
        history = 20 if hard else 0
        numbers = invoice_numbers(rng, 3 + history + (sister is not None))
        invoices: list[dict[str, Any]] = [
            {"number": numbers[0], "amount": _amount(stage, rng, 3_000, 40_000, 50), "status": "open",
             "due": day(rng.randint(3, 30))},
            {"number": numbers[1], "amount": _amount(stage, rng, 3_000, 40_000, 50),
             "status": rng.choice(["open", "paid"]), "due": day(-rng.randint(3, 30))},
            {"number": numbers[2], "amount": _amount(stage, rng, 3_000, 40_000, 50), "status": "paid",
             "due": day(-rng.randint(31, 60))}]
        # a long record: monthly invoices of the last two years, all paid (more than one page)
        invoices += [{"number": numbers[3 + k], "amount": _amount(stage, rng, 3_000, 40_000, 50), "status": "paid",
                      "due": day(-70 - 30 * k)} for k in range(history)]
        if variant == "paid-per-remittance":
            # the customer has paid one the CRM still shows open (their remittance mail says so): the
            # second stays open, so the brief still has an open invoice to give
            invoices[1]["status"] = "open"
        stage.insert("crm_invoice", [{"number": i["number"], "account_id": account["id"], "amount": i["amount"],
                                      "currency": _home(stage), "issued_on": (i["due"] - timedelta(days=30)
                                                                              ).isoformat()
                                      if i["due"] < day(-60) else day(-70).isoformat(),
                                      "due_on": i["due"].isoformat(), "status": i["status"],
                                      "paid_on": i["due"].isoformat() if i["status"] == "paid" else None}
                                     for i in invoices])
        sister_invoice: dict[str, Any] | None = None
        if sister is not None:
            sister_invoice = {"number": numbers[-1], "amount": _amount(stage, rng, 3_000, 40_000, 50),
                              "due": day(rng.randint(3, 30))}
            stage.insert("crm_invoice", [{"number": sister_invoice["number"], "account_id": sister["id"],
                                          "amount": sister_invoice["amount"], "currency": _home(stage),
                                          "issued_on": day(-20).isoformat(),
                                          "due_on": sister_invoice["due"].isoformat(), "status": "open",
                                          "paid_on": None}])
        remitted = invoices[0] if variant == "paid-per-remittance" else None
        open_invoices = [i for i in invoices if i["status"] == "open" and i is not remitted]
        keyword, issue, paraphrases = rng.choice(_issues(stage))
        counted = [d for d in deals if d is not lost and (lost is None or d["id"] != lost["id"])]
        amounts = {d["id"]: float(d["amount"]) for d in deals}
        renegotiated = None
        desk = None
        if variant in ("account-review", "renegotiated"):
            renegotiated = rng.choice(counted)
            desk = ensure_channel(stage, "deal-desk", ["role:head_of_sales", "user"])

            def revise() -> None:
                assert renegotiated is not None and desk is not None
                amounts[renegotiated["id"]] = _renegotiate(stage, rng, renegotiated, desk)

            if hard:
                _busy_channel(stage, rng, desk, day(-3), 40, {rng.randrange(8, 30): revise},
                              skip=[account["name"]])
            else:
                stage.clock(stamp(day(-2), 16, 0))
                revise()
        pipeline = sum(amounts[d["id"]] for d in counted)
        stage.clock(stamp(day(-1), 11, 20))
        escalations = ensure_channel(stage, "customer-escalations", ["role:cs_lead", "user"])
        post(stage, "role:cs_lead", escalations, f"Heads-up: {account['name']} reported {issue}. Engineering is on "
                                                 f"it; fix expected by {day(4).strftime('%A')}.")
        if remitted is not None:
            outside_mail(stage, sender=contact["email"], sender_name=contact["name"], to=["user"],
                         subject=f"Remittance advice: {remitted['number']}",
                         body=f"Hello,\n\nPlease note we paid invoice {remitted['number']} "
                              f"({stage.money(remitted['amount'])}) in full by bank transfer yesterday. It should "
                              f"reach your account within two working days.\n\nKind regards,\n{contact['name']}\n"
                              f"{account['name']}\n", at=stamp(day(-1), 16, 5))
        stage.clock(stamp(day(0), 8, 10))
        meeting = {"ceo-meeting": "I'm meeting their leadership on Thursday",
                   "sales-review": "Their account is up in Wednesday's pipeline review",
                   "renewal-call": "I have a call with their finance team about the renewal",
                   "paid-per-remittance": "I'm seeing their CFO tomorrow about payment terms",
                   "account-review": "We have their annual account review with their board on Friday",
                   "renegotiated": "I'm walking the forecast with the CEO this afternoon",
                   "sister-account": "Their procurement lead is in the office on Wednesday"}[variant]
        request = colleague_mail(stage, requester_role, ["user"], f"Brief on {account['name']}?",
                       f"Hi,\n\n{meeting}. Could you send me a short brief on {account['name']}: their open deals "
                       "(amounts and stages, and what they add up to), when we last talked to them and about what, "
                       "any open invoices, and "
                       "anything going on with them I should know about?\n\nThanks,\n"
                       f"{first_name(requester['name'])}\n")
        stage.clock(stamp(day(0), 9, 0))
        ask = first_name(requester["name"])
        instruction = rng.choice({
            "account-review": [
                f"{ask} needs a brief on {account['name']} before their account review; could you pull it "
                "together and mail it to them? Please check it against what the team has said, not just the CRM.",
                f"Please answer {requester['name']}'s mail asking for a brief on {account['name']}. It's a big "
                "account with a long history, so take the time to get it right, and send it by mail.",
                f"Can you prepare the {account['name']} brief {ask} asked for? Everything is in the CRM, mail and "
                "chat somewhere; reply to them by mail.",
            ],
            "renegotiated": [
                f"{ask} wants a brief on {account['name']} for the forecast walk-through; please write it and mail "
                "it back. Use what's current, wherever it's recorded.",
                f"Could you send {requester['name']} the account brief on {account['name']} they asked for by "
                "mail? The CRM, mail and chat should have everything.",
                f"There's a request from {ask} for a short brief on {account['name']}. Please put it together and "
                "reply by mail.",
            ],
            "sister-account": [
                f"{ask} asked me for a brief on {account['name']}; can you write it and mail it to them?",
                f"Please put together the customer brief {requester['name']} wants on {account['name']} and send "
                "it over by mail.",
                f"Could you reply to {ask}'s mail with the brief on {account['name']}? It's all in the CRM, mail "
                "and chat.",
            ],
        }.get(variant, [
            f"{ask} asked me for a brief on {account['name']}; please write it and mail "
            "it back. Everything should be in the CRM, mail and chat.",
            f"Could you answer {requester['name']}'s request for a customer brief on {account['name']}? Send it by "
            "mail.",
            f"There's a mail from {ask} asking what's going on with {account['name']}. "
            "Can you pull it together from the CRM, mail and chat and reply?",
            f"Please put together the account brief on {account['name']} that {requester['name']} wants before "
            "their meeting, and mail it over.",
        ]))

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query=account["name"])
            if remitted is not None:
                advice = next(m for m in found["messages"] if remitted["number"] in m["subject"])
                s.call("mail_get_message", message_id=advice["id"])
            if hard:
                s.call("mail_get_message", message_id=request["id"])
            acc = next(a for a in s.call("crm_search_accounts", query=account["name"])["accounts"]
                       if a["name"] == account["name"])
            if hard:
                assert lost is not None and renegotiated is not None
                all_pages(s, "crm_search_deals", "deals", account_id=acc["id"])
                s.call("crm_get_deal", deal_id=lost["id"])
                s.call("crm_list_activities", account_id=acc["id"])
                all_pages(s, "crm_search_invoices", "invoices", account_id=acc["id"])
                s.call("chat_list_channels")
                s.call("chat_list_messages", channel=escalations)
                all_pages(s, "chat_list_messages", "messages", channel=desk, limit=20)
                s.call("crm_get_deal", deal_id=renegotiated["id"])
            else:
                s.call("crm_search_deals", account_id=acc["id"], stage="open")
                s.call("crm_list_activities", account_id=acc["id"])
                s.call("crm_search_invoices", account_id=acc["id"], status="open")
                s.call("chat_search_messages", query=account["name"])
                if renegotiated is not None:
                    s.call("chat_list_messages", channel=desk, limit=10)
            deal_lines = "\n".join(f"- {d['name']}: {stage.money(amounts[d['id']], cents=False)}, "
                                   f"{STAGE_LABELS[d['stage']]}" for d in counted)
            invoice_lines = "\n".join(f"- {i['number']}: {stage.money(i['amount'])}, due {i['due'].isoformat()}"
                                      for i in open_invoices)
            s.call("mail_send_message", to=[requester["email"]], subject=f"Brief: {account['name']}",
                   body=f"Hi {first_name(requester['name'])},\n\nOpen deals:\n{deal_lines}\nTotal open "
                        f"pipeline: {stage.money(pipeline, cents=False)}\n\nLast contact: "
                        f"{when.isoformat()}, a call with {contact['name']} about {topic}.\n\nOpen invoices:\n"
                        f"{invoice_lines}\n\nHeads-up: they reported {issue}; engineering expects a fix by "
                        f"{day(4).strftime('%A')}.\n\nBest")

        sheet = FactSheet()
        acc = sheet.entity(account["name"], key="account", kind="account")
        all_deals = stage.rows("SELECT * FROM crm_deal WHERE account_id = ?", account["id"])
        deal_keys: list[str] = []
        left_out: list[str] = []
        # each deal's stage and each invoice's status is an entity: a brief giving a deal another stage
        # ("Closed Won" while it is in Negotiation) or an open invoice as paid misstates it
        stages = stage_entities(sheet)
        for deal in deals:
            product = deal["name"].split(" - ", 1)[-1]
            key = sheet.entity(deal["name"], key=f"deal_{len(deal_keys) + len(left_out) + 1}", aliases=[product],
                               kind="deal")
            # a renegotiated deal's CRM amount is no wrong reading of its own (a brief may quote it as
            # superseded): the total with it is, and the deal must be given at its new amount
            sheet.fact(key, "amount", amounts[deal["id"]])
            sheet.fact(key, "close_date", deal["close_date"])
            if deal in counted:  # (the lost one's CRM stage is not its stage: a brief may cite it as stale)
                sheet.fact(key, "stage", stages[deal["stage"]])
            (deal_keys if deal in counted else left_out).append(key)
        closed = [d["amount"] for d in all_deals if d["stage"] not in STAGE_LABELS or d["id"] not in
                  {x["id"] for x in deals}]
        crm_open = sum(d["amount"] for d in deals)
        wrong = [sum(d["amount"] for d in all_deals), crm_open, *(pipeline - amounts[d["id"]] for d in counted),
                 *(pipeline + amounts[d["id"]] for d in deals if d not in counted),
                 *([pipeline - amounts[renegotiated["id"]] + renegotiated["amount"]] if renegotiated else [])]
        sister_keys: list[str] = []
        if sister is not None:
            sister_keys.append(sheet.entity(sister["name"], key="sister_account", kind="account"))
            sister_deals = open_deals(stage, "account_id = ?", sister["id"])
            for n, deal in enumerate(sister_deals, start=1):
                key = sheet.entity(deal["name"], key=f"sister_deal_{n}", kind="deal")
                sheet.fact(key, "amount", deal["amount"])
                sister_keys.append(key)
            wrong.append(pipeline + sum(d["amount"] for d in sister_deals))
        sheet.fact(acc, "open_pipeline", pipeline, wrong=wrong)
        sheet.figure(*closed)
        if renegotiated is not None:
            sheet.figure(renegotiated["amount"])  # "down from $X" names the superseded figure as such
        sheet.fact(acc, "last_contact", when.isoformat(), wrong=[latest.isoformat()] if latest != when else ())
        # the earlier contacts are in the CRM: a brief may mention them, as earlier ("FYI, also on Sep 16")
        earlier = sorted({r["at"][:10] for r in stage.rows("SELECT at FROM crm_activity WHERE account_id = ?",
                                                             account["id"])} - {when.isoformat()})
        for n, at in enumerate(earlier, start=1):
            sheet.fact(acc, f"earlier_contact_{n}", at)
        invoice_keys: list[str] = []
        paid_keys: list[str] = []
        statuses = invoice_status_entities(sheet)
        for inv in invoices:
            key = sheet.entity(inv["number"], key=f"invoice_{len(invoice_keys) + len(paid_keys) + 1}", kind="invoice")
            sheet.fact(key, "amount", inv["amount"])
            sheet.fact(key, "due", inv["due"].isoformat())
            if inv is not remitted:  # (paid per the customer, open in the CRM: "the CRM still shows it open")
                sheet.fact(key, "status", statuses[inv["status"]])
            (invoice_keys if inv["status"] == "open" and inv is not remitted else paid_keys).append(key)
        if sister_invoice is not None:
            key = sheet.entity(sister_invoice["number"], key="sister_invoice", kind="invoice")
            sheet.fact(key, "amount", sister_invoice["amount"])
            sheet.fact(key, "due", sister_invoice["due"].isoformat())
            sister_keys.append(key)
        issue_key = sheet.entity(keyword, key="escalation", aliases=paraphrases, kind="issue")
        # the chat post's date is the data's own (the chat tools show it): a brief may give it ("flagged Oct 4");
        # the fix's date is not (the post says "by Friday": 9 Oct alone is resolved, not read; see r5)
        sheet.fact(issue_key, "reported", day(-1).isoformat())
        sheet.entity(contact["name"], key="contact", aliases=[first_name(contact["name"])], kind="contact")
        to = [requester_role]
        lost_words = r"\blost\b|closed[\s-]lost|signed with a competitor" if lost is not None else None
        # "paid" is a status's name now, and names are no markers: a paid invoice written as paid is left out
        left_out_words = "|".join(w for w in (lost_words, PAID_WORDS) if w)
        return Draft(
            instruction=instruction,
            tools=_tools(hard, writes=["mail_send_message", "mail_reply_message"]),
            gates=[
                facts_check("brief_sent", None, "sent_mail", to=to, trace_to="facts", subject=acc,
                            description="The brief went back with every open deal's amount (as it stands today) "
                                        "and their total, and no figure that is not about what was asked (a dump "
                                        "of the data fails).",
                            require=[*(f"{k}.amount" for k in deal_keys), f"{acc}.open_pipeline"],
                            exclude=[*left_out, *sister_keys], excluded_also=left_out_words),
                # the rest of what was asked is the core too: judged points must not make up for a paid
                # invoice listed as open, a guessed last contact or a missing escalation
                facts_check("brief_covers", None, "sent_mail", to=to, trace_to="facts", subject=acc,
                            description="The brief also gives the open invoices (paid ones only as paid), the "
                                        "last contact's date and the open escalation.",
                            require=[*(f"{k}.amount" for k in invoice_keys), f"{acc}.last_contact"],
                            exclude=[*paid_keys, *sister_keys], name=[issue_key],
                            excluded_also=left_out_words),
                allowed_changes(*MAIL_TABLES),
            ],
            criteria=[
                facts_check("open_invoices", 2, "sent_mail", to=to, trace_to="facts",
                            description="The open invoices with their amounts; paid ones only as paid.",
                            require=[f"{k}.amount" for k in invoice_keys], exclude=[*paid_keys, *sister_keys],
                            excluded_also=PAID_WORDS),
                facts_check("last_contact", 1, "sent_mail", to=to, trace_to="facts", subject=acc,
                            description="The last contact's date is given.", require=[f"{acc}.last_contact"]),
                facts_check("escalation", 1, "sent_mail", to=to, trace_to="facts",
                            description="The open escalation is mentioned.", name=[issue_key]),
                judge("complete", 2, "answers_every_question", ["sent_mail"], [f"mail:Brief on {account['name']}"],
                      "Every item the requester asked for is covered."),
                judge("accurate", 2, "no_fabrication", ["sent_mail"], ["crm:crm_deal", "crm:crm_invoice"],
                      "Nothing in the brief is invented."),
                *mail_guards([requester_role], keep=[request["id"]]),
            ],
            solve=solve, variant=variant, max_steps=40 if hard else 30, facts=sheet,
            difficulty="hard" if hard else None,
            traps=self._traps(variant, invoices, latest != when and earlier, sister, lost, renegotiated),
        )

    @staticmethod
    def _traps(variant: str, invoices: list[dict[str, Any]], earlier: Any, sister: dict[str, Any] | None,
               lost: dict[str, Any] | None, renegotiated: dict[str, Any] | None) -> tuple[str, ...]:
        """What a quick reading of this instance gets wrong (the gates above fail each one)."""
        traps = []
        if any(i["status"] == "paid" for i in invoices):
            traps.append("paid invoices sit beside the open ones in the CRM")
        if variant == "paid-per-remittance":
            traps.append("an invoice the CRM shows open was paid (the customer's remittance mail)")
        if earlier:
            traps.append("older activities in the CRM: the last contact is the newest one")
        if sister is not None:
            traps.append(f"a near-duplicate account, {sister['name']}, with deals and an invoice of its own")
        if lost is not None:
            traps.append(f"{lost['name']} looks open in the CRM; the owner's note on it says it is lost")
        if renegotiated is not None:
            traps.append(f"{renegotiated['name']} was renegotiated in #deal-desk; the CRM amount is superseded")
        return tuple(traps)


TOPICS = ["the data residency questionnaire", "a security review of our SOC 2 report", "adding SSO for their "
          "contractors", "moving their billing to quarterly", "a sandbox environment for testing"]
# the same for a company of any other industry (the last word is what the reference searches mail for)
GENERAL_TOPICS = ["the data protection questionnaire", "a review of our insurance certificates",
                  "moving their billing to quarterly", "a discount for paying upfront",
                  "a named contact for out-of-hours escalations"]


def _revised(stage: Stage, rng: random.Random, amount: float) -> float:
    """A renegotiated amount: 10 to 25% off ``amount``, on the same round step the deals use."""
    step = 500 * currency_scale(_home(stage))
    return float(max(step, round(amount * rng.choice([0.75, 0.8, 0.85, 0.9]) / step) * step))


def _cutoff(stage: Stage, rng: random.Random, account: dict[str, Any]) -> date:
    """A close-date cut-off with open deals of ``account`` on both sides (planting a later deal if needed)."""
    for _ in range(4):
        dates = sorted({d["close_date"] for d in open_deals(stage, "account_id = ?", account["id"])})
        if len(dates) >= 2:
            return date.fromisoformat(dates[rng.randrange(len(dates) - 1)])
        _extra_deal(stage, rng, account, rng.choice(["proposal", "negotiation"]))
    raise GenerationError(f"{account['name']}'s open deals all close on one day; pick another account")


class ThreeAppQuestion(Family):
    """A number whose facts sit in three apps: a mail names the contact, chat excludes or revises a deal (or
    a stage or close-date rule narrows the count), the CRM sums.

    The hard tier ("really-open") says no rule: the contact shares a name with one at a near-duplicate
    account, the customer has more deals than a page holds, one the CRM shows open is lost by its
    owner's note, and one was renegotiated in a busy #deal-desk; the convenience reads are left out.
    """

    name = "three_app_question"
    skills = ("cross_app_join", "fact_lookup")
    category = "cross-app-analysis"
    difficulty = "medium"  # "really-open" is the hard tier (>= 12 calls, unstated traps, paging)
    apps = ("mail", "chat", "crm")
    variants = ("exclude-dead-deal", "chat-about-other-account", "late-stage-only", "revised-in-chat",
                "really-open", "closing-by-date")
    worlds = ("acme", "shopline", "large", "counsel", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        stage.act_as(rng.choice(["role:ops_manager", "role:cfo", "role:cs_lead"]))
        pool = _home_accounts(stage)
        account = nth(pool, index, self.name)
        other = nth([a for a in pool if a["id"] != account["id"]], index, self.name, salt="other")
        stage.clock(stamp(day(-10), 9, 0))
        if variant == "really-open":
            return self._really_open(stage, rng, account, other)
        while len(open_deals(stage, "account_id = ?", account["id"])) < 3:
            _extra_deal(stage, rng, account, rng.choice(["qualification", "proposal", "negotiation"]))
        if not open_deals(stage, "account_id = ?", other["id"]):
            _extra_deal(stage, rng, other, "proposal")
        if variant == "late-stage-only" and not open_deals(stage, "account_id = ? AND stage IN ('proposal', "
                                                           "'negotiation')", account["id"]):
            _extra_deal(stage, rng, account, "negotiation")
        deals = open_deals(stage, "account_id = ?", account["id"])
        topic, distractor_topic = rng.sample(TOPICS if _issues(stage) is ISSUES else GENERAL_TOPICS, 2)
        contact = rng.choice(contacts_of(stage, account["id"]))
        other_contact = rng.choice(contacts_of(stage, other["id"]))
        _topic_mails(stage, contact, other_contact, topic, distractor_topic)
        stage.clock(stamp(day(-2), 16, 0))
        desk = ensure_channel(stage, "deal-desk", ["role:head_of_sales", "user"])
        dead = rng.choice(deals)
        other_dead = open_deals(stage, "account_id = ?", other["id"])[0]
        head = stage.person("role:head_of_sales")
        if variant == "exclude-dead-deal":
            post(stage, "role:head_of_sales", desk, f"Forecast hygiene: stop counting {dead['name']} in any totals; "
                                                    "the customer has no budget this year. Leave the record open "
                                                    "for now.")
            counted = [d for d in deals if d["id"] != dead["id"]]
            rule = (f" Leave out any deal {first_name(head['name'])} said in #deal-desk we should stop counting.")
        elif variant == "chat-about-other-account":
            post(stage, "role:head_of_sales", desk, f"Forecast hygiene: stop counting {other_dead['name']} in any "
                                                    "totals; no budget this year.")
            counted = deals
            rule = (f" Leave out any deal {first_name(head['name'])} said in #deal-desk we should stop counting.")
        elif variant == "revised-in-chat":
            # a renegotiated amount the CRM does not show yet: the CRM's sum is the stale reading
            revised = _renegotiate(stage, rng, dead, desk)
            counted = deals
            rule = " Use the latest figures: a deal renegotiated in #deal-desk counts at its new amount."
        elif variant == "closing-by-date":
            cutoff = _cutoff(stage, rng, account)
            deals = open_deals(stage, "account_id = ?", account["id"])
            counted = [d for d in deals if d["close_date"] <= cutoff.isoformat()]
            rule = f" Only count deals expected to close by {short_date(cutoff)}."
        else:
            counted = [d for d in deals if d["stage"] in ("proposal", "negotiation")]
            rule = " Only count deals in the Proposal or Negotiation stage."
        total = sum(d["amount"] for d in counted)
        if variant == "revised-in-chat":
            total += revised - dead["amount"]
        wrong = [sum(d["amount"] for d in deals), *(total - d["amount"] for d in counted),
                 total + other_dead["amount"], *(total + d["amount"] for d in deals if d not in counted)]
        wrong = [w for w in dict.fromkeys(wrong) if abs(w - total) > 0.5]
        stage.clock(stamp(day(0), 9, 0))
        instruction = rng.choice([
            f"What's the total value of the open deals we have with the customer whose contact emailed me last week "
            f"about {topic}?{rule} Give me the number.",
            f"Someone at a customer mailed me last week about {topic}. How much is open with that customer in the "
            f"CRM right now?{rule} Just the total, please.",
            f"Quick one before my call: the contact who wrote to me about {topic} - what do their company's open "
            f"deals add up to?{rule} One number is fine.",
        ])

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query=topic.split()[-1])
            s.call("mail_get_message", message_id=found["messages"][0]["id"])
            con = s.call("crm_search_contacts", query=contact["email"])["contacts"][0]
            s.call("crm_search_deals", account_id=con["account_id"], stage="open")
            if variant not in ("late-stage-only", "closing-by-date"):
                s.call("chat_list_messages", channel=desk, limit=10)
            s.submit(stage.money(total, cents=False))

        sheet = FactSheet()
        acc = sheet.entity(account["name"], key="account", kind="account")
        other_key = sheet.entity(other["name"], key="other_account", kind="account")
        excluded_keys = []
        for position, deal in enumerate(deals, start=1):
            product = deal["name"].split(" - ", 1)[-1]
            key = sheet.entity(deal["name"], key=f"deal_{position}", aliases=[product], kind="deal")
            sheet.fact(key, "amount", deal["amount"])
            if deal not in counted:
                excluded_keys.append(key)
        sheet.fact(acc, "open_total", total, wrong=wrong, tolerance=answer_tolerance(total, wrong))
        sheet.figure(other_dead["amount"])
        if variant == "revised-in-chat":
            sheet.figure(revised)
        return Draft(
            instruction=instruction,
            tools=toolset(["mail", "chat", "crm"], distractors=["mail", "crm"]),
            gates=[allowed_changes(READ_MARKS), seen_gate(figures=[d["amount"] for d in counted])],
            criteria=[facts_check("total", 1, "answer", description="The right total, one figure, every figure "
                                  "traceable; a deal left out is named only as left out.",
                                  require=[f"{acc}.open_total"], subject=acc, exclude=[*excluded_keys, other_key])],
            solve=solve, variant=variant, max_steps=20, facts=sheet, traps=(
                "a contact of another customer mailed last week too, about something else",
                {"exclude-dead-deal": "the deal #deal-desk says to stop counting is still open in the CRM",
                 "chat-about-other-account": "the deal #deal-desk says to stop counting is another customer's",
                 "late-stage-only": "deals in earlier stages are open too, in the same list",
                 "revised-in-chat": "the CRM still shows the old amount of the deal renegotiated in #deal-desk",
                 "closing-by-date": "open deals closing after the cut-off are in the same list"}[variant]),
        )

    def _really_open(self, stage: Stage, rng: random.Random, account: dict[str, Any],
                     other: dict[str, Any]) -> Draft:
        """The hard tier: what is really open with the customer, with every trap unstated."""
        while len(open_deals(stage, "account_id = ?", account["id"])) < 3:
            _extra_deal(stage, rng, account, rng.choice(["qualification", "proposal", "negotiation"]))
        topic, distractor_topic = rng.sample(TOPICS if _issues(stage) is ISSUES else GENERAL_TOPICS, 2)
        contact = rng.choice(contacts_of(stage, account["id"]))
        _history(stage, rng, account, 22)
        sister = _sister(stage, rng, account, 2)
        local = contact["email"].split("@")[0]
        stage.insert("crm_contact", [{"account_id": sister["id"], "name": contact["name"],
                                      "email": f"{local}@{sister['domain']}", "title": "Operations Manager",
                                      "phone": "", "updated_by": sister["owner_id"]}])
        lost = _lost(stage, rng, account, contact, day(-8))
        deals = open_deals(stage, "account_id = ?", account["id"])
        counted = [d for d in deals if d["id"] != lost["id"]]
        renegotiated = rng.choice(counted)
        other_contact = rng.choice(contacts_of(stage, other["id"]))
        outside_mail(stage, sender=f"{local}@{sister['domain']}", sender_name=contact["name"], to=["user"],
                     subject="Thanks", body=f"Hi,\n\nThanks for last week's training session, very useful.\n\n"
                                            f"{contact['name']}\n{sister['name']}\n", at=stamp(day(-7), 11, 15))
        _topic_mails(stage, contact, other_contact, topic, distractor_topic)
        desk = ensure_channel(stage, "deal-desk", ["role:head_of_sales", "user"])
        amounts = {d["id"]: float(d["amount"]) for d in deals}

        def revise() -> None:
            amounts[renegotiated["id"]] = _renegotiate(stage, rng, renegotiated, desk)

        _busy_channel(stage, rng, desk, day(-4), 45, {rng.randrange(10, 40): revise}, skip=[account["name"]])
        total = sum(amounts[d["id"]] for d in counted)
        sister_total = sum(d["amount"] for d in open_deals(stage, "account_id = ?", sister["id"]))
        crm_total = sum(d["amount"] for d in deals)
        wrong = [crm_total, total + amounts[lost["id"]], total - amounts[renegotiated["id"]] + renegotiated["amount"],
                 sister_total, total + sister_total, crm_total + sister_total,
                 *(total - amounts[d["id"]] for d in counted)]
        wrong = [w for w in dict.fromkeys(wrong) if abs(w - total) > 0.5]
        stage.clock(stamp(day(0), 9, 0))
        instruction = rng.choice([
            f"Someone at a customer mailed me last week about {topic}. What is really still open with that "
            "customer, in money, as of today? One figure, please.",
            f"Before I call them back: the contact who wrote to me about {topic} - how much business do we "
            "genuinely still have open with their company? Just the total.",
            f"I need the true open pipeline with the customer whose contact emailed me about {topic} last week. "
            "Can you work it out and give me the number?",
        ])

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query=topic.split()[-1])
            mail = next(m for m in found["messages"] if m["subject"] == "Quick question")
            s.call("mail_get_message", message_id=mail["id"])
            namesakes = s.call("crm_search_contacts", query=contact["name"])["contacts"]
            con = next(c for c in namesakes if c["email"] == contact["email"])
            s.call("crm_get_contact", contact_id=con["id"])
            all_pages(s, "crm_search_deals", "deals", account_id=con["account_id"])
            s.call("crm_list_activities", account_id=con["account_id"])
            s.call("crm_get_deal", deal_id=lost["id"])
            s.call("chat_list_channels")
            all_pages(s, "chat_list_messages", "messages", channel=desk, limit=20)
            s.call("crm_get_deal", deal_id=renegotiated["id"])
            s.submit(stage.money(total, cents=False))

        sheet = FactSheet()
        acc = sheet.entity(account["name"], key="account", kind="account")
        sister_key = sheet.entity(sister["name"], key="sister_account", kind="account")
        excluded_keys = [sister_key]
        for position, deal in enumerate(deals, start=1):
            product = deal["name"].split(" - ", 1)[-1]
            key = sheet.entity(deal["name"], key=f"deal_{position}", aliases=[product], kind="deal")
            sheet.fact(key, "amount", amounts[deal["id"]])
            if deal["id"] == lost["id"]:
                excluded_keys.append(key)
        sheet.fact(acc, "open_total", total, wrong=wrong, tolerance=answer_tolerance(total, wrong))
        sheet.figure(renegotiated["amount"], sister_total)
        return Draft(
            instruction=instruction, tools=_tools(True, distractors=("mail", "crm")),
            gates=[allowed_changes(READ_MARKS)],
            criteria=[facts_check("total", 1, "answer", description="The customer's really open total, one figure, "
                                  "every figure traceable; a deal left out is named only as left out.",
                                  require=[f"{acc}.open_total"], subject=acc, exclude=excluded_keys,
                                  excluded_also=r"\blost\b|closed[\s-]lost")],
            solve=solve, variant="really-open", max_steps=40, facts=sheet, difficulty="hard",
            traps=(f"a contact of the same name works at the near-duplicate account {sister['name']} (and mailed)",
                   f"{lost['name']} looks open in the CRM; the owner's note on it says it is lost",
                   f"{renegotiated['name']} was renegotiated in a busy #deal-desk; the CRM amount is superseded"),
        )


def _topic_mails(stage: Stage, contact: dict[str, Any], other_contact: dict[str, Any], topic: str,
                 distractor: str) -> None:
    """The question's two mails: another account's contact asking about ``distractor``, then the
    contact asking about ``topic``; the agent must find the customer by the topic, not take
    whoever wrote."""
    outside_mail(stage, sender=other_contact["email"], sender_name=other_contact["name"], to=["user"],
                 subject="Question", body=f"Hi,\n\nCould we talk about {distractor}?\n\n"
                                          f"{other_contact['name']}\n", at=stamp(day(-6), 10, 5))
    outside_mail(stage, sender=contact["email"], sender_name=contact["name"], to=["user"],
                 subject="Quick question", body=f"Hello,\n\nWe'd like to discuss {topic} before we go further. "
                                                f"Do you have time this week?\n\nBest,\n{contact['name']}\n",
                 at=stamp(day(-5), 14, 40))
