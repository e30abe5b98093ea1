"""Round 6 of the audit: a second total no ``wrong`` value foresaw, amounts in a foreign currency,
conditional second readings, and labels on lines of their own.

A correction restates the value ("Correction: total is $100,400", "Korrektur: 106.600 €") and so offers a
second reading; a covering mail's total that the attached report contradicts is one too.  "£136,600" in a
dollar world states no amount of the world's.  A negation inside a condition ("If the new joiners don't
count yet, 2.") sets nothing aside.  A line naming an entity and no figure ("Department: Sales",
"**Cochran PLC**", "## Sales") is what the lines under it are about.
"""

from __future__ import annotations

import pytest
from test_redteam_r1 import answered, graded, retext

from officesim.pipeline.selftest import would_pass

SUMMARY = "channel-summary-post-002"  # $136,600 across 5 vendors, Wayne Printing $36,400 biggest; USD
POST = "Q3 2026 Vendor Spend: $136,600 across 5 vendors. Biggest: Wayne Printing at $36,400."


def posted(text: str) -> bool:
    return would_pass(graded(SUMMARY, retext(SUMMARY, "chat_post_message", "text", text)))


@pytest.mark.parametrize(("tail", "ok"), [
    (" Correction: total is $100,400.", False),
    (" Total is actually $100,400.", False),
    (" Sorry, the revised total: $98,000.", False),
    ("\nTotal: $120,000", False),  # a bare total after the value, in another paragraph: the last word on it
    (" Approved total: $100,400.", True),  # a qualifier before the label: a subtotal
    (" Total approved: $100,400.", True),  # ... or after it
    ("", True),
])
def test_a_total_told_again_as_another_figure_is_a_second_reading(tail: str, ok: bool) -> None:
    assert posted(POST + tail) is ok


@pytest.mark.parametrize(("text", "ok"), [
    ("Total: 5 vendors, $136,600. Biggest: Wayne Printing at $36,400.", True),  # a count beside an amount
    ("Q3 vendor spend came to a total of $137k across 5 vendors; the biggest was Wayne Printing at $36.4k.", True),
    ("Q3 2026 Vendor Spend: £136,600 across 5 vendors. Biggest: Wayne Printing at £36,400.", False),
    ("Q3 2026 Vendor Spend: 136,600 EUR across 5 vendors. Biggest: Wayne Printing at 36,400 EUR.", False),
    ("Q3 2026 Vendor Spend: USD 136,600 across 5 vendors. Biggest: Wayne Printing at 36,400 dollars.", True),
])
def test_amounts_in_a_currency_the_world_does_not_use_state_nothing(text: str, ok: bool) -> None:
    assert posted(text) is ok


@pytest.mark.parametrize(("task_id", "answer", "ok"), [
    ("budget-variance-answer-001", "Sales, over by $26,300. Correction: Sales is actually over by $20,500.", False),
    ("budget-variance-answer-carewell-001", "Clinic Operations over by ₹34,800. Correction: ₹25,400.", False),
    ("invoice-total-answer-carewell-001", "₹1,08,000 open. Correction: ₹1,37,000 open.", False),
    ("invoice-total-answer-forge-001", "87.950 €. Korrektur: 106.600 €.", False),
    ("budget-variance-answer-001", "Sales, over by $26,300. Update: Finance is also over, by $5,800.", True),
    ("budget-variance-answer-001", "Actually, the answer is Sales: $26,300 over budget.", True),
    ("budget-variance-answer-001", "Sales, over by €26,300.", False),
    ("expense-policy-answer-001", "£235 per night.", False),
])
def test_a_correction_restates_the_value(task_id: str, answer: str, ok: bool) -> None:
    assert would_pass(answered(task_id, answer)) is ok


def test_a_correction_to_another_fact_of_the_same_entity_is_a_second_reading() -> None:
    """The previous amount is the deal's own fact: told after "Correction:", it is a second reading."""
    task_id = "conflicting-instructions-001"
    body = "Hi Matthew, the Forecasting module deal is now $12,400. Correction: $14,500."
    assert not would_pass(graded(task_id, retext(task_id, "mail_reply_message", "body", body)))


TRAVEL = "travel-expense-report-002"  # Q3 total $10,374.80


