"""CRM jobs driven by chat: apply a stand-up's deal updates, hand a departing rep's deals over."""

from __future__ import annotations

import random
from typing import Any

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
    post,
    stamp,
    toolset,
)

DEAL_EDIT_FIELDS = ["amount", "close_date", "stage", "next_step", "owner_id", "updated_at", "updated_by",
                    "previous_stage", "stage_changed_at"]


def _deal_record(check_id: str, deal_id: str, expect: dict[str, Any], description: str) -> RecordCheck:
    return RecordCheck(id=check_id, check="record", table="crm_deal", description=description,
                       match={"id": deal_id}, expect=expect)


class PipelineFromStandup(Family):
    """Reps post deal updates in a stand-up channel; apply the firm ones to the CRM, not the maybes."""

    name = "pipeline_from_standup"
    skills = ("record_update", "summarization")
    category = "crm-update"
    difficulty = "medium"
    apps = ("chat", "crm")
    variants = ("three-updates", "with-amounts", "with-lost-deal")
    worlds = ("acme", "lantern", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        home = stage.world.meta("currency") or "USD"
        stage.act_as("role:head_of_sales")
        stage.clock(stamp(day(0), 8, 0))
        reps = ["role:sales_rep_1", "role:sales_rep_2", "role:sales_rep_3"]
        channel_id = ensure_channel(stage, "sales-standup", ["role:head_of_sales", *reps],
                                    topic="Daily stand-up: deal updates")
        updates: list[tuple[str, dict[str, Any], dict[str, Any]]] = []  # (rep ref, deal, expected fields)
        used: set[str] = set()
        maybe: dict[str, Any] | None = None
        for position, rep in enumerate(reps):
            rep_id = stage.person(rep)["id"]
            mine = [d for d in open_deals(stage, "owner_id = ? AND currency = ?", rep_id, home) if d["id"] not in used]
            if len(mine) < 2:
                continue
            deal, other = rng.sample(mine, 2)
            used.update({deal["id"], other["id"]})
            later = [s for s in OPEN_STAGES if OPEN_STAGES.index(s) > OPEN_STAGES.index(deal["stage"])]
            expect: dict[str, Any] = {}
            if variant == "with-lost-deal" and position == 0:
                expect["stage"] = "closed_lost"
            elif later:
                expect["stage"] = later[0]
            if variant == "with-amounts" or not later:
                expect["amount"] = float(round(deal["amount"] * rng.choice([0.8, 0.9, 1.1, 1.25]), -2))
            updates.append((rep, deal, expect))
            if maybe is None:
                maybe = other
        if maybe is None or len(updates) < 2:
            raise GenerationError("not enough open deals for a stand-up")
        stage.clock(stamp(day(0), 8, 30))
        lines: list[tuple[str, str]] = []
        for rep, deal, expect in updates:
            parts = []
            if expect.get("stage") == "closed_lost":
                parts.append("we lost it, they went with a competitor. Marking it closed lost")
            elif "stage" in expect:
                parts.append(f"moving to {STAGE_LABELS[expect['stage']]}")
            if "amount" in expect:
                parts.append(f"amount is now {stage.money(expect['amount'], cents=False)}")
            lines.append((rep, f"{deal['name']}: " + ", ".join(parts) + "."))
        maybe_owner = next(r for r in reps if stage.person(r)["id"] == maybe["owner_id"])
        lines.append((maybe_owner, f"{maybe['name']}: might slip to next quarter, I'll confirm tomorrow before we "
                                   "change anything."))
        rng.shuffle(lines)
        post(stage, "role:head_of_sales", channel_id, "Stand-up time: post your deal updates below.")
        for rep, text in lines:
            post(stage, rep, channel_id, text)
        stage.clock(stamp(day(0), 9, 0))
        instruction = rng.choice([
            "Please update the CRM with the deal changes the reps posted in #sales-standup this morning. Only apply "
            "what's confirmed.",
            "Could you go through today's #sales-standup and bring the deals in the CRM up to date? Skip anything "
            "that isn't decided yet.",
        ])

        def solve(s: Solver) -> None:
            s.call("chat_list_messages", channel=channel_id)
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
        return Draft(
            instruction=instruction,
            tools=toolset(["chat", "crm"], writes=["crm_update_deal", "crm_move_deal"], distractors=["crm", "chat"]),
            gates=gates,
            criteria=[
                ChangedCheck(id="applied", check="changed", points=1, table="crm_deal", op="update",
                             description="The stand-up's deals were updated.", match={"id": {"in": touched}}),
                ChangedCheck(id="changed_unconfirmed", check="changed", points=-3, table="crm_deal", op="any",
                             description="The deal that only 'might slip' was changed.",
                             match={"id": maybe["id"]}),
                ChangedCheck(id="changed_other_deals", check="changed", points=-2, table="crm_deal", op="any",
                             description="A deal nobody mentioned was changed.",
                             match={"id": _not_in([*touched, maybe["id"]])}),
                _posted_elsewhere(channel_id),
            ],
            solve=solve, variant=variant, max_steps=20,
        )


def _posted_elsewhere(channel_id: str) -> ChangedCheck:
    """A penalty for posting anywhere but the channel the request came from (a confirmation there
    is what a careful colleague does; a post elsewhere spreads the team's business)."""
    return ChangedCheck(id="posted_elsewhere", check="changed", points=-2, table="chat_message", op="any",
                        description="A chat message went somewhere other than the channel the request came from.",
                        match={"channel_id": {"not": channel_id}})


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
    variants = ("all-open", "with-exception", "split-by-stage")
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
        leaving = stage.person(nth([o["owner_id"] for o in owners if o["owner_id"] not in (user["id"], head)],
                                   index, self.name))
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
        stage.clock(stamp(day(0), 8, 15))
        channel_id = ensure_channel(stage, "sales", ["role:head_of_sales", "user"])
        post(stage, "role:head_of_sales", channel_id,
             f"Team: {leaving['name']}'s last day is Friday. {successor['name']} takes over all of "
             f"{first_name(leaving['name'])}'s open deals.{extra} Closed deals stay with "
             f"{first_name(leaving['name'])} for the records.")
        stage.clock(stamp(day(0), 9, 0))
        instruction = rng.choice([
            f"Please do the CRM side of {leaving['name']}'s handover, as announced in #sales this morning.",
            f"{first_name(leaving['name'])} is leaving; the plan for their deals is in today's post in #sales. Can "
            "you reassign the deals in the CRM accordingly?",
        ])

        def solve(s: Solver) -> None:
            s.call("chat_list_messages", channel=channel_id, limit=5)
            s.call("crm_search_deals", owner=leaving["email"], stage="open")
            for deal_id, person in target.items():
                s.call("crm_update_deal", deal_id=deal_id, owner=person["email"])

        gates: list[CheckItem] = [_deal_record(f"reassigned_{n}", deal_id, {"owner_id": person["id"]},
                              f"{deal_id} now belongs to {person['name']}.")
                 for n, (deal_id, person) in enumerate(target.items(), 1)]
        gates.append(allowed_changes({"crm_deal": ["owner_id", "updated_at", "updated_by"]}, "chat_message",
                                     READ_MARKS))
        return Draft(
            instruction=instruction,
            tools=toolset(["chat", "crm"], writes=["crm_update_deal"], distractors=["crm", "chat"]),
            gates=gates,
            criteria=[
                ChangedCheck(id="handed_over", check="changed", points=1, table="crm_deal", op="update",
                             description="Open deals changed owner.", fields=["owner_id"],
                             match={"id": {"in": list(target)}}),
                ChangedCheck(id="closed_moved", check="changed", points=-2, table="crm_deal", op="update",
                             description="A closed deal was reassigned.",
                             match={"id": {"in": [d["id"] for d in closed]}}),
                ChangedCheck(id="other_reps_deals", check="changed", points=-2, table="crm_deal", op="update",
                             description="Another rep's deal was changed.",
                             match={"id": _not_in(list(target) + [d["id"] for d in closed])}),
                _posted_elsewhere(channel_id),
            ],
            solve=solve, variant=variant, max_steps=25,
        )
