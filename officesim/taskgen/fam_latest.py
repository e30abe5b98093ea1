"""The latest word wins: figures that change while the agent works, instructions that supersede others.

``late_change``: timed events on the simulated clock bring a figure, then a correction (or a
retraction) during the episode; the deal must end up as the last word before the stated time
says, and the person told must hear that figure, not the first one.  ``conflicting_instructions``:
the inbox and channels already hold two instructions about one deal; the later one (or the one
from the manager who decided) wins, and the person whose request lost is told.
"""

from __future__ import annotations

import random
from datetime import date
from typing import Any

from officesim.clock import parse_ts
from officesim.colleagues import Colleague, TimedEvent
from officesim.grading.record_checks import ChangedCheck
from officesim.taskgen import colleague_kit as kit
from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import colleague_mail, day, ensure_channel, long_date, post, reply, stamp
from officesim.taskgen.factsheet import FactSheet, facts_check

ON_HOLD = (r"\bon\s+hold\b|\bhold(?:ing)?\s+off\b|\bpaused?\b|"
           r"\bleft\s+(?:it\s+)?(?:as\s+(?:it\s+)?(?:is|was)|unchanged|alone)\b|\bnot\s+(?:changed|applied|updated|touched)\b|\bhaven't\s+(?:changed|applied|updated|touched)\b|"
           r"\bno\s+changes?\b|\bunchanged\b|\bwon't\s+(?:change|apply|update)\b|\bdid\s+not\s+(?:change|apply)\b|"
           # German and French (forge, lantern): "auf Eis gelegt", "nichts geändert", "en attente", "rien modifié"
           r"\bauf\s+[Ee]is\b|\bzurückgestellt\b|\bpausiert\b|\bangehalten\b|"
           r"\b(?:nichts|nicht)\s+(?:geändert|angepasst|übernommen|angefasst|eingetragen)\b|\bunverändert\b|"
           r"\bkeine\s+Änderungen?\b|\ben\s+attente\b|\ben\s+pause\b|\bsuspendu|"
           r"\brien\s+(?:changé|modifié|touché)\b|\bpas\s+(?:modifié|changé|touché)\b|\binchangé|"
           r"\baucune\s+modification\b|\btel\s+quel")


def _mail(sender: str, subject: str, body: str) -> dict[str, Any]:
    return {"call": "mail_send_message", "as": sender, "arguments": {"to": ["user"], "subject": subject, "body": body}}


def _dm(sender: str, text: str) -> dict[str, Any]:
    return {"call": "chat_send_dm", "as": sender, "arguments": {"person": "user", "text": text}}


def _post(sender: str, channel: str, text: str) -> dict[str, Any]:
    return {"call": "chat_post_message", "as": sender, "arguments": {"channel": channel, "text": text}}


