"""What the families with colleagues who answer share: the cast, scripted replies, the deal they
act on, the reference's ask-wait-read moves and the guards every such grader needs.

These families (ask before acting, approval chains, late changes, conflicting instructions,
delegated requests) all end in one CRM deal changed as a colleague's latest word says, and a
message to whoever asked.  The colleagues' replies and the timed events change the world too
(their mail and DMs are rows), so the collateral gate allows mail and chat rows and the penalties
look at what the *user* sent: mail to anyone outside the cast, chat messages outside the DMs the
task planted with the cast.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from officesim.colleagues import Colleague, Reply
from officesim.grading.record_checks import AllowedChangesCheck, ChangedCheck, RecordCheck
from officesim.taskgen.base import Difficulty, GenerationError, Solver, Stage, WorldLacks
from officesim.taskgen.common import MAIL_TABLES, day, first_name, mail_guards, nth, open_deals, stamp, toolset

CHAT_TABLES = ("chat_message", "chat_channel", "chat_member")
DEAL_FIELDS = ["amount", "close_date", "next_step", "updated_at", "updated_by"]
WRITES = ["crm_update_deal", "chat_send_dm", "mail_send_message", "mail_reply_message", "chat_reply_message"]
DESK = "deal-desk"
CHATTER = ["Anyone have the latest security questionnaire template?", "Pricing call with {acc} moved to Thursday.",
           "{acc} asked for a reference customer in their industry.", "Reminder: forecast calls are at 4pm today.",
           "Who can cover a demo for {acc} on Friday morning?", "{acc} legal came back with two redlines.",
           "Updated the {acc} next step after this morning's call.", "{acc} wants the order form in EUR, any blocker?",
           "Quick one: do we still offer the onboarding bundle?", "{acc} is asking about SSO on the starter plan.",
           "Heads-up: {acc} champion is leaving at the end of the month.", "Has anyone spoken to {acc} this week?"]
# The convenience reads a hard tier goes without: a search that finds the one message, a pipeline summary.
CONVENIENT = ("chat_search_messages", "crm_list_pipeline")


def tools(hard: bool = False, writes: Iterable[str] = (), apps: Iterable[str] = ()) -> list[str]:
    """Reads of CRM, mail and chat (and ``apps``), the writes these tasks need and the usual distractor
    writes; a hard tier goes without the convenience reads."""
    names = toolset(["crm", "mail", "chat", *apps], writes=[*WRITES, *writes], distractors=["crm", "mail", "chat"])
    return [n for n in names if not (hard and n in CONVENIENT)]


@dataclass
class Cast:
    """Who a colleague task is about: the acting user, the head of sales, the deal, its owner and account."""

    user: dict[str, Any]
    head: dict[str, Any]
    deal: dict[str, Any]
    rep: dict[str, Any]
    account: dict[str, Any]
    others: dict[str, dict[str, Any]]  # the roles kept off the deal (role ref -> person)


def cast(stage: Stage, rng: random.Random, family: str, index: int, *,
         users: Sequence[str] = ("role:ops_manager", "role:cs_lead"), keep_out: Sequence[str] = (),
         skip_deals: Iterable[str] = ()) -> Cast:
    """Choose the acting user and the deal of instance ``index``: owned by neither the user, the head of
    sales nor the roles in ``keep_out`` (they play their own part), and not one of ``skip_deals`` (ids)."""
    stage.act_as(users[0] if len(users) == 1 else rng.choice(list(users)))
    user = stage.world.user
    head = stage.person("role:head_of_sales")
    others = {ref: stage.person(ref) for ref in keep_out}
    skip = set(skip_deals)
    deals = [d for d in home_deals(stage, exclude=[user["id"], head["id"], *(p["id"] for p in others.values())])
             if d["id"] not in skip]
    deal = nth(deals, index, family)
    account = stage.one("SELECT * FROM crm_account WHERE id = ?", deal["account_id"])
    return Cast(user, head, deal, stage.person(deal["owner_id"]), account, others)


def two_amounts(rng: random.Random, amount: float) -> tuple[float, float]:
    """A first figure and the one that supersedes it, both near ``amount`` and clearly apart."""
    first, final = amount_near(rng, amount), 0.0
    while not final or abs(final - first) < 0.04 * first:
        final = amount_near(rng, amount)
    return first, final


def home_deals(stage: Stage, *, exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Open, past-prospecting deals in the world's currency, owned by someone other than ``exclude``."""
    home = stage.world.meta("currency") or "USD"
    skip = set(exclude)
    deals = [d for d in open_deals(stage, "currency = ? AND stage != 'prospecting'", home)
             if d["owner_id"] not in skip]
    if not deals:
        raise WorldLacks(f"no open {home} deals past prospecting")
    return deals


