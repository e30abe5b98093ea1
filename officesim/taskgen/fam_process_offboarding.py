"""Offboarding a sales rep: their open deals handed over in the CRM, their file access removed, the team told.

HR announces the leaver; the acting user (sales operations) reassigns every open deal of theirs to
the successor the head of sales names, removes the leaver's access to the files the user owns,
and posts the handover in #sales.  Traps: the head of sales splits the handover later in the
thread (one account goes to someone else), closed deals stay as they are, a colleague with the
same first name owns deals too, more deals than one result page.
"""

from __future__ import annotations

import random
from typing import Any

from officesim.grading import grader_spec as g
from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import (
    MAIL_TABLES,
    accounts,
    ensure_channel,
    first_name,
    mail_guards,
    nth,
    people_in,
    sales_people,
)
from officesim.taskgen.factsheet import FactSheet, facts_check
from officesim.taskgen.process_common import all_pages, at, changes_allowed, hard_tools, home_currency, mail_to_user

PRODUCTS = ("Platform", "Analytics add-on", "Support plan", "Seats", "Connectors", "Training", "Renewal")
# a closed deal named as staying put ("The closed deals stay with Rishi for the records") is not handed over
STAYS_PUT = (r"\b(?:closed|stays?|remains?|kept|keeps?|staying|remaining)\b|\bfor the records?\b|"
             r"\bwon\b|\blost\b")
FILES = ("Territory plan", "Commission tracker", "Pipeline notes", "Pricing exceptions", "Account map")


