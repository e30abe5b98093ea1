"""The flagship finance task: the quarterly travel-expense report for the CFO, from a Drive sheet,
approvals in chat and receipts in mail, delivered as an attached Drive doc."""

from __future__ import annotations

import random
import re
from datetime import date
from typing import Any

from officesim.grading.mail_checks import MailSentCheck
from officesim.grading.record_checks import ChangedCheck
from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import (
    MAIL_TABLES,
    allowed_changes,
    colleague_mail,
    day,
    deleted_files,
    ensure_channel,
    first_name,
    judge,
    mail_guards,
    outside_mail,
    post,
    shared_outside,
    shared_sheet,
    stamp,
    toolset,
)
from officesim.taskgen.factsheet import CHANGE_WORDS, FactSheet, facts_check, key_of, picked_check, seen_gate

CATEGORIES = {"Airfare": (280, 1400), "Hotel": (180, 1100), "Meals": (40, 260), "Ground transport": (25, 180)}
CITIES = ["Chicago", "London", "Austin", "Toronto", "Boston", "Denver", "Singapore", "Berlin"]
# variant -> departments that travel this quarter (the first one travels most)
SCENARIOS = {
    "sales-heavy": ["Sales", "Customer Success", "Marketing", "Executive"],
    "engineering-offsite": ["Engineering", "Sales", "Operations", "Finance"],
    "customer-visits": ["Customer Success", "Sales", "Engineering", "Marketing"],
    "conference-season": ["Marketing", "Sales", "Executive", "Engineering"],
    "board-travel": ["Executive", "Finance", "Sales", "Legal"],
}
REPORT = "Q3 2026 Travel Expense Report"
SHEET = "Q3 2026 Travel Expenses"
Q2_SHEET = "Q2 2026 Travel Summary"
# the words that tell a figure as one quarter's (not entity names: "## Sales" over "Q3: $870.33" still names Sales)
Q3_LABEL = r"\bQ3\b|\bthird\s+quarter\b|\bthis\s+quarter\b|\bcurrent\s+quarter\b"
Q2_LABEL = r"\bQ2\b|\bsecond\s+quarter\b|\b(?:last|previous|prior|preceding)\s+quarter\b|\bquarter\s+before\b"
TOTAL_ALIASES = ["total spend", "total Q3", "Q3 total", "overall", "in total", "grand total", "total travel",
                 "total for Q3", "total for the quarter", "quarter's total"]
# what keeps an expense off the unsigned list: the usual markers ("not", "no") are the list's own words
SIGNED_OFF = (r"(?<!no\s)(?<!not\s)\b(?:approved|signed off)\b|\bnot a gap\b|"
              r"\bnot (?:flagged|missing|unsigned|a problem|included)\b|\bdo(?:es)? not qualify\b|\bexcluded\b|"
              r"\bleft out\b|\bnear[\s-]?miss")
# A mail that says the expenses without sign-off were approved ("I've also approved the 3 expenses that had
# no sign-off, so nothing is outstanding now") reports an approval nobody gave: the user approves nothing.
# First person, or the flagged ones said to be approved now; the request retold, a quote, a denial or a
# recommendation ("please approve them", "they should be approved") are not it.
_APPROVE = r"(?:approved|signed[\s-]+(?:them\s+|it\s+|those\s+|these\s+)?off|signed)"
_FIRST_PERSON = (rf"\b(?:I|we)(?:'ve|\s+have)?\s+(?:(?:already|now|also|just|since|gone\s+ahead\s+and|"
                 rf"went\s+ahead\s+and)\s+)*{_APPROVE}\b(?!\s+(?:nothing|none|anything|no\b))")
_FLAGGED = (r"\b(?:they|these|those|(?:all|the|these|those)\s+(?!other\b|remaining\b|rest\b)(?:(?!other\b|remaining\b)"
            r"\w+\s+){0,3}?(?:expenses|items|ones|claims|receipts)|all\s+(?:three|two|3|2)|everything(?!\s+else))")
