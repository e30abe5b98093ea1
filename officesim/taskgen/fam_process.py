"""Business processes carried across apps: the long-horizon families of the library's hard tier.

Each family here is a process a finance or operations colleague runs end to end (close the month's
receivables, onboard a vendor, handle an escalation, assemble a report pack, offboard a leaver):
several apps, an order of steps, and traps the instruction does not spell out (a superseded sheet,
a duplicate row, an invoice of next month, a near-duplicate account, a contact who left).  The hard
structures plant more rows than one result page and leave out the tools that would do the analysis.
This module holds ``month_end_close``; the others are ``fam_process_vendor`` (vendor_onboarding),
``fam_process_escalation`` (customer_escalation), ``fam_process_report`` (quarterly_report_pack) and
``fam_process_offboarding`` (rep_offboarding), one family per module to keep each readable; their
shared planting and solving helpers live in ``process_common``.
"""

from __future__ import annotations

import random
import re
from typing import Any

from officesim.grading import grader_spec as g
from officesim.taskgen.base import Draft, Family, Solver, Stage
from officesim.taskgen.common import MAIL_TABLES, first_name, mail_guards
from officesim.taskgen.factsheet import FactSheet, facts_check
from officesim.taskgen.process_common import (
    CLOSE_COLUMNS,
    all_pages,
    at,
    changes_allowed,
    hard_tools,
    home_currency,
    mail_to_user,
    plant_invoices,
    row_regex,
    shared_sheet_as,
    sheet_row,
    wrong_status_regex,
)

# ============================================================================ month_end_close
# How a reply tells an invoice's status, for the ``statuses_told`` gate: each corrected (or added)
# invoice gets an entity whose patterns name it only where the reply reports it with a status the CRM
# does not give ("INV-0309 paid->open", "INV-0973, INV-0335 -> open", "INV-0704: now paid", "Paid:
# INV-0704, ..."), and the gate excludes every such entity.  Where an invoice is told is read from its
# number to the end of its clause (the next invoice number, a sentence end, a "but"); the status it is
# given there is the last status word, less those marked as the old one ("was open", "from open", "the
# sheet had it open") or a count or a list ("10 open invoices", "off the open list").  A list of invoices
# before one status ("A, B and C -> paid") gives each of them that status; so does a status before a list
# ("marked paid: A, B").  A status under a heading ("Paid:" over bullets) is not read here (the
# changes_named criterion reads it).
STATUS_WORDS = {
    "paid": r"(?<!\bnot\s)(?<!\bnicht\s)(?:paid|settled|bezahlt|beglichen|payée?s?|réglée?s?)\b",
    "open": r"(?:re-?opened|open|unpaid|not\s+paid|offen|nicht\s+bezahlt|ouverte?s?|impayée?s?)\b(?!\s+(?:invoices?|"
            r"items?|rows?|ones?|balances?|amounts?|totals?|lists?|columns?|sections?|receivables|AR|Rechnungen|"
            r"Posten|Beträge|Liste|factures?)\b)",
    "void": r"(?:void|voided|cancell?ed|storniert|annulée?s?)\b",
}
_ANY_STATUS = r"\b(?:paid|settled|bezahlt|beglichen|payée?s?|réglée?s?|re-?opened|open|unpaid|offen|ouverte?s?|" \
              r"impayée?s?|void|voided|cancell?ed|storniert|annulée?s?)\b"
# right before a status word: it is the old status, or no status ("no longer open", "not paid" is told
# as open by the open words)
_OLD = "".join(f"(?<!\\b{w} )" for w in (
    "was", "were", "from", "had", "had it", "had it as", "had been", "showed", "shows", "said", "says", "listed as",
    "previously", "of", "instead of", "rather than", "no longer", "not", "war", "statt", "vorher", "bisher", "von",
    "was marked", "was marked as", "were marked", "was set to", "was still", "still said", "sheet:"))
_INVOICE = r"(?<![\w-])[A-Z]{2,5}-\d[\w-]*\d(?![\w-])"
_STOP = r"[.!?;](?!\d)|\n|\b(?:but|whereas|while|however|although|though|aber|jedoch|während|mais)\b"
_PAREN = r"(?:\s*\([^()]*\))?"
_JOIN = r"\s*(?:,|/|&|\band\b|\bund\b|\bet\b|\bplus\b)\s*(?:and\s+|und\s+)?"

