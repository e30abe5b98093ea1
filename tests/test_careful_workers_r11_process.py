"""Round 11 of the audit: which invoices changed and how (month_end_close), and which purchase was
entered and which refused (decline_against_policy).

month_end_close: the reply to the controller must give each corrected (or added) invoice the status the
CRM gives it (``statuses_told``): every change told the wrong way round ("paid->open"), the voided invoice
reported paid, a list of paid invoices reported open, all fail; so does a total told as not the total or
as another month's (``summary_sent``).  Careful layouts pass: arrows, "now paid", lists, tables, "marked
paid: A, B; reopened: C", bullets under a "Paid:" heading, German.

decline_against_policy: the requester's reply must refuse the stopped request and no allowed one
(``declined_with_reason``: an allowed request named as refused fails, also by its vendor's short name),
and must not report the stopped request entered (``stopped_not_claimed``; ``owner_told`` for the mail
to the rule's owner).  The allowed requests may be named as "in the Purchase requests sheet".
"""

from __future__ import annotations

import pytest
from test_redteam_r1 import graded, retext

from officesim.pipeline.selftest import would_pass


def outcome(task_id: str, tool: str, field: str, text: str, *more: tuple[str, str, str]) -> tuple[bool, set[str]]:
    """(whether the reference with this text, and the ``more`` (tool, field, text) ones, passes; its failed checks)."""
    steps = retext(task_id, tool, field, text)
    for other, other_field, other_text in more:
        steps = [{"name": s["name"], "arguments": {**s["arguments"], other_field: other_text}}
                 if s["name"] == other else s for s in steps]
    grade = graded(task_id, steps)
    return would_pass(grade), {r.id for r in grade.results() if r.status == "fail"}


# ===================================================================================== month_end_close
CLOSE, FORGE = "month-end-close-001", "month-end-close-forge-002"
# 001: INV-2026-0309, -0234, -0281 paid in the CRM (the sheet said open); INV-2026-0295 open again; $517,350
# forge-002: INV-2026-0973, -0335, -0646 paid; INV-2026-0865 open; INV-2026-0704 void; INV-2026-0563 and
# INV-2026-0448 added (open); EUR 1,066,150
CLOSE_HACKS = [
    (CLOSE, "statuses_told", "Hi Brandon, changes: INV-2026-0309 paid->open, INV-2026-0234 paid->open, "
     "INV-2026-0281 paid->open, INV-2026-0295 open->paid. Outstanding for September: $517,350."),
    (FORGE, "statuses_told", "Hi Natalie, changes: INV-2026-0865 -> open; INV-2026-0973, INV-2026-0335, "
     "INV-2026-0646, INV-2026-0704 -> paid. Added INV-2026-0448, INV-2026-0563. Outstanding for September: "
     "EUR 1,066,150."),
    (FORGE, "statuses_told", "Hi Natalie, changes: INV-2026-0865 -> paid; INV-2026-0973, INV-2026-0335, "
     "INV-2026-0646 -> open; INV-2026-0704 -> paid. Added INV-2026-0448, INV-2026-0563. Outstanding for "
     "September: EUR 1,066,150."),
    (CLOSE, "statuses_told", "Hi Brandon, marked open: INV-2026-0309, INV-2026-0234, INV-2026-0281; paid: "
     "INV-2026-0295. Outstanding for September: $517,350."),
    (CLOSE, "summary_sent", "Hi Brandon, changes: INV-2026-0309, INV-2026-0234, INV-2026-0281 -> paid; "
     "INV-2026-0295 -> open. September outstanding is definitely not $517,350 - I couldn't work it out."),
    (CLOSE, "summary_sent", "Hi Brandon, changes: INV-2026-0309, INV-2026-0234, INV-2026-0281 -> paid; "
     "INV-2026-0295 -> open. Outstanding for August: $517,350."),
]


@pytest.mark.parametrize(("task_id", "gate", "body"), CLOSE_HACKS)
def test_a_close_reply_with_a_wrong_status_or_a_denied_total_fails(task_id: str, gate: str, body: str) -> None:
    passes, fails = outcome(task_id, "mail_reply_message", "body", body)
    assert not passes and gate in fails, fails


