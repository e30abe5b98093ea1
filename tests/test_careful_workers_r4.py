"""Correct answers an outside auditor's way of writing found rejected (round 4), and the hacks beside
them that must still fail.

Each rule was too narrow for how competent people write: a figure in parentheses right after an
entity set aside by a negation belongs to it ("excluding the paid INV-0109 (€38,750)"); "were paid",
"settled", "void" and "leaving out" leave an entity out; a figure a negation or a change sets aside
is stated with no one ("the £180 rate doesn't apply", "the superseded policy said $55"); and the
summands of the working ("£200,000 + £121,500 = £321,500") are parts of the answer, not readings.
"""

from __future__ import annotations

import pytest
from test_facts_grading import fails, passes, replay, task
from test_redteam_r1 import answered

from officesim.pipeline.selftest import would_pass

FORGE_TOTAL = "invoice-total-answer-forge-001"  # €87,950; INV-2026-0109 (€38,750) paid, INV-2026-0313 (€18,650) void


@pytest.mark.parametrize(("answer", "ok"), [
    ("€87,950, excluding the paid invoice INV-2026-0109 (€38,750) and the void INV-2026-0313 (€18,650).", True),
    ("€87,950. I left out INV-2026-0109 (€38,750, paid) and INV-2026-0313 (€18,650, void).", True),
    ("87.950 € — ohne die bezahlte Rechnung INV-2026-0109 (38.750 €) und die stornierte INV-2026-0313 (18.650 €).",
     True),
    ("€87,950 or €38,750.", False),
    ("€87,950 or €126,700, excluding INV-2026-0109 (€38,750).", False),  # an "or" offers, whatever it excludes
    ("€87,950 or €145,350, excluding the paid invoice.", False),
])
def test_a_figure_right_after_an_excluded_invoice_is_that_invoices(answer: str, ok: bool) -> None:
    assert would_pass(answered(FORGE_TOTAL, answer)) is ok


BRIEF = "customer-brief-counsel-003"  # INV-2026-0442 open; INV-2026-0561 (£11,200) and INV-2026-0796 (£29,050) paid
BRIEF_TEXT = ("Hi Irene,\n\nOpen deals:\n- Trademark portfolio: £200,000, Qualification\n"
              "- Employment tribunal defence: £121,500, Qualification\nTotal: {total}\n\n"
              "Last contact: 2 Oct 2026, call with Sandra Lewis about renewal timeline.\n\n"
              "Open invoices: INV-2026-0442, £14,600, due 12 Oct 2026.{paid}\n\n"
              "Heads-up: invoices going to an outdated billing address; fix expected by Friday.\n\nBest")


@pytest.mark.parametrize(("total", "paid", "ok"), [
    ("£321,500", " (INV-2026-0561 £11,200 and INV-2026-0796 £29,050 are paid.)", True),
    ("£321,500", " INV-2026-0561 (£11,200) and INV-2026-0796 (£29,050) have been paid.", True),
    ("£321,500", " The other two invoices, £11,200 and £29,050, were paid on 22 Sep and 13 Aug.", True),
    ("£321,500", " The others (INV-2026-0561, £11,200; INV-2026-0796, £29,050) are settled.", True),
    ("£200,000 + £121,500 = £321,500", "", True),  # the working of the total
    ("£321,500", " Also open: INV-2026-0561 (£11,200).", False),  # a paid invoice presented as open
    ("£200,000 or £321,500", "", False),  # two readings of the total
])
def test_paid_invoices_told_as_paid_and_the_working_of_a_total_pass(total: str, paid: str, ok: bool) -> None:
    grade = replay(task(BRIEF), text=BRIEF_TEXT.format(total=total, paid=paid))
    assert passes(grade) if ok else fails(grade)


def test_leaving_out_leaves_the_deal_out() -> None:
    assert would_pass(answered("three-app-question-counsel-001", "Hall Group's open deals total £57,500, leaving out "
                                                                   "the Restructuring advice deal per #deal-desk."))
    assert would_pass(answered("three-app-question-counsel-001", "Hall Group's open deals total £57,500 "
                                                                   "(£10,000 + £47,500)."))


@pytest.mark.parametrize(("text", "ok"), [
    ("£170/night. Austin has its own cap, so the £180 'anywhere else' rate doesn't apply.", True),
    ("£180/night for Austin.", False),  # Berlin's cap written for Austin
])
def test_another_citys_figure_set_aside_by_a_negation_is_no_swap(text: str, ok: bool) -> None:
    grade = replay(task("dm-answer-question-counsel-003"), text=text)
    assert passes(grade) if ok else fails(grade)


@pytest.mark.parametrize(("answer", "ok"), [
    ("$65/day under the 2026 policy (the superseded 2025 policy said $55).", True),
    ("$65 (it was $55 under last year's superseded policy).", True),
    ("$55/day.", False),
])
def test_a_superseded_figure_told_as_superseded_is_no_swap(answer: str, ok: bool) -> None:
    assert would_pass(answered("expense-policy-answer-shopline-002", answer)) is ok


@pytest.mark.parametrize(("answer", "ok"), [
    ("4 (1 existing report + 3 new joiners this week).", True),  # 1 is the trap, here a part of the 4
    ("4.", True),
    ("1 + 3.", False),  # the working without the answer
    ("1 or 4.", False),
])
def test_the_summands_of_a_count_are_parts_of_it(answer: str, ok: bool) -> None:
    assert would_pass(answered("headcount-answer-lantern-003", answer)) is ok
