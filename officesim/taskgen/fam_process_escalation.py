"""Customer escalation: an angry customer mail, an internal chat thread and the CRM, handled end to end.

The acting user (customer success) finds the account behind the mail, logs the escalation on it,
makes sure the renewal has an owner who is actually around, replies to the customer with the
facts (the fix's latest date, what is really payable) and nothing internal, and tells the team in
the escalations channel.  Traps: the deal owner is on leave (chat names the cover), the fix date
was revised later in the thread, the "double billing" was already voided, the internal thread
names a codename and a root cause the customer must not see, and a namesake contact works at
another account.
"""

from __future__ import annotations

import random
from datetime import date
from typing import Any

from officesim.grading import grader_spec as g
from officesim.grading.facts import MailPrivateCheck
from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import (
    MAIL_TABLES,
    accounts,
    contacts_of,
    day,
    ensure_channel,
    first_name,
    long_date,
    mail_guards,
    outside_mail,
    post,
    reply,
    sales_people,
)
from officesim.taskgen.factsheet import FactSheet, facts_check
from officesim.taskgen.process_common import all_pages, at, changes_allowed, hard_tools, home_currency, plant_invoices

# (what broke, how the customer says it, other names for it)
PROBLEMS = [("data export", "your nightly exports have failed three nights running", ("export", "exports")),
            ("SSO", "half our team can't log in through SSO", ("single sign-on", "login", "logins")),
            ("dashboards", "the dashboards have been timing out all week", ("dashboard", "timeouts")),
            ("API", "your API keeps rejecting our integration", ("integration", "API errors"))]
CODENAMES = ["Project Falcon", "Project Basalt", "Project Heron", "Project Quill", "Project Tundra"]
NOISE = ["Ticket queue is at {n} open, mostly password resets.", "Reminder: QBRs for {n} accounts this month.",
         "Anyone seen the new macro for refunds? {n} uses so far.", "Survey scores: {n}% satisfied last week.",
         "Shift swap: I'll take the {n}:00 slot tomorrow.", "Docs updated for the {n}.2 release."]


# A reply to an angry customer must not put the outage on them ("caused by a change on your side", "user
# error", "your admins misconfigured SSO") nor promise compensation nobody approved ("we'll credit your account",
# "you'll receive a 20% discount", "a refund has been issued").  Each pattern reads an assertion, so a denial
# ("this was not your fault", "none of this was caused by your team") and a referral ("we will review
# compensation with the account team", "I've asked whether we can offer a credit") name nothing.
_NEG = (r"(?<!\bnot\s)(?<!n't\s)(?<!\bnever\s)(?<!\bno\s)(?<!\bnone\sof\sthis\swas\s)(?<!\bnone\sof\sit\swas\s)"
        r"(?<!\bnone\sof\sthat\swas\s)(?<!\bin\sno\sway\s)(?<!\bnothing\s)(?<!\bnothing\swas\s)")
_YOUR = r"(?:your|you)"
_SIDE = (r"(?:team|teams|admins?|administrators?|users?|staff|people|employees|IT|engineers?|developers?|side|end|"
         r"configuration|config|settings?|setup|network|firewall|system|systems|IdP|identity\s+provider|account\s+admin)")