_MONTHS = ("January|February|March|April|May|June|July|August|October|November|December|Januar|Februar|März|"
           "Juni|Juli|Oktober|Dezember|janvier|février|mars|avril|mai|juin|juillet|août|octobre|novembre|décembre")
# right before the outstanding total, words that say it is not the total, or another month's: "is definitely
# not $517,350", "Outstanding for August: $517,350" (only where a figure follows, so "$517,350 is not ..."
# after it and "as of October 7" are no such words)
NOT_THE_TOTAL = (r"(?:\b(?:is|was|are|ist|beträgt|est)\s+(?:(?:definitely|certainly|surely|really|actually|definitiv|"
                 r"sicher|bestimmt|sûrement)\s+)?(?:not|nicht|pas)\b|\b(?:isn't|wasn't|aren't|n'est\s+pas)|"
                 rf"\b(?:for|in|im|für|pour|en)\s+(?:{_MONTHS})\b(?!\s*\d))"
                 r"(?=\s*(?:[:=–—-]|is|was|ist|war|est)?\s*(?:USD|EUR|GBP|INR|Rs\.?|€|\$|£|₹)?\s*\d)")

# what sets an invoice named in a sentence aside: it is not part of what changed ("I also checked
# INV-0563: not included, it does not qualify"), so no status is told of it
LEFT_OUT = (r"(?i)\bnot\s+included\b|\bdo(?:es)?\s+not\s+qualify\b|\bleft\s+out\b|\bexcluded\b|"
            r"\bnicht\s+(?:enthalten|berücksichtigt|aufgenommen)\b")


def misreported(number: str, status: str) -> str:
    """A regex naming the invoice ``number`` (at its start, zero-width) where a text reports it with a
    status other than ``status`` (see ``STATUS_WORDS``)."""
    wrong = "|".join(f"(?:{w})" for s, w in STATUS_WORDS.items() if s != status)
    me = rf"(?<![\w-]){re.escape(number)}(?![\w-])"
    step = rf"(?:(?!{_INVOICE}|{_STOP})[\s\S])"
    old = rf"(?:\b(?:was|were|from|had(?:\s+it)?(?:\s+as)?|showed|said|says|previously|instead\s+of|no\s+longer|not|" \
          rf"war|statt|vorher|bisher)\s+(?:marked\s+(?:as\s+)?|set\s+to\s+)?{_ANY_STATUS})"
    tail = rf"(?:{old}|(?!{_INVOICE}|{_STOP}|{_ANY_STATUS})[\s\S])*"
    after = (rf"{me}{_PAREN}(?:{_JOIN}{_INVOICE}{_PAREN})*{step}{{0,160}}?{_OLD}\b(?:{wrong}){tail}"
             rf"(?:{_INVOICE}|{_STOP}|$)")
    # (the lookbehinds after the lookahead, which fails first almost everywhere: a text is read 6x faster)
    before = rf"\b(?=(?:{wrong})\s*[:–—]\s*(?:{_INVOICE}{_PAREN}{_JOIN})*{me}){_OLD}"
    return rf"(?i)(?={after})|{before}"


# A status as the heading of a list ("Paid:" over bullets, "## Now open", "Reopened (1):"): the reader gives
# the heading as the context of each line under it, and ``statuses_headed`` reads it there: each corrected or
# added invoice listed under a heading that is only a status the CRM does not give it (with "now", "marked",
# "invoices", a count) fails; a heading with both ("Open -> paid:", "Was open, now paid") or none ("Changes:")
# is no such heading.
HEADING_WORDS = {
    "paid": r"(?:paid|settled|bezahlt|beglichen|payée?s?|réglée?s?)",
    "open": r"(?:re-?opened|(?:still\s+)?(?:open|outstanding)|unpaid|not\s+paid|offen|nicht\s+bezahlt|ouvertes?|"
            r"impayées?)",
    "void": r"(?:void|voided|cancell?ed|storniert|annulée?s?)",
}
_HEAD_BEFORE = (r"(?:(?:now|marked(?:\s+as)?|set\s+to|changed\s+to|updated\s+to|corrected\s+to|moved\s+to|"
                r"new\s+status|status|jetzt|nun|désormais|maintenant)\s*:?\s*)?")
