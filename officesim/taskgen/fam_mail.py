"""Mailbox jobs: triage a morning inbox, file mail about one topic, forward the right contract."""

from __future__ import annotations

import random
from typing import Any

from officesim.grading.facts import FactsCheck, phone_regex
from officesim.grading.mail_checks import MailSentCheck
from officesim.grading.record_checks import ChangedCheck, RecordCheck
from officesim.taskgen.base import CheckItem, Draft, Family, GenerationError, Solver, Stage
from officesim.taskgen.common import (
    MAIL_TABLES,
    accounts,
    allowed_changes,
    colleague_mail,
    core_name,
    day,
    deleted_mail,
    first_name,
    mail_guards,
    moved_mail,
    outside_mail,
    people_in,
    phrasing,
    staff,
    stamp,
    toolset,
)
from officesim.taskgen.factsheet import FactSheet, facts_check, key_of
from officesim.taskgen.fam_answers import POLICY_CITIES
from officesim.taskgen.policy import set_travel_policy

NEWSLETTERS = [
    ("SaaS Weekly", "news@saasweekly.test", "This week in SaaS: pricing pages that convert"),
    ("Analytics Digest", "digest@analyticsdigest.test", "Analytics Digest #212: the modern data stack, revisited"),
    ("CFO Brief", "brief@cfobrief.test", "CFO Brief: five things to watch in Q4"),
    ("Office Supplies Co", "deals@officesupplies.test", "Autumn sale: 30% off desk accessories"),
    ("RevOps Roundup", "hello@revopsroundup.test", "RevOps Roundup: forecasting without spreadsheets"),
    ("TravelPro Deals", "offers@travelpro.test", "Fly business for less this winter"),
]
FYI_NOTES = [
    ("Office closed next Monday", "Hi all,\n\nA reminder that the office is closed next Monday for electrical work. "
     "Remote work as usual.\n"),
    ("All-hands recording is up", "Hi everyone,\n\nThe recording of last week's all-hands is in Drive. No action "
     "needed.\n"),
    ("New parking arrangements", "Hi,\n\nFrom November the garage uses badge access. Nothing to do; badges are "
     "already enabled.\n"),
    ("Fire drill on Thursday", "Heads up: there is a fire drill on Thursday at 11:00. Please follow the wardens.\n"),
]


def _newsletter_body(name: str) -> str:
    return (f"{name}\n\nTop stories this week, hand-picked for you.\n\n1. Read more on our site\n2. Webinar "
            f"replays\n3. Community picks\n\nYou are receiving this because you subscribed to {name}. "
            "Unsubscribe: reply STOP.\n")


# any email address, any phone number (the one asked for is named first, so these name every other one)
ANY_EMAIL = r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
ANY_PHONE = r"(?<![\d+])(?:\+?\d{1,3}[\s().-]{0,2})?\(?\d{3}\)?[\s.-]{0,2}\d{3}[\s.-]{0,2}\d{4}(?!\d)"


class _TriagePeople:
    """The people an inbox's questions are about, as facts entities keyed by directory id.

    The user, the askers and the people a question names get a person ref (so a unique first name
    names them too); the others a question is chosen among (everyone else in the directory)
    only their full name and email, so "Hi Megan" never names a rival who shares the asker's name.
    """

    def __init__(self, stage: Stage, sheet: FactSheet, people: list[dict[str, Any]]) -> None:
        self.sheet = sheet
        self.directory = stage.rows("SELECT * FROM directory_person ORDER BY CAST(substr(id, 3) AS INTEGER)")
        for row in people:
            self.person(row)

    def person(self, row: dict[str, Any]) -> str:
        key = f"person_{row['id']}"
        if key not in self.sheet.entities or "person" not in self.sheet.entities[key]:
            self.sheet.entity(row["name"], key=key, person=row["id"], kind="person")
        return key

    def rival(self, row: dict[str, Any]) -> str:
        key = f"person_{row['id']}"
        if key not in self.sheet.entities:
            taken = {e["name"] for e in self.sheet.entities.values()}  # the admin's email names the answer
            aliases = [a for a in (core_name(row["name"]), row["email"]) if a not in taken]
            self.sheet.entity(row["name"], key=key, aliases=aliases, kind="person")
        return key

    def everyone_but(self, *ids: str) -> list[str]:
        """Every other colleague in the directory, as rivals."""
        return [self.rival(row) for row in self.directory if row["id"] not in ids]


# (asker, subject, body, the facts gate its reply must pass, the fact as the reply states it)
Question = tuple[dict[str, Any], str, str, FactsCheck, str]


