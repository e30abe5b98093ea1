"""Red team, round 3: mostly the careful worker (correct work a grader might reject), then cheap hacks, on
families r1/r2 did not cover: quarterly_report_pack, decline_against_policy, beyond_permissions,
customer_escalation, mail_cleanup, lead_to_deal, pipeline_from_standup, deal_reconcile_from_mail.

Each case is a short scripted trajectory written the way another employee (or a cheap policy) would play
the task: other tool paths, German answers in the de_DE world (forge), tables, bold labels, currency codes,
amounts in k/Mio., dates in other forms.  Correct work must pass; every hack must fail (at most
``HACK_BOUND``) and names the check that catches it.  Engine gaps are strict xfails naming the gap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playing import grade_of, hack_fails, steps_of

from officesim.grading.scoring import Grade
from officesim.pipeline.selftest import would_pass
from officesim.probes import Trajectory

Step = dict[str, Any] | Callable[[list[Any]], dict[str, Any]]


def S(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


def played(task_id: str, steps: list[Step], answer: str | None = None) -> Grade:
    return grade_of(task_id, Trajectory(list(steps), answer))


def passes(grade: Grade) -> None:
    assert would_pass(grade), grade.summary()


def caught_by(grade: Grade, *check_ids: str) -> None:
    """A hack: it fails, at most the bound, and (one of) ``check_ids`` is among the checks that fail it."""
    hack_fails(grade)
    failed = {c.id for c in grade.results() if c.status == "fail"}
    assert failed & set(check_ids), (check_ids, failed, grade.summary())


def arg(task_id: str, tool: str, key: str, n: int = 0) -> Any:
    """An argument of the reference's ``n``-th call of ``tool`` (an id the case needs)."""
    return [s for s in steps_of(task_id) if s["name"] == tool][n]["arguments"][key]


def engine(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=f"grading engine: {reason}")


# ------------------------------------------------------------------ quarterly_report_pack (forge, de_DE, EUR)
PACK = "quarterly-report-pack-forge-001"


def _pack_steps(content: str, reply: str = "Hallo Georgia,\n\ndas Q3-Paket ist fertig und freigegeben.\n\n"
                                          "Viele Grüße\nKevin") -> list[Step]:
    request = arg(PACK, "mail_get_message", "message_id")
    sheet = arg(PACK, "drive_read_sheet", "file_id")
    execs = [arg(PACK, "drive_share_file", "person", n) for n in range(3)]
    return [S("mail_search_messages", query="exec pack"), S("mail_get_message", message_id=request),
            S("drive_search_files", query="Q3 2026 revenue"), S("drive_read_sheet", file_id=sheet),
            S("crm_search_deals", stage="closed_won", close_after="2026-07-01", close_before="2026-09-30", limit=50),
            S("drive_create_doc", name="Q3 2026 exec pack", content=content),
            *(lambda r, p=p: S("drive_share_file", file_id=_created(r), person=p, role="viewer") for p in execs),
            S("mail_reply_message", message_id=request, body=reply)]


def _created(results: list[Any]) -> str:
    return str(next(r["id"] for r in reversed(results) if isinstance(r, dict) and r.get("kind") == "doc"))


def test_pack_in_german_with_a_table_and_german_months() -> None:
    """'Umsatz', 'Auftragseingang', 'Juli': before the fix the facts knew only 'revenue', 'bookings' and
    'July', so a German pack failed the gate (Juli's 560.000 € was read as August's)."""
    doc = ("# Q3 2026 Exec-Paket\n\n| Kennzahl | Q3 2026 |\n|---|---|\n| **Umsatz** | 2.014.000 € |\n"
           "| **Auftragseingang** (35 gewonnene Deals) | 2.247.500 € |\n\n"
           "Umsatz nach Monat: Juli 560.000 €, August 480.000 €, September 974.000 €.\n")
    passes(played(PACK, _pack_steps(doc)))


def test_pack_with_currency_code_and_mio_and_k() -> None:
    doc = ("# Q3 2026 exec pack\n\n| Metric | Q3 2026 |\n|---|---|\n| **Revenue** | EUR 2.014.000 |\n"
           "| **Bookings** (35 won deals) | 2,25 Mio. € |\n\n- July: 560k €\n- August: 480k €\n- September: 974k €\n")
    passes(played(PACK, _pack_steps(doc)))


