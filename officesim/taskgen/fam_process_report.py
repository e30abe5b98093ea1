"""Quarterly report pack: gather the quarter's figures from sheets and the CRM into one doc for the execs.

The CFO wants the Q3 pack: revenue from the finance team's sheet, bookings (deals won in the
quarter) from the CRM, written into a new doc and shared with the exec team.  Traps the
instruction leaves out: a draft revenue sheet beside the final one, a deal won in another
currency (listed apart, never added), a deal won the day after the quarter, more won deals than
one result page.
"""

from __future__ import annotations

import random
from typing import Any

from officesim.grading import grader_spec as g
from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import (
    MAIL_TABLES,
    accounts,
    answer_tolerance,
    first_name,
    mail_guards,
    sales_people,
    shared_doc,
    shared_outside,
    shared_sheet,
)
from officesim.taskgen.factsheet import FactSheet, facts_check, seen_gate
from officesim.taskgen.process_common import all_pages, at, changes_allowed, hard_tools, home_currency, mail_to_user

MONTHS = (("July", "2026-07"), ("August", "2026-08"), ("September", "2026-09"))
PACK = "Q3 2026 exec pack"
# the words a German or French pack uses (the forge and lantern worlds): a pack that says "Umsatz", "Juli" or
# "chiffre d'affaires" states the same facts as one that says "revenue" and "July"
LOCAL_WORDS = {
    "revenue": ["Umsatz", "Umsätze", "Erlöse", "Umsatzerlöse", "chiffre d'affaires", "CA", "revenus", "recettes"],
    "bookings": ["Auftragseingang", "Auftragseingänge", "Buchungen", "gewonnene Deals", "gewonnene Aufträge",
                 "prises de commandes", "réservations", "affaires gagnées", "contrats gagnés", "commandes"],
    "July": ["Juli", "juillet", "Jul"], "August": ["août", "Aug"], "September": ["septembre", "Sept", "Sep"],
}
PRODUCTS = ("Platform expansion", "Analytics add-on", "Support upgrade", "Multi-year renewal", "Data connectors",
            "Seat top-up", "Training bundle", "Sandbox licence")


