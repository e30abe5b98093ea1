"""Round 11 of the audit, facts grading: a figure told as another fact of the subject, and quarters swapped.

headcount_answer (department-office): the department's headcount across every office is the trap, but
told as the department's beside the answer ("5 (14 in the department across all offices)", "Four people
(Marketing has 27 in total)") it is context: the subject has a second fact, ``department_count``, whose
label tells it.  Alone, offered as another reading ("5 or 14", "5 (or 14 in the department)", "If you
mean the whole department, 14"), or told anew after a correction, it is still the trap.

travel_expense_report: the report's Q2 total is a fact of its own beside the Q3 total, each told by its
quarter's label (labels, not entity names, so "## Sales" over "Q3: $870.33" still names Sales).  Q3's
total written as Q2's and Q2's as Q3's ("Q3 travel spend was $5,740.00 (Q2: $7,614.19)") is a swap.  A
label belongs to the figure it opens ("(Q2: $5,740.00)") or closes ("$5,740.00 in Q2"), not to a
figure on the other side of it; labels listed together label a list of as many figures in their order
("Q3 vs Q2: $7,614.19 vs $5,740.00"); in a table row, a column heading labels its cells.
"""

from __future__ import annotations

import pytest
from playing import correct_passes
from test_redteam_r1 import answered, caught_by, graded, retext

from officesim.grading.scoring import Grade

# ---------------------------------------------------------------------------------------- headcount
# headcount-answer-001: People in New York, 5 (14 in the department); -011: Engineering in New York, 4 (12);
# -forge-001: Marketing in Stuttgart, 4 (27); -lantern-001: Digital remote, 5 (6)


@pytest.mark.parametrize(("task_id", "answer"), [
    ("headcount-answer-001", "5 (14 in the department across all offices)"),
    ("headcount-answer-001", "5 (14 in the People department across all offices)"),
    ("headcount-answer-001", "5. The department has 14 across all offices."),
    ("headcount-answer-001", "Five people (People has 14 in total)"),
    ("headcount-answer-001", "5 in New York (14 total)"),
    ("headcount-answer-001", "5 people are based in New York; the People department has 14 in total."),
    ("headcount-answer-001", "New York: 5. Department total: 14."),
    ("headcount-answer-011", "4 (12 in the department across all offices)"),
    ("headcount-answer-011", "Four people (Engineering has 12 in total)"),
    ("headcount-answer-forge-001", "Four people (Marketing has 27 in total)"),
    ("headcount-answer-forge-001", "4 (Marketing hat insgesamt 27)"),
    ("headcount-answer-forge-001", "Marketing in Stuttgart: 4 (of 27 in the department overall)."),
    ("headcount-answer-lantern-001", "5 (Digital has 6 in total)"),
    ("headcount-answer-001", "5"),
])
def test_the_departments_headcount_told_as_its_own_is_context(task_id: str, answer: str) -> None:
    correct_passes(answered(task_id, answer))


@pytest.mark.parametrize(("task_id", "answer"), [
    # the department's total only
    ("headcount-answer-001", "14"),
    ("headcount-answer-001", "14 in the department"),
    ("headcount-answer-001", "The department has 14 across all offices."),
    ("headcount-answer-forge-001", "Marketing has 27 in total."),
    ("headcount-answer-lantern-001", "6"),
    # both, as a hedge
    ("headcount-answer-001", "5 or 14"),
    ("headcount-answer-001", "5, or 14 in total"),
    ("headcount-answer-001", "5 (or 14 in the department)"),
    ("headcount-answer-001", "5 (maybe 14 in the department)"),
    ("headcount-answer-001", "5. If you mean the whole department, 14."),
    ("headcount-answer-001", "5, unless you count the whole department: 14"),
    ("headcount-answer-001", "5. Correction: 14 in the department."),
    ("headcount-answer-001", "5. Actually, 14 in total."),
    ("headcount-answer-forge-001", "4 or 27"),
    # a plain wrong value, with or without the department's beside it
    ("headcount-answer-001", "2"),
    ("headcount-answer-001", "2 (14 in the department across all offices)"),
    ("headcount-answer-001", "14 (5 in New York)"),
])
def test_the_departments_headcount_alone_or_offered_is_the_trap(task_id: str, answer: str) -> None:
    caught_by(answered(task_id, answer), "count")


# ------------------------------------------------------------------------------------------ travel
TRAVEL = "travel-expense-report-001"  # Q3 $7,614.19, Q2 $5,740.00
COUNSEL = "travel-expense-report-counsel-002"  # Q3 £6,525.04, Q2 £4,610.00
DOC = ("# Q3 2026 Travel Expense Report\n\n{top}\n\n| Department | Q3 | Q2 |\n|---|---|---|\n"
       "| Sales | $3,043.23 | $1,440.00 |\n| Customer Success | $870.33 | $750.00 |\n"
       "| Marketing | $2,308.69 | $2,230.00 |\n| Executive | $1,391.94 | $1,320.00 |\n\n"
       "Biggest change: Sales, up $1,603.23 on Q2, driven by more trips this quarter.\n\nWithout sign-off:\n"
       "- R-7960: $1,043.84\n- R-3247: $56.80\n- R-6355: $178.95\n")


def mailed(task_id: str, body: str) -> Grade:
    return graded(task_id, retext(task_id, "mail_send_message", "body", body))


def reported(task_id: str, content: str) -> Grade:
    return graded(task_id, retext(task_id, "drive_create_doc", "content", content))