def others_in(stage: Stage, department_kind: str, *, exclude: Iterable[str]) -> list[dict[str, Any]]:
    """People of a department kind (Sales, Finance, ...) other than ``exclude`` (ids)."""
    skip = set(exclude)
    name = stage.department(department_kind)
    rows = stage.rows("SELECT p.* FROM directory_person p JOIN directory_department d ON d.id = p.department_id "
                      "WHERE d.name = ? ORDER BY p.id", name)
    found = [r for r in rows if r["id"] not in skip]
    if not found:
        raise WorldLacks(f"no one else in {name}")
    return found


def chatter(stage: Stage, rng: random.Random, channel: str, people: Sequence[dict[str, Any]], *, skip: str,
            count: int = 24) -> None:
    """``count`` posts of everyday sales chatter after a request (yesterday afternoon, this morning), so
    the request is older than one page of the channel; ``skip``: the account the request is about."""
    pool = [a["name"] for a in stage.rows("SELECT name FROM crm_account WHERE id != ? ORDER BY id", skip)]
    for n in range(count):
        hour, minute = divmod(16 * 60 + 10 * n if n < count // 2 else 7 * 60 + 8 * (n - count // 2), 60)
        stage.clock(stamp(day(-1) if n < count // 2 else day(0), hour, minute))
        author = people[n % len(people)]
        stage.act(author["id"], "chat_post_message", channel=channel, text=rng.choice(CHATTER).format(
            acc=rng.choice(pool)))


def dm_history(stage: Stage, person: dict[str, Any], opener: str, answer: str) -> str:
    """An earlier DM exchange between the user and ``person``; returns the DM channel's id.

    Planting it gives the conversation a known id, so the penalty for chatting with anyone else
    can name the channels the task allows.
    """
    sent = stage.act("user", "chat_send_dm", person=person["email"], text=opener)
    stage.act(person["id"], "chat_send_dm", person="user", text=answer)
    return str(sent["channel_id"])


def amount_near(rng: random.Random, amount: float, low: float = 0.78, high: float = 1.3) -> float:
    """A new round amount for a deal, clearly different from ``amount``."""
    for _ in range(20):
        value = float(round(amount * rng.uniform(low, high), -2))
        if abs(value - amount) >= 0.05 * amount and value > 0:
            return value
    raise GenerationError(f"no amount near {amount} differs enough")


def answer(text: str, minutes: int) -> Reply:
    """A scripted reply that takes ``minutes`` to arrive."""
    return Reply(text=text, after_minutes=minutes)


def replies(person: dict[str, Any], *texts_and_minutes: tuple[str, int], about: Sequence[str] = ()) -> Colleague:
    """A colleague (by id) who answers the 1st, 2nd, ... message with these texts."""
    return Colleague(person=person["id"], about=list(about),
                     replies=[answer(text, minutes) for text, minutes in texts_and_minutes])


def away(person: dict[str, Any], until: str, deputy: dict[str, Any]) -> Colleague:
    """A colleague out of office whose auto-reply names a deputy."""
    return Colleague(person=person["id"], out_of_office=(
        f"Thanks for your message. I'm out of office until {until} with no access to mail or chat. For anything "
        f"urgent, including my deals, please contact {deputy['name']} ({deputy['email']})."))


# ---------------------------------------------------------------------------- the reference's moves
def ask(s: Solver, person: dict[str, Any], text: str, *, via: str = "dm", subject: str = "Quick question") -> None:
    """Ask a colleague by DM or mail, as an agent would."""
    if via == "dm":
        s.call("chat_send_dm", person=person["email"], text=text)
    else:
        s.call("mail_send_message", to=[person["email"]], subject=subject, body=text)


def heard(s: Solver, person: dict[str, Any], needle: str, *, via: str = "dm") -> dict[str, Any]:
    """Read the colleague's answer (DM history or mailbox); the answer must be there by now.

    A reference that reads before the reply arrived is a broken family, not a hard task.
    """
    if via == "dm":
        found = s.call("chat_list_messages", channel=f"@{person['email']}", limit=5)
        texts = [m["text"] for m in found["messages"] if m["author_id"] == person["id"]]
    else:
        found = s.call("mail_search_messages", sender=person["email"], limit=5)
        texts = [m["snippet"] for m in found["messages"]]
        if found["messages"]:
            message = s.call("mail_get_message", message_id=found["messages"][0]["id"])
            texts.insert(0, message["body"])
    if not texts or needle not in texts[0]:
        raise GenerationError(f"the reference read {person['email']}'s {via} before the answer with "
                              f"{needle!r} arrived: {texts[:1]}")
    return found


# ---------------------------------------------------------------------------- grader pieces
def deal_is(deal_id: str, expect: dict[str, Any], description: str, check_id: str = "deal_updated") -> RecordCheck:
    """The gate: the deal holds what the colleague's latest word says."""
    return RecordCheck(id=check_id, check="record", table="crm_deal", match={"id": deal_id}, expect=expect,
                       description=description)


def deal_untouched(deal: dict[str, Any], check_id: str = "deal_unchanged") -> RecordCheck:
    """The gate when nothing may change: the deal's amount, close date and stage are as they were."""
    return RecordCheck(id=check_id, check="record", table="crm_deal", match={"id": deal["id"]},
                       expect={k: deal[k] for k in ("amount", "close_date", "stage")},
                       description="The deal is left as it was: nobody with the authority said to change it.")


def collateral(fields: Sequence[str] | None = None) -> AllowedChangesCheck:
    """Nothing but deal fields, mail and chat rows changes (colleagues' replies are mail and chat rows).

    ``fields``: the deal fields the task writes (the record's bookkeeping columns are added); without
    it any of ``DEAL_FIELDS``.  A task that asks for the PO in the next step must not pass with the
    amount or the close date changed as well.
    """
    allowed = DEAL_FIELDS if fields is None else sorted({*fields, "updated_at", "updated_by"})
    return AllowedChangesCheck(id="no_collateral_damage", check="allowed_changes",
                               tables=[{"crm_deal": allowed}, *MAIL_TABLES, *CHAT_TABLES],
                               description="Nothing changed outside the deal, mail and chat." if fields is None
                               else "Nothing changed outside the deal's asked fields, mail and chat.")


def other_deals(deal_id: str) -> ChangedCheck:
    """A penalty for changing any other deal (a near-duplicate, the other deal on the account)."""
    return ChangedCheck(id="other_deals_changed", check="changed", points=-3, table="crm_deal", op="any",
                        match={"id": {"not": deal_id}}, description="A deal other than the one in question changed.")


def chatted_elsewhere(channels: Sequence[str]) -> ChangedCheck:
    """A penalty for chat messages outside the task's DMs (asking everyone, announcing in a channel)."""
    return ChangedCheck(id="chatted_elsewhere", check="changed", points=-3, table="chat_message", op="insert",
                        match={"author_id": "user", "channel_id": {"not_in": list(channels)}},
                        description="The user messaged people or channels the task has nothing to do with.")


# An instruction that asks for a mail ("confirm to them by mail", "reply to their mail", "mail them back"):
# the requester is told in a mail; otherwise ("let them know", "keep them posted") a direct message will do.
ASKS_FOR_MAIL = re.compile(r"\bby mail\b|\bmail (?:them|him|her|it)\b|\bmail \w+ back\b|"
                           r"\breply to (?:their|the|his|her) mail\b", re.IGNORECASE)


def told_form(instruction: str) -> str:
    """The text form a requester's answer is read from: ``sent_mail`` when the instruction asks for a mail,
    else ``messages`` (their mail, or a direct message)."""
    return "sent_mail" if ASKS_FOR_MAIL.search(instruction) else "messages"


def guards(cast: Sequence[str], channels: Sequence[str], deal_id: str, *, keep: Sequence[str] = ()) -> list[Any]:
    """The penalties every such task has: mail outside the cast, chat outside its DMs, other deals."""
    return [*mail_guards(list(cast), keep=keep), chatted_elsewhere(channels), other_deals(deal_id)]


SECOND_PRODUCTS = ("Premium Support", "Training package", "Data Connectors add-on", "Forecasting module",
                   "Onboarding bundle")


def second_deal_name(stage: Stage, account: dict[str, Any]) -> str:
    """A name for another deal on ``account`` that no deal there has yet (the near-duplicate trap)."""
    taken = {d["name"] for d in stage.rows("SELECT name FROM crm_deal WHERE account_id = ?", account["id"])}
    return next(f"{account['name']} - {p}" for p in SECOND_PRODUCTS if f"{account['name']} - {p}" not in taken)


def tier(variant: str, easy: str, hard: str) -> Difficulty:
    """The instance's tier: ``easy`` and ``hard`` name one structure each, the rest are medium."""
    return "easy" if variant == easy else "hard" if variant == hard else "medium"


def short(deal: dict[str, Any]) -> str:
    """The product part of a deal name ('Porter Inc - Platform renewal' -> 'Platform renewal')."""
    return str(deal["name"]).split(" - ", 1)[-1]


def hello(person: dict[str, Any]) -> str:
    return first_name(person["name"])