class LateChange(Family):
    """A figure arrives during the episode and is corrected (or withdrawn) before the stated time: act on the last."""

    name = "late_change"
    skills = ("latest_instruction", "record_update", "communication")
    category = "changing-requests"
    difficulty = "medium"
    apps = ("crm", "mail", "chat")
    variants = ("mail-correction", "retracted", "dm-update", "changed-mind", "busy-channel")
    worlds = ("acme", "shopline", "forge")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        who = kit.cast(stage, rng, self.name, index, keep_out=["role:cfo"])
        user, head, deal, rep, account = who.user, who.head, who.deal, who.rep, who.account
        cfo = who.others["role:cfo"]
        money = lambda x: stage.money(x, cents=False)  # noqa: E731
        first, final = kit.two_amounts(rng, deal["amount"])
        due = "10:00 UTC"
        early, late = rng.randint(8, 25), rng.randint(32, 52)
        stage.clock(stamp(day(-3), 10, 0))
        talk = {"mail-correction": cfo, "retracted": head, "dm-update": rep, "changed-mind": cfo,
                "busy-channel": rep}[variant]
        cast = [talk["id"]] + ([rep["id"]] if variant == "retracted" else [])
        channels = [kit.dm_history(stage, talk, "Thanks for the help with the forecast.", "Sure thing.")]
        if variant == "retracted":
            channels.append(kit.dm_history(stage, rep, f"How's {account['name']} going?", "Getting there!"))
        sheet = FactSheet()
        key = sheet.entity(deal["name"], key="deal", aliases=[kit.short(deal), account["name"]], kind="deal")
        colleagues: list[Colleague] = []
        events: list[TimedEvent] = []
        field, shown = "amount", money(final)
        value: float | str = final
        told: dict[str, Any] = {"to": talk["id"]}
        hard = variant == "busy-channel"
        short = kit.short(deal)
        if variant == "mail-correction":
            events = [TimedEvent(after_minutes=early, steps=[_mail(cfo["id"], f"{account['name']} renewal figure",
                                                                   f"The {short} renewal comes to {money(first)}.")]),
                      TimedEvent(after_minutes=late, steps=[_mail(cfo["id"], f"Correction: {account['name']} renewal",
                                                                  f"Sorry, {money(first)} left out their service "
                                                                  f"credit. The {short} figure is {money(final)}.")])]
            instruction = rng.choice([
                f"{cfo['name']} is finalising the {account['name']} renewal figure this morning and will mail it to "
                f"me by {due}; it may still change before then. Once it's final, put it on the {deal['name']} deal "
                f"and confirm to {kit.hello(cfo)} by mail.",
                f"I'm waiting on {kit.hello(cfo)}'s final number for {account['name']} ({short}); they said by "
                f"{due}, and the first version is often revised. Please update the deal with the final figure and "
                "mail them back to confirm.",
            ])
            sheet.fact(key, "amount", final, wrong=[first])
        elif variant == "retracted":
            approval = colleague_mail(stage, head["id"], ["user"], f"Approved: {deal['name']} at {money(first)}",
                                      f"Hi {kit.hello(user)},\n\nApproved: please set {deal['name']} to "
                                      f"{money(first)} once {kit.hello(rep)} confirms their signatory is lined up."
                                      f"\n\nThanks,\n{kit.hello(head)}\n")
            wait = rng.randint(30, 45)
            colleagues.append(kit.replies(rep, ("Yes, their signatory is lined up for this week.", wait)))
            events = [TimedEvent(after_minutes=rng.randint(10, 25), steps=[_mail(
                head["id"], f"Hold off: {deal['name']}", f"Please hold off on {deal['name']}: {account['name']} "
                "just reopened terms. Don't change anything on it until you hear from me.")])]
            instruction = rng.choice([
                f"{kit.hello(head)} approved a new amount for {deal['name']}, pending a check with {rep['name']}. "
                f"Please check with {kit.hello(rep)}, then do what's needed and let {kit.hello(head)} know by mail.",
                f"Could you action {head['name']}'s approval on the {account['name']} deal? It's conditional on "
                f"{kit.hello(rep)} confirming something; ask them first, then reply to {kit.hello(head)}.",
            ])
            field, value = "", float(deal["amount"])
            no = sheet.entity("on hold", key="on_hold", patterns=[ON_HOLD], kind="decision")
            sheet.fact(key, "decision", no)
            sheet.fact(key, "amount", deal["amount"], wrong=[first])
            told = {"to": head["id"], "message": approval["id"]}
        elif variant == "dm-update":
            events = [TimedEvent(after_minutes=early, steps=[_dm(rep["id"], f"Looks like {money(first)} for the "
                                                                            f"{short}, will confirm.")]),
                      TimedEvent(after_minutes=late, steps=[_dm(rep["id"], f"Final: {money(final)}. They pushed back "
                                                                           f"on {money(first)}.")])]
            instruction = rng.choice([
                f"{rep['name']} is on a call with {account['name']} and will DM me the final amount for the {short} "
                f"by {due}; numbers tend to move during these calls. When it's settled, update the deal and DM "
                f"{kit.hello(rep)} to confirm.",
                f"{kit.hello(rep)} is negotiating {deal['name']} right now and promised the final number by {due}. "
                f"Please put the final figure on the deal and confirm to {kit.hello(rep)} in chat.",
            ])
            sheet.fact(key, "amount", final, wrong=[first])
            told = {"channel": rep["id"]}
        elif variant == "changed-mind":
            d1 = day(rng.randint(10, 30))
            d2 = date.fromordinal(d1.toordinal() + rng.choice([7, 14, 21]))
            wait = rng.randint(8, 20)
            colleagues.append(kit.replies(cfo, (f"Use {long_date(d1)}, {d1.year} as the close date for "
                                                f"{account['name']}.", wait)))
            events = [TimedEvent(after_minutes=late, steps=[_mail(cfo["id"], f"{account['name']} close date",
                                                                  f"Scratch what I said earlier: their board moved "
                                                                  f"the signing. Use {long_date(d2)}, {d2.year}.")])]
            instruction = rng.choice([
                f"Ask {cfo['name']} which close date finance wants on the {deal['name']} deal; they said they'd "
                f"have it settled by {due}. Update the deal then and confirm to them by mail.",
                f"The {account['name']} {short} deal needs the close date finance signs off. {kit.hello(cfo)} has "
                f"the final word by {due}: ask them, update the deal and mail them to confirm.",
            ])
            field, value, shown = "close_date", d2.isoformat(), long_date(d2)
            sheet.fact(key, "close_date", d2.isoformat(), wrong=[d1.isoformat()])
            sheet.fact(key, "previous_close_date", deal["close_date"])  # "moved from Nov 2" is fine
            sheet.fact(key, "first_answer", d1.isoformat())  # "first Nov 2, now Nov 16" names the superseded date
        else:  # busy-channel: updates land in #deal-desk among chatter, one for the account's other deal
            other = kit.second_deal_name(stage, account)
            sales = kit.others_in(stage, "Sales", exclude=[user["id"], head["id"], rep["id"]])[:6]
            [other_id] = stage.insert("crm_deal", [{
                "account_id": account["id"], "name": other, "stage": "proposal",
                "amount": float(round(deal["amount"] * 0.4, -2)), "currency": deal["currency"],
                "close_date": day(60).isoformat(), "owner_id": sales[0]["id"], "next_step": "Send proposal",
                "updated_by": sales[0]["id"]}])
            desk = ensure_channel(stage, kit.DESK, [rep["id"], "user", *(p["id"] for p in sales)])
            channels.append(desk)
            stage.clock(stamp(day(-1), 15, 30))
            opener = post(stage, rep["id"], kit.DESK, f"{account['name']} {short}: looks like {money(first)} so far. "
                                                      f"I'll post the final number in this thread by {due} tomorrow.")
            kit.chatter(stage, rng, kit.DESK, sales, skip=account["id"], count=6)
            other_figure = kit.amount_near(rng, deal["amount"] * 0.4)
            pool = [a["name"] for a in stage.rows("SELECT name FROM crm_account WHERE id != ? ORDER BY id LIMIT 40",
                                                  account["id"])]
            noise = [_post(sales[n % len(sales)]["id"], kit.DESK, rng.choice(kit.CHATTER).format(acc=rng.choice(pool)))
                     for n in range(20)]  # the request ends up older than one page of the channel
            final_word = {"call": "chat_reply_message", "as": rep["id"], "arguments": {
                "message_id": opener, "text": f"Final: {money(final)}, not {money(first)}. They pushed back."}}
            events = [TimedEvent(after_minutes=early, steps=noise[:5]),
                      TimedEvent(after_minutes=late - 6, steps=[_post(sales[0]["id"], kit.DESK, f"{other}: "
                                                                      f"customer wants {money(other_figure)} now.")]),
                      TimedEvent(after_minutes=late, steps=[final_word]),
                      TimedEvent(after_minutes=late + 2, steps=noise[5:])]
            instruction = rng.choice([
                f"{rep['name']} will post the final {account['name']} figure in #{kit.DESK} before {due}; it's "
                "been moving all morning. Once it's final, update their deal and DM them to confirm.",
                f"The {account['name']} number gets settled in #{kit.DESK} by {due} ({kit.hello(rep)} posts it). "
                "Please update the deal with the final figure then and confirm to them in a DM.",
            ])
            sheet.fact(key, "amount", final, wrong=[first])
            sheet.entity(other, key="other_deal", aliases=[other.split(" - ")[-1]], kind="deal")
            sheet.figure(other_figure)
            told = {"channel": rep["id"]}
        if variant != "retracted":
            sheet.fact(key, "previous_amount", deal["amount"])
        if variant != "changed-mind":  # the superseded amount, named as such ("rather than $32,200"), traces
            sheet.figure(first)
        start = stamp(day(0), 9, 0)
        stage.clock(start)
        expect = {field: value} if field else {}

        def solve(s: Solver) -> None:
            if variant == "retracted":
                s.call("mail_search_messages", query="Approved", sender=head["email"])
                s.call("mail_get_message", message_id=told["message"])
                kit.ask(s, rep, f"Hi {kit.hello(rep)}, is {account['name']}'s signatory lined up for "
                                f"{deal['name']}?")
                s.wait(wait + 5)
                kit.heard(s, rep, "lined up")
                found = s.call("mail_search_messages", sender=head["email"], limit=5)
                s.call("mail_get_message", message_id=found["messages"][0]["id"])
                s.call("crm_get_deal", deal_id=deal["id"])
                s.call("mail_reply_message", message_id=found["messages"][0]["id"],
                       body=f"Understood: {deal['name']} is on hold, I haven't changed anything on it.")
                return
            if variant == "changed-mind":
                kit.ask(s, cfo, f"Hi {kit.hello(cfo)}, which close date should {deal['name']} carry?")
                s.wait(wait + 5)
                kit.heard(s, cfo, long_date(d1))
            s.wait(max(1, 61 - int((s.world.now() - parse_ts(start)).total_seconds() // 60)))  # the stated time
            if variant == "busy-channel":
                page = s.call("chat_list_messages", channel=kit.DESK)
                s.call("chat_list_messages", channel=kit.DESK, cursor=page["next_cursor"])
                s.call("chat_get_thread", message_id=opener)
                s.call("crm_search_accounts", query=account["name"])
                s.call("crm_search_deals", account_id=account["id"])
                s.call("crm_get_deal", deal_id=deal["id"])
                s.call("crm_get_deal", deal_id=other_id)
                s.call("directory_get_person", person=rep["id"])
            elif variant == "dm-update":
                kit.heard(s, rep, f"Final: {money(final)}")
            else:
                found = s.call("mail_search_messages", sender=cfo["email"], limit=5)
                s.call("mail_get_message", message_id=found["messages"][0]["id"])
                if variant == "mail-correction":
                    s.call("mail_get_message", message_id=found["messages"][1]["id"])
            if variant not in ("busy-channel",):
                s.call("crm_search_deals", query=account["name"])
            s.call("crm_update_deal", deal_id=deal["id"], **expect)
            text = f"Done: {deal['name']} now has {shown}, your final word."
            if "channel" in told:
                s.call("chat_send_dm", person=rep["email"], text=f"Hi {kit.hello(rep)}! {text}")
                if hard:
                    s.call("chat_list_messages", channel=f"@{rep['email']}", limit=5)
            else:
                s.call("mail_send_message", to=[cfo["email"]], subject=f"{account['name']}: CRM updated",
                       body=f"Hi {kit.hello(cfo)},\n\n{text}\n\nBest")

        text = "chat_posts" if "channel" in told else kit.told_form(instruction)
        where: dict[str, Any] = {"channel": told["channel"]} if "channel" in told else {"to": [told["to"]]}
        if variant == "retracted":
            gates: list[Any] = [kit.deal_untouched(deal)]
            core = facts_check("told", None, text, trace_to="facts", subject=key, require=[f"{key}.decision"],
                               description="The approver hears the deal was left as it was, not the old figure.",
                               **where)
            criteria: list[Any] = [ChangedCheck(id="asked_rep", check="changed", points=1, table="chat_message",
                                                op="insert", match={"author_id": "user", "channel_id": channels[1]},
                                                description="The condition was checked with the rep.")]
        else:
            gates = [kit.deal_is(deal["id"], expect, "The deal holds the last word before the stated time.")]
            core = facts_check("told", None, text, trace_to="facts", subject=key, require=[f"{key}.{field}"],
                               exclude=["other_deal"] if hard else (), wrong_anywhere=True,
                               description="The person is told the final figure, and only that one.", **where)
            criteria = [ChangedCheck(id="changed_deal", check="changed", points=1, table="crm_deal", op="update",
                                     match={"id": deal["id"]}, fields=[field], description="The deal was updated.")]
        gates += [core, kit.collateral()]
        criteria += kit.guards(cast, channels, deal["id"])
        traps = {
            "mail-correction": [f"the first mail says {money(first)}; a correction before {due} makes it "
                                f"{money(final)}"],
            "retracted": [f"a later mail puts the deal on hold: the approved {money(first)} is not applied",
                          f"{kit.hello(rep)}'s confirmation arrives after the hold and does not lift it"],
            "dm-update": [f"the first DM's {money(first)} is provisional; the final DM says {money(final)}"],
            "changed-mind": [f"{kit.hello(cfo)}'s first answer is superseded by a later mail before {due}"],
            "busy-channel": [f"the thread's opener says {money(first)}; the final reply says {money(final)}",
                             f"an update for the account's other deal, '{other if hard else ''}', lands just before "
                             "the final word",
                             f"the thread sits more than a page back in a busy #{kit.DESK}"],
        }[variant]
        return Draft(instruction=instruction, tools=kit.tools(hard), gates=gates, criteria=criteria, solve=solve,
                     variant=variant, max_steps=30, facts=sheet, colleagues=colleagues, events=events, traps=traps,
                     difficulty=kit.tier(variant, "mail-correction", "busy-channel"))


class ConflictingInstructions(Family):
    """Two instructions about one deal already wait for the agent: apply the one that wins, tell the one that lost."""

    name = "conflicting_instructions"
    skills = ("latest_instruction", "reconciliation", "record_update", "communication")
    category = "changing-requests"
    difficulty = "medium"
    apps = ("crm", "mail", "chat")
    variants = ("changed-own-mind", "manager-overrides", "manager-decides", "chat-after-mail", "busy-channel")
    worlds = ("acme", "counsel", "carewell", "tiny")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        who = kit.cast(stage, rng, self.name, index)
        user, head, deal, rep, account = who.user, who.head, who.deal, who.rep, who.account
        peer = rng.choice(kit.others_in(stage, "Sales", exclude=[user["id"], head["id"], rep["id"]]))
        money = lambda x: stage.money(x, cents=False)  # noqa: E731
        short = kit.short(deal)
        dates = variant in ("manager-decides",)
        lose: float | str
        win: float | str
        say: dict[float | str, str]
        if dates:
            d1 = day(rng.randint(10, 40))
            d2 = date.fromordinal(d1.toordinal() + rng.choice([7, 14, 21]))
            lose, win = d1.isoformat(), d2.isoformat()
            say = {lose: f"{long_date(d1)}, {d1.year}", win: f"{long_date(d2)}, {d2.year}"}
            field = "close_date"
        else:
            a, b = kit.two_amounts(rng, deal["amount"])
            lose, win = a, b
            say = {a: money(a), b: money(b)}
            field = "amount"
        loser, winner = rep, rep
        stage.clock(stamp(day(-4), 10, 0))
        channels = [kit.dm_history(stage, p, "Thanks for the help on the forecast!", "Sure thing.")
                    for p in (rep, head, peer)]
        sheet = FactSheet()
        key = sheet.entity(deal["name"], key="deal", aliases=[short, account["name"]], kind="deal")
        keep: list[str] = []
        hard = variant == "busy-channel"
        told: dict[str, Any]
        stage.clock(stamp(day(-2), 14, 10))
        if variant == "changed-own-mind":
            first = colleague_mail(stage, rep["id"], ["user"], f"{account['name']} amount",
                                   f"Hi {kit.hello(user)},\n\nCould you set {deal['name']} to {say[lose]}?\n\nThanks,"
                                   f"\n{kit.hello(rep)}\n")
            stage.clock(stamp(day(-1), 11, 25))
            second = colleague_mail(stage, rep["id"], ["user"], f"Re: {account['name']} amount",
                                    f"Sorry, scratch that: the customer came back. Please make it {say[win]} "
                                    "instead.\n\n" + kit.hello(rep))
            keep += [first["id"], second["id"]]
            told = {"to": rep["id"], "message": second["id"]}
            instruction = rng.choice([
                f"{kit.hello(rep)} mailed me about the {account['name']} deal amount; please sort it out in the CRM "
                "and confirm to them.",
                f"Can you handle {rep['name']}'s mails about {deal['name']}? Update the CRM and let them know.",
            ])
        elif variant == "manager-overrides":
            first = colleague_mail(stage, rep["id"], ["user"], f"{account['name']}: new amount",
                                   f"Hi {kit.hello(user)},\n\nPlease update {deal['name']} to {say[lose]}; that's "
                                   f"what I'm proposing to them.\n\nThanks,\n{kit.hello(rep)}\n")
            stage.clock(stamp(day(-1), 9, 50))
            second = colleague_mail(stage, head["id"], ["user"], f"{account['name']} deal",
                                    f"Hi {kit.hello(user)},\n\n{kit.hello(rep)} may have asked you to change "
                                    f"{deal['name']}. We reviewed it together: put it in at {say[win]}, that's "
                                    f"the number we're committing to.\n\n{kit.hello(head)}\n")
            keep += [first["id"], second["id"]]
            winner = head
            told = {"to": rep["id"], "message": first["id"]}
            instruction = rng.choice([
                f"There are a couple of mails about the {account['name']} deal in my inbox. Please update the CRM "
                f"to whatever stands and let {kit.hello(rep)} know what was done.",
                f"Please take care of the requests about {deal['name']} that came in this week, and tell "
                f"{kit.hello(rep)} how it ended up.",
            ])
        elif variant == "manager-decides":
            desk = ensure_channel(stage, kit.DESK, [rep["id"], peer["id"], head["id"], "user"])
            channels.append(desk)
            asked = post(stage, rep["id"], kit.DESK, f"@ops please move the {deal['name']} close date to "
                                                     f"{say[win]}.")
            stage.clock(stamp(day(-2), 15, 5))
            reply(stage, peer["id"], asked, f"I'd rather keep it at {say[lose]}: that's what their procurement "
                                           "told me.")
            stage.clock(stamp(day(-1), 10, 30))
            reply(stage, head["id"], asked, f"Go with {kit.hello(rep)}'s date, {say[win]}. "
                                            f"{kit.hello(peer)}, their procurement timeline changed last week.")
            loser = peer
            told = {"to": peer["id"]}
            instruction = rng.choice([
                f"There's a disagreement in #{kit.DESK} about the close date of the {account['name']} deal. Please "
                f"apply whatever was decided and let {kit.hello(peer)} know by mail.",
                f"Could you settle the {deal['name']} close date from the thread in #{kit.DESK} and tell "
                f"{peer['name']} by mail where it landed?",
            ])
        elif variant == "chat-after-mail":
            first = colleague_mail(stage, rep["id"], ["user"], f"{deal['name']}",
                                   f"Hi {kit.hello(user)},\n\nPlease set {deal['name']} to {say[lose]} when you get a "
                                   f"chance.\n\nThanks,\n{kit.hello(rep)}\n")
            keep.append(first["id"])
            stage.clock(stamp(day(-1), 16, 45))
            stage.act(rep["id"], "chat_send_dm", person="user",
                      text=f"Ignore my mail about {account['name']}: it's {say[win]} now, they trimmed the scope.")
            told = {"to": rep["id"], "message": first["id"]}
            instruction = rng.choice([
                f"{kit.hello(rep)} asked me to change the {account['name']} deal. Please do it and confirm to them "
                "by mail.",
                f"Please update the {deal['name']} deal as {rep['name']} asked and reply to their mail.",
            ])
        else:  # busy-channel: request, chatter, a correction in the thread, the other deal's own change
            other = kit.second_deal_name(stage, account)
            other_amount = float(round(deal["amount"] * 0.4, -2))
            [other_id] = stage.insert("crm_deal", [{"account_id": account["id"], "name": other, "stage": "proposal",
                                       "amount": other_amount, "currency": deal["currency"],
                                       "close_date": day(60).isoformat(), "owner_id": peer["id"],
                                       "next_step": "Send proposal", "updated_by": peer["id"]}])
            sales = kit.others_in(stage, "Sales", exclude=[user["id"], head["id"]])[:6]
            desk = ensure_channel(stage, kit.DESK, [rep["id"], peer["id"], head["id"], "user",
                                                    *(p["id"] for p in sales)])
            channels.append(desk)
            stage.clock(stamp(day(-2), 11, 0))
            asked = post(stage, rep["id"], kit.DESK, f"@ops {account['name']} {short}: please set it to {say[lose]}.")
            other_figure = kit.amount_near(rng, other_amount)
            stage.clock(stamp(day(-2), 12, 30))
            other_post = post(stage, peer["id"], kit.DESK, f"@ops {other}: please set it to {money(other_figure)}.")
            stage.clock(stamp(day(-2), 14, 0))
            reply(stage, head["id"], asked, f"No, {kit.hello(rep)}: we agreed {say[win]} for the {short} in this "
                                            "morning's review. Ops, please use that.")
            kit.chatter(stage, rng, kit.DESK, sales, skip=account["id"])
            loser, winner = rep, head
            told = {"channel": desk, "message": asked}
            instruction = rng.choice([
                f"There's an open request in #{kit.DESK} about the {account['name']} {short} amount. Please apply what "
                "was finally agreed and answer in its thread.",
                f"Could you close out the {account['name']} {short} request in #{kit.DESK}? Update the CRM to what "
                "stands and reply in the thread.",
            ])
            sheet.entity(other, key="other_deal", aliases=[other.split(" - ")[-1]], kind="deal")
            sheet.figure(other_figure, other_amount)
        stage.clock(stamp(day(0), 9, 0))
        sheet.fact(key, field, win, wrong=[lose])
        sheet.fact(key, "requested_" + field, lose)  # naming the request that lost, as such, is fine
        sheet.fact(key, "previous_amount", deal["amount"])  # "up from $27,000" is fine
        if field == "close_date":
            sheet.fact(key, "previous_close_date", deal["close_date"])
        expect = {field: win}

        def solve(s: Solver) -> None:
            if variant in ("manager-decides", "busy-channel"):
                page = s.call("chat_list_messages", channel=kit.DESK)
                if hard:
                    s.call("chat_list_messages", channel=kit.DESK, cursor=page["next_cursor"])
                s.call("chat_get_thread", message_id=asked)
                if hard:
                    s.call("chat_get_thread", message_id=other_post)
                    s.call("crm_search_accounts", query=account["name"])
                    s.call("crm_search_deals", account_id=account["id"])
                    s.call("crm_get_deal", deal_id=deal["id"])
                    s.call("crm_get_deal", deal_id=other_id)
                    s.call("directory_get_person", person=head["id"])
            else:
                s.call("mail_search_messages", query=account["name"])
                for message_id in keep:
                    s.call("mail_get_message", message_id=message_id)
                if variant == "chat-after-mail":
                    s.call("chat_list_messages", channel=f"@{rep['email']}", limit=5)
            if not hard:
                s.call("crm_search_deals", query=account["name"])
            s.call("crm_update_deal", deal_id=deal["id"], **expect)
            if hard:
                s.call("crm_get_deal", deal_id=deal["id"])  # check it took
            because = "" if winner is loser else f" as {winner['name']} decided"
            body = f"Hi {kit.hello(loser)}, {deal['name']} is now set to {say[win]}{because}."
            if "channel" in told:
                s.call("chat_reply_message", message_id=told["message"], text=body)
            elif "message" in told:
                s.call("mail_reply_message", message_id=told["message"], body=body)
            else:
                s.call("mail_send_message", to=[loser["email"]], subject=f"{deal['name']} close date",
                       body=body)

        text = "chat_posts" if "channel" in told else kit.told_form(instruction)
        where: dict[str, Any] = {"channel": told["channel"]} if "channel" in told else {"to": [loser["id"]]}
        gates: list[Any] = [
            kit.deal_is(deal["id"], expect, "The deal holds the instruction that won."),
            facts_check("told", None, text, trace_to="facts", subject=key, require=[f"{key}.{field}"],
                        exclude=["other_deal"] if hard else (),
                        description="The person whose request lost (or who asked) hears what now stands.", **where),
            kit.collateral(),
        ]
        criteria: list[Any] = [ChangedCheck(id="changed_deal", check="changed", points=1, table="crm_deal",
                                            op="update", match={"id": deal["id"]}, fields=[field],
                                            description="The deal was updated.")]
        # Mail and DMs may reach the people who took part in the instructions (the rep; the head where they
        # decided; the peer where the thread was theirs too): copying them is a reply-all to the conversation.
        # A colleague with no part in it (the peer of a rep's own change, the head of a rep's own change) is
        # an internal cc nobody asked for.
        involved = {"changed-own-mind": [rep], "chat-after-mail": [rep], "manager-overrides": [rep, head],
                    "busy-channel": [rep, head], "manager-decides": [rep, head, peer]}[variant]
        dms = dict(zip((rep["id"], head["id"], peer["id"]), channels[:3], strict=True))
        talk = [dms[p["id"]] for p in involved] + channels[3:]
        criteria += kit.guards([p["id"] for p in involved], talk, deal["id"], keep=keep)
        traps = [f"{say[lose]} was asked first (or by the one who lost) and is superseded by {say[win]}"]
        traps += {
            "changed-own-mind": [],
            "manager-overrides": [f"{head['name']}'s later mail overrides {kit.hello(rep)}'s figure"],
            "manager-decides": [f"{kit.hello(head)} settles the thread: {kit.hello(peer)}, who lost, is told"],
            "chat-after-mail": [f"{kit.hello(rep)}'s later DM overrides their mail"],
            "busy-channel": [f"{head['name']} corrects the request in its thread, below the opener",
                             f"the account's other deal, '{other if hard else ''}', has its own request in the "
                             "channel and is left alone",
                             f"the request sits more than a page back in a busy #{kit.DESK}"],
        }[variant]
        return Draft(instruction=instruction, tools=kit.tools(hard), gates=gates, criteria=criteria, solve=solve,
                     variant=variant, max_steps=30, facts=sheet, traps=traps,
                     difficulty=kit.tier(variant, "changed-own-mind", "busy-channel"))