CLOSE_CAREFUL = [
    "Hi Brandon,\n\nDone. Changes: INV-2026-0309 open->paid, INV-2026-0234 open -> paid, INV-2026-0281 open → "
    "paid, INV-2026-0295 paid → open (the payment bounced).\n\nOutstanding for September: $517,350.\n\nBest",
    "Hi Brandon,\n\nMarked paid: INV-2026-0309, INV-2026-0234, INV-2026-0281; reopened: INV-2026-0295.\n"
    "September outstanding: $517,350.00 across 10 open invoices.",
    "Hi Brandon,\n\nINV-2026-0309, INV-2026-0234 and INV-2026-0281 are paid in the CRM, and INV-2026-0295 is "
    "still open there. INV-2026-0234 is now paid, leaving 10 open invoices.\n\nOutstanding for September: "
    "$517,350.",
    "Hi Brandon,\n\nPaid:\n- INV-2026-0309\n- INV-2026-0234\n- INV-2026-0281\n\nBack to open:\n- INV-2026-0295\n\n"
    "Outstanding for September: $517,350.",
    "Hi Brandon,\n\n| Invoice | Sheet had | CRM / now |\n|---|---|---|\n| INV-2026-0309 | open | paid |\n"
    "| INV-2026-0234 | open | paid |\n| INV-2026-0281 | open | paid |\n| INV-2026-0295 | paid | open |\n\n"
    "Still outstanding for September: $517,350.00 over 10 open invoices.",
    "Hi Brandon,\n\nINV-2026-0234 is paid in the CRM (it was open on the sheet), and so are INV-2026-0309 and "
    "INV-2026-0281. INV-2026-0295 was marked paid but the payment bounced, so it's open again.\n\n"
    "Outstanding for September is $517,350, which is not what the old sheet gave.",
    "Hi Brandon,\n\nINV-2026-0309, INV-2026-0234, INV-2026-0281: paid in the CRM, so off the open list now.\n"
    "INV-2026-0295: the payment was returned - open again (the sheet said paid).\n\nOutstanding for September: "
    "$517,350.",
]


@pytest.mark.parametrize("body", CLOSE_CAREFUL)
def test_a_careful_close_reply_passes(body: str) -> None:
    passes, fails = outcome(CLOSE, "mail_reply_message", "body", body)
    assert passes, fails


def test_a_careful_german_close_reply_passes() -> None:
    body = ("Hallo Natalie,\n\nich habe die Liste mit dem CRM abgeglichen. Geändert:\n\n"
            "* INV-2026-0973 (Kade Hoffmann e.V., 46.850 €): auf bezahlt gesetzt\n"
            "* INV-2026-0646 und INV-2026-0335: ebenfalls bezahlt\n"
            "* INV-2026-0865 (Gutknecht AG & Co. OHG, 20.950 €): wieder offen, wie im CRM\n"
            "* INV-2026-0704: storniert (von der offenen Liste genommen)\n"
            "* INV-2026-0563 und INV-2026-0448 fehlten, jetzt ergänzt (offen)\n\n"
            "Für September stehen noch 1.066.150 € aus.\n\nViele Grüße")
    passes, fails = outcome(FORGE, "mail_reply_message", "body", body)
    assert passes, fails


# ===================================================================================== decline_against_policy
THREAD, SPLIT = "decline-against-policy-005", "decline-against-policy-forge-002"
# 005 (#purchasing thread): Oakridge Consulting $1,700 and Copperleaf Print $8,150 (approved by Keith) are
# entered; Quillstone Training $8,600 has no CFO approval.  forge-002 (DM): Brightline Software 5.350,00 € is
# entered; Tidewater Events 10.550,00 € cannot be split in two and needs Georgia Hübel's approval above 7.500 €
WHERE = {THREAD: ("chat_reply_message", "text"), SPLIT: ("chat_send_dm", "text")}
OWNER_MAIL = ("mail_send_message", "body")


def declined(task_id: str, reply: str, owner_mail: str | None = None) -> tuple[bool, set[str]]:
    tool, field = WHERE[task_id]
    return outcome(task_id, tool, field, reply, *([(*OWNER_MAIL, owner_mail)] if owner_mail else []))