@pytest.mark.parametrize(("body", "ok"), [
    ("Hi Keith,\n\nThe Q3 travel-expense report is attached. Total travel spend was $9,374.80; 3 expenses went "
     "through without sign-off (details in the doc).\n\nBest", False),
    ("Hi Keith,\n\nThe Q3 travel-expense report is attached. Total travel spend was $10,374.80, or $9,374.80 "
     "without airfare; 3 expenses went through without sign-off.\n\nBest", False),
    ("Hi Keith,\n\nThe Q3 travel-expense report is attached: total travel spend came to $10,374.80 ($9,250.10 of "
     "it signed off); 3 expenses went through without sign-off (details in the doc).\n\nBest", True),
    ("Hi Keith,\n\nReport attached. Q3 total: $10,374.80. Without sign-off: 3 expenses.\n\nBest", True),
])
def test_the_covering_mail_is_read_with_the_report(body: str, ok: bool) -> None:
    assert would_pass(graded(TRAVEL, retext(TRAVEL, "mail_send_message", "body", body))) is ok


@pytest.mark.parametrize(("task_id", "answer"), [
    ("headcount-answer-001", "5. If the new joiners don't count yet, 2."),
    ("budget-variance-answer-001", "Sales, over by $26,300. If you don't trust the sheet, Finance."),
    ("expense-policy-answer-001", "$235 per night, unless the old $215 cap still applies to you."),
    ("invoice-total-answer-001", "$91,800 — not $161,650, although that one might also be right."),
])
def test_a_reading_offered_under_a_condition_or_taken_back_is_offered(task_id: str, answer: str) -> None:
    assert not would_pass(answered(task_id, answer))


@pytest.mark.parametrize(("task_id", "tool", "text"), [
    ("budget-variance-answer-001", None, "Department: Sales\nOverrun: $26,300"),
    ("budget-variance-answer-001", None, "**Sales** overspent the most.\nIt came in $26,300 over its Q3 budget."),
    ("budget-variance-answer-001", None, "Sales.\nOverrun: $26,300 over the Q3 budget."),
    ("quarterly-report-pack-001", "drive_create_doc.content",
     "# Q3 2026 exec pack\n\n## Revenue\nTotal: $2,585,000\n\n## Bookings\nTotal: $1,557,500 (24 deals)"),
    ("renewal-risk-digest-001", "mail_send_message.body",
     "Hi Jamie,\n\n**Cochran PLC**\n- Overdue: $27,200\n- Renewal: $113,000\n\n**Knight PLC**\n- Overdue: $57,600\n"
     "- Renewal: $164,000\n\n**Patel-Murphy**\n- Overdue: $10,250\n- Renewal: $42,000\n\nBest"),
    ("expense-audit-001", "mail_send_message.body",
     "Hi Keith,\n\nEC-9140\nRule: meal allowance\nOver by: $90\n\nEC-9881\nRule: hotel cap\nOver by: $140\n\n"
     "EC-2054\nRule: missing receipt\n\nEC-6735\nRule: missing receipt\n\nBest"),
    ("travel-expense-report-001", "drive_create_doc.content",
     "# Q3 2026 Travel Expense Report\n\nTotal Q3 travel spend: $7,614.19\n\n## Sales\nQ3: $3,043.23 (Q2: "
     "$1,440.00), the biggest change, up $1,603.23 on more trips\n\n## Customer Success\nQ3: $870.33\n\n"
     "## Marketing\nQ3: $2,308.69\n\n## Executive\nQ3: $1,391.94\n\n## Without sign-off\n- R-7960: $1,043.84\n"
     "- R-3247: $56.80\n- R-6355: $178.95"),
])
def test_a_label_on_a_line_of_its_own_names_what_the_lines_under_it_say(task_id: str, tool: str | None,
                                                                        text: str) -> None:
    if tool is None:
        assert would_pass(answered(task_id, text))
    else:
        name, field = tool.split(".")
        assert would_pass(graded(task_id, retext(task_id, name, field, text)))


def test_a_label_does_not_carry_along_its_own_line() -> None:
    """ "CTO; demo; Thursday" names the deadline beside the step only as a list of keywords."""
    task_id = "log-call-from-mail-001"
    assert not would_pass(graded(task_id, retext(task_id, "crm_log_activity", "body", "CTO; demo; Thursday")))