_HEAD_AFTER = (r"(?:\s+(?:now|invoices?|items?|in\s+(?:the\s+)?CRM|per\s+(?:the\s+)?CRM|Rechnungen|factures?))*"
               r"\s*(?:[*_]{1,2})?\s*(?:\(\d+\))?\s*:?(?:[*_]{1,2})?\s+")  # "**Open:**" as "**Open**:"


def headed_wrong(number: str, status: str) -> str:
    """A regex matching a segment (with its heading) that lists the invoice ``number`` under a heading giving
    it a status other than ``status``."""
    wrong = "|".join(w for s, w in HEADING_WORDS.items() if s != status)
    me = rf"(?<![\w-]){re.escape(number)}(?![\w-])"
    return rf"\s*(?:[*_]{{1,2}})?\s*{_HEAD_BEFORE}(?:{wrong})\b{_HEAD_AFTER}(?:(?!{_ANY_STATUS})[\s\S])*?{me}"


def headed_right(statuses: dict[str, str]) -> str:
    """``statuses_headed``'s ``excluded_if``: a segment is fine unless it lists an invoice of ``statuses``
    (number -> the CRM's status) under a wrong status heading, or it sets the invoice aside (``LEFT_OUT``)."""
    wrong = "|".join(f"(?:{headed_wrong(n, s)})" for n, s in statuses.items())
    return f"{LEFT_OUT.removeprefix('(?i)')}|^(?!{wrong})"