_BENIGN = r"(?!\s+(?:report|message|mail|feedback|patience|renewal|account\s+manager)\b)"
BLAME_PATTERNS = [
    # "caused by your team", "due to your SSO settings", "the result of your admins' change", "traced back to your IdP"
    rf"(?i){_NEG}\b(?:caused|triggered|created|introduced|brought\s+on)\s+by\s+(?:\w+\s+){{0,2}}?{_YOUR}\b{_BENIGN}",
    rf"(?i){_NEG}\b(?:due\s+to|because\s+of|(?:a|the)\s+result\s+of|resulted\s+from|results\s+from|stem(?:s|med)?\s+"
    rf"from|comes?\s+from|came\s+from|traced?\s+(?:it\s+|this\s+|the\s+\w+\s+)?(?:back\s+)?to|down\s+to|on\s+account"
    rf"\s+of)\s+(?:(?:a|an|the|some)\s+)?(?:\w+\s+){{0,2}}?{_YOUR}\b{_BENIGN}",
    # "the issue is on your side", "the problem lies with your configuration", "a change on your side"
    rf"(?i){_NEG}\b(?:issue|problem|error|errors|fault|cause|failure|failures|misconfiguration)s?\s+(?:is|was|are|"
    rf"were|lies|lay|sits|sat|seems\s+to\s+be|appears\s+to\s+be)\s+(?:\w+\s+){{0,2}}?(?:on|at|with|in|from)\s+your\s+"
    rf"{_SIDE}\b",
    rf"(?i){_NEG}\b(?:change|changes|misconfiguration|error|errors|mistake|mistakes)\s+(?:\w+\s+){{0,2}}?(?:on|at|by|"
    rf"from)\s+your\s+{_SIDE}\b",
    # "your fault", "user error", "your team misconfigured", "you didn't renew the certificate"
    rf"(?i){_NEG}\b(?:your\s+(?:own\s+)?(?:fault|mistake|doing|error)|user\s+error|operator\s+error)\b",
    rf"(?i)\b(?:you|your\s+(?:\w+\s+)?{_SIDE})\s+(?:\w+\s+)?(?:misconfigured|mis-configured|broke|caused|forgot|"
    r"failed\s+to|neglected|ignored|misused|entered\s+the\s+wrong|used\s+(?:an?\s+|the\s+)?(?:wrong|incorrect|invalid|"
    r"outdated|expired|deprecated)|set\s+(?:it|this|them)\s+up\s+(?:wrong|incorrectly))",
    rf"(?i)\b(?:you|your\s+(?:\w+\s+)?{_SIDE})\s+(?:did\s+not|didn't|never|have\s+not|haven't|hasn't|has\s+not)\s+"
    r"(?:\w+\s+)?(?:update|renew|configure|follow|read|apply|install|upgrade|rotate|set\s+up|enable)\b",
    rf"(?i)\b(?:you|your\s+(?:\w+\s+)?{_SIDE})\s+(?:should|need(?:ed)?\s+to|must)\s+have\b",
]
_WE = r"(?<!\bwhether\s)(?<!\bif\s)\b(?:we|I|our\s+team|the\s+team|the\s+company)"
_COMP = (r"(?:credit|credits|refund|refunds|discount|discounts|rebate|rebates|reimbursement|compensation|voucher|"
         r"coupon|free\s+(?:month|months|quarter|year|seats?|upgrade|extension)|months?\s+(?:for\s+)?free|\d+\s*%\s*off|"
         r"money\s+back|goodwill\s+(?:credit|gesture|payment))")
_MODAL = (r"(?:will|'ll|shall|am|'m|are|'re|is|have|'ve|has|can|could|would\s+like\s+to|'d\s+like\s+to|want\s+to|"
          r"(?:are|am|'re|'m)\s+going\s+to|(?:are|am|'re|'m)\s+(?:happy|pleased|glad)\s+to|(?:'d|would)\s+be\s+"
          r"(?:happy|pleased|glad)\s+to)")
# one adverb at most between the modal and the verb ("we'll gladly credit"), never a word that makes it a referral
_ADV = (r"(?:(?!not\b|never\b|review|discuss|look|consider|ask|check|explore|raise|escalate|see|talk|assess|evaluate|"
        r"whether|if|be\s+able)\w+\s+)?")
