"""Facts only a colleague holds: ask the right person, wait for the answer, act on what they said.

``ask_before_acting``: a deal's agreed figure is in someone's head, not in any app; the agent
must ask them (or whoever their out-of-office names), wait on the simulated clock and put the
answer in the CRM.  ``delegated_request``: the first person asked hands the question on ("ask
Priya, she owns it"), and the agent must follow the chain to whoever answers.  A guess, the stale
figure in the CRM or a thread, or an answer read before it arrived all leave the deal wrong.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from officesim.colleagues import Colleague
from officesim.grading.record_checks import ChangedCheck
from officesim.taskgen import colleague_kit as kit
from officesim.taskgen.base import Draft, Family, Solver, Stage, WorldLacks
from officesim.taskgen.common import colleague_mail, day, ensure_channel, long_date, post, reply, stamp
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
        who = kit.cast(stage, rng, self.name, index)
        user, head, deal, rep, account = who.user, who.head, who.deal, who.rep, who.account
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
            other_name = kit.second_deal_name(stage, account)
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
                            kit.collateral([*fields, "next_step"])]  # a note in the next step is fine
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
        traps = [f"the CRM's {money(deal['amount'])} is the old amount: the deal takes what the colleague answers, "
                 "after they answer"]
        if variant == "list-or-net":
            traps.append(f"{kit.hello(rep)} gives a list price and the net after a {pct}% discount: the deal takes "
                         "the net")
        elif variant == "out-of-office":
            traps += [f"{rep['name']} is away: their auto-reply names {deputy['name']}, who answers",
                      f"the deal's next step holds a stale {money(stale)}"]
        elif variant == "two-holders":
            traps.append(f"the amount comes from {kit.hello(rep)}, the close date from Legal: both go on the deal")
        elif variant == "find-owner":
            traps += [f"a colleague's guess of {money(stale)} in the request's thread is stale",
                      f"the account has a second deal, owned by {other_owner['name']}, who does not know the figure",
                      f"the request sits in a busy #{DESK}, more than a page back"]
        return Draft(instruction=instruction, tools=kit.tools(hard), gates=gates, criteria=criteria, solve=solve,
                     variant=variant, max_steps=30, facts=sheet, colleagues=colleagues, traps=traps,
                     difficulty=kit.tier(variant, "owner-knows", "find-owner"))


def _namesakes(stage: Stage, pool: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(person in ``pool``, someone elsewhere with the same first name) pairs."""
    everyone = stage.rows("SELECT * FROM directory_person ORDER BY id")
    ids = {p["id"] for p in pool}
    return [(p, other) for p in pool for other in everyone
            if other["id"] not in ids and kit.hello(other) == kit.hello(p)]