class MonthEndClose(Family):
    """Reconcile the month's receivables sheet against the CRM, fix and complete it, mail the controller."""

    name = "month_end_close"
    skills = ("reconciliation", "multi_step_process", "record_update", "exhaustive_search", "aggregation")
    category = "finance-process"
    difficulty = "hard"
    apps = ("mail", "drive", "crm")
    # status-fixes: a short sheet, a few stale statuses; void-and-missing: a voided invoice and CRM
    # invoices the sheet lacks; superseded: the controller rebuilt the sheet, the first one is stale;
    # next-month-duplicate: a long sheet with a duplicate row and an invoice of the next month;
    # full-close: a long sheet with every trap at once.
    variants = ("status-fixes", "void-and-missing", "superseded", "next-month-duplicate", "full-close")
    worlds = ("acme", "counsel", "forge", "carewell", "tiny")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        hard = variant in ("next-month-duplicate", "full-close")
        superseded = variant in ("superseded", "full-close")
        missing_n = 2 if variant in ("void-and-missing", "full-close") else (1 if hard else 0)
        void = variant != "status-fixes"
        stage.act_as("role:ap_specialist")
        controller = stage.person("role:controller")
        boss = first_name(controller["name"])
        currency = home_currency(stage)
        stage.clock(at(-40, 9))
        # the month's invoices: everything issued in September in the home currency is in the close
        planted = plant_invoices(stage, rng, 56 if hard else 11, currency=currency, month="2026-09",
                                 exclude_month_foreign=True)
        period = stage.rows("SELECT i.*, a.name AS account FROM crm_invoice i JOIN crm_account a ON a.id = "
                            "i.account_id WHERE i.issued_on LIKE '2026-09-%' AND i.currency = ? ORDER BY "
                            "i.issued_on, i.number", currency)
        period_numbers = [p["number"] for p in period]
        pool = [p for p in period if p["number"] in planted]
        picks = rng.sample(pool, 4 + missing_n + (1 if void else 0) + (1 if hard else 0))
        paid_late = picks[:3]             # CRM paid, the sheet still says open
        reopened = picks[3]               # CRM open, the sheet says paid (a bounced payment)
        missing = picks[4:4 + missing_n]  # in the CRM, not in the sheet
        rest = picks[4 + missing_n:]
        voided = rest[0] if void else None
        duplicated = rest[-1] if hard else None
        stage.clock(at(-3, 16))
        for p in paid_late:
            stage.update("crm_invoice", {"id": p["id"]}, {"status": "paid", "paid_on": "2026-10-02"})
            p["status"] = "paid"
        stage.update("crm_invoice", {"id": reopened["id"]}, {"status": "open", "paid_on": None})
        reopened["status"] = "open"
        if voided is not None:
            stage.update("crm_invoice", {"id": voided["id"]}, {"status": "void", "paid_on": None})
            voided["status"] = "void"
        sheet_status = {p["number"]: p["status"] for p in period}
        for p in paid_late:
            sheet_status[p["number"]] = "open"
        sheet_status[reopened["number"]] = "paid"
        if voided is not None:
            sheet_status[voided["number"]] = "open"
        october = None
        if hard:
            [number] = plant_invoices(stage, rng, 1, currency=currency, month="2026-10", status="open")
            october = stage.one("SELECT i.*, a.name AS account FROM crm_invoice i JOIN crm_account a ON "
                                "a.id = i.account_id WHERE i.number = ?", number)
        rows = [sheet_row(p, sheet_status[p["number"]]) for p in period if p not in missing]
        if duplicated is not None:
            rows.insert(rng.randrange(len(rows) // 2, len(rows)), sheet_row(duplicated, sheet_status[
                duplicated["number"]]))
        if october is not None:
            rows.append(sheet_row(october, "open"))
        sheet_name = "September 2026 AR close"
        old_id = None
        if superseded:
            stage.clock(at(-12, 10))
            stale = [sheet_row(p, "open" if p["status"] == "paid" and rng.random() < 0.4 else sheet_status[
                p["number"]]) for p in period if p not in missing]
            old_id = shared_sheet_as(stage, "role:controller", sheet_name, stale)
            mail_to_user(stage, "role:controller", "September AR close sheet",
                                   f"Hi,\n\nHere's the AR sheet for the September close: {sheet_name} (drive "
                                   f"file {old_id}). More soon.\n\n{first_name(controller['name'])}\n")
            sheet_name = "September 2026 AR close v2"
        stage.clock(at(-2, 17))
        live_id = shared_sheet_as(stage, "role:controller", sheet_name, rows)
        rebuilt = (" I rebuilt it after the bank-feed fix, so the earlier one is out of date." if superseded else "")
        request = mail_to_user(
            stage, "role:controller", "September close: receivables",
            f"Hi,\n\nThe receivables sheet for the September close is {sheet_name} (drive file {live_id})."
            f"{rebuilt} Could you check it against the CRM before I sign off: the statuses should match what the "
            "CRM says, and every September invoice we billed should be on it. Then send me what changed and "
            "what's still outstanding for September.\n\nThanks,\n"
            f"{first_name(controller['name'])}\n")
        stage.clock(at(0, 9))
        instruction = rng.choice([
            f"{boss} needs the receivables side of the September close done today; the details are in the mail. "
            "Can you take care of it?",
            f"Could you do the AR check {boss} asked for in the mail about the September close?",
            f"Please handle {controller['name']}'s request about the September receivables sheet and report back.",
            f"{boss} is waiting on the September AR reconciliation before signing off. Please do it and let "
            f"{boss} know how it came out.",
            f"The September receivables sheet needs checking against the CRM for {boss}; see their mail. Could you "
            "handle it?",
            f"Can you reconcile September's AR for {controller['name']} and reply with the result? It's all in "
            "the mail.",
        ])

        open_after = [p for p in period if p["status"] == "open"]
        outstanding = sum(p["amount"] for p in open_after)
        corrected = [*paid_late, reopened, *([voided] if voided else [])]
        status_of = {p["number"]: p["status"] for p in period}
        fixes: dict[str, list[int]] = {}
        for position, row in enumerate(rows, start=1):
            truth = status_of.get(str(row[0]))
            if truth is not None and truth != row[4]:
                fixes.setdefault(truth, []).append(position)

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query="September close")
            for message in found["messages"]:
                s.call("mail_get_message", message_id=message["id"])
            s.call("drive_get_file", file_id=live_id)
            all_pages(s, "drive_read_sheet", "rows", file_id=live_id, limit=50)
            all_pages(s, "crm_search_invoices", "invoices", limit=50)
            for status, positions in sorted(fixes.items()):
                s.call("drive_update_rows", file_id=live_id, row_numbers=positions,
                       values=[{"column": "Status", "value": status}])
            if missing:
                s.call("drive_append_rows", file_id=live_id, rows=[sheet_row(p, p["status"]) for p in missing])
            lines = [f"- {p['number']} ({p['account']}, {stage.money(p['amount'])}): now {p['status']} as in the "
                     "CRM" for p in corrected]
            lines += [f"- {p['number']} ({p['account']}, {stage.money(p['amount'])}): added, it was billed in "
                      f"September but missing from the sheet ({p['status']})" for p in missing]
            notes = []
            if october is not None:
                notes.append(f"{october['number']} is dated {october['issued_on']}, so it belongs to October and is "
                             "not counted in September.")
            if duplicated is not None:
                notes.append(f"{duplicated['number']} is listed twice on the sheet; I counted it once.")
            body = (f"Hi {boss},\n\nI checked {sheet_name} against the CRM. Changes:\n" + "\n".join(lines)
                    + f"\n\nStill outstanding for September: {stage.money(outstanding)} over {len(open_after)} open "
                    "invoices.\n" + ("\n" + "\n".join(notes) + "\n" if notes else "") + "\nBest")
            s.call("mail_reply_message", message_id=request["id"], body=body)

        sheet = FactSheet(sources=[f"sheet:{sheet_name}", "crm:crm_invoice"])
        close = sheet.entity("September", key="close", aliases=["outstanding", "September close"], kind="period")
        keys: dict[str, str] = {}
        for n, p in enumerate(period, start=1):
            keys[p["number"]] = sheet.entity(p["number"], key=f"invoice_{n}", kind="invoice")
            sheet.fact(keys[p["number"]], "amount", p["amount"])
        stale_total = sum(p["amount"] for p in period if p not in missing and sheet_status[p["number"]] == "open")
        wrong = [stale_total, outstanding - sum(p["amount"] for p in missing if p["status"] == "open")]
        if voided is not None:
            wrong.append(outstanding + voided["amount"])
        wrong.append(outstanding - reopened["amount"])
        wrong.append(outstanding + sum(p["amount"] for p in paid_late))
        if october is not None:
            keys[october["number"]] = sheet.entity(october["number"], key="next_month", kind="invoice")
            sheet.fact("next_month", "amount", october["amount"])
            wrong.append(outstanding + october["amount"])
        if duplicated is not None and duplicated["status"] == "open":
            wrong.append(outstanding + duplicated["amount"])
        sheet.fact(close, "outstanding", outstanding, wrong=wrong, tolerance=0.0005, contrary=NOT_THE_TOTAL)
        sheet.figure(*(p["amount"] for p in open_after), *(p["amount"] for p in corrected))
        controller_ref = ["role:controller"]
        # each corrected or added invoice, where the reply gives it a status the CRM does not
        told_wrong = [sheet.entity(f"{p['number']} told as not {p['status']}", key=f"misreported_{n}",
                                   patterns=[misreported(p["number"], p["status"])], kind="status")
                      for n, p in enumerate([*corrected, *missing], start=1)]
        named = [keys[p["number"]] for p in [*corrected, *missing]]
        expect_fixed = [{"Invoice": p["number"], "Amount": p["amount"], "Status": p["status"]}
                        for p in [*corrected, *missing]]
        intact = [dict(zip(CLOSE_COLUMNS, sheet_row(p, p["status"]), strict=True)) for p in period
                  if p not in corrected and p not in missing]
        live_sheet = stage.one("SELECT id FROM drive_sheet WHERE file_id = ?", live_id)["id"]
        known = [*period_numbers, *([october["number"]] if october else [])]
        gates: list[Any] = [
            g.SheetCellsCheck(id="statuses_fixed", check="sheet_cells", file=live_id, rows=expect_fixed,
                              description="Every invoice whose status disagreed with the CRM, and every September "
                                          "invoice the sheet lacked, now has the CRM's status on the sheet."),
            g.SheetCellsCheck(id="others_intact", check="sheet_cells", file=live_id, rows=intact,
                              description="Rows that already matched the CRM are as they were."),
            g.NoRecordCheck(id="no_invented_rows", check="no_record", table="drive_row",
                            match={"sheet_id": live_sheet, "cells": {"regex": row_regex(known)}},
                            description="No row was added that is not a real invoice of the CRM."),
            g.NoRecordCheck(id="no_wrong_status", check="no_record", table="drive_row",
                            match={"sheet_id": live_sheet, "cells": {"regex": wrong_status_regex(
                                {**status_of, **({october["number"]: "open"} if october else {})})}},
                            description="No row of the sheet (a duplicate included) has a status the CRM "
                                        "disagrees with."),
            facts_check("summary_sent", None, "sent_mail", to=controller_ref, trace_to="facts",
                        subject=close, wrong_anywhere=True,
                        exclude=[keys[october["number"]]] if october else [],
                        description="The controller got the September outstanding total (the "
                                    "CRM's open invoices of the month, each counted once, nothing "
                                    "from another month).", require=[f"{close}.outstanding"]),
            facts_check("statuses_told", None, "sent_mail", to=controller_ref, traceable=False,
                        violations_only=True, exclude=told_wrong, excluded_if=LEFT_OUT,
                        description="Every invoice the controller is told changed (or was added) is told "
                                    "with the status the CRM gives it, not the old one or another."),
            facts_check("statuses_headed", None, "sent_mail", to=controller_ref, traceable=False,
                        violations_only=True, exclude=named,
                        excluded_if=headed_right({p["number"]: p["status"] for p in [*corrected, *missing]}),
                        description="No invoice the controller is told changed (or was added) is listed under "
                                    "a heading giving a status the CRM does not ('Paid:' over bullets)."),
            changes_allowed("drive_row", {"drive_file": ["modified_at", "modified_by"]}, *MAIL_TABLES),
        ]
        criteria: list[Any] = [
            facts_check("changes_named", 2, "sent_mail", to=controller_ref, trace_to="facts",
                        violations_only=False, name=named,
                        description="The summary names every invoice that was corrected or "
                                    "added."),
            g.ChangedCheck(id="sheet_edited", check="changed", points=1, table="drive_row", op="any",
                           match={"sheet_id": live_sheet}, description="The live close sheet was edited."),
            *mail_guards(controller_ref, keep=[request["id"]]),
        ]
        if old_id is not None:
            old_sheet = stage.one("SELECT id FROM drive_sheet WHERE file_id = ?", old_id)["id"]
            criteria.append(g.ChangedCheck(id="stale_sheet_edited", check="changed", points=-2, table="drive_row",
                                           op="any", match={"sheet_id": old_sheet},
                                           description="The superseded close sheet was edited instead of (or "
                                                       "besides) the live one."))
        return Draft(
            instruction=instruction,
            tools=hard_tools(["mail", "drive", "crm"], hard, writes=["drive_update_rows", "drive_append_rows",
                                                                     "drive_delete_rows", "mail_send_message",
                                                                     "mail_reply_message"],
                             distractors=["mail", "drive", "crm"]),
            gates=gates, criteria=criteria, solve=solve, variant=variant, max_steps=40, facts=sheet,
            difficulty="hard" if hard else "medium", traps=self._traps(paid_late, reopened, missing, voided,
                                                                       duplicated, october, old_id),
        )

    @staticmethod
    def _traps(paid_late: list[dict[str, Any]], reopened: dict[str, Any], missing: list[dict[str, Any]],
               voided: dict[str, Any] | None, duplicated: dict[str, Any] | None, october: dict[str, Any] | None,
               old_id: str | None) -> list[str]:
        """What this close hides: the rows the sheet has wrong and what does not belong in the total."""
        traps = [f"{len(paid_late)} invoices the sheet shows open were paid in the CRM",
                 f"{reopened['number']} shows paid on the sheet but is open again in the CRM (a bounced payment)"]
        if missing:
            traps.append(f"{', '.join(p['number'] for p in missing)}: billed in September, missing from the sheet")
        if voided is not None:
            traps.append(f"{voided['number']} was voided in the CRM: it is not outstanding")
        if duplicated is not None:
            traps.append(f"{duplicated['number']} is listed twice on the sheet and counts once")
        if october is not None:
            traps.append(f"{october['number']} on the sheet was issued in October: not in September's total")
        if old_id is not None:
            traps.append("an earlier 'September 2026 AR close' sheet is superseded by v2")
        return traps