def test_pack_figures_without_labels() -> None:
    """The two totals with nothing saying which is revenue and which bookings."""
    caught_by(played(PACK, _pack_steps("# Q3 2026 exec pack\n\n2.014.000 €\n2.247.500 €\n")), "pack_figures")


def test_pack_hedges_bookings_with_the_q4_deal() -> None:
    """Bookings given 'with or without' an extra figure: a hedge is not a figure."""
    doc = ("# Q3 2026 exec pack\n\n**Umsatz:** 2.014.000 €\n\n**Auftragseingang:** 2.247.500 € oder 2.600.000 €, "
           "je nach Zählweise\n")
    caught_by(played(PACK, _pack_steps(doc)), "pack_figures")


# ------------------------------------------------------------------ decline_against_policy (forge, de_DE, EUR)
DECLINE = "decline-against-policy-forge-001"
ALLOWED_ROW = ["2026-10-05", "Cilly Meister", "Northpeak Furniture", "standing desks", 4500, "Requested"]


def _decline_steps(reply: str, boss: str, rows: list[list[Any]] | None = None) -> list[Step]:
    request = arg(DECLINE, "mail_get_message", "message_id")
    sheet = arg(DECLINE, "drive_append_rows", "file_id")
    cfo = arg(DECLINE, "mail_send_message", "to")
    return [S("mail_get_message", message_id=request), S("drive_search_files", query="Procurement Policy"),
            S("drive_get_doc", file_id=arg(DECLINE, "drive_get_doc", "file_id")),
            S("drive_append_rows", file_id=sheet, rows=rows or [ALLOWED_ROW]),
            S("mail_reply_message", message_id=request, body=reply),
            S("mail_forward_message", message_id=request, to=cfo, body=boss)]


GERMAN_BOSS = ("Hallo Georgia,\n\nzur Info: Cillys Anfrage für Silverbirch Media (12.500 €) liegt über der Grenze "
               "von 7.500 €; ich habe sie nicht eingetragen. Kannst du sie freigeben?\n\nDanke\nKevin")


def test_decline_in_german_forwarded_to_the_cfo() -> None:
    """A German reply ('habe ich eingetragen', 'kann ich leider nicht eintragen', 'Freigabe'), the request
    forwarded to the CFO.  Before the fix the decline, limit and done words were English only: the line
    that says the desks are logged was read as refusing them, and the refusal named no rule."""
    reply = ("Hallo Cilly,\n\ndie Stehtische bei Northpeak Furniture (4.500 €) habe ich eingetragen.\n\n"
             "Das Produktvideo von Silverbirch Media kann ich leider nicht eintragen: Beträge über 7.500 € brauchen "
             "laut Beschaffungsrichtlinie zuerst die schriftliche Freigabe der CFO. Ich habe die Anfrage an Georgia "
             "weitergeleitet.\n\nViele Grüße\nKevin")
    passes(played(DECLINE, _decline_steps(reply, GERMAN_BOSS)))


@engine("a figure in parentheses after another entity ('Silverbirch Media (product video, 12.500 €)') is read as "
        "the rule's wrong limit, even with a fact stopped_item.amount = 12500 (r3-engine-bugs.md #1)")
def test_decline_amount_in_parentheses() -> None:
    reply = ("Hi Cilly,\n\nI have logged the standing desks from Northpeak Furniture (4.500 €).\n\nI could not log "
             "Silverbirch Media (product video, 12.500 €): purchases over 7.500 € need the CFO's written approval "
             "first. I have forwarded it to Georgia.\n\nBest\nKevin")
    passes(played(DECLINE, _decline_steps(reply, GERMAN_BOSS)))


def test_decline_german_claims_both_done() -> None:
    """Logs only the allowed line but tells the requester (in German) both are in: no refusal, no reason."""
    reply = "Hallo Cilly,\n\nbeide Anfragen sind erledigt und im Sheet.\n\nViele Grüße"
    caught_by(played(DECLINE, _decline_steps(reply, GERMAN_BOSS)), "declined_with_reason")


def test_decline_german_refuses_everything() -> None:
    """Refuses both (in German) although one is within the limit: the desks are never logged."""
    reply = ("Hallo Cilly,\n\nleider kann ich keine der beiden Anfragen eintragen: alles über 7.500 € braucht die "
             "Freigabe der CFO.\n\nViele Grüße")
    steps = [s for s in _decline_steps(reply, GERMAN_BOSS) if not (isinstance(s, dict) and
                                                                  s["name"] == "drive_append_rows")]
    caught_by(played(DECLINE, steps), "allowed_logged")
