"""Chat jobs: answer a colleague's DM, post a summary of a sheet, turn a thread into a decisions doc."""

from __future__ import annotations

import random
import re
from typing import Any

from officesim.grading.facts import FactsCheck
from officesim.grading.record_checks import ChangedCheck, RecordCheck
from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import (
    READ_MARKS,
    accounts,
    allowed_changes,
    core_name,
    day,
    deleted_files,
    ensure_channel,
    first_name,
    long_date,
    people_in,
    post,
    reply,
    shared_outside,
    shared_sheet,
    staff,
    stamp,
    toolset,
)
from officesim.taskgen.factsheet import FactSheet, facts_check, seen_gate
from officesim.taskgen.policy import set_travel_policy


def chat_said(check_id: str, points: float | None, channel_id: str, pattern: dict[str, Any],
              description: str) -> RecordCheck:
    """A record check: the user posted in ``channel_id`` a message whose text matches ``pattern``."""
    return RecordCheck(id=check_id, check="record", points=points, description=description, table="chat_message",
                       match={"channel_id": channel_id, "author_id": "user", "text": pattern})


def posted_elsewhere(channel_id: str, points: float = -2) -> ChangedCheck:
    """A penalty for chat posts outside the channel the task is about."""
    return ChangedCheck(id="posted_elsewhere", check="changed", points=points, table="chat_message",
                        op="insert", description="Something was posted in another channel or DM.",
                        match={"channel_id": {"not": channel_id}})


LAUNCH_PROJECTS = ["Cedar", "Harbor", "Juniper", "Lantern", "Mosaic", "Orbit", "Saffron"]
# launch-date instances spread over the quarter, so no handful of dates answers the family blind
LAUNCH_OFFSETS = [16, 44, 29, 58, 23, 51, 37, 65, 19, 47, 33, 61, 26, 54]


def domestic(phone: str) -> list[str]:
    """The number as dialled at home, the country code replaced by the trunk 0 ('+91 98206 04198' as
    '098206 04198', '+44 20 7946 0958' as '020 7946 0958'), in any punctuation: how a colleague in that
    country writes it.  Nothing for the North American plan, which has no trunk 0."""
    found = re.match(r"^\+(\d{1,3})[\s().-]*(.+)$", phone)
    if not found or found.group(1) == "1":
        return []
    national = re.sub(r"\D", "", found.group(2)).removeprefix("0")
    return [r"(?<![\d+])0[\s().-]{0,2}" + r"[\s().-]{0,2}".join(national) + r"(?!\d)"]