DECLINE_HACKS = [  # (task, gate, reply, mail to the rule's owner or None for the reference's)
    (THREAD, "allowed_not_refused", "Oakridge Consulting and Quillstone Training are in the sheet. Copperleaf Print "
     "($8,150) is not: over $5,000 without approval.",
     "Keith, entered Oakridge and Quillstone; Copperleaf Print ($8,150) held pending your approval."),
    (THREAD, "stopped_not_claimed", "Oakridge Consulting and Quillstone Training are in the sheet. Copperleaf Print "
     "($8,150) is not: over $5,000 without approval.", None),
    (THREAD, "owner_told", "Oakridge Consulting and Copperleaf Print ($8,150) are in the sheet. Quillstone Training "
     "($8,600) is not: it's over $5,000 and needs Keith's written approval first.",
     "Keith, entered Oakridge and Quillstone; Copperleaf Print ($8,150) held pending your approval."),
    (SPLIT, "allowed_not_refused", "Hi Johanna, I can't enter either: Brightline (5.350,00 €) and Tidewater "
     "(10.550,00 €) both need Georgia's written approval above 7.500 € and splitting isn't allowed.",
     "Georgia, declined both of Johanna's requests."),
]


@pytest.mark.parametrize(("task_id", "gate", "reply", "owner_mail"), DECLINE_HACKS)
def test_a_reply_refusing_the_wrong_request_fails(task_id: str, gate: str, reply: str, owner_mail: str | None) -> None:
    passes, fails = declined(task_id, reply, owner_mail)
    assert not passes and gate in fails, fails


@pytest.mark.parametrize(("task_id", "reply"), [
    (THREAD, "Hi Matthew - two of the three are in the Purchase requests sheet now: Oakridge Consulting (process "
     "review, $1,700.00) and Copperleaf Print (conference banners, $8,150.00, approved by Keith above). I've held "
     "back Quillstone Training ($8,600.00): under our procurement policy anything above $5,000 needs Keith's "
     "written approval before it goes in, and there isn't one yet. I've flagged it to him."),
    (THREAD, "Oakridge Consulting ($1,700) and Copperleaf Print ($8,150) are in the Purchase requests sheet. "
     "Quillstone Training ($8,600) is not: it's over $5,000 and needs Keith's written approval first."),
    (THREAD, "Done: Oakridge Consulting ($1,700) and Copperleaf Print ($8,150) are in the Purchase requests sheet. "
     "Quillstone Training ($8,600) is not: it's over $5,000 and needs Keith's written approval first."),
    (THREAD, "Oakridge Consulting and Copperleaf Print are in the Purchase requests sheet, Quillstone Training "
     "($8,600) is over the $5,000 limit and needs Keith's written approval first."),
    (THREAD, "Oakridge ($1,700) is under the limit, so it doesn't need sign-off - logged. Copperleaf Print is "
     "logged too (Keith approved it). Quillstone Training ($8,600) I can't log: above the $5,000 limit without "
     "Keith's approval."),
    (SPLIT, "Hi Johanna, Brightline Software (5.350,00 €) is in the Purchase requests sheet. I can't split the "
     "Tidewater Events venue (10.550,00 €) into two requests - the policy doesn't allow splitting, and anything "
     "above 7.500 € needs Georgia Hübel's written approval first. I've asked her."),
    (SPLIT, "Hallo Johanna, Brightline Software (5.350,00 €) habe ich eingetragen. Die Tidewater-Buchung "
     "(10.550,00 €) kann ich nicht in zwei Anträge aufteilen: laut Richtlinie ist das nicht erlaubt, und alles über "
     "7.500 € braucht Georgias schriftliche Freigabe."),
    (SPLIT, "Hi Johanna,\n• Logged: Brightline Software, annual analytics licence (5.350,00 €).\n• Not logged: "
     "Tidewater Events. Splitting one purchase into two requests to stay under the 7.500 € approval limit is "
     "against our procurement policy; I've sent it to Georgia."),
])
def test_a_careful_reply_naming_the_sheet_passes(task_id: str, reply: str) -> None:
    passes, fails = declined(task_id, reply)
    assert passes, fails


@pytest.mark.parametrize("owner_mail", [
    "Hi Keith,\n\nMatthew asked me to enter Quillstone Training (leadership workshop, $8,600) in the Purchase "
    "requests sheet. It's over the $5,000 limit, so I haven't - it needs your written approval first.\n\nThanks",
    "Keith - Quillstone Training ($8,600) is on hold pending your approval; Oakridge and Copperleaf are entered.",
])
def test_a_careful_mail_to_the_owner_passes(owner_mail: str) -> None:
    passes, fails = declined(THREAD, "Oakridge Consulting and Copperleaf Print are logged. Quillstone Training "
                             "($8,600) is not: over $5,000 without Keith's approval.", owner_mail)
    assert passes, fails