@pytest.mark.parametrize(("task_id", "body"), [
    (TRAVEL, "Hi Keith, report attached. Q3 travel spend was $7,614.19 (Q2: $5,740.00). 3 expenses lack sign-off."),
    (TRAVEL, "Hi Keith, report attached. Total travel spend was $7,614.19 against $5,740.00 last quarter."),
    (TRAVEL, "Hi Keith, report attached. Total travel spend was $7,614.19, up from $5,740.00 in Q2."),
    (TRAVEL, "Hi Keith, report attached. Q2 travel was $5,740.00; this quarter it rose to $7,614.19."),
    (TRAVEL, "Hi Keith, report attached (Q3 total $7,614.19, Q2 $5,740.00)."),
    (TRAVEL, "Hi Keith, report attached. Travel spend rose from $5,740.00 in Q2 to $7,614.19 in Q3."),
    (TRAVEL, "Hi Keith, report attached: $7,614.19 in Q3 ($5,740.00 in Q2)."),
    (TRAVEL, "Hi Keith, report attached. Q3 travel spend: **$7,614.19** (Q2: **$5,740.00**)."),
    (TRAVEL, "Hi Keith, report attached. Q2 vs Q3: $5,740.00 vs $7,614.19."),
    (TRAVEL, "Hi Keith, report attached. Q3 vs Q2: $7,614.19 vs $5,740.00."),
    (TRAVEL, "Hi Keith, report attached. Q2 → Q3: $5,740.00 → $7,614.19."),
    (TRAVEL, "Hi Keith, report attached. Q3 travel spend of $7,614.19 is up $1,874.19 on Q2's $5,740.00."),
    (TRAVEL, "Hi Keith, report attached. Overall, Q3 came to $7,614.19 with Sales at $3,043.23 (Q2: $1,440.00)."),
    (COUNSEL, "Hi Irene, report attached. Q3 travel spend was £6,525.04 versus £4,610.00 in the second quarter."),
])
def test_each_quarters_total_told_as_its_own_passes(task_id: str, body: str) -> None:
    correct_passes(mailed(task_id, body))


@pytest.mark.parametrize("top", [
    "Total Q3 travel spend: $7,614.19 (Q2: $5,740.00).",
    "Q3 total: $7,614.19\nQ2 total: $5,740.00",
    "## Totals\nQ3: $7,614.19\nQ2: $5,740.00",
    "| Quarter | Total |\n|---|---|\n| Q3 | $7,614.19 |\n| Q2 | $5,740.00 |",
    "| | Q3 | Q2 |\n|---|---|---|\n| Total | $7,614.19 | $5,740.00 |",
    "Total: $7,614.19 in Q3, against $5,740.00 in Q2; Sales Q3 $3,043.23 vs Q2 $1,440.00",
])
def test_a_report_with_both_quarters_passes(top: str) -> None:
    correct_passes(reported(TRAVEL, DOC.format(top=top)))


@pytest.mark.parametrize(("task_id", "body"), [
    (TRAVEL, "Hi Keith, report attached. Q3 travel spend was $5,740.00 (Q2: $7,614.19). 3 expenses lack sign-off."),
    (TRAVEL, "Hi Keith, report attached. Q3: $5,740.00, Q2: $7,614.19."),
    (TRAVEL, "Hi Keith, report attached. Q2 was $7,614.19 and Q3 $5,740.00."),
    (TRAVEL, "Hi Keith, report attached. Spend went from $7,614.19 in Q2 to $5,740.00 in Q3."),
    (TRAVEL, "Hi Keith, report attached: $5,740.00 in Q3 ($7,614.19 in Q2)."),
    (TRAVEL, "Hi Keith, report attached. Q3 travel spend: **$5,740.00** (Q2: **$7,614.19**)."),
    (TRAVEL, "Hi Keith, report attached. Q3 vs Q2: $5,740.00 vs $7,614.19."),  # labels listed: in their order
    (TRAVEL, "Hi Keith, report attached. Q3 and Q2 totals: $5,740.00 and $7,614.19."),
    (COUNSEL, "Hi Irene, report attached. Q3 travel spend was £4,610.00 (Q2: £6,525.04)."),
    # a plain wrong total (less the unsigned expenses)
    (TRAVEL, "Hi Keith, report attached. Total travel spend was $6,334.60; 3 expenses lack sign-off."),
])
def test_quarters_swapped_or_a_wrong_total_in_the_mail_fail(task_id: str, body: str) -> None:
    caught_by(mailed(task_id, body), "one_total")


@pytest.mark.parametrize("top", [
    "Total Q3 travel spend: $5,740.00 (Q2: $7,614.19).",
    "Q3 travel spend was $5,740.00 (Q2: $7,614.19)",
    "Q3 total: $5,740.00\nQ2 total: $7,614.19",
    "## Totals\nQ3: $5,740.00\nQ2: $7,614.19",
    "| | Q3 | Q2 |\n|---|---|---|\n| Total | $5,740.00 | $7,614.19 |",  # the column's heading is the label
])
def test_quarters_swapped_in_the_report_fail(top: str) -> None:
    caught_by(reported(TRAVEL, DOC.format(top=top)), "total")


def test_a_heading_still_names_the_lines_under_it() -> None:
    """Labels name no entity: "## Sales" over "Q3: $3,043.23 (Q2: $1,440.00)" is Sales's, as in round 6."""
    correct_passes(reported(TRAVEL, "# Q3 2026 Travel Expense Report\n\nTotal Q3 travel spend: $7,614.19 (Q2: "
                            "$5,740.00)\n\n## Sales\nQ3: $3,043.23 (Q2: $1,440.00), the biggest change, up $1,603.23 "
                            "on more trips\n\n## Customer Success\nQ3: $870.33\n\n## Marketing\nQ3: $2,308.69\n\n"
                            "## Executive\nQ3: $1,391.94\n\n## Without sign-off\n- R-7960: $1,043.84\n"
                            "- R-3247: $56.80\n- R-6355: $178.95"))