def _question(stage: Stage, known: _TriagePeople, number: int, kind: str, asker: dict[str, Any],
              about: dict[str, Any], city: str, meals: dict[str, int]) -> Question:
    """One planted question and the gate its answer must pass: the fact with its entity, one reading.

    A directory answer (a name, an email, a phone) has no figures to trace; the policy's are traced.
    """
    sheet, user = known.sheet, stage.world.user
    to = [asker["email"]]
    asked = {"it_admin": "IT admin's email", "manager": "manager", "phone": "phone number",
             "policy": "meal allowance"}[kind]
    description = f"{asker['name']}'s question is answered: the right {asked}, one reading."
    check_id = f"answered_{number}"
    if kind == "it_admin":
        admin = stage.person("role:it_admin")
        key = sheet.entity(admin["email"], key="admin_email", kind="email")
        other = sheet.entity("another email address", key="other_email", kind="email", patterns=[ANY_EMAIL])
        # another address, or another colleague offered beside the admin, is a hedge
        rivals = known.everyone_but(admin["id"], asker["id"], user["id"])
        check = facts_check(check_id, None, "sent_mail", to=to, description=description, name=[key],
                            candidates=[other, *rivals], traceable=False)
        return (asker, "Who handles laptop requests?",
                "Hi,\n\nWho's our IT admin these days? I need their email for a laptop request.\n",
                check, f"Our IT admin is {admin['name']} ({admin['email']})")
    if kind == "manager":
        manager = stage.person(about["manager_id"])
        who, boss = known.person(about), known.person(manager)
        sheet.fact(who, "manager", boss)
        # anyone else offered as the manager is a hedge, an executive or not
        rivals = known.everyone_but(manager["id"], about["id"], user["id"], asker["id"])
        check = facts_check(check_id, None, "sent_mail", to=to, description=description,
                            require=[f"{who}.manager"], name=[boss], candidates=[boss, *rivals], subject=who,
                            traceable=False)
        return (asker, f"Quick question about {first_name(about['name'])}",
                f"Hi,\n\nDo you know who {about['name']} reports to? I need to get an approval from their "
                "manager.\n", check, f"{about['name']} reports to {manager['name']}")
    if kind == "phone":
        who = known.person(about)
        phone = sheet.entity(about["phone"], key="phone", kind="phone", patterns=[phone_regex(about["phone"])])
        sheet.fact(who, "phone", phone)
        other = sheet.entity("another phone number", key="other_phone", kind="phone", patterns=[ANY_PHONE])
        check = facts_check(check_id, None, "sent_mail", to=to, description=description,
                            require=[f"{who}.phone"], candidates=[other], subject=who, traceable=False)
        return (asker, f"Phone number for {about['name']}?",
                f"Hi,\n\nCould you send me {about['name']}'s phone number? Their calendar is blocked and I need "
                "to call them today.\n", check, f"{about['name']}'s number is {about['phone']}")
    for town in POLICY_CITIES:  # every city with its own allowance: another city's figure beside it is a swap
        sheet.entity(town, key=key_of(town), kind="city")
        sheet.fact(key_of(town), "meal_allowance", meals[town])
    check = facts_check(check_id, None, "sent_mail", to=to, description=description,
                        require=[f"{key_of(city)}.meal_allowance"], subject=key_of(city))
    return (asker, f"Meal allowance for {city}",
            f"Hi,\n\nI'm heading to {city} next week. What's the daily meal allowance there under the current "
            "travel policy?\n", check,
            f"The meal allowance for {city} is {stage.money(meals[city], cents=False)} per day")


UPDATES = ["the draft is in review and the next checkpoint is on Thursday",
           "two questions are still open; I have put them on Friday's agenda",
           "the vendor confirmed the dates we asked for, so the plan stands",
           "spend is on track and nothing changes on our side this week",
           "the sign-off moved by a week because legal wants another look"]


# what a quick reading of each inbox gets wrong (``Draft.traps``); the FYI notes are in every morning
_TRIAGE_TRAPS = {
    "directory-questions": ("a reply offering a second colleague or address beside the right one is a hedge",),
    "policy-question": ("the policy lists an allowance per city: another city's figure is a swap",),
    "three-questions": ("the policy lists an allowance per city: another city's figure is a swap",),
    "bumped-question": ("the asker's 08:45 bump is a reminder of their question, not mail to archive",),
    "team-question": ("the question also went to two teammates: its asker still needs your answer",),
    "big-morning": ("the first asker's 08:45 bump is a reminder of their question, not mail to archive",
                    "the morning runs past the first result page: questions on the next page need answers too",
                    "the policy lists an allowance per city: another city's figure is a swap"),
}
_FYI_TRAP = "colleagues' FYI notes need nothing: filing them away with the newsletters is wrong"