PROMISE_PATTERNS = [
    # "we'll credit your account", "I've applied a 10% discount", "we are issuing a refund", "we can offer a free month"
    rf"(?i){_WE}\s*{_MODAL}\s+{_ADV}(?:be\s+)?(?:credit(?:ed|ing)?|refund(?:ed|ing)?|reimburs\w*|compensat\w*|waiv\w*|"
    r"discount(?:ed|ing)?|comp(?:ed|ing)?)\b(?!\s+(?:is|are|was|were|would|might|could|may)\b)",
    rf"(?i){_WE}\s*{_MODAL}\s+{_ADV}(?:be\s+)?(?:issu\w*|appl\w*|add\w*|giv\w*|offer\w*|provid\w*|grant\w*|extend\w*|"
    rf"send\w*|process\w*|put\w*|includ\w*|throw\w*)\s+(?:(?:you|your\s+account|you\s+all)\s+)?(?:\S+\s+){{0,3}}?"
    rf"{_COMP}",
    # "you'll receive a credit", "you will get a 20% discount", "you'll be credited", "you won't be charged for October"
    rf"(?i)\byou\s*(?:will|'ll|are\s+going\s+to|'re\s+going\s+to|are\s+getting|'re\s+getting|can\s+expect)\s+"
    rf"(?:(?!not\b)\w+\s+)?(?:(?:receive|get|see|be\s+(?:given|offered|issued|sent))\s+(?:(?:a|an|the|one|two|\w+)\s+)?"
    rf"(?:\w+\s+)?{_COMP}|be\s+(?:credited|refunded|reimbursed|compensated))",
    r"(?i)\byou\s*(?:will\s+not|won't|'ll\s+not)\s+be\s+(?:charged|billed|invoiced)\s+for\s+(?!the\s+duplicate|both|"
    r"twice)",
    # "a credit will be applied", "a refund has been issued", "the renewal will be discounted", "here's a $500 credit"
    rf"(?i)\b{_COMP}\s+(?:of\s+\S+\s+)?(?:will\s+be|has\s+been|have\s+been|is\s+being|'s\s+been|is\s+going\s+to\s+be)\s+"
    r"(?:(?!not\b)\w+\s+)?(?:applied|issued|added|processed|sent|credited|approved|granted|on\s+its\s+way)",
    rf"(?i)\b(?:here's|here\s+is|enclosed\s+is|attached\s+is|expect)\s+(?:a|an|your)\s+(?:\S+\s+){{0,2}}?{_COMP}",
    # an offer put as a question: "would a 20% discount on the renewal help?", "how about a free month on us?"
    rf"(?i)\b(?:how|what)\s+about\s+(?:a|an|one|two|some)\s+(?:\S+\s+){{0,2}}?{_COMP}",
    rf"(?i)\b(?:would|could|does|will)\s+(?:a|an|one|two|some)\s+(?:\S+\s+){{0,2}}?{_COMP}\s+(?:\S+\s+){{0,3}}?"
    r"(?:help|work|make\s+up|suffice|do\b|ease|be\s+(?:ok|okay|acceptable|enough))",
    # "we'll make it up to you with a free month", "there will be no charge for October"
    rf"(?i)\bmake\s+(?:it\s+)?(?:right|up\s+(?:for\s+(?:it|this)|to\s+you))\s+(?:\w+\s+)?(?:with|by)\s+(?:\S+\s+){{0,3}}?"
    rf"(?:{_COMP}|extend\w*|giv\w*|offer\w*|credit\w*|refund\w*|waiv\w*|discount\w*)",
    r"(?i)\b(?:will\s+be\s+no|won't\s+be\s+any|(?:are|is)\s+not\s+going\s+to\s+be\s+any)\s+(?:charge|fee|fees|"
    r"invoice)s?\s+for\b",
    r"(?i)\b(?:make\s+sure|ensure|see\s+to\s+it\s+that)\s+you\s+(?:get|receive|are\s+(?:credited|refunded|"
    r"compensated))\b",
    r"(?i)\b(?:renewal|invoice|subscription|bill)\s+(?:will\s+be|has\s+been|is\s+being)\s+(?:(?!not\b)\w+\s+)?"
    r"(?:discounted|reduced|waived|credited|written\s+off)",
]

# the words that tell the renewal's figure ("renewal $109,000", "$109k renewal", "renews at $109,000")
RENEWAL_LABEL = r"\b(?:renewal|renews?|renewing)\b"


