"""CRM jobs driven by chat: apply a stand-up's deal updates, hand a departing rep's deals over."""

from __future__ import annotations

import random
from typing import Any

from officesim.grading.facts import FactsCheck
from officesim.grading.record_checks import ChangedCheck, RecordCheck
from officesim.taskgen.base import CheckItem, Draft, Family, GenerationError, Solver, Stage
from officesim.taskgen.common import (
    OPEN_STAGES,
    READ_MARKS,
    STAGE_LABELS,
    allowed_changes,
    day,
    ensure_channel,
    first_name,
    nth,
    open_deals,
    people_in,
    phrasing,
    post,
    reply,
    stamp,
    toolset,
)
from officesim.taskgen.factsheet import FactSheet, facts_check

DEAL_EDIT_FIELDS = ["amount", "close_date", "stage", "next_step", "owner_id", "updated_at", "updated_by",
                    "previous_stage", "stage_changed_at"]


def _deal_record(check_id: str, deal_id: str, expect: dict[str, Any], description: str) -> RecordCheck:
    return RecordCheck(id=check_id, check="record", table="crm_deal", description=description,
                       match={"id": deal_id}, expect=expect)


STANDUP_CHATTER = [
    "morning all", "is the coffee machine on 3 fixed yet?", "reminder: forecast call at 2pm",
    "who has the conference room booked at 11?", "great work on last week's numbers everyone",
    "can someone send me the new pricing deck?", "I'll be a few minutes late to the forecast call",
    "anyone else seeing the CRM slow this morning?", "lunch order going in at 11:30, reply in DM",
    "heads up: marketing webinar tomorrow, invite your prospects", "thanks!", "nice one",
    "quick q for later: are we still doing pipeline reviews on Thursdays?", "sounds good",
    "back-to-back calls until noon, ping me in DM", "the new contract template is in Drive",
    "did anyone keep the notes from Friday's QBR?", "good luck with the demo today!",
    "reminder to log your calls", "will do", "+1", "on it",
]