class DelegatedRequest(Family):
    """Get a deal's purchase-order number from whoever holds it: the first person asked hands it on."""

    name = "delegated_request"
    skills = ("ask_colleague", "record_update", "communication")
    category = "colleague-facts"
    difficulty = "medium"
    apps = ("crm", "chat", "mail")
    variants = ("one-hop", "two-hops", "delegate-away", "asks-back", "namesake")
    worlds = ("acme", "carewell", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        who = kit.cast(stage, rng, self.name, index)
        user, head, deal, rep, account = who.user, who.head, who.deal, who.rep, who.account
        finance = kit.others_in(stage, "Finance", exclude=[user["id"], rep["id"], head["id"]])
        hard = variant == "namesake"
        if hard:
            pairs = _namesakes(stage, finance)
            if not pairs:
                raise WorldLacks("no one in Finance shares a first name with someone elsewhere")
            holder, namesake = rng.choice(pairs)
        else:
            holder, namesake = rng.choice(finance), None
        po, other_po, old_po, their_po = (f"PO-{n}" for n in rng.sample(range(40_000, 99_999), 4))
        short = kit.short(deal)
        stage.clock(stamp(day(-3), 10, 0))
        hops: list[dict[str, Any]] = [rep]
        if variant == "two-hops":
            hops.append(stage.person("role:controller") if stage.person("role:controller")["id"] not in (
                holder["id"], user["id"]) else rng.choice([p for p in finance if p["id"] != holder["id"]]))
        away_deputy = None
        if variant == "delegate-away":
            away_deputy = holder
            holder = rng.choice([p for p in finance if p["id"] != away_deputy["id"]])
        people = [*hops, holder, *([away_deputy] if away_deputy else []), *([namesake] if namesake else [])]
        channels = [kit.dm_history(stage, p, "Thanks for your help last week!", "Happy to help.") for p in people]
        cast = [p["id"] for p in people] + [head["id"]]
        colleagues: list[Colleague] = []
        asks: list[tuple[dict[str, Any], str, str, int]] = []
        question = f"Hi {{}}, do you have the purchase-order number for {account['name']}'s {short}?"
        waits = [rng.randint(8, 30) for _ in range(4)]
        # the chain: each hop names the next person by full name (the namesake hop only by first name + team)
        chain = [*hops, *([away_deputy] if away_deputy else []), holder]
        for n, (person, after) in enumerate(itertools.pairwise(chain)):
            if person is away_deputy:
                colleagues.append(kit.away(person, long_date(day(rng.randint(4, 8))), after))
                asks.append((person, question.format(kit.hello(person)), after["name"], 0))
                continue
            named = f"{kit.hello(after)} in {stage.department('Finance')}" if hard else after["name"]
            colleagues.append(kit.replies(person, (f"Not me, sorry: {named} handles the POs for {account['name']}. "
                                                   "Ask them.", waits[n])))
            asks.append((person, question.format(kit.hello(person)), kit.hello(after), waits[n]))
        last = waits[3]
        if variant == "asks-back":
            other = rng.choice([p for p in ("Training package", "Premium Support", "Data Connectors add-on")
                                if p != short])
            colleagues.append(kit.replies(holder, (f"Sure. They have two open orders with us: is it the {short} or "
                                                   f"the {other}? They have separate POs.", last),
                                          (f"{short}: {po}. ({other}: {other_po}.)", last)))
            asks += [(holder, question.format(kit.hello(holder)), "separate POs", last),
                     (holder, f"The {short}, please.", po, last)]
        else:
            colleagues.append(kit.replies(holder, (f"Yes: {account['name']}'s PO for the {short} is {po}.", last)))
            asks.append((holder, question.format(kit.hello(holder)), po, last))
        if namesake is not None:
            colleagues.append(kit.replies(namesake, (f"Hm, the only PO I have is {their_po}, for our own office "
                                                     "supplies. Not sure that's what you need?", 10)))
        stage.clock(stamp(day(-10), 15, 0))
        colleague_mail(stage, rep["id"], ["user"], f"{account['name']} paperwork",
                       f"FYI: {account['name']}'s previous order ran on {old_po}; that one is closed now.\n\n"
                       f"{kit.hello(rep)}")
        sheet = FactSheet()
        key = sheet.entity(deal["name"], key="deal", aliases=[short, account["name"]], kind="deal")
        right = sheet.entity(po, key="po", kind="code")
        wrongs = [sheet.entity(old_po, key="old_po", kind="code")]
        if namesake is not None:  # the namesake's own PO: acting on the wrong person's answer
            wrongs.append(sheet.entity(their_po, key="namesake_po", kind="code"))
        if variant == "asks-back":
            wrongs.append(sheet.entity(other_po, key="other_po", kind="code"))
        # any other PO number stated beside the right one (a guessed one included) is a second candidate
        guess = sheet.entity("another PO", key="another_po", kind="code",
                             patterns=[rf"\bPO-(?!{po[3:]}\b)\d{{3,}}\b"])
        pos = [right, *wrongs, guess]
        sheet.fact(key, "po", right, wrong=wrongs)
        sheet.fact(key, "amount", deal["amount"])  # the deal's own figure is fine to mention
        request_text = (f"Could you get the customer's purchase-order number for {deal['name']} into the deal's next "
                        f"step in the CRM? {kit.hello(rep)} will know who has it.")
        told: dict[str, Any]
        if hard:
            sales = kit.others_in(stage, "Sales", exclude=[user["id"], head["id"]])[:6]
            desk = ensure_channel(stage, DESK, [head["id"], "user", rep["id"], *(p["id"] for p in sales)])
            channels.append(desk)
            stage.clock(stamp(day(-1), 15, 45))
            asked = post(stage, head["id"], DESK, f"@ops {request_text} Reply here when it's in.")
            kit.chatter(stage, rng, DESK, sales, skip=account["id"])
            told = {"channel": desk, "message": asked}
            instruction = rng.choice([
                f"{kit.hello(head)} left ops a request in #{DESK} yesterday about a customer PO. Please take care of "
                "it and reply in the thread.",
                f"There's a PO request for ops somewhere in #{DESK}; can you handle it?",
                f"Could you pick up {head['name']}'s request in #{DESK} about a purchase-order number and answer "
                "in its thread?",
            ])
        else:
            stage.clock(stamp(day(0), 8, 30))
            request = colleague_mail(stage, head["id"], ["user"], f"PO for {account['name']}",
                                     f"Hi {kit.hello(user)},\n\n{request_text} Let me know once it's in.\n\n"
                                     f"{kit.hello(head)}\n")
            told = {"to": head["id"], "message": request["id"]}
            instruction = rng.choice([
                f"Please handle {kit.hello(head)}'s mail about the {account['name']} purchase order and reply to "
                "them.",
                f"{head['name']} needs a PO number recorded on a deal; the details are in their mail. Ask around as "
                "needed and let them know when it's done.",
                f"Could you take care of the PO request {kit.hello(head)} mailed me this morning?",
            ])
        stage.clock(stamp(day(0), 9, 0))
        next_step = f"Customer PO {po} received; send the order form"

        def solve(s: Solver) -> None:
            if hard:
                page = s.call("chat_list_messages", channel=DESK)
                s.call("chat_list_messages", channel=DESK, cursor=page["next_cursor"])
                found = s.call("crm_search_accounts", query=account["name"])
                s.call("crm_search_deals", account_id=found["accounts"][0]["id"])
                s.call("crm_get_deal", deal_id=deal["id"])
            else:
                s.call("mail_search_messages", query="PO", sender=head["email"])
                s.call("mail_get_message", message_id=told["message"])
                s.call("crm_search_deals", query=account["name"])
            for person, text, needle, minutes in asks:
                if hard and person is holder:
                    s.call("directory_search_people", query=kit.hello(holder), department=stage.department("Finance"))
                kit.ask(s, person, text)
                s.wait(minutes + 5)
                kit.heard(s, person, needle)
            s.call("crm_update_deal", deal_id=deal["id"], next_step=next_step)
            body = f"Hi {kit.hello(head)}, done: {deal['name']} now has the customer's PO {po} in its next step."
            if "to" in told:
                s.call("mail_reply_message", message_id=told["message"], body=body)
            else:
                s.call("chat_reply_message", message_id=told["message"], text=body)

        where: dict[str, Any] = {"to": [head["id"]]} if "to" in told else {"channel": told["channel"]}
        gates: list[Any] = [
            kit.deal_is(deal["id"], {"next_step": {"contains": po}}, "The deal's next step carries the PO number "
                        "the person who holds it gave."),
            facts_check("po_on_deal", None, "crm:crm_deal.next_step", trace_to="facts", subject=key,
                        require=[f"{key}.po"], name=[right], candidates=pos,
                        description="The next step states the right PO, committed (a closed "
                        "or other order's PO only as such)."),
            facts_check("told_requester", None, "sent_mail" if "to" in told else "chat_posts", trace_to="facts",
                        subject=key, require=[f"{key}.po"], name=[right], candidates=pos,
                        description="The requester hears the PO number, and only that one.",
                        **where),
            kit.collateral(["next_step"]),  # the PO goes in the next step; the amount and close date stay
        ]
        criteria: list[Any] = [_changed_deal(deal["id"], ["next_step"]),
                               *kit.guards(cast, channels, deal["id"], keep=[] if hard else [told["message"]])]
        traps = [f"{rep['name']}'s older mail names {old_po}, the PO of a closed order",
                 f"{kit.hello(chain[0])} does not hold the PO and hands the question on"]
        if variant == "two-hops":
            traps.append(f"{kit.hello(hops[1])} hands it on again, to {holder['name']}")
        elif variant == "delegate-away":
            traps.append(f"{away_deputy['name']} is away: their auto-reply names {holder['name']}")  # type: ignore[index]
        elif variant == "asks-back":
            traps.append(f"the account has two open orders with separate POs: {other_po} is the {other}'s")
        elif variant == "namesake":
            traps += [f"{namesake['name']} shares {kit.hello(holder)}'s first name outside Finance and has an "  # type: ignore[index]
                      "unrelated PO",
                      f"the request sits in a busy #{DESK}, more than a page back"]
        return Draft(instruction=instruction, tools=kit.tools(hard), gates=gates, criteria=criteria, solve=solve,
                     variant=variant, max_steps=40, facts=sheet, colleagues=colleagues, traps=traps,
                     difficulty=kit.tier(variant, "one-hop", "namesake"))