class DmAnswerQuestion(Family):
    """Answer a colleague's direct message with a fact from the directory or a Drive doc."""

    name = "dm_answer_question"
    skills = ("fact_lookup", "communication")
    category = "chat-answer"
    difficulty = "easy"
    apps = ("chat", "drive")
    # the fifth: the policy doc's figure was raised by a later update doc, which wins
    variants = ("phone-number", "manager", "policy-figure", "launch-date", "policy-figure-updated")
    worlds = ("acme", "counsel", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        stage.act_as(rng.choice(["role:ops_manager", "role:exec_assistant", "role:hr_lead", "role:it_admin"]))
        user = stage.world.user
        pool = staff(stage, exclude=[user["id"]])
        asker, about = rng.sample([p for p in pool if p["manager_id"]], 2)
        stage.clock(stamp(day(-20), 10, 0))
        sheet = FactSheet()
        read_words: list[str] | None = None  # what a tool result must have shown, where figures cannot tell
        criterion: FactsCheck
        if variant == "phone-number":
            question = f"hey, do you have {about['name']}'s phone number? need to call them about a delivery"
            fact = about["phone"]
            # every colleague's number is a candidate, in any punctuation: the directory pasted is no answer
            phones = [sheet.entity(p["phone"], key=f"phone_{p['id']}", kind="phone", patterns=domestic(p["phone"]))
                      for p in stage.rows("SELECT id, phone FROM directory_person WHERE phone IS NOT NULL ORDER BY "
                                          "CAST(substr(id, 3) AS INTEGER)")]
            sheet.entity(about["name"], key="colleague", person=about["email"], kind="person")
        elif variant == "manager":
            manager = stage.person(about["manager_id"])
            question = f"quick one: who is {about['name']}'s manager? I need someone to sign off their PTO"
            fact = manager["name"]
            managers = stage.rows("SELECT DISTINCT m.id, m.email, m.name FROM directory_person m "
                                  "JOIN directory_person p ON p.manager_id = m.id ORDER BY m.id")
            keys = [sheet.entity(m["name"], key=m["id"], person=m["email"], kind="person") for m in managers
                    if m["id"] != about["id"]]
            subject = sheet.entity(about["name"], key="colleague", person=about["email"], kind="person")
            sheet.fact(subject, "manager", manager["id"])
        elif variant in ("policy-figure", "policy-figure-updated"):
            cities = ["New York", "London", "Chicago", "Toronto", "Austin", "Berlin"]
            hotel = {c: rng.randrange(170, 420, 5) for c in cities}
            set_travel_policy(stage, hotel, {c: rng.randrange(55, 100, 5) for c in cities}, 0.67)
            city = rng.choice(cities)
            old_cap = hotel[city]
            if variant == "policy-figure-updated":  # a later update doc raises this city's cap
                hotel = {**hotel, city: old_cap + rng.randrange(25, 80, 5)}
                update_name = f"Travel policy update: {city} hotel cap"
                caps = [stage.money(cap, cents=False) for cap in (old_cap, hotel[city])]
                stage.clock(stamp(day(-6), 11, 0))
                update_id = str(stage.act("role:travel_coordinator", "drive_create_doc", name=update_name,
                                          content=f"# {update_name}\n\nEffective {day(-5).isoformat()}, the "
                                                  f"nightly hotel cap for {city} rises from {caps[0]} to "
                                                  f"{caps[1]} because of rising rates. All other caps in the "
                                                  "Travel & Expense Policy are unchanged.\n")["id"])
                stage.act("role:travel_coordinator", "drive_share_file", file_id=update_id, domain=True,
                          role="viewer")
                sheet.sources.append(f"doc:{update_name}")
            question = f"what's the hotel cap per night for {city} in the travel policy? booking a trip now"
            fact = stage.money(hotel[city], cents=False)
            sheet.sources.append("doc:Travel & Expense Policy")
            keys = [sheet.entity(c, kind="city") for c in cities]
            for c, key in zip(cities, keys, strict=True):
                stale = [180, *([old_cap] if old_cap != hotel[c] else [])] if c == city else []
                sheet.fact(key, "hotel_cap", hotel[c], wrong=stale, tolerance=0.001)
            subject = keys[cities.index(city)]
        else:
            project = LAUNCH_PROJECTS[index % len(LAUNCH_PROJECTS)]
            launch = day(LAUNCH_OFFSETS[(index // len(self.variants)) % len(LAUNCH_OFFSETS)] + rng.randint(0, 3))
            beta = day(rng.randint(1, 12))
            owner = rng.choice(people_in(stage, stage.department("Marketing")) or pool)
            doc_name = f"Project {project}: launch plan"
            doc_id = str(stage.act(owner["id"], "drive_create_doc", name=doc_name,
                                   content=f"# Project {project}: launch plan\n\nOwner: {owner['name']}\n\n"
                                           f"Launch date: {launch.isoformat()}\nBeta ends: "
                                           f"{beta.isoformat()}\n")["id"])
            stage.act(owner["id"], "drive_share_file", file_id=doc_id, domain=True, role="viewer")
            question = f"do you know when Project {project} launches? the launch plan should have the date"
            fact = long_date(launch)
            sheet.sources.append(f"doc:{doc_name}")
            subject = sheet.entity(f"Project {project}", key="project", aliases=[project], kind="project")
            # the beta's end is a fact of its own: told as the beta's ("the beta ends Oct 8") it is no wrong launch
            sheet.fact(subject, "launch_date", launch.isoformat(), wrong=[beta.isoformat()],
                       label=r"\b(?:launch|launches|launching|go[\s-]?live|release)\b")
            sheet.fact(subject, "beta_end", beta.isoformat(), label=r"\bbeta\b")
            read_words = [launch.isoformat()]  # a plan of dates has no figures to have been shown: its date as written
        stage.clock(stamp(day(0), 8, 50))
        sent = stage.act(asker["id"], "chat_send_dm", person="user", text=question)
        channel_id = str(sent["channel_id"])
        stage.clock(stamp(day(0), 9, 0))
        instruction = rng.choice([
            f"{first_name(asker['name'])} sent me a DM with a question. Could you answer it for me in the DM?",
            f"Please reply to {asker['name']}'s direct message; find the answer first.",
            f"Can you handle the question {first_name(asker['name'])} DMed me? Look it up and answer in the DM.",
        ])
        description = "The reply gives the right answer, and only that one."
        if variant == "phone-number":
            criterion = facts_check("correct_fact", 2, "chat_posts", channel=channel_id, description=description,
                                    name=[f"phone_{about['id']}"], candidates=phones, traceable=False)
        elif variant == "manager":
            criterion = facts_check("correct_fact", 2, "chat_posts", channel=channel_id, description=description,
                                    name=[manager["id"]], candidates=keys)
        elif variant in ("policy-figure", "policy-figure-updated"):
            criterion = facts_check("correct_fact", 2, "chat_posts", channel=channel_id, description=description,
                                    require=[f"{subject}.hotel_cap"], subject=subject, candidates=keys)
        else:
            criterion = facts_check("correct_fact", 2, "chat_posts", channel=channel_id, description=description,
                                    require=[f"{subject}.launch_date"], subject=subject)

        def solve(s: Solver) -> None:
            s.call("chat_list_messages", channel=channel_id)
            if variant in ("policy-figure", "policy-figure-updated"):
                found = s.call("drive_search_files", query="Travel & Expense Policy", kind="doc")
                policy = next(f for f in found["files"] if f["name"] == "Travel & Expense Policy")
                s.call("drive_get_doc", file_id=policy["id"])
                if variant == "policy-figure-updated":
                    s.call("drive_search_files", query="travel policy update", kind="doc")
                    s.call("drive_get_doc", file_id=update_id)
            elif variant == "launch-date":
                s.call("drive_search_files", query="launch plan")
            else:
                s.call("directory_search_people", query=about["name"])
            s.call("chat_post_message", channel=channel_id, text=f"Hi {first_name(asker['name'])}, it's {fact}")

        return Draft(
            instruction=instruction,
            tools=toolset(["chat", "drive"], writes=["chat_post_message", "chat_reply_message", "chat_send_dm"],
                          distractors=["chat"]),
            gates=[
                chat_said("replied", None, channel_id, {"regex": "."}, "There is a reply in the DM."),
                allowed_changes("chat_message", READ_MARKS),
                # a figure from a doc is read in this episode, not remembered from another one of the task's
                *([seen_gate(words=read_words)] if sheet.sources else []),
            ],
            criteria=[criterion, posted_elsewhere(channel_id)],
            solve=solve, variant=variant, max_steps=12, facts=sheet if sheet.entities else None, traps={
                "phone-number": ("a reply offering a second number beside the right one is a hedge",),
                "manager": ("a reply offering another colleague beside the manager is a hedge",),
                "policy-figure": ("the policy lists a cap per city: another city's figure is a swap",),
                "launch-date": ("the launch plan also gives the beta's end date: that is not the launch",),
                "policy-figure-updated": ("a later policy update raised this city's cap: the policy doc's figure is "
                                          "stale", "the policy lists a cap per city: another city's figure is a swap"),
            }[variant],
        )


def _bookings(stage: Stage, rng: random.Random) -> tuple[list[list[Any]], dict[str, Any]]:
    reps = [p["name"] for p in people_in(stage, stage.department("Sales"))][:6]
    rows = []
    for account in rng.sample(accounts(stage), rng.randint(5, 8)):
        rows.append([account["name"], rng.choice(["Renewal", "Expansion", "New logo", "Add-on"]), rng.choice(reps),
                     float(rng.randrange(6_000, 180_000, 500)), day(-rng.randint(6, 34)).isoformat()])
    biggest = max(rows, key=lambda r: r[3])
    return rows, {"total": sum(r[3] for r in rows), "count": len(rows), "biggest": biggest[0],
                  "biggest_amount": biggest[3]}


def _vendor_spend(stage: Stage, rng: random.Random) -> tuple[list[list[Any]], dict[str, Any]]:
    vendors = ["Northwind Cleaning", "Globex Security", "Initech Catering", "Umbrella Logistics", "Hooli Cloud",
               "Stark Facilities", "Wayne Printing", "Acme Coffee Co"]
    departments = [stage.department(kind) for kind in ("Facilities", "IT", "Operations", "Marketing")]
    rows: list[list[Any]] = [[v, rng.choice(departments), float(rng.randrange(1_200, 48_000, 50)),
             rng.choice(["paid", "approved"])] for v in rng.sample(vendors, rng.randint(5, 7))]
    biggest = max(rows, key=lambda r: r[2])
    return rows, {"total": sum(r[2] for r in rows), "count": len(rows), "biggest": biggest[0],
                  "biggest_amount": biggest[2]}


SUMMARY_KINDS = {
    "bookings": ("September 2026 Bookings", ["Account", "Type", "Rep", "Amount", "Closed on"],
                 ["text", "text", "text", "number", "date"], "sales", "role:head_of_sales",
                 "the September bookings: total booked, number of deals, and the biggest deal (account and amount)"),
    "vendor-spend": ("Q3 2026 Vendor Spend", ["Vendor", "Department", "Amount", "Status"],
                     ["text", "text", "number", "text"], "vendor-reviews", "role:controller",
                     "Q3 vendor spend: the total, how many vendors, and the biggest vendor with its amount"),
}

SUMMARY_WORDS = ["total", "totals", "in total", "overall", "altogether", "combined", "sum", "all told"]
SUMMARY_WORDS_OF = {"bookings": ["bookings", "booked", "deals", "closed"],
                    "vendor-spend": ["spend", "spent", "spending", "vendors", "vendor spend"]}


class ChannelSummaryPost(Family):
    """Post the key numbers of a shared sheet as a short summary in a channel."""

    name = "channel_summary_post"
    skills = ("summarization", "communication")
    category = "chat-reporting"
    difficulty = "easy"
    apps = ("drive", "chat")
    # bookings and vendor spend as they are; bookings with cancelled rows to leave out; vendor spend
    # beside a stale draft of the same sheet; bookings asked for by the sheet's owner in the channel
    variants = ("bookings", "vendor-spend", "bookings-with-cancellations", "spend-beside-draft",
                "asked-in-channel")
    worlds = ("acme", "counsel", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        kind = "vendor-spend" if variant in ("vendor-spend", "spend-beside-draft") else "bookings"
        name, columns, types, channel, owner_role, what = SUMMARY_KINDS[kind]
        stage.act_as(rng.choice(["role:ops_manager", "role:exec_assistant"]))
        rows, facts = (_bookings if kind == "bookings" else _vendor_spend)(stage, rng)
        shown_rows, shown_columns, shown_types = rows, columns, types
        left_out: list[list[Any]] = []  # cancelled bookings: in the sheet, not in the summary
        if variant == "bookings-with-cancellations":
            left_out = [[a, t, r, float(rng.randrange(20_000, 190_000, 500)), d]
                        for a, t, r, _, d in rng.sample(rows, 2)]
            left_out = [[f"{row[0]} (cancelled order)", *row[1:]] for row in left_out]
            shown_columns, shown_types = [*columns, "Status"], [*types, "text"]
            shown_rows = [[*r, "Booked"] for r in rows] + [[*r, "Cancelled"] for r in left_out]
            rng.shuffle(shown_rows)
            what += " (cancelled orders don't count)"
        stage.clock(stamp(day(-2), 16, 0))
        draft_rows: list[list[Any]] = []
        if variant == "spend-beside-draft":  # last week's draft: other amounts, one vendor more
            draft_rows = [[r[0], r[1], float(round(r[2] * rng.choice([0.8, 0.9, 1.15]), -1)), "estimate"]
                          for r in rows]
            stage.clock(stamp(day(-9), 11, 0))
            shared_sheet(stage, owner_role, f"{name} (draft)", columns, types, draft_rows)
            stage.clock(stamp(day(-2), 16, 0))
        file_id = shared_sheet(stage, owner_role, name, shown_columns, shown_types, shown_rows)
        channel_id = ensure_channel(stage, channel, [owner_role, "user"])
        asked = None
        if variant == "asked-in-channel":
            owner = stage.person(owner_role)
            stage.clock(stamp(day(0), 8, 40))
            asked = post(stage, owner_role, channel_id, f"Could someone post a quick summary of {what} here for "
                                                        f"the team? The '{name}' sheet has the numbers.")
            instruction = rng.choice([
                f"{first_name(owner['name'])} asked for a summary in #{channel}. Could you post it for me?",
                f"Please answer {owner['name']}'s request in #{channel} with the summary they want.",
            ])
        stage.clock(stamp(day(0), 9, 0))
        if asked is None:
            instruction = rng.choice([
                f"Please post a short summary in #{channel} of {what}. The numbers are in the '{name}' sheet.",
                f"Could you post a few lines in #{channel} summarising {what}? Use the '{name}' sheet in Drive.",
                f"I need {what} shared in #{channel}; the '{name}' sheet in Drive has it. A short post is fine.",
            ])
        sheet, summary, items = _summary_facts(name, columns, types, rows, facts, SUMMARY_WORDS_OF[kind])
        # the wrong totals: the cancelled orders counted, or the draft's figures
        wrong_totals = [facts["total"] + sum(r[3] for r in left_out)] if left_out else []
        if draft_rows:
            wrong_totals.append(sum(r[2] for r in draft_rows))
        cancelled = [sheet.entity(r[0], key=f"cancelled_{n}", kind="deal") for n, r in enumerate(left_out, 1)]
        if wrong_totals:
            sheet.facts = [{**f, "wrong": wrong_totals} if f["entity"] == summary and f["attribute"] == "amount"
                           else f for f in sheet.facts]
        noun = "deals" if kind == "bookings" else "vendors"

        def solve(s: Solver) -> None:
            s.call("drive_search_files", query=name)
            s.call("drive_read_sheet", file_id=file_id)
            if asked is not None:  # the request, to answer where it was asked
                s.call("chat_list_messages", channel=channel_id, limit=5)
            s.call("chat_post_message", channel=channel_id,
                   text=f"{name}: {stage.money(facts['total'], cents=False)} across {facts['count']} {noun}. "
                        f"Biggest: {facts['biggest']} at {stage.money(facts['biggest_amount'], cents=False)}.")

        biggest = items[facts["biggest"]]
        others_at_most = max(2, (len(rows) - 1) // 2)  # the top few, not every row of the sheet
        text = "chat_posts"
        return Draft(
            instruction=instruction,
            tools=toolset(["drive", "chat"], writes=["chat_post_message"], distractors=["chat", "drive"]),
            gates=[
                facts_check("posted", None, text, channel=channel_id, subject=summary, trace_to="facts",
                            require=[f"{summary}.amount"], name=[biggest], candidates=items.values(),
                            others_at_most=others_at_most, exclude=cancelled,
                            description=f"A summary is posted in #{channel}: the total, one biggest {noun[:-1]}, "
                                        "every figure from the sheet or computed from it, and not a paste of "
                                        "every row."),
                facts_check("committed", None, text, channel=channel_id, subject=summary, trace_to="facts",
                            require=[f"{summary}.count", f"{biggest}.amount"], violations_only=True,
                            description="No second reading of the count or the biggest amount (what is left "
                                        "out only costs its points)."),
                allowed_changes("chat_message", READ_MARKS),
            ],
            criteria=[
                facts_check("total", 2, text, channel=channel_id, subject=summary, trace_to="facts",
                            require=[f"{summary}.amount"], description="The total is right, and only it."),
                facts_check("count", 1, text, channel=channel_id, subject=summary, trace_to="facts",
                            require=[f"{summary}.count"], description=f"The number of {noun} is given."),
                facts_check("biggest", 1, text, channel=channel_id, trace_to="facts", name=[biggest],
                            require=[f"{biggest}.amount"], candidates=items.values(), others_at_most=others_at_most,
                            description=f"The biggest {noun[:-1]} is named with its own amount."),
                posted_elsewhere(channel_id),
            ],
            solve=solve, variant=variant, max_steps=12, facts=sheet, traps={
                "bookings": ("a summary is a few lines: pasting every row of the sheet is no summary",),
                "vendor-spend": ("a summary is a few lines: pasting every row of the sheet is no summary",),
                "bookings-with-cancellations": ("cancelled orders are rows of the same sheet: counting them inflates "
                                                "the total",),
                "spend-beside-draft": (f"last week's '{name} (draft)' holds estimates: its figures are stale",),
                "asked-in-channel": ("the request was asked in the channel: the summary answers it there",),
            }[variant],
        )


def _summary_facts(name: str, columns: list[str], types: list[str], rows: list[list[Any]], facts: dict[str, Any],
                   words: list[str]) -> tuple[FactSheet, str, dict[str, str]]:
    """The sheet as facts: its total and count, and every row's amount with its row's name (so a
    figure written next to the wrong account is a swap, and the top few deals trace)."""
    sheet = FactSheet()
    # the words a total is written with name the sheet, so in "7 deals worth $577,500; the biggest was
    # Sosa Group ($145,500)" each figure sits with its own entity, and a swap is caught either way
    summary = sheet.entity(name, key="summary", kind="sheet", aliases=[*SUMMARY_WORDS, *words])
    sheet.fact(summary, "amount", facts["total"])  # "$578k" is how colleagues round
    sheet.fact(summary, "count", facts["count"], tolerance=0.0)
    amount = columns.index("Amount")
    items = {}
    for n, row in enumerate(rows, start=1):
        items[row[0]] = sheet.entity(row[0], key=f"row_{n}", kind=columns[0].lower())
        sheet.fact(items[row[0]], "amount", row[amount])
    sheet.figure(facts["total"] / facts["count"])  # the average deal
    for column, kind in enumerate(types):
        if column == 0 or kind != "text":
            continue
        groups: dict[str, float] = {}
        for row in rows:
            groups[row[column]] = groups.get(row[column], 0.0) + row[amount]
        sheet.figure(*groups.values())  # subtotals per type, rep, department or status
    return sheet, summary, items


def _plain_name(name: str) -> str:
    """A name without its academic titles ('Dipl.-Ing. Gertrude Zänker B.A.' -> 'Gertrude Zänker'):
    how colleagues write it in notes, and a form the reader matches (the dots of the titles end
    sentences)."""
    words = [w for w in core_name(name).split() if "." not in w]
    return " ".join(words) if len(words) >= 2 else name


OWNER_WORDS = ["owners", "owns", "owned by", "owning", "ownership", "in charge", "responsible", "point person",
               "takes it", "takes over", "drives", "driving", "lead on", "accountable"]
THREADS = [
    ("offsite-planning", "Q1 offsite", [("venue", ["Lakeside Lodge", "Harbor Hotel", "The Old Mill"]),
                                         ("budget", None), ("owner", None)]),
    ("vendor-reviews", "office cleaning contract", [("vendor", ["Northwind Cleaning", "Sparkle Pro", "CleanCo"]),
                                                    ("budget", None), ("owner", None)]),
    ("launch-cobalt", "Cobalt beta", [("tool", ["Pendo", "Intercom", "Userpilot"]), ("budget", None),
                                      ("owner", None)]),
]


class ThreadToDoc(Family):
    """Write the decisions of a chat thread (not the rejected options) into a new Drive doc."""

    name = "thread_to_doc"
    skills = ("summarization", "reconciliation")
    category = "chat-to-docs"
    difficulty = "medium"
    apps = ("chat", "drive")
    # three topics as first written (an option suggested, turned down, another decided), then a
    # decision reversed later in the thread, and an owner who hands the job on
    variants = ("offsite-planning", "vendor-reviews", "launch-cobalt", "reversed-decision", "owner-handed-on")
    worlds = ("acme", "carewell", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        topic_of = variant if variant in [t[0] for t in THREADS] else THREADS[(index // 5) % len(THREADS)][0]
        channel, topic, _ = next(t for t in THREADS if t[0] == topic_of)
        options = next(t for t in THREADS if t[0] == topic_of)[2][0][1] or []
        stage.act_as(rng.choice(["role:ops_manager", "role:exec_assistant", "role:marketing_lead"]))
        user = stage.world.user
        pool = staff(stage, exclude=[user["id"]])
        lead, second, third = rng.sample(pool, 3)
        owner = rng.choice([lead, second, third])
        first_owner = owner
        if variant == "owner-handed-on":  # named owner first, then they hand it to another attendee
            first_owner = rng.choice([p for p in (lead, second, third) if p["id"] != owner["id"]])
        first_pick, final_pick = rng.sample(options, 2)
        budget = float(rng.randrange(12_000, 60_000, 500))
        stage.clock(stamp(day(-1), 14, 0))
        channel_id = ensure_channel(stage, channel, [lead["id"], second["id"], third["id"], "user"])
        root = post(stage, lead["id"], channel_id, f"Let's settle the {topic} today. Open points: which option, "
                                                   "budget, and who owns it.")
        if variant == "reversed-decision":  # decided, then reversed when the first choice fell through
            reply(stage, second["id"], root, f"{first_pick} and {final_pick} both quoted; {first_pick} is a bit "
                                             "cheaper.")
            reply(stage, lead["id"], root, f"Decision: we go with {first_pick}.")
            reply(stage, second["id"], root, f"Budget: can we cap it at {stage.money(budget * 1.2, cents=False)}?")
            reply(stage, lead["id"], root, f"Decision: budget capped at {stage.money(budget, cents=False)}. That's "
                                           "final.")
            reply(stage, lead["id"], root, f"Decision: {owner['name']} owns it from here.")
            stage.clock(stamp(day(-1), 16, 30))
            reply(stage, third["id"], root, f"Bad news: {first_pick} just told me they can't do it after all.")
            reply(stage, lead["id"], root, f"OK, change of plan: we go with {final_pick} instead. Budget and owner "
                                           "stay as decided.")
        else:
            reply(stage, second["id"], root, f"I'd go with {first_pick}, they were great last time.")
            reply(stage, third["id"], root, f"{first_pick} is booked out for our dates. {final_pick} has "
                                            "availability and is cheaper.")
            reply(stage, lead["id"], root, f"Decision: we go with {final_pick}, not {first_pick}.")
            reply(stage, second["id"], root, f"Budget: can we cap it at {stage.money(budget * 1.2, cents=False)}?")
            reply(stage, lead["id"], root, f"Decision: budget capped at {stage.money(budget, cents=False)}. That's "
                                           "final.")
            reply(stage, lead["id"], root, f"Decision: {first_owner['name']} owns it from here.")
            if first_owner["id"] != owner["id"]:
                reply(stage, first_owner["id"], root, f"I'm out for most of next month, so {owner['name']} will "
                                                      "take it instead; we agreed this morning.")
                reply(stage, lead["id"], root, f"Fine by me: {first_name(owner['name'])} owns it.")
        reply(stage, third["id"], root, "👍 thanks all")
        stage.clock(stamp(day(0), 9, 0))
        doc_name = f"{topic.title()} decisions"
        instruction = rng.choice([
            f"Could you write up the decisions from yesterday's thread in #{channel} about the {topic} in a new doc "
            f"called '{doc_name}'? Only what was actually decided.",
            f"Please capture what we decided in the #{channel} thread on the {topic} in a Drive doc named "
            f"'{doc_name}': only what was decided, not the options we dropped.",
        ])
        sheet = FactSheet()
        chosen = sheet.entity(final_pick, key="chosen", kind="option")
        dropped = sheet.entity(first_pick, key="dropped", kind="option")
        decision = sheet.entity("budget", key="decision", aliases=["budget cap", "cap", "capped"], kind="decision")
        sheet.fact(decision, "budget", budget, wrong=[budget * 1.2], tolerance=0.001)
        sheet.figure(budget * 1.2)  # the cap asked for and refused is in the thread: recorded as rejected, it traces
        people = {p["id"]: sheet.entity(p["name"], key=f"attendee_{n}", person=p["email"], kind="person",
                                        aliases=[_plain_name(p["name"])])
                  for n, p in enumerate((lead, second, third), start=1)}
        # who owns it is a fact of the ownership, so another attendee named beside "owner" is a wrong
        # reading, while "Decision (Jack): we go with Harbor Hotel" names the lead harmlessly
        ownership = sheet.entity("owner", key="ownership", aliases=OWNER_WORDS, kind="decision")
        sheet.fact(ownership, "owner", people[owner["id"]], wrong=[k for i, k in people.items() if i != owner["id"]])
        text = f"doc:{doc_name}"

        def solve(s: Solver) -> None:
            s.call("chat_list_messages", channel=channel_id)
            s.call("chat_get_thread", message_id=root)
            s.call("drive_create_doc", name=doc_name,
                   content=f"# {doc_name}\n\n- Option: {final_pick}\n- Budget cap: {stage.money(budget, cents=False)}\n"
                           f"- Owner: {_plain_name(owner['name'])}\n")

        return Draft(
            instruction=instruction,
            tools=toolset(["chat", "drive"], writes=["drive_create_doc", "drive_update_doc"],
                          distractors=["drive", "chat"]),
            gates=[
                facts_check("doc_exists", None, text, description="The decisions doc names the chosen option; the "
                            "dropped one only as dropped; every figure in it is from the thread.",
                            name=[chosen], exclude=[dropped]),
                facts_check("committed", None, text, subject=decision, violations_only=True,
                            require=[f"{decision}.budget", f"{ownership}.owner"],
                            description="No wrong or second budget, no other attendee as owner (what is left out "
                                        "only costs its points)."),
                allowed_changes("drive_file", "drive_permission", READ_MARKS),
            ],
            criteria=[
                facts_check("budget", 1, text, subject=decision, require=[f"{decision}.budget"],
                            description="The final budget cap (not the one asked for and refused)."),
                facts_check("owner", 1, text, require=[f"{ownership}.owner"], traceable=False,
                            description="The owner is recorded (full or unambiguous first name), and no other "
                            "attendee as owner."),
                ChangedCheck(id="changed_other_files", check="changed", points=-2, table="drive_file",
                             op="update", description="Someone else's file was changed or deleted.",
                             match={"owner_id": {"not": "user"}}),
                deleted_files(),
                shared_outside([p["id"] for p in (lead, second, third)]),
            ],
            solve=solve, variant=variant, max_steps=12, facts=sheet, traps=(
                f"the budget first asked for ({stage.money(budget * 1.2, cents=False)}) was refused: the cap is "
                f"{stage.money(budget, cents=False)}",
                *((f"{first_pick} was decided first, then fell through: {final_pick} is the choice",)
                  if variant == "reversed-decision" else
                  (f"{first_pick} was suggested and dropped: only as dropped, if at all",)),
                *((f"{first_owner['name']} was named owner, then handed it to {owner['name']}",)
                  if first_owner["id"] != owner["id"] else ()),
            ),
        )