class InboxTriage(Family):
    """Answer the questions in a morning inbox, archive the newsletters, leave everything else alone.

    The morning is Tuesday's: the generated world's own mail runs into Monday morning, and "this
    morning's mail" must mean exactly the planted messages.

    Structures: two directory questions; a policy question and a phone number; three questions;
    a question bumped by its asker later in the morning (one answer; the bump is neither a
    newsletter nor a second question); and a question sent to the user and two teammates (any
    of them may be in the reply; the asker must get the answer); and (hard) a morning of more
    than a page of mail: four questions of every kind, one of them bumped, six newsletters and
    ten colleagues' notes that need nothing (neither the bump nor the notes are announced).
    """

    name = "inbox_triage"
    skills = ("triage", "communication")
    category = "mail-triage"
    difficulty = "medium"
    apps = ("mail", "drive")
    variants = ("directory-questions", "policy-question", "three-questions", "bumped-question", "team-question",
                "big-morning")
    worlds = ("acme", "lantern", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        stage.act_as(rng.choice(["role:ops_manager", "role:controller", "role:cs_lead"]))
        user = stage.world.user
        pool = staff(stage, exclude=[user["id"]])
        askers = rng.sample(pool, 4)
        subjects_people = rng.sample([p for p in pool if p not in askers and p["manager_id"]], 4)
        kinds = {"directory-questions": ["it_admin", "manager"], "policy-question": ["policy", "phone"],
                 "three-questions": ["phone", "manager", "policy"], "bumped-question": ["manager", "phone"],
                 "team-question": ["it_admin", "policy"], "big-morning": ["it_admin", "manager", "phone", "policy"]
                 }[variant]
        hard = variant == "big-morning"
        teammates = rng.sample([p for p in pool if p not in askers], 2) if variant == "team-question" else []
        city = rng.choice(POLICY_CITIES)
        meals = {c: rng.randrange(55, 110, 5) for c in POLICY_CITIES}
        hotel = {c: rng.randrange(160, 420, 5) for c in POLICY_CITIES}
        stage.clock(stamp(day(-30), 10, 0))
        if "policy" in kinds:
            set_travel_policy(stage, hotel, meals, 0.67)
        sheet = FactSheet(sources=["doc:Travel & Expense Policy"] if "policy" in kinds else [])
        known = _TriagePeople(stage, sheet, [user, *askers])
        planted = zip(askers, kinds, subjects_people, strict=False)
        questions = [_question(stage, known, number, kind, asker, about, city, meals)
                     for number, (asker, kind, about) in enumerate(planted, 1)]
        letters = rng.sample(NEWSLETTERS, 6 if hard else 3 if variant != "three-questions" else 2)
        notes = rng.sample(FYI_NOTES, 2)
        if hard:
            notes = [*FYI_NOTES, *((subject, "Hi,\n\nQuick note, nothing you need to do.\n")
                                   for subject in DISTRACTOR_SUBJECTS)]
        events: list[tuple[str, Any]] = [("q", q) for q in questions] + [("n", n) for n in letters] + \
            [("f", f) for f in notes]
        rng.shuffle(events)
        question_ids: dict[str, str] = {}
        letter_ids: list[str] = []
        fyi_ids: list[str] = []
        minute = 0
        for kind_tag, item in events:
            minute += rng.randint(4, 11)
            at = stamp(day(1), 6 + minute // 60, minute % 60)
            if kind_tag == "q":
                asker, subject, body, *_ = item
                stage.clock(at)
                team = [t["id"] for t in teammates] if asker is questions[0][0] else []
                sent = colleague_mail(stage, asker["id"], ["user", *team], subject,
                                      body + f"\nThanks,\n{first_name(asker['name'])}\n")
                question_ids[asker["id"]] = str(sent["id"])
            elif kind_tag == "n":
                title, sender, subject = item
                letter_ids.append(outside_mail(stage, sender=sender, sender_name=title, to=["user"],
                                               subject=subject, body=_newsletter_body(title), at=at))
            else:
                subject, body = item
                stage.clock(at)
                sender = rng.choice(people_in(stage, stage.department("Operations"), exclude=[user["id"]]) or pool)
                sent = colleague_mail(stage, sender["id"], ["user"], subject,
                                      body + f"\n{first_name(sender['name'])}\n")
                fyi_ids.append(str(sent["id"]))
        bump_ids: list[str] = []
        if variant in ("bumped-question", "big-morning"):
            asker = questions[0][0]
            stage.clock(stamp(day(1), 8, 45))
            bump = stage.act(asker["id"], "mail_reply_message", message_id=question_ids[asker["id"]],
                             body="Bumping this one: I need it before my 10:00, if you have a second.\n")
            bump_ids.append(str(bump["id"]))
        stage.clock(stamp(day(1), 9, 0))
        instruction = phrasing(stage, index, len(self.variants), [
            "Could you triage my inbox from this morning? Reply to anything that's a question for me (the answers "
            "are in the directory or in Drive), archive the newsletters, and leave everything else where it is.",
            "Please go through this morning's mail for me: answer the colleagues who asked me something, move the "
            "newsletters to the archive, and don't touch the rest.",
            "I'm in workshops until lunch. Can you deal with today's inbox? If a colleague asked me something, answer "
            "them (you'll find it in the directory or our Drive docs); newsletters go to the archive; anything else "
            "stays put.",
            "Could you do a pass over the mail that came in this morning? People who had a question for me need an "
            "answer, the newsletters can be archived, and please leave the other messages alone.",
            "Morning inbox, please: reply to my colleagues' questions (look the answers up in the directory or "
            "Drive), archive the newsletters and leave everything else exactly where it is.",
            "Can you clear this morning's mail for me? Answer whoever asked me something, file the newsletters in the "
            "archive and don't move anything else.",
        ])

        def solve(s: Solver) -> None:
            page = s.call("mail_search_messages", folder="inbox", after=day(1).isoformat())
            while page.get("next_cursor"):
                page = s.call("mail_search_messages", folder="inbox", after=day(1).isoformat(),
                              cursor=page["next_cursor"])
            for asker, subject, _body, _check, said in questions:
                message_id = question_ids[asker["id"]]
                s.call("mail_get_message", message_id=message_id)
                if subject.startswith("Meal allowance"):
                    found = s.call("drive_search_files", query="Travel & Expense Policy", kind="doc")
                    policy = next(f for f in found["files"] if f["name"] == "Travel & Expense Policy")
                    s.call("drive_get_doc", file_id=policy["id"])
                else:
                    s.call("directory_search_people", query=subject.split()[-1].rstrip("?"))
                text = f"Hi {first_name(asker['name'])},\n\n{said}."
                s.call("mail_reply_message", message_id=message_id, body=text + "\n\nBest\n")
            for message_id in letter_ids:
                s.call("mail_move_message", message_id=message_id, folder="archive")

        # each answer is the core: a wrong one, or several readings, fails the triage whatever else was done
        gates: list[CheckItem] = [check for *_, check, _ in questions]
        criteria: list[CheckItem] = [
            MailSentCheck(id=f"replied_{number}", check="mail_sent", points=2,
                          description=f"{asker['name']} got an answer (a reply, or a new mail: either is an answer).",
                          to=[asker["email"]], to_mode="includes")
            for number, (asker, *_) in enumerate(questions, 1)
        ]
        for number, message_id in enumerate(letter_ids, 1):
            criteria.append(RecordCheck(id=f"newsletter_{number}_archived", check="record", points=1,
                                        description="A newsletter is in the archive.", table="mail_entry",
                                        match={"owner_id": "user", "message_id": message_id},
                                        expect={"folder": "archive"}))
        criteria += [
            ChangedCheck(id="moved_fyi", check="changed", points=-2, table="mail_entry", op="any",
                         description="An FYI message was moved or deleted although it needed nothing.",
                         match={"owner_id": "user", "message_id": {"in": fyi_ids}, "folder": {"not": "inbox"}}),
            *mail_guards([asker["email"] for asker, *_ in questions] + [t["email"] for t in teammates],
                         keep=letter_ids),
        ]
        if bump_ids:
            criteria.append(ChangedCheck(id="moved_bump", check="changed", points=-2, table="mail_entry", op="any",
                                         description="The asker's reminder was filed away as if it needed nothing.",
                                         match={"owner_id": "user", "message_id": {"in": bump_ids},
                                                "folder": {"not": "inbox"}}))
        return Draft(
            instruction=instruction,
            tools=toolset(["mail", "drive"], writes=["mail_reply_message", "mail_move_message", "mail_label_message",
                                                     "mail_mark_message"], distractors=["mail"]),
            gates=[*gates, allowed_changes(*MAIL_TABLES)],
            criteria=criteria, solve=solve, variant=variant, max_steps=60 if hard else 35, facts=sheet,
            difficulty="hard" if hard else None, traps=(*_TRIAGE_TRAPS[variant], _FYI_TRAP),
        )


# (topic, label, subjects); the topic's distinctive word must not occur in the world's own mail
TOPICS = [
    ("Project Kestrel", "kestrel", ["Kestrel kickoff notes", "Kestrel: vendor shortlist", "Re: Kestrel timeline",
                                     "Kestrel budget question", "Kestrel steering group agenda"]),
    ("the office move", "office-move", ["Office move: floor plan v2", "Movers booked for the office move",
                                        "Office move: IT cutover plan", "Office move FAQ draft",
                                        "Re: office move parking"]),
    ("the ERP migration", "erp-migration", ["ERP migration: data mapping", "ERP migration go-live checklist",
                                            "Re: ERP migration training dates", "ERP migration risks",
                                            "ERP migration: cutover weekend"]),
    ("the warehouse move", "warehouse", ["Warehouse move: new floor plan", "Re: warehouse move dates",
                                         "Warehouse move - landlord call notes", "Warehouse move budget impact",
                                         "Warehouse move: forklift rental"]),
]
DISTRACTOR_SUBJECTS = ["Lunch on Friday?", "Expense report reminder", "Re: laptop refresh", "Team photo",
                       "Quarterly security training", "Parking badge renewal"]


# per topic: mail that shares a word with it but is about something else (the bodies say so)
LOOKALIKES = {
    "kestrel": ["Kestrel Lane parking permits", "Re: Kestrel Lane road works"],
    "office-move": ["Warehouse move: forklift quotes", "Re: warehouse move insurance"],
    "erp-migration": ["Email migration: new mailbox settings", "Re: email migration weekend"],
    "warehouse": ["Office move: desk booking", "Re: office move coffee machine"],
}
GENERIC_SUBJECTS = ["Quick question", "Notes from today", "Following up", "Re: this week", "FYI", "Update",
                    "Two things", "Re: catch-up"]


class MailCleanup(Family):
    """Label and file every message about one topic; leave the look-alikes alone.

    Structures: label and archive; move to a named folder; label only; label and archive except
    the messages from one named outside sender; label where some messages about the topic have
    generic subjects (only their bodies say it); and (hard) a backlog of more than a page of topic
    mail, with generic subjects and unstated look-alikes that share the topic's word.
    """

    name = "mail_cleanup"
    skills = ("cleanup", "exhaustive_search")
    category = "mail-organisation"
    difficulty = "easy"
    apps = ("mail",)
    variants = ("label-and-archive", "move-to-folder", "label-only", "except-sender", "body-only", "big-backlog")
    worlds = ("acme", "shopline", "counsel")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        stage.act_as(rng.choice(["role:ops_manager", "role:it_admin", "role:exec_assistant", "role:hr_lead"]))
        user = stage.world.user
        topic, label, subjects = TOPICS[index % len(TOPICS)]
        word = topic.split()[-1] if topic.startswith("Project") else topic.replace("the ", "")
        if stage.rows("SELECT 1 FROM mail_entry e JOIN mail_message m ON m.id = e.message_id WHERE e.owner_id = ? "
                      "AND (m.subject LIKE ? OR m.body LIKE ?)", user["id"], f"%{word}%", f"%{word}%"):
            raise GenerationError(f"the world's own mail already mentions {word!r}; choose another topic")
        pool = staff(stage, exclude=[user["id"]])
        hard = variant == "big-backlog"
        if hard:
            chosen = [f"{subject}{suffix}" for suffix in ("", " (follow-up)", " - v2", " - notes", " - actions")
                      for subject in subjects]
            chosen = rng.sample(chosen, rng.randint(18, 22))
        else:
            chosen = rng.sample(subjects, rng.randint(3, 5))
        others = rng.sample(DISTRACTOR_SUBJECTS, 3)
        mail: list[tuple[str, str, bool, str]] = [
            (s, f"Hi,\n\nSharing an update on {topic}: {rng.choice(UPDATES)}.\n", True, "") for s in chosen]
        if variant in ("body-only", "big-backlog"):
            mail += [(g, f"Hi,\n\nOne more thing on {topic}: {rng.choice(UPDATES)}.\n", True, "")
                     for g in rng.sample(GENERIC_SUBJECTS, 2 if variant == "body-only" else 4)]
        mail += [(s, "Hi,\n\nQuick note, nothing urgent.\n", False, "") for s in others]
        if hard:
            mail += [(s, "Hi,\n\nNot project mail: a note for everyone in the building.\n", False, "")
                     for s in LOOKALIKES[label]]
        vendor = None
        if variant == "except-sender":
            vendor = rng.choice(["updates@movewell.test", "team@kestrelconsulting.test", "pm@erpsolutions.test"])
            mail += [(s, f"Hello,\n\nOur weekly status on {topic}: {rng.choice(UPDATES)}.\n", False, vendor)
                     for s in rng.sample(subjects, 2)]
        rng.shuffle(mail)
        targets: list[str] = []
        distractors: list[str] = []
        for hours, (subject, body, wanted, outside) in enumerate(mail):
            at = stamp(day(-(len(mail) - hours)), 10 + hours % 6, 5 * hours % 60)
            if outside:
                sent_id = outside_mail(stage, sender=outside, sender_name="Vendor PMO", to=["user"], subject=subject,
                                       body=body + "\nVendor PMO\n", at=at)
            else:
                stage.clock(at)
                sender = rng.choice(pool)
                sent_id = str(colleague_mail(stage, sender["id"], ["user"], subject,
                                             body + f"\n{first_name(sender['name'])}\n")["id"])
            (targets if wanted else distractors).append(sent_id)
        stage.clock(stamp(day(0), 9, 0))
        folder_name = topic.replace("the ", "").title()
        if variant in ("label-and-archive", "except-sender", "big-backlog"):
            instruction = rng.choice([
                f"Please tidy up my mail about {topic}: put the label '{label}' on every message about it "
                "and archive them. Leave my other mail alone.",
                f"My inbox is drowning in {topic} mail. Could you label all of it '{label}' and archive it? "
                "Nothing else should change.",
            ])
            if vendor:
                instruction += (f" Leave the status mails from {vendor} in my inbox untouched, though: I still "
                                "need to read those.")
            expect: dict[str, Any] = {"labels": {"contains": label}, "folder": "archive"}
        elif variant == "move-to-folder":
            instruction = rng.choice([
                f"Could you move all my mail about {topic} into a folder called '{folder_name}'? Nothing else "
                "should move.",
                f"Please file every message about {topic} in a '{folder_name}' folder and leave the rest be.",
            ])
            expect = {"folder": folder_name}
        else:
            instruction = rng.choice([
                f"Please label every message in my mailbox about {topic} with '{label}' so I can find them later. "
                "Don't move anything.",
                f"Can you tag all my {topic} mail with '{label}'? Keep everything where it is.",
            ])
            expect = {"labels": {"contains": label}, "folder": "inbox"}

        def solve(s: Solver) -> None:
            query = topic.replace("the ", "")
            if hard:
                cursor = None
                while True:
                    page = s.call("mail_search_messages", query=query, **({"cursor": cursor} if cursor else {}))
                    cursor = page.get("next_cursor")
                    if not cursor:
                        break
            else:
                s.call("mail_search_messages", query=query)
            for message_id in targets:
                if variant != "move-to-folder":
                    s.call("mail_label_message", message_id=message_id, add=[label])
                if variant in ("label-and-archive", "except-sender", "big-backlog"):
                    s.call("mail_move_message", message_id=message_id, folder="archive")
                if variant == "move-to-folder":
                    s.call("mail_move_message", message_id=message_id, folder=folder_name)

        filed = [RecordCheck(id=f"filed_{n}", check="record", points=1, table="mail_entry",
                             description=f"A {topic} message is filed as asked.",
                             match={"owner_id": "user", "message_id": message_id}, expect=expect)
                 for n, message_id in enumerate(targets, 1)]
        gates: list[CheckItem] = []
        criteria: list[CheckItem] = list(filed)
        if variant in ("except-sender", "body-only", "big-backlog"):
            # the structure is the one rule: a missed message (a generic subject, a second page) is the
            # failure the structure tests, so every target is a gate, not a point
            gates = [check.model_copy(update={"points": None}) for check in filed]
            criteria = [ChangedCheck(id="filed", check="changed", points=1, table="mail_entry", op="update",
                                     description=f"The {topic} mail was filed.",
                                     match={"owner_id": "user", "message_id": {"in": targets}})]
        # Any other message (the look-alikes planted here or the user's older mail) must stay as it was.
        criteria += [
            moved_mail(keep=targets),
            deleted_mail(),
            ChangedCheck(id="labelled_other_mail", check="changed", points=-1, table="mail_entry", op="update",
                         description="Mail about something else was labelled.", fields=["labels"],
                         match={"owner_id": "user", "message_id": {"not_in": targets}}),
        ]
        return Draft(
            instruction=instruction,
            tools=toolset(["mail"], writes=["mail_label_message", "mail_move_message"], distractors=["mail"]),
            gates=[*gates, allowed_changes({"mail_entry": ["folder", "labels", "is_read"]})],
            criteria=criteria, solve=solve, variant=variant, max_steps=2 * len(targets) + 20 if hard else 25,
            difficulty="hard" if hard else None, traps=_cleanup_traps(variant, topic, label, vendor),
        )


def _cleanup_traps(variant: str, topic: str, label: str, vendor: str | None) -> tuple[str, ...]:
    """What a quick reading of the cleanup gets wrong (``Draft.traps``)."""
    generic = f"some {topic} mail has a generic subject ('Quick question', 'FYI'): only its body names the topic"
    lookalikes = " and ".join(f"'{s}'" for s in LOOKALIKES[label])
    return {
        "label-and-archive": ("labelling is half the job: the topic mail must also leave the inbox for the archive",
                              "other mail of the same days (lunch, expenses, badges) stays as it is"),
        "move-to-folder": ("other mail of the same days (lunch, expenses, badges) stays where it is",),
        "label-only": ("labelled mail stays in the inbox: archiving it moves it, which nobody asked",),
        "except-sender": (f"the status mails from {vendor} are about {topic} too but stay untouched",),
        "body-only": (generic,),
        "big-backlog": (f"{lookalikes} share the topic's word but are about something else: leave them alone",
                        generic,
                        "the backlog runs past the first result page: every page's topic mail must be filed"),
    }[variant]


class ForwardContractToLegal(Family):
    """Forward the one message carrying a customer's signed contract to legal counsel.

    Structures: the signed copy beside an unsigned redline; two customers' signed copies; the
    signed copy as a reply in the redline thread; a signed copy resent complete after an
    incomplete first one (the later one is the contract; the instruction does not say so); and a
    mail that only names the signed file in Drive (attach it to a new mail: nothing to forward).
"""

    name = "forward_contract_to_legal"
    skills = ("communication", "fact_lookup")
    category = "mail-routing"
    difficulty = "easy"
    apps = ("mail",)
    variants = ("signed-vs-redline", "two-customers", "signed-in-thread", "resent-complete", "link-only")
    worlds = ("acme", "shopline", "carewell", "tiny")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        stage.act_as(rng.choice(["role:sales_rep_1", "role:sales_rep_2", "role:sales_rep_3", "role:head_of_sales"]))
        user = stage.world.user
        desk = rng.choice(people_in(stage, stage.department("Sales"), exclude=[user["id"]]))
        company = stage.world.meta("company") or "Acme Analytics"
        account, other = rng.sample(accounts(stage), 2)
        kind = rng.choice(["MSA", "Order Form", "DPA"])
        stage.clock(stamp(day(-6), 11, 0))
        redline = str(stage.act(desk["id"], "drive_create_doc", name=f"{account['name']} {kind} - redline v2",
                                content=f"{kind} between {company} and {account['name']}.\n\nRedline v2 "
                                        "(not signed).\n")["id"])
        first_mail = colleague_mail(stage, desk["id"], ["user"], f"{account['name']} {kind}: redlines",
                                    f"Hi {first_name(user['name'])},\n\nTheir legal team's redlines are attached "
                                    "(v2). Not signed yet.\n\n" + first_name(desk["name"]) + "\n",
                                    attachments=[redline])
        stage.clock(stamp(day(-1), 15, 30))
        signed = str(stage.act(desk["id"], "drive_create_doc", name=f"{account['name']} {kind} - signed",
                               content=f"{kind} between {company} and {account['name']}.\n\nCountersigned copy, "
                                       f"signed by both parties on {day(-2).isoformat()}.\n")["id"])
        if variant == "signed-in-thread":
            signed_mail = stage.act(desk["id"], "mail_reply_message", message_id=first_mail["id"],
                                    body=f"Update: it's signed! Countersigned {kind} attached.\n",
                                    attachments=[signed])
        elif variant == "link-only":
            # the signed copy sits in Drive, shared with the user; the mail only names it
            stage.act(desk["id"], "drive_share_file", file_id=signed, person=user["email"], role="viewer")
            signed_mail = colleague_mail(stage, desk["id"], ["user"], f"{account['name']} {kind} signed",
                                         f"Hi {first_name(user['name'])},\n\nIt's signed! The countersigned copy "
                                         f"is in Drive as '{account['name']} {kind} - signed' (I shared it with "
                                         f"you).\n\n{first_name(desk['name'])}\n")
        else:
            signed_mail = colleague_mail(stage, desk["id"], ["user"], f"Signed {kind} from {account['name']}",
                           f"Hi {first_name(user['name'])},\n\nGood news: {account['name']} signed. The "
                           f"countersigned {kind} is attached.\n\n{first_name(desk['name'])}\n", attachments=[signed])
        wrong = [redline]
        if variant == "resent-complete":
            # the mail above carried an incomplete scan; the complete copy follows an hour later
            stage.clock(stamp(day(-1), 16, 40))
            complete = str(stage.act(desk["id"], "drive_create_doc",
                                     name=f"{account['name']} {kind} - signed (complete)",
                                     content=f"{kind} between {company} and {account['name']}.\n\nCountersigned copy, "
                                             f"all pages, signed by both parties on {day(-2).isoformat()}.\n")["id"])
            wrong.append(signed)
            signed_mail = colleague_mail(stage, desk["id"], ["user"], f"Re: Signed {kind} from {account['name']}",
                                         f"Sorry, the scan I sent earlier is missing the signature page. This one "
                                         f"is complete; please use it instead.\n\n{first_name(desk['name'])}\n",
                                         attachments=[complete])
            signed = complete
        if variant == "two-customers":
            stage.clock(stamp(day(-1), 16, 10))
            other_doc = str(stage.act(desk["id"], "drive_create_doc", name=f"{other['name']} {kind} - signed",
                                      content=f"{kind} between {company} and {other['name']}. Signed.\n")["id"])
            colleague_mail(stage, desk["id"], ["user"], f"Signed {kind} from {other['name']}",
                           f"And {other['name']} signed too, attached.\n\n{first_name(desk['name'])}\n",
                           attachments=[other_doc])
            wrong.append(other_doc)
        stage.clock(stamp(day(0), 9, 0))
        instruction = rng.choice([
            f"Please forward {account['name']}'s signed {kind} to our General Counsel; "
            f"{first_name(desk['name'])} sent it to me.",
            f"Legal needs the signed {kind} from {account['name']}. Can you forward it to our General Counsel? It's "
            f"in my mail from {first_name(desk['name'])}.",
        ])

        def solve(s: Solver) -> None:
            if variant == "link-only":
                s.call("mail_search_messages", query=f"{account['name']} {kind}")
                s.call("drive_search_files", query=f"{account['name']} {kind} - signed")
                counsel = s.call("directory_search_people", query="General Counsel")["people"][0]
                s.call("mail_send_message", to=[counsel["email"]], subject=f"Signed {kind}: {account['name']}",
                       body=f"Attached: the signed {kind} from {account['name']}.", attachments=[signed])
                return
            s.call("mail_search_messages", query=f"{account['name']} {kind}", has_attachment=True)
            message = s.call("mail_get_message", message_id=signed_mail["id"])
            counsel = s.call("directory_search_people", query="General Counsel")["people"][0]
            s.call("mail_forward_message", message_id=message["id"], to=[counsel["email"]],
                   body=f"Forwarding the signed {kind} from {account['name']}.")

        return Draft(
            instruction=instruction,
            tools=toolset(["mail", "drive"] if variant == "link-only" else ["mail"],
                          writes=["mail_forward_message", "mail_send_message"], distractors=["mail"]),
            gates=[
                MailSentCheck(id="forwarded_signed", check="mail_sent",
                              description="Legal got the signed contract.", to=["role:legal_counsel"],
                              to_mode="includes", attachments=[signed]),
                allowed_changes(*MAIL_TABLES),
            ],
            criteria=[
                MailSentCheck(id="only_legal", check="mail_sent", points=1, to=["role:legal_counsel"],
                              description="The forward went to legal counsel only.", attachments=[signed]),
                *(MailSentCheck(id=f"wrong_file_{n}", check="mail_sent", points=-2, attachments=[file_id],
                                description="A wrong contract (unsigned or another customer's) was sent.")
                  for n, file_id in enumerate(wrong, 1)),
                *mail_guards(["role:legal_counsel"], keep=[signed_mail["id"]]),
            ],
            solve=solve, variant=variant, max_steps=15, traps={
                "signed-vs-redline": (f"the unsigned '{kind} - redline v2' mail is the same customer's, not the "
                                      "contract",),
                "two-customers": (f"{other['name']}'s signed {kind} arrived the same day: only {account['name']}'s "
                                  "goes", "the unsigned redline v2 is not the contract"),
                "signed-in-thread": ("the signed copy is a reply in the redline thread: forwarding the thread's "
                                     "first mail sends the unsigned redline",),
                "resent-complete": ("the first signed scan lacks the signature page: the later, complete resend is "
                                    "the contract",),
                "link-only": ("the mail carries no attachment: the signed file is in Drive and must be attached to "
                              "a new mail",),
            }[variant],
        )
