"""Approvals: ask the approver, wait, and act on what they actually said.

``approval_chain``: a rep asks for a discount on a deal; the agent must get it signed off by the
right approver (named, or found in the current discount policy) and then act on the answer:
apply it, apply the smaller discount the approver allowed, leave the deal alone when declined,
follow the approver's hand-off to the CFO, or ask the deputy an out-of-office reply names.
Acting on the request itself, on the wrong approver's "fine by me" or on a guess leaves the
deal wrong.
"""

from __future__ import annotations

import random
from typing import Any

from officesim.colleagues import Colleague
from officesim.grading.mail_checks import MailSentCheck
from officesim.grading.order_checks import WrittenAfterSeenCheck
from officesim.grading.record_checks import ChangedCheck
from officesim.taskgen import colleague_kit as kit
from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import colleague_mail, day, ensure_channel, long_date, post, shared_doc, stamp
from officesim.taskgen.factsheet import FactSheet, facts_check

DECLINED = (r"\bdeclin\w*|\bturned\s+(?:it\s+)?down|\bnot\s+(?:been\s+)?approv\w*|\brefus\w*|\breject\w*|"
            r"\b(?:can(?:no|')t|won't|couldn't|didn't|did\s+not|could\s+not)\s+(?:be\s+)?approve\w*|\bno\s+go\b")
REASONS = ["margin on this one is already thin", "they're already on our best multi-year terms",
           "we gave them a concession on the last renewal", "finance wants list price on new logos this quarter"]


def _policy(head: str, cfo: str, limit: int, year: int, *, current: bool) -> str:
    status = "This policy is in force from January 1." if current else (
        f"Superseded: replaced by the {year + 1} discount policy.")
    return (f"Discount approval policy {year}\n\n{status}\n\nDiscounts off list price need written sign-off before "
            f"they go into the CRM.\n- Up to {limit}%: {head} (Head of Sales).\n- Above {limit}%: {cfo} (CFO).\n"
            "Sign-off by chat or mail is fine; keep it in the deal's thread.\n")