class PipelineFromStandup(Family):
    """Reps post deal updates in a stand-up channel; apply the firm ones to the CRM, not the maybes.

    Later structures correct an update in its thread; the hard tier buries the updates under more
    than a page of chatter, withdraws one in a thread reply and names a deal whose account has a
    near-twin deal owned by someone else.
    """

    name = "pipeline_from_standup"
    skills = ("record_update", "summarization")
    category = "crm-update"
    difficulty = "medium"
    apps = ("chat", "crm")
    variants = ("three-updates", "with-amounts", "with-lost-deal", "corrected-in-thread", "hard-busy-channel")
    worlds = ("acme", "lantern", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        hard = variant == "hard-busy-channel"
        home = stage.world.meta("currency") or "USD"
        stage.act_as("role:head_of_sales")
        stage.clock(stamp(day(0), 8, 0))
        reps = ["role:sales_rep_1", "role:sales_rep_2", "role:sales_rep_3"]
        channel_id = ensure_channel(stage, "sales-standup", ["role:head_of_sales", *reps],
                                    topic="Daily stand-up: deal updates")
        updates: list[tuple[str, dict[str, Any], dict[str, Any]]] = []  # (rep ref, deal, expected fields)
        used: set[str] = set()
        maybe: dict[str, Any] | None = None
        withdrawn: tuple[str, dict[str, Any], dict[str, Any]] | None = None  # hard: posted, then taken back
        for position, rep in enumerate(reps):
            rep_id = stage.person(rep)["id"]
            mine = [d for d in open_deals(stage, "owner_id = ? AND currency = ?", rep_id, home) if d["id"] not in used]
            wanted = 3 if hard and position == 0 else 2
            if len(mine) < wanted:
                continue
            deal, other, *spare = rng.sample(mine, wanted)
            used.update({deal["id"], other["id"], *(d["id"] for d in spare)})
            later = [s for s in OPEN_STAGES if OPEN_STAGES.index(s) > OPEN_STAGES.index(deal["stage"])]
            expect: dict[str, Any] = {}
            if variant == "with-lost-deal" and position == 0:
                expect["stage"] = "closed_lost"
            elif later:
                expect["stage"] = later[0]
            if variant in ("with-amounts", "hard-busy-channel") or not later:
                expect["amount"] = float(round(deal["amount"] * rng.choice([0.8, 0.9, 1.1, 1.25]), -2))
            updates.append((rep, deal, expect))
            if maybe is None:
                maybe = other
            if spare:
                ahead = [s for s in OPEN_STAGES if OPEN_STAGES.index(s) > OPEN_STAGES.index(spare[0]["stage"])]
                withdrawn = (rep, spare[0], {"stage": ahead[0]} if ahead else {"stage": "closed_won"})
        if maybe is None or len(updates) < 2 or (hard and withdrawn is None):
            raise GenerationError("not enough open deals for a stand-up")
        twin: dict[str, Any] | None = None
        if hard:  # a near-twin of one updated deal on the same account, owned by another rep
            _, base, _ = updates[-1]
            others = [stage.person(r)["id"] for r in reps if stage.person(r)["id"] != base["owner_id"]]
            twin_row = {k: base[k] for k in ("account_id", "stage", "currency", "close_date", "next_step")}
            twin_row.update(name=f"{base['name']} (Phase 2)", amount=float(round(base["amount"] * 0.6, -2)),
                            owner_id=others[0], updated_by=others[0])
            [twin_id] = stage.insert("crm_deal", [twin_row])
            twin = {**twin_row, "id": twin_id}
        corrected: tuple[str, float] | None = None  # (deal id, the amount first posted and then corrected)
        if variant == "corrected-in-thread":
            _, deal, expect = updates[0]
            first_said = float(round(deal["amount"] * rng.choice([1.3, 1.4]), -2))
            expect["amount"] = float(round(deal["amount"] * rng.choice([0.85, 1.15]), -2))
            corrected = (deal["id"], first_said)
        if hard:  # yesterday's chatter: the channel runs over more than two pages
            stage.clock(stamp(day(-1), 10, 0))
            for remark in rng.choices(STANDUP_CHATTER, k=22):
                post(stage, rng.choice(["role:head_of_sales", *reps]), channel_id, remark)
        stage.clock(stamp(day(0), 8, 30))

        def said(deal: dict[str, Any], expect: dict[str, Any], amount: float | None = None) -> str:
            parts = []
            if expect.get("stage") == "closed_lost":
                parts.append("we lost it, they went with a competitor. Marking it closed lost")
            elif expect.get("stage") == "closed_won":
                parts.append("signed! closed won")
            elif "stage" in expect:
                parts.append(f"moving to {STAGE_LABELS[expect['stage']]}")
            shown = amount if amount is not None else expect.get("amount")
            if shown is not None:
                parts.append(f"amount is now {stage.money(shown, cents=False)}")
            return f"{deal['name']}: " + ", ".join(parts) + "."

        lines: list[tuple[str, str, str | None]] = []  # (author, text, thread reply)
        for rep, deal, expect in updates:
            if corrected is not None and deal["id"] == corrected[0]:
                lines.append((rep, said(deal, expect, corrected[1]),
                              f"correction: I misread the order form, it's {stage.money(expect['amount'], cents=False)}"
                              f", not {stage.money(corrected[1], cents=False)}"))
            else:
                lines.append((rep, said(deal, expect), None))
        if withdrawn is not None:
            lines.append((withdrawn[0], said(withdrawn[1], withdrawn[2]),
                          "scratch that, they just asked for another week. Leave it as it is in the CRM for now."))
        maybe_owner = next(r for r in reps if stage.person(r)["id"] == maybe["owner_id"])
        lines.append((maybe_owner, f"{maybe['name']}: might slip to next quarter, I'll confirm tomorrow before we "
                                   "change anything.", None))
        rng.shuffle(lines)
        post(stage, "role:head_of_sales", channel_id, "Stand-up time: post your deal updates below.")
        roots: dict[str, str] = {}
        chatter = rng.sample(STANDUP_CHATTER, 18) if hard else []
        people = ["role:head_of_sales", *reps]
        for n, (rep, text, _answer) in enumerate(lines):
            roots[text] = post(stage, rep, channel_id, text)
            for remark in chatter[n * 18 // len(lines):(n + 1) * 18 // len(lines)]:
                post(stage, rng.choice(people), channel_id, remark)
        stage.clock(stamp(day(0), 8, 50))
        threads = []
        for rep, text, answer in lines:
            if answer is not None:
                reply(stage, rep, roots[text], answer)
                threads.append(roots[text])
        stage.clock(stamp(day(0), 9, 0))
        if hard:
            instruction = phrasing(stage, index, len(self.variants), [
                "Please bring the CRM up to date with this morning's deal updates from #sales-standup.",
                "Can you apply today's #sales-standup deal updates to the CRM? The channel's busy, so read it all.",
                "The reps posted their deal updates in #sales-standup this morning; please put them into the CRM.",
                "Could you get this morning's #sales-standup updates into the CRM for me? There's a lot of noise in "
                "the channel today.",
                "#sales-standup had the deal updates this morning. Can you make the CRM match what the reps said?",
            ])
        else:
            instruction = phrasing(stage, index, len(self.variants), [
                "Please update the CRM with the deal changes the reps posted in #sales-standup this morning. Only "
                "apply what's confirmed.",
                "Could you go through today's #sales-standup and bring the deals in the CRM up to date? Skip "
                "anything that isn't decided yet.",
                "The team posted deal updates in #sales-standup today. Please reflect the firm ones in the CRM.",
                "Can you take the deal updates from this morning's #sales-standup into the CRM? Only the ones that "
                "are settled, please.",
                "The reps shared where their deals stand in #sales-standup. Could you update the CRM to match, "
                "leaving out anything still up in the air?",
            ])

        def solve(s: Solver) -> None:
            page = s.call("chat_list_messages", channel=channel_id)
            while hard and page.get("next_cursor"):
                page = s.call("chat_list_messages", channel=channel_id, cursor=page["next_cursor"])
            for root in threads:
                s.call("chat_get_thread", message_id=root)
            for _, deal, expect in updates:
                s.call("crm_search_deals", query=deal["name"])
                if "amount" in expect:
                    s.call("crm_update_deal", deal_id=deal["id"], amount=expect["amount"])
                if "stage" in expect:
                    s.call("crm_move_deal", deal_id=deal["id"], stage=expect["stage"])

        gates: list[CheckItem] = [
            _deal_record(f"update_{n}", deal["id"], expect, f"{deal['name']} matches the stand-up.")
            for n, (_, deal, expect) in enumerate(updates, 1)]
        gates.append(allowed_changes({"crm_deal": DEAL_EDIT_FIELDS}, "crm_activity", "chat_message", READ_MARKS))
        touched = [deal["id"] for _, deal, _ in updates]
        criteria: list[CheckItem] = [
            ChangedCheck(id="applied", check="changed", points=1, table="crm_deal", op="update",
                         description="The stand-up's deals were updated.", match={"id": {"in": touched}}),
            ChangedCheck(id="changed_unconfirmed", check="changed", points=-3, table="crm_deal", op="any",
                         description="The deal that only 'might slip' was changed.",
                         match={"id": maybe["id"]}),
        ]
        spared = [maybe["id"]]
        if withdrawn is not None:
            spared.append(withdrawn[1]["id"])
            criteria.append(ChangedCheck(id="changed_withdrawn", check="changed", points=-3, table="crm_deal",
                                         op="any", description="The update its rep withdrew in the thread was "
                                                               "applied.", match={"id": withdrawn[1]["id"]}))
        if twin is not None:
            spared.append(twin["id"])
            criteria.append(ChangedCheck(id="changed_twin", check="changed", points=-3, table="crm_deal", op="any",
                                         description="The similarly named deal of another rep was changed.",
                                         match={"id": twin["id"]}))
        criteria += [
            ChangedCheck(id="changed_other_deals", check="changed", points=-2, table="crm_deal", op="any",
                         description="A deal nobody mentioned was changed.",
                         match={"id": _not_in([*touched, *spared])}),
            _posted_elsewhere(channel_id),
        ]
        return Draft(
            instruction=instruction,
            tools=toolset(["chat", "crm"], writes=["crm_update_deal", "crm_move_deal"], distractors=["crm", "chat"]),
            gates=gates, criteria=criteria, solve=solve, variant=variant, max_steps=40 if hard else 20,
            difficulty="hard" if hard else None, traps=(
                f"{maybe['name']} only 'might slip': nothing is decided, it stays as it is",
                *(("a thread reply corrects the first amount posted: the corrected figure is written",)
                  if corrected is not None else ()),
                *((f"a thread reply withdraws the {withdrawn[1]['name']} update: that deal stays as it is",)
                  if withdrawn is not None else ()),
                *((f"'{twin['name']}' is a near-twin deal of another rep: it is not the deal posted about",)
                  if twin is not None else ()),
                *(("the updates sit among more than a page of chatter: every page must be read",) if hard else ()),
            ),
        )


def _posted_elsewhere(channel_id: str) -> ChangedCheck:
    """A penalty for posting anywhere but the channel the request came from (a confirmation there
    is what a careful colleague does; a post elsewhere spreads the team's business)."""
    return ChangedCheck(id="posted_elsewhere", check="changed", points=-2, table="chat_message", op="any",
                        description="A chat message went somewhere other than the channel the request came from.",
                        match={"channel_id": {"not": channel_id}})


def _handoff_facts(target: dict[str, dict[str, Any]], deals: list[dict[str, Any]], leaving: dict[str, Any],
                   everyone: list[dict[str, Any]], whole_book: dict[str, Any] | None) -> tuple[FactSheet, FactsCheck]:
    """The handover as facts, and a gate on whatever the user posts in chat: a post may say nothing of it
    (the CRM side is the job) or confirm it, but not announce another handover: a deal given to the wrong
    person, the kept deal handed on, or the whole book given to someone else than ``whole_book`` (the
    successor the thread replaced, the head of sales, another rep)."""
    sheet = FactSheet()
    people = {p["id"]: sheet.entity(p["name"], key=f"person_{p['id']}", person=p["id"], kind="person")
              for p in [leaving, *everyone]}
    told = []
    for n, deal in enumerate(deals, start=1):
        key = sheet.entity(deal["name"], key=f"deal_{n}", kind="deal")
        owner = target.get(deal["id"], leaving)
        told.append(sheet.fact(key, "owner", people[owner["id"]],
                               wrong=[k for pid, k in people.items() if pid != owner["id"]]))
    if whole_book is not None:  # "X takes over all of Y's deals" is said of the whole book
        told.append(sheet.fact(people[leaving["id"]], "covered_by", people[whole_book["id"]],
                               wrong=[k for pid, k in people.items() if pid not in (whole_book["id"], leaving["id"])]))
    return sheet, facts_check("told_truly", None, "chat_posts", require=told, violations_only=True, silent_ok=True,
                              traceable=False, description="Any chat post of the user's states the handover as "
                                                           "planned (no post at all is fine).")


def _not_in(ids: list[str]) -> dict[str, str]:
    """A match value that holds for any id except the given ones (a regex, as ``not`` takes one value)."""
    return {"regex": "^(?!(" + "|".join(ids) + ")$)"}


class DealHandoff(Family):
    """A rep is leaving: reassign their open deals to the successor(s) named in #sales; closed ones stay."""

    name = "deal_handoff"
    skills = ("record_update", "communication")
    category = "crm-update"
    difficulty = "medium"
    apps = ("chat", "crm")
    variants = ("all-open", "with-exception", "split-by-stage", "keep-one", "successor-changed")
    worlds = ("acme", "shopline", "forge")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        stage.act_as(rng.choice(["role:ops_manager", "role:head_of_sales"]))
        user = stage.world.user
        owners = stage.rows(
            "SELECT owner_id, sum(stage IN ('prospecting','qualification','proposal','negotiation')) AS open_n, "
            "sum(stage IN ('closed_won','closed_lost')) AS closed_n FROM crm_deal GROUP BY owner_id "
            "HAVING open_n >= 3 AND closed_n >= 1 ORDER BY CAST(substr(owner_id, 3) AS INTEGER)")
        head = stage.person("role:head_of_sales")["id"]
        # the k-th instance of a structure takes the k-th leaver of that structure's walk through the
        # reps, so two instances of one structure never hand over the same book
        leaving = stage.person(nth([o["owner_id"] for o in owners if o["owner_id"] not in (user["id"], head)],
                                   index // len(self.variants), self.name, salt=variant))
        sales = people_in(stage, stage.department("Sales"), exclude=[leaving["id"], user["id"]])
        successor, other = rng.sample(sales, 2)
        deals = open_deals(stage, "owner_id = ?", leaving["id"])
        closed = stage.rows("SELECT * FROM crm_deal WHERE owner_id = ? AND stage IN ('closed_won', 'closed_lost')",
                            leaving["id"])
        target = {d["id"]: successor for d in deals}
        extra = ""
        if variant == "with-exception":
            special = rng.choice(deals)
            target[special["id"]] = other
            extra = f" Exception: {special['name']} goes to {other['name']}, who knows the account."
        elif variant == "split-by-stage":
            for d in deals:
                if d["stage"] in ("proposal", "negotiation"):
                    target[d["id"]] = other
            extra = f" Deals already in Proposal or Negotiation go to {other['name']} instead."
        elif variant == "keep-one":  # one deal signs before the rep leaves: it stays with them
            special = rng.choice(deals)
            del target[special["id"]]
            extra = (f" {first_name(leaving['name'])} keeps {special['name']} though: it signs on Thursday and "
                     "they'll close it out.")
        stage.clock(stamp(day(0), 8, 15))
        channel_id = ensure_channel(stage, "sales", ["role:head_of_sales", "user"])
        announcement = post(stage, "role:head_of_sales", channel_id,
                            f"Team: {leaving['name']}'s last day is Friday. {successor['name']} takes over all of "
                            f"{first_name(leaving['name'])}'s open deals.{extra} Closed deals stay with "
                            f"{first_name(leaving['name'])} for the records.")
        changed = variant == "successor-changed"
        if changed:  # the plan changes in the thread: the later word wins
            stage.clock(stamp(day(0), 8, 40))
            reply(stage, "role:head_of_sales", announcement,
                  f"Change of plan: {first_name(successor['name'])} starts parental leave next week, so "
                  f"{other['name']} takes over {first_name(leaving['name'])}'s open deals instead. Everything else "
                  "as above.")
            target = {d["id"]: other for d in deals}
        stage.clock(stamp(day(0), 9, 0))
        instruction = phrasing(stage, index, len(self.variants), [
            f"Please do the CRM side of {leaving['name']}'s handover, as announced in #sales this morning.",
            f"{first_name(leaving['name'])} is leaving; the plan for their deals is in today's post in #sales. Can "
            "you reassign the deals in the CRM accordingly?",
            f"Could you hand {leaving['name']}'s deals over in the CRM? The head of sales posted who gets what in "
            "#sales today.",
            f"The handover plan for {leaving['name']}'s deals went up in #sales this morning. Can you make the CRM "
            "match it?",
            f"With {first_name(leaving['name'])} leaving on Friday, their deals need new owners in the CRM. Please "
            "follow what was posted in #sales today.",
            f"Please reassign {leaving['name']}'s deals in the CRM the way the head of sales laid it out in #sales.",
        ])

        def solve(s: Solver) -> None:
            s.call("chat_list_messages", channel=channel_id, limit=5)
            if changed:
                s.call("chat_get_thread", message_id=announcement)
            s.call("crm_search_deals", owner=leaving["email"], stage="open")
            for deal_id, person in target.items():
                s.call("crm_update_deal", deal_id=deal_id, owner=person["id"])

        gates: list[CheckItem] = [_deal_record(f"reassigned_{n}", deal_id, {"owner_id": person["id"]},
                              f"{deal_id} now belongs to {person['name']}.")
                 for n, (deal_id, person) in enumerate(target.items(), 1)]
        kept = [d["id"] for d in deals if d["id"] not in target]
        gates.append(allowed_changes({"crm_deal": ["owner_id", "updated_at", "updated_by"]}, "chat_message",
                                     READ_MARKS))
        whole_book = {"all-open": successor, "keep-one": successor, "successor-changed": other}.get(variant)
        # the people a post could hand deals to: the plan's, the head of sales, the rest of Sales (a namesake
        # of the plan's people is left out: "Maanav's deals" must stay readable)
        named = {first_name(p["name"]) for p in (leaving, successor, other)}
        others = [p for p in [stage.person("role:head_of_sales"), *sales]
                  if p["id"] not in (successor["id"], other["id"]) and first_name(p["name"]) not in named]
        sheet, told_truly = _handoff_facts(target, deals, leaving, [successor, other, *others], whole_book)
        gates.append(told_truly)
        return Draft(
            instruction=instruction,
            tools=toolset(["chat", "crm"], writes=["crm_update_deal"], distractors=["crm", "chat"]),
            gates=gates,
            criteria=[
                ChangedCheck(id="handed_over", check="changed", points=1, table="crm_deal", op="update",
                             description="Open deals changed owner.", fields=["owner_id"],
                             match={"id": {"in": list(target)}}),
                ChangedCheck(id="closed_moved", check="changed", points=-2, table="crm_deal", op="update",
                             description="A closed deal, or the deal the leaving rep keeps, was reassigned.",
                             match={"id": {"in": [d["id"] for d in closed] + kept}}),
                ChangedCheck(id="other_reps_deals", check="changed", points=-2, table="crm_deal", op="update",
                             description="Another rep's deal was changed.",
                             match={"id": _not_in(list(target) + [d["id"] for d in closed] + kept)}),
                _posted_elsewhere(channel_id),
            ],
            solve=solve, variant=variant, max_steps=25, facts=sheet, traps=(
                f"{first_name(leaving['name'])}'s closed deals stay with them for the records",
                *{"with-exception": (f"one deal goes to {other['name']}, not {successor['name']}",),
                  "split-by-stage": (f"deals in Proposal or Negotiation go to {other['name']}",),
                  "keep-one": (f"{first_name(leaving['name'])} keeps the deal that signs on Thursday",),
                  "successor-changed": (f"the thread reply replaces {successor['name']} with {other['name']}: the "
                                        "later word wins",),
                  }.get(variant, ()),
            ),
        )