APPROVED_PATTERNS = [
    rf"(?i){_FIRST_PERSON}",
    rf"(?i){_FLAGGED}[^.;\n]{{0,40}}?(?:(?:\s+are|'re|\s+is)\s+(?:now\s+|all\s+|also\s+)+|"
    rf"(?:\s+have|'ve|\s+has)\s+(?:now\s+|all\s+|since\s+|also\s+)*been\s+){_APPROVE}",
    rf"(?i){_FLAGGED}[^.;\n]{{0,40}}?(?:\s+are|'re|\s+is)\s+(?:all\s+)?{_APPROVE}\s+now\b",
    r"(?i)\bnothing(?:\s+is|'s)?\s+(?:now\s+|still\s+|left\s+)*(?:outstanding|unsigned|unapproved)\b|"
    r"\bno\s+longer\s+(?:outstanding|unsigned|unapproved)\b|\bnothing\s+(?:left\s+)?to\s+(?:approve|sign)\b",
]


def approved_by_id(receipts: list[str]) -> str:
    """The unsigned expenses, by their ids, said to be approved ("R-7960, R-3247 and R-6355 are approved now").
    The match starts right after an id (a fixed-width lookbehind): a pattern overlapping a name the text gives
    is dropped, and the ids are names here."""
    after = "|".join(f"(?<={re.escape(r)})" for r in receipts)
    return (rf"(?i)(?:{after})(?:\s*\([^)\n]{{0,30}}\))?(?:\s+(?:are|is|were|was)|'re|'s|\s+(?:have|has)\s+been)\s+"
            rf"(?:now\s+|all\s+|also\s+|since\s+|just\s+)*{_APPROVE}\b")


# where such words retell the request, quote it, deny the approval or ask for it (a sentence that says
# "I've approved ..." is never excused by them)
NOT_APPROVED = (rf"(?is)^(?!.*{_FIRST_PERSON}).*(?:^\s*>|\b(?:asks?|asked|asking|wants?|wanted|requested|"
                r"please|should|must|needs?|needed|require[sd]?|recommend\w*|suggest\w*|could\s+you|can\s+you|"
                r"would\s+you|ought|pending|await\w*|chase|follow(?:ing)?\s+up|once|until|before|if|unless|whether|"
                r"apart\s+from|except|other\s+than|besides|aside\s+from|beyond|else)\b|"
                r"\bfor\s+(?:your\s+|their\s+|manager\s+)?(?:approval|sign[\s-]?off)\b|"
                r"\bto\s+be\s+(?:approved|signed)\b|"
                r"(?:\bnot\b|n't\b|\bnever\b|\bnobody\b|\bno\s+one\b)\s+(?:\w+\s+){0,3}?(?:approv|sign))")


def _travellers(stage: Stage, department: str, user_id: str) -> list[dict[str, Any]]:
    return stage.rows(
        "SELECT p.* FROM directory_person p JOIN directory_department d ON d.id = p.department_id "
        "WHERE d.name = ? AND p.manager_id IS NOT NULL AND p.id != ? ORDER BY CAST(substr(p.id, 3) AS INTEGER)",
        department, user_id)