class ApprovalChain(Family):
    """Get a requested deal discount approved by the right person, then act on exactly what they said."""

    name = "approval_chain"
    skills = ("approval_chain", "record_update", "communication", "policy_application")
    category = "approvals"
    difficulty = "medium"
    apps = ("crm", "chat", "mail", "drive")
    variants = ("approved", "approved-with-change", "declined", "handed-up", "deputy", "policy-lookup")
    worlds = ("acme", "carewell", "lantern", "tiny")
    count_per_world = 5

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        # not a deal whose account has a near-namesake one (lantern's "Programme grant" and "Programme grant
        # (2027)"): a search by the account lists both, and read quickly the other's figures look like its own
        twins = [r["id"] for r in stage.rows(
            "SELECT DISTINCT a.id FROM crm_deal a JOIN crm_deal b ON b.account_id = a.account_id AND b.id != a.id "
            "WHERE instr(b.name, a.name) > 0 OR instr(a.name, b.name) > 0")]
        who = kit.cast(stage, rng, self.name, index, users=["role:ops_manager"], keep_out=["role:cfo"],
                       skip_deals=twins)
        user, head, deal, rep, account = who.user, who.head, who.deal, who.rep, who.account
        cfo = who.others["role:cfo"]
        money = lambda x: stage.money(x, cents=False)  # noqa: E731
        limit = rng.choice([10, 15])
        hard = variant == "policy-lookup"
        pct = rng.choice([limit + 5, limit + 10]) if variant in ("handed-up", "policy-lookup") else \
            limit if variant == "approved-with-change" else rng.choice([limit - 5, limit])
        allowed = pct if variant not in ("approved-with-change", "policy-lookup") else pct - 5
        listed = deal["amount"]
        asked_amount = float(round(listed * (1 - pct / 100)))
        final = listed if variant == "declined" else float(round(listed * (1 - allowed / 100)))
        approver = cfo if variant in ("handed-up", "policy-lookup") else head
        ref = f"APR-{rng.randrange(1000, 9999)}"  # the sign-off's reference: it goes on the deal with the discount
        floor = rng.randint(18, 34)  # a decline gives its reason: the deal's margin floor
        signed = f" Reference {ref}: put it in the deal's next step."
        wait = rng.randint(10, 35)
        stage.clock(stamp(day(-4), 10, 0))
        people = [rep, head] + ([cfo] if approver is cfo else [])
        colleagues: list[Colleague] = []
        channels = [kit.dm_history(stage, p, f"Thanks for the quick turnaround on {topic}!", "Any time.")
                    for p, topic in zip(people, rng.sample(["the forecast", "the QBR deck", "the board pack"], 3),
                                        strict=False)]
        cast = [p["id"] for p in people]
        sheet = FactSheet()
        key = sheet.entity(deal["name"], key="deal", aliases=[kit.short(deal), account["name"]], kind="deal")
        asks: list[tuple[dict[str, Any], str, str, int]] = []  # (whom, question, what the answer says, minutes)
        question = (f"Hi {{}}, {rep['name']} asks for a {pct}% discount on {deal['name']} ({money(listed)} list, "
                    f"{money(asked_amount)} after the discount). Do you approve?")
        if variant == "approved":
            colleagues.append(kit.replies(head, (f"Approved: {pct}% on {kit.short(deal)} is fine, go ahead.{signed}",
                                                 wait)))
            asks.append((head, question.format(kit.hello(head)), "Approved", wait))
        elif variant == "approved-with-change":
            colleagues.append(kit.replies(head, (f"I can approve {allowed}%, not {pct}%. Please put it in at "
                                                 f"{allowed}%.{signed}", wait)))
            asks.append((head, question.format(kit.hello(head)), f"{allowed}%", wait))
        elif variant == "declined":
            colleagues.append(kit.replies(head, (f"No, I can't approve that: {rng.choice(REASONS)}, and it would "
                                                 f"take the margin under our {floor}% floor. Leave the deal at list.",
                                                 wait)))
            asks.append((head, question.format(kit.hello(head)), "can't approve", wait))
        elif variant == "handed-up":
            cfo_wait = rng.randint(10, 30)
            colleagues += [kit.replies(head, (f"{pct}% is above my {limit}% limit, so it needs {cfo['name']}'s "
                                              "sign-off, not mine. Please ask them.", wait)),
                           kit.replies(cfo, (f"Approved, {pct}% on {kit.short(deal)}.{signed}", cfo_wait))]
            asks += [(head, question.format(kit.hello(head)), cfo["name"], wait),
                     (cfo, question.format(kit.hello(cfo)), "Approved", cfo_wait)]
        elif variant == "deputy":
            deputy = rng.choice(kit.others_in(stage, "Sales", exclude=[rep["id"], user["id"], head["id"]]))
            channels.append(kit.dm_history(stage, deputy, "See you at the pipeline review.", "See you there!"))
            cast.append(deputy["id"])
            colleagues += [kit.away(head, long_date(day(rng.randint(4, 8))), deputy),
                           kit.replies(deputy, (f"Covering approvals for {kit.hello(head)} this week: approved, "
                                                f"{pct}% is within policy.{signed}", wait))]
            asks += [(head, question.format(kit.hello(head)), deputy["name"], 0),
                     (deputy, question.format(kit.hello(deputy)), "approved", wait)]
        else:  # policy-lookup: the approver is in the current policy; the old one and the head of sales mislead
            colleagues += [kit.replies(head, (f"Fine by me for {pct}%.", rng.randint(5, 15))),
                           kit.replies(cfo, (f"I'll approve {allowed}%, not {pct}%: put it in at {allowed}%.{signed}",
                                             wait))]
            asks.append((cfo, question.format(kit.hello(cfo)), f"{allowed}%", wait))
        stage.clock(stamp(day(-2), 11, 0))
        policy_name = f"Discount approval policy {day(0).year}"
        if hard:
            shared_doc(stage, cfo["id"], policy_name, _policy(head["name"], cfo["name"], limit, day(0).year,
                                                              current=True))
            # last year's policy: the head of sales signed off up to 25%
            shared_doc(stage, cfo["id"], f"Discount approval policy {day(0).year - 1}",
                       _policy(head["name"], cfo["name"], 25, day(0).year - 1, current=False))
        request_text = (f"Could you get a {pct}% discount on {deal['name']} approved and put it in the CRM? That takes "
                        f"it from {money(listed)} to {money(asked_amount)}. Let me know how it goes.")
        stage.clock(stamp(day(-1), 15, 40))
        told: dict[str, Any]
        if hard:
            sales = kit.others_in(stage, "Sales", exclude=[user["id"], head["id"]])
            desk = ensure_channel(stage, kit.DESK, [rep["id"], "user", head["id"], *(p["id"] for p in sales[:6])])
            channels.append(desk)
            asked = post(stage, rep["id"], kit.DESK, f"@ops {request_text} Reply here.")
            kit.chatter(stage, rng, kit.DESK, sales[:6], skip=account["id"])
            told = {"channel": desk, "message": asked}
            instruction = rng.choice([
                f"There's a discount request for ops in #{kit.DESK} from yesterday. Please get it signed off by "
                "whoever the discount policy says and handle it.",
                f"Can you pick up {kit.hello(rep)}'s discount request in #{kit.DESK}? Approvals go by our discount "
                "policy in Drive.",
            ])
        else:
            request = colleague_mail(stage, rep["id"], ["user"], f"Discount for {account['name']}",
                                     f"Hi {kit.hello(user)},\n\n{request_text}\n\nThanks,\n{kit.hello(rep)}\n")
            told = {"to": rep["id"], "message": request["id"]}
            by = f"by {head['name']}"
            instruction = rng.choice([
                f"{kit.hello(rep)} mailed me a discount request. Discounts need sign-off {by} before anything "
                "changes in the CRM; please take care of it and let them know.",
                f"Please handle {rep['name']}'s discount request for {account['name']}: get it approved {by}, "
                "update the deal to match the approval and reply to them.",
                f"Could you deal with the discount {kit.hello(rep)} asked me for? It has to be signed off {by} "
                "first. Keep them posted.",
            ])
        stage.clock(stamp(day(0), 9, 0))
        sheet.fact(key, "amount", final, wrong=[] if final == asked_amount else [asked_amount])
        if hard:  # who signed off: the CFO by the current policy, not the head of sales of last year's
            sheet.fact(key, "approved_by", sheet.entity(cfo["name"], key="cfo", aliases=[kit.hello(cfo)],
                                                        person=cfo["id"], kind="person"),
                       wrong=[sheet.entity(head["name"], key="head", aliases=[kit.hello(head)], person=head["id"],
                                           kind="person")])
        traps = self._traps(variant, pct, allowed, floor, money(asked_amount), head, cfo,
                            deputy["name"] if variant == "deputy" else None)
        if final != listed:
            sheet.fact(key, "list_price", listed)
        else:  # the answer must say it was declined, with the deal
            no = sheet.entity("declined", key="declined", patterns=[DECLINED], kind="decision")
            sheet.fact(key, "decision", no)
            sheet.fact(key, "margin_floor", floor)  # the approver's reason, only in their answer

        def solve(s: Solver) -> None:
            if hard:
                page = s.call("chat_list_messages", channel=kit.DESK)
                s.call("chat_list_messages", channel=kit.DESK, cursor=page["next_cursor"])
                s.call("drive_search_files", query="discount approval policy")
                current = s.call("drive_search_files", query=policy_name)["files"][0]
                s.call("drive_get_doc", file_id=current["id"])
                s.call("directory_search_people", query=cfo["name"])
            else:
                s.call("mail_search_messages", query="discount", sender=rep["email"])
                s.call("mail_get_message", message_id=told["message"])
            s.call("crm_search_deals", query=account["name"])
            s.call("crm_get_deal", deal_id=deal["id"])
            for person, text, needle, minutes in asks:
                kit.ask(s, person, text)
                s.wait(minutes + 5)
                kit.heard(s, person, needle)
            if final != listed:
                s.call("crm_update_deal", deal_id=deal["id"], amount=final,
                       next_step=f"Discount of {allowed}% approved by {approver['name']} ({ref})")
                note = f"{approver['name']} approved {allowed}%: {deal['name']} is now at {money(final)}"
            else:
                note = (f"{approver['name']} declined the {pct}% discount (it would take the margin under the "
                        f"{floor}% floor), so {deal['name']} stays at {money(listed)}")
            body = f"Hi {kit.hello(rep)}, {note}."
            if "to" in told:
                s.call("mail_reply_message", message_id=told["message"], body=body)
            else:
                s.call("chat_reply_message", message_id=told["message"], text=body)

        text = kit.told_form(instruction) if "to" in told else "chat_posts"  # where the requester is told
        if final != listed:
            gates: list[Any] = [kit.deal_is(deal["id"], {"amount": final, "next_step": {"contains": ref}},
                                            "The deal carries the discount the approver actually approved, with the "
                                            "sign-off's reference.")]
            # "sign-off before anything changes in the CRM": a deal written first and touched up once the
            # approval came ends the same, so the order is read from the episode (only the approval holds ref)
            gates.append(WrittenAfterSeenCheck(
                id="signed_off_first", check="written_after_seen", tools=["crm_update_deal", "crm_move_deal"],
                arguments={"deal_id": deal["id"]}, seen=ref,
                description="The deal was changed only after the approver's sign-off (its reference) was read."))
            criteria: list[Any] = [ChangedCheck(id="changed_deal", check="changed", points=1, table="crm_deal",
                                                op="update", match={"id": deal["id"]}, fields=["amount"],
                                                description="The deal's amount was updated.")]
        else:
            gates = [kit.deal_untouched(deal)]
            # (where a direct message will do, told_requester alone says the requester got an answer)
            criteria = [MailSentCheck(id="replied", check="mail_sent", points=1, to=[rep["id"]], to_mode="includes",
                                      description="The requester got an answer.")] if text == "sent_mail" else [
                ChangedCheck(id="replied", check="changed", points=1, table="chat_message", op="insert",
                             match={"author_id": "user", "thread_id": told["message"]},
                             description="The request's thread got an answer.")] if text == "chat_posts" else []
        gates.append(kit.collateral(["amount", "next_step"]))  # not the close date: nobody asked
        where: dict[str, Any] = {"to": [rep["id"]]} if "to" in told else {"channel": told["channel"]}
        if final != listed:
            gates.append(facts_check("told_requester", None, text, trace_to="facts", subject=key,
                                     require=[f"{key}.amount", *([f"{key}.approved_by"] if hard else [])],
                                     description="The requester is told the amount "
                                     "the deal now carries.", **where))
        else:
            gates.append(facts_check("told_requester", None, text, trace_to="facts", subject=key,
                                     require=[f"{key}.decision", f"{key}.margin_floor"],
                                     description="The requester is told the discount was declined and why (the "
                                                 "margin floor), and no discounted amount.",
                                     **where))
        criteria += kit.guards(cast, channels, deal["id"], keep=[told["message"]] if "to" in told else [])
        tools = kit.tools(hard, apps=("drive",) if hard else ())
        return Draft(instruction=instruction, tools=tools, gates=gates, criteria=criteria, solve=solve,
                     variant=variant, max_steps=30, facts=sheet, colleagues=colleagues,
                     difficulty=kit.tier(variant, "approved", "policy-lookup"), traps=traps)

    @staticmethod
    def _traps(variant: str, pct: int, allowed: int, floor: int, asked: str, head: dict[str, Any],
               cfo: dict[str, Any], deputy: str | None) -> list[str]:
        """What a quick reading gets wrong in this instance; each one fails a gate (the deal's amount and
        sign-off reference, the deal left alone, or the facts told to the requester)."""
        out = {
            "approved": ["the sign-off reference is only in the approver's answer: writing the discount before "
                         "they reply leaves the deal without it"],
            "approved-with-change": [f"{head['name']} approves {allowed}%, not the {pct}% asked: {asked} is "
                                     "the wrong amount",
                                     "the sign-off reference is only in the approver's answer"],
            "declined": [f"{head['name']} declines: the deal stays at list, untouched",
                         f"the requester must hear why (the {floor}% margin floor), which only the answer says"],
            "handed-up": [f"{head['name']} passes it to {cfo['name']} (above their limit): their reply is no "
                          "sign-off",
                          "the reference comes with the CFO's approval only"],
            "deputy": [f"{head['name']} is out of office; the auto-reply names {deputy} as cover",
                       "the deputy's approval carries the reference; nothing before it does"],
            "policy-lookup": [f"last year's discount policy (superseded) lets {head['name']} sign off up to 25%",
                              f"{head['name']} answers 'fine by me', but {pct}% needs {cfo['name']} by the "
                              "current policy",
                              f"{cfo['name']} approves {allowed}%, not {pct}%",
                              "the request is more than a page back in the channel"],
        }[variant]
        return out