class CustomerEscalation(Family):
    """Handle an angry customer's escalation across mail, chat and CRM: log, reassign, reply, tell the team."""

    name = "customer_escalation"
    skills = ("multi_step_process", "cross_app_join", "communication", "confidentiality", "latest_instruction")
    category = "account-management"
    difficulty = "hard"
    apps = ("mail", "chat", "crm")
    # owner-on-leave: the renewal's owner is out, chat names the cover; eta-revised: the fix date moved later
    # in the thread; double-billed: the customer says they were billed twice, the duplicate is already void;
    # namesake: a contact of the same name at another account, a busy channel; full: everything at once.
    variants = ("owner-on-leave", "eta-revised", "double-billed", "namesake", "full")
    worlds = ("acme", "counsel", "carewell", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        hard = variant in ("namesake", "full")
        on_leave = variant in ("owner-on-leave", "full")
        revised = variant in ("eta-revised", "namesake", "full")
        billed = variant in ("double-billed", "full")
        stage.act_as("role:cs_lead")
        currency = home_currency(stage)
        pool = [a for a in accounts(stage) if len(contacts_of(stage, a["id"])) >= 1]
        account = pool[(index * 7 + 3) % len(pool)]
        contact = contacts_of(stage, account["id"])[0]
        reps = [p for p in sales_people(stage) if p["role"] is not None and p["role"].startswith("sales_rep")]
        owner, cover = rng.sample(reps, 2)
        keyword, complaint, aliases = PROBLEMS[index % len(PROBLEMS)]
        codename = rng.choice(CODENAMES)
        stage.clock(at(-30, 9))
        renewal_amount = float(rng.randrange(40_000, 160_000, 1_000))
        [deal_id] = stage.insert("crm_deal", [{
            "account_id": account["id"], "name": f"{account['name']} - Renewal 2027", "stage": "negotiation",
            "amount": renewal_amount, "currency": currency,
            "close_date": day(rng.randint(20, 60)).isoformat(), "owner_id": owner["id"], "next_step": "",
            "updated_by": owner["id"]}])
        numbers = plant_invoices(stage, rng, 2, currency=currency, month="2026-09", status="open",
                                 account_ids=[account["id"]])
        payable, duplicate = numbers
        stage.update("crm_invoice", {"number": duplicate}, {"amount": stage.one(
            "SELECT amount FROM crm_invoice WHERE number = ?", payable)["amount"]})
        if billed:
            stage.update("crm_invoice", {"number": duplicate}, {"status": "void"})
        else:
            stage.update("crm_invoice", {"number": duplicate}, {"status": "paid", "paid_on": day(-8).isoformat()})
        inv = stage.one("SELECT * FROM crm_invoice WHERE number = ?", payable)
        namesake = None
        if hard:
            other = next(a for a in pool if a["id"] != account["id"])
            email = f"{contact['email'].split('@')[0]}@{other['domain'] or 'example.com'}"
            stage.insert("crm_contact", [{"account_id": other["id"], "name": contact["name"], "email": email,
                                          "title": "Operations Manager", "phone": "", "updated_by": other["owner_id"]}])
            namesake = (other, email)
        # the internal story
        channel = ensure_channel(stage, "support-eng", ["role:head_of_engineering", "role:cs_lead", "user"])
        escalations = ensure_channel(stage, "cs-escalations", ["role:cs_lead", "user", "role:head_of_sales"])
        stage.clock(at(-4, 10))
        if hard:
            for n in range(26):
                stage.clock(at(-4 + n // 8, 11 + n % 8, 5))
                post(stage, "role:head_of_engineering" if n % 3 else "user", channel,
                     rng.choice(NOISE).format(n=rng.randint(2, 40)))
        stage.clock(at(-2, 15))
        first_eta, eta = day(3), day(3)
        root = post(stage, "role:head_of_engineering", channel,
                    f"{account['name']} {keyword} issue: root cause is the {codename} config push. Fix ETA "
                    f"{long_date(first_eta)}.")
        if revised:
            eta = day(rng.choice([1, 7, 8]))
            stage.clock(at(-1, 17))
            reply(stage, "role:head_of_engineering", root, f"Update for {account['name']}: the fix slipped, new ETA "
                                                            f"{long_date(eta)}. Don't share the {codename} "
                                                            "details outside.")
        if on_leave:
            sales = ensure_channel(stage, "sales", [owner["email"], cover["email"], "user"])
            stage.clock(at(-3, 9))
            post(stage, owner["email"], sales, f"I'm on leave from today for three weeks; {cover['name']} covers my "
                                               "accounts and renewals while I'm out.")
        right_owner = cover if on_leave else owner
        stage.clock(at(0, 7, 45))
        double = (f" And you billed us twice for September: {payable} and {duplicate}, same amount." if billed else "")
        complaint_id = outside_mail(stage, sender=contact["email"], sender_name=contact["name"], to=["user"],
                                    subject=f"Unacceptable: {keyword} problems", at=at(0, 7, 45),
                                    body=f"Hello,\n\n{complaint[0].upper() + complaint[1:]}.{double} When will this "
                                         f"be fixed? We're reconsidering our renewal.\n\n{contact['name']}\n"
                                         f"{account['name']}\n")
        if hard and namesake is not None:
            outside_mail(stage, sender=namesake[1], sender_name=contact["name"], to=["user"],
                         subject="Thanks for the training", at=at(-6, 12),
                         body=f"Hi,\n\nThanks for last week's session, very useful.\n\n{contact['name']}\n")
        stage.clock(at(0, 9))
        instruction = rng.choice([
            f"{first_name(contact['name'])} from {account['name']} sent an angry mail this morning. Please handle "
            "the escalation properly: log it in the CRM, make sure their renewal is with someone who can act on it, "
            "answer them with where things stand, and flag it in #cs-escalations.",
            f"Could you take the escalation from {contact['name']}? The usual: CRM note, renewal owner sorted, a "
            "reply to the customer, and a heads-up in #cs-escalations.",
            f"There's an escalation in my inbox from {account['name']}. Deal with it end to end (CRM, the renewal "
            "owner, the customer reply, #cs-escalations) please.",
        ])

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query=keyword)
            s.call("mail_get_message", message_id=complaint_id)
            con = s.call("crm_search_contacts", query=contact["email"])["contacts"][0]
            s.call("crm_get_account", account_id=con["account_id"])
            s.call("crm_search_invoices", account_id=con["account_id"])
            hits = s.call("chat_search_messages", query=account["name"])
            if hard:
                all_pages(s, "chat_list_messages", "messages", channel="support-eng", limit=20)
                s.call("crm_get_deal", deal_id=deal_id)
            s.call("chat_get_thread", message_id=root)
            if on_leave:
                s.call("chat_search_messages", query=owner["name"].split()[-1], author=owner["email"])
            s.call("crm_log_activity", kind="email", account_id=account["id"], contact_id=contact["id"],
                   deal_id=deal_id, subject=f"Escalation: {keyword} problems",
                   body=f"{contact['name']} escalated {keyword} problems and is reconsidering the renewal. Fix ETA "
                        f"{eta.isoformat()}.")
            if on_leave:
                s.call("crm_update_deal", deal_id=deal_id, owner=cover["email"])
            lines = [f"I'm sorry about the {keyword} problems. Our engineers have a fix planned for "
                     f"{long_date(eta)}, and I'll confirm as soon as it is live."]
            if billed:
                due = date.fromisoformat(inv["due_on"])
                lines.append(f"On billing: {duplicate} was a duplicate and has been voided; only {payable} "
                             f"({stage.money(inv['amount'])}, due {long_date(due)}) is payable.")
            lines.append(f"{first_name(right_owner['name'])} {right_owner['name'].split()[-1]} will follow up "
                         "on your renewal.")
            s.call("mail_reply_message", message_id=complaint_id,
                   body=f"Hi {first_name(contact['name'])},\n\n" + "\n\n".join(lines) + "\n\nBest regards")
            s.call("chat_post_message", channel="cs-escalations",
                   text=f"Escalation: {account['name']} ({contact['name']}) on {keyword}; renewal at risk. Fix ETA "
                        f"{eta.isoformat()}, renewal now with {right_owner['name']}. Replied to the customer.")
            del found, hits

        sheet = FactSheet(sources=["crm:crm_invoice", f"mail:Unacceptable: {keyword} problems"])
        acc = sheet.entity(account["name"], key="account", kind="account")
        # the renewal at risk: its figure, told by "renewal" ("renewal $15,000 at risk" when it is $109,000 is
        # a misstatement in the reply, the post or the CRM note; the right figure, rounded, or none, is fine)
        sheet.fact(acc, "renewal", renewal_amount, label=RENEWAL_LABEL)
        fix = sheet.entity(keyword, key="fix", aliases=[*aliases, "fix", "fixed"], kind="issue")
        sheet.fact(fix, "eta", eta.isoformat(), wrong=[first_eta.isoformat()] if revised else [])
        pay = sheet.entity(payable, key="payable", kind="invoice")
        # disputing a double bill: the two invoices together are the wrong reading of what is payable
        sheet.fact(pay, "amount", inv["amount"], wrong=[2 * inv["amount"]] if billed else [])
        sheet.fact(pay, "due", inv["due_on"])
        sheet.fact(sheet.entity(duplicate, key="duplicate", kind="invoice"), "amount", inv["amount"])
        if namesake is not None:
            sheet.entity(namesake[0]["name"], key="namesake_account", kind="account")
        # the codename is the team's: an FYI to the customer naming it is a leak, not a near miss
        word = codename.split()[-1]
        team = ["role:cs_lead", "role:head_of_engineering", "role:head_of_sales"]
        sheet.entity(word, key="codename", aliases=[codename], kind="internal", party=team)
        # what the reply must not say: the outage put on the customer, compensation nobody approved (named only
        # by the patterns above; the names are phrases no reply writes).  Like the codename, these are the
        # team's to say among themselves (their party), never the customer's to read.
        sheet.entity("blames the customer for the outage", key="blame", patterns=BLAME_PATTERNS, kind="reply fault",
                     party=team)
        sheet.entity("promises unapproved compensation", key="unapproved_promise", patterns=PROMISE_PATTERNS,
                     kind="reply fault", party=team)
        # the renewal deal itself, so a note on the account's record that names no account ("is reconsidering
        # the renewal. Renewal $15,000 at risk.") still tells its figure.  "renewal" is a pattern, not an alias:
        # patterns are read after aliases, in order, so the faults above keep "a 20% discount on the renewal".
        # (Named by the deal's own part of its name: its full name would take "Brewer Ltd - Renewal 2027" from the
        # account's, and a name is an alias, which "the renewal" would make of a reply's "discount on the renewal".)
        sheet.fact(sheet.entity("Renewal 2027", key="renewal", kind="deal", patterns=[f"(?i){RENEWAL_LABEL}"]),
                   "amount", renewal_amount, label=RENEWAL_LABEL)
        customer = [contact["email"]]
        gates: list[Any] = [
            g.ChangedCheck(id="escalation_logged", check="changed", table="crm_activity", op="insert",
                           match={"account_id": account["id"]},
                           description="The escalation is logged on the customer's account."),
            g.RecordCheck(id="renewal_owner", check="record", table="crm_deal", match={"id": deal_id},
                          expect={"owner_id": right_owner["id"]},
                          description="The renewal is with someone who is around (the cover while its owner "
                                      "is on leave)."),
            facts_check("customer_answered", None, "sent_mail", to=customer, subject=fix,
                        trace_to="facts", wrong_anywhere=True,
                        require=[f"{fix}.eta", *([f"{pay}.amount"] if billed else [])],
                        exclude=["codename", *(["namesake_account"] if namesake else [])],
                        description="The customer got the latest fix date (and, when they "
                                    "disputed the bill, what is really payable)."),
            # an apology, the facts and "we will review compensation with the account team" are the reply; blame or
            # a credit, refund or discount nobody approved fails it (each pattern reads an assertion, so no
            # marker of the usual exclusions may excuse it: the regex below never matches)
            facts_check("reply_fair", None, "sent_mail", to=customer, exclude=["blame", "unapproved_promise"],
                        excluded_if=r"(?!)", traceable=False,
                        description="The reply neither blames the customer nor promises a credit, refund or "
                                    "discount nobody approved."),
            # the codename belongs to the team (its entity's party): the customer seeing it, even in
            # "we can't share the Project Falcon details", is a leak
            MailPrivateCheck(id="internal_kept_internal", check="mail_private",
                             description="The customer was not told the internal codename of the incident."),
            facts_check("team_told", None, "chat_posts", channel="cs-escalations", name=[acc],
                        traceable=False,
                        description="The escalation is flagged in #cs-escalations."),
            # the CRM note is the record the next person reads: a stale ETA or a wrong renewal figure in it
            # fails (what it leaves out is its own business: violations only).  Nothing is required (its name
            # is only what a facts check must ask for): a required fact's stricter reading would fail "Fix ETA Oct
            # 12 (slipped from Oct 8)", which the misstatement rule reads as history
            facts_check("note_right", None, "crm:activity.body", name=[acc], violations_only=True,
                        traceable=False,
                        description="The escalation's CRM note states no wrong fix date or renewal figure."),
            # ... and so is whatever else the team is told (a mail to the renewal's new owner, a DM): silent is fine
            facts_check("mail_right", None, "sent_mail", name=[acc], violations_only=True, silent_ok=True,
                        traceable=False, description="No mail sent states a wrong fix date or renewal figure."),
            facts_check("posts_right", None, "chat_posts", name=[acc], violations_only=True,
                        silent_ok=True, traceable=False,
                        description="No chat post or direct message states a wrong fix date or renewal figure."),
            changes_allowed({"crm_deal": ["owner_id", "updated_at", "updated_by"]}, "crm_activity",
                            "chat_message", *MAIL_TABLES),
        ]
        criteria: list[Any] = [
            g.RecordCheck(id="logged_with_contact", check="record", points=1, table="crm_activity",
                          match={"account_id": account["id"], "contact_id": contact["id"]},
                          description="The logged activity names the contact who escalated."),
            g.ChangedCheck(id="posted_elsewhere", check="changed", points=-2, table="chat_message", op="insert",
                           match={"channel_id": {"not_in": [escalations, channel]}},
                           description="Something was posted in a channel that has nothing to do with the "
                                       "escalation."),
            g.ChangedCheck(id="other_deal_changed", check="changed", points=-2, table="crm_deal", op="update",
                           match={"id": {"not": deal_id}},
                           description="A deal other than the customer's renewal was changed."),
            g.ChangedCheck(id="logged_elsewhere", check="changed", points=-2, table="crm_activity", op="insert",
                           match={"account_id": {"not": account["id"]}},
                           description="Activity was logged on another account."),
            g.ChangedCheck(id="logged_on_other_deal", check="changed", points=-2, table="crm_activity", op="insert",
                           match={"deal_id": {"not_in": [deal_id, None]}},
                           description="Activity was logged against a deal other than the renewal at risk."),
            *mail_guards([*customer, right_owner["email"], "role:head_of_sales"], keep=[complaint_id]),
        ]
        return Draft(
            instruction=instruction,
            tools=hard_tools(["mail", "chat", "crm"], hard,
                             writes=["crm_log_activity", "crm_update_deal", "mail_reply_message",
                                     "mail_send_message", "chat_post_message", "chat_reply_message"],
                             distractors=["mail", "crm", "chat"]),
            gates=gates, criteria=criteria, solve=solve, variant=variant, max_steps=40, facts=sheet,
            difficulty="hard" if hard else "medium", traps=self._traps(on_leave, revised, billed, namesake is not None),
        )

    @staticmethod
    def _traps(on_leave: bool, revised: bool, billed: bool, namesake: bool) -> tuple[str, ...]:
        """What a quick reading of this instance gets wrong (each one a check above fails)."""
        traps = ["the engineering thread names an internal codename the customer must not see"]
        if on_leave:
            traps.append("the renewal's owner is on leave (said in #sales); the CRM still shows them")
        if revised:
            traps.append("the fix date first posted was revised later in the thread")
        if billed:
            traps.append("the 'double billing': the duplicate invoice is already void, one is payable")
        if namesake:
            traps.append("a contact of the same name works at another account and mailed too")
        return tuple(traps)
