"""Facts only a colleague holds: ask the right person, wait for the answer, act on what they said.

``ask_before_acting``: a deal's agreed figure is in someone's head, not in any app; the agent
must ask them (or whoever their out-of-office names), wait on the simulated clock and put the
answer in the CRM.  ``delegated_request``: the first person asked hands the question on ("ask
Priya, she owns it"), and the agent must follow the chain to whoever answers.  A guess, the stale
figure in the CRM or a thread, or an answer read before it arrived all leave the deal wrong.
"""

from __future__ import annotations

import random
from typing import Any

from officesim.colleagues import Colleague
from officesim.grading.record_checks import ChangedCheck
from officesim.taskgen import colleague_kit as kit
from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import colleague_mail, day, ensure_channel, long_date, nth, post, reply, stamp
from officesim.taskgen.factsheet import FactSheet, facts_check

DESK = kit.DESK


def _changed_deal(deal_id: str, fields: list[str]) -> ChangedCheck:
    return ChangedCheck(id="changed_deal", check="changed", points=1, table="crm_deal", op="update",
                        match={"id": deal_id}, fields=fields, description="The deal was updated.")


class AskBeforeActing(Family):
    """Update a deal with the figure only its owner (or their deputy, or Legal) knows: ask, wait, act."""

    name = "ask_before_acting"
    skills = ("ask_colleague", "record_update", "communication")
    category = "colleague-facts"
    difficulty = "medium"
    apps = ("crm", "chat", "mail")
    variants = ("owner-knows", "list-or-net", "out-of-office", "two-holders", "find-owner")
    worlds = ("acme", "forge", "counsel")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        stage.act_as(rng.choice(["role:ops_manager", "role:cs_lead"]))
        user = stage.world.user
        head = stage.person("role:head_of_sales")
        deal = nth(kit.home_deals(stage, exclude=[user["id"], head["id"]]), index, self.name)
        rep = stage.person(deal["owner_id"])
        account = stage.one("SELECT * FROM crm_account WHERE id = ?", deal["account_id"])
        new = kit.amount_near(rng, deal["amount"])
        money = lambda x: stage.money(x, cents=False)  # noqa: E731
        stage.clock(stamp(day(-3), 10, 0))
        channels = [kit.dm_history(stage, rep, f"Thanks for looping me in on {account['name']} last week.",
                                   "Anytime, thanks for the help!")]
        cast: list[str] = [rep["id"]]
        colleagues: list[Colleague] = []
        expect: dict[str, Any] = {"amount": new}
        sheet = FactSheet()
        key = sheet.entity(deal["name"], key="deal", aliases=[kit.short(deal), account["name"]], kind="deal")
        wait = rng.randint(12, 40)
        hard = variant == "find-owner"
        criteria: list[Any] = []
        keep: list[str] = []
        told: dict[str, Any] | None = None  # the message that tells the requester: check arguments
        request: dict[str, Any] | None = None
        if variant == "owner-knows":
            colleagues.append(kit.replies(rep, (f"Yes! We agreed {money(new)} for the {kit.short(deal)}. Thanks "
                                                "for updating it.", wait)))
            instruction = rng.choice([
                f"{rep['name']} closed the pricing with {account['name']} yesterday, but the figure isn't in the "
                f"CRM yet. Could you ask {kit.hello(rep)} what they agreed and put it on the {deal['name']} deal?",
                f"The {deal['name']} deal still shows the old amount. {kit.hello(rep)} knows what {account['name']} "
                "agreed to: please check with them and update the deal.",
                f"Please get the agreed amount for {account['name']}'s {kit.short(deal)} from {rep['name']} (it's "
                "not written down anywhere yet) and update the deal in the CRM.",
            ])
            sheet.fact(key, "amount", new)
            asks = [(rep, f"Hi {kit.hello(rep)}, what amount did {account['name']} agree to for the "
                          f"{kit.short(deal)}? I'll update the CRM.", money(new), wait)]
        elif variant == "list-or-net":
            pct = rng.choice([10, 12, 15, 20])
            listed = float(round(new / (1 - pct / 100), -2))
            colleagues.append(kit.replies(rep, (f"List comes to {money(listed)}, but with the {pct}% multi-year "
                                                f"discount they'll pay {money(new)}.", wait)))
            stage.clock(stamp(day(0), 8, 35))
            request = colleague_mail(stage, head["id"], ["user"], f"{account['name']} final number",
                                     f"Hi {kit.hello(user)},\n\n{kit.hello(rep)} has the final numbers for "
                                     f"{account['name']}. Could you get the amount they'll actually be invoiced, "
                                     f"update the {kit.short(deal)} deal and let me know?\n\nThanks,\n"
                                     f"{kit.hello(head)}\n")
            keep.append(request["id"])
            cast.append(head["id"])
            instruction = rng.choice([
                f"Please take care of {kit.hello(head)}'s mail about {account['name']}.",
                f"{head['name']} needs the {account['name']} deal updated; the details are in their mail to me. "
                "Reply to them when it's done.",
            ])
            sheet.fact(key, "amount", new)
            sheet.fact(key, "list_price", listed)  # named as the list price it is fine; the deal must hold the net
            told = {"to": head["id"]}
            asks = [(rep, f"Hi {kit.hello(rep)}, what will {account['name']} actually be invoiced for the "
                          f"{kit.short(deal)}?", money(new), wait)]
        elif variant == "out-of-office":
            deputy = rng.choice(kit.others_in(stage, "Sales", exclude=[rep["id"], user["id"], head["id"]]))
            channels.append(kit.dm_history(stage, deputy, "Are you joining the pipeline review on Thursday?",
                                           "Yes, see you there."))
            cast.append(deputy["id"])
            back = long_date(day(rng.randint(5, 9)))
            colleagues += [kit.away(rep, back, deputy),
                           kit.replies(deputy, (f"Covering for {kit.hello(rep)}: {account['name']} signed off on "
                                                f"{money(new)} for the {kit.short(deal)}.", wait))]
            stale = kit.amount_near(rng, deal["amount"], 0.9, 1.1)
            stage.update("crm_deal", {"id": deal["id"]}, {"next_step": f"Waiting on sign-off at {money(stale)}"})
            instruction = rng.choice([
                f"{rep['name']} agreed final terms with {account['name']} last week. Ask {kit.hello(rep)} for the "
                f"amount and update the {kit.short(deal)} deal in the CRM.",
                f"Can you update the {deal['name']} deal with the amount {kit.hello(rep)} agreed with the customer? "
                "You'll need to ask them; it isn't written down.",
            ])
            sheet.fact(key, "amount", new, wrong=[stale])
            asks = [(rep, f"Hi {kit.hello(rep)}, what amount did {account['name']} agree for the "
                          f"{kit.short(deal)}?", deputy["name"], 0),
                    (deputy, f"Hi {kit.hello(deputy)}, {kit.hello(rep)} is out: do you know the amount "
                             f"{account['name']} agreed for the {kit.short(deal)}?", money(new), wait)]
        elif variant == "two-holders":
            legal = stage.person("role:legal_counsel")
            channels.append(kit.dm_history(stage, legal, "Thanks for the NDA turnaround!", "No problem."))
            cast.append(legal["id"])
            signing = day(rng.randint(8, 40))
            expect["close_date"] = signing.isoformat()
            legal_wait = rng.randint(10, 30)
            colleagues += [kit.replies(rep, (f"We landed at {money(new)} for the {kit.short(deal)}.", wait)),
                           kit.replies(legal, (f"Signature with {account['name']} is booked for "
                                               f"{long_date(signing)}, {signing.year}.", legal_wait))]
            instruction = rng.choice([
                f"Please bring the {deal['name']} deal up to date: {rep['name']} has the agreed amount and "
                f"{legal['name']} in Legal is scheduling the signature, so the close date should be that day.",
                f"The {account['name']} {kit.short(deal)} deal needs its amount and close date fixed. "
                f"{kit.hello(rep)} knows the amount; {kit.hello(legal)} (Legal) knows when they sign.",
            ])
            sheet.fact(key, "amount", new)
            asks = [(rep, f"Hi {kit.hello(rep)}, what amount did we land at with {account['name']}?", money(new),
                     wait),
                    (legal, f"Hi {kit.hello(legal)}, when is the {account['name']} signature booked?",
                     long_date(signing), legal_wait)]
        else:  # find-owner: the request is deep in a busy channel; a stale guess in its thread; another deal
            other_owner = rng.choice(kit.others_in(stage, "Sales", exclude=[rep["id"], user["id"], head["id"]]))
            other_name = f"{account['name']} - Premium Support"
            taken = {d["name"] for d in stage.rows("SELECT name FROM crm_deal WHERE account_id = ?", account["id"])}
            if other_name in taken:
                other_name = f"{account['name']} - Training package"
            stage.insert("crm_deal", [{"account_id": account["id"], "name": other_name, "stage": "proposal",
                                       "amount": float(round(deal["amount"] * rng.uniform(0.3, 0.6), -2)),
                                       "currency": deal["currency"], "close_date": day(rng.randint(30, 90)).isoformat(),
                                       "owner_id": other_owner["id"], "next_step": "Send proposal",
                                       "updated_by": other_owner["id"]}])
            channels.append(kit.dm_history(stage, other_owner, "Nice work on the Q3 numbers!", "Thank you!"))
            cast.append(other_owner["id"])
            colleagues += [kit.replies(rep, (f"It's {money(new)} for the {kit.short(deal)}, signed off by "
                                             "their CFO.", wait)),
                           kit.replies(other_owner, (f"Not mine, sorry: I only have the {other_name.split(' - ')[-1]} "
                                                     f"there. The {kit.short(deal)} is {kit.hello(rep)}'s.", 10))]
            people = kit.others_in(stage, "Sales", exclude=[user["id"], head["id"]])
            desk = ensure_channel(stage, DESK, [head["id"], "user", rep["id"], other_owner["id"],
                                                *(p["id"] for p in people[:6])])
            channels.append(desk)
            stale = kit.amount_near(rng, deal["amount"], 0.85, 1.15)
            stage.clock(stamp(day(-1), 15, 50))
            asked = post(stage, head["id"], DESK, f"{account['name']}'s {kit.short(deal)}: terms were agreed last "
                         "week, but the CRM still has the old amount. Whoever owns the deal has the final figure; "
                         "can ops get it and update the CRM? Reply here when done.")
            peer = rng.choice([p for p in people if p["id"] not in (rep["id"], other_owner["id"])][:6] or people)
            reply(stage, peer["id"], asked, f"I think it was around {money(stale)} last I heard?")
            kit.chatter(stage, rng, DESK, people[:6], skip=account["id"])
            instruction = rng.choice([
                f"Someone asked in #{DESK} yesterday for a deal to be updated now that its terms are agreed. Can you "
                "take care of it?",
                f"There's an open request in #{DESK} for ops to update a deal's amount. Please handle it and close "
                "the loop there.",
                f"Could you pick up the CRM update {kit.hello(head)} asked for in #{DESK}?",
            ])
            sheet.fact(key, "amount", new, wrong=[stale])
            sheet.entity(other_name, key="other_deal", aliases=[other_name.split(" - ")[-1]], kind="deal")
            told = {"channel": desk, "message": asked}
            asks = [(rep, f"Hi {kit.hello(rep)}, what's the final agreed amount for the {account['name']} "
                          f"{kit.short(deal)}?", money(new), wait)]
        stage.clock(stamp(day(0), 9, 0))

        def solve(s: Solver) -> None:
            if variant == "find-owner":
                page = s.call("chat_list_messages", channel=DESK)
                s.call("chat_list_messages", channel=DESK, cursor=page["next_cursor"])
                s.call("chat_get_thread", message_id=told["message"])  # type: ignore[index]
                found = s.call("crm_search_accounts", query=account["name"])
                s.call("crm_search_deals", account_id=found["accounts"][0]["id"])
                s.call("crm_get_deal", deal_id=deal["id"])
                s.call("directory_get_person", person=rep["id"])
            elif request is not None:
                found = s.call("mail_search_messages", query=account["name"])
                s.call("mail_get_message", message_id=request["id"])
            else:
                s.call("directory_search_people", query=asks[0][0]["name"])
            for person, question, needle, minutes in asks:
                kit.ask(s, person, question)
                s.wait(minutes + 5)
                kit.heard(s, person, needle)
            if variant != "find-owner":
                s.call("crm_search_deals", query=account["name"])
            s.call("crm_update_deal", deal_id=deal["id"], **expect)
            if told is not None and "to" in told:
                s.call("mail_reply_message", message_id=request["id"],  # type: ignore[index]
                       body=f"Hi {kit.hello(head)},\n\nDone: {deal['name']} is now at {money(new)}, the amount "
                            f"they'll be invoiced after the discount ({kit.hello(rep)} confirmed).\n\nBest")
            elif told is not None:
                s.call("chat_reply_message", message_id=told["message"],
                       text=f"Done: {kit.hello(rep)} confirmed {money(new)} for the {kit.short(deal)}; the CRM is "
                            "updated.")

        fields = sorted(expect)
        gates: list[Any] = [kit.deal_is(deal["id"], expect, "The deal holds what the colleague who knows said."),
                            kit.collateral()]
        criteria.append(_changed_deal(deal["id"], fields))
        if told is not None and "to" in told:
            gates.append(facts_check("told_requester", None, "sent_mail", to=[head["id"]], trace_to="facts",
                                        subject=key, require=[f"{key}.amount"],
                                        description="The requester is told the new amount."))
        elif told is not None:
            gates.append(facts_check("told_requester", None, "chat_posts", channel=told["channel"],
                                        trace_to="facts", subject=key, require=[f"{key}.amount"],
                                        exclude=["other_deal"],
                                        description="The request's thread gets the new amount."))
        criteria += kit.guards(cast, channels, deal["id"], keep=keep)
        sheet.fact(key, "previous_amount", deal["amount"])  # "up from $27,000" is fine
        return Draft(instruction=instruction, tools=kit.tools(hard), gates=gates, criteria=criteria, solve=solve,
                     variant=variant, max_steps=30, facts=sheet, colleagues=colleagues,
                     difficulty={"owner-knows": "easy", "find-owner": "hard"}.get(variant, "medium"))