class QuarterlyReportPack(Family):
    """Build the Q3 exec pack doc from the final revenue sheet and the CRM's won deals; share it with the execs."""

    name = "quarterly_report_pack"
    skills = ("aggregation", "cross_app_join", "reconciliation", "access_control", "exhaustive_search")
    category = "reporting-process"
    difficulty = "hard"
    apps = ("mail", "drive", "crm")
    # final-only: one revenue sheet, a few won deals; draft-and-final: a draft sheet with other figures beside
    # the final one; foreign-deal: a deal won in another currency; long-quarter: more won deals than a page, one
    # won the day after the quarter, a draft sheet, the rules in a template doc; full-pack: all of them.
    variants = ("final-only", "draft-and-final", "foreign-deal", "long-quarter", "full-pack")
    worlds = ("acme", "forge", "counsel", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        hard = variant in ("long-quarter", "full-pack")
        draft = variant != "final-only" and variant != "foreign-deal"
        foreign = variant in ("foreign-deal", "full-pack")
        stage.act_as("role:ops_manager")
        cfo = stage.person("role:cfo")
        currency = home_currency(stage)
        other_currency = "EUR" if currency != "EUR" else "GBP"
        stage.clock(at(-60, 9))
        # the world's own won deals in another currency would be a trap nobody planted: move them out of Q3
        for row in stage.rows("SELECT id FROM crm_deal WHERE stage = 'closed_won' AND close_date BETWEEN "
                              "'2026-07-01' AND '2026-10-31' AND currency != ?", currency):
            stage.update("crm_deal", {"id": row["id"]}, {"close_date": "2026-06-20"})
        pool = accounts(stage)
        reps = sales_people(stage)
        planted = []
        for n in range(24 if hard else 4):
            account = rng.choice(pool)
            month = MONTHS[n % 3][1]
            name = f"{account['name']} - {rng.choice(PRODUCTS)} Q3-{n + 1}"
            planted.append({"account_id": account["id"], "name": name,
                            "stage": "closed_won", "amount": float(rng.randrange(8_000, 90_000, 500)),
                            "currency": currency, "close_date": f"{month}-{rng.randint(1, 28):02d}",
                            "owner_id": rng.choice(reps)["id"], "next_step": "", "updated_by": account["owner_id"]})
        late = foreign_deal = None
        if hard:
            account = rng.choice(pool)
            late = {"account_id": account["id"], "name": f"{account['name']} - {rng.choice(PRODUCTS)} (Oct)",
                    "stage": "closed_won", "amount": float(rng.randrange(20_000, 90_000, 500)), "currency": currency,
                    "close_date": "2026-10-01", "owner_id": rng.choice(reps)["id"], "next_step": "",
                    "updated_by": account["owner_id"]}
            planted.append(late)
        if foreign:
            account = rng.choice(pool)
            foreign_deal = {"account_id": account["id"], "name": f"{account['name']} - {rng.choice(PRODUCTS)} "
                            f"({other_currency})", "stage": "closed_won",
                            "amount": float(rng.randrange(20_000, 90_000, 500)), "currency": other_currency,
                            "close_date": "2026-08-14", "owner_id": rng.choice(reps)["id"], "next_step": "",
                            "updated_by": account["owner_id"]}
            planted.append(foreign_deal)
        stage.insert("crm_deal", planted)
        won = stage.rows("SELECT * FROM crm_deal WHERE stage = 'closed_won' AND close_date BETWEEN '2026-07-01' AND "
                         "'2026-09-30' AND currency = ? ORDER BY close_date, id", currency)
        bookings = sum(d["amount"] for d in won)
        # revenue never near a bookings figure (right or wrong), so no figure can be read as the other
        near = [bookings, *(bookings + d["amount"] for d in (late, foreign_deal) if d is not None)]
        while True:
            revenue = [float(rng.randrange(400_000, 1_400_000, 1_000)) for _ in MONTHS]
            if all(abs(sum(revenue) - figure) > 0.05 * figure for figure in near):
                break
        # the draft is before the month-end adjustments: every month lower, so its total is clearly another
        # figure and an exec pack may round ("$2.85M") without the draft's total ever reading as right
        drafted = [r - rng.randrange(20_000, 60_000, 1_000) for r in revenue]
        rows = [[label, r] for (label, _), r in zip(MONTHS, revenue, strict=True)]
        stage.clock(at(-9, 11))
        if draft:
            draft_id = shared_sheet_draft(stage, "Q3 2026 revenue - draft", [[m, r] for (m, _), r in
                                                                            zip(MONTHS, drafted, strict=True)])
            del draft_id
        stage.clock(at(-3, 16))
        final_id = shared_sheet_draft(stage, "Q3 2026 revenue - final", rows)
        rules = (f"All figures in {currency}. Bookings are deals won in the quarter (closed won, close date in "
                 f"July to September) in {currency}; a deal in another currency is listed on its own line, never "
                 "added to the total. Revenue comes from the final revenue sheet only.")
        template = None
        if hard:
            template = shared_doc(stage, "role:cfo", "Exec pack template",
                                  f"# Quarterly exec pack\n\n## Rules\n{rules}\n\n## Sections\n1. Revenue (total and "
                                  "per month)\n2. Bookings (total, number of deals)\n3. Notes\n")
        stage.clock(at(-1, 17))
        where = ("The rules are in the Exec pack template doc." if hard else rules)
        request = mail_to_user(stage, "role:cfo", "Q3 exec pack",
                               f"Hi,\n\nCould you put together the Q3 pack for the exec team? A doc called '{PACK}' "
                               "with Q3 revenue and Q3 bookings, shared with "
                               f"{stage.person('role:ceo')['name']} and {stage.person('role:head_of_sales')['name']} "
                               f"(and me). {where}\n\nThanks,\n{first_name(cfo['name'])}\n")
        stage.clock(at(0, 9))
        boss = first_name(cfo["name"])
        instruction = rng.choice([
            f"{boss} asked for the Q3 exec pack; can you build it?",
            f"Please prepare the quarterly pack {cfo['name']} wants for the execs.",
            f"Could you do the Q3 exec pack from {boss}'s mail today?",
            f"{boss} needs the Q3 numbers pack for the exec team. Please put it together and share it.",
            f"The execs want their Q3 pack and {boss} asked me to prepare it. Could you take that on?",
            f"Please build the Q3 pack for the exec team that {cfo['name']} mailed about, and share it as asked.",
        ])
        total_revenue = sum(revenue)

        def solve(s: Solver) -> None:
            s.call("mail_search_messages", query="Q3 exec pack")
            s.call("mail_get_message", message_id=request["id"])
            if template is not None:
                s.call("drive_get_doc", file_id=template)
            s.call("drive_search_files", query="Q3 2026 revenue", kind="sheet")
            s.call("drive_get_file", file_id=final_id)
            s.call("drive_read_sheet", file_id=final_id)
            all_pages(s, "crm_search_deals", "deals", stage="closed_won", close_after="2026-07-01",
                      close_before="2026-09-30", limit=20)
            month_lines = "\n".join(f"- {m}: {stage.money(r, cents=False)}" for (m, _), r in
                                    zip(MONTHS, revenue, strict=True))
            notes = []
            if foreign_deal is not None:
                notes.append(f"- {foreign_deal['name']} was won in {other_currency} "
                             f"({foreign_deal['amount']:,.0f} {other_currency}); listed apart, not in the total.")
            if late is not None:
                notes.append(f"- {late['name']} closed on 2026-10-01, so it counts in Q4.")
            content = (f"# {PACK}\n\n## Revenue\nQ3 revenue: {stage.money(total_revenue, cents=False)}\n{month_lines}"
                       f"\n\n## Bookings\nQ3 bookings: {stage.money(bookings, cents=False)} over {len(won)} won "
                       "deals.\n" + ("\n## Notes\n" + "\n".join(notes) + "\n" if notes else ""))
            doc = s.call("drive_create_doc", name=PACK, content=content)["id"]
            for role in ("role:ceo", "role:head_of_sales", "role:cfo"):
                s.call("drive_share_file", file_id=doc, person=stage.person(role)["email"], role="viewer")
            s.call("mail_reply_message", message_id=request["id"], body=f"Hi {boss},\n\nThe pack is ready and "
                   f"shared: {PACK} (drive file {doc}).\n\nBest")

        sheet = FactSheet(sources=["sheet:Q3 2026 revenue - final"])
        q3 = sheet.entity("Q3", key="quarter", aliases=["Q3 2026", "quarter"], kind="period")
        rev = sheet.entity("revenue", key="revenue", aliases=["Revenue", *LOCAL_WORDS["revenue"]], kind="metric")
        book = sheet.entity("bookings", key="bookings", aliases=["Bookings", "won deals", "deals won",
                                                                  *LOCAL_WORDS["bookings"]], kind="metric")
        draft_wrong = [sum(drafted)] if draft else []
        sheet.fact(rev, "total", total_revenue, wrong=draft_wrong,
                   tolerance=answer_tolerance(total_revenue, draft_wrong))
        wrong = [bookings + late["amount"]] if late else []
        if foreign_deal is not None:
            wrong.append(bookings + foreign_deal["amount"])
        sheet.fact(book, "total", bookings, wrong=wrong, tolerance=answer_tolerance(bookings, wrong))
        for (label, _), value in zip(MONTHS, revenue, strict=True):
            sheet.fact(sheet.entity(label, key=label.lower(), aliases=LOCAL_WORDS[label], kind="month"), "revenue",
                       value)
        sheet.figure(*(d["amount"] for d in won), *( [foreign_deal["amount"]] if foreign_deal else []),
                     *([late["amount"]] if late else []))
        del q3
        execs = ["role:ceo", "role:head_of_sales"]
        # the files the user could share before the episode: a share with the execs must be of a new file,
        # and the pack is the only new doc, so the execs got the pack (not a namesake or an old file)
        existing = [r["id"] for r in stage.rows(
            "SELECT DISTINCT f.id FROM drive_file f LEFT JOIN drive_permission p ON p.file_id = f.id WHERE "
            "f.owner_id = ? OR (p.person_id = ? AND p.role = 'editor') ORDER BY f.id", stage.world.user["id"],
            stage.world.user["id"])]
        gates: list[Any] = [
            seen_gate(),  # the sheets and the CRM were read in this episode, not the pack remembered
            facts_check("pack_figures", None, f"doc:{PACK}", trace_to="facts", wrong_anywhere=True,
                        require=[f"{rev}.total", f"{book}.total"],
                        description="The pack gives Q3 revenue from the final sheet and Q3 bookings "
                                    "(won in the quarter, in the home currency)."),
            *(g.ChangedCheck(id=f"shared_{r.split(':')[1]}", check="changed", table="drive_permission", op="any",
                             match={"person_id": r, "role": {"in": ["viewer", "editor"]},
                                    "file_id": {"not_in": existing}},
                             description=f"The pack is shared with {r.split(':')[1]}.") for r in execs),
            g.NoRecordCheck(id="one_new_doc", check="no_record", table="drive_file",
                            match={"owner_id": "user", "trashed": False, "id": {"not_in": existing},
                                   "kind": {"in": ["doc", "sheet"]}, "name": {"not": PACK}},
                            description="The pack is the only new file (no second doc of the figures)."),
            # the mail is read too (the reply to the CFO, a note to the execs): a wrong or second revenue or bookings
            # figure in it fails even where the doc is right; a mail giving no figure, or no mail at all, is fine
            # (violations only, silent ok)
            facts_check("reply_right", None, "sent_mail", require=[f"{rev}.total", f"{book}.total"],
                        violations_only=True, silent_ok=True, traceable=False,
                        description="No revenue or bookings figure in a mail sent (the reply to the CFO) is wrong."),
            changes_allowed("drive_file", "drive_permission", *MAIL_TABLES),
        ]
        criteria: list[Any] = [
            g.DocContainsCheck(id="pack_named", check="doc_contains", points=1, file=PACK, contains=["Q3"],
                               description="The doc is named as asked and says which quarter it covers."),
            shared_outside([*execs, "role:cfo", "user"]),
            *mail_guards(["role:cfo", *execs], keep=[request["id"]]),
        ]
        return Draft(
            instruction=instruction,
            tools=hard_tools(["mail", "drive", "crm"], hard,
                             writes=["drive_create_doc", "drive_update_doc", "drive_share_file", "mail_send_message",
                                     "mail_reply_message"], distractors=["mail", "drive", "crm"]),
            gates=gates, criteria=criteria, solve=solve, variant=variant, max_steps=40, facts=sheet,
            difficulty="hard" if hard else "medium", traps=[
                *(["'Q3 2026 revenue - draft' predates the month-end adjustments: revenue comes from the final "
                   "sheet"] if draft else []),
                *([f"'{foreign_deal['name']}' was won in {other_currency}: listed apart, not in the bookings total"]
                  if foreign_deal else []),
                *([f"'{late['name']}' closed on 2026-10-01: a Q4 booking"] if late else []),
                *([f"{len(won)} won deals span more than one page of the CRM"] if hard else [])],
        )


def shared_sheet_draft(stage: Stage, name: str, rows: list[list[Any]]) -> str:
    """A revenue sheet the controller keeps (Month, Revenue), shared with the acting user to read."""
    return shared_sheet(stage, "role:controller", name, ["Month", "Revenue"], ["text", "number"], rows)
