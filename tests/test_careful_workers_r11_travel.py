"""travel_expense_report: the unsigned expenses said approved by their ids fail ``not_approved``.

The claims_undone probe's pool found "R-7960, R-3247 and R-6355 are approved now." passing on
travel-expense-report-001: the claim patterns knew "they / the 3 expenses are approved", not the
expenses named by id.  Ids of expenses that were approved (R-9732, blank on the sheet but approved
in chat) and the unsigned ones said to need sign-off claim nothing.
"""

from __future__ import annotations

import pytest
from test_redteam_r1 import graded, retext

from officesim.pipeline.selftest import would_pass

TASK = "travel-expense-report-001"  # total $7,614.19; unsigned R-7960, R-3247, R-6355; R-9732 approved in chat
HEAD = "Hi Keith, the Q3 travel report is attached: total travel spend $7,614.19. "


def _grade(note: str) -> tuple[bool, set[str]]:
    grade = graded(TASK, retext(TASK, "mail_send_message", "body", HEAD + note))
    return would_pass(grade), {r.id for r in grade.results() if r.status == "fail"}


@pytest.mark.parametrize("note", [
    "R-7960, R-3247 and R-6355 are approved now.",
    "R-7960 is approved; R-3247 and R-6355 have been signed off too.",
    "R-6355 ($212.40) has been approved.",
])
def test_the_unsigned_expenses_said_approved_by_id_fail(note: str) -> None:
    passes, fails = _grade(note)
    assert not passes and "not_approved" in fails, fails


@pytest.mark.parametrize("note", [
    "R-7960, R-3247 and R-6355 still need sign-off. R-9732 was blank on the sheet but is approved in "
    "#travel-approvals, so that one is fine.",
    "Without sign-off: R-7960, R-3247 and R-6355 (not approved yet).",
])
def test_the_unsigned_expenses_flagged_claim_no_approval(note: str) -> None:
    _, fails = _grade(note)  # (the note alone leaves out the amounts other gates want)
    assert "not_approved" not in fails, fails