class SalesRepOffboarding(Family):
    """Offboard a leaving rep: hand their open deals to the named successors, remove their file access, tell #sales."""

    name = "rep_offboarding"
    skills = ("multi_step_process", "record_update", "latest_instruction", "access_control", "exhaustive_search")
    category = "operations-process"
    difficulty = "hard"
    apps = ("mail", "crm", "drive", "chat")
    # one-successor: every open deal to one person; split-later: a later mail moves one account's deals to
    # someone else; closed-deals: the leaver also has won and lost deals that stay theirs; big-book: more
    # open deals than one page and a same-first-name colleague; full: all of it.
    variants = ("one-successor", "split-later", "closed-deals", "big-book", "full")
    worlds = ("acme", "forge", "carewell", "lantern", "tiny")
    count_per_world = 5

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        hard = variant in ("big-book", "full")
        split = variant in ("split-later", "full")
        closed = variant in ("closed-deals", "big-book", "full")
        stage.act_as("role:ops_manager")
        head_id = stage.person("role:head_of_sales")["id"]
        owners = [p for p in sales_people(stage) if p["id"] != head_id]
        leaver = nth(owners, index, self.name)
        colleagues = [p for p in people_in(stage, stage.department("Sales"), exclude=[leaver["id"], head_id])
                      if p["id"] != stage.world.user["id"]]
        successor, other = rng.sample(colleagues, 2)
        currency = home_currency(stage)
        pool = accounts(stage)
        stage.clock(at(-40, 9))
        # the leaver's book: the world's own deals of theirs plus planted ones
        chosen = rng.sample(pool, 6 if hard else 3)
        planted = []
        for n in range(24 if hard else 4):
            account = chosen[n % len(chosen)]
            planted.append({"account_id": account["id"], "name": f"{account['name']} - {PRODUCTS[n % len(PRODUCTS)]} "
                            f"#{n + 1}", "stage": rng.choice(["qualification", "proposal", "negotiation"]),
                            "amount": float(rng.randrange(5_000, 80_000, 500)), "currency": currency,
                            "close_date": f"2026-{rng.randint(11, 12)}-{rng.randint(1, 28):02d}",
                            "owner_id": leaver["id"], "next_step": "", "updated_by": leaver["id"]})
        if closed:
            for n, state in enumerate(("closed_won", "closed_lost")):
                account = chosen[n]
                planted.append({"account_id": account["id"], "name": f"{account['name']} - Pilot {n + 1}",
                                "stage": state, "amount": float(rng.randrange(5_000, 40_000, 500)),
                                "currency": currency, "close_date": "2026-08-15", "owner_id": leaver["id"],
                                "next_step": "", "updated_by": leaver["id"]})
        stage.insert("crm_deal", planted)
        open_deals = stage.rows("SELECT * FROM crm_deal WHERE owner_id = ? AND stage NOT IN ('closed_won', "
                                "'closed_lost') ORDER BY id", leaver["id"])
        closed_deals = stage.rows("SELECT * FROM crm_deal WHERE owner_id = ? AND stage IN ('closed_won', "
                                  "'closed_lost') ORDER BY id", leaver["id"])
        split_account = chosen[-1] if split else None
        target = {d["id"]: (other if split_account and d["account_id"] == split_account["id"] else successor)
                  for d in open_deals}
        # files the acting user owns that the leaver can open, and one that stays (a company-wide doc)
        stage.clock(at(-20, 10))
        for name in rng.sample(FILES, 3):
            file_id = str(stage.act("user", "drive_create_doc", name=f"{name} - {leaver['name'].split()[-1]}",
                                    content=f"# {name}\n\nWorking notes.\n")["id"])
            stage.act("user", "drive_share_file", file_id=file_id, person=leaver["email"], role="editor")
            stage.act("user", "drive_share_file", file_id=file_id, person=successor["email"], role="viewer")
        kept = [r["file_id"] for r in stage.rows("SELECT DISTINCT p.file_id FROM drive_permission p JOIN drive_file f "
                                                 "ON f.id = p.file_id WHERE f.owner_id = ? AND p.person_id = ?",
                                                 stage.world.user["id"], successor["id"])]
        # every file the user owns that the leaver can open directly: the planted ones and any the world has
        files = [r["file_id"] for r in stage.rows(
            "SELECT DISTINCT p.file_id FROM drive_permission p JOIN drive_file f ON f.id = p.file_id WHERE "
            "f.owner_id = ? AND p.person_id = ? AND f.trashed = 0 ORDER BY p.file_id", stage.world.user["id"],
            leaver["id"])]
        stage.clock(at(-2, 11))
        hr = stage.person("role:hr_lead")
        head = stage.person("role:head_of_sales")
        request = mail_to_user(stage, "role:hr_lead", f"Leaver: {leaver['name']}",
                               f"Hi,\n\n{leaver['name']} leaves us on Friday. For the sales side, could you hand their "
                               f"open deals over to {successor['name']}, take away their access to the files you "
                               "own, and let #sales know who covers what?\n\nThanks,\n"
                               f"{first_name(hr['name'])}\n", cc=["role:head_of_sales"])
        if split_account is not None:
            stage.clock(at(-1, 15))
            stage.act("role:head_of_sales", "mail_reply_all", message_id=request["id"],
                      body=f"One change: {split_account['name']} goes to {other['name']}, who knows them well. "
                           f"Everything else to {first_name(successor['name'])} as planned.\n\n"
                           f"{first_name(head['name'])}")
        sales = ensure_channel(stage, "sales", ["role:head_of_sales", "user", leaver["email"], successor["email"],
                                        other["email"]])
        stage.clock(at(0, 9))
        instruction = rng.choice([
            f"Please do the sales offboarding for {leaver['name']} that HR asked for.",
            f"{first_name(leaver['name'])} is leaving; can you take care of the CRM, file access and #sales side "
            "of it?",
            f"Could you handle {first_name(hr['name'])}'s request about {leaver['name']} leaving?",
        ])

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query=leaver["name"])
            for message in found["messages"]:
                s.call("mail_get_message", message_id=message["id"])
            deals = all_pages(s, "crm_search_deals", "deals", owner=leaver["email"], limit=20)
            for deal in deals:
                if deal["id"] in target:
                    s.call("crm_update_deal", deal_id=deal["id"], owner=target[deal["id"]]["id"])
            s.call("drive_search_files", query=leaver["name"].split()[-1])
            for file_id in files:
                s.call("drive_share_file", file_id=file_id, person=leaver["email"], role="none")
            lines = [f"{leaver['name']} leaves on Friday. Handover of the open deals:",
                     f"- {successor['name']} takes over from {first_name(leaver['name'])}."]
            if split_account is not None:
                lines.append(f"- {split_account['name']}: {other['name']}.")
            s.call("chat_post_message", channel="sales", text="\n".join(lines))

        sheet = FactSheet()
        sheet.entity(leaver["name"], key="leaver", person=leaver["id"], kind="person")
        sheet.entity(successor["name"], key="successor", person=successor["id"], kind="person")
        names = ["leaver", "successor"]
        if split_account is not None:
            sheet.entity(other["name"], key="other", person=other["id"], kind="person")
            sheet.entity(split_account["name"], key="split_account", kind="account")
            names += ["other", "split_account"]
        sheet.fact("leaver", "covered_by", "successor")
        required = ["leaver.covered_by"]
        if split_account is not None:
            sheet.fact("split_account", "covered_by", "other", wrong=["successor"])
            required.append("split_account.covered_by")
        # closed deals stay where they are: presented as handed over, they are a wrong handover
        stays = [sheet.entity(d["name"], key=f"closed_{n}", kind="deal") for n, d in enumerate(closed_deals, start=1)]
        # everyone who could have taken the deals over: naming more of them than the handover needs is a
        # list of guesses, not the handover
        candidates = list(names)
        # a namesake of someone the post names is left out: "takes over from Maanav" after "Maanav Manne"
        # means the leaver, and a candidate Maanav Kapoor would make the first name unreadable
        named = {first_name(p["name"]) for p in (leaver, successor, *([other] if split_account else []))}
        for person in [*colleagues, *owners]:
            if first_name(person["name"]) in named:
                continue
            if person["id"] not in (leaver["id"], successor["id"], other["id"] if split_account else None):
                candidates.append(sheet.entity(person["name"], key=f"colleague_{person['id']}", person=person["id"],
                                               kind="person"))
        gates: list[Any] = [
            *(g.RecordCheck(id=f"handed_{n + 1}", check="record", table="crm_deal", match={"id": deal_id},
                            expect={"owner_id": person["id"]},
                            description="An open deal of the leaver's is with the successor named for its account.")
              for n, (deal_id, person) in enumerate(sorted(target.items()))),
            g.NoRecordCheck(id="access_removed", check="no_record", table="drive_permission",
                            match={"file_id": {"in": files}, "person_id": leaver["id"]},
                            description="The leaver can no longer open the files the user owns."),
            facts_check("sales_told", None, "chat_posts", channel="sales", name=names,
                        require=required, exclude=stays, excluded_also=STAYS_PUT,
                        candidates=list(dict.fromkeys(candidates)), traceable=False,
                        description="#sales hears who covers the leaver's deals."),
            changes_allowed({"crm_deal": ["owner_id", "updated_at", "updated_by"]}, "drive_permission",
                            "chat_message", *MAIL_TABLES),
        ]
        criteria: list[Any] = [
            g.RecordCheck(id="successor_keeps_access", check="record", points=1, table="drive_permission",
                          match={"file_id": {"in": kept}, "person_id": successor["id"]}, count=len(kept),
                          description="The successor's access to the files is left as it was."),
            *mail_guards(["role:hr_lead", "role:head_of_sales", successor["email"], other["email"]],
                         keep=[request["id"]]),
        ]
        criteria += [
            g.ChangedCheck(id="other_deals_changed", check="changed", points=-2, table="crm_deal", op="update",
                           match={"id": {"not_in": sorted(target)}},
                           description="A deal that was not the leaver's open deal was changed."),
            g.ChangedCheck(id="access_changed_for_others", check="changed", points=-2, table="drive_permission",
                           op="any", match={"person_id": {"not": leaver["id"]}},
                           description="Someone else's file access was changed (only the leaver's goes)."),
            g.ChangedCheck(id="posted_elsewhere", check="changed", points=-2, table="chat_message", op="insert",
                           match={"channel_id": {"not": sales}},
                           description="The handover was posted somewhere other than #sales."),
        ]
        if closed_deals:
            criteria.append(g.ChangedCheck(id="closed_deals_moved", check="changed", points=-2, table="crm_deal",
                                           op="update", match={"id": {"in": [d["id"] for d in closed_deals]}},
                                           description="Closed deals were reassigned (they stay with who won or "
                                                       "lost them)."))
        return Draft(
            instruction=instruction,
            tools=hard_tools(["mail", "crm", "drive", "chat"], hard,
                             writes=["crm_update_deal", "crm_move_deal", "drive_share_file", "chat_post_message",
                                     "mail_send_message", "mail_reply_message"],
                             distractors=["mail", "crm", "drive", "chat"]),
            gates=gates, criteria=criteria, solve=solve, variant=variant, max_steps=80, facts=sheet,
            difficulty="hard" if hard else "medium",
            traps=self._traps(leaver, successor, other, split_account, open_deals, closed_deals, planted, kept),
        )

    @staticmethod
    def _traps(leaver: dict[str, Any], successor: dict[str, Any], other: dict[str, Any],
               split_account: dict[str, Any] | None, open_deals: list[dict[str, Any]],
               closed_deals: list[dict[str, Any]], planted: list[dict[str, Any]], kept: list[str]) -> list[str]:
        """What a quick reading gets wrong in this instance; each fails a gate or a penalty."""
        out = []
        if split_account is not None:
            out.append(f"a later reply-all from the head of sales sends {split_account['name']}'s deals to "
                       f"{other['name']}, not {successor['name']}")
        if closed_deals:
            out.append(f"{len(closed_deals)} won or lost deals of {first_name(leaver['name'])}'s stay with them")
        if len(open_deals) > 20:
            out.append(f"{len(open_deals)} open deals: more than one page of the deal search")
        elif len(open_deals) > len([d for d in planted if d["stage"] not in ("closed_won", "closed_lost")]):
            out.append("the leaver owns open deals of their own besides the batch on the planted accounts")
        if kept:
            out.append(f"{successor['name']} can open the same files: only the leaver's access goes")
        return out