class TravelExpenseReport(Family):
    """Prepare the Q3 travel-expense report for the CFO: total, by department, vs Q2, unsigned items."""

    name = "travel_expense_report"
    skills = ("aggregation", "cross_app_join", "policy_application", "communication")
    category = "finance-reporting"
    difficulty = "medium"  # 3-7 reference calls: below the hard bar (>= 12 calls, unstated traps, paging)
    apps = ("drive", "chat", "mail")
    variants = tuple(SCENARIOS)
    worlds = ("acme", "counsel", "carewell")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        stage.act_as("role:ops_manager")
        user = stage.world.user
        stage.clock(stamp(date(2026, 7, 1), 8, 0))
        departments = [name for d in SCENARIOS[variant]
                       if len(_travellers(stage, name := stage.department(d), user["id"])) >= 2]
        weights = [5, 3, 2, 1][: len(departments)]
        # a flagged (or chat-approved) expense's amount is written beside its traveller's department: were it
        # within a rounding of some department's figure, the grader would read it as that department's
        # figure stated with the wrong one ('Dalbir Ratta (Executive): hotel, 777.16' against Patient
        # Experience's 777.33), so such draws are drawn again
        for _attempt in range(50):
            rows: list[dict[str, Any]] = []
            receipt_numbers = rng.sample(range(1000, 9999), 18)
            for n in range(rng.randint(14, 18)):
                department = rng.choices(departments, weights)[0]
                person = rng.choice(_travellers(stage, department, user["id"]))
                category = rng.choice(list(CATEGORIES))
                low, high = CATEGORIES[category]
                rows.append({"date": date.fromordinal(date(2026, 7, 1).toordinal() + rng.randint(0, 90)),
                             "person": person, "department": department, "category": category,
                             "amount": round(rng.uniform(low, high), 2), "city": rng.choice(CITIES),
                             "receipt": f"R-{receipt_numbers[n]}", "approver": stage.person(person["manager_id"])})
            rows.sort(key=lambda r: (r["date"], r["receipt"]))
            unsigned = rng.sample(range(len(rows)), rng.choice([2, 3]))
            for position in unsigned:
                rows[position]["approver"] = None
            # signed off in #travel-approvals but blank in the sheet: the chat approvals decide
            late = rng.choice([i for i in range(len(rows)) if i not in unsigned])
            q3 = {d: round(sum(r["amount"] for r in rows if r["department"] == d), 2) for d in departments}
            total = round(sum(q3.values()), 2)
            jump = max(departments, key=lambda d: q3[d])
            q2 = {d: round(q3[d] * (rng.uniform(0.35, 0.55) if d == jump else rng.uniform(0.85, 1.15)), -1)
                  for d in departments}
            # the report's figures other than each department's own (its own may equal the amount)
            figures = {d: [v for o in departments if o != d for v in (q3[o], q2[o], round(q3[o] - q2[o], 2))]
                       for d in departments}
            if not any(abs(rows[p]["amount"] - f) <= 0.005 * f for p in [*unsigned, late]
                       for f in [total, *figures[rows[p]["department"]]]):
                break
        # travel-approvals: each signed-off expense was approved by the traveller's manager
        approvers = dict.fromkeys(r["approver"]["id"] for r in rows if r["approver"])
        channel = ensure_channel(stage, "travel-approvals", ["role:travel_coordinator", "user", *approvers])
        for row in rows:
            if row["approver"] is None:
                continue
            stage.clock(stamp(row["date"], 15, 10))
            post(stage, row["approver"]["id"], channel,
                 f"Approved: {row['person']['name']}'s {row['category'].lower()} for the {row['city']} trip, "
                 f"{stage.money(row['amount'])} (receipt {row['receipt']}).")
        stage.clock(stamp(date(2026, 10, 1), 10, 0))
        for old in stage.rows("SELECT id, owner_id FROM drive_file WHERE name = ? COLLATE NOCASE AND trashed = 0",
                              SHEET):
            stage.act(old["owner_id"], "drive_delete_file", file_id=old["id"])  # the old export is retired
        sheet_rows = [[r["date"].isoformat(), r["person"]["name"], r["department"], r["category"], r["amount"],
                       r["approver"]["name"] if r["approver"] and i != late else "", r["receipt"]]
                      for i, r in enumerate(rows)]
        sheet_id = shared_sheet(stage, "role:travel_coordinator", SHEET,
                                ["Date", "Employee", "Department", "Category", "Amount", "Approved by", "Receipt ID"],
                                ["date", "text", "text", "text", "number", "text", "text"], sheet_rows)
        q2_id = shared_sheet(stage, "role:travel_coordinator", Q2_SHEET, ["Department", "Total"],
                             ["text", "number"], [[d, q2[d]] for d in departments])
        for row in rng.sample(rows, 4):
            outside_mail(stage, sender="receipts@travelwise.test", sender_name="TravelWise Bookings", to=["user"],
                         subject=f"Your receipt {row['receipt']}",
                         body=f"Receipt {row['receipt']}\nTraveller: {row['person']['name']}\n{row['category']}, "
                              f"{row['city']}\nAmount: {stage.money(row['amount'])}\n"
                              f"Date: {row['date'].isoformat()}\n\n"
                              "Thank you for booking with TravelWise.\n",
                         at=stamp(row["date"], 18, 30))
        stage.clock(stamp(day(0), 7, 55))
        cfo = stage.person("role:cfo")
        request = colleague_mail(stage, "role:cfo", ["user"], "Q3 travel-expense report",
                       f"Hi {first_name(user['name'])},\n\nCould you prepare the Q3 travel-expense report for me? I "
                       "need the total travel spend, a breakdown by department, how it compares with Q2 (and what "
                       "drove the biggest change), and please flag anything that went through without sign-off "
                       "(the sheet's 'Approved by' column lags behind: managers approve in #travel-approvals). "
                       "One page is plenty.\n\nThanks,\n" + first_name(cfo["name"]) + "\n")
        stage.clock(stamp(day(0), 9, 0))
        cfo_first = first_name(cfo["name"])
        instruction = rng.choice([
            f"{cfo_first} asked me for the Q3 travel-expense report (the request is in my inbox). Please prepare it "
            f"as a Drive doc called '{REPORT}' and mail it to {cfo_first} with the doc attached.",
            f"Please put together the Q3 travel-expense report our CFO asked for this morning. Write it up in a new "
            f"doc named '{REPORT}' and send it to {cfo_first} with the doc attached.",
            f"Could you handle {cfo_first}'s mail about the Q3 travel report? Everything they want should go in a "
            f"doc titled '{REPORT}', attached to a mail to {cfo_first}.",
            f"{cfo_first} is waiting on the quarter's travel numbers (see their mail from this morning). Draft "
            f"'{REPORT}' in Drive with what they asked for and mail it over as an attachment.",
            f"Please do the Q3 travel-expense write-up for our CFO: read what {cfo_first} asked for in the mail, "
            f"build the report as a new doc '{REPORT}' from the expense sheets and chat approvals, and send it to "
            f"{cfo_first} with the doc attached.",
            f"Finance needs the Q3 travel-expense report today. {cfo_first}'s request is in my inbox; make a doc "
            f"called '{REPORT}' that answers it and email {cfo_first} with it attached. Nobody else needs a copy.",
            f"I owe {cfo_first} the Q3 travel report. Can you pull it together from Drive and #travel-approvals, save "
            f"it as '{REPORT}' and send {cfo_first} a short mail with the doc attached?",
        ])
        lines_unsigned = [rows[p] for p in sorted(unsigned)]

        def solve(s: Solver) -> None:
            s.call("mail_search_messages", query="travel-expense report")
            s.call("drive_search_files", query="Travel")
            s.call("drive_read_sheet", file_id=sheet_id)
            s.call("drive_read_sheet", file_id=q2_id)
            s.call("chat_list_messages", channel=channel, limit=100)
            breakdown = "\n".join(f"| {d} | {stage.money(q3[d])} | {stage.money(q2[d])} |" for d in departments)
            flagged = "\n".join(f"- {r['person']['name']} ({r['department']}), {r['category'].lower()} "
                                f"{stage.money(r['amount'])} on {r['date'].isoformat()}, receipt {r['receipt']}: no "
                                "approver in the sheet and no approval in #travel-approvals" for r in lines_unsigned)
            change = q3[jump] - q2[jump]
            signed = rows[late]
            content = (f"# {REPORT}\n\nTotal Q3 travel spend: {stage.money(total)} "
                       f"(Q2: {stage.money(sum(q2.values()))}).\n\n"
                       f"| Department | Q3 | Q2 |\n|---|---|---|\n{breakdown}\n\nBiggest change: {jump}, up "
                       f"{stage.money(change)} on Q2, driven by more trips this quarter.\n\n"
                       f"Without sign-off:\n{flagged}\n\n"
                       f"Not a gap: receipt {signed['receipt']} is blank in the sheet but was approved in "
                       "#travel-approvals.\n")
            doc = s.call("drive_create_doc", name=REPORT, content=content)
            s.call("mail_send_message", to=[cfo["email"]], subject=REPORT,
                   body=f"Hi {first_name(cfo['name'])},\n\nThe Q3 travel-expense report is attached. Total travel "
                        f"spend was {stage.money(total)}; {len(lines_unsigned)} expenses went through without sign-off "
                        "(details in the doc).\n\nBest", attachments=[doc["id"]])

        facts = FactSheet(sources=[f"sheet:{SHEET}", f"sheet:{Q2_SHEET}"])
        # the total is the quarter's figure like each department's (attribute q3): a department's figure
        # written as the total, or the total as a department's, is a swap; "Sales total" names no total
        report = facts.entity("total travel spend", key="report", aliases=TOTAL_ALIASES)
        # Q2's total is the report's too, each told by its quarter ("Q3 ... $7,614.19 (Q2: $5,740.00)"): the
        # two written under each other's label is a swap; headings and department lines are left alone (a
        # label names no entity)
        facts.fact(report, "q3", total, wrong=[*(total - r["amount"] for r in lines_unsigned),
                                                  round(total - sum(r["amount"] for r in lines_unsigned), 2)],
                   label=Q3_LABEL)
        facts.fact(report, "q2", round(sum(q2.values()), 2), label=Q2_LABEL)
        facts.figure(sum(q2.values()))
        keys = {d: facts.entity(d, kind="department") for d in departments}
        for d in departments:
            facts.fact(keys[d], "q3", q3[d])
            facts.fact(keys[d], "q2", q2[d])
            facts.fact(keys[d], "change", round(q3[d] - q2[d], 2))
        once = [r["person"]["name"] for r in lines_unsigned]
        flagged_keys = []
        for r in lines_unsigned:
            aliases = [r["person"]["name"]] if once.count(r["person"]["name"]) == 1 else []
            flagged_keys.append(facts.entity(r["receipt"], key=key_of(r["receipt"]), aliases=aliases, kind="expense"))
            facts.fact(flagged_keys[-1], "amount", r["amount"])
        late_key = facts.entity(rows[late]["receipt"], key=key_of(rows[late]["receipt"]), kind="expense")
        facts.fact(late_key, "amount", rows[late]["amount"])
        approved = facts.entity("I've approved the expenses without sign-off", key="approved", kind="outcome",
                                patterns=[*APPROVED_PATTERNS, approved_by_id([r["receipt"] for r in lines_unsigned])])
        cfo_attachment: dict[str, Any] = {"text": "attachments", "to": ["role:cfo"]}
        breakdown = [f"{keys[d]}.q3" for d in departments]
        flagged = [f"{k}.amount" for k in flagged_keys]
        comparison = [f"{keys[jump]}.q2", f"{keys[jump]}.change"]
        return Draft(
            instruction=instruction,
            tools=toolset(["drive", "chat", "mail"], writes=["drive_create_doc", "drive_update_doc",
                                                             "mail_send_message", "drive_share_file"],
                          distractors=["mail", "chat", "drive"]),
            gates=[
                seen_gate(),  # the sheets were read in this episode, not the report remembered from another one
                MailSentCheck(id="mailed_cfo", check="mail_sent", to=["role:cfo"], attachments=[REPORT],
                              description="The CFO (only) got the report with the doc attached."),
                facts_check("total", None, **cfo_attachment, subject=report, require=[f"{report}.q3"],
                            wrong_anywhere=True,
                            description="The doc attached to the CFO's mail states the Q3 total, and every figure "
                                        "in it traces to the sheets."),
                # the covering mail is read with the doc: a second total in its body is a second reading
                facts_check("one_total", None, "sent_mail", to=["role:cfo"], subject=report,
                            require=[f"{report}.q3"], wrong_anywhere=True, violations_only=True,
                            description="What the CFO got (the mail and the doc attached) gives one reading of "
                                        "the Q3 total, and every figure in the mail traces to the sheets."),
                # what the CFO asked for is the core: judged points must not make up for a missing part
                facts_check("report_core", None, **cfo_attachment,
                            description="The attached report gives each department's Q3 total and compares the "
                                        "department that changed most with Q2.",
                            require=breakdown, name=[keys[jump]], require_any=[comparison]),
                # the comparison crowns the department that changed most, not another one beside its figures
                *(picked_check(check_id, text, to=["role:cfo"], name=keys[jump], options=keys.values(),
                               dimension=CHANGE_WORDS, description=f"{where} says of no other department that "
                               "it changed most (or had the biggest jump).")
                  for check_id, text, where in (("picked", "attachments", "The report"),
                                                ("picked_mail", "sent_mail", "The mail to the CFO"))),
                facts_check("unsigned_core", None, "sent_mail", to=["role:cfo"],
                            description="What the CFO got flags each expense without sign-off with its amount, "
                                        "and not the one approved in chat.",
                            require=flagged, exclude=[late_key], excluded_if=SIGNED_OFF),
                facts_check("not_approved", None, "sent_mail", to=["role:cfo"], exclude=[approved],
                            excluded_if=NOT_APPROVED, traceable=False,
                            description="What the CFO got does not say the expenses without sign-off were "
                                        "approved (nobody approved them)."),
                allowed_changes("drive_file", "drive_permission", "drive_sheet", "drive_row", *MAIL_TABLES),
            ],
            criteria=[
                facts_check("department_breakdown", 2, **cfo_attachment,
                            description="Each department's Q3 total, stated with the department.",
                            require=breakdown),
                facts_check("flags_unsigned", 3, "sent_mail", to=["role:cfo"],
                            description="Flags each expense without sign-off (blank 'Approved by' and no approval "
                                        "in chat) with its amount; one approved in chat is not flagged.",
                            require=flagged, exclude=[late_key],
                            excluded_if=SIGNED_OFF),
                facts_check("q2_comparison", 2, **cfo_attachment,
                            description="Compares the department that changed most with its Q2 figure.",
                            name=[keys[jump]], require_any=[comparison]),
                judge("explains_change", 1, "explains_biggest_change", [f"doc:{REPORT}"], [f"sheet:{SHEET}",
                                                                                           f"sheet:{Q2_SHEET}"],
                      "Explains what drove the biggest change (quality, on top of the figures)."),
                judge("one_page", 1, "executive_one_page", [f"doc:{REPORT}"],
                      description="One page an executive can read."),
                ChangedCheck(id="edited_others_files", check="changed", points=-3, table="drive_file",
                             op="update",
                             description="Someone else's file (the source sheets included) was changed or deleted.",
                             match={"owner_id": {"not": "user"}}),
                deleted_files(),
                shared_outside(["role:cfo"]),
                ChangedCheck(id="edited_rows", check="changed", points=-3, table="drive_row", op="any",
                             description="Rows of the source sheets were changed.",
                             match={"sheet_id": {"in": _sheet_ids(stage, [sheet_id, q2_id])}}),
                *mail_guards(["role:cfo"], keep=[request["id"]]),
            ],
            # the rubric said -2 for mailing anyone else; with the figures now checked by code
            # (7 points), -2 would leave a report mailed to everyone at 0.71, so it weighs all points
            solve=solve, variant=variant, max_steps=40, facts=facts,
            traps=(f"receipt {rows[late]['receipt']} is blank under 'Approved by' but was approved in "
                   "#travel-approvals: not unsigned",
                   "the total is every Q3 expense, the unsigned ones included"),
        )


def _sheet_ids(stage: Stage, file_ids: list[str]) -> list[str]:
    marks = ",".join("?" * len(file_ids))
    return [r["id"] for r in stage.rows(f"SELECT id FROM drive_sheet WHERE file_id IN ({marks}) ORDER BY id",
                                        *file_ids)]
